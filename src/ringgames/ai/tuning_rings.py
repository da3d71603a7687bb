"""Fitting the RINGS evaluation's weights for several players on self-play outcomes: ``ringgames tune rings``.

The evaluation (:mod:`ringgames.ai.evaluation.rings`) gives each seat a value in points, ``features · weights``
with three features per seat (:func:`~ringgames.ai.evaluation.rings.seat_features`: circles held, rings owned,
influence leads capped at ``lead_cap``). With more than two players a position's outcome is *which* seat wins, so
the weights are fitted by a conditional logit (a softmax over the seats, the multi-player form of "Texel" tuning):
the probability that seat ``p`` wins is ``exp(K · v_p) / Σ_q exp(K · v_q)``, and the fit minimises the mean
log-loss of those probabilities against the game's winners (a win shared by ``k`` seats counts ``1/k`` for each).
Two seats' probabilities then stand in the ratio ``exp(K · (v_p − v_q))``, which is what the compiled MCTS's
reward reads: ``sigmoid((v_p − v_best other) / scale)`` with ``scale = 1 / K``.

Procedure (:func:`tune`):

1. Games (:func:`selfplay_histories`): ``games`` games of :data:`SELFPLAY_SPEC` (the compiled MCTS at a fixed
   number of iterations, so the same games on any machine) in every seat, each seat its own agent and seed; the
   first :data:`OPENING` decisions are random (seeded), so that the games differ from the start. ``jobs`` processes.
2. Positions: every position where a turn starts (the seat to act is not the one that made the last decision) from
   the ``skip``-th decision on, labelled with the game's winners; games that every seat or no seat won give none.
3. ``K`` for today's weights alone (one parameter); the tuned weights are in the same points (``beta / K``) and
   ``scale`` is ``1 / K``.
4. Fit: Newton's method on the penalised log-loss (``l2`` pull towards today's weights, per standardised
   feature), every weight ≥ 0; for each lead cap of :data:`CAPS` and the cap with the lowest held-out log-loss kept.
5. Report: 5-fold cross-validation by game (game ``i`` in fold ``i mod 5``): held-out log-loss and accuracy (the
   seat of highest value is a winner) of today's weights (``K`` fitted on the other folds) and of the tuned ones.

>>> import numpy as np
>>> round(softmax_log_loss(np.zeros((1, 4)), np.array([[1.0, 0, 0, 0]])), 4)  # four equal seats: log 4
1.3863
"""

from __future__ import annotations

import json
import multiprocessing
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from .. import load_game
from .evaluation import rings as R

__all__ = ["SELFPLAY_SPEC", "OPENING", "CAPS", "selfplay_histories", "positions_of_game", "softmax_log_loss",
           "fit_scale", "fit_weights", "tune", "write", "describe"]

#: The agent of the self-play games: iteration-limited, so the games do not depend on the machine's speed.
SELFPLAY_SPEC = "uct:iterations=1000,c=0.2"
#: Random decisions at the start of each self-play game.
OPENING = 4
#: The lead caps tried (today's: 3).
CAPS = (2, 3, 4, 5)
FOLDS = 5


def _play(args: tuple[str, int, int, int, str, int]) -> list[int]:
    """One self-play game's actions (run in a worker process)."""
    from .agents import make_agent, with_seed

    game, players, index, seed, spec, opening = args
    state = load_game(game, None, players).new_initial_state()
    rng = random.Random(seed * 1_000_003 + index)
    agents = [make_agent(with_seed(spec, seed * 100_003 + index * 101 + p)) for p in range(players)]
    for ag in agents:
        start = getattr(ag, "new_game", None)
        if start is not None:
            start(state.game)
    actions: list[int] = []
    while not state.is_terminal():
        if len(actions) < opening:
            a = rng.choice(state.legal_actions())
        else:
            a = agents[state.current_player()].choose(state)
        actions.append(a)
        state.apply_action(a)
    return actions


def selfplay_histories(games: int, players: int = 4, seed: int = 0, spec: str = SELFPLAY_SPEC, opening: int = OPENING,
                       jobs: int = 1, game: str = "rings") -> list[list[int]]:
    """The actions of ``games`` self-play games of ``game`` (seeded: the same games for the same arguments, whatever
    ``jobs``; :mod:`.tuning_gyges` plays Gygès with it)."""
    tasks = [(game, players, i, seed, spec, opening) for i in range(games)]
    if jobs <= 1:
        return [_play(t) for t in tasks]
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as ex:
        return list(ex.map(_play, tasks, chunksize=1))


def _labels(state) -> np.ndarray | None:
    """Each seat's share of the win (``1/k`` for each of ``k`` winners), or None when it tells nothing."""
    n = state.num_players
    r = state.returns()
    best = max(r)
    winners = [p for p in range(n) if r[p] == best]
    if len(winners) == n:
        return None
    y = np.zeros(n)
    y[winners] = 1.0 / len(winners)
    return y


def positions_of_game(players: int, actions: Sequence[int], skip: int = 0,
                      caps: Sequence[int] = CAPS) -> tuple[np.ndarray, np.ndarray] | None:
    """``(x, y)``: the features of each turn start from decision ``skip`` on, ``x[cap index, position, seat,
    feature]``, and the game's labels ``y[seat]``; None if the result names no winner."""
    state = load_game("rings", None, players).new_initial_state()
    rows: list[list[list[tuple[int, int, int]]]] = []
    last = -1
    for i, a in enumerate(actions):
        p = state.current_player()
        if i >= skip and p != last:
            rows.append([R.seat_features(state, cap) for cap in caps])
        last = p
        state.apply_action(a)
    if not state.is_terminal():
        raise ValueError("the game's actions do not reach its end")
    y = _labels(state)
    if y is None or not rows:
        return None
    x = np.array(rows, dtype=np.float64).transpose(1, 0, 2, 3)  # cap, position, seat, feature
    return x, y


# -- the fit ---------------------------------------------------------------------------------------------------------

def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_log_loss(z: np.ndarray, y: np.ndarray) -> float:
    """Mean over positions of ``−Σ_seats y · log softmax(z)`` (``z``, ``y``: positions × seats)."""
    zz = z - z.max(axis=1, keepdims=True)
    logp = zz - np.log(np.exp(zz).sum(axis=1, keepdims=True))
    return float(-np.mean((y * logp).sum(axis=1)))


def accuracy(z: np.ndarray, y: np.ndarray) -> float:
    """Share of positions whose seat of highest value is one of the game's winners."""
    return float(np.mean(y[np.arange(len(z)), z.argmax(axis=1)] > 0))


def fit_scale(v: np.ndarray, y: np.ndarray, iterations: int = 50) -> float:
    """The ``K`` minimising the log-loss of ``softmax(K · v)`` (``v``: positions × seats of values)."""
    k = 1.0 / max(1e-9, float(np.std(v)) or 1.0)
    for _ in range(iterations):
        p = _softmax(k * v)
        m = (p * v).sum(axis=1)
        g = float(np.mean((p * v).sum(axis=1) - (y * v).sum(axis=1)))
        h = float(np.mean((p * v * v).sum(axis=1) - m * m)) + 1e-15
        step = g / h
        k -= step
        if abs(step) <= 1e-12 * max(1.0, abs(k)):
            break
    return k


def fit_weights(x: np.ndarray, y: np.ndarray, prior: np.ndarray, l2: float = 1.0, iterations: int = 100) -> np.ndarray:
    """Conditional-logit coefficients ``beta`` (logits per feature unit; ``x``: positions × seats × features)
    minimising ``mean log-loss + l2/n · Σ ((beta_j − prior_j)·sd_j)²``, by Newton's method from ``prior``, each
    ``beta_j ≥ 0`` (one that ends below is fixed at 0 and the others fitted again)."""
    sd = x.reshape(-1, x.shape[2]).std(axis=0)
    free = sd > 0
    beta = prior.astype(float).copy()
    while free.any():
        beta[free] = _newton(x, y, beta, free, sd, prior, l2, iterations)
        below = free & (beta < 0)
        if not below.any():
            break
        beta[below] = 0.0
        free &= ~below
    return beta


def _newton(x, y, beta, free, sd, prior, l2, iterations) -> np.ndarray:
    n = len(y)
    xf, sf, pf = x[:, :, free], sd[free], prior[free].astype(float)
    offset = x[:, :, ~free] @ beta[~free]
    pen = l2 / max(1, n) * sf * sf
    b = pf.copy()
    for _ in range(iterations):
        p = _softmax(offset + xf @ b)  # positions × seats
        m = np.einsum("ps,psf->pf", p, xf)  # the expected features
        grad = (m - np.einsum("ps,psf->pf", y, xf)).mean(axis=0) + 2 * pen * (b - pf)
        hess = (np.einsum("ps,psf,psg->fg", p, xf, xf) - m.T @ m) / n + np.diag(2 * pen)
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        b = b - step
        if float(np.max(np.abs(step * sf))) < 1e-10:
            break
    return b


def _report(z: np.ndarray, y: np.ndarray) -> dict[str, float]:
    return {"log_loss": round(softmax_log_loss(z, y), 5), "accuracy": round(accuracy(z, y), 4)}


def tune(games: int = 300, players: int = 4, seed: int = 0, skip: int = 0, l2: float = 1.0, jobs: int = 1,
         spec: str = SELFPLAY_SPEC, echo: Callable[[str], Any] | None = None,
         histories: Sequence[Sequence[int]] | None = None) -> dict[str, Any]:
    """Fit the RINGS weights on self-play games (see the module docs); returns the weight file's content. The same
    arguments give the same result, to the last digit. ``histories``: fit on these games' actions instead."""
    if players < 3:
        raise ValueError("RINGS tuning is for 3 to 6 players (two players: the paranoid search's evaluation)")
    t0 = time.perf_counter()
    hist = list(histories) if histories is not None else selfplay_histories(games, players, seed, spec, jobs=jobs)
    if echo:
        echo(f"{len(hist)} self-play games of {spec} with {players} players ({time.perf_counter() - t0:.0f} s)")
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    gs: list[np.ndarray] = []
    for h in hist:
        got = positions_of_game(players, h, skip)
        if got is None:
            continue
        x, y = got
        xs.append(x)
        ys.append(np.broadcast_to(y, (x.shape[1], players)))
        gs.append(np.full(x.shape[1], len(gs)))
    if len(xs) < FOLDS:
        raise ValueError(f"too few games with a winner to fit and test (need at least {FOLDS})")
    x_all = np.concatenate(xs, axis=1)  # cap, position, seat, feature
    y = np.concatenate(ys)
    folds = np.concatenate(gs) % FOLDS
    hand = np.array([R.HAND_WEIGHTS[f] for f in R.FEATURES])
    hand_cap = CAPS.index(int(R.HAND_WEIGHTS["lead_cap"]))
    results: dict[str, Any] = {}
    z_hand = np.zeros(y.shape)
    xh = x_all[hand_cap]
    for fold in range(FOLDS):
        test = folds == fold
        k_f = fit_scale(xh[~test] @ hand, y[~test])
        z_hand[test] = k_f * (xh[test] @ hand)
    results["hand"] = {"cv": _report(z_hand, y)}
    best = None
    for ci, cap in enumerate(CAPS):
        x = x_all[ci]
        z = np.zeros(y.shape)
        for fold in range(FOLDS):
            test = folds == fold
            k_f = fit_scale(x[~test] @ hand, y[~test])
            beta_f = fit_weights(x[~test], y[~test], hand * k_f, l2=l2)
            z[test] = x[test] @ beta_f
        results[f"tuned_cap{cap}"] = {"cv": _report(z, y)}
        if best is None or results[f"tuned_cap{cap}"]["cv"]["log_loss"] < results[f"tuned_cap{best[1]}"]["cv"]["log_loss"]:
            best = (ci, cap)
    assert best is not None
    ci, cap = best
    x = x_all[ci]
    k = fit_scale(x @ hand, y)
    beta = fit_weights(x, y, hand * k, l2=l2)
    weights = {name: round(float(w), 3) for name, w in zip(R.FEATURES, beta / k, strict=True)}
    weights["lead_cap"] = float(cap)
    results["hand"]["fit"] = _report(fit_scale(xh @ hand, y) * (xh @ hand), y)
    results["tuned"] = {"cv": results[f"tuned_cap{cap}"]["cv"], "fit": _report(x @ beta, y)}
    return {
        "game": "rings",
        "features": list(R.FEATURES) + ["lead_cap"],
        "weights": weights,
        "scale": round(1.0 / k, 3),
        "fit": {
            "sources": [f"{len(hist)} self-play games of {spec} with {players} players, seed {seed}, "
                        f"the first {OPENING} decisions random"],
            "games": len(xs),
            "positions": int(len(y)),
            "skip_decisions": skip,
            "l2": l2,
            "folds": FOLDS,
            "caps_tried": list(CAPS),
            "K": round(k, 9),
            "results": results,
        },
    }


def write(data: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(data, indent=1) + "\n")


def describe(data: dict) -> str:
    """A few lines: the data, the held-out log-loss and accuracy before and after, the weights."""
    f = data["fit"]
    r = f["results"]
    lines = [f"positions: {f['positions']} of {f['games']} games ({'; '.join(f['sources'])}), "
             f"{f['folds']}-fold cross-validation by game",
             f"K = {f['K']:.6g} (scale {data['scale']:g} points)"]
    for key, label in [("hand", "today's weights, fitted K")] + [(f"tuned_cap{c}", f"tuned, lead cap {c}")
                                                                  for c in f["caps_tried"]]:
        t = r[key]["cv"]
        lines.append(f"held-out log-loss {t['log_loss']:.4f}, accuracy {t['accuracy']:.3f}: {label}")
    lines.append("weights: " + ", ".join(f"{k} {v:g}" for k, v in data["weights"].items()))
    return "\n".join(lines)
