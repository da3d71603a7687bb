"""Evaluation functions, one module per game (``evaluation/<game>.py``).

Each module defines ``evaluate(state) -> list[float]``: a heuristic value per
seat, in *points* (roughly: 1000 = one decisive advantage, a won game is worth
more than any evaluation), and ``SCALE``: the number of points that makes a
win probability of about 73% (``win_probability``). Evaluations are the only AI
code that may read a game's public state attributes.

:func:`get_evaluator` returns the game's function, or a neutral one (all zeros)
for a game without a module, so that every agent works on every game.

A module may also define ``evaluator(name) -> (evaluate, scale)``: other evaluations than the
default, chosen by name (``get_evaluator(game, name)``; agent option ``eval=NAME``).

A module may also define ``may_win_within_turn(state) -> bool``, a cheap
necessary condition used by :mod:`ringgames.ai.tactics` to skip searching for
wins that cannot exist.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

from ...protocol import State

__all__ = ["get_evaluator", "get_win_filter", "win_probability", "reward", "read_weight_file", "named_evaluator"]

_cache: dict[str, tuple[Callable[[State], list[float]], float]] = {}


def _neutral(state: State) -> list[float]:
    return [0.0] * state.num_players


def get_evaluator(game_name: str, name: str = "") -> tuple[Callable[[State], list[float]], float]:
    """``(evaluate, scale)`` for a game name (neutral evaluation if the game has none); ``name``: one of the
    game's other evaluations (its module's ``evaluator(name)``, e.g. YINSH's ``tuned``; ValueError if it has none)."""
    if name:
        try:
            mod = importlib.import_module(f"{__name__}.{game_name}")
        except ModuleNotFoundError:
            mod = None
        named = getattr(mod, "evaluator", None)
        if named is None:
            raise ValueError(f"{game_name} has no evaluation named {name!r}")
        return named(name)
    if game_name not in _cache:
        try:
            mod = importlib.import_module(f"{__name__}.{game_name}")
            _cache[game_name] = (mod.evaluate, float(getattr(mod, "SCALE", 1000.0)))
        except ModuleNotFoundError:
            _cache[game_name] = (_neutral, 1000.0)
    return _cache[game_name]


_filters: dict[str, Callable[[State], bool] | None] = {}


def get_win_filter(game_name: str) -> Callable[[State], bool] | None:
    """The game's ``may_win_within_turn(state)``: a cheap *necessary* condition for the
    player to move to win within the current turn (False = certainly not), or None."""
    if game_name not in _filters:
        try:
            mod = importlib.import_module(f"{__name__}.{game_name}")
            _filters[game_name] = getattr(mod, "may_win_within_turn", None)
        except ModuleNotFoundError:
            _filters[game_name] = None
    return _filters[game_name]


def win_probability(points: float, scale: float) -> float:
    """Logistic map of an evaluation to a win probability (0.5 at 0)."""
    x = max(-50.0, min(50.0, points / scale))
    return 1.0 / (1.0 + math.exp(-x))


def reward(points: float, scale: float) -> float:
    """Map an evaluation to a reward in (-1, 1), like ``State.returns`` for a two-player game."""
    return math.tanh(points / (2.0 * scale))


Evaluate = Callable[[State], list[float]]


def read_weight_file(path: str | Path, features: Sequence[str]) -> dict:
    """A weight file's content: ``{"weights": {feature: points}, "scale": points, ...}``, with a number for each of
    ``features`` (ValueError naming the file and the features if not)."""
    data = json.loads(Path(path).read_text())
    weights = data.get("weights") if isinstance(data, dict) else None
    if not isinstance(weights, dict) or any(not isinstance(weights.get(k), (int, float)) for k in features):
        raise ValueError(f"{path}: needs a number for each of {', '.join(features)} under 'weights'")
    scale = data.get("scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale < math.inf:
        raise ValueError(f"{path}: 'scale' must be a number of points above 0, not {str(scale)[:40]}")
    return data


def named_evaluator(name: str, label: str, hand: tuple[Callable, float], load: Callable[[], dict],
                    make: Callable[[dict], Callable], cache: dict) -> tuple[Callable, float]:
    """A game module's ``evaluator(name)``: ``hand`` (or ``""``) is ``hand``; ``tuned`` is ``make`` of the weights of
    ``load()`` with the file's scale, built once into ``cache``; any other name a ValueError naming the game."""
    if name in ("", "hand", "default"):
        return hand
    if name != "tuned":
        raise ValueError(f"unknown {label} evaluation {name!r}; known: hand, tuned")
    if name not in cache:
        data = load()
        cache[name] = (make(data["weights"]), float(data.get("scale", hand[1])))
    return cache[name]
