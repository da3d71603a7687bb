"""The Gygès rules kernel: the one implementation of the rules, compiled with numba.

Rules source: ``shared/rules/gyges.md`` (*Setup*, *A move* 1–9, *Identity of a
move, notation and perft*). :class:`~ringgames.games.gyges.state.GygesState`
wraps these functions for the game protocol; perft and random playouts run
entirely here, and the notation and the step-level decomposition get their path
information from the routines at the end of this module.

State layout
------------
One ``int32`` array of :data:`SIZE` (45) entries:

* ``0..35``: the squares (``sq = row * 6 + col``), 0 empty else the piece's rings;
* ``SIDE`` (0 South, 1 North), ``PHASE`` (0 South's setup, 1 North's setup, 2 play),
  ``WINNER`` (-1, or the seat that moved into the opponent's goal), ``REPLACE``
  (1 standard, 0 beginner: *A move* 9);
* ``KEY_LO``/``KEY_HI``: the Zobrist key of (squares, side to move), as two int32 halves;
* ``REPS``: how often the current position has occurred in the play phase (the
  position after setup counts; *A move* 7), ``NKEYS``: play-phase positions so far.

Repetition needs the keys of the earlier positions: callers keep an ``int64``
array ``keys`` beside the state (``keys[:s[NKEYS]]``, the last one the current
position); :func:`play` appends to it. Undoing is restoring an older copy of the
array (its ``NKEYS`` forgets the later keys).

Move generation
---------------
A move lifts its piece and walks segments of exactly as many steps as the rings
of the piece it last landed on; every step but the last of a segment enters an
empty square; no link is used twice in the whole move. The search keeps a stack of
bounce states ``(square, used links)``; the used links are two bit boards aligned with
the squares (horizontal and vertical links), so a whole segment of 1–3 steps advances
as shifts of four bit boards, one per direction of arrival (:func:`segment`). Only where
a segment lands on a piece are its walks listed (every walk of 1, 2 or 3 steps from each
square is precomputed, sorted by end square: :data:`E_RANGE`), to know the links of the
bounce state. A state is searched only if no recorded state on its square used a subset
of its links (which reaches everything it reaches). Per start square the search yields
three bit masks: ``ends`` (empty end squares, bit 36 = the goal), ``reps`` (occupied
squares where a replace may happen) and ``drops`` (where the displaced piece may go: it
depends only on the start square). Actions are written from the
masks in ascending order; playouts draw a uniform action from the counts without
writing the list.

Queries for the AI
------------------
:func:`features` (threat, approach, mobility of both sides, for the evaluation),
:func:`goal_reachable` (a win now, for the win filter) and :func:`distinct_actions`
(one action per distinct successor position, for the search) answer from the
same per-piece masks; :class:`~ringgames.games.gyges.state.GygesState` exposes
them as ``features()``, ``goal_reachable()`` and ``distinct_actions()``.
"""

from __future__ import annotations

import random
import threading

import numpy as np

from ... import rng as _rng
from ...jit import drop_stale_cache, njit
from ...rng import below
from . import board as _board
from .board import ARRANGEMENTS, GOAL, MOVE_BASE, NEIGHBORS, NO_DROP, NSQ, NUM_ARRANGEMENTS, PASS
from .board import SIZE as WIDTH

drop_stale_cache(__file__, _board.__file__, _rng.__file__)

# ---------------------------------------------------------------- state layout
SIDE = NSQ  # 36
PHASE = SIDE + 1
WINNER = PHASE + 1
REPLACE = WINNER + 1
KEY_LO = REPLACE + 1
KEY_HI = KEY_LO + 1
REPS = KEY_HI + 1
NKEYS = REPS + 1
SIZE = NKEYS + 1

SETUP_SOUTH, SETUP_NORTH, PLAY = 0, 1, 2
#: Playout reasons.
R_NONE, R_GOAL, R_REPETITION = 0, 1, 2
#: An upper bound on the legal actions of a position (6 starts x (26 ends + 11 replaces x 25 drops)).
MAX_LEGAL = 2048
#: Most landings a move can have (a move uses each of the 60 links at most once).
MAX_LANDINGS = 64

GOAL_BIT = np.int64(1) << GOAL
ALL_SQUARES = (np.int64(1) << NSQ) - 1

# ---------------------------------------------------------------- Zobrist keys
# The same keys as the former pure-Python engine (random.Random(0x6C5E5)), as signed int64.
_zrng = random.Random(0x6C5E5)
_z = [(0, _zrng.getrandbits(64), _zrng.getrandbits(64), _zrng.getrandbits(64)) for _ in range(NSQ)]
_zn = _zrng.getrandbits(64)
del _zrng


def _signed(x: int) -> int:
    return x - (1 << 64) if x >= 1 << 63 else x


#: ``ZOBRIST[sq, rings]`` (column 0 is 0) and the key of "North to move".
ZOBRIST = np.array([[_signed(v) for v in row] for row in _z], dtype=np.int64)
ZOBRIST_NORTH = np.int64(_signed(_zn))
del _z, _zn

# ---------------------------------------------------------------- geometry tables
ROW = np.array([i // WIDTH for i in range(NSQ)], dtype=np.int32)
#: ``ROWS_FROM[r]``: squares of rows r..5; ``ROWS_UPTO[r]``: squares of rows 0..r.
ROWS_FROM = np.array([((1 << NSQ) - 1) ^ ((1 << (r * WIDTH)) - 1) for r in range(WIDTH)], dtype=np.int64)
ROWS_UPTO = np.array([(1 << ((r + 1) * WIDTH)) - 1 for r in range(WIDTH)], dtype=np.int64)
ARR_DIGITS = np.array([[int(ch) for ch in a] for a in ARRANGEMENTS], dtype=np.int32)
#: Neighbours in the order up, right, down, left (-1 none) and their link bits.
NB = np.full((NSQ, 4), -1, dtype=np.int32)
NB_LINK = np.zeros((NSQ, 4), dtype=np.int64)
for _sq in range(NSQ):
    for _i, (_n, _b) in enumerate(NEIGHBORS[_sq]):
        NB[_sq, _i] = _n
        NB_LINK[_sq, _i] = _b


def _walks():
    """Every walk of k = 1..3 steps from each square that uses no link twice."""
    ends = np.full((4, NSQ, 36), -1, dtype=np.int32)
    links = np.zeros((4, NSQ, 36), dtype=np.int64)
    mids = np.zeros((4, NSQ, 36), dtype=np.int64)
    count = np.zeros((4, NSQ), dtype=np.int32)
    for sq in range(NSQ):
        paths = [(sq, 0, 0)]  # (current, links, squares passed)
        for k in range(1, 4):
            nxt = []
            for cur, lk, mid in paths:
                for n, b in NEIGHBORS[cur]:
                    if lk & b:
                        continue
                    nxt.append((n, lk | b, mid))
            for i, (cur, lk, mid) in enumerate(nxt):
                ends[k, sq, i], links[k, sq, i], mids[k, sq, i] = cur, lk, mid
            count[k, sq] = len(nxt)
            paths = [(cur, lk, mid | (1 << cur)) for cur, lk, mid in nxt]
    return ends, links, mids, count


#: ``P_END[k, sq, i]``, ``P_LINKS[k, sq, i]``, ``P_MID[k, sq, i]`` for ``i < P_COUNT[k, sq]``:
#: the end square, the links and the squares before the end (which must be empty) of the
#: i-th walk of k steps from sq.
P_END, P_LINKS, P_MID, P_COUNT = _walks()
# The search's link sets are two bit boards aligned with the squares: ``uh`` has bit ``sq`` for
# the horizontal link between sq and sq + 1, ``uv`` bit ``sq`` for the vertical link between
# sq and sq + 6. A whole segment then advances by shifts (see :func:`segment`).
NOT_ROW_LAST = np.int64(sum(1 << x for x in range(NSQ) if x // WIDTH != WIDTH - 1))
NOT_ROW_FIRST = np.int64(sum(1 << x for x in range(NSQ) if x // WIDTH != 0))
NOT_COL_LAST = np.int64(sum(1 << x for x in range(NSQ) if x % WIDTH != WIDTH - 1))
NOT_COL_FIRST = np.int64(sum(1 << x for x in range(NSQ) if x % WIDTH != 0))
ROW_MASK = np.array([sum(1 << (r * WIDTH + c) for c in range(WIDTH)) for r in range(WIDTH)], dtype=np.int64)


def _link_planes():
    """``LINK_H[b]``, ``LINK_V[b]``: the (uh, uv) form of link bit b of ``NEIGHBORS``."""
    h = np.zeros(64, dtype=np.int64)
    v = np.zeros(64, dtype=np.int64)
    for sq in range(NSQ):
        for n, b in NEIGHBORS[sq]:
            i = int(b).bit_length() - 1
            lo = min(sq, n)
            if abs(n - sq) == 1:
                h[i] = 1 << lo
            else:
                v[i] = 1 << lo
    return h, v


LINK_H, LINK_V = _link_planes()


def _walks_by_end():
    """The walks of :data:`P_END` etc. sorted by end square, with their links as (uh, uv)."""
    wh: list[int] = []
    wv: list[int] = []
    wm: list[int] = []
    erange = np.zeros((4, NSQ, NSQ, 2), dtype=np.int32)
    for k in range(1, 4):
        for sq in range(NSQ):
            rows = sorted((int(P_END[k, sq, j]), int(P_LINKS[k, sq, j]), int(P_MID[k, sq, j]))
                          for j in range(P_COUNT[k, sq]))
            for e, lk, mid in rows:
                if erange[k, sq, e, 1] == 0:
                    erange[k, sq, e, 0] = len(wh)
                erange[k, sq, e, 1] = len(wh) + 1
                h = v = 0
                for b in range(64):
                    if (lk >> b) & 1:
                        h |= int(LINK_H[b])
                        v |= int(LINK_V[b])
                wh.append(h)
                wv.append(v)
                wm.append(mid)
    return np.array(wh, dtype=np.int64), np.array(wv, dtype=np.int64), np.array(wm, dtype=np.int64), erange


#: Walk ``i`` in ``E_RANGE[k, sq, e, 0] <= i < E_RANGE[k, sq, e, 1]`` is a walk of k steps from
#: sq ending on e, with links ``E_H[i]``/``E_V[i]`` and passed squares ``E_MID[i]``: the search
#: reads them only for the squares where a segment lands on a piece (to know the bounce's links).
E_H, E_V, E_MID, E_RANGE = _walks_by_end()

del _sq, _i, _n, _b

# ---------------------------------------------------------------- search workspace
#: A search that records more bounce states than this raises (never seen in play: the most
#: found in random games is under 2,000).
MEMO_LIMIT = 1 << 16


def new_workspace():
    """Scratch arrays for the searches: ``(heads, links, nexts, stack_sq, stack_used)``.

    The bounce states met by a search are kept per square as linked lists: ``heads[sq]``
    is the latest record on square sq (-1 none), ``links[2j]``/``links[2j + 1]`` its used
    links (uh, uv), ``nexts[j]`` the record before it on the same square; ``stack_*`` is
    the search's stack (``stack_used`` two entries per state).
    """
    return (
        np.full(NSQ, -1, dtype=np.int32),
        np.zeros(2 * MEMO_LIMIT, dtype=np.int64),
        np.zeros(MEMO_LIMIT, dtype=np.int32),
        np.zeros(MEMO_LIMIT + 1, dtype=np.int32),
        np.zeros(2 * (MEMO_LIMIT + 1), dtype=np.int64),
    )


_local = threading.local()


def workspace():
    """This thread's search workspace (:func:`new_workspace`), made on first use."""
    ws = getattr(_local, "ws", None)
    if ws is None:
        ws = _local.ws = new_workspace()
    return ws


# ---------------------------------------------------------------- small helpers
_M1 = np.int64(0x5555555555555555)
_M2 = np.int64(0x3333333333333333)
_M4 = np.int64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@njit
def popcount(x):
    """Set bits of a non-negative int64 (branch-free SWAR count)."""
    x = x - ((x >> 1) & _M1)
    x = (x & _M2) + ((x >> 2) & _M2)
    x = (x + (x >> 4)) & _M4
    return np.int64((np.uint64(x) * _H01) >> np.uint64(56))


_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int32)
for _i in range(64):
    _DEBRUIJN_INDEX[(((1 << _i) * 0x03F79D71B4CB0A89) & (2**64 - 1)) >> 58] = _i
del _i


@njit
def lowest_bit(x):
    """Index of the lowest set bit of a non-zero, non-negative int64 (de Bruijn multiply)."""
    return _DEBRUIJN_INDEX[(np.uint64(x & -x) * _DEBRUIJN) >> np.uint64(58)]


@njit
def nth_bit(x, n):
    """Index of the n-th (0-based) set bit of x."""
    for _ in range(n):
        x &= x - 1
    return lowest_bit(x)


@njit
def get_key(s):
    return (np.int64(s[KEY_HI]) << 32) | (np.int64(s[KEY_LO]) & 0xFFFFFFFF)


@njit
def set_key(s, key):
    lo = key & 0xFFFFFFFF
    if lo >= 0x80000000:
        lo -= 0x100000000
    s[KEY_LO] = lo
    s[KEY_HI] = key >> 32


@njit
def occupancy(s):
    """Bit mask of the occupied squares."""
    occ = np.int64(0)
    for i in range(NSQ):
        if s[i]:
            occ |= np.int64(1) << i
    return occ


@njit
def board_key(s):
    """The Zobrist key of the squares and the side to move, from scratch."""
    k = ZOBRIST_NORTH if s[SIDE] else np.int64(0)
    for i in range(NSQ):
        if s[i]:
            k ^= ZOBRIST[i, s[i]]
    return k


def new_state(replace: bool) -> np.ndarray:
    """The empty board, South to place a piece set."""
    s = np.zeros(SIZE, dtype=np.int32)
    s[WINNER] = -1
    s[REPLACE] = 1 if replace else 0
    return s


@njit
def drop_mask(occ, side):
    """Empty squares where a displaced piece may go (*A move* 5, replace).

    ``occ`` has the mover on its end square, its start square empty and the displaced
    piece off the board (the same squares as the board with the mover lifted): South may
    drop up to the highest occupied row, North down to the lowest.
    """
    if side == 0:
        r = WIDTH - 1
        while r > 0 and (occ & ROWS_FROM[r]) == 0:
            r -= 1
        return ROWS_UPTO[r] & ~occ
    r = 0
    while r < WIDTH - 1 and (occ & ROWS_UPTO[r]) == 0:
        r += 1
    return ROWS_FROM[r] & ~occ


@njit
def segment(cur, rem, uh, uv, empty):
    """One segment of ``rem`` (1–3) steps from ``cur`` with links ``uh``/``uv`` used (*A move* 3, 4).

    Returns ``(reach, front)``: the squares where the segment can land (its last step may
    enter an occupied square), and the squares it can stand on with exactly one step left
    (empty, so ``front & goal row`` means the goal can be entered). The walk advances as
    four bit boards, one per direction of arrival: a step may not reverse the previous one
    (the only way to reuse a link inside a segment of at most 3 steps), may not cross a
    used link, and every square but the last must be in ``empty``.
    """
    m_up = NOT_ROW_LAST & ~uv
    m_right = NOT_COL_LAST & ~uh
    m_down = NOT_ROW_FIRST & ~(uv << WIDTH)
    m_left = NOT_COL_FIRST & ~(uh << 1)
    b = np.int64(1) << cur
    if rem == 1:
        return (((b & m_up) << WIDTH) | ((b & m_right) << 1) | ((b & m_down) >> WIDTH)
                | ((b & m_left) >> 1)), b
    up = ((b & m_up) << WIDTH) & empty
    right = ((b & m_right) << 1) & empty
    down = ((b & m_down) >> WIDTH) & empty
    left = ((b & m_left) >> 1) & empty
    if rem == 3:
        up2 = (((up | right | left) & m_up) << WIDTH) & empty
        right2 = (((up | right | down) & m_right) << 1) & empty
        down2 = (((right | down | left) & m_down) >> WIDTH) & empty
        left2 = (((up | down | left) & m_left) >> 1) & empty
        up, right, down, left = up2, right2, down2, left2
    reach = ((((up | right | left) & m_up) << WIDTH) | (((up | right | down) & m_right) << 1)
             | (((right | down | left) & m_down) >> WIDTH) | (((up | down | left) & m_left) >> 1))
    return reach, up | right | down | left


@njit
def split_links(used):
    """The ``(uh, uv)`` planes of a link mask in the ``NEIGHBORS`` numbering."""
    uh = np.int64(0)
    uv = np.int64(0)
    while used:
        b = lowest_bit(used)
        used &= used - 1
        uh |= LINK_H[b]
        uv |= LINK_V[b]
    return uh, uv


@njit
def search(board, occ, cur, rem, uh, uv, goal_row, stop, heads, links, nexts, st_sq, st_used):
    """Every place a move can end from a point of its walk (*A move* 3–5).

    The walk stands on ``cur`` with ``rem`` steps of the current segment left and the
    links ``uh``/``uv`` used (see :func:`split_links`); ``occ`` (occupied squares) has the
    mover lifted, ``board`` (rings per square) is read only on occupied squares. Returns
    ``(ends, reps)``: ``ends`` the empty squares where it can end (bit :data:`GOAL` for the
    opponent's goal, reachable only with exactly one step left from ``goal_row``), ``reps``
    the occupied squares where a segment can end (replace there, or bounce on). Bounces are
    followed to the end: a segment is one :func:`segment` call; only where it lands on a
    piece are the walks to that square listed (:data:`E_RANGE`) to know the bounce's links.
    A bounce state (square, used links) is searched only if no state recorded on that
    square used a subset of its links (whatever it can reach, that one reaches too).
    With ``stop`` (a square mask, bit :data:`GOAL` included) the search returns as soon as
    one of those squares is in ``ends | reps`` (the masks are then partial); 0 searches all.
    Raises RuntimeError after :data:`MEMO_LIMIT` recorded states.
    """
    heads[:] = -1
    nrec = 0
    ends = np.int64(0)
    reps = np.int64(0)
    empty = ~occ & ALL_SQUARES
    goal = ROW_MASK[goal_row]
    st_sq[0] = cur * 4 + rem
    st_used[0] = uh
    st_used[1] = uv
    top = 1
    while top > 0:
        top -= 1
        cur = st_sq[top] >> 2
        rem = st_sq[top] & 3
        uh = st_used[2 * top]
        uv = st_used[2 * top + 1]
        reach, front = segment(cur, rem, uh, uv, empty)
        if (front & goal) != 0:
            ends |= GOAL_BIT
        ends |= reach & empty
        hits = reach & occ
        reps |= hits
        if ((ends | reps) & stop) != 0:
            return ends, reps
        while hits:
            e = lowest_bit(hits)
            hits &= hits - 1
            for i in range(E_RANGE[rem, cur, e, 0], E_RANGE[rem, cur, e, 1]):
                if ((uh & E_H[i]) | (uv & E_V[i]) | (occ & E_MID[i])) != 0:
                    continue
                h = uh | E_H[i]
                v = uv | E_V[i]
                j = heads[e]
                while j >= 0 and ((links[2 * j] & ~h) | (links[2 * j + 1] & ~v)) != 0:
                    j = nexts[j]
                if j >= 0:
                    continue  # covered by a state with fewer links
                if nrec == MEMO_LIMIT:
                    raise RuntimeError("gyges kernel: too many bounce states for the search workspace")
                links[2 * nrec] = h
                links[2 * nrec + 1] = v
                nexts[nrec] = heads[e]
                heads[e] = nrec
                nrec += 1
                st_sq[top] = e * 4 + board[e]
                st_used[2 * top] = h
                st_used[2 * top + 1] = v
                top += 1
    return ends, reps


@njit
def move_targets(s, occ, side, starts, ends, reps, drops, heads, links, nexts, st_sq, st_used):
    """The movable pieces and their targets (*A move* 1–5, 9); returns how many pieces.

    Rows are tried from the mover's side; the first non-empty row where some piece has a
    legal move gives the movable pieces (the next-row fallback). For each, ``starts[i]``,
    ``ends[i]`` (bit 36: the goal), ``reps[i]`` (squares where it may replace; 0 in the
    beginner variant or when no drop square exists) and ``drops[i]`` (drop squares).
    0 means no move at all (the beginner variant's pass).
    """
    goal_row = WIDTH - 1 if side == 0 else 0
    replace = s[REPLACE] != 0
    for k in range(WIDTH):
        r = k if side == 0 else WIDTH - 1 - k
        if (occ & ROWS_UPTO[r] & ROWS_FROM[r]) == 0:
            continue
        n = 0
        for c in range(WIDTH):
            sq = r * WIDTH + c
            v = s[sq]
            if v == 0:
                continue
            lifted = occ & ~(np.int64(1) << sq)  # the piece is lifted; s itself is never written
            e, p = search(s, lifted, sq, v, 0, 0, goal_row, 0, heads, links, nexts, st_sq, st_used)
            d = np.int64(0)
            if p != 0 and replace:
                d = drop_mask(lifted, side)
            if d == 0:
                p = np.int64(0)
            if e != 0 or p != 0:
                starts[n] = sq
                ends[n] = e
                reps[n] = p
                drops[n] = d
                n += 1
        if n > 0:
            return n
    return 0


@njit
def reach_bound(board, occ, cur, rem, goal_row):
    """An over-approximation of :func:`search` from a lifted piece: ``(ends, reps)`` supersets.

    Each segment is walked as if no link had been used before it (links used inside a
    segment still count), so every square is bounced on at most once: a few
    :func:`segment` calls. Every real move's end is in the result; some results may be
    unreachable once earlier links are taken into account.
    """
    empty = ~occ & ALL_SQUARES
    goal = ROW_MASK[goal_row]
    reach, front = segment(cur, rem, 0, 0, empty)
    ends = reach & empty
    if (front & goal) != 0:
        ends |= GOAL_BIT
    reps = reach & occ
    todo = reps
    while todo:
        e = lowest_bit(todo)
        todo &= todo - 1
        reach, front = segment(e, board[e], 0, 0, empty)
        if (front & goal) != 0:
            ends |= GOAL_BIT
        ends |= reach & empty
        new = reach & occ & ~reps
        reps |= new
        todo |= new
    return ends, reps


@njit
def random_move(s, occ, side, starts, ends, reps, drops, exact, cnt, rng, heads, links, nexts, st_sq, st_used):
    """A uniformly random legal action in play, without listing the actions (*A move* 1–5, 9);
    draws with :func:`ringgames.rng.below` on ``rng``.

    Per movable piece the targets are first bounded from above (:func:`reach_bound`); an
    action is drawn uniformly from the bounded set (ends + replaces x drops) and kept if
    the exact search (:func:`search`, stopping as soon as the drawn square is found) shows
    it legal. If not, that piece's exact targets replace its bound and the draw is repeated.
    This is rejection sampling from a superset, refined only by removing illegal actions, so
    each legal action is returned with the same probability. The next-row fallback: when
    no piece of a row keeps any target, the next row is tried. Returns :data:`PASS` when no
    piece can move. ``starts``..``cnt`` are scratch arrays of 6 entries. The row scan repeats
    :func:`move_targets`' on purpose: one shared routine with an exact/bound switch measured
    about 15% fewer playouts/s.
    """
    goal_row = WIDTH - 1 if side == 0 else 0
    replace = s[REPLACE] != 0
    for k in range(WIDTH):
        r = k if side == 0 else WIDTH - 1 - k
        if (occ & ROWS_UPTO[r] & ROWS_FROM[r]) == 0:
            continue
        n = 0
        for c in range(WIDTH):
            sq = r * WIDTH + c
            v = s[sq]
            if v == 0:
                continue
            lifted = occ & ~(np.int64(1) << sq)
            e, p = reach_bound(s, lifted, sq, v, goal_row)
            d = np.int64(0)
            if p != 0 and replace:
                d = drop_mask(lifted, side)
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
            for i in range(n):
                cnt[i] = popcount(ends[i]) + popcount(reps[i]) * popcount(drops[i])
                total += cnt[i]
            if total == 0:
                break  # no piece of this row can move: the next row
            x = below(rng, total)
            i = 0
            while x >= cnt[i]:
                x -= cnt[i]
                i += 1
            ne = popcount(ends[i])
            base = MOVE_BASE + starts[i] * 37 * 37
            if x < ne:
                t = nth_bit(ends[i], x)
                a = base + t * 37 + NO_DROP
            else:
                x -= ne
                nd = popcount(drops[i])
                t = nth_bit(reps[i], x // nd)
                a = base + t * 37 + nth_bit(drops[i], x % nd)
            if exact[i]:
                return a
            st = starts[i]
            tb = np.int64(1) << t
            e, p = search(s, occ & ~(np.int64(1) << st), st, s[st], 0, 0, goal_row, tb,
                          heads, links, nexts, st_sq, st_used)
            if ((e | p) & tb) != 0:
                return a
            # the search ran to the end without meeting t: these are the piece's exact targets
            ends[i] = e
            reps[i] = p if drops[i] != 0 else np.int64(0)
            exact[i] = 1
    return PASS


@njit
def random_actions(s, count, seed_value, out, heads, links, nexts, st_sq, st_used):
    """``count`` independent uniformly random legal actions of the player to move, into ``out``.

    The draws of :func:`random_move` (the fast playouts' sampler) without playing them, with
    the generator of :mod:`ringgames.rng` seeded with ``seed_value``; the setup phase draws
    arrangements. For tests and for researchers who sample moves in bulk.
    """
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed_value)
    starts = np.empty(WIDTH, dtype=np.int32)
    ends = np.empty(WIDTH, dtype=np.int64)
    reps = np.empty(WIDTH, dtype=np.int64)
    drops = np.empty(WIDTH, dtype=np.int64)
    cnt = np.empty(WIDTH, dtype=np.int64)
    exact = np.empty(WIDTH, dtype=np.int32)
    occ = occupancy(s)
    for j in range(count):
        if s[PHASE] != PLAY:
            out[j] = below(rng, NUM_ARRANGEMENTS)
        else:
            out[j] = random_move(s, occ, s[SIDE], starts, ends, reps, drops, exact, cnt, rng,
                                 heads, links, nexts, st_sq, st_used)


@njit
def write_moves(n, starts, ends, reps, drops, out):
    """Write the move actions of :func:`move_targets`' result into ``out``, ascending; returns how many."""
    k = 0
    for i in range(n):
        base = MOVE_BASE + starts[i] * 37 * 37
        e_mask = ends[i]
        r_mask = reps[i]
        d_mask = drops[i]
        for e in range(GOAL + 1):
            if (e_mask >> e) & 1:
                out[k] = base + e * 37 + NO_DROP
                k += 1
            elif (r_mask >> e) & 1:
                b2 = base + e * 37
                for d in range(NSQ):
                    if (d_mask >> d) & 1:
                        out[k] = b2 + d
                        k += 1
    return k


@njit
def generate(s, out, heads, links, nexts, st_sq, st_used):
    """Every action of the player to move, ascending, ignoring whether the game is over.

    Setup: the 90 arrangements; play: the moves, or :data:`PASS` alone when there is none
    (*A move* 9). Returns how many were written into ``out`` (size :data:`MAX_LEGAL`).
    """
    if s[PHASE] != PLAY:
        for a in range(NUM_ARRANGEMENTS):
            out[a] = a
        return NUM_ARRANGEMENTS
    starts = np.empty(WIDTH, dtype=np.int32)
    ends = np.empty(WIDTH, dtype=np.int64)
    reps = np.empty(WIDTH, dtype=np.int64)
    drops = np.empty(WIDTH, dtype=np.int64)
    n = move_targets(s, occupancy(s), s[SIDE], starts, ends, reps, drops, heads, links, nexts, st_sq, st_used)
    if n == 0:
        out[0] = PASS
        return 1
    return write_moves(n, starts, ends, reps, drops, out)


@njit
def is_over(s):
    """A goal reached, or (play phase) the current position seen for the third time (*A move* 6, 7)."""
    return s[WINNER] >= 0 or (s[PHASE] == PLAY and s[REPS] >= 3)


@njit
def legal_actions(s, out, heads, links, nexts, st_sq, st_used):
    """The legal actions, ascending, into ``out``; returns how many (0 when the game is over)."""
    if is_over(s):
        return 0
    return generate(s, out, heads, links, nexts, st_sq, st_used)


@njit
def successor_key(s, key, action):
    """The Zobrist key after ``action`` (a move or PASS, legal in play), without applying it."""
    key ^= ZOBRIST_NORTH
    if action == PASS:
        return key
    x = action - MOVE_BASE
    d = x % 37
    se = x // 37
    e = se % 37
    st = se // 37
    v = s[st]
    key ^= ZOBRIST[st, v]
    if e == GOAL:
        return key
    w = s[e] if e != st else 0
    key ^= ZOBRIST[e, v]
    if w:
        key ^= ZOBRIST[e, w]
        if d != NO_DROP:
            key ^= ZOBRIST[d, w]
    return key


@njit
def apply_action(s, action):
    """Play ``action`` (assumed legal) for the player to move: squares, side, phase, winner, key.

    Repetition bookkeeping is separate (:func:`note_position`), so that perft can ignore it.
    """
    key = get_key(s)
    side = s[SIDE]
    if action < MOVE_BASE:
        base = 0 if s[PHASE] == SETUP_SOUTH else (WIDTH - 1) * WIDTH
        for c in range(WIDTH):
            v = ARR_DIGITS[action, c]
            s[base + c] = v
            key ^= ZOBRIST[base + c, v]
        s[PHASE] += 1
    elif action != PASS:
        x = action - MOVE_BASE
        d = x % 37
        se = x // 37
        e = se % 37
        st = se // 37
        v = s[st]
        s[st] = 0
        key ^= ZOBRIST[st, v]
        if e == GOAL:
            s[WINNER] = side
        else:
            w = s[e]
            if w:
                key ^= ZOBRIST[e, w]
                if d != NO_DROP:
                    s[d] = w
                    key ^= ZOBRIST[d, w]
            s[e] = v
            key ^= ZOBRIST[e, v]
    s[SIDE] = 1 - side
    set_key(s, key ^ ZOBRIST_NORTH)


@njit
def note_position(s, keys):
    """Record the current play-phase position in ``keys`` and count its occurrences (*A move* 7).

    ``keys`` must have room for one more key (``len(keys) > s[NKEYS]``).
    """
    if s[PHASE] != PLAY:
        return
    key = get_key(s)
    n = s[NKEYS]
    c = 1
    for i in range(n):
        if keys[i] == key:
            c += 1
    keys[n] = key
    s[NKEYS] = n + 1
    s[REPS] = c


@njit
def play(s, action, keys):
    """:func:`apply_action` then :func:`note_position`: one protocol action."""
    apply_action(s, action)
    note_position(s, keys)


@njit
def perft(s, depth, heads, links, nexts, st_sq, st_used):
    """Nodes at ``depth`` plies; children are distinct successor positions (Zobrist keys).

    Repetition is ignored; a won node above ``depth`` counts 0; setup actions are all distinct.
    """
    if depth == 0:
        return 1
    if s[WINNER] >= 0:
        return 0
    out = np.empty(MAX_LEGAL, dtype=np.int32)
    n = generate(s, out, heads, links, nexts, st_sq, st_used)
    if s[PHASE] != PLAY:
        if depth == 1:
            return n
        total = 0
        for i in range(n):
            t = s.copy()
            apply_action(t, out[i])
            total += perft(t, depth - 1, heads, links, nexts, st_sq, st_used)
        return total
    key = get_key(s)
    keys = np.empty(n, dtype=np.int64)
    for i in range(n):
        keys[i] = successor_key(s, key, out[i])
    order = np.argsort(keys)
    distinct = 0
    total = 0
    for j in range(n):
        i = order[j]
        if j > 0 and keys[i] == keys[order[j - 1]]:
            continue
        distinct += 1
        if depth > 1:
            t = s.copy()
            apply_action(t, out[i])
            total += perft(t, depth - 1, heads, links, nexts, st_sq, st_used)
    return distinct if depth == 1 else total


# ---------------------------------------------------------------- queries for the AI
@njit
def side_features(s, occ, side, heads, links, nexts, st_sq, st_used):
    """``(threat, approach, mobility)`` of ``side`` as if it were to move (*A move* 1–5, 9).

    * ``threat``: 1 if one of its movable pieces can end in the opponent's goal, else 0;
    * ``approach``: distinct squares of the opponent's home row (row 6 for South, row 1 for
      North) where a movable piece can end: empty end squares and replace squares;
    * ``mobility``: distinct (start, end) targets of its movable pieces: empty ends (the goal
      included) plus replace squares (a replace counts once, whatever its drop squares).

    Replace squares follow :func:`move_targets` (none in the beginner variant, none when no
    drop square exists). ``occ`` is :func:`occupancy` of ``s``.
    """
    starts = np.empty(WIDTH, dtype=np.int32)
    ends = np.empty(WIDTH, dtype=np.int64)
    reps = np.empty(WIDTH, dtype=np.int64)
    drops = np.empty(WIDTH, dtype=np.int64)
    n = move_targets(s, occ, side, starts, ends, reps, drops, heads, links, nexts, st_sq, st_used)
    home = ROWS_FROM[WIDTH - 1] if side == 0 else ROWS_UPTO[0]
    threat = 0
    near = np.int64(0)
    mob = 0
    for i in range(n):
        if ends[i] & GOAL_BIT:
            threat = 1
        mob += popcount(ends[i]) + popcount(reps[i])
        near |= (ends[i] | reps[i]) & home
    return threat, popcount(near), mob


@njit
def features(s, heads, links, nexts, st_sq, st_used):
    """The evaluation features of both sides in a play position: ``(ok, threat_south,
    approach_south, mobility_south, threat_north, approach_north, mobility_north)`` (see
    :func:`side_features`, each side as if it were to move).

    ``ok`` is 0 (and the rest 0) outside a game in progress with all 12 pieces on the board:
    during the setup and once a piece has entered a goal.
    """
    if s[PHASE] != PLAY or s[WINNER] >= 0:
        return 0, 0, 0, 0, 0, 0, 0
    occ = occupancy(s)
    if popcount(occ) < 12:
        return 0, 0, 0, 0, 0, 0, 0
    t0, a0, m0 = side_features(s, occ, 0, heads, links, nexts, st_sq, st_used)
    t1, a1, m1 = side_features(s, occ, 1, heads, links, nexts, st_sq, st_used)
    return 1, t0, a0, m0, t1, a1, m1


@njit
def goal_reachable(s, heads, links, nexts, st_sq, st_used):
    """True if the player to move has a move into the opponent's goal (*A move* 1–6).

    False during the setup and once the game is won. Stops at the first movable piece that
    reaches the goal.
    """
    if s[PHASE] != PLAY or s[WINNER] >= 0:
        return False
    occ = occupancy(s)
    side = s[SIDE]
    goal_row = WIDTH - 1 if side == 0 else 0
    for k in range(WIDTH):
        r = k if side == 0 else WIDTH - 1 - k
        if (occ & ROWS_UPTO[r] & ROWS_FROM[r]) == 0:
            continue
        movable = False
        for c in range(WIDTH):
            sq = r * WIDTH + c
            v = s[sq]
            if v == 0:
                continue
            lifted = occ & ~(np.int64(1) << sq)
            e, p = search(s, lifted, sq, v, 0, 0, goal_row, GOAL_BIT, heads, links, nexts, st_sq, st_used)
            if e & GOAL_BIT:
                return True
            if e != 0 or (p != 0 and s[REPLACE] != 0 and drop_mask(lifted, side) != 0):
                movable = True
        if movable:
            return False
    return False


@njit
def distinct_actions(s, out, heads, links, nexts, st_sq, st_used):
    """The legal actions with one action per distinct successor position, ascending; returns
    how many were written into ``out`` (size :data:`MAX_LEGAL`).

    Of the actions leading to the same position (the Zobrist key of squares and side to move,
    as perft counts them: *Identity of a move, notation and perft*) the smallest is kept. Setup
    arrangements are all distinct; 0 when the game is over.
    """
    n = legal_actions(s, out, heads, links, nexts, st_sq, st_used)
    if n <= 1 or s[PHASE] != PLAY:
        return n
    key = get_key(s)
    keys = np.empty(n, dtype=np.int64)
    for i in range(n):
        keys[i] = successor_key(s, key, out[i])
    order = np.argsort(keys, kind="mergesort")  # stable: the smallest action of each key first
    keep = np.zeros(n, dtype=np.bool_)
    for j in range(n):
        i = order[j]
        if j == 0 or keys[i] != keys[order[j - 1]]:
            keep[i] = True
    m = 0
    for i in range(n):
        if keep[i]:
            out[m] = out[i]
            m += 1
    return m


# ---------------------------------------------------------------- random playouts
@njit
def _table_add(table, counts, key):
    """One more occurrence of ``key`` in an open-addressing count table; returns its count.

    ``table``/``counts`` have a power-of-two size; a slot with count 0 is free.
    """
    mask = table.shape[0] - 1
    i = key & mask
    while counts[i] != 0:
        if table[i] == key:
            counts[i] += 1
            return counts[i]
        i = (i + 1) & mask
    table[i] = key
    counts[i] = 1
    return 1


@njit
def _count_table(keys, n, size):
    """A count table (:func:`_table_add`) of ``size`` slots holding ``keys[:n]``."""
    table = np.zeros(size, dtype=np.int64)
    counts = np.zeros(size, dtype=np.int32)
    for i in range(n):
        _table_add(table, counts, keys[i])
    return table, counts


@njit
def playout(s, keys, max_actions, rng, record, fast, heads, links, nexts, st_sq, st_used):
    """Uniformly random legal actions until the game ends; returns ``(played, keys)``.

    Each action is ``legal[below(rng, n)]`` of the ``n`` legal actions in ascending order
    (:mod:`ringgames.rng`: the Python path draws the same); with ``fast``, play-phase moves
    come from :func:`random_move` instead (uniform too, about 5 times faster, the same game
    for the same seed, but not the game of the Python path). The first ``len(record)``
    actions are written into ``record``. ``keys`` holds the earlier play-phase keys
    (``keys[:s[NKEYS]]``); it may be replaced by a larger array, so the (possibly new)
    array is returned too. Repetitions are counted in a hash table of the keys (the same
    counts as :func:`note_position`, without its scan of all earlier keys).
    """
    size = 1024
    while size < 4 * (s[NKEYS] + 1):
        size *= 2
    table, counts = _count_table(keys, s[NKEYS], size)
    out = np.empty(MAX_LEGAL, dtype=np.int32)
    starts = np.empty(WIDTH, dtype=np.int32)
    ends = np.empty(WIDTH, dtype=np.int64)
    reps = np.empty(WIDTH, dtype=np.int64)
    drops = np.empty(WIDTH, dtype=np.int64)
    cnt = np.empty(WIDTH, dtype=np.int64)
    exact = np.empty(WIDTH, dtype=np.int32)
    k = 0
    while k < max_actions and not is_over(s):
        if fast and s[PHASE] == PLAY:
            a = random_move(s, occupancy(s), s[SIDE], starts, ends, reps, drops, exact, cnt, rng,
                            heads, links, nexts, st_sq, st_used)
        else:
            n = generate(s, out, heads, links, nexts, st_sq, st_used)
            a = out[below(rng, n)]
        if k < record.shape[0]:
            record[k] = a
        apply_action(s, a)
        if s[PHASE] == PLAY:
            n = s[NKEYS]
            if n >= keys.shape[0]:
                bigger = np.empty(2 * keys.shape[0] + 64, dtype=np.int64)
                bigger[:n] = keys[:n]
                keys = bigger
            if 2 * (n + 1) > size:
                size *= 2
                table, counts = _count_table(keys, n, size)
            key = get_key(s)
            keys[n] = key
            s[NKEYS] = n + 1
            s[REPS] = _table_add(table, counts, key)
        k += 1
    return k, keys


@njit
def playouts(s, keys, count, seed_value, max_actions, fast, winners, reasons, lengths, heads, links, nexts, st_sq, st_used):
    """``count`` random playouts from ``s`` (with its earlier keys ``keys[:s[NKEYS]]``), game i
    with seed ``seed_value + i`` (:mod:`ringgames.rng`; ``fast``: see :func:`playout`).

    Fills ``winners[count]`` (-1 draw or unfinished, 0 South, 1 North), ``reasons[count]``
    (:data:`R_GOAL`, :data:`R_REPETITION`, :data:`R_NONE` if ``max_actions`` ran out) and
    ``lengths[count]`` (actions played, setup included).
    """
    rng = np.empty(1, dtype=np.uint64)
    record = np.empty(0, dtype=np.int32)
    n0 = s[NKEYS]
    buf = np.empty(max(1024, 2 * n0 + 64), dtype=np.int64)
    for i in range(count):
        rng[0] = seed_value
        rng += np.uint64(i)  # an array operation: wraps mod 2**64 without a warning
        t = s.copy()
        buf[:n0] = keys[:n0]
        played, buf = playout(t, buf, max_actions, rng, record, fast, heads, links, nexts, st_sq, st_used)
        lengths[i] = played
        if t[WINNER] >= 0:
            winners[i] = t[WINNER]
            reasons[i] = R_GOAL
        elif is_over(t):
            winners[i] = -1
            reasons[i] = R_REPETITION
        else:
            winners[i] = -1
            reasons[i] = R_NONE


# ---------------------------------------------------------------- paths (notation, decomposition)
@njit
def segments(board, occ, cur, rem, used, goal_row, lands, useds):
    """Every way to walk one segment of ``rem`` steps from ``cur`` (*A move* 3–5); returns how many.

    Writes ``lands[i]`` (the landing square, or :data:`GOAL`) and ``useds[i]`` (the links used
    after it); arrays of at least 40 entries. ``board``/``occ`` have the mover lifted.
    """
    n = 0
    if rem == 1:
        if ROW[cur] == goal_row:
            lands[n] = GOAL
            useds[n] = used
            n += 1
    else:
        for i in range(P_COUNT[rem - 1, cur]):
            e = P_END[rem - 1, cur, i]
            if ROW[e] == goal_row and (used & P_LINKS[rem - 1, cur, i]) == 0:
                if (occ & (P_MID[rem - 1, cur, i] | (np.int64(1) << e))) == 0:
                    lands[n] = GOAL
                    useds[n] = used | P_LINKS[rem - 1, cur, i]
                    n += 1
    for i in range(P_COUNT[rem, cur]):
        lk = P_LINKS[rem, cur, i]
        if (used & lk) != 0 or (occ & P_MID[rem, cur, i]) != 0:
            continue
        lands[n] = P_END[rem, cur, i]
        useds[n] = used | lk
        n += 1
    return n


@njit
def _rank_less(a, b, n):
    """True if landing sequence a sorts before b (square names compared in order: file, then row)."""
    for i in range(n):
        ra = (a[i] % WIDTH) * WIDTH + a[i] // WIDTH
        rb = (b[i] % WIDTH) * WIDTH + b[i] // WIDTH
        if ra != rb:
            return ra < rb
    return False


@njit
def canonical_landings(s, start, end, drop, out):
    """The landing sequence the writers use for the move (start, end, drop) (*notation*).

    Fewest bounces, ties broken by the square names in order. Writes ``start``, every
    bounce square and (unless ``end`` is :data:`GOAL`) ``end`` into ``out`` (size
    :data:`MAX_LANDINGS`) and returns the length; -1 if no step path realises the move.
    """
    v = s[start]
    if v == 0:
        return -1
    goal_row = WIDTH - 1 if s[SIDE] == 0 else 0
    s[start] = 0
    occ = occupancy(s)
    cap = 256
    cur = np.empty(cap, dtype=np.int32)
    used = np.empty(cap, dtype=np.int64)
    seq = np.empty((cap, MAX_LANDINGS), dtype=np.int32)
    cur[0] = start
    used[0] = 0
    seq[0, 0] = start
    size = 1
    length = 1  # landings in each sequence of the layer
    lands = np.empty(48, dtype=np.int32)
    useds = np.empty(48, dtype=np.int64)
    best = np.empty(MAX_LANDINGS, dtype=np.int32)
    result = -1
    while size > 0 and length < MAX_LANDINGS:
        ncap = 256
        ncur = np.empty(ncap, dtype=np.int32)
        nused = np.empty(ncap, dtype=np.int64)
        nseq = np.empty((ncap, MAX_LANDINGS), dtype=np.int32)
        nsize = 0
        found = False
        for j in range(size):
            c = cur[j]
            rem = v if length == 1 else s[c]
            m = segments(s, occ, c, rem, used[j], goal_row, lands, useds)
            for t in range(m):
                land = lands[t]
                if land == GOAL:
                    if end == GOAL:
                        if not found or _rank_less(seq[j], best, length):
                            best[:length] = seq[j, :length]
                            found = True
                            result = length
                    continue
                if s[land] == 0:
                    if land == end and drop == NO_DROP:
                        seq[j, length] = land
                        if not found or _rank_less(seq[j], best, length + 1):
                            best[: length + 1] = seq[j, : length + 1]
                            found = True
                            result = length + 1
                    continue
                seq[j, length] = land
                if land == end and drop != NO_DROP:
                    if not found or _rank_less(seq[j], best, length + 1):
                        best[: length + 1] = seq[j, : length + 1]
                        found = True
                        result = length + 1
                # a bounce state of the next layer: keep the smallest sequence per (square, used)
                u = useds[t]
                k = 0
                while k < nsize and not (ncur[k] == land and nused[k] == u):
                    k += 1
                if k < nsize:
                    if _rank_less(seq[j], nseq[k], length + 1):
                        nseq[k, : length + 1] = seq[j, : length + 1]
                    continue
                if nsize == ncap:
                    ncap *= 2
                    g1 = np.empty(ncap, dtype=np.int32)
                    g2 = np.empty(ncap, dtype=np.int64)
                    g3 = np.empty((ncap, MAX_LANDINGS), dtype=np.int32)
                    g1[:nsize] = ncur[:nsize]
                    g2[:nsize] = nused[:nsize]
                    g3[:nsize] = nseq[:nsize]
                    ncur, nused, nseq = g1, g2, g3
                ncur[nsize] = land
                nused[nsize] = u
                nseq[nsize, : length + 1] = seq[j, : length + 1]
                nsize += 1
        if found:
            break
        cur, used, seq, size = ncur, nused, nseq, nsize
        length += 1
    s[start] = v
    if result > 0:
        out[:result] = best[:result]
    return result


@njit
def realises(s, landings, n, wins):
    """True if some step path follows the landing sequence ``landings[:n]`` (*notation*, readers).

    ``landings[0]`` is the start; every later square but the last must hold a piece (a
    bounce); with ``wins`` the walk must then step into the opponent's goal. Whether the
    last square may be an end (empty, or occupied with a replace) is the caller's check.
    """
    st = landings[0]
    v = s[st]
    if v == 0 or n < 1:
        return False
    goal_row = WIDTH - 1 if s[SIDE] == 0 else 0
    s[st] = 0
    occ = occupancy(s)
    cap = 64
    states = np.empty(cap, dtype=np.int64)
    states[0] = 0
    size = 1
    lands = np.empty(48, dtype=np.int32)
    useds = np.empty(48, dtype=np.int64)
    ok = True
    for i in range(1, n + (1 if wins else 0)):
        cur = landings[i - 1]
        rem = v if i == 1 else s[cur]
        target = GOAL if i == n else landings[i]
        if i > 1 and s[cur] == 0:
            ok = False
            break
        nstates = np.empty(cap, dtype=np.int64)
        nsize = 0
        for j in range(size):
            m = segments(s, occ, cur, rem, states[j], goal_row, lands, useds)
            for t in range(m):
                if lands[t] != target:
                    continue
                u = useds[t]
                k = 0
                while k < nsize and nstates[k] != u:
                    k += 1
                if k < nsize:
                    continue
                if nsize == cap:
                    bigger = np.empty(2 * cap, dtype=np.int64)
                    bigger[:nsize] = nstates[:nsize]
                    nstates = bigger
                    cap *= 2
                nstates[nsize] = u
                nsize += 1
        if nsize == 0:
            ok = False
            break
        states, size = nstates, nsize
    s[st] = v
    return ok


@njit
def steps(occ, cur, rem, used, goal_row, sqs, useds):
    """The single steps a walk may take next (*A move* 3, 4); returns how many.

    Standing on ``cur`` with ``rem`` steps of the segment left and links ``used``: into the
    opponent's goal (:data:`GOAL`) with one step left from ``goal_row``; to a neighbour over
    an unused link, which must be empty unless it is the segment's last step. Writes
    ``sqs[i]`` and ``useds[i]`` (arrays of at least 5 entries). ``occ`` has the mover lifted.
    """
    n = 0
    if rem == 1 and ROW[cur] == goal_row:
        sqs[n] = GOAL
        useds[n] = used
        n += 1
    for i in range(4):
        nb = NB[cur, i]
        if nb < 0 or (used & NB_LINK[cur, i]) != 0:
            continue
        if rem > 1 and (occ >> nb) & 1:
            continue
        sqs[n] = nb
        useds[n] = used | NB_LINK[cur, i]
        n += 1
    return n


@njit
def can_finish(s, start, cur, rem, used, heads, links, nexts, st_sq, st_used):
    """True if the walk of the piece lifted from ``start``, standing on ``cur`` with ``rem``
    steps of its segment left and links ``used``, can still end as a legal move (an empty
    square, the goal, or a replace with a drop square)."""
    v = s[start]
    s[start] = 0
    occ = occupancy(s)
    goal_row = WIDTH - 1 if s[SIDE] == 0 else 0
    uh, uv = split_links(used)
    e, p = search(s, occ, cur, rem, uh, uv, goal_row, 0, heads, links, nexts, st_sq, st_used)
    ok = e != 0 or (p != 0 and s[REPLACE] != 0 and drop_mask(occ, s[SIDE]) != 0)
    s[start] = v
    return ok


# ---------------------------------------------------------------- Python conveniences
def movable_targets(board, side: int, replace: bool) -> list[tuple[int, set[int], set[int], list[int]]]:
    """The movable pieces of ``side`` on ``board`` (36 ints) and their targets, as Python sets.

    ``[(start, ends, reps, drops), ...]``: ``ends`` holds empty end squares and :data:`GOAL`,
    ``reps`` the squares where a replace may end the move, ``drops`` the drop squares
    (see :func:`move_targets`); ``[]`` when no piece can move.
    """
    s = new_state(replace)
    s[:NSQ] = board
    s[SIDE] = side
    s[PHASE] = PLAY
    starts = np.empty(WIDTH, dtype=np.int32)
    ends = np.empty(WIDTH, dtype=np.int64)
    reps = np.empty(WIDTH, dtype=np.int64)
    drops = np.empty(WIDTH, dtype=np.int64)
    n = move_targets(s, occupancy(s), side, starts, ends, reps, drops, *workspace())
    return [(int(starts[i]), mask_squares(ends[i]), mask_squares(reps[i]), sorted(mask_squares(drops[i])))
            for i in range(n)]


def mask_squares(mask) -> set[int]:
    """The set bits of a square mask (bit 36 is :data:`GOAL`)."""
    m = int(mask)
    return {i for i in range(GOAL + 1) if (m >> i) & 1}
