"""Gygès notation: square names, moves, arrangements and the position string.

* Squares: ``a1`` .. ``f6`` (file a–f from South's left, row 1 = South's home row).
* A move: start square, every bounce square, then the end square, joined by
  ``-``; a replace appends the drop square in brackets; a win ends with ``G``:
  ``c1-c3``, ``c1-d2-d4(e5)``, ``b5-b6-G``. Readers ignore case.
* An arrangement: six digits for files a to f, e.g. ``321123``.
* Position string: ``202110/000330/000000/000200/000100/030123 S`` — row 1
  first, each field files a→f with digits 0–3, then the side to move.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...protocol import NotationError
from ...textbounds import excerpt, is_ascii_digits
from .board import ARRANGEMENT_INDEX, COL, GOAL, NSQ, ROW, SIZE, square

FILES = "abcdef"
SIDE_LETTERS = "SN"
SIDE_NAMES = ("South", "North")


def square_name(sq: int) -> str:
    if sq == GOAL:
        return "G"
    return f"{FILES[COL[sq]]}{ROW[sq] + 1}"


SQUARE_NAMES = tuple(square_name(i) for i in range(NSQ))


def parse_square(text: str) -> int:
    """``'c1'`` -> square index; raises NotationError."""
    t = text.strip().lower()
    if len(t) == 2 and t[0] in FILES and t[1] in "123456":
        return square(int(t[1]) - 1, FILES.index(t[0]))
    raise NotationError(f"{excerpt(text)} is not a square (a1..f6)")


def parse_arrangement(text: str) -> int:
    """Six digits -> arrangement index; raises NotationError with the reason."""
    t = text.strip()
    if len(t) != 6 or not is_ascii_digits(t):
        raise NotationError(f"{excerpt(text)} is not an arrangement (six digits for files a–f, e.g. 321123)")
    if t not in ARRANGEMENT_INDEX:
        raise NotationError(f"arrangement {t} must use exactly two 1s, two 2s and two 3s")
    return ARRANGEMENT_INDEX[t]


#: squares a move can name: every segment uses a link of its own (no reused link), and the board has
#: 60 links between squares and 12 into the goals, so a move lands at most 72 times after its start
MAX_SQUARES = 80

_MOVE = re.compile(r"^([a-z0-9]+(?:-[a-z0-9]+)*)(?:\(([a-z0-9]+)\))?$")


def parse_move_syntax(text: str) -> tuple[list[int], bool, int | None]:
    """Split move notation into ``(landings, wins, drop)``.

    ``landings`` starts with the start square and ends with the end square
    (for a win, the last square before the goal); ``drop`` is the drop
    square or None. Raises NotationError for malformed text.
    """
    t = text.strip().lower().replace(" ", "")
    m = _MOVE.match(t) if t.isascii() else None
    if not m:
        raise NotationError(f"{excerpt(text)} is not a move (e.g. c1-c3, c1-d2-d4(e5), b5-b6-G)")
    parts = m.group(1).split("-")
    if len(parts) > MAX_SQUARES:
        raise NotationError(f"{excerpt(text)}: a move names at most {MAX_SQUARES} squares")
    for p in parts[:-1] if parts[-1] == "g" else parts:
        try:
            parse_square(p)
        except NotationError as exc:
            raise NotationError(f"{excerpt(text)} is not a move: {exc}") from None
    wins = parts[-1] == "g"
    if wins:
        parts = parts[:-1]
        if m.group(2):
            raise NotationError(f"{excerpt(text)}: a move into the goal cannot replace a piece")
    if wins and not parts:
        raise NotationError(f"{excerpt(text)}: the move needs a start square")
    if not wins and len(parts) < 2:
        raise NotationError(f"{excerpt(text)}: a move needs a start and an end square (e.g. c1-c3)")
    landings = [parse_square(p) for p in parts]
    drop = parse_square(m.group(2)) if m.group(2) else None
    return landings, wins, drop


def move_string(landings: Sequence[int], wins: bool, drop: int | None) -> str:
    s = "-".join(SQUARE_NAMES[x] for x in landings)
    if wins:
        s += "-G"
    if drop is not None:
        s += f"({SQUARE_NAMES[drop]})"
    return s


def format_position(board: Sequence[int], side: int) -> str:
    rows = ["".join(str(board[r * SIZE + c]) for c in range(SIZE)) for r in range(SIZE)]
    return "/".join(rows) + " " + SIDE_LETTERS[side]


def parse_position(text: str) -> tuple[list[int], int]:
    """Position string -> ``(board, side)``; checks the syntax only. Raises NotationError."""
    parts = text.strip().split()
    if len(parts) != 2:
        raise NotationError(
            f"position {excerpt(text)} must be six '/'-separated rows and the side to move, "
            "e.g. '321123/000000/000000/000000/000000/321123 S'"
        )
    fields, side_text = parts
    rows = fields.split("/")
    if len(rows) != SIZE:
        raise NotationError(f"position has {len(rows)} rows, not 6 (row 1 first, separated by '/')")
    board: list[int] = []
    for r, field in enumerate(rows, 1):
        if len(field) != SIZE:
            raise NotationError(f"row {r} ({excerpt(field)}) must have 6 digits (files a–f)")
        for c, ch in enumerate(field):
            if ch not in "0123":
                raise NotationError(f"row {r}, file {FILES[c]}: {ch!r} is not 0–3")
            board.append(int(ch))
    side_text = side_text.upper()
    if side_text not in ("S", "N"):
        raise NotationError(f"side to move {excerpt(parts[1])} must be S or N")
    return board, SIDE_LETTERS.index(side_text)
