"""Fitting the Gygès evaluation's weights on self-play outcomes ("Texel" tuning): ``ringgames tune gyges``.

The evaluation (:mod:`ringgames.ai.evaluation.gyges`) is linear: each side's value is ``features · weights``
(:func:`~ringgames.ai.evaluation.gyges.side_features`: threat of the side to move, threat of the side waiting,
approach, mobility, advance) and the evaluation for South is South's value minus North's, in points. Each
labelled position says who won its game, so the weights are fitted by logistic regression on the difference of
the two sides' features, with :mod:`ringgames.ai.tuning`'s fit (the YINSH tuner's): minimise the mean log-loss of
``sigmoid(K · eval)`` against the outcome (1 South won, 0 North won, ½ a draw by repetition), with an L2 pull
towards today's hand-set weights.

Procedure (:func:`tune`):

1. Games: ``games`` games of :data:`SELFPLAY_SPEC` against itself (the compiled alpha-beta at a fixed depth with
   today's weights: the same games on any machine), each side its own seed; the first :data:`OPENING` decisions
   (the two setups and one move each) are random, so that the games differ from the start. ``jobs`` processes
   (:func:`ringgames.ai.tuning_rings.selfplay_histories`).
2. Positions (:func:`positions_of_game`): every play-phase position with all twelve pieces on the board from
   decision ``skip`` on (default: after the random ones), labelled with the game's result.
3. ``K``: the scale of today's weights alone (one parameter); the tuned weights are in the same points
   (``beta / K``) and ``scale`` is ``1 / K``.
4. Fit: Newton's method, every weight free in sign (the fit gives *threat_waiting* a negative weight; today's is
   +350, and a search with the fitted weights beats one with today's: ``docs/ai.md``).
5. Report: 5-fold cross-validation by game (game ``i`` in fold ``i mod 5``): held-out log-loss and accuracy of
   today's weights (``K`` fitted on the other folds) and of the tuned ones. The shipped weights are then fitted
   on all the games.

>>> positions_of_game([0, 0])  # the two setups only: the game has not ended
Traceback (most recent call last):
...
ValueError: the game's actions do not reach its end
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import load_game
from . import tuning as T
from .evaluation import gyges as G
from .tuning_rings import selfplay_histories

__all__ = ["SELFPLAY_SPEC", "OPENING", "GAMES", "positions_of_game", "tune", "write", "describe"]

#: The agent of the self-play games: depth-limited, so the games do not depend on the machine's speed.
SELFPLAY_SPEC = "search:depth=2,min=2"
#: Random decisions at the start of each self-play game (the two setups, then one move each).
OPENING = 4
#: Self-play games by default (about 15 minutes on two cores).
GAMES = 1500
FOLDS = 5


def positions_of_game(actions: Sequence[int], skip: int = OPENING) -> tuple[np.ndarray, np.ndarray] | None:
    """``(x, y)``: South's minus North's features (:data:`~ringgames.ai.evaluation.gyges.FEATURES`) of each
    play-phase position from decision ``skip`` on, and the result for South of each (1, ½, 0); None if the game
    gives none. ValueError if the actions do not end the game."""
    state = load_game("gyges").new_initial_state()
    rows: list[list[float]] = []
    for i, a in enumerate(actions):
        if i >= skip:
            sf = G.side_features(state)
            if sf is not None:
                rows.append([s - n for s, n in zip(sf[0], sf[1], strict=True)])
        state.apply_action(a)
    if not state.is_terminal():
        raise ValueError("the game's actions do not reach its end")
    if not rows:
        return None
    r = state.returns()
    result = 1.0 if r[0] > r[1] else 0.0 if r[0] < r[1] else 0.5
    return np.array(rows, dtype=np.float64), np.full(len(rows), result)


def tune(games: int = GAMES, seed: int = 0, skip: int = OPENING, l2: float = 1.0, jobs: int = 1,
         spec: str = SELFPLAY_SPEC, echo: Callable[[str], Any] | None = None,
         histories: Sequence[Sequence[int]] | None = None) -> dict[str, Any]:
    """Fit the Gygès weights on self-play games (see the module docs); returns the weight file's content. The same
    arguments give the same result, to the last digit. ``histories``: fit on these games' actions instead."""
    t0 = time.perf_counter()
    hist = list(histories) if histories is not None else selfplay_histories(games, 2, seed, spec, OPENING, jobs,
                                                                             game="gyges")
    if echo:
        echo(f"{len(hist)} self-play games of {spec} ({time.perf_counter() - t0:.0f} s)")
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    gs: list[np.ndarray] = []
    for h in hist:
        got = positions_of_game(h, skip)
        if got is None:
            continue
        xs.append(got[0])
        ys.append(got[1])
        gs.append(np.full(len(got[1]), len(gs)))
    if len(xs) < FOLDS:
        raise ValueError(f"too few games with positions to fit and test (need at least {FOLDS})")
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    folds = np.concatenate(gs) % FOLDS
    hand = np.array(G.weight_vector(G.HAND_WEIGHTS))
    z_hand = np.zeros(len(y))
    z_tuned = np.zeros(len(y))
    for fold in range(FOLDS):
        test = folds == fold
        k_f = T.fit_scale(x[~test] @ hand, y[~test])
        beta_f = T.fit_weights(x[~test], y[~test], hand * k_f, l2=l2)
        z_hand[test] = k_f * x[test] @ hand
        z_tuned[test] = x[test] @ beta_f
    k = T.fit_scale(x @ hand, y)
    beta = T.fit_weights(x, y, hand * k, l2=l2)
    weights = {name: round(float(w), 3) for name, w in zip(G.FEATURES, beta / k, strict=True)}
    tuned = np.array(G.weight_vector(weights))
    report = T.fit_report
    results = {
        f"hand_{G.SCALE:g}": {"cv": report(x @ hand / G.SCALE, y)},
        "hand": {"cv": report(z_hand, y), "fit": report(k * x @ hand, y)},
        "tuned": {"cv": report(z_tuned, y), "fit": report(k * x @ tuned, y)},
    }
    return {
        "game": "gyges",
        "features": list(G.FEATURES),
        "weights": weights,
        "scale": round(1.0 / k, 3),
        "fit": {
            "sources": [f"{len(hist)} self-play games of {spec}, seed {seed}, the first {OPENING} decisions random"],
            "games": len(xs),
            "positions": int(len(y)),
            "skip_decisions": skip,
            "l2": l2,
            "folds": FOLDS,
            "K": round(k, 9),
            "results": results,
        },
    }


#: The weight file and its summary are the YINSH tuner's.
write = T.write
describe = T.describe
