"""The YINSH rules kernel: the one implementation of the rules, compiled with numba.

Rules source: ``shared/rules/yinsh.md`` (*Play*, *End of game*, *Decisions as
atomic actions*). :class:`~ringgames.games.yinsh.state.YinshState` wraps these
functions for the game protocol; random playouts and perft run entirely here.

A state is one ``int32`` array of :data:`SIZE` entries (layout below): the 85
points, the ring slots, the turn bookkeeping and the candidate rows found after
the last move (a bit set of windows per colour, so that there is room for every
row a move can make). Copying it (456 bytes) is the undo record.

Point contents: 0 empty, 1 white marker, 2 black marker, 3 white ring, 4 black ring
(marker of player p = 1 + p, ring = 3 + p).
"""

from __future__ import annotations

import numpy as np

from ... import rng as _rng
from ...jit import drop_stale_cache, njit
from ...rng import below
from . import board as _board
from .board import BETWEEN, NUM_POINTS, RAYS, WINDOWS, WINDOWS_THROUGH

drop_stale_cache(__file__, _board.__file__, _rng.__file__)

# ---------------------------------------------------------------- action ids
PLACE = 0  # PLACE + point
MOVE = PLACE + NUM_POINTS  # MOVE + from * 85 + to
ROW = MOVE + NUM_POINTS * NUM_POINTS  # ROW + window index
RING = ROW + len(WINDOWS)  # RING + point
PASS = RING + NUM_POINTS
NUM_ACTIONS = PASS + 1

# ---------------------------------------------------------------- state layout
RINGS = 85  # 10 ring slots: white 85..89, black 90..94; -1 = empty slot
ACTOR = 95  # player to decide
MOVER = 96  # player whose move started the current turn
PHASE = 97
PASSES = 98  # consecutive passes just played
PLACED = 99  # rings placed so far
MARKERS = 100  # markers on the board
REMOVED = 101  # rings removed by white (101) and black (102)
WINNER = 103  # ONGOING, DRAW, 0 or 1
REASON = 104
WIN_AT = 105  # rings needed to win (3, or 1 in blitz)
#: candidate row windows after the last move, a bit set per colour: window w is bit w % 31 of
#: word w // 31 (31 bits, so that int32 words stay positive); white PEND.., black PEND + PEND_WORDS..
WBITS = 31
PEND_WORDS = (len(WINDOWS) + WBITS - 1) // WBITS  # 4 words for the 123 windows
PEND = 106
SIZE = PEND + 2 * PEND_WORDS

PH_PLACE, PH_MOVE, PH_ROW, PH_RING, PH_OVER = 0, 1, 2, 3, 4
PHASE_NAMES = ("place", "move", "row", "ring", "over")
ONGOING, DRAW = -2, -1
R_NONE, R_RINGS, R_MARKERS, R_BLOCKED = 0, 1, 2, 3
REASON_NAMES = ("", "rings", "markers", "blocked")
TOTAL_MARKERS = 51
MAX_LEGAL = 512

# ---------------------------------------------------------------- geometry tables
RAY_LEN = np.array([[len(RAYS[p][k]) for k in range(6)] for p in range(NUM_POINTS)], dtype=np.int32)
RAY_PTS = np.full((NUM_POINTS, 6, 10), -1, dtype=np.int32)
for _p in range(NUM_POINTS):
    for _k in range(6):
        RAY_PTS[_p, _k, : len(RAYS[_p][_k])] = RAYS[_p][_k]
BETWEEN_LEN = np.full((NUM_POINTS, NUM_POINTS), -1, dtype=np.int32)
BETWEEN_PTS = np.full((NUM_POINTS, NUM_POINTS, 9), -1, dtype=np.int32)
for _a in range(NUM_POINTS):
    for _b in range(NUM_POINTS):
        _bt = BETWEEN[_a][_b]
        if _bt is not None:
            BETWEEN_LEN[_a, _b] = len(_bt)
            BETWEEN_PTS[_a, _b, : len(_bt)] = _bt
WIN_PTS = np.array(WINDOWS, dtype=np.int32)
THROUGH_LEN = np.array([len(w) for w in WINDOWS_THROUGH], dtype=np.int32)
THROUGH = np.full((NUM_POINTS, 15), -1, dtype=np.int32)
for _p in range(NUM_POINTS):
    THROUGH[_p, : len(WINDOWS_THROUGH[_p])] = WINDOWS_THROUGH[_p]
del _p, _k, _a, _b, _bt


def new_state(rings_to_win: int) -> np.ndarray:
    """The array of the empty board, White to place."""
    s = np.zeros(SIZE, dtype=np.int32)
    s[RINGS : RINGS + 10] = -1
    s[WINNER] = ONGOING
    s[WIN_AT] = rings_to_win
    return s


# ---------------------------------------------------------------- rules
@njit
def window_intact(s, w, colour):
    for i in range(5):
        if s[WIN_PTS[w, i]] != colour:
            return False
    return True


@njit
def clear_pending(s):
    for k in range(2 * PEND_WORDS):
        s[PEND + k] = 0


@njit
def pending_rows(s, player, out, n):
    """Append the candidate windows of ``player`` that are intact rows to ``out`` (ascending); returns the count."""
    colour = 1 + player
    base = PEND + PEND_WORDS * player
    for k in range(PEND_WORDS):
        bits = s[base + k]
        w = k * WBITS
        while bits:
            if bits & 1 and window_intact(s, w, colour):
                out[n] = w
                n += 1
            bits >>= 1
            w += 1
    return n


@njit
def has_row(s, player):
    colour = 1 + player
    base = PEND + PEND_WORDS * player
    for k in range(PEND_WORDS):
        bits = s[base + k]
        w = k * WBITS
        while bits:
            if bits & 1 and window_intact(s, w, colour):
                return True
            bits >>= 1
            w += 1
    return False


@njit
def scan_rows(s):
    """Fill the candidate rows from the whole board (positions read from a string)."""
    clear_pending(s)
    for w in range(WIN_PTS.shape[0]):
        c = s[WIN_PTS[w, 0]]
        if (c == 1 or c == 2) and window_intact(s, w, c):
            _add_pending(s, c, w)


@njit
def final_outcome(s, reason):
    w = s[REMOVED]
    b = s[REMOVED + 1]
    s[WINNER] = DRAW if w == b else (0 if w > b else 1)
    s[REASON] = reason
    s[PHASE] = PH_OVER


@njit
def start_turn(s, player):
    s[ACTOR] = player
    if s[MARKERS] >= TOTAL_MARKERS:
        final_outcome(s, R_MARKERS)
    else:
        s[PHASE] = PH_MOVE


@njit
def after_resolution(s, player):
    """After a move or a ring removal by ``player``: the next row to resolve, or the next turn."""
    mover = s[MOVER]
    if has_row(s, player):
        s[ACTOR] = player
        s[PHASE] = PH_ROW
        return
    if player == mover:
        other = 1 - mover
        if has_row(s, other):
            s[ACTOR] = other
            s[PHASE] = PH_ROW
            return
    start_turn(s, 1 - mover)


@njit
def insertion_sort(a, lo, hi):
    """Sort a[lo:hi] in place (short runs: faster than allocating with np.sort)."""
    for i in range(lo + 1, hi):
        v = a[i]
        j = i - 1
        while j >= lo and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@njit
def ring_moves(s, player, out, n, ordered):
    """Append the ring moves of ``player`` to ``out`` from index n; returns the new count.

    With ``ordered`` the moves come in ascending action order (rings ascending, then
    destinations ascending); without, in board order (enough for random playouts).
    """
    prev = -1
    for _ in range(5):
        # next ring in ascending order (or slot order when not ordered)
        a = 1000
        for i in range(5):
            r = s[RINGS + 5 * player + i]
            if r > prev and r < a:
                a = r
        if a == 1000:
            break
        prev = a
        start = n
        base = MOVE + a * NUM_POINTS
        for d in range(6):
            jumped = False
            for j in range(RAY_LEN[a, d]):
                q = RAY_PTS[a, d, j]
                v = s[q]
                if v == 0:
                    out[n] = base + q
                    n += 1
                    if jumped:
                        break
                elif v <= 2:
                    jumped = True
                else:
                    break
        if ordered:
            insertion_sort(out, start, n)
    return n


@njit
def gen_actions(s, out, ordered):
    """Write the legal actions into ``out``; returns how many (ascending when ``ordered``)."""
    if s[WINNER] != ONGOING:
        return 0
    ph = s[PHASE]
    actor = s[ACTOR]
    n = 0
    if ph == PH_MOVE:
        n = ring_moves(s, actor, out, 0, ordered)
        if n == 0:
            out[0] = PASS
            n = 1
    elif ph == PH_PLACE:
        for p in range(NUM_POINTS):
            if s[p] == 0:
                out[n] = PLACE + p
                n += 1
    elif ph == PH_ROW:
        n = pending_rows(s, actor, out, 0)  # ascending windows
        for i in range(n):
            out[i] += ROW
    elif ph == PH_RING:
        for i in range(5):
            p = s[RINGS + 5 * actor + i]
            if p >= 0:
                out[n] = RING + p
                n += 1
        insertion_sort(out, 0, n)
    return n


@njit
def legal_actions(s, out):
    """Write the legal actions (ascending) into ``out``; returns how many."""
    return gen_actions(s, out, True)


@njit
def _add_pending(s, colour, w):
    # a set of all windows: room for every row one move can complete (no bound to exceed)
    s[PEND + PEND_WORDS * (colour - 1) + w // WBITS] |= 1 << (w % WBITS)


@njit
def _check_point(s, q):
    for i in range(THROUGH_LEN[q]):
        w = THROUGH[q, i]
        c = s[WIN_PTS[w, 0]]
        if (c == 1 or c == 2) and window_intact(s, w, c):
            _add_pending(s, c, w)


@njit
def apply_action(s, action):
    """Play ``action`` (assumed legal) for the player to decide."""
    actor = s[ACTOR]
    if action < MOVE:  # place a ring
        s[action] = 3 + actor
        for i in range(5):
            if s[RINGS + 5 * actor + i] < 0:
                s[RINGS + 5 * actor + i] = action
                break
        s[PLACED] += 1
        s[ACTOR] = 1 - actor
        if s[PLACED] == 10:
            s[MOVER] = 1  # so that White starts the movement phase
            start_turn(s, 0)
    elif action < ROW:  # move a ring: marker on its point, flip the jumped markers
        a = (action - MOVE) // NUM_POINTS
        b = (action - MOVE) % NUM_POINTS
        s[a] = 1 + actor
        s[b] = 3 + actor
        for i in range(5):
            if s[RINGS + 5 * actor + i] == a:
                s[RINGS + 5 * actor + i] = b
                break
        s[MARKERS] += 1
        s[PASSES] = 0
        s[MOVER] = actor
        clear_pending(s)
        _check_point(s, a)
        for j in range(BETWEEN_LEN[a, b]):
            q = BETWEEN_PTS[a, b, j]
            v = s[q]
            if v != 0:
                s[q] = 3 - v
                _check_point(s, q)
        after_resolution(s, actor)
    elif action < RING:  # remove a row
        w = action - ROW
        for i in range(5):
            s[WIN_PTS[w, i]] = 0
        s[MARKERS] -= 5
        s[PHASE] = PH_RING
    elif action < PASS:  # remove a ring
        p = action - RING
        s[p] = 0
        for i in range(5):
            if s[RINGS + 5 * actor + i] == p:
                s[RINGS + 5 * actor + i] = -1
                break
        s[REMOVED + actor] += 1
        if s[REMOVED + actor] >= s[WIN_AT]:
            s[WINNER] = actor
            s[REASON] = R_RINGS
            s[PHASE] = PH_OVER
        else:
            after_resolution(s, actor)
    else:  # pass
        s[PASSES] += 1
        s[MOVER] = actor
        if s[PASSES] >= 2:
            final_outcome(s, R_BLOCKED)
        else:
            start_turn(s, 1 - actor)


@njit
def perft(s, depth):
    """Nodes at ``depth`` plies below ``s`` (terminal nodes above depth count 0)."""
    if depth == 0:
        return 1
    out = np.empty(MAX_LEGAL, dtype=np.int32)
    n = legal_actions(s, out)
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        t = s.copy()
        apply_action(t, out[i])
        total += perft(t, depth - 1)
    return total


@njit
def playout(s, max_actions, rng, record):
    """Uniformly random actions until the game ends or ``max_actions`` were played; returns
    how many were played. Each is ``legal[below(rng, n)]`` of the ``n`` legal actions in
    ascending order (:mod:`ringgames.rng`: the Python path draws the same); the first
    ``len(record)`` actions are written into ``record``."""
    out = np.empty(MAX_LEGAL, dtype=np.int32)
    k = 0
    while s[WINNER] == ONGOING and k < max_actions:
        n = gen_actions(s, out, True)
        a = out[below(rng, n)]
        if k < record.shape[0]:
            record[k] = a
        apply_action(s, a)
        k += 1
    return k


@njit
def playouts(s, count, seed_value, winners, reasons, lengths, removed):
    """``count`` random playouts from ``s``, game i with seed ``seed_value + i`` (:mod:`ringgames.rng`):
    fills winners (DRAW=-1, 0, 1), reasons, lengths, removed[count, 2]."""
    rng = np.empty(1, dtype=np.uint64)
    record = np.empty(0, dtype=np.int32)
    for i in range(count):
        rng[0] = seed_value
        rng += np.uint64(i)  # an array operation: wraps mod 2**64 without a warning
        t = s.copy()
        lengths[i] = playout(t, 100000, rng, record)
        winners[i] = t[WINNER]
        reasons[i] = t[REASON]
        removed[i, 0] = t[REMOVED]
        removed[i, 1] = t[REMOVED + 1]
