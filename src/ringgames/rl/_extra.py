"""Imports of the optional ``ringgames[rl]`` packages, with an error that says how to get them."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXTRA_HINT", "require"]

#: What to install for the research adapters.
EXTRA_HINT = "pip install 'ringgames[rl]'"


def require(module: str, feature: str) -> ModuleType:
    """Import ``module`` (a package of the ``rl`` extra) for ``feature``.

    Raises :class:`ImportError` naming the feature, the missing package and the
    install command, instead of a bare ``No module named ...``.

    >>> require("json", "a doctest").__name__
    'json'
    >>> require("no_such_module_xyz", "the frobnicator")
    Traceback (most recent call last):
    ...
    ImportError: the frobnicator needs the optional package 'no_such_module_xyz' (No module named 'no_such_module_xyz'): pip install 'ringgames[rl]'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{feature} needs the optional package {module!r} ({exc}): {EXTRA_HINT}") from exc
