"""Gygès evaluation: threats (pieces that can reach the goal) and mobility.

The features come from the game's compiled rules query ``state.features()``
(per side, as if it were that side's move; see
:meth:`ringgames.games.gyges.state.GygesState.features`):

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

SCALE = 300.0

_THREAT_TO_MOVE = 800.0
_THREAT_WAITING = 350.0
_APPROACH = 15.0
_MOBILITY = 2.0


def evaluate(state) -> list[float]:
    f = state.features()
    if f is None:
        return [0.0, 0.0]
    t0, a0, m0, t1, a1, m1 = f
    score = _APPROACH * (a0 - a1) + _MOBILITY * (m0 - m1)
    if state.current_player() == 0:  # South to move
        score += _THREAT_TO_MOVE * t0 - _THREAT_WAITING * t1
    else:
        score += _THREAT_WAITING * t0 - _THREAT_TO_MOVE * t1
    return [score, 0.0 - score]


def may_win_within_turn(state) -> bool:
    """Exact test: does the player to move have a move into the goal? (A Gygès turn is one move.)"""
    return state.goal_reachable()
