"""Batched simulation for researchers: K playouts from a position, results as NumPy arrays.

One seed makes one game: game ``i`` of ``playouts(state, count, seed)`` is the random
playout with seed ``seed + i``, and the compiled kernel path and the Python path
(:func:`random_playout`) play the same actions for the same seed (the generator and the
choice rule are in :mod:`ringgames.rng`).

>>> import ringgames
>>> from ringgames.simulate import playouts, random_playout
>>> s = ringgames.load_game("yinsh").new_initial_state()
>>> res = playouts(s, 50, seed=1)
>>> res["returns"].shape, res["length"].shape
((50, 2), (50,))
>>> int(res["length"][3]) == len(random_playout(s, seed=4))  # game 3 of seed 1 is the playout of seed 4
True
>>> res = playouts(s, 3, seed=1, policy=lambda state, rng: state.legal_actions()[0])
>>> int(res["length"][0]) == int(res["length"][1])  # a deterministic policy plays the same game
True
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from .protocol import State
from .rng import PlayoutRandom

__all__ = ["playouts", "random_playout", "playout_actions"]

Policy = Callable[[State, random.Random], int]


def random_playout(state: State, seed: int, max_actions: int = 100_000) -> list[int]:
    """The actions of the random playout with ``seed`` from ``state`` (not changed), through the
    Python protocol: ``legal[rng.below(len(legal))]`` with :class:`~ringgames.rng.PlayoutRandom`."""
    s = state.clone()
    rng = PlayoutRandom(seed)
    out: list[int] = []
    while len(out) < max_actions and not s.is_terminal():
        legal = s.legal_actions()
        a = legal[rng.below(len(legal))]
        s.apply_action(a)
        out.append(a)
    return out


def playout_actions(state: State, seed: int, max_actions: int = 100_000, path: str = "kernel") -> list[int]:
    """The actions of the random playout with ``seed``: ``path="kernel"`` plays it in the game's
    compiled kernel (where it has one), ``"python"`` through the protocol; both give the same list."""
    if path not in ("kernel", "python"):
        raise ValueError(f"path must be 'kernel' or 'python', not {path!r}")
    if path == "kernel" and hasattr(state, "random_playout_actions"):
        return state.random_playout_actions(seed, max_actions)
    return random_playout(state, seed, max_actions)


def playouts(state: State, count: int, seed: int = 0, policy: Policy | None = None, max_actions: int = 100_000) -> dict[str, np.ndarray]:
    """Play ``count`` games from ``state`` (which is not changed) to the end.

    ``policy(state, rng) -> action`` chooses every action (``rng`` is a
    :class:`~ringgames.rng.PlayoutRandom` seeded with ``seed + i`` for game i); without one,
    actions are uniformly random and the game's compiled batched playouts are used when it
    has them (the same games as :func:`random_playout` with seeds ``seed + i``).
    Returns ``returns`` (float64, shape (count, players)) and ``length`` (int32, actions
    played, shape (count,)); the kernel path adds game-specific arrays (e.g. YINSH
    ``winner``, ``reason``, ``removed``).

    Raises ValueError if the game is already over.
    """
    if state.is_terminal():
        raise ValueError("the game is over")
    if policy is None and hasattr(state, "random_playouts"):
        return state.random_playouts(count, seed)
    returns = np.zeros((count, state.num_players))
    lengths = np.zeros(count, dtype=np.int32)
    for i in range(count):
        rng = PlayoutRandom(seed + i)
        s = state.clone()
        n = 0
        while not s.is_terminal() and n < max_actions:
            if policy is None:
                legal = s.legal_actions()
                a = legal[rng.below(len(legal))]
            else:
                a = policy(s, rng)
            s.apply_action(a)
            n += 1
        returns[i] = s.returns()
        lengths[i] = n
    return {"returns": returns, "length": lengths}
