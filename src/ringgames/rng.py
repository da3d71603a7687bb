"""One seed makes one game: the random generator of every random playout.

Random playouts run on two paths: in a game's compiled kernel
(``state.random_playouts``, :func:`ringgames.simulate.playouts`) and in Python through
the protocol (:func:`ringgames.simulate.random_playout`). Both use this generator and
the same rule, so that the same seed plays the same game on both:

* the generator is **SplitMix64** (Steele, Lea and Flood, 2014): a 64-bit state that
  advances by ``0x9E3779B97F4A7C15`` per draw, each draw mixed by two multiply-xorshift
  rounds; the seed is the initial state (``seed mod 2**64``);
* an action is chosen as ``legal[below(len(legal))]`` among the legal actions in
  ascending order, where ``below(n)`` is 0 without a draw when ``n == 1``, and otherwise
  draws until the top ``k = (n - 1).bit_length()`` bits of a draw are below ``n``
  (rejection sampling: exactly uniform);
* ``playouts(state, count, seed)`` plays its game ``i`` with seed ``seed + i``.

:class:`PlayoutRandom` is the Python generator (a :class:`random.Random`, so that
policies taking an ``rng`` work with it); :func:`next64` and :func:`below` are the
compiled ones, on a one-element ``uint64`` array holding the state.

>>> r = PlayoutRandom(1)
>>> [r.below(10) for _ in range(5)]
[9, 7, 7, 8, 4]
>>> s = new_state(1)
>>> [int(below(s, 10)) for _ in range(5)]
[9, 7, 7, 8, 4]
"""

from __future__ import annotations

import random

import numpy as np

from .jit import JIT_ENABLED, njit

__all__ = ["GAMMA", "PlayoutRandom", "below", "new_state", "next64", "seed_state"]

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB

_GAMMA64 = np.uint64(GAMMA)
_M1_64 = np.uint64(_M1)
_M2_64 = np.uint64(_M2)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)


class PlayoutRandom(random.Random):
    """SplitMix64 as a :class:`random.Random`; :meth:`below` is the playouts' choice rule."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)

    def seed(self, a: int | None = 0, version: int = 2) -> None:  # type: ignore[override]
        """Set the state to ``a mod 2**64`` (an int; None means 0)."""
        self._state = int(a or 0) & MASK
        self.gauss_next = None

    def next64(self) -> int:
        """The next 64-bit draw."""
        self._state = z = (self._state + GAMMA) & MASK
        z = ((z ^ (z >> 30)) * _M1) & MASK
        z = ((z ^ (z >> 27)) * _M2) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)`` (``n >= 1``) by the documented rule."""
        if n <= 1:
            return 0
        shift = 64 - (n - 1).bit_length()
        while True:
            r = self.next64() >> shift
            if r < n:
                return r

    def random(self) -> float:
        """A float in [0, 1) from the top 53 bits of a draw."""
        return (self.next64() >> 11) * (1.0 / (1 << 53))

    def getrandbits(self, k: int) -> int:
        """``k`` random bits (whole draws, top bits first)."""
        if k <= 0:
            return 0
        out, got = 0, 0
        while got < k:
            out = (out << 64) | self.next64()
            got += 64
        return out >> (got - k)

    def getstate(self):
        return (self._state, self.gauss_next)

    def setstate(self, state) -> None:
        self._state, self.gauss_next = state


def seed_state(seed: int) -> np.uint64:
    """The generator state for ``seed`` (``seed mod 2**64``)."""
    return np.uint64(int(seed) & MASK)


def new_state(seed: int) -> np.ndarray:
    """A one-element ``uint64`` array holding the state for ``seed`` (for :func:`below`)."""
    return np.array([int(seed) & MASK], dtype=np.uint64)


@njit
def next64(state):
    """The next 64-bit draw of the generator in ``state[0]`` (advanced in place)."""
    z = state[0] + _GAMMA64
    state[0] = z
    z = (z ^ (z >> _S30)) * _M1_64
    z = (z ^ (z >> _S27)) * _M2_64
    return z ^ (z >> _S31)


@njit
def below(state, n):
    """A uniform integer in ``range(n)`` by the documented rule (see the module)."""
    if n <= 1:
        return 0
    k = 0
    m = n - 1
    while m > 0:
        k += 1
        m >>= 1
    shift = np.uint64(64 - k)
    un = np.uint64(n)
    while True:
        r = next64(state) >> shift
        if r < un:
            return np.int64(r)


if not JIT_ENABLED:  # plain Python (RINGGAMES_NO_JIT=1): the same draws with Python ints, no overflow warnings

    def next64(state):  # noqa: F811
        """The next 64-bit draw of the generator in ``state[0]`` (advanced in place)."""
        z = (int(state[0]) + GAMMA) & MASK
        state[0] = z
        z = ((z ^ (z >> 30)) * _M1) & MASK
        z = ((z ^ (z >> 27)) * _M2) & MASK
        return np.uint64(z ^ (z >> 31))
