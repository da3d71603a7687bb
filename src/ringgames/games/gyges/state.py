"""Gygès rules: the game and its state, a wrapper around the compiled kernel.

The position lives in one ``int32`` array (``GygesState.s``; layout in
:mod:`.kernel`) and the rules run in the kernel: move generation, apply,
goal and repetition (with the play-phase Zobrist keys kept in ``_keys``),
perft and random playouts. Undo records are copies of the array. The notation
gets its paths from the kernel too (:func:`.kernel.canonical_landings`,
:func:`.kernel.realises`); this module only adds the error messages.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from ...kernel_state import KernelState
from ...protocol import TERMINAL, Game, IllegalActionError, NotationError, Outcome, Reason, State, Symmetry
from ...rng import seed_state
from ...textbounds import excerpt
from . import kernel as K
from .board import (
    ARRANGEMENTS,
    GOAL,
    MOVE_BASE,
    NO_DROP,
    NSQ,
    NUM_ACTIONS,
    PASS,
    ROW,
    SIZE,
    decode_move,
    encode_move,
)
from .notation import (
    SIDE_NAMES,
    SQUARE_NAMES,
    format_position,
    move_string,
    parse_arrangement,
    parse_move_syntax,
    parse_position,
)

#: The position the spec's perft values start from.
REFERENCE_POSITION = "321123/000000/000000/000000/000000/321123 S"

# Phases
SETUP_SOUTH, SETUP_NORTH, PLAY = K.SETUP_SOUTH, K.SETUP_NORTH, K.PLAY

_MASK64 = (1 << 64) - 1

#: Play-phase positions: four pieces of each height on 36 squares, times the side to move.
_PLAY_POSITIONS = 2 * math.factorial(36) // (math.factorial(24) * math.factorial(4) ** 3)
#: :meth:`GygesGame.truncation_length`.
TRUNCATION_LENGTH = 10_000


@functools.lru_cache(maxsize=1)
def _north_actions() -> np.ndarray:
    from .observation import north_actions

    perm = north_actions()
    perm.setflags(write=False)
    return perm


@functools.lru_cache(maxsize=1)
def _symmetries() -> list[Symmetry]:
    from .observation import symmetries

    return symmetries()


def _legal_kernel(s: np.ndarray, out: np.ndarray) -> int:
    """The kernel's legal actions into ``out`` (a seam the tests can replace to force a pass)."""
    return int(K.legal_actions(s, out, *K.workspace()))


class GygesState(KernelState):
    """A Gygès position with its history. Build it with :class:`GygesGame`.

    ``self.s`` is the kernel's state array (read it, do not write it: after an undo it
    is shared with the undo records of clones); ``self._keys[:s[NKEYS]]`` are the Zobrist
    keys of the play-phase positions so far, for the repetition rule.
    """

    __slots__ = ("_keys",)
    kernel = K
    max_legal = K.MAX_LEGAL

    def __init__(self, game: GygesGame, board: Sequence[int] | None = None, side: int = 0, phase: int = SETUP_SOUTH, start: str | None = None):
        s = K.new_state(game.variant != "beginner")
        if board is not None:
            s[:NSQ] = board
        s[K.SIDE] = side
        s[K.PHASE] = phase
        K.set_key(s, K.board_key(s))
        self._keys = np.zeros(64, dtype=np.int64)
        K.note_position(s, self._keys)  # the start of the play phase counts for repetition
        self._init_kernel_state(game, s, start)

    # -- the kernel (legal actions, apply/undo, clone, perft: KernelState) ----
    def _kernel_legal(self, s: np.ndarray, out: np.ndarray) -> int:
        return _legal_kernel(s, out)

    def _kernel_apply(self, s: np.ndarray, action: int) -> None:
        if s[K.NKEYS] >= len(self._keys):
            self._keys = np.concatenate([self._keys, np.zeros(len(self._keys), dtype=np.int64)])
        K.play(s, action, self._keys)

    def _kernel_perft(self, s: np.ndarray, depth: int) -> int:
        return int(K.perft(s, depth, *K.workspace()))

    def _kernel_playout(self, s: np.ndarray, max_actions: int, rng: np.ndarray, record: np.ndarray) -> int:
        keys = np.empty(max(1024, 2 * len(self._keys)), dtype=np.int64)
        keys[: s[K.NKEYS]] = self._keys[: s[K.NKEYS]]
        return int(K.playout(s, keys, max_actions, rng, record, False, *K.workspace())[0])

    def _clone_into(self, c: KernelState) -> None:
        assert isinstance(c, GygesState)
        c._keys = self._keys.copy()

    # -- small views of the array ------------------------------------------
    @property
    def _side(self) -> int:
        return int(self.s[K.SIDE])

    @property
    def _phase(self) -> int:
        return int(self.s[K.PHASE])

    @property
    def _replace(self) -> bool:
        return bool(self.s[K.REPLACE])

    @property
    def board(self) -> list[int]:
        """The 36 squares (row 1 first, files a→f): 0 empty, else the piece's rings."""
        board: list[int] = self.s[:NSQ].tolist()
        return board

    def position_keys(self) -> np.ndarray:
        """The Zobrist keys (``int64``, as :meth:`hash_key` but signed) of the play-phase positions
        so far, the current one last: what the repetition rule remembers (a copy; empty in the setup)."""
        return self._keys[: self.s[K.NKEYS]].copy()

    def repetition_count(self) -> int:
        """How often the current position has occurred in the play phase (0 during the setup)."""
        return int(self.s[K.REPS])

    def _observation(self, player: int) -> np.ndarray:
        from .observation import observation

        return observation(self, player)

    # -- protocol --------------------------------------------------------
    def current_player(self) -> int:
        if self.outcome() is not None:
            return TERMINAL
        return int(self.s[K.SIDE])

    def _rules_outcome(self) -> Outcome | None:
        s = self.s
        if s[K.WINNER] >= 0:
            return Outcome((int(s[K.WINNER]),), Reason.GOAL)
        if s[K.PHASE] == PLAY and s[K.REPS] >= 3:
            return Outcome((), Reason.REPETITION)
        return None

    def position(self) -> str:
        return format_position(self.s[:NSQ].tolist(), int(self.s[K.SIDE]))

    # -- notation --------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if action < MOVE_BASE:
            return ARRANGEMENTS[action]
        if action == PASS:
            return "pass"
        s, e, d = decode_move(action)
        landings = self._canonical_landings(s, e, d)
        if landings is None:  # not realisable here: plain start-end form
            landings = [s] if e == GOAL else [s, e]
        return move_string(landings, e == GOAL, None if d == NO_DROP else d)

    def _canonical_landings(self, s: int, e: int, d: int) -> list[int] | None:
        """Fewest bounces, ties broken by the square names in order; None if no path (kernel search)."""
        out = np.empty(K.MAX_LANDINGS, dtype=np.int32)
        n = K.canonical_landings(self.s.copy(), s, e, d, out)
        return out[:n].tolist() if n > 0 else None

    def _movable_info(self) -> tuple[set[int], int | None]:
        starts = {decode_move(a)[0] for a in self.legal_actions() if MOVE_BASE <= a < PASS}
        row = ROW[next(iter(starts))] if starts else None
        return starts, row

    def _parse_action(self, text: str) -> int:
        t = text.strip().lower()
        side = SIDE_NAMES[self._side]
        if t == "pass":
            if self._phase != PLAY:
                raise IllegalActionError(f"{side} must place a piece set first (an arrangement such as 321123)")
            if self.outcome() is None and self.legal_actions() != [PASS]:
                raise IllegalActionError(f"{side} has a legal move, so cannot pass")
            return PASS
        if t.isdigit():
            a = parse_arrangement(t)
            if self._phase == PLAY:
                raise IllegalActionError(f"the setup is over; {t} is an arrangement, not a move")
            return a
        if self._phase != PLAY:
            row = 1 if self._phase == SETUP_SOUTH else 6
            raise IllegalActionError(
                f"{side} must first place a piece set on row {row}: six digits such as 321123, not {excerpt(text.strip())}"
            )
        landings, wins, drop = parse_move_syntax(t)
        s = landings[0]
        b = self.board
        v = b[s]
        if not v:
            raise IllegalActionError(f"{SQUARE_NAMES[s]} is empty")
        starts, movable_row = self._movable_info()
        if s not in starts:
            where = f"row {movable_row + 1}" if movable_row is not None else "none"
            raise IllegalActionError(f"{SQUARE_NAMES[s]} is not on {side}'s movable row ({where})")
        b[s] = 0
        shown = move_string(landings, wins, drop)
        # bounce squares must hold a piece; the end square must be empty unless replacing
        bounces = landings[1:] if wins else landings[1:-1]
        for x in bounces:
            if not b[x]:
                raise IllegalActionError(f"{shown}: no piece to bounce off on {SQUARE_NAMES[x]}")
        end = None if wins else landings[-1]
        drops = self._drop_squares(s)
        if end is not None:
            if drop is None and b[end]:
                hint = ""
                if self._replace and drops:
                    first = SQUARE_NAMES[drops[0]]
                    hint = f"; e.g. {shown}({first}) replaces it and drops the displaced piece on {first}"
                raise IllegalActionError(f"{shown}: {SQUARE_NAMES[end]} is occupied: bounce on it or replace it{hint}")
            if drop is not None:
                if not b[end]:
                    raise IllegalActionError(f"{shown}: {SQUARE_NAMES[end]} is empty, there is nothing to replace")
                if not self._replace:
                    raise IllegalActionError(f"{shown}: replace is not allowed in the {self.game.variant} variant")
        # follow the landing sequence through every step path (in the kernel)
        if not K.realises(self.s.copy(), np.array(landings, dtype=np.int32), len(landings), wins):
            raise IllegalActionError(f"no legal path {shown}")
        if wins:
            return encode_move(s, GOAL, NO_DROP)
        assert end is not None  # set when the move does not win
        if drop is not None:
            if drop not in drops:
                if drop == end:
                    why = "the moving piece stays there"
                elif b[drop]:
                    why = "it is occupied"
                else:
                    opp = SIDE_NAMES[1 - self._side]
                    why = f"it is beyond {opp}'s nearest non-empty row"
                raise IllegalActionError(f"{shown}: cannot drop the displaced piece on {SQUARE_NAMES[drop]}: {why}")
            return encode_move(s, end, drop)
        return encode_move(s, end, NO_DROP)

    def _drop_squares(self, start: int) -> list[int]:
        """Where a piece displaced by the piece from ``start`` may be dropped (kernel rule)."""
        occ = K.occupancy(self.s) & ~(1 << start)
        return sorted(K.mask_squares(K.drop_mask(occ, self._side)))

    # -- people ----------------------------------------------------------
    def input_choices(self, text: str) -> list[str]:
        """Legal action strings consistent with the partial input (step-by-step entry).

        ``c1`` lists the moves of the piece on c1, ``c1-b1`` those through or onto b1
        (ending on b1 needs a drop square: ``c1-b1(a4)``); plain moves come before replaces.
        A complete landing sequence that is not canonical (``c1-b1-c2``) gives the
        canonical string of the move it realises. An impossible input gives [].
        """
        t = text.strip().lower()
        if self.is_terminal():
            return []
        strings = [self.action_to_string(a) for a in self.legal_actions()]
        out = [x for x in strings if x.lower().startswith(t)]
        if not out and self._phase == PLAY:
            try:
                out = [self.action_to_string(self.string_to_action(t))]
            except (NotationError, IllegalActionError):
                out = []
        return sorted(out, key=lambda x: "(" in x)

    def render(self) -> str:
        """The board for a terminal: row 6 at the top, both goals, the side to move."""
        b = self.board
        files = "   a  b  c  d  e  f"
        lines = ["        [ North's goal: South wins here ]", files]
        for r in range(SIZE - 1, -1, -1):
            cells = "  ".join(str(b[r * SIZE + c]) if b[r * SIZE + c] else "." for c in range(SIZE))
            lines.append(f"{r + 1}  {cells}  {r + 1}")
        lines.append(files)
        lines.append("        [ South's goal: North wins here ]")
        out = self.outcome()
        if out is not None:
            lines.append(f"game over: {self.result_string()} ({out.reason})")
        elif self._phase != PLAY:
            row = 1 if self._phase == SETUP_SOUTH else 6
            lines.append(f"{SIDE_NAMES[self._side]} to place a set on row {row} (e.g. 321123)")
        else:
            _, movable_row = self._movable_info()
            extra = f", movable row {movable_row + 1}" if movable_row is not None else ", no move: pass"
            lines.append(f"{SIDE_NAMES[self._side]} to move{extra}")
        return "\n".join(lines)

    def summary(self) -> dict[str, int]:
        n = sum(1 for a in self._history if a >= MOVE_BASE)
        return {"moves": n}

    # -- search ----------------------------------------------------------
    def hash_key(self) -> int:
        """The incremental Zobrist key of the position (board and side to move), unsigned 64-bit."""
        s = self.s
        return ((int(s[K.KEY_HI]) << 32) | (int(s[K.KEY_LO]) & 0xFFFFFFFF)) & _MASK64

    def successor_keys(self) -> dict[int, int]:
        """Distinct successor positions of the current play position: key -> first action."""
        s = self.s
        n = K.generate(s, self._buf, *K.workspace())
        key = K.get_key(s)
        out: dict[int, int] = {}
        for a in self._buf[:n].tolist():
            out.setdefault(int(K.successor_key(s, key, a)) & _MASK64, a)
        return out

    def distinct_actions(self) -> list[int]:
        """The legal actions, one per distinct successor position (the smallest action of each),
        ascending: what a search needs to look at (the same positions as :meth:`perft` counts;
        kernel :func:`.kernel.distinct_actions`). Empty when the game is over."""
        if self._ended_by_players():
            return []
        n = K.distinct_actions(self.s, self._buf, *K.workspace())
        actions: list[int] = self._buf[:n].tolist()
        return actions

    def features(self) -> tuple[int, int, int, int, int, int] | None:
        """Reachability features of both sides, each as if it were to move (*A move* 1–5, 9):
        ``(threat_south, approach_south, mobility_south, threat_north, approach_north,
        mobility_north)``, or None during the setup and once a goal is reached.

        ``threat``: 1 if a movable piece can end in the opponent's goal; ``approach``: distinct
        squares of the opponent's home row where a movable piece can end (empty or replace);
        ``mobility``: distinct (start, end) targets, the goal included (kernel
        :func:`.kernel.features`)."""
        f = K.features(self.s, *K.workspace())
        return f[1:] if f[0] else None

    def goal_reachable(self) -> bool:
        """True if the player to move has a move into the opponent's goal (a win now); False
        during the setup and once the game is over (kernel :func:`.kernel.goal_reachable`)."""
        if self.outcome() is not None:
            return False
        return bool(K.goal_reachable(self.s, *K.workspace()))

    def perft(self, depth: int) -> int:
        """Nodes at ``depth`` plies, in the kernel; children are distinct successor positions;
        repetition is ignored (resignations and agreed draws end the tree)."""
        return super().perft(depth)

    # -- batched playouts ----------------------------------------------------
    def random_playouts(self, count: int, seed: int = 0, max_actions: int = 1_000_000,
                        sampler: str = "exact") -> dict[str, np.ndarray]:
        """``count`` uniformly random playouts from this position, run in the kernel; game i is
        the playout with seed ``seed + i`` (:mod:`ringgames.rng`): with ``sampler="exact"`` the
        same game as the Python path; ``"fast"`` draws moves by rejection from an
        over-approximation of the targets (:func:`.kernel.random_move`; uniform too, about 5
        times the playouts per second, reproducible per seed, but other games).

        The setup, if not done, is random too; the repetition rule counts the positions of
        this game so far. Returns arrays of length ``count``: ``winner`` (int32: -1 draw,
        0 South, 1 North), ``reason`` (int32: 1 goal, 2 repetition, 0 cut off after
        ``max_actions``), ``length`` (int32, actions played) and ``returns`` (float64,
        shape (count, 2): +1/-1/0 per seat). Raises ValueError if the game is over.
        """
        if self.is_terminal():
            raise ValueError("the game is over")
        winners = np.empty(count, np.int32)
        reasons = np.empty(count, np.int32)
        lengths = np.empty(count, np.int32)
        if sampler not in ("exact", "fast"):
            raise ValueError(f"sampler must be 'exact' or 'fast', not {sampler!r}")
        K.playouts(self.s, self._keys, count, seed_state(seed), max_actions, sampler == "fast", winners, reasons, lengths,
                   *K.workspace())
        south = np.where(winners == 0, 1.0, np.where(winners == 1, -1.0, 0.0))
        return {"winner": winners, "reason": reasons, "length": lengths, "returns": np.stack([south, -south], axis=1)}


class GygesGame(Game):
    """Gygès: ``variant`` ``standard`` or ``beginner`` (alias ``no-replace``: no replace)."""

    name = "gyges"
    title = "Gygès"
    variants = ("standard", "beginner")
    variant_aliases = {"no-replace": "beginner", "noreplace": "beginner"}

    @property
    def seat_names(self) -> tuple[str, ...]:
        return ("south", "north")

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    def new_initial_state(self) -> GygesState:
        return GygesState(self)

    def state_from_position(self, position: str) -> GygesState:
        """A state from a position string (see :mod:`.notation`).

        Besides game positions (12 pieces: four of each), the setup positions are
        accepted: an empty board with South to move, or South's set on row 1 with
        North to move; and a won position (11 pieces: the 12th is in the goal of
        the side to move, whose opponent has won).
        """
        board, side = parse_position(position)
        counts = [board.count(v) for v in range(4)]
        n = NSQ - counts[0]
        norm = format_position(board, side)
        if n == 0:
            if side != 0:
                raise NotationError("an empty board is South's setup: the side to move must be S")
            return GygesState(self, board, 0, SETUP_SOUTH, start=norm)
        if n == 6:
            row1 = "".join(map(str, board[:SIZE]))
            if row1 not in ARRANGEMENTS or side != 1:
                raise NotationError(
                    "a position with 6 pieces is North's setup: South's set (two 1s, two 2s, two 3s) on row 1, N to move"
                )
            return GygesState(self, board, 1, SETUP_NORTH, start=norm)
        if n == 12:
            for v in (1, 2, 3):
                if counts[v] != 4:
                    raise NotationError(f"position has {counts[v]} pieces with {v} ring(s); a game has four of each")
            return GygesState(self, board, side, PLAY, start=norm)
        if n == 11:
            if sorted(counts[1:]) != [3, 4, 4]:
                raise NotationError(f"position has {counts[1]}/{counts[2]}/{counts[3]} pieces with 1/2/3 rings; expected four of each")
            st = GygesState(self, board, side, PLAY, start=norm)
            st.s[K.WINNER] = 1 - side
            return st
        raise NotationError(
            f"position has {n} pieces; a game position has 12 (four each of 1, 2 and 3 rings), a setup position 0 or 6"
        )

    # -- research --------------------------------------------------------
    def max_game_length(self) -> int:
        """2 + 2 * 2 * 36! / (24! 4! 4! 4!) (about 1.7e14), from the rules: after the two setup
        actions every action leads to a play-phase position (12 pieces, four of each height,
        on 36 squares, and the side to move: 86,741,264,610,000 of them) or ends the game, and
        the third occurrence of a position ends it, so no position is left more than twice.
        Finite but useless as a cap: see :meth:`truncation_length`."""
        return 2 + 2 * _PLAY_POSITIONS

    def truncation_length(self) -> int:
        """10,000 actions: the project's cap for adapters (the rules do not end a game there;
        PettingZoo truncates, OpenSpiel adapters end the game as a draw). The longest of
        20,000 uniformly random games had 5,818 actions (median 258): ``docs/research.md``."""
        return TRUNCATION_LENGTH

    def observation_shape(self) -> tuple[int, ...]:
        from .observation import SHAPE

        return SHAPE

    def observation_planes(self) -> tuple[tuple[str, str], ...]:
        from .observation import PLANES

        return PLANES

    def symmetries(self) -> list[Symmetry]:
        return _symmetries()

    def observer_actions(self, player: int) -> np.ndarray:
        """Identity for South; for North the moves with rows reversed, as its observation shows them."""
        if player == 1:
            return _north_actions()
        return super().observer_actions(player)

    def perft_start(self) -> GygesState:
        """perft starts after the setup, from ``321123/000000/000000/000000/000000/321123 S`` (as the spec says)."""
        return self.state_from_position(REFERENCE_POSITION)

    def perft_benchmark(self) -> tuple[State, int]:
        return self.state_from_position(REFERENCE_POSITION), 2
