"""OpenSpiel games for YINSH, Gygès and RINGS (needs ``pip install 'ringgames[rl]'``).

Importing this module registers five Python games with ``pyspiel.register_game``:

==========================  ===================================  ==========================
OpenSpiel name              ringgames game                       parameters
==========================  ===================================  ==========================
``python_yinsh``            ``load_game("yinsh")``               —
``python_yinsh_blitz``      ``load_game("yinsh", "blitz")``      —
``python_gyges``            ``load_game("gyges")``               —
``python_gyges_beginner``   ``load_game("gyges", "beginner")``   —
``python_rings``            ``load_game("rings", players=N)``    ``players`` (2–6, default 2)
==========================  ===================================  ==========================

so that OpenSpiel's algorithms run on them::

    import pyspiel
    import ringgames.openspiel  # registers the games
    game = pyspiel.load_game("python_rings(players=4)")

Each OpenSpiel state wraps a ringgames protocol state (:attr:`RingGamesState.ringgames_state`);
actions, player ids, returns and the observation tensor (``game.observation_shape()``, from the
observing player's perspective) are the protocol's. The game is sequential, deterministic and of
perfect information; the utility bounds and whether it is zero-sum come from the protocol's game
description. OpenSpiel's ``max_game_length`` is the protocol's ``truncation_length()`` (the
rules' bound ``max_game_length()`` where that is useful; Gygès: 10,000 actions): a game still going
there ends as a draw (:meth:`RingGamesState.truncated`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ringgames
from ringgames.protocol import TERMINAL, State

from .rl._extra import require

pyspiel = require("pyspiel", "ringgames.openspiel")
_observation = require("open_spiel.python.observation", "ringgames.openspiel")

__all__ = ["GAMES", "GAME_CLASSES", "RingGamesGame", "RingGamesObserver", "RingGamesState", "register"]

#: OpenSpiel name -> (ringgames name, variant, long name).
GAMES: dict[str, tuple[str, str | None, str]] = {
    "python_yinsh": ("yinsh", "standard", "Python YINSH"),
    "python_yinsh_blitz": ("yinsh", "blitz", "Python YINSH (blitz)"),
    "python_gyges": ("gyges", "standard", "Python Gygès"),
    "python_gyges_beginner": ("gyges", "beginner", "Python Gygès (beginner)"),
    "python_rings": ("rings", None, "Python RINGS"),
}

_UTILITY = {
    "zero_sum": pyspiel.GameType.Utility.ZERO_SUM,
    "constant_sum": pyspiel.GameType.Utility.CONSTANT_SUM,
    "general_sum": pyspiel.GameType.Utility.GENERAL_SUM,
}


class _Holder:
    """Carries the ringgames state through ``copy.deepcopy`` (which OpenSpiel's ``clone`` uses)
    with the protocol's cheap :meth:`~ringgames.protocol.State.clone`."""

    __slots__ = ("state",)

    def __init__(self, state: State):
        self.state = state

    def __deepcopy__(self, memo: dict) -> _Holder:
        return _Holder(self.state.clone())


def _game_type(short_name: str) -> Any:
    name, variant, long_name = GAMES[short_name]
    cls = ringgames.game_class(name)
    lo, hi = cls.player_range
    sample = ringgames.load_game(name, variant=variant)
    params = {"players": lo} if hi > lo else {}
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=_UTILITY[sample.game_type()],
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


class RingGamesGame(pyspiel.Game):  # type: ignore[name-defined]  # pyspiel has no stubs
    """An OpenSpiel game around a ringgames :class:`~ringgames.protocol.Game`.

    Subclasses (one per registered name) set :attr:`short_name`.
    """

    short_name: str = ""

    def __init__(self, params: dict | None = None):
        params = dict(params or {})
        name, variant, _ = GAMES[self.short_name]
        players = params.get("players")
        #: The ringgames game this OpenSpiel game plays.
        self.ringgames_game = ringgames.load_game(name, variant=variant, players=players)
        rg = self.ringgames_game
        utility_sum = rg.utility_sum()
        info = pyspiel.GameInfo(
            num_distinct_actions=rg.num_distinct_actions,
            max_chance_outcomes=0,
            num_players=rg.num_players,
            min_utility=float(rg.min_utility()),
            max_utility=float(rg.max_utility()),
            utility_sum=None if utility_sum is None else float(utility_sum),
            max_game_length=int(rg.truncation_length()),
        )
        #: Games still going after this many actions end as a draw (``truncation_length()``).
        self.truncation_length = int(rg.truncation_length())
        super().__init__(_TYPES[self.short_name], info, params)

    def new_initial_state(self) -> RingGamesState:
        """The start of a game."""
        return RingGamesState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> Any:
        """The observation tensor of the protocol; OpenSpiel's public-information observer
        for information states (the game has perfect information)."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return RingGamesObserver(self.ringgames_game, params)
        return _observation.IIGObserverForPublicInfoGame(iig_obs_type, params)


class RingGamesState(pyspiel.State):  # type: ignore[name-defined]  # pyspiel has no stubs
    """An OpenSpiel state that plays a ringgames protocol state."""

    def __init__(self, game: RingGamesGame):
        super().__init__(game)
        self._holder = _Holder(game.ringgames_game.new_initial_state())
        self._cap = game.truncation_length

    @property
    def ringgames_state(self) -> State:
        """The wrapped protocol state (read it; play through OpenSpiel's ``apply_action``)."""
        return self._holder.state

    # -- OpenSpiel's Python-game API -------------------------------------------
    def truncated(self) -> bool:
        """True when the game reached the game's ``truncation_length()`` before the rules ended it
        (then it is over, as a draw: OpenSpiel's ``max_game_length`` must bound every game)."""
        st = self._holder.state
        return len(st.history) >= self._cap and not st.is_terminal()

    def current_player(self) -> int:
        """The seat to decide, or ``pyspiel.PlayerId.TERMINAL``."""
        p = self._holder.state.current_player()
        return int(pyspiel.PlayerId.TERMINAL) if p == TERMINAL or self.truncated() else p

    def _legal_actions(self, player: int) -> list[int]:
        return [] if self.truncated() else self._holder.state.legal_actions()

    def _apply_action(self, action: int) -> None:
        self._holder.state.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self._holder.state.action_to_string(int(action))

    def is_terminal(self) -> bool:
        return self._holder.state.is_terminal() or self.truncated()

    def returns(self) -> list[float]:
        """The protocol's returns (all 0.0 while the game goes on or after a truncation)."""
        return [float(r) for r in self._holder.state.returns()]

    def __str__(self) -> str:
        return self._holder.state.position()


class RingGamesObserver:
    """OpenSpiel's PyObserver: ``tensor`` (flat float32) and ``dict["observation"]`` (shaped view),
    filled from ``State.observation_tensor(player)``; the string is the position string."""

    def __init__(self, game: ringgames.Game, params: dict | None = None):
        if params:
            raise ValueError(f"the ringgames observer takes no parameters, got {sorted(params)}")
        shape = tuple(game.observation_shape())
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: RingGamesState, player: int) -> None:
        """Write ``state``'s observation from ``player``'s perspective into :attr:`tensor`."""
        self.tensor[:] = np.asarray(state.ringgames_state.observation_tensor(player), np.float32).ravel()

    def string_from(self, state: RingGamesState, player: int) -> str:
        """The position string (the game has perfect information)."""
        return state.ringgames_state.position()


class PythonYinshGame(RingGamesGame):
    """OpenSpiel's ``python_yinsh``."""

    short_name = "python_yinsh"


class PythonYinshBlitzGame(RingGamesGame):
    """OpenSpiel's ``python_yinsh_blitz``."""

    short_name = "python_yinsh_blitz"


class PythonGygesGame(RingGamesGame):
    """OpenSpiel's ``python_gyges``."""

    short_name = "python_gyges"


class PythonGygesBeginnerGame(RingGamesGame):
    """OpenSpiel's ``python_gyges_beginner``."""

    short_name = "python_gyges_beginner"


class PythonRingsGame(RingGamesGame):
    """OpenSpiel's ``python_rings`` (parameter ``players``, 2–6)."""

    short_name = "python_rings"


#: OpenSpiel name -> the registered game class (module-level classes, so that games pickle).
GAME_CLASSES: dict[str, type[RingGamesGame]] = {
    cls.short_name: cls
    for cls in (PythonYinshGame, PythonYinshBlitzGame, PythonGygesGame, PythonGygesBeginnerGame, PythonRingsGame)
}
_TYPES: dict[str, Any] = {}


def register() -> None:
    """Register the games with OpenSpiel (done on import; calling it again does nothing)."""
    registered = set(pyspiel.registered_names())
    for short_name, cls in GAME_CLASSES.items():
        if short_name not in _TYPES:
            _TYPES[short_name] = _game_type(short_name)
        if short_name not in registered:
            pyspiel.register_game(_TYPES[short_name], cls)


register()
