"""RINGS rules: the game and its state, a wrapper around the compiled kernel.

A turn is (place P | pass), then, while a conversion is legal for the mover,
(convert C | end); when no conversion is legal the turn ends by itself (that is
not a ply). After N consecutive pass turns (N = players still in the game) the
game ends once the last of those turns is complete; a pass turn with
conversions still counts as a pass.

The position lives in one ``int32`` array (``RingsState.s``; layout and
bookkeeping in :mod:`.kernel`), and the rules run in the compiled kernel. Undo
records are copies of that array. Resignations are handled here: the seat is
marked inactive and the kernel's ``rebuild`` makes its stones nobody's.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ...kernel_state import KernelState
from ...protocol import TERMINAL, Game, NotationError, Outcome, Reason, Symmetry, stable_key
from ...rng import seed_state
from . import kernel as K
from .board import CIRCLE_NAMES, LETTERS, NUM_CIRCLES, NUM_POINTS, POINT_COORDS
from .board import CIRCLE_POINTS as _CP
from .notation import (
    CONVERT0,
    END,
    NUM_ACTIONS,
    PASS,
    SEAT_LETTERS,
    SEAT_NAMES,
    action_to_string,
    format_position,
    parse_action,
    parse_position,
)

__all__ = ["RingsGame", "RingsState"]

_ALL_CIRCLES = range(NUM_CIRCLES)


@functools.lru_cache(maxsize=8)
def _symmetries(num_players: int) -> list[Symmetry]:
    from .observation import symmetries

    return symmetries(num_players)
assert (K.PASS, K.CONVERT0, K.END, K.NUM_ACTIONS) == (PASS, CONVERT0, END, NUM_ACTIONS)


class RingsGame(Game):
    """RINGS for 2–6 players. Seats in turn order: red, blue, green, yellow, purple, orange.

    >>> g = RingsGame(players=3)
    >>> g.seat_names
    ('red', 'blue', 'green')
    >>> s = g.new_initial_state()
    >>> len(s.legal_actions()), s.action_to_string(s.legal_actions()[-1])
    (217, 'pass')
    """

    name = "rings"
    title = "RINGS"
    variants = ("standard",)
    player_range = (2, 6)
    zero_sum = True

    @property
    def seat_names(self) -> tuple[str, ...]:
        return SEAT_NAMES[: self.num_players]

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    def new_initial_state(self) -> RingsState:
        return RingsState(self)

    def state_from_position(self, position: str) -> RingsState:
        owner, mover, phase, passes, resigned = parse_position(position, self.num_players)
        n = self.num_players
        if len(resigned) >= n:
            raise NotationError("resigned: every player has resigned; at least one must remain")
        for p in resigned:
            if p in owner:
                raise NotationError(f"resigned player {SEAT_LETTERS[p]} still has stones (write them as x)")
        if n in owner and not resigned:
            raise NotationError("stones of nobody (x) but no resigned player")
        if mover in resigned and len(resigned) < n - 1:
            raise NotationError(f"the player to move ({SEAT_LETTERS[mover]}) has resigned")
        active = n - len(resigned)
        if passes > active:
            raise NotationError(f"passes: {passes} is more than the {active} players in the game")
        s = RingsState(self, owner=owner, start_resigned=resigned)
        a = s.s
        a[K.MOVER] = mover
        a[K.PHASE] = phase
        a[K.PASSES] = passes
        if phase and passes >= active:
            raise NotationError("the game is over (passes), so no turn can be in its convert phase")
        if phase and not a[K.CONV_COUNT + mover]:
            raise NotationError(
                f"phase {position.split()[2]!r}, but {SEAT_NAMES[mover]} has no legal conversion (the turn would have ended)"
            )
        s._start = s.position()
        return s

    # -- research --------------------------------------------------------
    def max_game_length(self) -> int:
        """From the rules (stones are never removed; a turn is one placement or pass, then
        conversions, then perhaps ``end``): a conversion flips at least one opponent stone
        to the mover and nothing flips back within a turn, so a turn with S stones on the
        board after its placement has at most S - 1 conversions, and at most S + 1 actions.
        At most 216 placement turns (the k-th with k stones: sum k + 1 = 23,652 actions);
        between placements fewer than N pass turns in a row (N pass turns end the game), so
        at most 216 (N - 1) + N pass turns, plus N - 1 more per resignation (it restarts the
        count; at most N - 1 resignations), each at most 1 + 215 + 1 = 217 actions.
        2 players: 71,175; 6 players: 264,739."""
        n = self.num_players
        placement = sum(k + 1 for k in range(1, 217))
        passes = 216 * (n - 1) + n + (n - 1) * (n - 1)
        return placement + 217 * passes

    def observation_shape(self) -> tuple[int, ...]:
        from .observation import SHAPE

        return SHAPE

    def observation_planes(self) -> tuple[tuple[str, str], ...]:
        from .observation import PLANES

        return PLANES

    def symmetries(self) -> list[Symmetry]:
        return _symmetries(self.num_players)

    def perft_benchmark(self) -> tuple[RingsState, int]:
        """The empty board at depth 3 (10,077,912 nodes with 2 players; about 25 ms in the kernel)."""
        return self.new_initial_state(), 3


class RingsState(KernelState):
    """A RINGS position with its history; the rules run in :mod:`.kernel`.

    ``self.s`` is the kernel's state array (read it, do not write it: after an undo
    it is shared with the undo records of clones).
    """

    __slots__ = ("_n", "_start_resigned")
    kernel = K
    max_legal = K.MAX_LEGAL

    def __init__(self, game: RingsGame, owner: Sequence[int] | None = None, start_resigned: Sequence[int] = ()):
        self._n = n = game.num_players
        self._init_kernel_state(game, K.new_state(n))  # undo records: array copies, for resignations too
        self._start_resigned: list[int] = list(start_resigned)
        if owner is not None or start_resigned:
            if owner is not None:
                self.s[K.OWNER : K.OWNER + NUM_POINTS] = owner
            for p in start_resigned:
                self.s[K.ACTIVE + p] = 0
            K.rebuild(self.s)

    # -- small views of the array ----------------------------------------
    @property
    def _mover(self) -> int:
        return int(self.s[K.MOVER])

    @property
    def _phase(self) -> int:
        return int(self.s[K.PHASE])

    def _out(self) -> list[int]:
        return self._start_resigned + self._resigned

    def _over(self) -> bool:
        return self._agreed or bool(K.is_over(self.s))

    # -- protocol (legal actions, apply/undo, clone, perft: KernelState) ------
    def _ended_by_players(self) -> bool:
        # a resignation does not end a RINGS game while two or more seats remain (the kernel knows)
        return self._agreed

    def _clone_into(self, c: KernelState) -> None:
        assert isinstance(c, RingsState)
        c._n = self._n
        c._start_resigned = self._start_resigned[:]

    def active_players(self) -> list[int]:
        out = self._out()
        return [p for p in range(self._n) if p not in out]

    def is_terminal(self) -> bool:
        return self._over()

    def current_player(self) -> int:
        return TERMINAL if self._over() else int(self.s[K.MOVER])

    def hash_key(self) -> int:
        """An unsigned 64-bit key of the position (owners, mover, phase, passes, seats in play), stable across
        processes."""
        s = self.s
        return stable_key(s[K.OWNER : K.OWNER + NUM_POINTS].tobytes() + s[K.ACTIVE : K.SIZE].tobytes())

    def _rules_outcome(self) -> Outcome | None:
        act = self.active_players()
        if len(act) <= 1:
            return Outcome(tuple(act), Reason.RESIGN)
        s = self.s
        if s[K.PASSES] >= s[K.NUM_ACTIVE]:
            best = max(s[K.SCORE + p] for p in act)
            return Outcome(tuple(p for p in act if s[K.SCORE + p] == best), Reason.PASSES)
        return None

    def _observation(self, player: int) -> np.ndarray:
        from .observation import observation

        return observation(self, player)

    def action_to_string(self, action: int) -> str:
        return action_to_string(action)

    def _parse_action(self, text: str) -> int:
        return parse_action(text)

    def position(self) -> str:
        s = self.s
        return format_position(
            s[K.OWNER : K.OWNER + NUM_POINTS].tolist(), self._n, int(s[K.MOVER]), int(s[K.PHASE]), int(s[K.PASSES]),
            self._out(),
        )

    # -- resignation -------------------------------------------------------
    def _after_resign(self) -> None:
        """The resigned seat's stones become nobody's; its turn passes on; the pass count restarts."""
        who = self._resigned[-1]
        self._undo.append(self.s)
        s = self.s = self.s.copy()
        s[K.ACTIVE + who] = 0
        K.rebuild(s)
        s[K.PASSES] = 0
        if s[K.NUM_ACTIVE] <= 1:
            return
        if s[K.MOVER] == who:
            s[K.PHASE] = K.PH_PLACE
            K.end_turn(s)
            s[K.PASSES] = 0
        elif s[K.PHASE] and not s[K.CONV_COUNT + s[K.MOVER]]:
            K.end_turn(s)

    def _after_resign_undo(self) -> None:
        self.s = self._undo.pop()

    # -- batched playouts ----------------------------------------------------
    def random_playouts(self, count: int, seed: int = 0) -> dict[str, np.ndarray]:
        """``count`` uniformly random playouts from this position, run in the kernel; game i is
        the playout with seed ``seed + i`` (:mod:`ringgames.rng`).

        Returns ``returns`` (float64, shape (count, players), the convention of
        :meth:`~ringgames.protocol.State.returns`), ``length`` (int32, actions played),
        ``scores`` (int32, shape (count, players): final circles with majority) and
        ``winners`` (int32 bit masks: bit p set when seat p is among the winners).
        """
        if self.is_terminal():
            raise ValueError("the game is over")
        n = self._n
        scores = np.zeros((count, n), np.int32)
        winners = np.zeros(count, np.int32)
        lengths = np.zeros(count, np.int32)
        returns = np.zeros((count, n), np.float64)
        K.playouts(self.s, count, seed_state(seed), scores, winners, lengths, returns)
        return {"returns": returns, "length": lengths, "scores": scores, "winners": winners}

    # -- helpers for people and programs --------------------------------------
    def scores(self) -> list[int]:
        """Circles on which each seat has majority, in seat order."""
        scores: list[int] = self.s[K.SCORE : K.SCORE + self._n].tolist()
        return scores

    def summary(self) -> dict[str, list[int]]:
        return {"scores": self.scores(), "winners": list(self.winners())}

    def record_omits(self, action: int) -> bool:
        return action == END

    def implicit_turn_end(self) -> int | None:
        return END if not self._over() and self.s[K.PHASE] else None

    def owner(self, point: int) -> int:
        """-1 (empty), a seat, or ``num_players`` for a stone of nobody."""
        return int(self.s[K.OWNER + point])

    def ring_owner(self, circle: int) -> int:
        """The seat whose ring circle is, or -1."""
        return int(self.s[K.RING + circle])

    def majority(self, circle: int) -> int:
        """The seat with majority on circle, or -1."""
        return int(self.s[K.MAJ + circle])

    def influence(self, player: int, circle: int) -> int:
        """Stones of player on circle plus player's rings among its neighbours."""
        return int(self.s[K.INF + circle * K.S + player])

    def is_safe(self, point: int) -> bool:
        """True if the stone on point lies in a ring of its owner."""
        return bool(self.s[K.SAFE + point] > 0)

    def phase(self) -> str:
        return ("place", "convert", "pass-convert")[self.s[K.PHASE]]

    def pass_count(self) -> int:
        return int(self.s[K.PASSES])

    def convertible_circles(self) -> list[int]:
        """Circles the player to move may convert now (empty outside the convert phase)."""
        if self._over() or not self._phase:
            return []
        conv, p = self.s[K.CONV : K.CONV + NUM_CIRCLES].tolist(), self.s[K.MOVER]
        return [c for c in _ALL_CIRCLES if conv[c] == p]

    def convert_all(self) -> list[int]:
        """Convert every circle possible (the order-independent closure); returns the actions applied.

        Only in the convert phase; the turn then ends by itself (no ``end`` needed).
        """
        done = []
        p = self._mover
        while not self._over() and self._phase and self._mover == p:
            c = self.convertible_circles()[0]
            self.apply_action(CONVERT0 + c)
            done.append(CONVERT0 + c)
        return done

    def render(self) -> str:
        """A terminal drawing: stones (R B G ...), rings (r*) and circle control (r) at circle centres."""
        n = self._n
        s = self.s
        owner = s[K.OWNER : K.OWNER + NUM_POINTS].tolist()
        ring = s[K.RING : K.RING + NUM_CIRCLES].tolist()
        maj = s[K.MAJ : K.MAJ + NUM_CIRCLES].tolist()
        score = self.scores()
        width = 3 * len(LETTERS) + 1
        grid = [[" "] * width for _ in range(23)]
        for pt, (c, t) in enumerate(POINT_COORDS):
            o = owner[pt]
            grid[t - 1][3 * c + 1] = "." if o < 0 else "#" if o == n else SEAT_LETTERS[o].upper()
        for ci, pts in enumerate(_CP):
            c, t = POINT_COORDS[pts[0]]
            row = grid[t]  # centre row t+1
            if ring[ci] >= 0:
                row[3 * c + 2], row[3 * c + 3] = SEAT_LETTERS[ring[ci]], "*"
            elif maj[ci] >= 0:
                row[3 * c + 2] = SEAT_LETTERS[maj[ci]]
        head = "    " + "".join(f" {ch} " for ch in LETTERS)
        lines = [head]
        for r, row in enumerate(grid, 1):
            lines.append(f"{r:>3} " + "".join(row).rstrip())
        lines.append(head)
        names = self.game.seat_names
        out = self._out()
        lines.append(
            "stones: "
            + " ".join(f"{SEAT_LETTERS[p].upper()}={names[p]}" for p in range(n))
            + "  # = nobody's   circle centres: r = majority, r* = ring"
        )
        lines.append(
            "scores: "
            + "  ".join(f"{names[p]} {score[p]}" + (" (resigned)" if p in out else "") for p in range(n))
        )
        o = self.outcome()
        if o is not None:
            lines.append(f"game over ({o.reason}): " + self.result_string())
        else:
            me = names[self._mover]
            if self._phase == 0:
                lines.append(f"{me} to move: place a stone (e.g. K12) or pass   [passes in a row: {self.pass_count()}]")
            else:
                cs = " ".join("x" + CIRCLE_NAMES[c] for c in self.convertible_circles())
                lines.append(f"{me} may convert: {cs}  (or end)")
        return "\n".join(lines)
