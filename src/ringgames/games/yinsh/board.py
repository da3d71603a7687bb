"""YINSH board geometry: the 85 points, lines, rays, 5-point windows, symmetries.

Rules source: ``shared/rules/yinsh.md``, section *Board*.

Points are numbered 0..84 column by column (A2, A3, ..., K10). Everything
the rules need is precomputed once at import as tuples of ints.

>>> len(POINTS), POINT_NAMES[0], POINT_NAMES[84]
(85, 'a2', 'k10')
>>> [POINT_NAMES[p] for p in RAYS[point_index("e4")][DIRECTIONS.index((1, 1))]]
['f5', 'g6', 'h7', 'i8', 'j9', 'k10']
>>> len(SYMMETRIES)
12
"""

from __future__ import annotations

__all__ = [
    "COLUMNS",
    "COLUMN_ROWS",
    "POINTS",
    "POINT_NAMES",
    "NUM_POINTS",
    "DIRECTIONS",
    "RAYS",
    "BETWEEN",
    "WINDOWS",
    "WINDOWS_THROUGH",
    "WINDOW_ID",
    "SYMMETRIES",
    "point_index",
    "window_of",
]

COLUMNS = "abcdefghijk"
#: Valid rows (inclusive) per column A..K.
COLUMN_ROWS = ((2, 5), (1, 7), (1, 8), (1, 9), (1, 10), (2, 10), (2, 11), (3, 11), (4, 11), (5, 11), (7, 10))

#: (column index, row) of each point, in index order.
POINTS: tuple[tuple[int, int], ...] = tuple(
    (c, r) for c, (lo, hi) in enumerate(COLUMN_ROWS) for r in range(lo, hi + 1)
)
NUM_POINTS = len(POINTS)
POINT_NAMES: tuple[str, ...] = tuple(f"{COLUMNS[c]}{r}" for c, r in POINTS)
_INDEX = {cr: i for i, cr in enumerate(POINTS)}
_NAME_INDEX = {n: i for i, n in enumerate(POINT_NAMES)}

#: The six directions a ring moves in, as (d column, d row). The first three are "positive".
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (0, -1), (-1, 0), (-1, -1))


def point_index(name: str) -> int:
    """Index of a point name such as ``"e4"`` (case-insensitive). Raises KeyError."""
    return _NAME_INDEX[name.strip().lower()]


def _ray(p: int, d: tuple[int, int]) -> tuple[int, ...]:
    c, r = POINTS[p]
    out: list[int] = []
    while True:
        c, r = c + d[0], r + d[1]
        if (c, r) not in _INDEX:
            return tuple(out)
        out.append(_INDEX[(c, r)])


#: RAYS[p][k]: points from p (exclusive) to the edge in direction DIRECTIONS[k].
RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(tuple(_ray(p, d) for d in DIRECTIONS) for p in range(NUM_POINTS))

#: BETWEEN[a][b]: the points strictly between two points on a common line, or None.
BETWEEN: tuple[tuple[tuple[int, ...] | None, ...], ...]
_between: list[list[tuple[int, ...] | None]] = [[None] * NUM_POINTS for _ in range(NUM_POINTS)]
for _a in range(NUM_POINTS):
    for _k in range(6):
        _ray_pts = RAYS[_a][_k]
        for _i, _b in enumerate(_ray_pts):
            _between[_a][_b] = _ray_pts[:_i]
BETWEEN = tuple(tuple(row) for row in _between)

#: Every run of 5 adjacent points on a line, as a tuple of point indices, first point
#: first in notation order (column letter, then row); the window runs in a positive direction.
WINDOWS: tuple[tuple[int, ...], ...]
#: WINDOW_ID[(start point, positive direction 0..2)] -> window index.
WINDOW_ID: dict[tuple[int, int], int] = {}
_windows: list[tuple[int, ...]] = []
for _p in range(NUM_POINTS):
    for _k in range(3):
        _ray_pts = RAYS[_p][_k]
        if len(_ray_pts) >= 4:
            WINDOW_ID[(_p, _k)] = len(_windows)
            _windows.append((_p,) + _ray_pts[:4])
WINDOWS = tuple(_windows)
#: WINDOWS_THROUGH[p]: indices of the windows that contain point p.
WINDOWS_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(w for w, pts in enumerate(WINDOWS) if p in pts) for p in range(NUM_POINTS)
)
_WINDOW_BY_ENDS = {}
for _w, _pts in enumerate(WINDOWS):
    _WINDOW_BY_ENDS[(_pts[0], _pts[4])] = _w
    _WINDOW_BY_ENDS[(_pts[4], _pts[0])] = _w


def window_of(a: int, b: int) -> int | None:
    """The window whose end points are ``a`` and ``b`` (either order), or None."""
    return _WINDOW_BY_ENDS.get((a, b))


def _sym_maps() -> tuple[tuple[int, ...], ...]:
    def rot(x: int, y: int) -> tuple[int, int]:
        return x - y, x

    def refl(x: int, y: int) -> tuple[int, int]:
        return y, x

    maps = []
    for reflect in (False, True):
        for k in range(6):
            m = []
            for c, r in POINTS:
                x, y = c - 5, r - 6
                if reflect:
                    x, y = refl(x, y)
                for _ in range(k):
                    x, y = rot(x, y)
                m.append(_INDEX[(x + 5, y + 6)])
            maps.append(tuple(m))
    return tuple(maps)


#: The 12 symmetries of the board as point permutations; SYMMETRIES[0] is the identity.
SYMMETRIES: tuple[tuple[int, ...], ...] = _sym_maps()

del _a, _k, _i, _b, _p, _w, _pts, _ray_pts, _between, _windows
