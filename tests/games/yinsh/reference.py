"""A slow, pure-Python YINSH engine kept ONLY as a test oracle for the compiled kernel.

It was the first implementation of the rules; the differential tests check that the
kernel-backed YinshState agrees with it on legal actions, successor positions and results.

Original docstring: YINSH rules: placement, ring moves, rows, removals, game end.

Rules source: ``shared/rules/yinsh.md`` (sections *Play*, *End of game*,
*Decisions as atomic actions*).

The state is compact: ``board`` is a list of 85 small ints (see
:data:`EMPTY` ...), ring positions are kept per player, and every change is
undone from an undo stack (no copies of the board).

"""

from __future__ import annotations

from typing import ClassVar

from ringgames.games.yinsh.board import (
    BETWEEN,
    NUM_POINTS,
    POINT_NAMES,
    RAYS,
    SYMMETRIES,
    WINDOW_ID,
    WINDOWS,
    WINDOWS_THROUGH,
    window_of,
)
from ringgames.games.yinsh.notation import parse_action_text, parse_position, point_name
from ringgames.protocol import TERMINAL, Game, NotationError, Outcome, State

__all__ = [
    "ReferenceYinshGame",
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
TOTAL_MARKERS = 51

# Action id layout.
PLACE = 0  # PLACE + point
MOVE = PLACE + NUM_POINTS  # MOVE + from * 85 + to
ROW = MOVE + NUM_POINTS * NUM_POINTS  # ROW + window index
RING = ROW + len(WINDOWS)  # RING + point
PASS = RING + NUM_POINTS
NUM_ACTIONS = PASS + 1

# Phases.
PH_PLACE, PH_MOVE, PH_ROW, PH_RING, PH_OVER = "place", "move", "row", "ring", "over"


class ReferenceYinshGame(Game):
    """YINSH: ``variant`` is ``"standard"`` (3 rings to win) or ``"blitz"`` (1 ring).

    Seats: 0 = White (moves first), 1 = Black.
    """

    name: ClassVar[str] = "yinsh"  # same name: positions and records are interchangeable
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
        s = YinshState(self)
        board, actor, phase, removed, mover, passes = parse_position(position)
        if any(r >= self.rings_to_win for r in removed) and phase != PH_OVER:
            raise NotationError(f"position: a player has already removed {max(removed)} rings")
        s.board = board
        s.rings = [[p for p in range(NUM_POINTS) if board[p] == WHITE_RING], [p for p in range(NUM_POINTS) if board[p] == BLACK_RING]]
        s.markers = sum(1 for v in board if v in (WHITE_MARKER, BLACK_MARKER))
        if s.markers > TOTAL_MARKERS:
            raise NotationError(f"position: {s.markers} markers on the board, more than {TOTAL_MARKERS}")
        s.removed = list(removed)
        s.placed = len(s.rings[0]) + len(s.rings[1]) + removed[0] + removed[1]
        if any(len(s.rings[p]) + removed[p] > RINGS_PER_PLAYER for p in (0, 1)):
            raise NotationError("position: more than 5 rings for one player")
        s.actor, s.phase, s.passes = actor, phase, passes
        s.mover = actor if mover is None else mover
        if phase == PH_PLACE and s.placed >= 2 * RINGS_PER_PLAYER:
            raise NotationError("position: placement phase with all 10 rings placed")
        if phase in (PH_MOVE, PH_ROW, PH_RING) and s.placed < 2 * RINGS_PER_PLAYER:
            raise NotationError(f"position: phase {phase!r} before all rings are placed")
        s.pending = [s._scan_rows(0), s._scan_rows(1)]
        if phase == PH_ROW and not s.pending[actor]:
            raise NotationError("position: phase 'row' but the player has no row")
        if phase == PH_OVER:
            s._over = s._final_outcome("rings" if max(removed) >= self.rings_to_win else "markers")
        s._start = s.position()
        return s


class YinshState(State):
    """A YINSH position with its history. Seats: 0 = White, 1 = Black."""

    __slots__ = (
        "game", "board", "rings", "removed", "placed", "markers", "actor", "mover", "phase", "passes",
        "pending", "_over", "_history", "_undo", "_resigned", "_agreed", "_start", "_win",
    )

    def __init__(self, game: ReferenceYinshGame):
        self.game = game
        self._win = game.rings_to_win
        self.board = [EMPTY] * NUM_POINTS
        self.rings = [[], []]  # ring points per player
        self.removed = [0, 0]  # rings removed (scored) per player
        self.placed = 0  # rings placed so far (0..10)
        self.markers = 0  # markers on the board
        self.actor = 0  # player to decide
        self.mover = 0  # player whose move started the current turn
        self.phase = PH_PLACE
        self.passes = 0  # consecutive passes just played
        self.pending = [[], []]  # candidate row windows per player after the last move
        self._over: Outcome | None = None
        self._history: list[int] = []
        self._undo: list[tuple] = []
        self._resigned: list[int] = []
        self._agreed = False
        self._start = None

    # -- protocol --------------------------------------------------------
    @property
    def history(self) -> list[int]:
        return self._history

    @property
    def pool(self) -> int:
        """Markers left in the pool."""
        return TOTAL_MARKERS - self.markers

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.actor

    def _rules_outcome(self) -> Outcome | None:
        return self._over

    def legal_actions(self) -> list[int]:
        if self._over is not None or self._agreed or self._resigned:
            return []
        phase = self.phase
        board = self.board
        if phase == PH_MOVE:
            out = self._ring_moves(self.actor)
            return out if out else [PASS]
        if phase == PH_PLACE:
            return [p for p in range(NUM_POINTS) if board[p] == EMPTY]
        if phase == PH_ROW:
            return [ROW + w for w in self._rows_now(self.actor)]
        if phase == PH_RING:
            return sorted(RING + p for p in self.rings[self.actor])
        return []

    def _ring_moves(self, player: int) -> list[int]:
        board = self.board
        out = []
        for a in sorted(self.rings[player]):
            base = MOVE + a * NUM_POINTS
            for ray in RAYS[a]:
                jumped = False
                for q in ray:
                    v = board[q]
                    if v == EMPTY:
                        out.append(base + q)
                        if jumped:
                            break
                    elif v <= BLACK_MARKER:
                        jumped = True
                    else:
                        break
        out.sort()
        return out

    def has_ring_move(self, player: int) -> bool:
        board = self.board
        for a in self.rings[player]:
            for ray in RAYS[a]:
                if ray and board[ray[0]] != WHITE_RING and board[ray[0]] != BLACK_RING:
                    for q in ray:
                        v = board[q]
                        if v == EMPTY:
                            return True
                        if v > BLACK_MARKER:
                            break
        return False

    def _rows_now(self, player: int) -> list[int]:
        board = self.board
        colour = 1 + player
        return [w for w in self.pending[player] if all(board[q] == colour for q in WINDOWS[w])]

    def _scan_rows(self, player: int) -> list[int]:
        board = self.board
        colour = 1 + player
        return [w for w, pts in enumerate(WINDOWS) if all(board[q] == colour for q in pts)]

    def apply_action(self, action: int) -> None:
        board = self.board
        actor = self.actor
        self._undo.append((self.actor, self.mover, self.phase, self.passes, self.pending, self._over))
        self._history.append(action)
        if action < MOVE:  # place a ring
            board[action] = 3 + actor
            self.rings[actor].append(action)
            self.placed += 1
            self.actor = 1 - actor
            if self.placed == 2 * RINGS_PER_PLAYER:
                self.mover = 1  # so that White starts the movement phase
                self._start_turn(0)
        elif action < ROW:  # move a ring
            a, b = divmod(action - MOVE, NUM_POINTS)
            board[a] = 1 + actor
            board[b] = 3 + actor
            ring_list = self.rings[actor]
            ring_list[ring_list.index(a)] = b
            self.markers += 1
            changed = [a]
            for q in BETWEEN[a][b]:
                v = board[q]
                if v:  # a marker: flip it
                    board[q] = 3 - v
                    changed.append(q)
            self.passes = 0
            self.mover = actor
            # candidate rows: windows through a changed point, per colour
            seen = set()
            rows = ([], [])
            for q in changed:
                for w in WINDOWS_THROUGH[q]:
                    if w in seen:
                        continue
                    seen.add(w)
                    pts = WINDOWS[w]
                    c = board[pts[0]]
                    if c == WHITE_MARKER or c == BLACK_MARKER:
                        if board[pts[1]] == c and board[pts[2]] == c and board[pts[3]] == c and board[pts[4]] == c:
                            rows[c - 1].append(w)
            self.pending = [sorted(rows[0]), sorted(rows[1])]
            self._after_resolution(actor)
        elif action < RING:  # remove a row
            for q in WINDOWS[action - ROW]:
                board[q] = EMPTY
            self.markers -= 5
            self.phase = PH_RING
        elif action < PASS:  # remove a ring
            p = action - RING
            board[p] = EMPTY
            self.rings[actor].remove(p)
            self.removed[actor] += 1
            if self.removed[actor] >= self._win:
                self._over = Outcome((actor,), "rings")
                self.phase = PH_OVER
            else:
                self._after_resolution(actor)
        else:  # pass
            self.passes += 1
            self.mover = actor
            if self.passes >= 2:
                self._over = self._final_outcome("blocked")
                self.phase = PH_OVER
            else:
                self._start_turn(1 - actor)

    def _after_resolution(self, player: int) -> None:
        """After a move or a ring removal by ``player``: next pending row, or the next turn."""
        mover = self.mover
        if self._rows_now(player):
            self.actor, self.phase = player, PH_ROW
            return
        if player == mover:
            other = 1 - mover
            if self._rows_now(other):
                self.actor, self.phase = other, PH_ROW
                return
        self._start_turn(1 - mover)

    def _start_turn(self, player: int) -> None:
        self.actor = player
        if self.markers >= TOTAL_MARKERS:
            self._over = self._final_outcome("markers")
            self.phase = PH_OVER
        else:
            self.phase = PH_MOVE

    def _final_outcome(self, reason: str) -> Outcome:
        w, b = self.removed
        if w == b:
            return Outcome((), reason)
        return Outcome((0,) if w > b else (1,), reason)

    def _undo_action(self, action: int) -> None:
        board = self.board
        self._history.pop()
        self.actor, self.mover, self.phase, self.passes, self.pending, self._over = self._undo.pop()
        actor = self.actor
        if action < MOVE:
            board[action] = EMPTY
            self.rings[actor].remove(action)
            self.placed -= 1
        elif action < ROW:
            a, b = divmod(action - MOVE, NUM_POINTS)
            board[a] = 3 + actor
            board[b] = EMPTY
            ring_list = self.rings[actor]
            ring_list[ring_list.index(b)] = a
            self.markers -= 1
            for q in BETWEEN[a][b]:
                v = board[q]
                if v:
                    board[q] = 3 - v
        elif action < RING:
            colour = 1 + actor
            for q in WINDOWS[action - ROW]:
                board[q] = colour
            self.markers += 5
        elif action < PASS:
            p = action - RING
            board[p] = 3 + actor
            self.rings[actor].append(p)
            self.removed[actor] -= 1

    def clone(self) -> YinshState:
        s = YinshState.__new__(YinshState)
        s.game = self.game
        s._win = self._win
        s.board = self.board[:]
        s.rings = [self.rings[0][:], self.rings[1][:]]
        s.removed = self.removed[:]
        s.placed, s.markers, s.actor, s.mover, s.phase, s.passes = (
            self.placed, self.markers, self.actor, self.mover, self.phase, self.passes)
        s.pending = self.pending  # never mutated in place
        s._over = self._over
        s._history = self._history[:]
        s._undo = self._undo[:]
        s._resigned = self._resigned[:]
        s._agreed = self._agreed
        s._start = self._start
        return s

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
                raise NotationError(f"{text!r}: {point_name(pts[0])} and {point_name(pts[1])} are not on one line")
            return MOVE + pts[0] * NUM_POINTS + pts[1]
        if kind == "row":
            w = window_of(pts[0], pts[1])
            if w is None:
                raise NotationError(f"{text!r}: a row's end points must be 4 steps apart on one line")
            return ROW + w
        if kind == "ring":
            return RING + pts[0]
        return PASS

    def position(self) -> str:
        """The position string; see :func:`.notation.format_position`."""
        from ringgames.games.yinsh.notation import format_position

        phase = self.phase
        return format_position(self.board, self.actor, phase, self.removed,
                               self.mover if phase in (PH_ROW, PH_RING) else None, self.passes)

    # -- extras ------------------------------------------------------------
    def summary(self) -> dict:
        return {
            "rings_removed_white": self.removed[0],
            "rings_removed_black": self.removed[1],
            "ring_moves": sum(1 for a in self._history if MOVE <= a < ROW),
        }

    def render(self) -> str:
        from ringgames.games.yinsh.notation import render

        return render(self)

    def transformed(self, k: int) -> YinshState:
        """The position under board symmetry ``k`` (0..11), without history.

        Symmetry 0 is the identity; the others rotate and reflect about F6.
        """
        sym = SYMMETRIES[k]
        s = self.game.new_initial_state()
        for p in range(NUM_POINTS):
            s.board[sym[p]] = self.board[p]
        s.rings = [sorted(sym[p] for p in self.rings[0]), sorted(sym[p] for p in self.rings[1])]
        s.removed = self.removed[:]
        s.placed, s.markers, s.actor, s.mover, s.phase, s.passes = (
            self.placed, self.markers, self.actor, self.mover, self.phase, self.passes)
        s.pending = [sorted(transform_window(w, k) for w in self.pending[0]),
                     sorted(transform_window(w, k) for w in self.pending[1])]
        s._over = self._over
        s._start = s.position()
        return s


def transform_window(w: int, k: int) -> int:
    sym = SYMMETRIES[k]
    pts = WINDOWS[w]
    return window_of(sym[pts[0]], sym[pts[4]])


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
