"""YINSH observation tensor and board symmetries (for learning agents; no I/O).

The board is drawn on an 11 x 11 grid: height = row 1..11 (index 0 is row 1), width =
column A..K; the 85 points are 85 of its 121 cells (plane ``on_board``), the other
cells are 0 in the board planes. Every plane is from the observer's perspective
("own" = the observing seat); per-position numbers (phase, counts) are constant planes.
The table is :data:`PLANES` (and ``docs/research.md``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from ...protocol import Symmetry
from . import kernel as K
from .board import NUM_POINTS, POINTS, SYMMETRIES, WINDOWS
from .notation import format_position, parse_position

if TYPE_CHECKING:
    from .state import YinshState

__all__ = ["PLANES", "SHAPE", "CELL", "observation", "symmetries"]

#: (name, meaning) of each plane, in order.
PLANES: tuple[tuple[str, str], ...] = (
    ("own_rings", "1 where the observer has a ring"),
    ("opp_rings", "1 where the opponent has a ring"),
    ("own_markers", "1 where a marker shows the observer's colour"),
    ("opp_markers", "1 where a marker shows the opponent's colour"),
    ("on_board", "1 on the 85 points of the board"),
    ("own_rows", "1 on the points of the observer's rows still to be removed (phases row and ring)"),
    ("opp_rows", "1 on the points of the opponent's rows still to be removed"),
    ("phase_place", "constant: 1 in the placement phase"),
    ("phase_move", "constant: 1 when a ring move (or pass) is due"),
    ("phase_row", "constant: 1 when a row is to be chosen for removal"),
    ("phase_ring", "constant: 1 when a ring is to be removed"),
    ("to_move", "constant: 1 if the observer decides now"),
    ("started_turn", "constant: 1 in phases row/ring if the observer made the move that started this turn"),
    ("own_removed", "constant: rings the observer has removed / rings needed to win"),
    ("opp_removed", "constant: rings the opponent has removed / rings needed to win"),
    ("pool", "constant: markers left in the pool / 51"),
    ("passed", "constant: 1 if the last action was a pass (a second pass ends the game)"),
    ("blitz", "constant: 1 in the blitz variant (1 ring wins)"),
    ("is_white", "constant: 1 if the observer is White (moves first)"),
)
SHAPE = (len(PLANES), 11, 11)
_P = {name: i for i, (name, _) in enumerate(PLANES)}

#: CELL[p]: the flat grid cell (row index * 11 + column index) of point p.
CELL = np.array([(r - 1) * 11 + c for c, r in POINTS], dtype=np.int64)
_WIN = np.array(WINDOWS, dtype=np.int64)


def observation(state: YinshState, player: int) -> np.ndarray:
    """The observation of a :class:`~.state.YinshState` for seat ``player`` (0 White, 1 Black)."""
    s = state.s
    out = np.zeros((SHAPE[0], 121), dtype=np.float32)
    board = s[:NUM_POINTS]
    me, opp = player, 1 - player
    out[_P["own_rings"], CELL] = board == 3 + me
    out[_P["opp_rings"], CELL] = board == 3 + opp
    out[_P["own_markers"], CELL] = board == 1 + me
    out[_P["opp_markers"], CELL] = board == 1 + opp
    out[_P["on_board"], CELL] = 1.0
    phase = int(s[K.PHASE])
    for plane, p in (("own_rows", me), ("opp_rows", opp)):
        words = s[K.PEND + K.PEND_WORDS * p : K.PEND + K.PEND_WORDS * (p + 1)]
        if words.any():
            wins = np.array(
                [k * K.WBITS + b for k, word in enumerate(words) for b in range(K.WBITS) if int(word) >> b & 1],
                dtype=np.int64,
            )
            pts = _WIN[wins]
            intact = (board[pts] == 1 + p).all(axis=1)
            out[_P[plane], CELL[pts[intact].ravel()]] = 1.0
    if phase < 4:
        out[_P["phase_place"] + phase] = 1.0
    if state.current_player() == me:
        out[_P["to_move"]] = 1.0
    if phase in (K.PH_ROW, K.PH_RING) and int(s[K.MOVER]) == me:
        out[_P["started_turn"]] = 1.0
    win_at = float(s[K.WIN_AT])
    out[_P["own_removed"]] = s[K.REMOVED + me] / win_at
    out[_P["opp_removed"]] = s[K.REMOVED + opp] / win_at
    out[_P["pool"]] = (K.TOTAL_MARKERS - s[K.MARKERS]) / K.TOTAL_MARKERS
    if s[K.PASSES] > 0:
        out[_P["passed"]] = 1.0
    if win_at == 1:
        out[_P["blitz"]] = 1.0
    if me == 0:
        out[_P["is_white"]] = 1.0
    return out.reshape(SHAPE)


def _map_position(k: int, position: str) -> str:
    """The position string under board symmetry ``k``."""
    sym = SYMMETRIES[k]
    board, actor, phase, removed, mover, passes = parse_position(position)
    new = [0] * NUM_POINTS
    for p in range(NUM_POINTS):
        new[sym[p]] = board[p]
    return format_position(new, actor, phase, removed, mover, passes)


def symmetries() -> list[Symmetry]:
    """The 12 symmetries of the board (rotations by 60 degrees about F6, and their reflections);
    the identity first. Names: ``rot0``..``rot300``, ``mirror+rot0``..``mirror+rot300``."""
    from .state import transform_action

    out = []
    for k in range(12):
        cells = np.arange(121, dtype=np.int64)
        cells[CELL] = CELL[np.array(SYMMETRIES[k])]
        actions = np.array([transform_action(a, k) for a in range(K.NUM_ACTIONS)], dtype=np.int64)
        name = ("mirror+" if k >= 6 else "") + f"rot{60 * (k % 6)}"
        out.append(Symmetry(name, actions, cells, functools.partial(_map_position, k)))
    return out
