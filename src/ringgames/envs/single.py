"""A single-agent Gymnasium environment: one seat against fixed opponents.

::

    env = SingleAgentEnv("yinsh", variant="blitz", opponent="level:2")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))

* ``observation``: ``{"observation": Box(float32), "action_mask": Box(int8)}``, the learner's view
  (``State.observation_tensor(seat)``) and its legal actions; ``info["action_mask"]`` and
  :meth:`SingleAgentEnv.action_masks` give the mask too (for masked policies).
* ``action``: ``Discrete(num_distinct_actions)``, the protocol's action ids. The opponents
  (``ringgames.ai.agents.make_agent`` specs, seeded from the reset's seed) move in between; a
  multi-decision turn of the learner is several steps.
* ``reward``: 0 until the end, then the learner's ``State.returns()`` entry; an episode still
  going after ``game.truncation_length()`` actions (all seats') is truncated (Gygès: 10,000).
* An illegal action ends the episode with ``illegal_reward`` (default: the game's minimum utility)
  and ``info["illegal_action"] = True``, as PettingZoo's illegal-move wrapper does; with
  ``illegal="raise"`` it raises :class:`ValueError` instead.
* ``action_frame="observer"``: action ids and masks in the learner's own frame
  (``game.observer_actions(seat)``, the frame of its observation; Gygès turns the board for North).
* ``seat``: the learner's seat (default 0), ``"random"`` for a random seat each episode, or
  ``reset(options={"seat": k})``.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

import ringgames

from ..ai.agents import Agent, make_agent, with_seed
from ..protocol import State
from ..rl._extra import require
from .aec import RENDER_MODES, ActionFrame, action_id, observation_space

_gym = require("gymnasium", "ringgames.envs.SingleAgentEnv")

__all__ = ["SingleAgentEnv"]


class SingleAgentEnv(_gym.Env):  # type: ignore[name-defined]  # imported by require()
    """One seat of ``game`` against ``opponent`` (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(self, game: str = "yinsh", variant: str | None = None, players: int | None = None,
                 opponent: str = "random", seat: int | str = 0, render_mode: str | None = None,
                 illegal: str = "lose", illegal_reward: float | None = None, action_frame: str = "absolute"):
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'human' or 'rgb_array', not {render_mode!r}")
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal must be 'lose' or 'raise', not {illegal!r}")
        #: The ringgames game (protocol).
        self.game = ringgames.load_game(game, variant=variant, players=players)
        #: How the learner's action ids and masks are numbered (see :class:`~ringgames.envs.aec.ActionFrame`).
        self.action_frame = ActionFrame(self.game, action_frame)
        if seat != "random" and not (isinstance(seat, int) and 0 <= seat < self.game.num_players):
            raise ValueError(f"seat must be 0–{self.game.num_players - 1} or 'random', not {seat!r}")
        self.opponent_spec = opponent
        make_agent(opponent)  # a bad spec fails here, with the agent's message
        self.seat_option = seat
        self.render_mode = render_mode
        self.illegal = illegal
        self.illegal_reward = float(self.game.min_utility() if illegal_reward is None else illegal_reward)
        num_actions = self.game.num_distinct_actions
        self.observation_space = _gym.spaces.Dict({
            "observation": observation_space(self.game),
            "action_mask": _gym.spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8),
        })
        self.action_space = _gym.spaces.Discrete(num_actions)
        lo, hi = float(self.game.min_utility()), float(self.game.max_utility())
        self.reward_range = (min(lo, self.illegal_reward), max(hi, self.illegal_reward))
        #: Episodes still going after this many actions are truncated.
        self.truncation_length = int(self.game.truncation_length())
        #: The protocol state of the episode (None before the first reset).
        self.state: State | None = None
        #: The learner's seat in this episode.
        self.seat = 0
        self.opponents: dict[int, Agent] = {}

    # -- Gymnasium API -----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = options or {}
        seat = options.get("seat", self.seat_option)
        if seat == "random":
            seat = int(self.np_random.integers(self.game.num_players))
        if not (isinstance(seat, (int, np.integer)) and 0 <= seat < self.game.num_players):
            raise ValueError(f"seat must be 0–{self.game.num_players - 1} or 'random', not {seat!r}")
        self.seat = int(seat)
        self.opponents = {p: self._make_opponent(int(self.np_random.integers(2**31)))
                          for p in range(self.game.num_players) if p != self.seat}
        self.state = self.game.new_initial_state()
        self._opponents_move()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        state = self.state
        if state is None:
            raise RuntimeError("call reset() before step()")
        if state.is_terminal() or self._over_by_illegal or self._truncated:
            raise RuntimeError("the episode is over; call reset()")
        a = action_id(action)
        legal = 0 <= a < self.game.num_distinct_actions
        if legal:
            a = self.action_frame.absolute(self.seat, a)
            legal = bool(state.legal_action_mask()[a])
        if not legal:
            a = action_id(action)
            if self.illegal == "raise":
                raise ValueError(f"action {a} is not legal here (see the observation's action_mask)")
            self._over_by_illegal = True
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), self.illegal_reward, True, False, info
        state.apply_action(a)
        self._opponents_move()
        terminated = state.is_terminal()
        truncated = not terminated and len(state.history) >= self.truncation_length
        self._truncated = truncated
        reward = float(state.returns()[self.seat]) if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self) -> Any:
        """``"human"``: print the text board; ``"rgb_array"``: the board as an image."""
        if self.render_mode is None:
            warnings.warn("render() without a render_mode: pass render_mode='human' or 'rgb_array'", stacklevel=2)
            return None
        if self.state is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "human":
            print(self.state.render())
            return None
        from .render import render_rgb

        return render_rgb(self.state)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array, in its action frame (all False once the episode is over)."""
        if self.state is None or self.state.is_terminal() or self._over_by_illegal or self._truncated:
            return np.zeros(self.game.num_distinct_actions, dtype=bool)
        return self.action_frame.mask(self.seat, np.asarray(self.state.legal_action_mask(), dtype=bool))

    # -- helpers -----------------------------------------------------------------------------
    _over_by_illegal = False
    _truncated = False

    def _make_opponent(self, seed: int) -> Agent:
        try:
            return make_agent(with_seed(self.opponent_spec, seed))
        except ValueError:  # an agent without a seed option (deterministic): as given
            return make_agent(self.opponent_spec)

    def _opponents_move(self) -> None:
        self._over_by_illegal = False
        self._truncated = False
        state = self.state
        assert state is not None
        cap = self.truncation_length
        while not state.is_terminal() and state.current_player() != self.seat and len(state.history) < cap:
            state.apply_action(self.opponents[state.current_player()].choose(state))

    def _observation(self) -> dict[str, np.ndarray]:
        assert self.state is not None
        return {
            "observation": np.asarray(self.state.observation_tensor(self.seat), dtype=np.float32),
            "action_mask": self.action_masks().astype(np.int8),
        }

    def _info(self) -> dict:
        return {"seat": self.seat, "action_mask": self.action_masks()}
