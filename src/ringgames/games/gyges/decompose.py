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

The rules come from the kernel (:mod:`.kernel`): the movable pieces
(:func:`~.kernel.movable_targets`), the possible single steps (:func:`~.kernel.steps`),
whether a walk can still end legally (:func:`~.kernel.can_finish`) and the drop
squares (:func:`~.kernel.drop_mask`). This module only keeps track of the decisions.

Options are small ints: squares 0..35, GOAL (36), BOUNCE (37), REPLACE (38),
PASS_OPTION (39).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from . import kernel as K
from .board import GOAL, NO_DROP, NSQ, PASS, encode_move

if TYPE_CHECKING:
    from .state import GygesState

BOUNCE, REPLACE, PASS_OPTION = 37, 38, 39
PIECE, STEP, LAND, DROP, DONE = "piece", "step", "land", "drop", "done"


@dataclass(frozen=True)
class Node:
    """Where a move under construction stands. ``board`` is a tuple of 36 ints (mover not lifted)."""

    board: tuple[int, ...]
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

    def array(self) -> np.ndarray:
        """The position as a kernel state array (mover not lifted)."""
        s = K.new_state(self.replace)
        s[:NSQ] = self.board
        s[K.SIDE] = self.side
        s[K.PHASE] = K.PLAY
        return s

    def lifted_occupancy(self) -> np.int64:
        """The occupied squares with the mover lifted, as the kernel's int64 bit mask."""
        occ = 0
        for i, v in enumerate(self.board):
            if v and i != self.start:
                occ |= 1 << i
        return np.int64(occ)


def root(state: GygesState) -> Node:
    """The decision root for the player to move in a play position of ``state``."""
    return Node(tuple(state.board), state._side, state._replace, PIECE)


def _goal_row(node: Node) -> int:
    return 5 if node.side == 0 else 0


def _drops(node: Node) -> list[int]:
    return sorted(K.mask_squares(K.drop_mask(node.lifted_occupancy(), node.side)))


def _finishable(node: Node) -> bool:
    """True if some sequence of decisions from ``node`` completes a legal move (kernel search)."""
    if node.phase == DONE:
        return True
    if node.phase == DROP:
        return bool(_drops(node))
    if node.phase == LAND:
        return (node.replace and bool(_drops(node))) or _finishable(_replace(node, phase=STEP, rem=node.board[node.cur]))
    return bool(K.can_finish(node.array(), node.start, node.cur, node.rem, np.int64(node.used), *K.workspace()))


def _raw_options(node: Node) -> list[tuple[int, int]]:
    """``(option, used links after it)`` allowed by the rules of one decision (finishable or not)."""
    if node.phase == STEP:
        sqs = np.empty(8, dtype=np.int32)
        useds = np.empty(8, dtype=np.int64)
        n = K.steps(node.lifted_occupancy(), node.cur, node.rem, np.int64(node.used), _goal_row(node), sqs, useds)
        return [(int(sqs[i]), int(useds[i])) for i in range(n)]
    if node.phase == LAND:
        out = [(BOUNCE, node.used)]
        if node.replace and _drops(node):
            out.append((REPLACE, node.used))
        return out
    if node.phase == DROP:
        return [(d, node.used) for d in _drops(node)]
    return []


def _advance(node: Node, opt: int, used: int) -> Node:
    if node.phase == STEP:
        if opt == GOAL:
            return _replace(node, phase=DONE, end=GOAL)
        if node.rem > 1:
            return _replace(node, cur=opt, rem=node.rem - 1, used=used)
        if node.board[opt] == 0 or opt == node.start:
            return _replace(node, cur=opt, rem=0, used=used, phase=DONE, end=opt)
        return _replace(node, cur=opt, rem=0, used=used, phase=LAND, end=opt)
    if node.phase == LAND:
        if opt == BOUNCE:
            return _replace(node, phase=STEP, rem=node.board[node.cur])
        return _replace(node, phase=DROP)
    if node.phase == DROP:
        return _replace(node, phase=DONE, drop=opt)
    raise ValueError(f"no decision in phase {node.phase}")


def _replace(node: Node, **kw: Any) -> Node:
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
        starts = [t[0] for t in K.movable_targets(list(node.board), node.side, node.replace)]
        return starts or [PASS_OPTION]
    return [o for o, u in _raw_options(node) if _finishable(_advance(node, o, u))]


def advance(node: Node, option: int) -> Node:
    """The node after choosing ``option`` (which must come from :func:`options`)."""
    if node.phase == PIECE:
        if option == PASS_OPTION:
            return _replace(node, phase=DONE, passed=True)
        return _piece_node(node, option)
    for o, u in _raw_options(node):
        if o == option:
            return _advance(node, o, u)
    raise ValueError(f"option {option} is not allowed in phase {node.phase}")


def result(node: Node) -> tuple[tuple[int, ...], int]:
    """``(board, side to move)`` after the finished move at a DONE node, played by the kernel
    (a win leaves the piece off the board)."""
    assert node.phase == DONE
    if node.passed:
        action = PASS
    else:
        action = encode_move(node.start, node.end, NO_DROP if node.drop < 0 else node.drop)
    s = node.array()
    K.apply_action(s, action)
    return tuple(s[:NSQ].tolist()), int(s[K.SIDE])


def successor_positions(state: GygesState) -> set[tuple[tuple[int, ...], int]]:
    """Every successor ``(board, side)`` reachable by the step decisions from ``state`` (memoised walk)."""
    memo: dict[tuple[str, int, int, int, int, int], frozenset[tuple[tuple[int, ...], int]]] = {}

    def walk(node: Node) -> frozenset[tuple[tuple[int, ...], int]]:
        if node.phase == DONE:
            return frozenset([result(node)])
        key = (node.phase, node.start, node.cur, node.rem, node.used, node.end)
        if key in memo:
            return memo[key]
        acc: set[tuple[tuple[int, ...], int]] = set()
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
