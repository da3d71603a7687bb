"""Pieces shared by the batched backends: the per-state random streams and the chunking.

Random numbers come from one SplitMix64 stream per state (a ``uint64`` counter in
``rng[i]``): the draws of state ``i`` depend only on its stream, never on how the
batch is split over threads, so a seed gives the same actions on 1 or 16 cores.
A draw below ``n`` takes the high 32 bits of the mixed word times ``n`` (bias below
``n / 2**32``, far under anything a playout can show).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..jit import JIT_ENABLED, njit

if JIT_ENABLED:
    from numba import prange
else:  # pragma: no cover - plain Python without numba
    prange = range  # type: ignore[misc]


def prefer_workqueue() -> None:
    """Use numba's ``workqueue`` threading layer unless the user chose one.

    The batched kernels are short parallel regions (well under a millisecond each) called
    at a high rate. Under OpenMP, numba's default where it is installed, a region whose
    threads cannot all run at once (other processes on the cores) waits for them at the
    barrier: on the shared 2-core machine 2 threads ran 10 to 30 times *slower* than 1
    (``ringgames bench --batch``, ``docs/research.md, *Batched simulation*``), while ``workqueue`` stayed
    at or above the one-thread rate. ``NUMBA_THREADING_LAYER`` (or setting
    ``numba.config.THREADING_LAYER`` before importing :mod:`ringgames.batch`) overrides
    this; once numba has started its threads the layer can no longer change.
    """
    if not JIT_ENABLED:
        return
    import os

    import numba

    config: Any = numba.config  # its settings are set at run time (no stubs)
    if "NUMBA_THREADING_LAYER" not in os.environ and config.THREADING_LAYER == "default":
        config.THREADING_LAYER = "workqueue"


prefer_workqueue()

__all__ = ["below", "chunk_bounds", "next_u64", "njit", "pnjit", "prange", "seed_streams"]

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


def pnjit(*args, **kwargs):
    """:func:`ringgames.jit.njit` with ``parallel=True`` (its loops use :data:`prange`)."""
    if JIT_ENABLED:
        kwargs.setdefault("parallel", True)
    return njit(*args, **kwargs)


if JIT_ENABLED:

    @njit
    def mix64(z):
        """The SplitMix64 finaliser of a ``uint64``."""
        z = (z ^ (z >> _S30)) * _M1
        z = (z ^ (z >> _S27)) * _M2
        return z ^ (z >> _S31)

    @njit
    def next_u64(rng, i):
        """The next 64-bit word of stream ``i`` (advances ``rng[i]``)."""
        rng[i] += GOLDEN
        return mix64(rng[i])

else:  # pragma: no cover - the same arithmetic on Python ints (NumPy scalars warn on wrap-around)
    _MASK = (1 << 64) - 1

    def mix64(z):
        """The SplitMix64 finaliser of a ``uint64``."""
        z = int(z)
        z = ((z ^ (z >> 30)) * int(_M1)) & _MASK
        z = ((z ^ (z >> 27)) * int(_M2)) & _MASK
        return np.uint64(z ^ (z >> 31))

    def next_u64(rng, i):
        """The next 64-bit word of stream ``i`` (advances ``rng[i]``)."""
        rng[i] = np.uint64((int(rng[i]) + int(GOLDEN)) & _MASK)
        return mix64(rng[i])


@njit
def below(rng, i, n):
    """A random int in ``[0, n)`` from stream ``i`` (``0 < n < 2**32``)."""
    x = next_u64(rng, i) >> _S32
    return np.int64((x * np.uint64(n)) >> _S32)


@njit
def seed_streams(rng, seed):
    """Start the streams of every state from ``seed`` (a ``uint64``): stream i starts at a mix of (seed, i)."""
    base = mix64(np.uint64(seed) ^ GOLDEN)
    for i in range(rng.shape[0]):
        rng[i] = mix64(base ^ np.uint64(i))


@njit
def chunk_bounds(c, nchunks, n):
    """The half-open range of items of chunk ``c`` of ``nchunks`` over ``n`` items."""
    return (c * n) // nchunks, ((c + 1) * n) // nchunks
