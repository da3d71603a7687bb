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

from ..games.gyges import board as _board
from ..games.gyges import kernel as K
from ..games.gyges.board import MOVE_BASE, NO_DROP, NUM_ARRANGEMENTS, PASS
from ..games.gyges.board import NUM_ACTIONS as _NUM_ACTIONS
from ..jit import drop_stale_cache
from . import _common
from ._common import below, chunk_bounds, njit, pnjit, prange

# numba's cache checks only this file: drop it when the kernel, its tables or the helpers change
drop_stale_cache(__file__, K.__file__, _board.__file__, _common.__file__)

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


@pnjit
def step(states, keys, counts, tags, game, actions, template, rewards, terminated, nchunks):
    """Play ``actions[i]`` (legal) on row i; finished rows get rewards, ``terminated`` and a reset."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            s = states[i]
            K.apply_action(s, actions[i])
            if s[K.PHASE] == K.PLAY:
                _note(s, keys[i], counts[i], tags[i], game[i])
            if K.is_over(s):
                terminated[i] = True
                _add_returns(s, i, rewards)
                s[:] = template
                game[i] += 1


@njit
def _random_move(s, rng, i, occ, side, starts, ends, reps, drops, exact, cnt, heads, links, nexts, st_sq, st_used):
    """:func:`~.kernel.random_move` drawing from stream i of ``rng`` instead of numba's global
    generator: the same rejection sampler from the bounded targets, uniform over the legal moves."""
    goal_row = WIDTH - 1 if side == 0 else 0
    replace = s[K.REPLACE] != 0
    for k in range(WIDTH):
        r = k if side == 0 else WIDTH - 1 - k
        if (occ & K.ROWS_UPTO[r] & K.ROWS_FROM[r]) == 0:
            continue
        n = 0
        for col in range(WIDTH):
            sq = r * WIDTH + col
            v = s[sq]
            if v == 0:
                continue
            lifted = occ & ~(np.int64(1) << sq)
            e, p = K.reach_bound(s, lifted, sq, v, goal_row)
            d = np.int64(0)
            if p != 0 and replace:
                d = K.drop_mask(lifted, side)
            if d == 0:
                p = np.int64(0)
            starts[n] = sq
            ends[n] = e
            reps[n] = p
            drops[n] = d
            exact[n] = 0
            n += 1
        while True:
            total = 0
            for j in range(n):
                cnt[j] = K.popcount(ends[j]) + K.popcount(reps[j]) * K.popcount(drops[j])
                total += cnt[j]
            if total == 0:
                break  # no piece of this row can move: the next row
            x = below(rng, i, total)
            j = 0
            while x >= cnt[j]:
                x -= cnt[j]
                j += 1
            ne = K.popcount(ends[j])
            base = MOVE_BASE + starts[j] * 37 * 37
            if x < ne:
                t = K.nth_bit(ends[j], x)
                a = base + t * 37 + NO_DROP
            else:
                x -= ne
                nd = K.popcount(drops[j])
                t = K.nth_bit(reps[j], x // nd)
                a = base + t * 37 + K.nth_bit(drops[j], x % nd)
            if exact[j]:
                return a
            st = starts[j]
            tb = np.int64(1) << t
            e, p = K.search(s, occ & ~(np.int64(1) << st), st, s[st], 0, 0, goal_row, tb,
                            heads, links, nexts, st_sq, st_used)
            if ((e | p) & tb) != 0:
                return a
            ends[j] = e
            reps[j] = p if drops[j] != 0 else np.int64(0)
            exact[j] = 1
    return PASS


@pnjit
def sample(states, rng, out, nchunks, heads, links, nexts, st_sq, st_used):
    """A uniformly random legal action per row (stream i of ``rng``) into ``out``, without
    listing the actions; -1 for a finished row."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        starts = np.empty(WIDTH, dtype=np.int32)
        ends = np.empty(WIDTH, dtype=np.int64)
        reps = np.empty(WIDTH, dtype=np.int64)
        drops = np.empty(WIDTH, dtype=np.int64)
        cnt = np.empty(WIDTH, dtype=np.int64)
        exact = np.empty(WIDTH, dtype=np.int32)
        for i in range(lo, hi):
            s = states[i]
            if K.is_over(s):
                out[i] = -1
            elif s[K.PHASE] != K.PLAY:
                out[i] = below(rng, i, NUM_ARRANGEMENTS)
            else:
                out[i] = _random_move(s, rng, i, K.occupancy(s), s[K.SIDE], starts, ends, reps, drops, exact, cnt,
                                      heads[c], links[c], nexts[c], st_sq[c], st_used[c])


@pnjit
def play(states, keys, counts, tags, game, rng, template, num_steps, reward_sum, finished, nchunks,
         heads, links, nexts, st_sq, st_used):
    """``num_steps`` rounds of :func:`sample` then :func:`step` in one call, row by row (see
    :func:`.yinsh.play`); adds to ``reward_sum`` and ``finished``. The tables must have room
    for ``num_steps`` more positions in every row."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        starts = np.empty(WIDTH, dtype=np.int32)
        ends = np.empty(WIDTH, dtype=np.int64)
        reps = np.empty(WIDTH, dtype=np.int64)
        drops = np.empty(WIDTH, dtype=np.int64)
        cnt = np.empty(WIDTH, dtype=np.int64)
        exact = np.empty(WIDTH, dtype=np.int32)
        for i in range(lo, hi):
            s = states[i]
            for _ in range(num_steps):
                if s[K.PHASE] != K.PLAY:
                    a = below(rng, i, NUM_ARRANGEMENTS)
                else:
                    a = _random_move(s, rng, i, K.occupancy(s), s[K.SIDE], starts, ends, reps, drops, exact, cnt,
                                     heads[c], links[c], nexts[c], st_sq[c], st_used[c])
                K.apply_action(s, a)
                if s[K.PHASE] == K.PLAY:
                    _note(s, keys[i], counts[i], tags[i], game[i])
                if K.is_over(s):
                    finished[i] += 1
                    _add_returns(s, i, reward_sum)
                    s[:] = template
                    game[i] += 1


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
