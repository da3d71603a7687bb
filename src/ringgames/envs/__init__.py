"""Environments for reinforcement learning (needs ``pip install 'ringgames[rl]'``).

* PettingZoo AEC environments, one module per game as PettingZoo names them::

      from ringgames.envs import yinsh_v0, gyges_v0, rings_v0
      env = rings_v0.env(players=4, render_mode="rgb_array")

* :class:`SingleAgentEnv`: a Gymnasium environment where one seat plays against fixed
  opponents (``opponent="level:2"``, ``"random"``, ``"mcts:iterations=200"``, any agent spec);
  importing this package registers the Gymnasium ids ``ringgames/Yinsh-v0``,
  ``ringgames/YinshBlitz-v0``, ``ringgames/Gyges-v0``, ``ringgames/GygesBeginner-v0`` and
  ``ringgames/Rings-v0`` (``players=`` as a keyword of ``gymnasium.make``) when Gymnasium is installed.

This package imports without the ``rl`` extra; the environment modules raise an ImportError
that names it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GYM_IDS", "SingleAgentEnv", "gyges_v0", "rings_v0", "yinsh_v0"]

#: Gymnasium id -> (game, variant).
GYM_IDS: dict[str, tuple[str, str | None]] = {
    "ringgames/Yinsh-v0": ("yinsh", "standard"),
    "ringgames/YinshBlitz-v0": ("yinsh", "blitz"),
    "ringgames/Gyges-v0": ("gyges", "standard"),
    "ringgames/GygesBeginner-v0": ("gyges", "beginner"),
    "ringgames/Rings-v0": ("rings", None),
}


def register_gymnasium() -> bool:
    """Register :data:`GYM_IDS` with Gymnasium (again: nothing). False when Gymnasium is missing."""
    try:
        import gymnasium
    except ImportError:
        return False
    for env_id, (game, variant) in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="ringgames.envs.single:SingleAgentEnv",
                               kwargs={"game": game, "variant": variant})
    return True


def __getattr__(name: str) -> Any:
    if name == "SingleAgentEnv":
        from .single import SingleAgentEnv

        return SingleAgentEnv
    if name in ("yinsh_v0", "gyges_v0", "rings_v0"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


register_gymnasium()
