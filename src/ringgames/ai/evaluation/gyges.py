"""Gygès evaluation: threats (pieces that can reach the goal) and mobility.

The board is read from the position string (``state.position()``: six rows of
digits, row 1 first, then ``S``/``N``); the reachable squares come from the
rules kernel (``kernel.movable_targets``). Per side,
as if it were that side's move:

* **threat**: one of its movable pieces can end in the opponent's goal. For the
  side to move that is a win next decision (+800); for the other side it is
  a threat the mover must parry (−350 for the mover);
* **approach**: distinct squares of the opponent's home row its movable pieces
  can end on (15 each): from there a later move can reach the goal;
* **mobility**: distinct (start, end) targets of its movable pieces (2 each).

The setup phase evaluates to 0.

>>> from ringgames import load_game
>>> s = load_game("gyges").state_from_position("321123/000000/000000/000000/000000/321123 S")
>>> v = evaluate(s); v[0] == -v[1]
True
"""

from __future__ import annotations

from ...games.gyges.board import GOAL
from ...games.gyges.kernel import movable_targets as movable_starts

SCALE = 300.0

_THREAT_TO_MOVE = 800.0
_THREAT_WAITING = 350.0
_APPROACH = 15.0
_MOBILITY = 2.0


def parse(state) -> tuple[list[int], int] | None:
    """``(board, side)`` from the position string, or None during the setup."""
    text = state.position()
    rows, _, side = text.partition(" ")
    board = [int(ch) for ch in rows.replace("/", "")]
    if len(board) != 36:
        return None
    if sum(1 for v in board if v) < 12:  # setup not finished (a full board has all 12 pieces)
        return None
    return board, (0 if side.strip().upper().startswith("S") else 1)


def _features(board, side: int, replace: bool) -> tuple[bool, int, int]:
    starts = movable_starts(board, side, replace)
    threat = False
    home = 5 if side == 0 else 0  # the opponent's home row index
    approach = set()
    mob = 0
    for s, ends, reps, _drops in starts:
        if GOAL in ends:
            threat = True
        mob += len(ends) + len(reps)
        for e in ends:
            if e != GOAL and e // 6 == home:
                approach.add(e)
        for e in reps:
            if e // 6 == home:
                approach.add(e)
    return threat, len(approach), mob


def evaluate(state) -> list[float]:
    parsed = parse(state)
    if parsed is None:
        return [0.0, 0.0]
    board, side = parsed
    replace = state.game.variant != "beginner"
    t0, a0, m0 = _features(board, 0, replace)
    t1, a1, m1 = _features(board, 1, replace)
    score = _APPROACH * (a0 - a1) + _MOBILITY * (m0 - m1)
    threats = (t0, t1)
    mover, other = side, 1 - side
    sign = 1.0 if mover == 0 else -1.0
    if threats[mover]:
        score += sign * _THREAT_TO_MOVE
    if threats[other]:
        score -= sign * _THREAT_WAITING
    return [score, 0.0 - score]


def may_win_within_turn(state) -> bool:
    """Cheap exact test: does the player to move have a move into the goal?"""
    parsed = parse(state)
    if parsed is None:
        return False
    board, side = parsed
    return any(GOAL in ends for _s, ends, _r, _d in movable_starts(board, side, state.game.variant != "beginner"))
