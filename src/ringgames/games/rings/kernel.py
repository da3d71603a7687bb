"""The RINGS rules kernel: the one implementation of the rules, compiled with numba.

Rules source: ``shared/rules/rings.md`` (*A turn*, *Decisions as atomic
actions*). :class:`~ringgames.games.rings.state.RingsState` wraps these functions
for the game protocol; perft and random playouts run entirely here.

A turn is (place P | pass), then, while a conversion is legal for the mover,
(convert C | end); when no conversion is legal the turn ends by itself (that is
not a ply). After N consecutive pass turns (N = players still in the game) the
game ends once the last of those turns is complete; a pass turn with
conversions still counts as a pass.

State layout
------------
One ``int32`` array of :data:`SIZE` (1,911) entries, the same for 2 to 6 players;
``n`` is the number of seats, and the stones left by resigned players belong to
"nobody", written ``n``. Per circle there are ``S = 6`` seat slots: the slot of
circle ``c`` for seat ``p`` is at ``BASE + c*S + p``.

* ``OWNER + pt`` (216): -1 empty, a seat, or ``n`` (nobody);
* ``EMP + c``: empty points of circle c;
* ``INF + c*S + p``: influence of seat p on c (p's stones on c + p's rings among
  c's neighbours; nobody has none);
* ``UNS + c*S + p``: p's unsafe stones on c;
* ``RING + c``: the ring owner or -1; ``SAFE + pt``: how many of its owner's rings hold pt;
* ``MAJ + c``: the seat with majority on c or -1 (at most one seat can have it);
  ``SCORE + p``: circles where p has majority;
* ``CONV + c``: the seat for which c is convertible (majority and an unsafe
  opponent stone) or -1; ``CONV_COUNT + p``: how many;
* ``ACTIVE + p``: 1 while seat p is in the game;
* scalars ``NPLAYERS`` (n), ``MOVER``, ``PHASE`` (0 place, 1 convert after a
  placement, 2 convert after a pass), ``PASSES`` (pass turns completed in a row),
  ``NUM_ACTIVE``.

Every derived entry is a function of the owners and the active seats
(:func:`rebuild` recomputes them all); moves update them incrementally: a change
of a point's owner touches its 1–3 circles in O(players) time, a new ring its
neighbours and the circles of its points. Copying the array (7.6 KB) is the undo
record; it is kept small because copies dominate the protocol path's cost.
"""

from __future__ import annotations

import numpy as np

from ... import rng as _rng
from ...jit import drop_stale_cache, njit
from ...rng import below
from . import board as _board
from .board import CIRCLE_NEIGHBOURS, CIRCLE_POINTS, NUM_CIRCLES, NUM_POINTS, POINT_CIRCLES

drop_stale_cache(__file__, _board.__file__, _rng.__file__)

# ---------------------------------------------------------------- action ids
PASS = NUM_POINTS  # 216
CONVERT0 = NUM_POINTS + 1  # 217
END = CONVERT0 + NUM_CIRCLES  # 308
NUM_ACTIONS = END + 1  # 309
MAX_LEGAL = NUM_POINTS + 1  # the most actions any position has (217)

# ---------------------------------------------------------------- state layout
MAX_PLAYERS = 6
S = MAX_PLAYERS  # seat slots per circle
NC, NP = NUM_CIRCLES, NUM_POINTS
OWNER = 0
INF = OWNER + NP
UNS = INF + NC * S
EMP = UNS + NC * S
RING = EMP + NC
MAJ = RING + NC
CONV = MAJ + NC
SAFE = CONV + NC
SCORE = SAFE + NP
CONV_COUNT = SCORE + MAX_PLAYERS
ACTIVE = CONV_COUNT + MAX_PLAYERS
NPLAYERS = ACTIVE + MAX_PLAYERS
MOVER = NPLAYERS + 1
PHASE = MOVER + 1
PASSES = PHASE + 1
NUM_ACTIVE = PASSES + 1
SIZE = NUM_ACTIVE + 1

PH_PLACE, PH_CONVERT, PH_PASS_CONVERT = 0, 1, 2

# ---------------------------------------------------------------- geometry tables
CP = np.array(CIRCLE_POINTS, dtype=np.int32)  # (91, 6)
PC_LEN = np.array([len(c) for c in POINT_CIRCLES], dtype=np.int32)
PC = np.full((NP, 3), -1, dtype=np.int32)
for _p, _cs in enumerate(POINT_CIRCLES):
    PC[_p, : len(_cs)] = _cs
NB_LEN = np.array([len(n) for n in CIRCLE_NEIGHBOURS], dtype=np.int32)
NB = np.full((NC, 6), -1, dtype=np.int32)
for _c, _ns in enumerate(CIRCLE_NEIGHBOURS):
    NB[_c, : len(_ns)] = _ns
del _p, _cs, _c, _ns


def new_state(players: int) -> np.ndarray:
    """The array of the empty board for ``players`` seats, the first seat to place."""
    s = np.zeros(SIZE, dtype=np.int32)
    s[OWNER : OWNER + NP] = -1
    s[NPLAYERS] = players
    s[ACTIVE : ACTIVE + players] = 1
    rebuild(s)
    return s


# ---------------------------------------------------------------- bookkeeping
@njit
def all_of(s, c, p):
    """True if every point of circle c holds a stone of p."""
    for i in range(6):
        if s[OWNER + CP[c, i]] != p:
            return False
    return True


@njit
def rebuild(s):
    """Recompute every derived entry from the owners and the active seats.

    Stones of seats that are no longer active become nobody's first.
    """
    n = s[NPLAYERS]
    na = 0
    for p in range(n):
        na += s[ACTIVE + p]
    s[NUM_ACTIVE] = na
    for pt in range(NP):
        o = s[OWNER + pt]
        if 0 <= o < n and s[ACTIVE + o] == 0:
            s[OWNER + pt] = n
    s[INF:ACTIVE] = 0  # every derived entry
    for c in range(NC):
        s[RING + c] = -1
        s[MAJ + c] = -1
        s[CONV + c] = -1
        for i in range(6):
            o = s[OWNER + CP[c, i]]
            if o < 0:
                s[EMP + c] += 1
            elif o < n:
                s[INF + c * S + o] += 1
    for c in range(NC):
        o = s[OWNER + CP[c, 0]]
        if 0 <= o < n and all_of(s, c, o):
            s[RING + c] = o
            for i in range(6):
                s[SAFE + CP[c, i]] += 1
            for j in range(NB_LEN[c]):
                s[INF + NB[c, j] * S + o] += 1
    for pt in range(NP):
        o = s[OWNER + pt]
        if 0 <= o < n and s[SAFE + pt] == 0:
            for j in range(PC_LEN[pt]):
                s[UNS + PC[pt, j] * S + o] += 1
    for c in range(NC):
        refresh(s, c)


@njit
def refresh(s, c):
    """Recompute who has majority on circle c and whether c is convertible."""
    n = s[NPLAYERS]
    b = c * S
    tot = 0
    uns = 0
    for p in range(n):
        tot += s[INF + b + p]
        uns += s[UNS + b + p]
    thr = tot + s[EMP + c]
    m = s[MAJ + c]
    if m < 0 or 2 * s[INF + b + m] <= thr:
        new = -1
        for p in range(n):
            if 2 * s[INF + b + p] > thr:
                new = p
                break
        if new != m:
            if m >= 0:
                s[SCORE + m] -= 1
            if new >= 0:
                s[SCORE + new] += 1
            s[MAJ + c] = new
            m = new
    v = m if m >= 0 and uns > s[UNS + b + m] else -1
    o = s[CONV + c]
    if v != o:
        if o >= 0:
            s[CONV_COUNT + o] -= 1
        if v >= 0:
            s[CONV_COUNT + v] += 1
        s[CONV + c] = v


@njit
def set_owner(s, pt, new):
    """Change the owner of an empty or unsafe point (never to nobody) and update its circles."""
    n = s[NPLAYERS]
    old = s[OWNER + pt]
    s[OWNER + pt] = new
    for j in range(PC_LEN[pt]):
        c = PC[pt, j]
        b = c * S
        if old < 0:
            s[EMP + c] -= 1
        elif old < n:
            s[INF + b + old] -= 1
            s[UNS + b + old] -= 1
        if new < 0:
            s[EMP + c] += 1
        elif new < n:
            s[INF + b + new] += 1
            s[UNS + b + new] += 1
        refresh(s, c)


@njit
def add_ring(s, c, p):
    s[RING + c] = p
    for j in range(NB_LEN[c]):
        d = NB[c, j]
        s[INF + d * S + p] += 1
        refresh(s, d)
    for i in range(6):
        pt = CP[c, i]
        s[SAFE + pt] += 1
        if s[SAFE + pt] == 1:
            for j in range(PC_LEN[pt]):
                e = PC[pt, j]
                s[UNS + e * S + p] -= 1
                refresh(s, e)


@njit
def new_rings_at(s, pt, p):
    """Form the rings of p that point pt (just given to p) completes."""
    for j in range(PC_LEN[pt]):
        c = PC[pt, j]
        if s[RING + c] < 0 and all_of(s, c, p):
            add_ring(s, c, p)


@njit
def is_over(s):
    return s[NUM_ACTIVE] <= 1 or s[PASSES] >= s[NUM_ACTIVE]


@njit
def end_turn(s):
    """Count a pass turn, back to the place phase, next active seat to move."""
    if s[PHASE] == PH_PASS_CONVERT:
        s[PASSES] += 1
    else:
        s[PASSES] = 0
    s[PHASE] = PH_PLACE
    n = s[NPLAYERS]
    p = s[MOVER]
    for _ in range(n):
        p = (p + 1) % n
        if s[ACTIVE + p]:
            break
    s[MOVER] = p


# ---------------------------------------------------------------- rules
@njit
def legal_actions(s, out):
    """Write the legal actions (ascending) into ``out``; returns how many (0 when over)."""
    if is_over(s):
        return 0
    k = 0
    if s[PHASE] == PH_PLACE:
        for pt in range(NP):
            if s[OWNER + pt] < 0:
                out[k] = pt
                k += 1
        out[k] = PASS
        return k + 1
    p = s[MOVER]
    for c in range(NC):
        if s[CONV + c] == p:
            out[k] = CONVERT0 + c
            k += 1
    out[k] = END
    return k + 1


@njit
def apply_action(s, action):
    """Play ``action`` (assumed legal) for the player to move."""
    p = s[MOVER]
    if action < PASS:
        set_owner(s, action, p)
        s[PHASE] = PH_CONVERT
        new_rings_at(s, action, p)
    elif action == PASS:
        s[PHASE] = PH_PASS_CONVERT
    elif action == END:
        end_turn(s)
        return
    else:
        convert(s, action - CONVERT0, p)
    if s[CONV_COUNT + p] == 0:
        end_turn(s)


@njit
def convert(s, c, p):
    """Seat p converts circle c (assumed convertible by p): the other seats' unsafe stones on it become p's, then
    p's new rings form. The turn's phase and mover are left alone (:func:`apply_action` plays a conversion with it)."""
    n = s[NPLAYERS]
    # flip the unsafe stones of the other seats (a flip changes no other point's
    # owner or safety, so one pass decides and flips), then form the new rings
    for i in range(6):
        pt = CP[c, i]
        o = s[OWNER + pt]
        if o != p and 0 <= o < n and s[SAFE + pt] == 0:
            set_owner(s, pt, p)
    for i in range(6):
        pt = CP[c, i]
        if s[OWNER + pt] == p:
            new_rings_at(s, pt, p)


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
    while k < max_actions:
        n = legal_actions(s, out)
        if n == 0:
            break
        a = out[below(rng, n)]
        if k < record.shape[0]:
            record[k] = a
        apply_action(s, a)
        k += 1
    return k


@njit
def winners_mask(s):
    """Bit p set for each winner of a finished game (0 while it goes on)."""
    if not is_over(s):
        return 0
    n = s[NPLAYERS]
    if s[NUM_ACTIVE] <= 1:
        m = 0
        for p in range(n):
            if s[ACTIVE + p]:
                m |= 1 << p
        return m
    best = -1
    for p in range(n):
        if s[ACTIVE + p] and s[SCORE + p] > best:
            best = s[SCORE + p]
    m = 0
    for p in range(n):
        if s[ACTIVE + p] and s[SCORE + p] == best:
            m |= 1 << p
    return m


@njit
def playouts(s, count, seed_value, scores, winners, lengths, returns):
    """``count`` random playouts from ``s``, game i with seed ``seed_value + i`` (:mod:`ringgames.rng`).

    Fills ``scores[count, n]`` (final circles with majority per seat), ``winners[count]``
    (bit mask of the winners), ``lengths[count]`` (actions played) and ``returns[count, n]``
    (the protocol's convention: winners share +1, the others share -1; 0 for all on a
    draw among everybody).
    """
    rng = np.empty(1, dtype=np.uint64)
    record = np.empty(0, dtype=np.int32)
    n = s[NPLAYERS]
    for i in range(count):
        rng[0] = seed_value
        rng += np.uint64(i)  # an array operation: wraps mod 2**64 without a warning
        t = s.copy()
        lengths[i] = playout(t, 1000000, rng, record)
        m = winners_mask(t)
        winners[i] = m
        w = 0
        for p in range(n):
            scores[i, p] = t[SCORE + p]
            if m & (1 << p):
                w += 1
        for p in range(n):
            if w == 0 or w == n:
                returns[i, p] = 0.0
            elif m & (1 << p):
                returns[i, p] = 1.0 / w
            else:
                returns[i, p] = -1.0 / (n - w)
