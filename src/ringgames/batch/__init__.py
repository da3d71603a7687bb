"""Batched simulation: B games in one array, stepped by compiled kernels in parallel (pgx-style).

:class:`BatchedEnv` keeps B positions of one game as rows of one ``int32`` array (the
rules kernels' own arrays) and steps them all in one compiled call split over numba's
threads, with auto-reset of finished games, dense legal masks, observation planes (those
of ``State.observation_tensor``) and a sampler of uniformly random legal actions, alone or
fused with the step (``step_random``: one compiled call per step of random agents).
``docs/research.md, *Batched simulation*`` has the API, the Gygès action-space choice and the figures
(``ringgames bench --batch``).

>>> from ringgames.batch import make
>>> env = make("rings", 3, players=3, seed=1)
>>> reward_sum, finished = env.play_random(20)
>>> reward_sum.shape, env.current_player().shape, env.observation_shape
((3, 3), (3,), (40, 23, 24))
"""

from __future__ import annotations

from .env import BatchedEnv, make

__all__ = ["BatchedEnv", "make"]
