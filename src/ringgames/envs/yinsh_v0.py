"""PettingZoo AEC environment of YINSH: ``env(variant=None, render_mode=None)``.

See :mod:`ringgames.envs.aec` for the observations, actions, rewards and rendering.
"""

from __future__ import annotations

from .aec import make_env_fns

__all__ = ["env", "raw_env"]

env, raw_env = make_env_fns("yinsh")
