"""The agent protocol and agent specs (``"random"``, ``"random:seed=3"``).

An agent chooses one action for the player to move in a state, through the
game protocol only.

>>> from ringgames import load_game
>>> agent = make_agent("random:seed=1")
>>> s = load_game("yinsh").new_initial_state()
>>> agent.choose(s) in s.legal_actions()
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from ..protocol import State

__all__ = ["Agent", "RandomAgent", "AGENTS", "make_agent", "parse_spec", "with_seed"]


class Agent(Protocol):
    """Anything with ``choose(state) -> action`` (a legal action id for the player to move)."""

    name: str

    def choose(self, state: State) -> int: ...


class RandomAgent:
    """Uniformly random legal actions; ``seed`` makes it repeatable."""

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.name = "random" if seed is None else f"random:seed={seed}"

    def choose(self, state: State) -> int:
        return self.rng.choice(state.legal_actions())


def _greedy(**kw):
    from .greedy import GreedyAgent

    return GreedyAgent(**kw)


def _mcts(**kw):
    from .mcts import MCTSAgent

    return MCTSAgent(**kw)


def _alphabeta(**kw):
    from .alphabeta import AlphaBetaAgent

    return AlphaBetaAgent(**kw)


def _level(**kw):
    from .levels import LevelAgent

    return LevelAgent(**kw)


#: Agent kinds: name -> factory(**options). Other modules add to it.
AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": _greedy,
    "mcts": _mcts,
    "alphabeta": _alphabeta,
    "level": _level,
}


def _convert(v: str):
    for t in (int, float):
        try:
            return t(v)
        except ValueError:
            pass
    return v


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"mcts:iterations=2000,c=1.4"`` -> ``("mcts", {"iterations": 2000, "c": 1.4})``."""
    kind, _, rest = spec.strip().partition(":")
    opts = {}
    for part in filter(None, rest.split(",")):
        if "=" in part:
            k, v = part.split("=", 1)
            opts[k.strip()] = _convert(v.strip())
        else:  # positional, e.g. level:3
            opts["value"] = _convert(part.strip())
    return kind.lower(), opts


def make_agent(spec: str) -> Agent:
    """An agent from a spec string. Raises ValueError for an unknown kind or option."""
    kind, opts = parse_spec(spec)
    if kind not in AGENTS:
        raise ValueError(f"unknown agent {kind!r}; known: {', '.join(sorted(AGENTS))}")
    try:
        return AGENTS[kind](**opts)
    except TypeError as exc:
        raise ValueError(f"bad options for agent {kind!r}: {exc}") from None


def with_seed(spec: str, seed: int) -> str:
    """The spec with ``seed=`` set (kept if the spec already has one)."""
    kind, opts = parse_spec(spec)
    if "seed" in opts:
        return spec
    return spec + ("," if ":" in spec else ":") + f"seed={seed}"
