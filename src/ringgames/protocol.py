"""The game protocol that every part of ringgames speaks.

The shape follows OpenSpiel: a :class:`Game` describes a game and its
parameters (variant, number of players) and makes :class:`State` objects; a
state knows whose turn it is, which *actions* are legal, and moves forward with
:meth:`State.apply_action` and back with :meth:`State.undo_action`.

* An **action** is a plain ``int`` in ``range(game.num_distinct_actions)``.
  Multi-decision turns (a YINSH move followed by a row and a ring removal, a
  RINGS placement followed by conversions) are several actions by the same
  player.
* Every action has a string in the game's notation
  (:meth:`State.action_to_string`, :meth:`State.string_to_action`).
* A **position string** (:meth:`State.position`, :meth:`Game.state_from_position`)
  describes the state without its history; :meth:`State.serialize` and
  :func:`ringgames.deserialize_state` round-trip a whole state with history.
* Resignation and draw by agreement are not actions (no search should ever pick
  them); they are methods, recorded in the history as :data:`RESIGN` /
  :data:`AGREED_DRAW` entries so that undo and records still work.

AI, records, the CLI and the server use only this module's API, never a
game's internals.
"""

from __future__ import annotations

import abc
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple

import numpy as np

from .textbounds import excerpt

__all__ = [
    "TERMINAL",
    "RESIGN",
    "AGREED_DRAW",
    "RingGamesError",
    "NotationError",
    "IllegalActionError",
    "Outcome",
    "Reason",
    "HistoryEntry",
    "Symmetry",
    "GAME_TYPES",
    "Game",
    "State",
    "stable_key",
]

def stable_key(data: bytes) -> int:
    """An unsigned 64-bit key of ``data``, the same in every process and on every run (BLAKE2b, 8 bytes;
    Python's ``hash()`` of a str or bytes changes with ``PYTHONHASHSEED``).

    >>> stable_key(b"e3")
    15656121766077492471
    """
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


#: ``State.current_player()`` of a finished game (OpenSpiel's kTerminalPlayerId).
TERMINAL = -4

#: Pseudo-action stored in the history when a player resigns.
RESIGN = -1
#: Pseudo-action stored in the history when the players agree a draw.
AGREED_DRAW = -2


class RingGamesError(Exception):
    """Base class of every error this package raises on purpose."""


class NotationError(RingGamesError, ValueError):
    """A string is not valid notation (a move, a position, a record line)."""


class IllegalActionError(RingGamesError, ValueError):
    """A well-formed action that the rules do not allow in this state.

    ``legal`` holds the legal actions as strings, so that callers (the
    terminal player, the server) can show them.
    """

    def __init__(self, message: str, legal: Sequence[str] = ()):
        super().__init__(message)
        self.legal = list(legal)


class Reason(StrEnum):
    """Why a game ended: the documented values of :attr:`Outcome.reason`.

    A :class:`~enum.StrEnum`, so every member *is* its string (``Reason.RINGS == "rings"``,
    ``json.dumps`` writes ``"rings"``), as the reasons were plain strings before.

    ========================  ========  ============================================================
    value                     games     meaning
    ========================  ========  ============================================================
    ``"rings"``               YINSH     a player removed the rings needed to win (3; 1 in blitz)
    ``"markers"``             YINSH     the 51 markers are all on the board; most rings removed wins
    ``"blocked"``             YINSH     neither player can move a ring (two passes in a row)
    ``"goal"``                Gygès     a piece entered the opponent's goal
    ``"repetition"``          Gygès     the same position (and side to move) a third time: a draw
    ``"passes"``              RINGS     N consecutive pass turns; most circles with majority win
    ``"resign"``              all       every opponent of the winner resigned (RINGS: one seat left)
    ``"agreement"``           all       the players agreed a draw
    ========================  ========  ============================================================
    """

    RINGS = "rings"
    MARKERS = "markers"
    BLOCKED = "blocked"
    GOAL = "goal"
    REPETITION = "repetition"
    PASSES = "passes"
    RESIGN = "resign"
    AGREEMENT = "agreement"


@dataclass(frozen=True)
class Outcome:
    """How a game ended.

    ``winners`` holds seat indices (empty for a draw between everybody);
    ``reason`` is one of the :class:`Reason` values (a plain string is accepted and
    converted; an unknown one raises ValueError).
    """

    winners: tuple[int, ...]
    reason: Reason

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason", Reason(self.reason))

    def is_draw(self, num_players: int) -> bool:
        return len(self.winners) == 0 or len(self.winners) == num_players


class HistoryEntry(NamedTuple):
    """One entry of a state's history, as :meth:`State.history_entries` yields it.

    ``seat``: who acted (for :data:`RESIGN` the seat that resigned, for
    :data:`AGREED_DRAW` the player to move when the draw was agreed);
    ``action``: the action id, or :data:`RESIGN` / :data:`AGREED_DRAW`;
    ``text``: the action in the game's notation, ``"resign"`` or ``"draw"``;
    ``to_move``: the player to move before the entry (differs from ``seat`` only when
    another seat resigned).
    """

    seat: int
    action: int
    text: str
    to_move: int


#: The values of :meth:`Game.game_type` (OpenSpiel's utility kinds).
GAME_TYPES = ("zero_sum", "constant_sum", "general_sum")


@dataclass(frozen=True, eq=False)
class Symmetry:
    """A symmetry of a game's board, for data augmentation.

    ``action_perm[a]`` is the image of action ``a`` (an ``int64`` permutation of
    ``range(num_distinct_actions)``); ``cell_perm[i]`` is the image of cell ``i`` of the
    flattened spatial axes (the last two) of the observation; ``position`` maps a
    position string to the position string of the symmetric state. For every state
    ``s``, with ``t = game.state_from_position(sym.apply_position(s.position()))``:
    ``t.legal_action_mask() == sym.apply_mask(s.legal_action_mask())`` and
    ``t.observation_tensor(p) == sym.apply_observation(s.observation_tensor(p))``.
    """

    name: str
    action_perm: np.ndarray
    cell_perm: np.ndarray
    position: Callable[[str], str] = field(repr=False)

    def apply_actions(self, ids: np.ndarray | Sequence[int] | int) -> np.ndarray:
        """The images of action ids (any shape, or one int)."""
        return self.action_perm[np.asarray(ids, dtype=np.int64)]

    def apply_mask(self, values: np.ndarray) -> np.ndarray:
        """A per-action array (a legal mask, a policy; last axis = actions) moved to the images."""
        values = np.asarray(values)
        out = np.empty_like(values)
        out[..., self.action_perm] = values
        return out

    apply_policy = apply_mask

    def apply_observation(self, obs: np.ndarray) -> np.ndarray:
        """An observation (``(..., planes, H, W)``) with every plane moved by the symmetry."""
        obs = np.asarray(obs)
        flat = obs.reshape(obs.shape[:-2] + (-1,))
        out = np.empty_like(flat)
        out[..., self.cell_perm] = flat
        return out.reshape(obs.shape)

    def apply_position(self, position: str) -> str:
        """The position string of the symmetric state."""
        return self.position(position)

    def __repr__(self) -> str:
        return f"<Symmetry {self.name}>"


class Game(abc.ABC):
    """A game with fixed parameters (variant, number of players).

    Subclasses set the class attributes and implement :meth:`new_initial_state`
    and :meth:`state_from_position`.
    """

    #: Registry name, e.g. ``"yinsh"``.
    name: ClassVar[str]
    #: Human name, e.g. ``"YINSH"``.
    title: ClassVar[str]
    #: Variant names; the first one is the default.
    variants: ClassVar[tuple[str, ...]]
    #: Allowed numbers of players (min, max).
    player_range: ClassVar[tuple[int, int]] = (2, 2)
    #: True when returns always sum to 0.
    zero_sum: ClassVar[bool] = True

    def __init__(self, variant: str | None = None, players: int | None = None):
        variant = (variant or self.variants[0]).lower()
        aliases = getattr(self, "variant_aliases", {})
        variant = aliases.get(variant, variant)
        if variant not in self.variants:
            raise ValueError(
                f"unknown {self.name} variant {variant!r}; choose one of {', '.join(self.variants)}"
            )
        lo, hi = self.player_range
        players = lo if players is None else int(players)
        if not lo <= players <= hi:
            count = f"{lo} players" if lo == hi else f"{lo}–{hi} players"
            raise ValueError(f"{self.title} is played by {count}, not {players}")
        self.variant = variant
        self.num_players = players

    # -- description -------------------------------------------------
    @property
    @abc.abstractmethod
    def seat_names(self) -> tuple[str, ...]:
        """Names of the seats in turn order, e.g. ``("white", "black")``."""

    @property
    @abc.abstractmethod
    def num_distinct_actions(self) -> int:
        """Size of the action space: every action id is below this."""

    def params(self) -> dict[str, str]:
        """The parameters that recreate this game (used by records and serialisation)."""
        return {"variant": self.variant, "players": str(self.num_players)}

    # -- states ------------------------------------------------------
    @abc.abstractmethod
    def new_initial_state(self) -> State:
        """The state at the start of a game."""

    @abc.abstractmethod
    def state_from_position(self, position: str) -> State:
        """A state (with empty history) from a position string.

        Raises :class:`NotationError` naming what is wrong.
        """

    # -- research: what OpenSpiel / PettingZoo / Gymnasium need ----------------
    def max_game_length(self) -> int:
        """A true upper bound on the number of actions of a game (RESIGN/AGREED_DRAW entries not
        counted), derived from the rules; see ``docs/research.md`` for each game's derivation."""
        raise NotImplementedError(f"{self.title} does not give max_game_length()")

    def truncation_length(self) -> int:
        """Where adapters should cut a game off (PettingZoo ``truncations``, OpenSpiel's
        ``max_game_length``): :meth:`max_game_length` where that is small enough to be
        useful, else a project cap far beyond the games' observed lengths (Gygès, whose
        repetition rule bounds games only astronomically). The rules never end a game there."""
        return self.max_game_length()

    def min_utility(self) -> float:
        """The lowest value :meth:`State.returns` gives a seat (-1: a lone loser)."""
        return -1.0

    def max_utility(self) -> float:
        """The highest value :meth:`State.returns` gives a seat (+1: a lone winner)."""
        return 1.0

    def utility_sum(self) -> float | None:
        """The sum of every finished game's returns when it is constant (0.0), else None."""
        return 0.0 if self.zero_sum else None

    def game_type(self) -> str:
        """``"zero_sum"``, ``"constant_sum"`` or ``"general_sum"`` (:data:`GAME_TYPES`), as
        :meth:`State.returns` behaves."""
        s = self.utility_sum()
        if s is None:
            return "general_sum"
        return "zero_sum" if s == 0.0 else "constant_sum"

    def observation_shape(self) -> tuple[int, ...]:
        """The shape of :meth:`State.observation_tensor`: ``(planes, height, width)``."""
        raise NotImplementedError(f"{self.title} has no observation tensor")

    def observation_planes(self) -> tuple[tuple[str, str], ...]:
        """``(name, meaning)`` of each observation plane, in order (documentation and tests)."""
        raise NotImplementedError(f"{self.title} has no observation tensor")

    def observer_actions(self, player: int) -> np.ndarray:
        """Action ids in ``player``'s frame, matching the observation's perspective: ``perm[a]`` is
        the id of action ``a`` as the observer sees the board (``int64``, a permutation; map a
        policy back with ``policy[perm]``). The identity except where the observation turns the
        board (Gygès: North's view has the rows reversed, so its moves are flipped too)."""
        return np.arange(self.num_distinct_actions, dtype=np.int64)

    def symmetries(self) -> list[Symmetry]:
        """The board symmetries (the identity first) for data augmentation."""
        raise NotImplementedError(f"{self.title} lists no symmetries")

    def perft_start(self) -> State:
        """The state ``ringgames perft`` starts from without ``--position`` (default: the initial state).

        Gygès starts perft after the setup, from its reference position.
        """
        return self.new_initial_state()

    def perft_benchmark(self) -> tuple[State, int]:
        """A (state, depth) pair whose perft takes about a second: used by ``ringgames bench``."""
        return self.new_initial_state(), 2

    def __repr__(self) -> str:
        extra = f", players={self.num_players}" if self.player_range != (2, 2) else ""
        return f"load_game({self.name!r}, variant={self.variant!r}{extra})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (self.name, self.params()) == (other.name, other.params())

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.params().items()))))


class State(abc.ABC):
    """A position plus its history, with the rules to move on.

    Subclasses implement the abstract methods; the rest (validated play,
    resignation, perft, serialisation, returns) is generic.
    """

    game: Game

    # -- rules: what subclasses implement ----------------------------
    @abc.abstractmethod
    def current_player(self) -> int:
        """Seat index of the player to decide, or :data:`TERMINAL`."""

    @abc.abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal actions, sorted ascending; empty when terminal."""

    @abc.abstractmethod
    def apply_action(self, action: int) -> None:
        """Play ``action`` for the current player.

        For speed this does **not** check legality: the action must come from
        :meth:`legal_actions`. Use :meth:`play` for untrusted input.
        """

    @abc.abstractmethod
    def _undo_action(self, action: int) -> None:
        """Take back the last action, which was ``action`` (not RESIGN/AGREED_DRAW)."""

    @abc.abstractmethod
    def clone(self) -> State:
        """An independent copy (history included)."""

    @abc.abstractmethod
    def _rules_outcome(self) -> Outcome | None:
        """The outcome the rules give this position, or None while it goes on."""

    @abc.abstractmethod
    def action_to_string(self, action: int) -> str:
        """The action in the game's notation (lower/upper case as the spec says)."""

    @abc.abstractmethod
    def _parse_action(self, text: str) -> int:
        """Parse notation to an action id; may raise NotationError. Legality is checked by the caller."""

    @abc.abstractmethod
    def position(self) -> str:
        """The position string (no history); see the game's docs for the format."""

    @property
    @abc.abstractmethod
    def history(self) -> list[int]:
        """Actions applied so far (RESIGN/AGREED_DRAW entries included)."""

    # -- generic -----------------------------------------------------
    # Subclasses keep self._resigned (list of seats) and self._agreed (bool)
    _resigned: list[int]
    _agreed: bool

    @property
    def num_players(self) -> int:
        return self.game.num_players

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        if self._agreed:
            return Outcome((), Reason.AGREEMENT)
        if self._resigned:
            left = self.active_players()
            if len(left) <= 1:
                return Outcome(tuple(left), Reason.RESIGN)
        return self._rules_outcome()

    def active_players(self) -> list[int]:
        """Seats that have not resigned."""
        return [p for p in range(self.num_players) if p not in self._resigned]

    def is_terminal(self) -> bool:
        return self.outcome() is not None

    def returns(self) -> list[float]:
        """Per-seat rewards of a finished game (all 0.0 while it goes on).

        Two players: +1 win, -1 loss, 0 draw. More players: the winners share
        +1 between them, the others share -1 (so returns sum to 0).
        """
        out = self.outcome()
        n = self.num_players
        if out is None or out.is_draw(n):
            return [0.0] * n
        w = len(out.winners)
        return [1.0 / w if p in out.winners else -1.0 / (n - w) for p in range(n)]

    def winners(self) -> tuple[int, ...]:
        out = self.outcome()
        return () if out is None else out.winners

    def result_string(self) -> str:
        """``white`` / ``black`` / ... (the winning seat name), ``draw``, or ``none`` if unfinished.

        Shared wins (RINGS) join the seat names with ``+``.
        """
        out = self.outcome()
        if out is None:
            return "none"
        if out.is_draw(self.num_players):
            return "draw"
        names = self.game.seat_names
        return "+".join(names[p] for p in out.winners)

    def is_legal(self, action: int) -> bool:
        return action in self.legal_actions()

    def string_to_action(self, text: str) -> int:
        """Parse an action in the game's notation and check that it is legal here.

        Raises :class:`NotationError` for text that is no action, and
        :class:`IllegalActionError` (with the legal actions) for a legal-looking
        action that is not allowed now.
        """
        if self.is_terminal():
            raise IllegalActionError(f"the game is over; {excerpt(text)} cannot be played")
        action = self._parse_action(text.strip())
        if not self.is_legal(action):
            legal = [self.action_to_string(a) for a in self.legal_actions()]
            raise IllegalActionError(
                f"{excerpt(text.strip())} is not legal here ({self.game.seat_names[self.current_player()]} to play)",
                legal,
            )
        return action

    def play(self, action: int | str) -> int:
        """Validated apply: an action id or notation string. Returns the action id.

        Raises :class:`IllegalActionError` / :class:`NotationError`; the state
        is unchanged on error.
        """
        if isinstance(action, str):
            action = self.string_to_action(action)
        else:
            if self.is_terminal() or not self.is_legal(action):
                legal = [self.action_to_string(a) for a in self.legal_actions()]
                raise IllegalActionError(f"action {action} is not legal here", legal)
        self.apply_action(action)
        return action

    def undo_action(self) -> int:
        """Take back the last history entry (an action, a resignation or an agreed draw)."""
        if not self.history:
            raise IndexError("nothing to undo")
        last = self.history[-1]
        if last == RESIGN:
            self.history.pop()
            self._resigned.pop()
            self._after_resign_undo()
        elif last == AGREED_DRAW:
            self.history.pop()
            self._agreed = False
        else:
            self._undo_action(last)
        return last

    def resign(self, player: int | None = None) -> None:
        """``player`` (default: the player to move) resigns."""
        if self.is_terminal():
            raise IllegalActionError("the game is already over")
        if player is None:
            player = self.current_player()
        if player not in self.active_players():
            raise IllegalActionError(f"seat {player} cannot resign")
        self._resigned.append(player)
        self.history.append(RESIGN)
        self._after_resign()

    def agree_draw(self) -> None:
        """End the game as a draw by agreement."""
        if self.is_terminal():
            raise IllegalActionError("the game is already over")
        self._agreed = True
        self.history.append(AGREED_DRAW)

    def _after_resign(self) -> None:  # noqa: B027 (an optional hook: does nothing unless a game overrides it)
        """Hook for games where play continues after a resignation (RINGS)."""

    def _after_resign_undo(self) -> None:  # noqa: B027 (an optional hook, as above)
        """Hook undoing :meth:`_after_resign`."""

    # -- records support --------------------------------------------------
    def record_omits(self, action: int) -> bool:
        """True if a record line leaves this action implicit (RINGS' ``end``)."""
        return False

    def implicit_turn_end(self) -> int | None:
        """After a record line: an action that ends the line's turn if the rules wait for it."""
        return None

    def summary(self) -> dict[str, Any]:
        """Game-specific facts for ``ringgames replay`` (e.g. rings removed)."""
        return {}

    def hash_key(self) -> int:
        """A 64-bit key of the position (not the history), for transposition tables.

        Equal positions give equal keys, in every process and on every run (a BLAKE2b hash of the
        position string: :func:`stable_key`); games may override it with a faster one.
        """
        return stable_key(self.position().encode())

    # -- people ------------------------------------------------------------
    def render(self) -> str:
        """A drawing of the position for a terminal (games override it)."""
        return self.position()

    def input_choices(self, text: str) -> list[str]:
        """Legal action strings that complete the partial input ``text`` (step-by-step entry)."""
        text = text.strip().lower()
        return [s for s in (self.action_to_string(a) for a in self.legal_actions()) if s.lower().startswith(text)]

    # -- research: observations, masks, history ----------------------------
    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """The position as ``float32`` planes of shape ``game.observation_shape()``, from
        ``player``'s perspective (default: the player to move; a finished game needs an
        explicit player). Planes: ``game.observation_planes()`` and ``docs/research.md``.

        Raises ValueError for a seat out of range or a finished game without ``player``.
        """
        if player is None:
            player = self.current_player()
            if player < 0:
                raise ValueError("the game is over: observation_tensor() needs the observing player")
        if not 0 <= int(player) < self.num_players:
            raise ValueError(f"player {player} is not a seat of this {self.num_players}-player game")
        return self._observation(int(player))

    def _observation(self, player: int) -> np.ndarray:
        """The observation for seat ``player`` (checked); games override it."""
        raise NotImplementedError(f"{self.game.title} has no observation tensor")

    def legal_action_mask(self) -> np.ndarray:
        """``bool`` array of ``game.num_distinct_actions`` entries, True exactly at :meth:`legal_actions`."""
        mask = np.zeros(self.game.num_distinct_actions, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def _replay_start(self) -> State:
        start = self._start_position()
        return self.game.new_initial_state() if start is None else self.game.state_from_position(start)

    def replay_history(self) -> Iterator[tuple[HistoryEntry, State]]:
        """Replay the history from the start: ``(entry, state after the entry)`` per entry.

        The state yielded is one replay state, moved on in place: copy it (``clone()``,
        ``position()``) to keep it beyond the next step. This is the one place that pairs
        the :data:`RESIGN` entries with the seats that resigned.
        """
        s = self._replay_start()
        resigned = iter(self._resigned)
        for a in self.history:
            to_move = s.current_player()
            if a == RESIGN:
                seat = next(resigned)
                s.resign(seat)
                entry = HistoryEntry(seat, a, "resign", to_move)
            elif a == AGREED_DRAW:
                s.agree_draw()
                entry = HistoryEntry(to_move, a, "draw", to_move)
            else:
                text = s.action_to_string(a)
                s.apply_action(a)
                entry = HistoryEntry(to_move, a, text, to_move)
            yield entry, s

    def history_entries(self) -> Iterator[HistoryEntry]:
        """The history with seats and notation: one :class:`HistoryEntry` per entry (a replay)."""
        for entry, _ in self.replay_history():
            yield entry

    # -- search helpers ----------------------------------------------
    def perft(self, depth: int) -> int:
        """Number of nodes at ``depth`` plies of the action tree (see each game's rules)."""
        if depth == 0:
            return 1
        if self.is_terminal():
            return 0
        actions = self.legal_actions()
        if depth == 1:
            return len(actions)
        total = 0
        for a in actions:
            self.apply_action(a)
            total += self.perft(depth - 1)
            self.undo_action()
        return total

    # -- serialisation -----------------------------------------------
    def serialize(self) -> str:
        """A JSON string that :func:`ringgames.deserialize_state` turns back into this state."""
        return json.dumps(
            {
                "game": self.game.name,
                "params": self.game.params(),
                "start": self._start_position(),
                "history": [
                    f"resign:{e.seat}" if e.action == RESIGN else "draw" if e.action == AGREED_DRAW else e.action
                    for e in self._entries_without_text()
                ],
            },
            separators=(",", ":"),
        )

    def _start_position(self) -> str | None:
        """Position string the game started from, or None for the standard start."""
        return getattr(self, "_start", None)

    def _entries_without_text(self) -> Iterator[HistoryEntry]:
        """The history with the resigned seats, without a replay (text left empty)."""
        resigned = iter(self._resigned)
        for a in self.history:
            seat = next(resigned) if a == RESIGN else -1
            yield HistoryEntry(seat, a, "", -1)

    def action_strings(self) -> list[str]:
        """The history in notation (needs a replay; resign/draw appear as ``resign``/``draw``)."""
        return [e.text for e in self.history_entries()]

    def __str__(self) -> str:
        return self.position()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.position()!r}>"


def apply_strings(state: State, tokens: Iterable[str]) -> State:
    """Play notation tokens one by one (validated); returns the state.

    Raises :class:`IllegalActionError` / :class:`NotationError` with the
    1-based token number in the message.
    """
    for i, tok in enumerate(tokens, 1):
        try:
            if tok.lower() == "resign":
                state.resign()
            elif tok.lower() == "draw":
                state.agree_draw()
            else:
                state.play(tok)
        except RingGamesError as exc:
            raise type(exc)(f"action {i} ({tok!r}): {exc}", *([exc.legal] if isinstance(exc, IllegalActionError) else [])) from None
    return state
