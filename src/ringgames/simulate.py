"""Batched simulation for researchers: K playouts from a position, results as NumPy arrays.

>>> import ringgames
>>> from ringgames.simulate import playouts
>>> s = ringgames.load_game("yinsh").new_initial_state()
>>> res = playouts(s, 50, seed=1)
>>> res["returns"].shape, res["length"].shape
((50, 2), (50,))
>>> res = playouts(s, 3, seed=1, policy=lambda state, rng: state.legal_actions()[0])
>>> int(res["length"][0]) == int(res["length"][1])  # a deterministic policy plays the same game
True
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from .protocol import State

__all__ = ["playouts"]

Policy = Callable[[State, random.Random], int]


def playouts(state: State, count: int, seed: int = 0, policy: Policy | None = None, max_actions: int = 100_000) -> dict[str, np.ndarray]:
    """Play ``count`` games from ``state`` (which is not changed) to the end.

    ``policy(state, rng) -> action`` chooses every action; without one, actions are
    uniformly random and the game's compiled batched playouts are used when it has them.
    Returns ``returns`` (float64, shape (count, players)) and ``length`` (int32, actions
    played, shape (count,)); the kernel path adds game-specific arrays (e.g. YINSH
    ``winner``, ``reason``, ``removed``).

    Raises ValueError if the game is already over.
    """
    if state.is_terminal():
        raise ValueError("the game is over")
    if policy is None and hasattr(state, "random_playouts"):
        return state.random_playouts(count, seed)
    rng = random.Random(seed)
    returns = np.zeros((count, state.num_players))
    lengths = np.zeros(count, dtype=np.int32)
    for i in range(count):
        s = state.clone()
        n = 0
        while not s.is_terminal() and n < max_actions:
            if policy is None:
                legal = s.legal_actions()
                a = legal[int(rng.random() * len(legal))]
            else:
                a = policy(s, rng)
            s.apply_action(a)
            n += 1
        returns[i] = s.returns()
        lengths[i] = n
    return {"returns": returns, "length": lengths}
