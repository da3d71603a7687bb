"""Batched Gygès: the rules kernel (:mod:`ringgames.games.gyges.kernel`) over B state rows.

The action space is the protocol's: one id per whole move (49,375 ids; setup
arrangements 0..89, moves, PASS), see ``docs/research.md, *Batched simulation*`` for why not the
step-level decomposition. Beside ``states`` (``int32[B, SIZE]``) each row counts the
occurrences of its play-phase positions for the repetition rule in a hash table
(:func:`new_tables`); the caller grows them (:func:`rehash`) before a row can fill 3/4
of its own. The move searches need scratch space: one workspace per chunk
(:func:`new_workspaces`).
"""

from __future__ import annotations

import numpy as np

from .. import rng as _rng
from ..games.gyges import board as _board
from ..games.gyges import kernel as K
from ..games.gyges.board import NUM_ACTIONS as _NUM_ACTIONS
from ..games.gyges.board import NUM_ARRANGEMENTS
from ..jit import drop_stale_cache
from . import _common
from ._common import below, chunk_bounds, njit, pnjit, prange

# numba's cache checks only this file: drop it when the kernel, its tables or the helpers change
drop_stale_cache(__file__, K.__file__, _board.__file__, _rng.__file__, _common.__file__)

MAX_LEGAL = K.MAX_LEGAL
NUM_ACTIONS = _NUM_ACTIONS
SIZE = K.SIZE
CURRENT = K.SIDE
WIDTH = 6


def new_workspaces(nchunks: int) -> tuple[np.ndarray, ...]:
    """One search workspace per chunk, as 2-D arrays (row c is :func:`~.kernel.new_workspace` of chunk c)."""
    lim = K.MEMO_LIMIT
    return (
        np.full((nchunks, _board.NSQ), -1, dtype=np.int32),
        np.zeros((nchunks, 2 * lim), dtype=np.int64),
        np.zeros((nchunks, lim), dtype=np.int32),
        np.zeros((nchunks, lim + 1), dtype=np.int32),
        np.zeros((nchunks, 2 * (lim + 1)), dtype=np.int64),
    )


def new_tables(batch_size: int, size: int = 1024) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Empty repetition tables: ``(keys, counts, tags, game)``.

    Row i's table is ``keys[i]`` / ``counts[i]`` / ``tags[i]`` (``size`` slots, a power of two,
    open addressing on the low bits of the Zobrist key); a slot belongs to the current game of
    row i only if ``tags[i, slot] == game[i]``, so a reset is ``game[i] += 1`` (no clearing).
    """
    return (np.zeros((batch_size, size), dtype=np.int64), np.zeros((batch_size, size), dtype=np.int32),
            np.zeros((batch_size, size), dtype=np.int32), np.ones(batch_size, dtype=np.int32))


@njit
def _count(tkeys, tcounts, ttags, tag, key, add):
    """Add ``add`` occurrences of ``key`` to one row's table; returns its count."""
    mask = tkeys.shape[0] - 1
    j = key & mask
    while ttags[j] == tag:
        if tkeys[j] == key:
            tcounts[j] += add
            return tcounts[j]
        j = (j + 1) & mask
    ttags[j] = tag
    tkeys[j] = key
    tcounts[j] = add
    return add


@pnjit
def rehash(keys, counts, tags, game, new_keys, new_counts, new_tags, nchunks):
    """Copy every row's current-game entries into the larger tables ``new_*`` (zeroed)."""
    b = keys.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            g = game[i]
            for j in range(keys.shape[1]):
                if tags[i, j] == g:
                    _count(new_keys[i], new_counts[i], new_tags[i], g, keys[i, j], counts[i, j])


@njit
def _note(s, tkeys, tcounts, ttags, tag):
    """Count the play-phase position of ``s`` (as :func:`~.kernel.note_position`): ``REPS`` is
    how often it has occurred in this game, ``NKEYS`` how many positions the game has had."""
    s[K.REPS] = _count(tkeys, tcounts, ttags, tag, K.get_key(s), 1)
    s[K.NKEYS] += 1


@njit
def _add_returns(s, i, rewards):
    """Add the returns of the finished row i to ``rewards[i]``: +1 / -1 for a goal, 0 for the
    third repetition (a draw)."""
    w = s[K.WINNER]
    if w >= 0:
        rewards[i, w] += 1.0
        rewards[i, 1 - w] -= 1.0


@njit
def _draw(s, rng, i, starts, ends, reps, drops, exact, cnt, heads, links, nexts, st_sq, st_used):
    """A uniformly random legal action of the row ``s`` (in progress) from stream i of ``rng``: an
    arrangement in the setup, else the kernel's rejection sampler (:func:`~.kernel.random_move`,
    the playouts' own) drawing from ``rng[i:i + 1]``, a one-element view of the row's stream,
    by the draw rule of :mod:`ringgames.rng`."""
    if s[K.PHASE] != K.PLAY:
        return below(rng, i, NUM_ARRANGEMENTS)
    return K.random_move(s, K.occupancy(s), s[K.SIDE], starts, ends, reps, drops, exact, cnt, rng[i:i + 1],
                         heads, links, nexts, st_sq, st_used)


@njit
def _scratch():
    """The six-entry scratch arrays of :func:`~.kernel.random_move` (one set per chunk)."""
    return (np.empty(WIDTH, dtype=np.int32), np.empty(WIDTH, dtype=np.int64), np.empty(WIDTH, dtype=np.int64),
            np.empty(WIDTH, dtype=np.int64), np.empty(WIDTH, dtype=np.int32), np.empty(WIDTH, dtype=np.int64))


@pnjit
def sample(states, rng, out, nchunks, heads, links, nexts, st_sq, st_used):
    """A uniformly random legal action per row (stream i of ``rng``) into ``out``, without
    listing the actions; -1 for a finished row."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        starts, ends, reps, drops, exact, cnt = _scratch()
        for i in range(lo, hi):
            s = states[i]
            if K.is_over(s):
                out[i] = -1
            else:
                out[i] = _draw(s, rng, i, starts, ends, reps, drops, exact, cnt,
                               heads[c], links[c], nexts[c], st_sq[c], st_used[c])


@njit
def _play(s, a, keys, counts, tags, game, i, template, rewards):
    """Play the legal action ``a`` on row i (``s``), count its position, and on a finished game add
    the returns to ``rewards[i]`` and reset the row; returns whether the game finished."""
    K.apply_action(s, a)
    if s[K.PHASE] == K.PLAY:
        _note(s, keys[i], counts[i], tags[i], game[i])
    if K.is_over(s):
        _add_returns(s, i, rewards)
        s[:] = template
        game[i] += 1
        return True
    return False


@pnjit
def step(states, keys, counts, tags, game, actions, template, rewards, terminated, nchunks):
    """Play ``actions[i]`` (legal) on row i; finished rows get rewards, ``terminated`` and a reset."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            if _play(states[i], actions[i], keys, counts, tags, game, i, template, rewards):
                terminated[i] = True


@pnjit
def step_random(states, keys, counts, tags, game, rng, template, actions, rewards, terminated, nchunks,
                heads, links, nexts, st_sq, st_used):
    """:func:`sample` then :func:`step` in one parallel region and one pass over the rows (the same
    draws, states and rewards); the actions played go into ``actions``. The tables must have room
    for one more position in every row."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        starts, ends, reps, drops, exact, cnt = _scratch()
        for i in range(lo, hi):
            s = states[i]
            a = _draw(s, rng, i, starts, ends, reps, drops, exact, cnt, heads[c], links[c], nexts[c], st_sq[c], st_used[c])
            actions[i] = a
            terminated[i] = _play(s, a, keys, counts, tags, game, i, template, rewards)


@pnjit
def play(states, keys, counts, tags, game, rng, template, num_steps, reward_sum, finished, nchunks,
         heads, links, nexts, st_sq, st_used):
    """``num_steps`` rounds of :func:`sample` then :func:`step` in one call, row by row (see
    :func:`.yinsh.play`); adds to ``reward_sum`` and ``finished``. The tables must have room
    for ``num_steps`` more positions in every row."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        starts, ends, reps, drops, exact, cnt = _scratch()
        for i in range(lo, hi):
            s = states[i]
            for _ in range(num_steps):
                a = _draw(s, rng, i, starts, ends, reps, drops, exact, cnt,
                          heads[c], links[c], nexts[c], st_sq[c], st_used[c])
                if _play(s, a, keys, counts, tags, game, i, template, reward_sum):
                    finished[i] += 1


@pnjit
def legal_mask(states, out, nchunks, heads, links, nexts, st_sq, st_used):
    """``out[i, a]`` = action a is legal in row i (``out`` bool[B, NUM_ACTIONS], overwritten)."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        buf = np.empty(MAX_LEGAL, dtype=np.int32)
        for i in range(lo, hi):
            out[i, :] = False
            n = K.legal_actions(states[i], buf, heads[c], links[c], nexts[c], st_sq[c], st_used[c])
            for j in range(n):
                out[i, buf[j]] = True


@pnjit
def legal_ids(states, ids, counts, nchunks, heads, links, nexts, st_sq, st_used):
    """The legal actions of row i, ascending, in ``ids[i, :counts[i]]`` (the rest -1)."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            row = ids[i]
            n = K.legal_actions(states[i], row, heads[c], links[c], nexts[c], st_sq[c], st_used[c])
            counts[i] = n
            row[n:] = -1


@pnjit
def illegal(states, actions, bad, nchunks, heads, links, nexts, st_sq, st_used):
    """``bad[i]`` = ``actions[i]`` is not legal in row i."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        buf = np.empty(MAX_LEGAL, dtype=np.int32)
        for i in range(lo, hi):
            n = K.legal_actions(states[i], buf, heads[c], links[c], nexts[c], st_sq[c], st_used[c])
            a = actions[i]
            ok = False
            for j in range(n):
                if buf[j] == a:
                    ok = True
                    break
            bad[i] = not ok
