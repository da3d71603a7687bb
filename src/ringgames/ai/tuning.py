"""Fitting the YINSH evaluation's weights on game outcomes ("Texel" tuning): ``ringgames tune yinsh``.

The evaluation (:mod:`ringgames.ai.evaluation.yinsh`) is linear: ``eval = features · weights`` in points,
from White's view. Each labelled position says who won the game it comes from, so the weights are fitted
by logistic regression: minimise the mean log-loss of ``sigmoid(K · eval)`` against the outcome (1 White
won, 0 Black won, ½ a draw), with an L2 penalty that pulls each weight towards today's hand-set value.

Procedure (:func:`tune`):

1. Positions (:func:`positions_of_game`): from each game, every position where a turn starts (the player
   to act differs from the one who made the last decision: what alpha-beta evaluates at its leaves),
   after the ring placement (the first 10 decisions) and after ``skip`` more turns; labelled with the
   game's final result. Games without a result (unfinished records) give none.
2. Sources: the 878 boardspace games (``../shared/data/yinsh/boardspace-2005``, read with
   :func:`ringgames.records.load_file`), any other folders of records (e.g. games saved by
   ``ringgames match … --save DIR``) and, with ``selfplay``, games of ``alphabeta:depth=2`` against
   itself (seeded: the same games every run).
3. ``K``: the scale of today's weights, fitted alone (one parameter); the tuned weights are given in the
   same points (``beta / K``), and ``scale`` (points for a 73% win probability) is ``1 / K``.
4. Fit: Newton's method on the penalised log-loss (penalty ``l2`` per feature on the distance from
   today's weight, in units of the feature's spread; deterministic, no random start). A feature that
   never varies in the data (``ring_pending``: never at a turn start) keeps today's weight. Every weight
   but ``tempo`` is kept ≥ 0 (:data:`UNSIGNED`): unconstrained, the fit on the boardspace games gives
   ``three`` a negative weight (−27: it predicts outcomes a little better), and a search that avoids
   making threes loses (0.26 against today's weights at depth 2, 40 games; 7-0-18 at 0.25 s per decision).
5. Report: 5-fold cross-validation by game (game ``i`` in fold ``i mod 5``, so that positions of one game
   are never on both sides): the held-out log-loss and accuracy (the sign of the evaluation against
   the winner, draws left out) of today's weights (``K`` fitted on the other folds) and of the tuned
   ones (fitted on the other folds). The shipped weights are then fitted on all the games.

>>> round(log_loss(np.array([0.0]), np.array([1.0])), 4)
0.6931
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import load_game
from ..protocol import State
from .evaluation import yinsh as Y

__all__ = ["Sample", "positions_of_game", "record_games", "selfplay_games", "fit_scale", "fit_weights", "fit_report",
           "log_loss", "accuracy", "tune", "DEFAULT_GAMES", "SELFPLAY_SPEC"]

#: Where the boardspace games are in a checkout (``tune --games`` to read others).
DEFAULT_GAMES = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "yinsh" / "boardspace-2005"
#: The agent of the self-play games (depth-limited: the same games on any machine).
SELFPLAY_SPEC = "alphabeta:depth=2"
PLACEMENT = 10  # decisions of the ring placement (5 rings each)
FOLDS = 5  # cross-validation folds (by game)
#: Features whose weight may take either sign; every other weight stays ≥ 0, as in today's evaluation (more
#: rings removed, markers, rows in the making, mobility are never bad for their owner).
UNSIGNED = ("tempo",)


@dataclass
class Sample:
    """The labelled positions of a set of games: ``x`` (positions × features), ``y`` (White's result),
    ``game`` (index of the game of each position), ``names`` (the games)."""

    x: np.ndarray
    y: np.ndarray
    game: np.ndarray
    names: list[str] = field(default_factory=list)

    @classmethod
    def join(cls, parts: Sequence[Sample]) -> Sample:
        xs: list[np.ndarray] = []
        ys: list[np.ndarray] = []
        gs: list[np.ndarray] = []
        names: list[str] = []
        for p in parts:
            xs.append(p.x)
            ys.append(p.y)
            gs.append(p.game + len(names))
            names += p.names
        if not xs:
            return cls(np.zeros((0, len(Y.FEATURES))), np.zeros(0), np.zeros(0, dtype=np.int64), [])
        return cls(np.concatenate(xs), np.concatenate(ys), np.concatenate(gs), names)

    def subset(self, mask: np.ndarray) -> Sample:
        return Sample(self.x[mask], self.y[mask], self.game[mask], self.names)


def _label(state: State) -> float | None:
    if not state.is_terminal():
        return None
    r = state.returns()
    return 1.0 if r[0] > r[1] else 0.0 if r[0] < r[1] else 0.5


def positions_of_game(state: State, skip: int = 0) -> tuple[np.ndarray, float] | None:
    """The features of every turn-start position of a finished game (its final ``state``) after the
    placement and ``skip`` more turns, and White's result; None for a game without a result."""
    label = _label(state)
    if label is None:
        return None
    s = state.game.new_initial_state()
    rows = []
    last = None
    turns = 0
    for n, a in enumerate(state.history):
        if a < 0 or s.is_terminal():  # a resignation or agreed draw ends the moves
            break
        p = s.current_player()
        if p != last:
            if n >= PLACEMENT:
                turns += 1
                if turns > skip:
                    rows.append(Y.features(s))
            last = p
        s.apply_action(a)
    x = np.array(rows) if rows else np.zeros((0, len(Y.FEATURES)))
    return x, label


def record_games(directory: str | Path, limit: int | None = None) -> Iterator[tuple[str, State]]:
    """``(file name, final state)`` of each game record (``*.sgf``, ``*.rgn``) in ``directory``, sorted by
    name (at most ``limit``); records that do not replay are skipped."""
    from ..records import RecordError, load_file

    root = Path(directory)
    files = sorted(p for p in root.iterdir() if p.suffix.lower() in (".sgf", ".rgn"))
    if not files:
        raise FileNotFoundError(f"no game records (*.sgf, *.rgn) in {root}")
    for f in files[:limit]:
        try:
            recs = load_file(f)
        except (RecordError, OSError, UnicodeDecodeError):
            continue
        for i, rec in enumerate(recs):
            if rec.game != "yinsh":
                continue
            try:
                yield (f.name if len(recs) == 1 else f"{f.name}#{i + 1}"), rec.replay()
            except RecordError:
                continue


def selfplay_games(n: int, spec: str = SELFPLAY_SPEC, seed: int = 0) -> Iterator[tuple[str, State]]:
    """``n`` games of ``spec`` against itself (colours alternate, seeded), as final states."""
    from .match import play_game

    game = load_game("yinsh")
    for i in range(n):
        r = play_game("yinsh", [spec, spec], index=i, seed=seed)
        s = game.new_initial_state()
        for tok in r.history:
            s.play(tok)
        yield f"selfplay-{seed}-{i}", s


def collect(games: Iterable[tuple[str, State]], skip: int = 0) -> Sample:
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    gs: list[np.ndarray] = []
    names: list[str] = []
    for name, state in games:
        got = positions_of_game(state, skip)
        if got is None or not len(got[0]):
            continue
        x, label = got
        xs.append(x)
        ys.append(np.full(len(x), label))
        gs.append(np.full(len(x), len(names), dtype=np.int64))
        names.append(name)
    if not xs:
        return Sample.join([])
    return Sample(np.concatenate(xs), np.concatenate(ys), np.concatenate(gs), names)


# -- the fit ---------------------------------------------------------------------------------------------------------

def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))


def log_loss(z: np.ndarray, y: np.ndarray) -> float:
    """Mean log-loss of win probabilities ``sigmoid(z)`` against results ``y`` (1, ½, 0)."""
    p = np.clip(_sigmoid(z), 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def accuracy(z: np.ndarray, y: np.ndarray) -> float:
    """Share of decided games' positions where the evaluation's sign names the winner (0 counts as wrong)."""
    decided = y != 0.5
    if not decided.any():
        return float("nan")
    return float(np.mean(np.sign(z[decided]) == np.where(y[decided] > 0.5, 1.0, -1.0)))


def fit_scale(e: np.ndarray, y: np.ndarray, iterations: int = 50) -> float:
    """The ``K`` that minimises the log-loss of ``sigmoid(K · e)`` (Newton's method in one dimension)."""
    k = 1.0 / max(1e-9, float(np.std(e)) or 1.0)
    for _ in range(iterations):
        p = _sigmoid(k * e)
        g = float(np.mean((p - y) * e))
        h = float(np.mean(p * (1 - p) * e * e)) + 1e-15
        step = g / h
        k -= step
        if abs(step) <= 1e-12 * max(1.0, abs(k)):
            break
    return k


def fit_weights(x: np.ndarray, y: np.ndarray, prior: np.ndarray, l2: float = 1.0, lower: np.ndarray | None = None,
                iterations: int = 100, fixed: np.ndarray | None = None) -> np.ndarray:
    """Logistic-regression coefficients ``beta`` (logits per feature unit) minimising
    ``mean log-loss(x·beta, y) + l2/n · Σ ((beta_j − prior_j)·sd_j)²`` (``sd_j``: the feature's spread), by
    Newton's method from ``prior``, with ``beta_j ≥ lower_j`` (``-inf``: no bound): a coefficient that ends
    below its bound is fixed at it and the others fitted again. A feature that never varies, or is ``fixed``
    (a boolean mask), keeps its prior."""
    sd = x.std(axis=0)
    free = sd > 0
    if fixed is not None:
        free &= ~np.asarray(fixed, dtype=bool)
    beta = prior.astype(float).copy()
    low = np.full(len(prior), -np.inf) if lower is None else np.asarray(lower, dtype=float)
    while free.any():
        beta[free] = _newton(x, y, beta, free, sd, prior, l2, iterations)
        below = free & (beta < low)
        if not below.any():
            break
        beta[below] = low[below]
        free &= ~below
    return beta


def _newton(x: np.ndarray, y: np.ndarray, beta: np.ndarray, free: np.ndarray, sd: np.ndarray, prior: np.ndarray,
            l2: float, iterations: int) -> np.ndarray:
    """The free coefficients' minimum (the others fixed at ``beta``)."""
    n = len(y)
    xf, sf, pf = x[:, free], sd[free], prior[free].astype(float)
    offset = x[:, ~free] @ beta[~free]
    pen = l2 / max(1, n) * sf * sf
    b = pf.copy()
    for _ in range(iterations):
        p = _sigmoid(offset + xf @ b)
        grad = xf.T @ (p - y) / n + 2 * pen * (b - pf)
        hess = (xf * (p * (1 - p))[:, None]).T @ xf / n + np.diag(2 * pen)
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        b = b - step
        if float(np.max(np.abs(step * sf))) < 1e-10:
            break
    return b


def fit_report(z: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """The log-loss and accuracy of the logits ``z`` on the outcomes ``y``, rounded as the weight files record them.

    >>> fit_report(np.array([2.0, -1.0, 1.0]), np.array([1.0, 0.0, 0.0]))  # the third is called wrong
    {'log_loss': 0.58448, 'accuracy': 0.6667}
    """
    return {"log_loss": round(log_loss(z, y), 5), "accuracy": round(accuracy(z, y), 4)}


def tune(games_dir: str | Path | Sequence[str | Path] | None = DEFAULT_GAMES, limit: int | None = None,
         selfplay: int = 0, skip: int = 0, l2: float = 1.0, seed: int = 0, echo=None,
         fix: Sequence[str] = ()) -> dict[str, Any]:
    """Fit the YINSH weights (see the module docs); returns the weight file's content (``weights``,
    ``scale``, ``fit``: the data and the held-out figures of today's and the tuned weights). The same data
    give the same result, to the last digit."""
    t0 = time.perf_counter()
    parts = []
    sources = []
    dirs = [] if games_dir is None else [games_dir] if isinstance(games_dir, (str, Path)) else list(games_dir)
    for d in dirs:
        parts.append(collect(record_games(d, limit), skip))
        sources.append(f"{len(parts[-1].names)} records from {Path(d).name}")
    if selfplay:
        parts.append(collect(selfplay_games(selfplay, seed=seed), skip))
        sources.append(f"{len(parts[-1].names)} self-play games of {SELFPLAY_SPEC}")
    if echo:
        echo(f"positions from {' and '.join(sources)}: {sum(len(p.y) for p in parts)} "
             f"({time.perf_counter() - t0:.0f} s)")
    sample = Sample.join(parts)
    folds = sample.game % FOLDS
    if len(set(folds.tolist())) < FOLDS:
        raise ValueError(f"too few games to fit and test (need at least {FOLDS} with results)")
    hand = np.array([Y.HAND_WEIGHTS[k] for k in Y.FEATURES])
    lower = np.array([-np.inf if f in UNSIGNED else 0.0 for f in Y.FEATURES])
    unknown = [f for f in fix if f not in Y.FEATURES]
    if unknown:
        raise ValueError(f"unknown feature {unknown[0]!r}; the features are {', '.join(Y.FEATURES)}")
    fixed = np.array([f in fix for f in Y.FEATURES])
    # cross-validation: each fold's positions valued by the weights fitted on the other folds
    z_hand = np.zeros(len(sample.y))
    z_tuned = np.zeros(len(sample.y))
    for fold in range(FOLDS):
        test = folds == fold
        k_f = fit_scale(sample.x[~test] @ hand, sample.y[~test])
        beta_f = fit_weights(sample.x[~test], sample.y[~test], hand * k_f, l2=l2, lower=lower, fixed=fixed)
        z_hand[test] = k_f * sample.x[test] @ hand
        z_tuned[test] = sample.x[test] @ beta_f
    k = fit_scale(sample.x @ hand, sample.y)
    beta = fit_weights(sample.x, sample.y, hand * k, l2=l2, lower=lower, fixed=fixed)
    weights = {name: round(float(w), 3) for name, w in zip(Y.FEATURES, beta / k, strict=True)}
    tuned = np.array([weights[f] for f in Y.FEATURES])
    results = {
        "hand_600": {"cv": fit_report(sample.x @ hand / Y.SCALE, sample.y)},
        "hand": {"cv": fit_report(z_hand, sample.y), "fit": fit_report(k * sample.x @ hand, sample.y)},
        "tuned": {"cv": fit_report(z_tuned, sample.y), "fit": fit_report(k * sample.x @ tuned, sample.y)},
    }
    return {
        "game": "yinsh",
        "features": list(Y.FEATURES),
        "weights": weights,
        "scale": round(1.0 / k, 3),
        "fit": {
            "sources": sources,
            "games": len(sample.names),
            "positions": int(len(sample.y)),
            "skip_turns": skip,
            "l2": l2,
            "nonnegative": [f for f in Y.FEATURES if f not in UNSIGNED],
            "fixed": [f for f in Y.FEATURES if f in fix],
            "folds": FOLDS,
            "K": round(k, 9),
            "results": results,
        },
    }


def write(data: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")


def describe(data: dict) -> str:
    """A few lines: the data, the held-out log-loss and accuracy before and after, the weights (YINSH's and Gygès'
    weight files)."""
    f = data["fit"]
    r = f["results"]
    lines = [f"positions: {f['positions']} of {f['games']} games ({'; '.join(f['sources'])}), "
             f"{f['folds']}-fold cross-validation by game",
             f"K = {f['K']:.6g} (scale {data['scale']:g} points for 73%)"]
    fixed_scale = next(k for k in r if k.startswith("hand_"))  # today's weights at the module's SCALE (hand_600)
    for key, label in ((fixed_scale, f"today's weights, SCALE {fixed_scale[5:]}"), ("hand", "today's weights, fitted K"),
                       ("tuned", "tuned weights")):
        t = r[key]["cv"]
        lines.append(f"held-out log-loss {t['log_loss']:.4f}, accuracy {t['accuracy']:.3f}: {label}")
    lines.append("weights: " + ", ".join(f"{k} {v:g}" for k, v in data["weights"].items()))
    if not math.isfinite(f["K"]):
        lines.append("warning: the scale did not converge")
    return "\n".join(lines)
