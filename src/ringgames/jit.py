"""One switch for the compiled hot paths.

Rules kernels are written once, in the subset of Python that numba compiles, and
decorated with :func:`njit`. With numba installed they run as machine code
(cached on disk next to the module, so later imports skip compilation); with
``RINGGAMES_NO_JIT=1`` (or without numba) the very same functions run as plain
Python — slower, but the same rules.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

__all__ = ["njit", "JIT_ENABLED", "drop_stale_cache"]

_numba: Any
try:
    if os.environ.get("RINGGAMES_NO_JIT"):
        raise ImportError("disabled by RINGGAMES_NO_JIT")
    import numba as _numba

    JIT_ENABLED = True
except ImportError:  # pragma: no cover - exercised only without numba
    _numba = None
    JIT_ENABLED = False


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit(cache=True, ...)`` when available, else the undecorated function."""
    if _numba is None:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f
    kwargs.setdefault("cache", True)
    kwargs.setdefault("nogil", True)
    return _numba.njit(*args, **kwargs)


def drop_stale_cache(module_file: str, *deps: str) -> None:
    """Forget ``module_file``'s cached machine code if a module it compiles in has changed.

    Numba's cache checks only the source file of each function, but the kernels also
    compile in constant tables from their ``board`` modules: after an edit of
    ``board.py`` the cache would otherwise keep serving code built from the old tables.
    A small marker file beside the cache records a hash of ``deps``; when it differs,
    this module's cache files are removed (numba recompiles them on first use). Call it
    at the top of a kernel module, before any function is compiled. Never raises.
    """
    if _numba is None:
        return
    try:
        cache = Path(module_file).parent / "__pycache__"
        stem = Path(module_file).stem
        digest = hashlib.sha256(b"".join(Path(d).read_bytes() for d in deps)).hexdigest()
        marker = cache / f"{stem}.deps"
        if marker.exists() and marker.read_text() == digest:
            return
        for f in cache.glob(f"{stem}.*.nb[ic]"):
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        marker.write_text(digest)
    except OSError:  # read-only install: numba then caches elsewhere or not at all
        pass
