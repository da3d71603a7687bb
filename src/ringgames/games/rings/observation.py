"""RINGS observation tensor and the board's 12 symmetries (for learning agents; no I/O).

The board is drawn on the 23 x 24 grid of pbmserv's figure: height = row 1..23, width =
letter A..X. A point is the cell of its (letter, row); a circle is the two cells between
its left and right corners on its centre row (``L12`` and ``M12`` for the centre circle
``LM12``), which no point uses. Seats are rotated so that the observer is seat slot 0,
the next seat in turn order slot 1, ...; there are always 6 slots (slots from the number
of players on are 0), so that one network can play every player count. The table is
:data:`PLANES` (and ``docs/research.md``).
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

import numpy as np

from ...protocol import Symmetry
from . import kernel as K
from .board import CIRCLE_AXIAL, CIRCLE_POINTS, NUM_CIRCLES, NUM_POINTS, POINT_COORDS
from .notation import NUM_ACTIONS, format_position, parse_position

if TYPE_CHECKING:
    from .state import RingsState

__all__ = ["PLANES", "SHAPE", "POINT_CELL", "CIRCLE_CELLS", "observation", "symmetries", "SYMMETRY_POINTS", "SYMMETRY_CIRCLES"]

H, W = 23, 24
S = K.MAX_PLAYERS


def _slots(name: str, meaning: str) -> tuple[tuple[str, str], ...]:
    return tuple((f"{name}{k}", f"{meaning} (seat slot {k}: {'the observer' if k == 0 else f'{k} seat(s) after the observer'})")
                 for k in range(S))


PLANES: tuple[tuple[str, str], ...] = (
    _slots("stones", "1 on points holding a stone of the seat")
    + (
        ("nobody", "1 on points holding a stone of nobody (left by a resigned player)"),
        ("empty", "1 on empty points"),
        ("safe", "1 on points whose stone lies in a ring of its owner (never converted)"),
    )
    + _slots("ring", "1 on circles that are a ring of the seat")
    + _slots("control", "1 on circles where the seat has majority (circle control; the score counts them)")
    + (("convertible", "1 on circles the observer could convert now if it were its convert phase"),)
    + _slots("to_move", "constant: 1 if the seat decides now")
    + _slots("active", "constant: 1 if the seat is in the game (exists and has not resigned)")
    + (
        ("phase_place", "constant: 1 when a stone is to be placed (or pass)"),
        ("phase_convert", "constant: 1 in the convert phase after a placement"),
        ("phase_pass_convert", "constant: 1 in the convert phase after a pass"),
        ("passes", "constant: pass turns in a row / seats in the game (1 ends the game)"),
        ("point_cells", "1 on the 216 point cells"),
        ("circle_cells", "1 on the 182 circle cells (two per circle)"),
    )
)
SHAPE = (len(PLANES), H, W)
_P = {name: i for i, (name, _) in enumerate(PLANES)}

#: POINT_CELL[p]: the flat cell (row index * 24 + letter index) of point p.
POINT_CELL = np.array([(t - 1) * W + c for c, t in POINT_COORDS], dtype=np.int64)
#: CIRCLE_CELLS[c]: the two flat cells of circle c.
CIRCLE_CELLS = np.array(
    [[t * W + c, t * W + c + 1] for c, t in (POINT_COORDS[pts[0]] for pts in CIRCLE_POINTS)], dtype=np.int64
)
assert len(set(POINT_CELL.tolist()) | set(CIRCLE_CELLS.ravel().tolist())) == NUM_POINTS + 2 * NUM_CIRCLES


def observation(state: RingsState, player: int) -> np.ndarray:
    """The observation of a :class:`~.state.RingsState` for seat ``player``."""
    s = state.s
    n = int(s[K.NPLAYERS])
    out = np.zeros((SHAPE[0], H * W), dtype=np.float32)
    owner = s[K.OWNER : K.OWNER + NUM_POINTS]
    ring = s[K.RING : K.RING + NUM_CIRCLES]
    maj = s[K.MAJ : K.MAJ + NUM_CIRCLES]
    over = state.is_terminal()
    mover = int(s[K.MOVER])
    for k in range(n):
        seat = (player + k) % n
        out[_P["stones0"] + k, POINT_CELL] = owner == seat
        out[_P["ring0"] + k, CIRCLE_CELLS] = (ring == seat)[:, None]
        out[_P["control0"] + k, CIRCLE_CELLS] = (maj == seat)[:, None]
        if not over and seat == mover:
            out[_P["to_move0"] + k] = 1.0
        if s[K.ACTIVE + seat]:
            out[_P["active0"] + k] = 1.0
    out[_P["nobody"], POINT_CELL] = owner == n
    out[_P["empty"], POINT_CELL] = owner < 0
    out[_P["safe"], POINT_CELL] = s[K.SAFE : K.SAFE + NUM_POINTS] > 0
    out[_P["convertible"], CIRCLE_CELLS] = (s[K.CONV : K.CONV + NUM_CIRCLES] == player)[:, None] if s[K.ACTIVE + player] else 0.0
    if not over:
        out[_P["phase_place"] + int(s[K.PHASE])] = 1.0
    out[_P["passes"]] = min(1.0, s[K.PASSES] / max(1, int(s[K.NUM_ACTIVE])))
    out[_P["point_cells"], POINT_CELL] = 1.0
    out[_P["circle_cells"], CIRCLE_CELLS] = 1.0
    return out.reshape(SHAPE)


# ---------------------------------------------------------------- symmetries
def _geometry() -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """Plane coordinates of the circle centres and the points (flat-topped hexagons of side 1)."""
    r3 = math.sqrt(3.0)
    corner = ((-0.5, -r3 / 2), (0.5, -r3 / 2), (1.0, 0.0), (0.5, r3 / 2), (-0.5, r3 / 2), (-1.0, 0.0))
    centres = [(1.5 * q, r3 * (r + q / 2)) for q, r in CIRCLE_AXIAL]
    pts: dict[int, tuple[float, float]] = {}
    for ci, (x, y) in enumerate(centres):
        for i, p in enumerate(CIRCLE_POINTS[ci]):
            xy = (x + corner[i][0], y + corner[i][1])
            if p in pts:
                assert math.dist(pts[p], xy) < 1e-9, "point geometry is inconsistent"
            pts[p] = xy
    return centres, [pts[p] for p in range(NUM_POINTS)]


def _transform(xy: tuple[float, float], k: int, mirror: bool) -> tuple[float, float]:
    x, y = xy
    if mirror:
        y = -y
    a = math.pi / 3 * k
    return (x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a))


def _match(src: list[tuple[float, float]], dst: list[tuple[float, float]]) -> tuple[int, ...]:
    key = {(round(x, 6) + 0.0, round(y, 6) + 0.0): i for i, (x, y) in enumerate(dst)}
    return tuple(key[(round(x, 6) + 0.0, round(y, 6) + 0.0)] for x, y in src)


def _maps() -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
    centres, points = _geometry()
    out: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = []
    for mirror in (False, True):
        for k in range(6):
            pmap = _match([_transform(xy, k, mirror) for xy in points], points)
            cmap = _match([_transform(xy, k, mirror) for xy in centres], centres)
            out.append((("mirror+" if mirror else "") + f"rot{60 * k}", pmap, cmap))
    return out


_MAPS = _maps()
#: SYMMETRY_POINTS[k][p], SYMMETRY_CIRCLES[k][c]: the image of point p / circle c under symmetry k
#: (rotations by 60 degrees about the centre circle LM12, then the same after a top-bottom mirror).
SYMMETRY_POINTS: tuple[tuple[int, ...], ...] = tuple(m[1] for m in _MAPS)
SYMMETRY_CIRCLES: tuple[tuple[int, ...], ...] = tuple(m[2] for m in _MAPS)


def _map_position(k: int, num_players: int, position: str) -> str:
    """The position string under board symmetry ``k``."""
    pmap = SYMMETRY_POINTS[k]
    owner, mover, phase, passes, resigned = parse_position(position, num_players)
    new = [-1] * NUM_POINTS
    for p in range(NUM_POINTS):
        new[pmap[p]] = owner[p]
    return format_position(new, num_players, mover, phase, passes, resigned)


def symmetries(num_players: int) -> list[Symmetry]:
    """The 12 symmetries of the hexagonal board (6 rotations, 6 reflections); the identity first."""
    out = []
    for k, (name, pmap, cmap) in enumerate(_MAPS):
        pm = np.array(pmap, dtype=np.int64)
        cm = np.array(cmap, dtype=np.int64)
        actions = np.arange(NUM_ACTIONS, dtype=np.int64)
        actions[:NUM_POINTS] = pm
        actions[K.CONVERT0 : K.CONVERT0 + NUM_CIRCLES] = K.CONVERT0 + cm
        cells = np.arange(H * W, dtype=np.int64)
        cells[POINT_CELL] = POINT_CELL[pm]
        cells[CIRCLE_CELLS] = CIRCLE_CELLS[cm]
        out.append(Symmetry(name, actions, cells, functools.partial(_map_position, k, num_players)))
    return out
