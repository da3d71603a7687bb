"""Compiled observation encoders: the planes of ``State.observation_tensor(player)``, for B games at once.

Each game's planes are defined (and documented, plane by plane) by its
``ringgames.games.<game>.observation`` module; the encoders here write exactly the
same float32 planes from the kernel arrays, for every row of a batch, in compiled
parallel code, from the point of view of the row's player to decide (so the
``to_move`` planes are always 1). ``tests/test_batch.py`` checks them against
``observation_tensor``.

* YINSH ``(19, 11, 11)``: rings and markers of the observer and the opponent, the
  points, the rows to remove, phase, removed rings, pool, passes, variant, colour;
* Gygès ``(8, 6, 6)``: pieces by height (board turned so that the observer aims past
  height index 5), to move, side, setup, repeated position, variant;
* RINGS ``(40, 23, 24)``: stones, rings and circle control per seat slot (the observer
  first), nobody's stones, empty and safe points, convertible circles, to move and
  active per slot, phase, passes, the point and circle cells.
"""

from __future__ import annotations

import numpy as np

from ..games.gyges import board as _gboard
from ..games.gyges import kernel as GK
from ..games.rings import board as _rboard
from ..games.rings import kernel as RK
from ..games.rings.board import CIRCLE_POINTS, POINT_COORDS
from ..games.yinsh import board as _yboard
from ..games.yinsh import kernel as YK
from ..games.yinsh.board import POINTS as YINSH_POINTS
from ..jit import drop_stale_cache
from . import _common
from ._common import chunk_bounds, njit, pnjit, prange

# numba's cache checks only this file: drop it when a kernel, its tables or the helpers change
drop_stale_cache(__file__, GK.__file__, RK.__file__, YK.__file__, _gboard.__file__, _rboard.__file__, _yboard.__file__,
                 _common.__file__)

__all__ = ["Encoder", "for_game"]


# ---------------------------------------------------------------- YINSH
YINSH_SHAPE = (19, 11, 11)
#: YINSH_CELL[p]: the flat cell (row index * 11 + column index) of point p.
YINSH_CELL = np.array([(r - 1) * 11 + c for c, r in YINSH_POINTS], dtype=np.int64)


@njit
def _yinsh_row(s, o):
    """Planes of kernel array ``s`` for its player to decide into ``o`` (``(19, 121)``, overwritten)."""
    o[:, :] = 0.0
    me = s[YK.ACTOR]
    opp = 1 - me
    for p in range(_yboard.NUM_POINTS):
        v = s[p]
        cell = YINSH_CELL[p]
        o[4, cell] = 1.0
        if v == 3 + me:
            o[0, cell] = 1.0
        elif v == 3 + opp:
            o[1, cell] = 1.0
        elif v == 1 + me:
            o[2, cell] = 1.0
        elif v == 1 + opp:
            o[3, cell] = 1.0
    for k in range(2):
        pl = me if k == 0 else opp
        colour = 1 + pl
        base = YK.PEND + YK.PEND_WORDS * pl
        for word in range(YK.PEND_WORDS):  # the candidate rows: a bit set of windows per colour
            bits = s[base + word]
            w = word * YK.WBITS
            while bits:
                if bits & 1 and YK.window_intact(s, w, colour):
                    for q in range(5):
                        o[5 + k, YINSH_CELL[YK.WIN_PTS[w, q]]] = 1.0
                bits >>= 1
                w += 1
    phase = s[YK.PHASE]
    if phase < 4:
        o[7 + phase, :] = 1.0
    if s[YK.WINNER] == YK.ONGOING:
        o[11, :] = 1.0
    if (phase == YK.PH_ROW or phase == YK.PH_RING) and s[YK.MOVER] == me:
        o[12, :] = 1.0
    # ratios in float64, rounded once to float32 (as NumPy does in observation_tensor)
    win_at = np.float64(s[YK.WIN_AT])
    o[13, :] = np.float64(s[YK.REMOVED + me]) / win_at
    o[14, :] = np.float64(s[YK.REMOVED + opp]) / win_at
    o[15, :] = np.float64(YK.TOTAL_MARKERS - s[YK.MARKERS]) / np.float64(YK.TOTAL_MARKERS)
    if s[YK.PASSES] > 0:
        o[16, :] = 1.0
    if s[YK.WIN_AT] == 1:
        o[17, :] = 1.0
    if me == 0:
        o[18, :] = 1.0


@pnjit
def yinsh_encode(states, out, nchunks):
    """``out[i]`` (``(19, 121)`` per row) = the planes of row i for its player to decide."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            _yinsh_row(states[i], out[i])


# ---------------------------------------------------------------- Gygès
GYGES_SHAPE = (8, 6, 6)


@njit
def _gyges_row(s, o):
    o[:, :] = 0.0
    me = s[GK.SIDE]
    for sq in range(_gboard.NSQ):
        v = s[sq]
        if v:
            cell = (5 - sq // 6) * 6 + sq % 6 if me == 1 else sq
            o[v - 1, cell] = 1.0
    if not GK.is_over(s):
        o[3, :] = 1.0
    if me == 1:
        o[4, :] = 1.0
    if s[GK.PHASE] != GK.PLAY:
        o[5, :] = 1.0
    elif s[GK.REPS] >= 2:
        o[6, :] = 1.0
    if s[GK.REPLACE]:
        o[7, :] = 1.0


@pnjit
def gyges_encode(states, out, nchunks):
    """``out[i]`` (``(8, 36)`` per row) = the planes of row i for its player to decide."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            _gyges_row(states[i], out[i])


# ---------------------------------------------------------------- RINGS
RINGS_H, RINGS_W = 23, 24
_S = RK.MAX_PLAYERS
# plane offsets (see ringgames.games.rings.observation.PLANES)
R_STONES, R_NOBODY, R_EMPTY, R_SAFE = 0, _S, _S + 1, _S + 2
R_RING = _S + 3
R_CONTROL = R_RING + _S
R_CONVERTIBLE = R_CONTROL + _S
R_TO_MOVE = R_CONVERTIBLE + 1
R_ACTIVE = R_TO_MOVE + _S
R_PHASE = R_ACTIVE + _S
R_PASSES = R_PHASE + 3
R_POINT_CELLS = R_PASSES + 1
R_CIRCLE_CELLS = R_POINT_CELLS + 1
RINGS_SHAPE = (R_CIRCLE_CELLS + 1, RINGS_H, RINGS_W)
#: RINGS_POINT_CELL[p]: the flat cell (row index * 24 + letter index) of point p.
RINGS_POINT_CELL = np.array([(t - 1) * RINGS_W + c for c, t in POINT_COORDS], dtype=np.int64)
#: RINGS_CIRCLE_CELLS[c]: the two flat cells of circle c (left and right of its centre).
RINGS_CIRCLE_CELLS = np.array(
    [[t * RINGS_W + c, t * RINGS_W + c + 1] for c, t in (POINT_COORDS[pts[0]] for pts in CIRCLE_POINTS)], dtype=np.int64)


@njit
def _rings_row(s, o):
    o[:, :] = 0.0
    n = s[RK.NPLAYERS]
    me = s[RK.MOVER]
    over = RK.is_over(s)
    for pt in range(RK.NP):
        cell = RINGS_POINT_CELL[pt]
        o[R_POINT_CELLS, cell] = 1.0
        w = s[RK.OWNER + pt]
        if w < 0:
            o[R_EMPTY, cell] = 1.0
        elif w == n:
            o[R_NOBODY, cell] = 1.0
        else:
            o[R_STONES + (w - me + n) % n, cell] = 1.0
        if s[RK.SAFE + pt] > 0:
            o[R_SAFE, cell] = 1.0
    for ci in range(RK.NC):
        c0 = RINGS_CIRCLE_CELLS[ci, 0]
        c1 = RINGS_CIRCLE_CELLS[ci, 1]
        o[R_CIRCLE_CELLS, c0] = 1.0
        o[R_CIRCLE_CELLS, c1] = 1.0
        r = s[RK.RING + ci]
        if r >= 0:
            o[R_RING + (r - me + n) % n, c0] = 1.0
            o[R_RING + (r - me + n) % n, c1] = 1.0
        m = s[RK.MAJ + ci]
        if m >= 0:
            o[R_CONTROL + (m - me + n) % n, c0] = 1.0
            o[R_CONTROL + (m - me + n) % n, c1] = 1.0
        if s[RK.ACTIVE + me] and s[RK.CONV + ci] == me:
            o[R_CONVERTIBLE, c0] = 1.0
            o[R_CONVERTIBLE, c1] = 1.0
    for k in range(n):
        seat = (me + k) % n
        if not over and seat == me:
            o[R_TO_MOVE + k, :] = 1.0
        if s[RK.ACTIVE + seat]:
            o[R_ACTIVE + k, :] = 1.0
    if not over:
        o[R_PHASE + s[RK.PHASE], :] = 1.0
    na = s[RK.NUM_ACTIVE]
    o[R_PASSES, :] = min(1.0, np.float64(s[RK.PASSES]) / np.float64(max(1, na)))


@pnjit
def rings_encode(states, out, nchunks):
    """``out[i]`` (``(40, 552)`` per row) = the planes of row i for its player to decide."""
    b = states.shape[0]
    for c in prange(nchunks):
        lo, hi = chunk_bounds(c, nchunks, b)
        for i in range(lo, hi):
            _rings_row(states[i], out[i])


# ---------------------------------------------------------------- choice per game
class Encoder:
    """The observation of one game kind: ``shape`` (planes, height, width) and ``encode``."""

    def __init__(self, shape: tuple[int, int, int], kernel):
        self.shape = shape
        self._kernel = kernel

    def encode(self, states: np.ndarray, out: np.ndarray, nchunks: int) -> None:
        """Write the observations of every row of ``states`` into ``out`` (float32[B, *shape])."""
        b = states.shape[0]
        self._kernel(states, out.reshape(b, self.shape[0], self.shape[1] * self.shape[2]), nchunks)


def for_game(game) -> Encoder:
    """The encoder of ``game`` (a :class:`~ringgames.protocol.Game`)."""
    if game.name == "yinsh":
        return Encoder(YINSH_SHAPE, yinsh_encode)
    if game.name == "gyges":
        return Encoder(GYGES_SHAPE, gyges_encode)
    return Encoder(RINGS_SHAPE, rings_encode)
