"""RINGS notation: action ids and strings, and the position string.

Action ids (``RingsGame.num_distinct_actions`` = 309):

* ``0``–``215``: place a stone on point *i* (written as the point, ``K12``);
* ``216``: ``pass`` (no placement);
* ``217``–``307``: convert circle *c* (written ``xLM12``);
* ``308``: ``end`` the turn while a conversion is still legal.

Readers ignore letter case; writers use upper case for points and circles.

Position string
---------------
Five fields separated by spaces::

    <board> <to move> <phase> <passes> <resigned>

* ``<board>``: rows 1 to 23 separated by ``/``; each row lists its points from
  left to right (A to X) as ``.`` (empty), a seat letter for a stone
  (``r b g y p o`` = red, blue, green, yellow, purple, orange), or ``x`` for a
  stone of nobody (left by a resigned player). A number stands for that many
  empty points. Rings and circle control are derived from the stones.
* ``<to move>``: the seat letter of the player to decide (after a finished game:
  the player who would be next).
* ``<phase>``: ``place`` (place or pass), ``convert`` (converting after a
  placement) or ``pass-convert`` (converting after a pass).
* ``<passes>``: consecutive pass turns completed just before this turn; the game
  is over when it equals the number of players still in the game.
* ``<resigned>``: seat letters of resigned players in resignation order, or ``-``.

The empty 2-player board is
``2/4/6/8/10/12/12/12/12/12/12/12/12/12/12/12/12/12/10/8/6/4/2 r place 0 -``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...protocol import NotationError
from ...textbounds import ascii_int, excerpt, is_ascii_digits
from .board import CIRCLE_INDEX, CIRCLE_NAMES, NUM_CIRCLES, NUM_POINTS, POINT_INDEX, POINT_NAMES, ROW_POINTS

__all__ = [
    "PASS",
    "CONVERT0",
    "END",
    "NUM_ACTIONS",
    "SEAT_NAMES",
    "SEAT_LETTERS",
    "NOBODY_LETTER",
    "PHASES",
    "action_to_string",
    "parse_action",
    "board_to_string",
    "parse_position",
    "format_position",
]

PASS = NUM_POINTS  # 216
CONVERT0 = NUM_POINTS + 1  # 217
END = CONVERT0 + NUM_CIRCLES  # 308
NUM_ACTIONS = END + 1  # 309

SEAT_NAMES = ("red", "blue", "green", "yellow", "purple", "orange")
SEAT_LETTERS = "rbgypo"
NOBODY_LETTER = "x"
#: phase words: 0 = place, 1 = convert after a placement, 2 = convert after a pass
PHASES = ("place", "convert", "pass-convert")


def action_to_string(action: int) -> str:
    """``K12``, ``pass``, ``xLM12`` or ``end``."""
    if 0 <= action < NUM_POINTS:
        return POINT_NAMES[action]
    if action == PASS:
        return "pass"
    if action == END:
        return "end"
    if CONVERT0 <= action < END:
        return "x" + CIRCLE_NAMES[action - CONVERT0]
    raise ValueError(f"no RINGS action {action}")


def parse_action(text: str) -> int:
    """The action id of a token (any case); NotationError names what is wrong."""
    t = text.strip().upper()
    if not t:
        raise NotationError("empty action")
    if not text.isascii():
        raise NotationError(f"{excerpt(text.strip())} is not a RINGS action (ASCII letters and digits only)")
    if t == "PASS":
        return PASS
    if t == "END":
        return END
    if t in POINT_INDEX:
        return POINT_INDEX[t]
    if t.startswith("X") and len(t) > 1:
        name = t[1:]
        if name in CIRCLE_INDEX:
            return CONVERT0 + CIRCLE_INDEX[name]
        raise NotationError(f"{excerpt(text.strip())}: there is no circle {excerpt(name)} (circles are named like LM12)")
    if t in CIRCLE_INDEX:
        raise NotationError(f"{text.strip()!r} is a circle; write x{t} to convert it")
    raise NotationError(
        f"{excerpt(text.strip())} is not a RINGS action (a point such as K12, pass, a conversion such as xLM12, or end)"
    )


def board_to_string(owner: Sequence[int], num_players: int) -> str:
    """The ``<board>`` field for an owner array (-1 empty, seats, ``num_players`` = nobody)."""
    rows = []
    for pts in ROW_POINTS:
        out = []
        run = 0
        for p in pts:
            o = owner[p]
            if o < 0:
                run += 1
                continue
            if run:
                out.append(str(run))
                run = 0
            out.append(NOBODY_LETTER if o == num_players else SEAT_LETTERS[o])
        if run:
            out.append(str(run))
        rows.append("".join(out))
    return "/".join(rows)


def format_position(owner: Sequence[int], num_players: int, mover: int, phase: int, passes: int,
                    resigned: Sequence[int]) -> str:
    res = "".join(SEAT_LETTERS[p] for p in resigned) or "-"
    return f"{board_to_string(owner, num_players)} {SEAT_LETTERS[mover]} {PHASES[phase]} {passes} {res}"


def parse_position(text: str, num_players: int) -> tuple[list[int], int, int, int, list[int]]:
    """Parse a position string; returns ``(owner, mover, phase, passes, resigned)``.

    Checks the syntax and what can be checked without the rules (the caller
    checks rule consistency). Raises NotationError with a precise reason.
    """
    if not isinstance(text, str):
        raise NotationError("a position must be a string")
    if not text.isascii():
        raise NotationError("a RINGS position has only ASCII letters, digits and '/ . -'")
    fields = text.split()
    if len(fields) != 5:
        raise NotationError(
            f"a RINGS position has 5 fields (<board> <to move> <phase> <passes> <resigned>), not {len(fields)}"
        )
    board, mv, ph, ps, rs = (f.lower() for f in fields)
    letters = SEAT_LETTERS[:num_players]
    rows = board.split("/")
    if len(rows) != len(ROW_POINTS):
        raise NotationError(f"the board has {len(ROW_POINTS)} rows separated by '/', not {len(rows)}")
    owner = [-1] * NUM_POINTS
    for r, (row, pts) in enumerate(zip(rows, ROW_POINTS, strict=True), 1):
        vals: list[int] = []
        i = 0
        while i < len(row):
            ch = row[i]
            if ch in "0123456789":
                j = i
                while j < len(row) and row[j] in "0123456789":
                    j += 1
                k = ascii_int(row[i:j], limit=len(pts))  # bounded by the row before any allocation
                if k is None or len(vals) + k > len(pts):
                    raise NotationError(f"row {r} has {len(pts)} points, the string gives more ({excerpt(row, 40)})")
                if k == 0:
                    raise NotationError(f"row {r}: an empty run of 0 points")
                vals.extend([-1] * k)
                i = j
                continue
            if ch == ".":
                vals.append(-1)
            elif ch == NOBODY_LETTER:
                vals.append(num_players)
            elif ch in letters:
                vals.append(letters.index(ch))
            elif ch in SEAT_LETTERS:
                raise NotationError(f"row {r}: stone {ch!r} belongs to no seat of a {num_players}-player game")
            else:
                raise NotationError(f"row {r}: unexpected character {ch!r} (use . x {' '.join(letters)} or digits)")
            if len(vals) > len(pts):
                raise NotationError(f"row {r} has {len(pts)} points, the string gives more ({excerpt(row, 40)})")
            i += 1
        if len(vals) != len(pts):
            raise NotationError(f"row {r} has {len(pts)} points, the string gives {len(vals)}")
        for p, v in zip(pts, vals, strict=True):
            owner[p] = v
    if len(mv) != 1 or mv not in letters:
        raise NotationError(f"to move: {excerpt(mv)} is not a seat letter ({', '.join(letters)})")
    mover = letters.index(mv)
    if ph not in PHASES:
        raise NotationError(f"phase: {excerpt(ph)} is not one of {', '.join(PHASES)}")
    phase = PHASES.index(ph)
    passes_or_none = ascii_int(ps, limit=999)  # the caller checks it against the players in the game
    if passes_or_none is None:
        what = "is too large" if is_ascii_digits(ps) else "is not a whole number"
        raise NotationError(f"passes: {excerpt(ps)} {what} (0 to the number of players)")
    passes = passes_or_none
    resigned: list[int] = []
    if rs != "-":
        for ch in rs:
            if ch not in letters:
                raise NotationError(f"resigned: {excerpt(ch)} is not a seat letter ({', '.join(letters)})")
            if letters.index(ch) in resigned:
                raise NotationError(f"resigned: {ch!r} is listed twice")
            resigned.append(letters.index(ch))
    return owner, mover, phase, passes, resigned
