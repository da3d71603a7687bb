"""One switch for the compiled hot paths.

Rules kernels are written once, in the subset of Python that numba compiles, and
decorated with :func:`njit`. With numba installed they run as machine code
(cached on disk next to the module, so later imports skip compilation); with
``RINGGAMES_NO_JIT=1`` (or without numba) the very same functions run as plain
Python — slower, but the same rules.
"""

from __future__ import annotations

import os

__all__ = ["njit", "JIT_ENABLED"]

try:
    if os.environ.get("RINGGAMES_NO_JIT"):
        raise ImportError("disabled by RINGGAMES_NO_JIT")
    import numba as _numba

    JIT_ENABLED = True
except ImportError:  # pragma: no cover - exercised only without numba
    _numba = None
    JIT_ENABLED = False


def njit(*args, **kwargs):
    """``numba.njit(cache=True, ...)`` when available, else the undecorated function."""
    if _numba is None:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f
    kwargs.setdefault("cache", True)
    kwargs.setdefault("nogil", True)
    return _numba.njit(*args, **kwargs)
