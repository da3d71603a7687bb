"""Batched RINGS: the rules kernel (:mod:`ringgames.games.rings.kernel`) over B state rows.

Same shape as :mod:`.yinsh`: ``states`` is ``int32[B, SIZE]``, work is split in
``nchunks`` parallel chunks of rows, finished rows get their rewards and are reset to
``template`` inside :func:`step`. Rewards follow :meth:`ringgames.protocol.State.returns`:
the winners share +1, the others share -1, 0 for everybody on a draw among all.
"""

from __future__ import annotations

import numpy as np

from ..games.rings import board as _board
from ..games.rings import kernel as K
from ..jit import drop_stale_cache
from . import _common
from ._common import below, chunk_bounds, njit, pnjit, prange

# numba's cache checks only this file: drop it when the kernel, its tables or the helpers change
drop_stale_cache(__file__, K.__file__, _board.__file__, _common.__file__)

MAX_LEGAL = K.MAX_LEGAL
NUM_ACTIONS = K.NUM_ACTIONS
SIZE = K.SIZE
CURRENT = K.MOVER


@njit
def _add_returns(s, i, rewards):
    """Add the returns of the finished row i to ``rewards[i]``."""
    n = s[K.NPLAYERS]
    m = K.winners_mask(s)
    w = 0
    for p in range(n):
        if m & (1 << p):
            w += 1
    if 0 < w < n:
        for p in range(n):
            rewards[i, p] += 1.0 / w if m & (1 << p) else -1.0 / (n - w)


@pnjit
def step(states, actions, template, rewards, terminated, nchunks):
    """Play ``actions[i]`` (legal) on row i; finished rows get rewards, ``terminated`` and a reset."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            s = states[i]
            K.apply_action(s, actions[i])
            if K.is_over(s):
                terminated[i] = True
                _add_returns(s, i, rewards)
                s[:] = template


@njit
def _draw(s, rng, i):
    """A uniformly random legal action of row i without listing the actions; -1 if the game is over."""
    if K.is_over(s):
        return -1
    if s[K.PHASE] == K.PH_PLACE:
        # uniform over the empty points and PASS: a few draws from all 217 (rejecting stones), then,
        # on a crowded board, count, draw and find (each way is uniform, so their mixture is too)
        for _ in range(4):
            x = below(rng, i, K.NP + 1)
            if x == K.NP:
                return K.PASS
            if s[K.OWNER + x] < 0:
                return x
        n = 0
        for pt in range(K.NP):
            if s[K.OWNER + pt] < 0:
                n += 1
        x = below(rng, i, n + 1)
        if x == n:
            return K.PASS
        for pt in range(K.NP):
            if s[K.OWNER + pt] < 0:
                if x == 0:
                    return pt
                x -= 1
        return K.PASS
    p = s[K.MOVER]
    x = below(rng, i, s[K.CONV_COUNT + p] + 1)
    for cc in range(K.NC):
        if s[K.CONV + cc] == p:
            if x == 0:
                return K.CONVERT0 + cc
            x -= 1
    return K.END


@pnjit
def sample(states, rng, out, nchunks):
    """A uniformly random legal action per row (stream i of ``rng``) into ``out``; -1 for a finished row."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            out[i] = _draw(states[i], rng, i)


@pnjit
def legal_mask(states, out, nchunks):
    """``out[i, a]`` = action a is legal in row i (``out`` bool[B, NUM_ACTIONS], overwritten)."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        buf = np.empty(MAX_LEGAL, dtype=np.int32)
        for i in range(lo, hi):
            out[i, :] = False
            n = K.legal_actions(states[i], buf)
            for j in range(n):
                out[i, buf[j]] = True


@pnjit
def legal_ids(states, ids, counts, nchunks):
    """The legal actions of row i, ascending, in ``ids[i, :counts[i]]`` (the rest -1)."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            row = ids[i]
            n = K.legal_actions(states[i], row)
            counts[i] = n
            row[n:] = -1


@njit
def _is_legal(s, a):
    if K.is_over(s) or a < 0 or a >= K.NUM_ACTIONS:
        return False
    if s[K.PHASE] == K.PH_PLACE:
        return a == K.PASS or (a < K.PASS and s[K.OWNER + a] < 0)
    if a == K.END:
        return True
    return a >= K.CONVERT0 and s[K.CONV + a - K.CONVERT0] == s[K.MOVER]


@pnjit
def illegal(states, actions, bad, nchunks):
    """``bad[i]`` = ``actions[i]`` is not legal in row i."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            bad[i] = not _is_legal(states[i], actions[i])


@njit
def _random_step(s, rng, i, template, rewards):
    """Draw a uniformly random legal action of row i (stream i), play it, and on a finished
    game add the returns to ``rewards[i]`` and reset the row; returns ``(action, finished)``."""
    a = _draw(s, rng, i)
    K.apply_action(s, a)
    if K.is_over(s):
        _add_returns(s, i, rewards)
        s[:] = template
        return a, True
    return a, False


@pnjit
def step_random(states, rng, template, actions, rewards, terminated, nchunks):
    """:func:`sample` then :func:`step` in one parallel region and one pass over the rows (the same
    draws, states and rewards); the actions played go into ``actions``."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            actions[i], terminated[i] = _random_step(states[i], rng, i, template, rewards)


@pnjit
def play(states, rng, template, num_steps, reward_sum, finished, nchunks):
    """``num_steps`` rounds of :func:`sample` then :func:`step` in one call, row by row (see
    :func:`.yinsh.play`); adds to ``reward_sum`` and ``finished``."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            s = states[i]
            for _ in range(num_steps):
                if _random_step(s, rng, i, template, reward_sum)[1]:
                    finished[i] += 1
