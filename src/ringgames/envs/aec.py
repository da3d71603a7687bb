"""The PettingZoo AEC environment shared by ``yinsh_v0``, ``gyges_v0`` and ``rings_v0``.

* Agents ``player_0`` … ``player_{N-1}`` are the seats in turn order.
* Observation of an agent: ``{"observation": Box(float32, game.observation_shape()),
  "action_mask": Box(int8, (num_distinct_actions,))}``; the tensor is
  ``State.observation_tensor(seat)`` (from that agent's perspective) and the mask is
  ``State.legal_action_mask()`` for the agent to act, all zeros for the others.
* Actions: ``Discrete(num_distinct_actions)``, the protocol's action ids. A multi-decision turn
  (a YINSH ring move, then a row, then a ring; a RINGS placement, then conversions) is several
  consecutive selections of the same agent.
* Rewards: 0 until the end, then ``State.returns()`` (for two players +1/−1/0).
* A game still going after ``game.truncation_length()`` actions is truncated (every agent's
  ``truncations`` entry True, rewards 0); only Gygès has such a cap (10,000 actions).
* ``action_frame="observer"`` numbers actions (and masks) in each agent's own frame,
  ``game.observer_actions(seat)``, the frame of its observation: Gygès turns the board for North,
  so one network can play both seats; the default ``"absolute"`` uses the protocol's ids.
* An illegal action raises :class:`ValueError` (with the agent and the action) and changes nothing.
* ``render_mode="human"`` prints ``State.render()`` after each step; ``"rgb_array"`` returns the
  board as an ``(H, W, 3)`` ``uint8`` image (:func:`ringgames.envs.render.render_rgb`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import ringgames

from ..protocol import State
from ..rl._extra import require


def action_id(action: Any, where: str = "") -> int:
    """``action`` as an int action id: Python and NumPy integers only (``3.5``, ``True`` and ``"3"`` are
    refused with ValueError instead of being truncated or converted)."""
    if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
        raise ValueError(f"{where}an action is an int action id, not {str(action)[:80]!r} ({type(action).__name__})")
    return int(action)

_pz = require("pettingzoo", "ringgames.envs (PettingZoo)")
_spaces = require("gymnasium.spaces", "ringgames.envs (PettingZoo)")
_seeding = require("gymnasium.utils.seeding", "ringgames.envs (PettingZoo)")
_wrappers = require("pettingzoo.utils.wrappers", "ringgames.envs (PettingZoo)")

__all__ = ["RENDER_MODES", "ActionFrame", "RingGamesAECEnv", "observation_space"]

RENDER_MODES = ("human", "rgb_array")


class ActionFrame:
    """Action ids as one seat sees them: ``"absolute"`` (the protocol's ids) or ``"observer"``
    (``game.observer_actions(seat)``: the frame of that seat's observation, where Gygès turns the
    board for North, so that one network can play either seat)."""

    def __init__(self, game: ringgames.Game, frame: str):
        if frame not in ("absolute", "observer"):
            raise ValueError(f"action_frame must be 'absolute' or 'observer', not {frame!r}")
        self.frame = frame
        ident = np.arange(game.num_distinct_actions, dtype=np.int64)
        perms = [np.asarray(game.observer_actions(p), dtype=np.int64) if frame == "observer" else ident
                 for p in range(game.num_players)]
        #: Per seat: ``to_seat[p][a]`` is the seat-frame id of absolute action ``a``, ``to_absolute[p]`` its inverse.
        self.to_seat = [None if np.array_equal(perm, ident) else perm for perm in perms]
        self.to_absolute = [None if perm is None else np.argsort(perm) for perm in self.to_seat]

    def mask(self, seat: int, mask: np.ndarray) -> np.ndarray:
        """An absolute mask in ``seat``'s frame."""
        perm = self.to_seat[seat]
        if perm is None:
            return mask
        out = np.empty_like(mask)
        out[perm] = mask
        return out

    def absolute(self, seat: int, action: int) -> int:
        """``seat``'s action id as the protocol's id."""
        inv = self.to_absolute[seat]
        return action if inv is None else int(inv[action])


def observation_space(game: ringgames.Game) -> Any:
    """The observation Box of ``game``: float32 in [0, 1] of ``game.observation_shape()``."""
    shape = tuple(int(n) for n in game.observation_shape())
    return _spaces.Box(low=0.0, high=1.0, shape=shape, dtype=np.float32)


class RingGamesAECEnv(_pz.AECEnv):  # type: ignore[name-defined]  # imported by require()
    """An AEC environment playing one ringgames game (see the module docstring)."""

    _np_random: Any  # set by reset() (PettingZoo keeps it as a private attribute)
    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "name": "ringgames", "is_parallelizable": False,
                                "render_fps": 2}

    def __init__(self, game: str, variant: str | None = None, players: int | None = None,
                 render_mode: str | None = None, env_name: str | None = None, action_frame: str = "absolute"):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'human' or 'rgb_array', not {render_mode!r}")
        #: The ringgames game (protocol).
        self.game = ringgames.load_game(game, variant=variant, players=players)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": env_name or f"{self.game.name}_v0"}
        #: How action ids and masks are numbered (see :class:`ActionFrame`).
        self.action_frame = ActionFrame(self.game, action_frame)
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        num_actions = self.game.num_distinct_actions
        self.observation_spaces = {
            a: _spaces.Dict({
                "observation": observation_space(self.game),
                "action_mask": _spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        self.action_spaces = {a: _spaces.Discrete(num_actions) for a in self.possible_agents}
        #: Games still going after this many actions are truncated.
        self.truncation_length = int(self.game.truncation_length())
        #: The protocol state of the game in progress (None before the first reset).
        self.state: State | None = None

    def __str__(self) -> str:
        return self.metadata["name"]

    # -- spaces ----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    # -- AEC API ---------------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of ``agent``: its view of the board and its legal-action mask."""
        state = self._need_state()
        seat = self.agent_name_mapping[agent]
        obs = np.asarray(state.observation_tensor(seat), dtype=np.float32)
        if state.current_player() == seat:
            mask = self.action_frame.mask(seat, np.asarray(state.legal_action_mask(), dtype=np.int8))
        else:
            mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game (the games have no chance: ``seed`` only seeds :attr:`np_random`)."""
        if seed is not None or not hasattr(self, "_np_random") or self._np_random is None:
            self._np_random, self._np_random_seed = _seeding.np_random(seed)
        self.state = self.game.new_initial_state()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.state.current_player()]

    def step(self, action: Any) -> None:
        """Play ``action`` for :attr:`agent_selection` (``None`` for an agent whose game is over)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._need_state()
        a = action_id(action, f"{agent}: ")
        if not 0 <= a < self.game.num_distinct_actions:
            raise ValueError(f"{agent}: action {a} is not an action id (0–{self.game.num_distinct_actions - 1})")
        a = self.action_frame.absolute(self.agent_name_mapping[agent], a)
        if not state.legal_action_mask()[a]:
            raise ValueError(f"{agent}: action {action_id(action)} is not legal here (see the observation's action_mask)")
        self._cumulative_rewards[agent] = 0.0
        state.apply_action(a)
        if state.is_terminal():
            returns = state.returns()
            for ag in self.agents:
                self.rewards[ag] = float(returns[self.agent_name_mapping[ag]])
                self.terminations[ag] = True
        else:
            truncated = len(state.history) >= self.truncation_length
            for ag in self.agents:
                self.rewards[ag] = 0.0
                self.truncations[ag] = truncated
            self.agent_selection = self.possible_agents[state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Any:
        """``"human"``: print the text board; ``"rgb_array"``: the board as an image."""
        if self.render_mode is None:
            warnings.warn("render() without a render_mode: pass render_mode='human' or 'rgb_array'", stacklevel=2)
            return None
        state = self._need_state()
        if self.render_mode == "human":
            print(state.render())
            return None
        from .render import render_rgb

        return render_rgb(state)

    def close(self) -> None:
        """Nothing to release."""

    def _need_state(self) -> State:
        if self.state is None:
            raise RuntimeError("call reset() before using the environment")
        return self.state


def make_env_fns(game: str) -> tuple[Callable[..., Any], Callable[..., RingGamesAECEnv]]:
    """``(env, raw_env)`` for the PettingZoo module ``<game>_v0``: ``raw_env`` builds the bare AEC
    environment, ``env`` wraps it in PettingZoo's order-enforcing wrapper (as PettingZoo's games do)."""
    cls = ringgames.game_class(game)
    env_name = f"{cls.name}_v0"
    variants = ", ".join(repr(v) for v in cls.variants)
    lo, hi = cls.player_range

    def raw_env(variant: str | None = None, players: int | None = None, render_mode: str | None = None,
                action_frame: str = "absolute") -> RingGamesAECEnv:
        return RingGamesAECEnv(game, variant=variant, players=players, render_mode=render_mode, env_name=env_name,
                               action_frame=action_frame)

    def env(variant: str | None = None, players: int | None = None, render_mode: str | None = None,
            action_frame: str = "absolute") -> Any:
        return _wrappers.OrderEnforcingWrapper(raw_env(variant=variant, players=players, render_mode=render_mode,
                                                       action_frame=action_frame))

    seats = f"{lo}–{hi} players" if hi > lo else f"{lo} players"
    raw_env.__doc__ = f"The bare AEC environment of {cls.title} ({seats}; variants {variants})."
    env.__doc__ = f"The AEC environment of {cls.title} ({seats}; variants {variants}), order-enforced."
    return env, raw_env
