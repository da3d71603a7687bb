"""YINSH rules: placement, ring moves, rows, removals, game end.

Rules source: ``shared/rules/yinsh.md`` (sections *Play*, *End of game*,
*Decisions as atomic actions*).

The state is compact: ``board`` is a list of 85 small ints (see
:data:`EMPTY` ...), ring positions are kept per player, and every change is
undone from an undo stack (no copies of the board).

>>> from ringgames import load_game
>>> s = load_game("yinsh").new_initial_state()
>>> for a in "e3 a5 b5 c6 d6 e4 h7 g2 g3 g8".split(): _ = s.play(a)
>>> s.phase, s.current_player(), len(s.legal_actions())
('move', 0, 86)
>>> _ = s.play("h7-g7"); s.pool
50
"""

from __future__ import annotations

import functools
from typing import ClassVar

import numpy as np

from ...kernel_state import KernelState
from ...protocol import TERMINAL, Game, NotationError, Outcome, Reason, Symmetry, stable_key
from ...rng import seed_state
from ...textbounds import excerpt
from . import kernel as K
from .board import BETWEEN, NUM_POINTS, POINT_NAMES, SYMMETRIES, WINDOW_ID, WINDOWS, window_of
from .kernel import MOVE, NUM_ACTIONS, PASS, PLACE, RING, ROW
from .notation import parse_action_text, parse_position, point_name

__all__ = [
    "YinshGame",
    "YinshState",
    "EMPTY",
    "WHITE_MARKER",
    "BLACK_MARKER",
    "WHITE_RING",
    "BLACK_RING",
    "PLACE",
    "MOVE",
    "ROW",
    "RING",
    "PASS",
    "NUM_ACTIONS",
]

# Point contents. Marker of player p is 1 + p, ring of player p is 3 + p.
EMPTY, WHITE_MARKER, BLACK_MARKER, WHITE_RING, BLACK_RING = 0, 1, 2, 3, 4
RINGS_PER_PLAYER = 5
TOTAL_MARKERS = K.TOTAL_MARKERS
_PHASE_CODE = {name: i for i, name in enumerate(K.PHASE_NAMES)}
_MOVER_PHASES = (_PHASE_CODE["row"], _PHASE_CODE["ring"])  # the phases whose position string shows the mover


class YinshGame(Game):
    """YINSH: ``variant`` is ``"standard"`` (3 rings to win) or ``"blitz"`` (1 ring).

    Seats: 0 = White (moves first), 1 = Black.
    """

    name: ClassVar[str] = "yinsh"
    title: ClassVar[str] = "YINSH"
    variants: ClassVar[tuple[str, ...]] = ("standard", "blitz")

    @property
    def seat_names(self) -> tuple[str, ...]:
        return ("white", "black")

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def rings_to_win(self) -> int:
        return 1 if self.variant == "blitz" else 3

    def new_initial_state(self) -> YinshState:
        return YinshState(self)

    def state_from_position(self, position: str) -> YinshState:
        """A state from a position string (see :mod:`.notation`). Raises NotationError."""
        board, actor, phase, removed, mover, passes = parse_position(position)
        if any(r >= self.rings_to_win for r in removed) and phase != "over":
            raise NotationError(f"position: a player has already removed {max(removed)} rings")
        rings = [[p for p in range(NUM_POINTS) if board[p] == WHITE_RING], [p for p in range(NUM_POINTS) if board[p] == BLACK_RING]]
        markers = sum(1 for v in board if v in (WHITE_MARKER, BLACK_MARKER))
        if markers > TOTAL_MARKERS:
            raise NotationError(f"position: {markers} markers on the board, more than {TOTAL_MARKERS}")
        if any(len(rings[p]) + removed[p] > RINGS_PER_PLAYER for p in (0, 1)):
            raise NotationError("position: more than 5 rings for one player")
        placed = len(rings[0]) + len(rings[1]) + removed[0] + removed[1]
        if phase == "place" and placed >= 2 * RINGS_PER_PLAYER:
            raise NotationError("position: placement phase with all 10 rings placed")
        if phase in ("move", "row", "ring") and placed < 2 * RINGS_PER_PLAYER:
            raise NotationError(f"position: phase {phase!r} before all rings are placed")
        st = YinshState(self)
        a = st.s
        a[:NUM_POINTS] = board
        for p in (0, 1):
            for i, q in enumerate(rings[p]):
                a[K.RINGS + 5 * p + i] = q
        a[K.ACTOR] = actor
        a[K.MOVER] = actor if mover is None else mover
        a[K.PHASE] = _PHASE_CODE[phase]
        a[K.PASSES] = passes
        a[K.PLACED] = placed
        a[K.MARKERS] = markers
        a[K.REMOVED], a[K.REMOVED + 1] = removed
        K.scan_rows(a)
        if phase == "row" and not st._scan_rows(actor):
            raise NotationError("position: phase 'row' but the player has no row")
        # [project decision] rows are removed as soon as a move makes them (rules, *Rows*): a position to
        # move or place with a completed row cannot arise, and who would resolve it first is not in the
        # string (the mover is); it is refused, with the phase to write instead
        if phase in ("place", "move"):
            for p in (0, 1):
                rows = st._scan_rows(p)
                if rows:
                    ends = WINDOWS[rows[0]]
                    raise NotationError(
                        f"position: {self.seat_names[p]} has a completed row ({point_name(ends[0])}-{point_name(ends[4])})"
                        f" in phase {phase!r}; rows are removed before the next move: write phase 'row' with"
                        " the mover who made it"
                    )
        # the mover resolves all their rows before the opponent resolves theirs
        if phase in ("row", "ring") and mover is not None and actor != mover:
            rows = st._scan_rows(mover)
            if rows:
                raise NotationError(
                    f"position: {self.seat_names[actor]} is removing while the mover ({self.seat_names[mover]}) "
                    "still has a row; the mover removes their rows first"
                )
        if phase == "over":
            K.final_outcome(a, K.R_RINGS if max(removed) >= self.rings_to_win else K.R_MARKERS)
            if max(removed) >= self.rings_to_win:
                a[K.WINNER] = 0 if removed[0] > removed[1] else 1
        st._start = st.position()
        return st

    # -- research --------------------------------------------------------
    def max_game_length(self) -> int:
        """174 actions (blitz: 126), from the rules: 10 placements; every ring move puts one
        more marker on the board, every removed row takes 5 off, and the game ends once
        51 are on it, so ring moves M <= 51 + 5R for R rows removed (R <= 5: the third ring
        removed wins; blitz R <= 1); a pass is never followed by a pass except at the end,
        so passes <= M + 2; each row is 2 actions (row, ring). Total <= 10 + 2M + 2 + 2R
        = 114 + 12R."""
        return 114 + 12 * (5 if self.rings_to_win == 3 else 1)

    def observation_shape(self) -> tuple[int, ...]:
        from .observation import SHAPE

        return SHAPE

    def observation_planes(self) -> tuple[tuple[str, str], ...]:
        from .observation import PLANES

        return PLANES

    def symmetries(self) -> list[Symmetry]:
        return _symmetries()

    def perft_benchmark(self) -> tuple[YinshState, int]:
        """After the reference placement of the rules (White to move), depth 3: 486,978 nodes."""
        s = self.new_initial_state()
        for a in "e3 a5 b5 c6 d6 e4 h7 g2 g3 g8".split():
            s.play(a)
        return s, 3


class YinshState(KernelState):
    """A YINSH position with its history. Seats: 0 = White, 1 = Black.

    The position lives in one int32 array (``self.s``, layout in :mod:`.kernel`);
    the rules run in the compiled kernel. Undo records are copies of that array.
    """

    __slots__ = ()
    kernel = K
    max_legal = K.MAX_LEGAL
    game: YinshGame

    def __init__(self, game: YinshGame):
        self._init_kernel_state(game, K.new_state(game.rings_to_win))

    # -- read-only views of the position ---------------------------------
    @property
    def board(self) -> np.ndarray:
        """The 85 points (0 empty, 1/2 white/black marker, 3/4 white/black ring), a view."""
        return self.s[:NUM_POINTS]

    @property
    def rings(self) -> list[list[int]]:
        """Ring points per player."""
        r = self.s[K.RINGS : K.RINGS + 10].tolist()
        return [[p for p in r[:5] if p >= 0], [p for p in r[5:] if p >= 0]]

    @property
    def removed(self) -> list[int]:
        """Rings removed (scored) by White and Black."""
        return [int(self.s[K.REMOVED]), int(self.s[K.REMOVED + 1])]

    @property
    def markers(self) -> int:
        return int(self.s[K.MARKERS])

    @property
    def pool(self) -> int:
        """Markers left in the pool."""
        return TOTAL_MARKERS - int(self.s[K.MARKERS])

    @property
    def placed(self) -> int:
        return int(self.s[K.PLACED])

    @property
    def actor(self) -> int:
        return int(self.s[K.ACTOR])

    @property
    def mover(self) -> int:
        return int(self.s[K.MOVER])

    @property
    def phase(self) -> str:
        """``place``, ``move``, ``row``, ``ring`` or ``over``."""
        return K.PHASE_NAMES[self.s[K.PHASE]]

    @property
    def passes(self) -> int:
        return int(self.s[K.PASSES])

    @property
    def pending(self) -> list[list[int]]:
        """Candidate row windows per player found after the last move (ascending; some may be broken since)."""
        s = self.s
        return [
            [w for w in range(len(WINDOWS)) if s[K.PEND + K.PEND_WORDS * p + w // K.WBITS] >> (w % K.WBITS) & 1]
            for p in (0, 1)
        ]

    def _scan_rows(self, player: int) -> list[int]:
        colour = 1 + player
        b = self.s
        return [w for w, pts in enumerate(WINDOWS) if all(b[q] == colour for q in pts)]

    # -- protocol (legal actions, apply/undo, clone, perft: KernelState) --
    def current_player(self) -> int:
        if self.s[K.WINNER] != K.ONGOING or self._agreed or self._resigned:
            return TERMINAL
        return int(self.s[K.ACTOR])

    def _rules_outcome(self) -> Outcome | None:
        w = self.s[K.WINNER]
        if w == K.ONGOING:
            return None
        return Outcome(() if w == K.DRAW else (int(w),), Reason(K.REASON_NAMES[self.s[K.REASON]]))

    def _observation(self, player: int) -> np.ndarray:
        from .observation import observation

        return observation(self, player)

    def hash_key(self) -> int:
        """An unsigned 64-bit key of the position (equal positions, equal keys; stable across processes).

        Made of what :meth:`position` shows (board, player to decide, phase, passes, rings removed, the
        mover while rows and rings are removed) plus the result and the candidate rows (a bit set): not of
        the ring slots (their order depends on the history), the counts derived from the board, or the
        mover outside those phases.
        """
        s = self.s
        fields = s[K.ACTOR : K.PEND].copy()  # ACTOR MOVER PHASE PASSES PLACED MARKERS REMOVED(2) WINNER REASON WIN_AT
        fields[K.PLACED - K.ACTOR] = fields[K.MARKERS - K.ACTOR] = 0
        if s[K.PHASE] not in _MOVER_PHASES:
            fields[K.MOVER - K.ACTOR] = -1
        key = s[:NUM_POINTS].tobytes() + fields.tobytes()
        pending = s[K.PEND : K.SIZE]  # the candidate rows: a bit set per colour, so already a set
        if pending.any():
            key += b"|" + pending.tobytes()
        return stable_key(key)

    # -- notation --------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        """``e3`` place, ``h7-g7`` move, ``xg5-g9`` row, ``xa5`` ring, ``pass``."""
        return action_string(action)

    def _parse_action(self, text: str) -> int:
        kind, pts = parse_action_text(text)
        if kind == "place":
            return PLACE + pts[0]
        if kind == "move":
            if BETWEEN[pts[0]][pts[1]] is None:
                raise NotationError(f"{excerpt(text)}: {point_name(pts[0])} and {point_name(pts[1])} are not on one line")
            return MOVE + pts[0] * NUM_POINTS + pts[1]
        if kind == "row":
            w = window_of(pts[0], pts[1])
            if w is None:
                raise NotationError(f"{excerpt(text)}: a row's end points must be 4 steps apart on one line")
            return ROW + w
        if kind == "ring":
            return RING + pts[0]
        return PASS

    def position(self) -> str:
        """The position string; see :mod:`.notation`."""
        from .notation import format_position

        phase = self.phase
        return format_position(self.board, self.actor, phase, self.removed,
                               self.mover if phase in ("row", "ring") else None, self.passes)

    # -- extras ------------------------------------------------------------
    def summary(self) -> dict[str, int]:
        return {
            "rings_removed_white": int(self.s[K.REMOVED]),
            "rings_removed_black": int(self.s[K.REMOVED + 1]),
            "ring_moves": sum(1 for a in self._history if MOVE <= a < ROW),
        }

    def render(self) -> str:
        from .notation import render

        return render(self)

    def transformed(self, k: int) -> YinshState:
        """The position under board symmetry ``k`` (0..11), without history.

        Symmetry 0 is the identity; the others rotate and reflect about F6.
        """
        sym = SYMMETRIES[k]
        t = self.game.new_initial_state()
        a, b = self.s, t.s
        b[:] = a
        for p in range(NUM_POINTS):
            b[sym[p]] = a[p]
        for i in range(10):
            r = a[K.RINGS + i]
            b[K.RINGS + i] = sym[r] if r >= 0 else -1
        b[K.PEND : K.PEND + 2 * K.PEND_WORDS] = 0
        for p, windows in enumerate(self.pending):
            for w in windows:
                v = transform_window(w, k)
                b[K.PEND + K.PEND_WORDS * p + v // K.WBITS] |= 1 << (v % K.WBITS)
        t._start = t.position()
        return t

    def random_playouts(self, count: int, seed: int = 0) -> dict[str, np.ndarray]:
        """``count`` uniformly random playouts from this position, run in the kernel; game i is
        the playout with seed ``seed + i`` (:mod:`ringgames.rng`).

        Returns arrays of length ``count``: ``winner`` (-1 draw, 0 White, 1 Black),
        ``reason`` (1 rings, 2 markers, 3 blocked), ``length`` (actions played) and
        ``removed`` (shape (count, 2)) and ``returns`` (shape (count, 2), +1/-1/0 per seat).
        """
        if self.is_terminal():
            raise ValueError("the game is over")
        winners = np.empty(count, np.int32)
        reasons = np.empty(count, np.int32)
        lengths = np.empty(count, np.int32)
        removed = np.empty((count, 2), np.int32)
        K.playouts(self.s, count, seed_state(seed), winners, reasons, lengths, removed)
        white = np.where(winners == 0, 1.0, np.where(winners == 1, -1.0, 0.0))
        return {"winner": winners, "reason": reasons, "length": lengths, "removed": removed,
                "returns": np.stack([white, -white], axis=1)}


@functools.lru_cache(maxsize=1)
def _symmetries() -> list[Symmetry]:
    from .observation import symmetries

    return symmetries()


def transform_window(w: int, k: int) -> int:
    sym = SYMMETRIES[k]
    pts = WINDOWS[w]
    image = window_of(sym[pts[0]], sym[pts[4]])
    assert image is not None  # a symmetry maps each window onto a window
    return image


def transform_action(action: int, k: int) -> int:
    """The action under board symmetry ``k`` (see :meth:`YinshState.transformed`)."""
    sym = SYMMETRIES[k]
    if action < MOVE:
        return PLACE + sym[action]
    if action < ROW:
        a, b = divmod(action - MOVE, NUM_POINTS)
        return MOVE + sym[a] * NUM_POINTS + sym[b]
    if action < RING:
        return ROW + transform_window(action - ROW, k)
    if action < PASS:
        return RING + sym[action - RING]
    return action


def action_string(action: int) -> str:
    """Notation of an action id (no state needed)."""
    if action < MOVE:
        return POINT_NAMES[action]
    if action < ROW:
        a, b = divmod(action - MOVE, NUM_POINTS)
        return f"{POINT_NAMES[a]}-{POINT_NAMES[b]}"
    if action < RING:
        pts = WINDOWS[action - ROW]
        return f"x{POINT_NAMES[pts[0]]}-{POINT_NAMES[pts[4]]}"
    if action < PASS:
        return "x" + POINT_NAMES[action - RING]
    if action == PASS:
        return "pass"
    raise ValueError(f"no YINSH action {action}")


# keep WINDOW_ID importable from here for users of the action layout
ROW_WINDOW_ID = WINDOW_ID
