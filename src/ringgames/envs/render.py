"""Pictures of a position for ``render_mode="rgb_array"``: an ``(H, W, 3)`` ``uint8`` array.

Drawn with Pillow from the position string alone (the documented format of each game, see
``State.position()``) and the board geometry of the rules, as the play site's ``boards.js`` does:

* YINSH: the 85 points of the hexagonal grid with their lines; rings as thick circles,
  markers as discs (white / black);
* Gygès: the 6×6 board and both goals; a piece of height *h* as *h* concentric circles;
* RINGS: the 91 circles as hexagons (filled with the owner's colour once all six of their points
  are one seat's), the 216 points, stones as discs in the seat colours (grey: a stone of nobody).
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..protocol import State
from ..rl._extra import require

__all__ = ["SEAT_COLOURS", "render_rgb"]

#: Seat colours (RINGS seats in order; YINSH/Gygès use white/black pieces).
SEAT_COLOURS = ((217, 70, 59), (59, 111, 217), (58, 166, 85), (224, 181, 38), (142, 79, 194), (224, 130, 45))
_BG = (236, 224, 196)
_LINE = (120, 104, 80)
_WHITE = (250, 250, 245)
_BLACK = (30, 30, 30)
_TOKENS = re.compile(r"\d+|.")


def render_rgb(state: State) -> np.ndarray:
    """The board of ``state`` as an RGB image (``uint8``, shape ``(H, W, 3)``)."""
    name = state.game.name
    draw = {"yinsh": _yinsh, "gyges": _gyges, "rings": _rings}.get(name)
    if draw is None:
        raise ValueError(f"no rgb_array drawing for the game {name!r}")
    return np.asarray(draw(state.position()), dtype=np.uint8)


def _canvas(width: int, height: int):
    image_mod = require("PIL.Image", "render_mode='rgb_array'")
    draw_mod = require("PIL.ImageDraw", "render_mode='rgb_array'")
    img = image_mod.new("RGB", (width, height), _BG)
    return img, draw_mod.Draw(img)


def _disc(d, x: float, y: float, r: float, fill, outline=None, width: int = 1) -> None:
    d.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline=outline, width=width)


# -- YINSH ---------------------------------------------------------------------------------
_YINSH_COLS = "abcdefghijk"
_YINSH_ROWS = ((2, 5), (1, 7), (1, 8), (1, 9), (1, 10), (2, 10), (2, 11), (3, 11), (4, 11), (5, 11), (7, 10))


def _yinsh_xy(c: int, r: int) -> tuple[float, float]:
    u = 40
    return 40 + c * u * math.sqrt(3) / 2, 30 + (16 - (2 * r - c)) * u / 2


def _yinsh(position: str):
    cells: dict[tuple[int, int], str] = {}
    for c, col in enumerate(position.split()[0].split("/")):
        r = _YINSH_ROWS[c][0]
        for tok in _TOKENS.findall(col):
            if tok.isdigit():
                r += int(tok)
            else:
                cells[(c, r)] = tok
                r += 1
    points = {(c, r) for c, (lo, hi) in enumerate(_YINSH_ROWS) for r in range(lo, hi + 1)}
    img, d = _canvas(430, 430)
    for c, r in points:
        for dc, dr in ((0, 1), (1, 0), (1, 1)):
            if (c + dc, r + dr) in points:
                d.line((*_yinsh_xy(c, r), *_yinsh_xy(c + dc, r + dr)), fill=_LINE, width=1)
    for (c, r), v in sorted(cells.items()):
        x, y = _yinsh_xy(c, r)
        colour = _WHITE if v.lower() == "w" else _BLACK
        if v in "wb":
            _disc(d, x, y, 10, colour, _BLACK)
        else:  # a ring: a thick circle, outlined in black so that white shows on the board
            _disc(d, x, y, 15, None, _BLACK, width=7)
            _disc(d, x, y, 14, None, colour, width=5)
    return img


# -- Gygès -----------------------------------------------------------------------------------
def _gyges(position: str):
    board = position.split()[0]
    img, d = _canvas(440, 520)
    for y in (20, 460):  # North's goal (above row 6), South's goal (below row 1)
        d.rounded_rectangle((170, y, 270, y + 40), radius=20, fill=(214, 196, 160), outline=_LINE)
    for i, row in enumerate(board.split("/")):  # row 1 first
        r = i + 1
        for f, ch in enumerate(row):
            x, y = 40 + f * 60, 80 + (6 - r) * 60
            d.rectangle((x, y, x + 60, y + 60), fill=(222, 206, 170) if (r + f) % 2 else (240, 228, 200), outline=_LINE)
            height = int(ch) if ch.isdigit() else 0
            for k in range(height, 0, -1):
                _disc(d, x + 30, y + 30, 8 + 7 * (k - 1), None, _BLACK, width=3)
    return img


# -- RINGS ------------------------------------------------------------------------------------
_RI_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWX"
_RI_SEATS = "rbgypo"


def _rings_geometry() -> tuple[dict[int, list[int]], list[list[tuple[int, int]]]]:
    rows: dict[int, list[int]] = {}
    circles: list[list[tuple[int, int]]] = []
    seen: set[tuple[int, int]] = set()
    for r in range(-5, 6):
        for q in range(-5, 6):
            if max(abs(q), abs(r), abs(q + r)) > 5:
                continue
            c, t = 2 * (q + 5) + 1, 2 * r + q + 11
            pts = [(c, t), (c + 1, t), (c + 2, t + 1), (c + 1, t + 2), (c, t + 2), (c - 1, t + 1)]
            for pc, pt in pts:
                if (pc, pt) not in seen:
                    seen.add((pc, pt))
                    rows.setdefault(pt, []).append(pc)
            circles.append(pts)
    for pcs in rows.values():
        pcs.sort()
    return rows, circles


_RI_ROWS, _RI_CIRCLES = _rings_geometry()


def _rings_xy(c: int, t: int) -> tuple[float, float]:
    x = 1.5 * (c // 2) + (-0.5 if c % 2 == 0 else 0.0)
    return 40 + (x + 0.5) * 26, 20 + t * 26 * math.sqrt(3) / 2


def _seat_colour(letter: str) -> tuple[int, int, int]:
    return (136, 136, 136) if letter == "x" else SEAT_COLOURS[_RI_SEATS.index(letter)]


def _rings(position: str):
    stones: dict[tuple[int, int], str] = {}
    for i, row in enumerate(position.split()[0].split("/")):
        t = i + 1
        letters = _RI_ROWS.get(t, [])
        k = 0
        for tok in _TOKENS.findall(row):
            if tok.isdigit():
                k += int(tok)
            else:
                if tok != ".":
                    stones[(letters[k], t)] = tok
                k += 1
    img, d = _canvas(520, 560)
    for pts in _RI_CIRCLES:
        owners = {stones.get(p) for p in pts}
        fill = None
        if len(owners) == 1 and None not in owners and "x" not in owners:
            owner = owners.pop()
            assert owner is not None
            colour = _seat_colour(owner)
            fill = tuple((2 * b + v) // 3 for b, v in zip(_BG, colour, strict=True))
        d.polygon([_rings_xy(*p) for p in pts], fill=fill, outline=_LINE)
    for t, pcs in _RI_ROWS.items():
        for c in pcs:
            x, y = _rings_xy(c, t)
            s = stones.get((c, t))
            if s:
                _disc(d, x, y, 7, _seat_colour(s), _BLACK)
            else:
                _disc(d, x, y, 2, _LINE)
    return img
