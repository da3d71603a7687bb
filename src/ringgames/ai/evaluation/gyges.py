"""Gygès evaluation: threats (pieces that can reach the goal), approach, mobility and advance.

The features of each side (:func:`side_features`; :data:`FEATURES`) come from the game's compiled
rules query ``state.features()`` (per side, as if it were that side's move; see
:meth:`ringgames.games.gyges.state.GygesState.features`) and the board:

* **threat_to_move**: the side to move has a movable piece that can end in the opponent's goal:
  a win next decision;
* **threat_waiting**: the same for the side that is not to move (a threat the mover must parry,
  or not: see below);
* **approach**: distinct squares of the opponent's home row its movable pieces can end on;
* **mobility**: distinct (start, end) targets of its movable pieces;
* **advance**: how far the side's nearest occupied row (the row it moves from) is from its own
  home row, 0–5.

A side's value is ``features · weights`` and the evaluation for South is South's value minus
North's, in points. Today's hand-set weights (:data:`HAND_WEIGHTS`; :func:`evaluate`, every
``alphabeta:`` and ``search:`` agent without ``eval=``, and ``baseline:N``): +800 for a threat of
the side to move, +350 for a threat of the side waiting, 15 per approach square, 2 per mobility
target, advance 0. The weights fitted on self-play games (``ringgames tune gyges``,
:mod:`ringgames.ai.tuning_gyges`) are in ``gyges_weights.json``: ``evaluator("tuned")`` (agent
option ``eval=tuned``). The fit says a threat of the side waiting is worth *less* than nothing
(the side to move parries it, usually with tempo), where the hand weights give it +350.

The setup phase evaluates to 0.

>>> from ringgames import load_game
>>> s = load_game("gyges").state_from_position("321123/000000/000000/000000/000000/321123 S")
>>> v = evaluate(s); v[0] == -v[1]
True
>>> side_features(s)
([0.0, 0.0, 0.0, 32.0, 0.0], [0.0, 0.0, 0.0, 32.0, 0.0])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from . import named_evaluator, read_weight_file

__all__ = ["SCALE", "FEATURES", "HAND_WEIGHTS", "WEIGHTS_FILE", "side_features", "make_evaluate", "evaluate",
           "evaluator", "load_weights", "weight_vector", "may_win_within_turn"]

SCALE = 300.0

#: The features of one side (:func:`side_features`), in this order.
FEATURES = ("threat_to_move", "threat_waiting", "approach", "mobility", "advance")

#: Today's hand-set weights (points): :func:`evaluate`, the levels without ``eval=`` and ``baseline:N``.
HAND_WEIGHTS: dict[str, float] = {
    "threat_to_move": 800.0, "threat_waiting": 350.0, "approach": 15.0, "mobility": 2.0, "advance": 0.0,
}

#: The weights fitted by ``ringgames tune gyges`` (a small JSON file in the package).
WEIGHTS_FILE = Path(__file__).with_name("gyges_weights.json")

_WIDTH = 6


def _advance(board: list[int], side: int) -> int:
    """Rows between ``side``'s home row and its nearest occupied row (South: row 1 up, North: row 6 down)."""
    rows = range(_WIDTH) if side == 0 else range(_WIDTH - 1, -1, -1)
    for k, r in enumerate(rows):
        if any(board[r * _WIDTH:(r + 1) * _WIDTH]):
            return k
    return 0


def side_features(state) -> tuple[list[float], list[float]] | None:
    """``(South's features, North's features)`` in the order of :data:`FEATURES`, or None during the setup
    and once a goal is reached."""
    f = state.features()
    if f is None:
        return None
    board = state.board
    if not isinstance(board, list):
        board = list(board)
    q = state.current_player()
    out = []
    for side in (0, 1):
        t, a, m = f[3 * side:3 * side + 3]
        out.append([float(t if side == q else 0), float(t if side != q else 0), float(a), float(m),
                    float(_advance(board, side))])
    return out[0], out[1]


def weight_vector(weights: Mapping[str, float]) -> list[float]:
    """The weights in the order of :data:`FEATURES` (a missing one is 0)."""
    return [float(weights.get(name, 0.0)) for name in FEATURES]


def make_evaluate(weights: Mapping[str, float]) -> Callable[[object], list[float]]:
    """An evaluation with these weights (points per unit of each feature of :data:`FEATURES`)."""
    w = weight_vector(weights)

    def evaluate(state) -> list[float]:
        sf = side_features(state)
        if sf is None:
            return [0.0, 0.0]
        south, north = sf
        score = 0.0
        for wi, a, b in zip(w, south, north, strict=True):
            score += wi * (a - b)
        return [score, 0.0 - score]

    return evaluate


#: Today's evaluation (hand-set weights).
evaluate = make_evaluate(HAND_WEIGHTS)


def load_weights(path: str | Path = WEIGHTS_FILE) -> dict:
    """The weight file: ``{"weights": {feature: points}, "scale": points, ...}`` (ValueError if malformed)."""
    return read_weight_file(path, FEATURES)


_variants: dict[str, tuple[Callable[[object], list[float]], float]] = {}


def evaluator(name: str) -> tuple[Callable[[object], list[float]], float]:
    """``(evaluate, scale)`` of a named evaluation: ``hand`` (today's) or ``tuned`` (``gyges_weights.json``)."""
    return named_evaluator(name, "Gygès", (evaluate, SCALE), load_weights, make_evaluate, _variants)


def may_win_within_turn(state) -> bool:
    """Exact test: does the player to move have a move into the goal? (A Gygès turn is one move.)"""
    return state.goal_reachable()
