"""RINGS board geometry: 216 points, 91 circles, and how they touch.

Points are named as on pbmserv's board figure: a column letter ``A``–``X`` and
a row ``1``–``23`` (``L1`` is the left point of the top edge). Odd rows use the
letters A D E H I L M P Q T U X, even rows B C F G J K N O R S V W.

Circles are flat-topped hexagons with axial coordinates ``(q, r)``,
``max(|q|, |r|, |q + r|) <= 5``. A circle's top-left corner is at letter index
``c = 2(q + 5) + 1`` (``A`` = 0) and row ``t = 2r + q + 11``; its six points,
clockwise from the top-left, are ``(c, t), (c+1, t), (c+2, t+1), (c+1, t+2),
(c, t+2), (c-1, t+1)``. A circle is named by the two column letters of its
centre and its centre row: ``LM12`` is the centre circle, ``LM2`` the top one.

Points are numbered 0..215 in reading order (row by row, then by letter);
circles 0..90 in reading order of their centres. Everything here is a plain
tuple so that later numba ports can turn it into arrays.

>>> NUM_POINTS, NUM_CIRCLES
(216, 91)
>>> [POINT_NAMES[p] for p in CIRCLE_POINTS[circle_index("LM2")]]
['L1', 'M1', 'N2', 'M3', 'L3', 'K2']
>>> len(CIRCLE_NEIGHBOURS[circle_index("LM12")])
6
"""

from __future__ import annotations

__all__ = [
    "LETTERS",
    "NUM_POINTS",
    "NUM_CIRCLES",
    "RADIUS",
    "POINT_COORDS",
    "POINT_NAMES",
    "POINT_INDEX",
    "CIRCLE_AXIAL",
    "CIRCLE_CORNER",
    "CIRCLE_NAMES",
    "CIRCLE_INDEX",
    "CIRCLE_POINTS",
    "POINT_CIRCLES",
    "CIRCLE_NEIGHBOURS",
    "ROW_POINTS",
    "point_index",
    "circle_index",
]

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWX"
RADIUS = 5


def _corner(q: int, r: int) -> tuple[int, int]:
    return 2 * (q + RADIUS) + 1, 2 * r + q + 11


def _circle_points_lt(c: int, t: int) -> list[tuple[int, int]]:
    """The six (letter index, row) corners of the circle whose top-left corner is (c, t)."""
    return [(c, t), (c + 1, t), (c + 2, t + 1), (c + 1, t + 2), (c, t + 2), (c - 1, t + 1)]


_axial = [
    (q, r)
    for q in range(-RADIUS, RADIUS + 1)
    for r in range(-RADIUS, RADIUS + 1)
    if max(abs(q), abs(r), abs(q + r)) <= RADIUS
]
# reading order of the centres: centre row t+1, then centre letter c
_axial.sort(key=lambda qr: (_corner(*qr)[1], _corner(*qr)[0]))

#: Axial coordinates (q, r) of each circle.
CIRCLE_AXIAL: tuple[tuple[int, int], ...] = tuple(_axial)
#: (letter index, row) of each circle's top-left corner.
CIRCLE_CORNER: tuple[tuple[int, int], ...] = tuple(_corner(q, r) for q, r in _axial)

_coords = sorted({pt for c, t in CIRCLE_CORNER for pt in _circle_points_lt(c, t)}, key=lambda ct: (ct[1], ct[0]))
#: (letter index, row) of each point.
POINT_COORDS: tuple[tuple[int, int], ...] = tuple(_coords)
#: Names of the points, e.g. ``"L1"``.
POINT_NAMES: tuple[str, ...] = tuple(f"{LETTERS[c]}{t}" for c, t in _coords)
#: Point name (upper case) -> index.
POINT_INDEX: dict[str, int] = {n: i for i, n in enumerate(POINT_NAMES)}
_coord_index = {ct: i for i, ct in enumerate(_coords)}

#: The six point indices of each circle (clockwise from the top-left).
CIRCLE_POINTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_coord_index[pt] for pt in _circle_points_lt(c, t)) for c, t in CIRCLE_CORNER
)
#: Circle names, e.g. ``"LM12"``.
CIRCLE_NAMES: tuple[str, ...] = tuple(f"{LETTERS[c]}{LETTERS[c + 1]}{t + 1}" for c, t in CIRCLE_CORNER)
#: Circle name (upper case) -> index.
CIRCLE_INDEX: dict[str, int] = {n: i for i, n in enumerate(CIRCLE_NAMES)}

#: The circles (1 to 3) each point lies on.
POINT_CIRCLES: tuple[tuple[int, ...], ...] = tuple(
    tuple(ci for ci, pts in enumerate(CIRCLE_POINTS) if p in pts) for p in range(len(_coords))
)

_axial_index = {qr: i for i, qr in enumerate(CIRCLE_AXIAL)}
_DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
#: The neighbouring circles (3 to 6) of each circle; neighbours share exactly 2 points.
CIRCLE_NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(_axial_index[(q + dq, r + dr)] for dq, dr in _DIRS if (q + dq, r + dr) in _axial_index))
    for q, r in CIRCLE_AXIAL
)

#: Point indices of each row, row 1 first (index 0 is row 1).
ROW_POINTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i, (c, t) in enumerate(_coords) if t == row) for row in range(1, 24)
)

NUM_POINTS = len(POINT_NAMES)
NUM_CIRCLES = len(CIRCLE_NAMES)


def point_index(name: str) -> int:
    """Index of a point name such as ``"k12"`` (any case); KeyError if there is no such point."""
    return POINT_INDEX[name.strip().upper()]


def circle_index(name: str) -> int:
    """Index of a circle name such as ``"lm12"`` (any case, no ``x`` prefix); KeyError if unknown."""
    return CIRCLE_INDEX[name.strip().upper()]
