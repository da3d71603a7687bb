"""RINGS (two players) in the compiled search (:mod:`.tree`): position keys and the evaluation.

:func:`evaluate` is :mod:`ringgames.ai.evaluation.rings`'s for two players (majorities, rings,
influence leads on open circles; the same values, ``tests/ai/test_compiled_rings.py``), read
from the rules kernel's array (:mod:`ringgames.games.rings.kernel`).
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
def evaluate(s, me, wts, wtab, buf):
    """The evaluation (points) for seat ``me`` of a two-player game: half the difference of the seats' values.
    ``wts``: majority, ring, lead per influence point, lead cap."""
    n = s[K.NPLAYERS]
    v0 = 0.0
    v1 = 0.0
    for c in range(K.NC):
        m = s[K.MAJ + c]
        if m == 0:
            v0 += wts[0]
        elif m == 1:
            v1 += wts[0]
        r = s[K.RING + c]
        if r == 0:
            v0 += wts[1]
        elif r == 1 and r < n:
            v1 += wts[1]
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
                lead = wts[2] * min(wts[3], best - second)
                if who == 0:
                    v0 += lead
                else:
                    v1 += lead
    d = (v0 - v1) / 2.0
    return d if me == 0 else 0.0 - d


def weights_for(eval_name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(weights, unused table)`` of the RINGS evaluation (only today's: ``""``)."""
    from ..evaluation import rings as ev

    if eval_name not in ("", "hand", "default"):
        raise ValueError(f"unknown RINGS evaluation {eval_name!r}; known: hand")
    wts = np.array([ev._MAJORITY, ev._RING, ev._LEAD, 3.0], dtype=np.float64)
    return wts, np.zeros((2, 1), dtype=np.float64)
