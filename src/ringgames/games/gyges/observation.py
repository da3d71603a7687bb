"""Gygès observation tensor and the board's mirror symmetry (for learning agents; no I/O).

The 6 x 6 board is seen from the observer's side: height index 0 is the observer's
home row (row 1 for South, row 6 for North) and index 5 the row in front of the goal
the observer aims at; width = files a..f (not mirrored: the rules are symmetric left to
right). Pieces belong to nobody, so the board planes are by height (rings). The
table is :data:`PLANES` (and ``docs/research.md``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...protocol import Symmetry
from . import kernel as K
from .board import GOAL, MOVE_BASE, NSQ, NUM_ACTIONS, PASS, SIZE, decode_move, encode_move, mirror_action, mirror_board
from .notation import format_position, parse_position

if TYPE_CHECKING:
    from .state import GygesState

__all__ = ["PLANES", "SHAPE", "north_actions", "observation", "symmetries"]

PLANES: tuple[tuple[str, str], ...] = (
    ("height1", "1 on squares holding a piece with 1 ring"),
    ("height2", "1 on squares holding a piece with 2 rings"),
    ("height3", "1 on squares holding a piece with 3 rings"),
    ("to_move", "constant: 1 if the observer decides now"),
    ("is_north", ("constant: 1 if the observer is North (whose goal: South aims past row 6, North past row 1;"
                  " the board is turned so that the observer always aims past height index 5)")),
    ("setup", "constant: 1 while piece sets are still to be placed (the first two actions)"),
    ("repeated", "constant: 1 if the current position has occurred once before (a third time ends the game)"),
    ("replace", "constant: 1 in the standard variant (replace allowed), 0 in the beginner variant"),
)
SHAPE = (len(PLANES), SIZE, SIZE)
_P = {name: i for i, (name, _) in enumerate(PLANES)}

#: _FLIP[sq]: the square seen from North (rows reversed).
_FLIP = np.array([(SIZE - 1 - sq // SIZE) * SIZE + sq % SIZE for sq in range(NSQ)], dtype=np.int64)


def observation(state: GygesState, player: int) -> np.ndarray:
    """The observation of a :class:`~.state.GygesState` for seat ``player`` (0 South, 1 North)."""
    s = state.s
    out = np.zeros((SHAPE[0], NSQ), dtype=np.float32)
    board = s[:NSQ]
    cells = _FLIP if player == 1 else np.arange(NSQ)
    for h in (1, 2, 3):
        out[_P["height1"] + h - 1, cells] = board == h
    if state.current_player() == player:
        out[_P["to_move"]] = 1.0
    if player == 1:
        out[_P["is_north"]] = 1.0
    if s[K.PHASE] != K.PLAY:
        out[_P["setup"]] = 1.0
    if s[K.PHASE] == K.PLAY and s[K.REPS] >= 2:
        out[_P["repeated"]] = 1.0
    if s[K.REPLACE]:
        out[_P["replace"]] = 1.0
    return out.reshape(SHAPE)


def north_actions() -> np.ndarray:
    """``perm[a]``: action a with the rows reversed (row r <-> row 7 - r), as North's observation
    shows the board; arrangements and pass stay (North's set goes on its own home row). Its own
    inverse."""
    perm = np.arange(NUM_ACTIONS, dtype=np.int64)
    flip = _FLIP.tolist() + [GOAL]
    for a in range(MOVE_BASE, PASS):
        s, e, d = decode_move(a)
        perm[a] = encode_move(flip[s], flip[e], flip[d])
    return perm


def _same_position(position: str) -> str:
    return position


def _mirror_position(position: str) -> str:
    board, side = parse_position(position)
    return format_position(mirror_board(board), side)


def symmetries() -> list[Symmetry]:
    """The identity and the mirror a<->f (files reversed, in both players' views)."""
    ident = Symmetry("identity", np.arange(NUM_ACTIONS, dtype=np.int64), np.arange(NSQ, dtype=np.int64), _same_position)
    cells = np.array([(sq // SIZE) * SIZE + SIZE - 1 - sq % SIZE for sq in range(NSQ)], dtype=np.int64)
    actions = np.array([mirror_action(a) for a in range(NUM_ACTIONS)], dtype=np.int64)
    return [ident, Symmetry("mirror", actions, cells, _mirror_position)]
