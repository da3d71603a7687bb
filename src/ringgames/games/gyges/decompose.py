"""A step-level decomposition of a Gygès move into atomic decisions (for RL).

A whole move is one action in :class:`~.state.GygesState`; an agent that
prefers small decisions can instead walk a move step by step:

1. ``PIECE``: choose the start square (a piece on the movable row);
2. ``STEP``: choose the next square, one orthogonal step at a time (or
   :data:`~.board.GOAL` for the final step into the opponent's goal);
3. ``LAND`` (after the last step of a segment lands on a piece): choose
   :data:`BOUNCE` or :data:`REPLACE`;
4. ``DROP`` (after a replace): choose the drop square.

Only options that can still be completed to a whole legal move are offered, so
every decision path ends in a legal move, and the set of successor positions
reached is exactly the set reached by the state's legal actions (the tests check
this). A position where no move exists offers the single option :data:`PASS_OPTION`.

Options are small ints: squares 0..35, GOAL (36), BOUNCE (37), REPLACE (38),
PASS_OPTION (39).
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import GOAL, GOAL_ROW, NEIGHBORS, NSQ, ROW, SIZE
from .movegen import drop_squares

BOUNCE, REPLACE, PASS_OPTION = 37, 38, 39
PIECE, STEP, LAND, DROP, DONE = "piece", "step", "land", "drop", "done"


@dataclass(frozen=True)
class Node:
    """Where a move under construction stands. ``board`` is a tuple of 36 ints (mover not lifted)."""

    board: tuple
    side: int
    replace: bool
    phase: str
    start: int = -1
    cur: int = -1
    rem: int = 0
    used: int = 0
    end: int = -1  # landing square in LAND/DROP, GOAL or the end square when DONE
    drop: int = -1
    passed: bool = False

    def lifted(self) -> list[int]:
        b = list(self.board)
        if self.start >= 0:
            b[self.start] = 0
        return b


def root(state) -> Node:
    """The decision root for the player to move in a play position of ``state``."""
    return Node(tuple(state._board), state._side, state._replace, PIECE)


def _can_finish(node: Node, b: list[int], memo: dict) -> bool:
    """True if some sequence of decisions from ``node`` completes a legal move."""
    key = (node.phase, node.cur, node.rem, node.used, node.end)
    if key in memo:
        return memo[key]
    memo[key] = False  # no cycles are possible (links are used up), but be safe
    ok = False
    for opt in _raw_options(node, b):
        nxt = _advance(node, opt, b)
        if nxt.phase == DONE or _can_finish(nxt, b, memo):
            ok = True
            break
    memo[key] = ok
    return ok


def _raw_options(node: Node, b: list[int]) -> list[int]:
    """Options allowed by the rules of one decision (ignoring whether the move can be finished)."""
    if node.phase == STEP:
        out = []
        if node.rem == 1 and ROW[node.cur] == GOAL_ROW[node.side]:
            out.append(GOAL)
        for nb, bit in NEIGHBORS[node.cur]:
            if node.used & bit:
                continue
            if node.rem > 1 and b[nb]:
                continue  # a step before the last of a segment must enter an empty square
            out.append(nb)
        return out
    if node.phase == LAND:
        out = [BOUNCE]
        if node.replace and drop_squares(b, node.side):
            out.append(REPLACE)
        return out
    if node.phase == DROP:
        return drop_squares(b, node.side)
    return []


def _advance(node: Node, opt: int, b: list[int]) -> Node:
    if node.phase == STEP:
        if opt == GOAL:
            return _replace(node, phase=DONE, end=GOAL)
        bit = next(bt for nb, bt in NEIGHBORS[node.cur] if nb == opt)
        used = node.used | bit
        if node.rem > 1:
            return _replace(node, cur=opt, rem=node.rem - 1, used=used)
        if b[opt] == 0:
            return _replace(node, cur=opt, rem=0, used=used, phase=DONE, end=opt)
        return _replace(node, cur=opt, rem=0, used=used, phase=LAND, end=opt)
    if node.phase == LAND:
        if opt == BOUNCE:
            return _replace(node, phase=STEP, rem=b[node.cur])
        return _replace(node, phase=DROP)
    if node.phase == DROP:
        return _replace(node, phase=DONE, drop=opt)
    raise ValueError(f"no decision in phase {node.phase}")


def _replace(node: Node, **kw) -> Node:
    d = dict(node.__dict__)
    d.update(kw)
    return Node(**d)


def _piece_node(node: Node, s: int) -> Node:
    return _replace(node, phase=STEP, start=s, cur=s, rem=node.board[s], used=0)


def options(node: Node) -> list[int]:
    """The options at ``node`` that lead to at least one complete legal move."""
    if node.phase == DONE:
        return []
    if node.phase == PIECE:
        rows = range(SIZE) if node.side == 0 else range(SIZE - 1, -1, -1)
        for r in rows:
            out = []
            for s in range(r * SIZE, r * SIZE + SIZE):
                if node.board[s]:
                    child = _piece_node(node, s)
                    if _can_finish(child, child.lifted(), {}):
                        out.append(s)
            if out:
                return out
        return [PASS_OPTION]
    b = node.lifted()
    memo: dict = {}
    return [o for o in _raw_options(node, b) if (n := _advance(node, o, b)).phase == DONE or _can_finish(n, b, memo)]


def advance(node: Node, option: int) -> Node:
    """The node after choosing ``option`` (which must come from :func:`options`)."""
    if node.phase == PIECE:
        if option == PASS_OPTION:
            return _replace(node, phase=DONE, passed=True)
        return _piece_node(node, option)
    return _advance(node, option, node.lifted())


def result(node: Node) -> tuple[tuple, int]:
    """``(board, side to move)`` after the finished move at a DONE node (a win leaves the piece off the board)."""
    assert node.phase == DONE
    if node.passed:
        return node.board, 1 - node.side
    b = node.lifted()
    if node.end != GOAL:
        displaced = b[node.end]
        b[node.end] = node.board[node.start]
        if node.drop >= 0:
            b[node.drop] = displaced
    return tuple(b), 1 - node.side


def successor_positions(state) -> set[tuple[tuple, int]]:
    """Every successor ``(board, side)`` reachable by the step decisions from ``state`` (memoised walk)."""
    memo: dict = {}

    def walk(node: Node) -> frozenset:
        if node.phase == DONE:
            return frozenset([result(node)])
        key = (node.phase, node.start, node.cur, node.rem, node.used, node.end)
        if key in memo:
            return memo[key]
        acc: set = set()
        for o in options(node):
            acc |= walk(advance(node, o))
        memo[key] = frozenset(acc)
        return memo[key]

    return set(walk(root(state)))


__all__ = [
    "BOUNCE",
    "REPLACE",
    "PASS_OPTION",
    "Node",
    "root",
    "options",
    "advance",
    "result",
    "successor_positions",
    "NSQ",
]
