"""Gygès board geometry: squares, links, goals, action ids, mirror symmetry.

Squares are numbered ``0..35``: ``sq = row * 6 + col`` with ``row`` 0 for
row 1 (South's home row) up to 5 for row 6, ``col`` 0 for file a up to 5 for
file f.

Links: the 60 connections between orthogonally adjacent squares each have a
bit (``LINK_BIT``); a move keeps a bitmask of used links (fits in 60 bits, so
in an int64 once the hot paths are ported to numba). The links to the goals
need no bit: stepping into a goal ends the move.

Action ids (``num_distinct_actions = 49_375``):

* ``0..89``: setup arrangements (index into :data:`ARRANGEMENTS`);
* ``90 + (start * 37 + end) * 37 + drop``: a move, with ``end == GOAL`` (36)
  for a move into the opponent's goal and ``drop == NO_DROP`` (36) when nothing
  is replaced;
* :data:`PASS`: the beginner variant's pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

SIZE = 6
NSQ = 36
SOUTH, NORTH = 0, 1

#: ``end`` index of a move into the opponent's goal.
GOAL = 36
#: ``drop`` index of a move without replace.
NO_DROP = 36

#: Rows (0-based) and files (0-based) of the squares.
ROW = tuple(i // SIZE for i in range(NSQ))
COL = tuple(i % SIZE for i in range(NSQ))

#: The row index a mover must stand on to step into the opponent's goal.
GOAL_ROW = (5, 0)  # South aims at the goal behind row 6, North behind row 1
#: Each side's home row index.
HOME_ROW = (0, 5)

#: All arrangements of one piece set (two 1s, two 2s, two 3s), sorted as strings.
ARRANGEMENTS: tuple[str, ...] = tuple(sorted({"".join(p) for p in permutations("112233")}))
ARRANGEMENT_INDEX = {a: i for i, a in enumerate(ARRANGEMENTS)}
NUM_ARRANGEMENTS = len(ARRANGEMENTS)  # 90
#: The preset arrangements every variant offers.
PRESETS: tuple[str, ...] = ("321123", "123321", "231132", "312213")

MOVE_BASE = NUM_ARRANGEMENTS
PASS = MOVE_BASE + NSQ * 37 * 37
NUM_ACTIONS = PASS + 1


def square(row: int, col: int) -> int:
    return row * SIZE + col


def _links() -> dict[tuple[int, int], int]:
    bits: dict[tuple[int, int], int] = {}
    n = 0
    for sq in range(NSQ):
        r, c = ROW[sq], COL[sq]
        for nr, nc in ((r, c + 1), (r + 1, c)):
            if nr < SIZE and nc < SIZE:
                other = square(nr, nc)
                bits[(sq, other)] = bits[(other, sq)] = 1 << n
                n += 1
    assert n == 60
    return bits


#: ``LINK_BIT[(a, b)]``: the bit of the link between adjacent squares a and b (either order).
LINK_BIT: dict[tuple[int, int], int] = _links()

#: ``NEIGHBORS[sq]``: tuple of ``(neighbour, link bit)`` in the order up, right, down, left
#: (up = towards row 6).
NEIGHBORS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(
        (square(nr, nc), LINK_BIT[(sq, square(nr, nc))])
        for nr, nc in ((ROW[sq] + 1, COL[sq]), (ROW[sq], COL[sq] + 1), (ROW[sq] - 1, COL[sq]), (ROW[sq], COL[sq] - 1))
        if 0 <= nr < SIZE and 0 <= nc < SIZE
    )
    for sq in range(NSQ)
)


def encode_move(start: int, end: int, drop: int = NO_DROP) -> int:
    return MOVE_BASE + (start * 37 + end) * 37 + drop


def decode_move(action: int) -> tuple[int, int, int]:
    """``(start, end, drop)`` of a move action (``end == GOAL`` / ``drop == NO_DROP`` as above)."""
    x = action - MOVE_BASE
    se, drop = divmod(x, 37)
    start, end = divmod(se, 37)
    return start, end, drop


#: Mirror image a<->f of each square.
MIRROR_SQ = tuple(square(ROW[i], SIZE - 1 - COL[i]) for i in range(NSQ))


def mirror_board(board: Sequence[int]) -> list[int]:
    """The board mirrored files a<->f."""
    return [board[MIRROR_SQ[i]] for i in range(NSQ)]


def mirror_action(action: int) -> int:
    """The action mirrored files a<->f (arrangements are reversed, pass stays pass)."""
    if action < MOVE_BASE:
        return ARRANGEMENT_INDEX[ARRANGEMENTS[action][::-1]]
    if action == PASS:
        return PASS
    s, e, d = decode_move(action)
    return encode_move(MIRROR_SQ[s], e if e == GOAL else MIRROR_SQ[e], d if d == NO_DROP else MIRROR_SQ[d])
