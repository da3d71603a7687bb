"""YINSH in the compiled search (:mod:`.tree`): position keys and the evaluation.

:func:`evaluate` is :mod:`ringgames.ai.evaluation.yinsh`'s ``features · weights`` (the same
features, weights and values; ``tests/ai/test_compiled_yinsh.py`` checks it on positions of
every phase), computed on the rules kernel's array (:mod:`ringgames.games.yinsh.kernel`).
"""

from __future__ import annotations

import numpy as np

from ...games.yinsh import board as _board
from ...games.yinsh import kernel as K
from ...jit import drop_stale_cache, njit

drop_stale_cache(__file__, K.__file__, _board.__file__)

NUM_POINTS = _board.NUM_POINTS
# point contents 0..4 -> code: white marker 1, black marker 6, white ring 36, black ring 216
CODE = np.array([0, 1, 6, 36, 216], dtype=np.int64)
WIN_PTS = K.WIN_PTS
NUM_WINDOWS = WIN_PTS.shape[0]


@njit
def position_key(s, zob):
    """A 64-bit key of the position (board, player to decide, phase, turn counters, pending rows)."""
    h = np.uint64(0)
    for p in range(NUM_POINTS):
        v = s[p]
        if v != 0:
            h ^= zob[p * 5 + v]
    base = NUM_POINTS * 5
    h ^= zob[base + s[K.ACTOR]]
    h ^= zob[base + 2 + s[K.MOVER]]
    h ^= zob[base + 4 + s[K.PHASE]]
    h ^= zob[base + 10 + s[K.PASSES]]
    h ^= zob[base + 13 + min(s[K.PLACED], 10)]
    h ^= zob[base + 24 + s[K.REMOVED]]
    h ^= zob[base + 30 + s[K.REMOVED + 1]]
    if s[K.PHASE] == K.PH_ROW or s[K.PHASE] == K.PH_RING:  # pending rows (candidate windows) matter only then
        for k in range(2 * K.PEND_WORDS):
            bits = s[K.PEND + k]
            j = 0
            while bits:
                if bits & 1:
                    h ^= zob[base + 40 + k * K.WBITS + j]
                bits >>= 1
                j += 1
    return h


@njit
def evaluate(s, me, wts, wtab, buf):
    """The evaluation (points) for player ``me``: ``features · weights`` of :mod:`..evaluation.yinsh`."""
    score = wts[0] * (s[K.REMOVED] - s[K.REMOVED + 1])
    ph = s[K.PHASE]
    actor = s[K.ACTOR]
    sign = 1.0 if actor == 0 else -1.0
    if ph == K.PH_ROW:
        score += sign * wts[1]
    elif ph == K.PH_RING:
        score += sign * wts[2]
    if ph != K.PH_PLACE:
        nw = 0
        nb = 0
        for p in range(NUM_POINTS):
            v = s[p]
            if v == 1:
                nw += 1
            elif v == 2:
                nb += 1
        score += wts[3] * (nw - nb)
        t = 0.0
        for w in range(NUM_WINDOWS):
            c = (CODE[s[WIN_PTS[w, 0]]] + CODE[s[WIN_PTS[w, 1]]] + CODE[s[WIN_PTS[w, 2]]]
                 + CODE[s[WIN_PTS[w, 3]]] + CODE[s[WIN_PTS[w, 4]]])
            t += wtab[actor, c]
        score += t
    score += wts[7] * (K.ring_moves(s, 0, buf, 0, False) - K.ring_moves(s, 1, buf, 0, False))
    if wts[8] != 0.0:
        score += sign * wts[8]
    if wts[9] != 0.0:
        near = s[K.WIN_AT] - 1
        score += wts[9] * ((1.0 if s[K.REMOVED] == near else 0.0) - (1.0 if s[K.REMOVED + 1] == near else 0.0))
    return score if me == 0 else -score


def weights_for(eval_name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(weights, window tables)`` of a named evaluation of :mod:`..evaluation.yinsh` (``""``: today's)."""
    from ..evaluation import yinsh as ev

    if eval_name in ("", "hand", "default"):
        w = ev.HAND_WEIGHTS
    elif eval_name == "tuned":
        w = ev.load_weights()["weights"]
    else:
        raise ValueError(f"unknown YINSH evaluation {eval_name!r}; known: hand, tuned")
    wts = np.array([float(w[k]) for k in ev.FEATURES], dtype=np.float64)
    wtab = np.stack([ev.window_table(0, w), ev.window_table(1, w)]).astype(np.float64)
    return wts, wtab
