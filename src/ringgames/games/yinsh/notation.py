"""YINSH notation: point names, action strings, the position string, a board drawing.

Rules source: ``shared/rules/yinsh.md``, section *Decisions as atomic actions*.

Action notation (lower case when written, any case when read):
``e3`` place a ring · ``h7-g7`` move a ring · ``xg5-g9`` remove a row (its end
points, either order) · ``xa5`` remove a ring · ``pass``.

**Position string** [project decision]: six space-separated fields ::

    <board> <to decide> <phase> <removed> <mover> <passes>

* ``board``: the 11 columns A..K separated by ``/``, each listing its points from
  the lowest row up: ``W``/``B`` a white/black ring, ``w``/``b`` a white/black
  marker, a number for that many empty points;
* ``to decide``: ``w`` or ``b``, the player who takes the next decision;
* ``phase``: ``place``, ``move`` (a ring move or a forced pass), ``row``
  (choose a row to remove), ``ring`` (choose a ring to remove) or ``over``;
* ``removed``: rings removed by White and Black, e.g. ``1:0``;
* ``mover``: in phases ``row``/``ring``, whose move started the turn (``w``/``b``), else ``-``;
* ``passes``: consecutive passes just played (0 or 1).

Numbers are ASCII digits; a run is at most the column's length. [project decision] A
position in phase ``place`` or ``move`` with a completed row is refused (rows are removed
before the next move; write phase ``row`` with the mover), as is one where the mover's
opponent removes while the mover still has a row (see ``docs/records.md``).

>>> from ringgames import load_game
>>> load_game("yinsh").new_initial_state().position()
'4/7/8/9/10/9/10/9/8/7/4 w place 0:0 - 0'
>>> parse_action_text("XG9-g5")
('row', (54, 50))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...protocol import NotationError
from ...textbounds import excerpt
from .board import COLUMN_ROWS, COLUMNS, NUM_POINTS, POINT_NAMES, POINTS, point_index

if TYPE_CHECKING:
    import numpy as np

    from .state import YinshState

__all__ = ["point_name", "parse_point", "parse_action_text", "format_position", "parse_position", "render"]

_CHARS = {0: None, 1: "w", 2: "b", 3: "W", 4: "B"}
_VALUES = {"w": 1, "b": 2, "W": 3, "B": 4}
PHASES = ("place", "move", "row", "ring", "over")


def point_name(p: int) -> str:
    return POINT_NAMES[p]


def parse_point(text: str) -> int:
    """Point index of ``"e3"`` / ``"E3"`` / ``"E 3"``. Raises NotationError for points off the board."""
    t = text.replace(" ", "")
    if not t.isascii():
        raise NotationError(f"{excerpt(text)} is not a point of the YINSH board (ASCII letters and digits)")
    try:
        return point_index(t.lower())
    except KeyError:
        raise NotationError(f"{excerpt(text)} is not a point of the YINSH board") from None


_ACTION = re.compile(r"^(x?)([a-k][0-9]{1,2})(?:-([a-k][0-9]{1,2}))?$")


def parse_action_text(text: str) -> tuple[str, tuple[int, ...]]:
    """``(kind, points)`` for an action string; kind is place/move/row/ring/pass.

    Raises NotationError (the legality of the action is not checked here).
    """
    t = text.strip()
    m = _ACTION.match(t.lower()) if t.isascii() else None
    if t.isascii() and t.lower() == "pass":
        return "pass", ()
    if not m:
        raise NotationError(f"{excerpt(text)} is not a YINSH action (e3, h7-g7, xg5-g9, xa5 or pass)")
    x, a, b = m.groups()
    pa = parse_point(a)
    if b is None:
        return ("ring" if x else "place"), (pa,)
    pb = parse_point(b)
    return ("row" if x else "move"), (pa, pb)


def format_position(board: Sequence[int] | np.ndarray, actor: int, phase: str, removed: Sequence[int], mover: int | None,
                    passes: int) -> str:
    cols = []
    i = 0
    for lo, hi in COLUMN_ROWS:
        out, run = [], 0
        for _ in range(lo, hi + 1):
            ch = _CHARS[board[i]]
            i += 1
            if ch is None:
                run += 1
            else:
                if run:
                    out.append(str(run))
                    run = 0
                out.append(ch)
        if run:
            out.append(str(run))
        cols.append("".join(out))
    m = "-" if mover is None else "wb"[mover]
    return f"{'/'.join(cols)} {'wb'[actor]} {phase} {removed[0]}:{removed[1]} {m} {passes}"


def parse_position(text: str) -> tuple[list[int], int, str, tuple[int, int], int | None, int]:
    """``(board, actor, phase, removed, mover, passes)`` from a position string. Raises NotationError."""
    fields = text.split()
    if len(fields) != 6 or not text.isascii():
        if not text.isascii():
            raise NotationError("position: only ASCII letters, digits, '/', ':' and '-' are allowed")
        raise NotationError(f"position: expected 6 fields (board, player, phase, removed, mover, passes), got {len(fields)}")
    bfield, who, phase, rem, mover, passes = fields
    cols = bfield.split("/")
    if len(cols) != 11:
        raise NotationError(f"position: expected 11 columns separated by '/', got {len(cols)}")
    board = []
    for c, (col, (lo, hi)) in enumerate(zip(cols, COLUMN_ROWS, strict=True)):
        cells: list[int] = []
        size = hi - lo + 1
        for tok in re.findall(r"[0-9]+|.", col, re.DOTALL):
            if tok[0] in "0123456789":
                run = int(tok) if len(tok) <= 3 else size + 1  # bounded before any allocation
                if len(cells) + run > size:
                    raise NotationError(
                        f"position: column {COLUMNS[c].upper()} has {size} points, the field describes more "
                        f"({excerpt(col, 40)})"
                    )
                cells.extend([0] * run)
            elif tok in _VALUES:
                cells.append(_VALUES[tok])
            else:
                raise NotationError(
                    f"position: column {COLUMNS[c].upper()}: unknown piece {excerpt(tok)} (use W B w b or a number 0-9)"
                )
        if len(cells) != hi - lo + 1:
            raise NotationError(f"position: column {COLUMNS[c].upper()} has {hi - lo + 1} points, the field describes {len(cells)}")
        board.extend(cells)
    if who not in ("w", "b"):
        raise NotationError(f"position: player to decide must be 'w' or 'b', not {excerpt(who)}")
    if phase not in PHASES:
        raise NotationError(f"position: phase must be one of {', '.join(PHASES)}, not {excerpt(phase)}")
    m = re.fullmatch(r"([0-5]):([0-5])", rem)
    if not m:
        raise NotationError(f"position: removed rings must look like '1:0', not {excerpt(rem)}")
    if mover not in ("w", "b", "-"):
        raise NotationError(f"position: mover must be 'w', 'b' or '-', not {excerpt(mover)}")
    if phase in ("row", "ring") and mover == "-":
        raise NotationError("position: phases 'row' and 'ring' need the mover ('w' or 'b')")
    if passes not in ("0", "1"):
        raise NotationError(f"position: passes must be 0 or 1, not {excerpt(passes)}")
    assert len(board) == NUM_POINTS
    return (board, "wb".index(who), phase, (int(m.group(1)), int(m.group(2))),
            None if mover == "-" else "wb".index(mover), int(passes))


def render(state: YinshState) -> str:
    """A text drawing of the board as it looks on the real one.

    Columns a..k run vertically; each point is drawn on text line ``2·row − column``
    so that the two diagonal line directions look straight. ``W``/``B`` rings,
    ``w``/``b`` markers, ``·`` empty points; row numbers stand left of each row's first point.
    """
    sym = {0: "\u00b7", 1: "w", 2: "b", 3: "W", 4: "B"}
    cells = {}
    ys = []
    for p, (c, r) in enumerate(POINTS):
        y = 2 * r - c
        ys.append(y)
        cells[(y, 4 * c + 3)] = sym[state.board[p]]
    for r in range(1, 12):
        c = min(cc for cc, rr in POINTS if rr == r)
        label = str(r).rjust(2)
        cells[(2 * r - c, 4 * c)] = label[0]
        cells[(2 * r - c, 4 * c + 1)] = label[1]
    lines = []
    for y in range(max(ys), min(ys) - 1, -1):
        width = max((x for (yy, x) in cells if yy == y), default=-1) + 1
        lines.append("".join(cells.get((y, x), " ") for x in range(width)).rstrip())
    lines.append("".join(COLUMNS[x // 4] if x % 4 == 3 else " " for x in range(44)).rstrip())
    g = state.game
    what = {"move": "move a ring", "row": "remove a row", "ring": "remove a ring", "place": "place a ring"}
    status = (f"pool {state.pool} markers | rings removed: white {state.removed[0]}, black {state.removed[1]}"
              f" (win at {g.rings_to_win})")
    if state.is_terminal():
        status += f" | game over: {state.result_string()}"
    else:
        status += f" | {('white', 'black')[state.actor]} to {what.get(state.phase, state.phase)}"
    lines.append(status)
    return "\n".join(lines)
