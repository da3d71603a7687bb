"""RINGS in the compiled search (:mod:`.tree`): position keys and the evaluation.

:func:`evaluate` is :mod:`ringgames.ai.evaluation.rings`'s for two players (majorities, rings,
influence leads on open circles; the same values, ``tests/ai/test_compiled_rings.py``), read
from the rules kernel's array (:mod:`ringgames.games.rings.kernel`); :func:`evaluate_paranoid` is
the value the Python paranoid search gives a position of a game of 3–6 players (the root seat's
value less the best other seat's).
"""

from __future__ import annotations

import numpy as np

from ...games.rings import board as _board
from ...games.rings import kernel as K
from ...jit import drop_stale_cache, njit

drop_stale_cache(__file__, K.__file__, _board.__file__)


@njit
def position_key(s, zob):
    """A 64-bit key of the position (owners of the points, player to move, phase, passes, seats in play)."""
    h = np.uint64(0)
    for p in range(K.NP):
        v = s[K.OWNER + p]
        if v >= 0:
            h ^= zob[p * 8 + v]
    base = K.NP * 8
    h ^= zob[base + s[K.MOVER]]
    h ^= zob[base + 8 + s[K.PHASE]]
    h ^= zob[base + 12 + min(s[K.PASSES], 7)]
    h ^= zob[base + 20 + s[K.NUM_ACTIVE]]
    return h


@njit
def seat_values(s, wts, vals):
    """Each seat's value (points) into ``vals[:players]``: majorities, rings and influence leads.
    ``wts``: majority, ring, lead per influence point, lead cap."""
    n = s[K.NPLAYERS]
    for p in range(n):
        vals[p] = 0.0
    for c in range(K.NC):
        m = s[K.MAJ + c]
        if m >= 0:
            vals[m] += wts[0]
        r = s[K.RING + c]
        if 0 <= r < n:
            vals[r] += wts[1]
        if m < 0:
            best = 0
            second = 0
            who = -1
            for p in range(n):
                x = s[K.INF + c * K.S + p]
                if x > best:
                    second = best
                    best = x
                    who = p
                elif x > second:
                    second = x
            if who >= 0 and best > second:
                vals[who] += wts[2] * min(wts[3], best - second)


@njit
def evaluate(s, me, wts, wtab, buf):
    """The evaluation (points) for seat ``me`` of a two-player game: half the difference of the seats' values
    (``wtab[0]``: room for them)."""
    vals = wtab[0]
    seat_values(s, wts, vals)
    d = (vals[0] - vals[1]) / 2.0
    return d if me == 0 else 0.0 - d


@njit
def evaluate_paranoid(s, root, wts, wtab):
    """The evaluation (points) for seat ``root`` against the coalition of the others (3–6 players): its value less
    the best other seat's (the Python paranoid search's ``_static``)."""
    n = s[K.NPLAYERS]
    vals = wtab[0]
    seat_values(s, wts, vals)
    best = -1e300
    for p in range(n):
        if p != root and vals[p] > best:
            best = vals[p]
    return vals[root] - best


def weights_for(eval_name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(weights, table)`` of the RINGS evaluation ``eval_name`` (``""``/``hand``: today's; ``tuned``: the fitted
    weights of ``rings_weights.json``); the table is room for the seats' values."""
    from ..evaluation import rings as ev

    if eval_name in ("", "hand", "default"):
        w = ev.HAND_WEIGHTS
    elif eval_name == "tuned":
        w = ev.load_weights()["weights"]
    else:
        raise ValueError(f"unknown RINGS evaluation {eval_name!r}; known: hand, tuned")
    wts = np.array([w["majority"], w["ring"], w["lead"], w["lead_cap"]], dtype=np.float64)
    return wts, np.zeros((1, K.S), dtype=np.float64)
