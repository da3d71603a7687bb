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
import re
from collections.abc import Callable
from typing import Protocol

from ..protocol import RingGamesError, State
from ..textbounds import excerpt

__all__ = ["Agent", "AgentError", "RandomAgent", "AGENTS", "make_agent", "check_spec", "parse_spec", "with_seed", "ENGINE_PREFIX"]

#: Spec prefix of an external engine: ``engine:CMD[;key=value,...]`` (see :mod:`ringgames.ai.external`).
ENGINE_PREFIX = "engine:"


class AgentError(RingGamesError):
    """An agent could not give a legal action (an external engine crashed, timed out or sent an
    illegal move): the game ends as an error, not a result."""


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


def _search(**kw):
    from .compiled.agent import CompiledAlphaBetaAgent

    return CompiledAlphaBetaAgent(**kw)


def _uct(**kw):
    from .compiled.uct import CompiledMCTSAgent

    return CompiledMCTSAgent(**kw)


def _level(**kw):
    from .levels import LevelAgent

    return LevelAgent(**kw)


def _baseline(**kw):
    from .levels import BaselineAgent

    return BaselineAgent(**kw)


#: Agent kinds: name -> factory(**options). Other modules add to it.
AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": _greedy,
    "mcts": _mcts,
    "alphabeta": _alphabeta,
    "search": _search,
    "uct": _uct,
    "level": _level,
    "baseline": _baseline,
}


def _convert(v: str):
    for t in (int, float):
        try:
            return t(v)
        except ValueError:
            pass
    return v


def _parse_options(rest: str) -> dict:
    opts: dict = {}
    for part in filter(None, rest.split(",")):
        if "=" in part:
            k, v = part.split("=", 1)
            k = k.strip()
            if not k:
                raise ValueError(f"an option without a name: {excerpt(part.strip(), 40)}")
        else:  # positional, e.g. level:3
            k, v = "value", part
        if k in opts:
            raise ValueError(f"option {excerpt(k, 40)} given twice")
        opts[k] = _convert(v.strip())
    return opts


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"mcts:iterations=2000,c=1.4"`` -> ``("mcts", {"iterations": 2000, "c": 1.4})``.

    An external engine's spec keeps its command whole: ``"engine:ringgames engine --level 2;movetime=500"``
    -> ``("engine", {"command": "ringgames engine --level 2", "movetime": 500})`` (options after the
    last ``;``).
    """
    if spec.strip().lower().startswith(ENGINE_PREFIX):
        rest = spec.strip()[len(ENGINE_PREFIX):]
        command, sep, tail = rest.rpartition(";")
        if not sep or not all("=" in p for p in filter(None, tail.split(","))):
            command, tail = rest, ""
        return "engine", {"command": command.strip(), **_parse_options(tail)}
    kind, _, rest = spec.strip().partition(":")
    return kind.lower(), _parse_options(rest)


def make_agent(spec: str, external: bool = False) -> Agent:
    """An agent from a spec string. Raises ValueError for an unknown kind or option.

    ``engine:CMD`` specs start a program, so they are refused unless ``external`` is true
    (``ringgames match`` and ``ringgames strength`` allow them; the server never does).
    """
    kind, opts = parse_spec(spec)
    if kind == "engine":
        if not external:
            raise ValueError("external engines (engine:CMD) are not allowed here")
        from .external import EngineAgent

        try:
            return EngineAgent(**opts)
        except TypeError as exc:
            raise ValueError(f"bad options for agent 'engine': {exc}") from None
    if kind not in AGENTS:
        raise ValueError(f"unknown agent {kind!r}; known: {', '.join(sorted(AGENTS))}")
    try:
        return AGENTS[kind](**opts)
    except TypeError as exc:
        m = re.search(r"unexpected keyword argument '([^']*)'", str(exc))
        if m:
            raise ValueError(f"agent {kind!r} has no option {excerpt(m.group(1), 40)}") from None
        raise ValueError(f"bad options for agent {kind!r}: {exc}") from None


def check_spec(spec: str, game_name: str, players: int = 2, external: bool = False) -> Agent:
    """:func:`make_agent`, and what only a game decides checked too — the agent a level plays for ``game_name``
    with ``players`` seats, and its evaluation by name — so that a bad option is refused before the first game,
    not inside it. Returns the agent (an external engine is not started yet)."""
    agent = make_agent(spec, external=external)
    inner = agent
    agent_for = getattr(agent, "agent_for", None)
    if agent_for is not None:
        inner = agent_for(game_name, players)
    eval_name = getattr(inner, "eval_name", "")
    if eval_name:
        from .evaluation import get_evaluator

        get_evaluator(game_name, eval_name)
    return agent


def with_seed(spec: str, seed: int) -> str:
    """The spec with ``seed=`` set (kept if the spec already has one)."""
    kind, opts = parse_spec(spec)
    if "seed" in opts:
        return spec
    if kind == "engine":
        spec = spec.rstrip()
        return spec + ("," if len(opts) > 1 else "" if spec.endswith(";") else ";") + f"seed={seed}"
    return spec + ("," if ":" in spec else ":") + f"seed={seed}"
