"""RINGS evaluation (any number of players): majorities, rings, influence leads.

Uses the state's public helpers (``majority``, ``ring_owner``, ``influence``,
``owner``, ``scores``-style counting). Per seat, in points:

* 100 per circle where the seat has majority (the final score counts these);
* 25 per ring the seat owns (rings make stones safe and add influence);
* on a circle nobody holds: 12 × the seat's lead in influence over the next
  best seat, capped at 3 (a circle close to being won).

>>> from ringgames import load_game
>>> evaluate(load_game("rings").new_initial_state())
[0.0, 0.0]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

from ...games.rings.board import NUM_CIRCLES
from . import named_evaluator

SCALE = 400.0

_MAJORITY = 100.0
_RING = 25.0
_LEAD = 12.0

#: The evaluation's features per seat (:func:`seat_features`) and today's hand-set weights (points; ``lead_cap``
#: is the most influence points of a lead that count).
FEATURES = ("majority", "ring", "lead")
HAND_WEIGHTS = {"majority": _MAJORITY, "ring": _RING, "lead": _LEAD, "lead_cap": 3.0}
#: Weights fitted on self-play games with four players (``ringgames tune rings``): evaluation ``tuned``.
WEIGHTS_FILE = Path(__file__).with_name("rings_weights.json")
_variants: dict[str, tuple[Callable[[object], list[float]], float]] = {}


def evaluate(state) -> list[float]:
    n = state.num_players
    vals = [0.0] * n
    majority = state.majority
    ring_owner = state.ring_owner
    influence = state.influence
    for c in range(NUM_CIRCLES):
        m = majority(c)
        if m >= 0:
            vals[m] += _MAJORITY
        r = ring_owner(c)
        if r >= 0 and r < n:
            vals[r] += _RING
        if m < 0:
            best = second = 0
            who = -1
            for p in range(n):
                x = influence(p, c)
                if x > best:
                    best, second, who = x, best, p
                elif x > second:
                    second = x
            if who >= 0 and best > second:
                vals[who] += _LEAD * min(3, best - second)
    if n == 2:
        d = (vals[0] - vals[1]) / 2.0
        return [d, 0.0 - d]
    mean = sum(vals) / n
    return [v - mean for v in vals]


def seat_features(state, cap: int = 3) -> list[tuple[int, int, int]]:
    """Per seat: (circles it holds the majority of, rings it owns, its influence leads over the next best seat on
    the circles nobody holds, each capped at ``cap``): :func:`evaluate` is their weighted sum.

    >>> from ringgames import load_game
    >>> seat_features(load_game("rings", None, 4).new_initial_state())
    [(0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0)]
    """
    n = state.num_players
    out = [[0, 0, 0] for _ in range(n)]
    for c in range(NUM_CIRCLES):
        m = state.majority(c)
        if m >= 0:
            out[m][0] += 1
        r = state.ring_owner(c)
        if 0 <= r < n:
            out[r][1] += 1
        if m < 0:
            best = second = 0
            who = -1
            for p in range(n):
                x = state.influence(p, c)
                if x > best:
                    best, second, who = x, best, p
                elif x > second:
                    second = x
            if who >= 0 and best > second:
                out[who][2] += min(cap, best - second)
    return [(a, b, c) for a, b, c in out]


def make_evaluate(weights: Mapping[str, float]) -> Callable[[object], list[float]]:
    """:func:`evaluate` with other weights (``majority``, ``ring``, ``lead``, ``lead_cap``)."""
    missing = [k for k in HAND_WEIGHTS if k not in weights]
    if missing:
        raise ValueError(f"weights without {', '.join(missing)}")
    wm, wr, wl, cap = (float(weights[k]) for k in ("majority", "ring", "lead", "lead_cap"))

    def evaluate_with(state) -> list[float]:
        vals = [wm * a + wr * b + wl * c for a, b, c in seat_features(state, int(cap))]
        n = len(vals)
        if n == 2:
            d = (vals[0] - vals[1]) / 2.0
            return [d, 0.0 - d]
        mean = sum(vals) / n
        return [v - mean for v in vals]

    return evaluate_with


def load_weights(path: str | Path = WEIGHTS_FILE) -> dict:
    """The weight file's content (``weights``, ``scale``, ``fit``)."""
    return json.loads(Path(path).read_text())


def evaluator(name: str) -> tuple[Callable[[object], list[float]], float]:
    """``(evaluate, scale)`` of a named evaluation: ``hand`` (today's) or ``tuned`` (``rings_weights.json``)."""
    return named_evaluator(name, "RINGS", (evaluate, SCALE), load_weights, make_evaluate, _variants)


def may_win_within_turn(state) -> bool:
    """The game can only end in this turn if every other active player has just passed."""
    return state.pass_count() >= len(state.active_players()) - 1
