"""Research tooling around the game protocol: self-play data (:mod:`ringgames.rl.selfplay`).

The framework adapters live in :mod:`ringgames.openspiel` (OpenSpiel) and
:mod:`ringgames.envs` (PettingZoo, Gymnasium). They need the optional extra
``pip install 'ringgames[rl]'``; this package imports without it, and each adapter
raises an :class:`ImportError` naming the extra when its framework is missing.
"""

from __future__ import annotations

from ._extra import require

__all__ = ["require"]
