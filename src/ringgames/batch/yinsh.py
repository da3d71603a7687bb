"""Batched YINSH: the rules kernel (:mod:`ringgames.games.yinsh.kernel`) over B state rows.

Every function takes ``states`` (``int32[B, SIZE]``, one kernel array per row) and
works on chunks of rows in parallel (``nchunks`` chunks, ``prange``). A row whose
game ends in :func:`step` gets its rewards and is reset to ``template`` in the same
call (auto-reset).
"""

from __future__ import annotations

import numpy as np

from ..games.yinsh import board as _board
from ..games.yinsh import kernel as K
from ..jit import drop_stale_cache
from . import _common
from ._common import below, chunk_bounds, njit, pnjit, prange

# numba's cache checks only this file: drop it when the kernel, its tables or the helpers change
drop_stale_cache(__file__, K.__file__, _board.__file__, _common.__file__)

MAX_LEGAL = K.MAX_LEGAL
NUM_ACTIONS = K.NUM_ACTIONS
SIZE = K.SIZE
CURRENT = K.ACTOR


@njit
def _add_returns(s, i, rewards):
    """Add the returns of the finished row i to ``rewards[i]`` (+1 / -1, 0 for a draw)."""
    w = s[K.WINNER]
    if w >= 0:
        rewards[i, w] += 1.0
        rewards[i, 1 - w] -= 1.0


@pnjit
def step(states, actions, template, rewards, terminated, nchunks):
    """Play ``actions[i]`` (legal) on row i; finished rows get rewards, ``terminated`` and a reset."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            s = states[i]
            K.apply_action(s, actions[i])
            if s[K.WINNER] != K.ONGOING:
                terminated[i] = True
                _add_returns(s, i, rewards)
                s[:] = template


@pnjit
def sample(states, rng, out, nchunks):
    """A uniformly random legal action per row (stream i of ``rng``) into ``out``; -1 for a finished row."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        buf = np.empty(MAX_LEGAL, dtype=np.int32)
        for i in range(lo, hi):
            n = K.gen_actions(states[i], buf, False)
            out[i] = buf[below(rng, i, n)] if n > 0 else -1


@pnjit
def legal_mask(states, out, nchunks):
    """``out[i, a]`` = action a is legal in row i (``out`` bool[B, NUM_ACTIONS], overwritten)."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        buf = np.empty(MAX_LEGAL, dtype=np.int32)
        for i in range(lo, hi):
            out[i, :] = False
            n = K.gen_actions(states[i], buf, False)
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


@pnjit
def illegal(states, actions, bad, nchunks):
    """``bad[i]`` = ``actions[i]`` is not legal in row i."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        buf = np.empty(MAX_LEGAL, dtype=np.int32)
        for i in range(lo, hi):
            n = K.gen_actions(states[i], buf, False)
            a = actions[i]
            ok = False
            for j in range(n):
                if buf[j] == a:
                    ok = True
                    break
            bad[i] = not ok


@njit
def _random_step(s, rng, i, buf, template, rewards):
    """Draw a uniformly random legal action of row i (stream i), play it, and on a finished
    game add the returns to ``rewards[i]`` and reset the row; returns ``(action, finished)``."""
    n = K.gen_actions(s, buf, False)
    a = buf[below(rng, i, n)]
    K.apply_action(s, a)
    if s[K.WINNER] != K.ONGOING:
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
        buf = np.empty(MAX_LEGAL, dtype=np.int32)
        for i in range(lo, hi):
            actions[i], terminated[i] = _random_step(states[i], rng, i, buf, template, rewards)


@pnjit
def play(states, rng, template, num_steps, reward_sum, finished, nchunks):
    """``num_steps`` random steps of every row in one call: the same as ``num_steps`` rounds of
    :func:`sample` then :func:`step` (the same draws, states and rewards), but each row is played
    while it is in the cache and the threads never wait for each other. Adds the rewards to
    ``reward_sum`` and the finished games to ``finished``."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        buf = np.empty(MAX_LEGAL, dtype=np.int32)
        for i in range(lo, hi):
            s = states[i]
            for _ in range(num_steps):
                if _random_step(s, rng, i, buf, template, reward_sum)[1]:
                    finished[i] += 1
