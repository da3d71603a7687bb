"""What differs between games in the compiled search: one number per game picks its kernel's functions.

Each function takes ``game`` (:data:`YINSH` or :data:`RINGS`) and a rules-kernel array; the
branches are compiled into one search (:mod:`.tree`), so that numba's on-disk cache holds it
(functions passed as arguments are compiled again in every process). :func:`outcome` is
:data:`ONGOING`, :data:`DRAW` or the winning seat (two players).

With more than two players (RINGS) the search is *paranoid*, as the Python one: seat ``root`` against
the coalition of the others, two *sides* (:func:`side`: 0 the root, 1 the coalition) in place of two
seats; ``root`` is -1 in a two-player game, where a side is a seat.
"""

from __future__ import annotations

import numpy as np

from ...games.rings import kernel as RK
from ...games.yinsh import kernel as YK
from ...jit import drop_stale_cache, njit
from . import rings as _rings
from . import yinsh as _yinsh

KERNEL_FILES = (YK.__file__, RK.__file__)
drop_stale_cache(__file__, _yinsh.__file__, _rings.__file__, *KERNEL_FILES)

YINSH, RINGS = 0, 1
#: The games with a compiled search (two players): name -> game number.
GAMES = {"yinsh": YINSH, "rings": RINGS}
ONGOING, DRAW = -2, -1


def zobrist_table(seed: int = 20261204) -> np.ndarray:
    """Random 64-bit keys for :func:`position_key` (enough for every game's points and turn fields)."""
    rng = np.random.default_rng(seed)
    return rng.integers(1, 2**63 - 1, size=4096, dtype=np.int64).astype(np.uint64)


def setup(game_name: str, eval_name: str) -> tuple[int, int, int, np.ndarray, np.ndarray]:
    """``(game number, kernel array size, number of action ids, weights, table)`` of a game and evaluation."""
    if game_name == "yinsh":
        return (YINSH, YK.SIZE, YK.NUM_ACTIONS) + _yinsh.weights_for(eval_name)
    if game_name == "rings":
        return (RINGS, RK.SIZE, RK.NUM_ACTIONS) + _rings.weights_for(eval_name)
    raise ValueError(f"no compiled search for {game_name!r}")


@njit
def gen_actions(game, s, out):
    """The legal actions of ``s`` into ``out``; how many (0 when the game is over)."""
    if game == YINSH:
        return YK.gen_actions(s, out, False)
    return RK.legal_actions(s, out)


@njit
def apply_action(game, s, a):
    if game == YINSH:
        YK.apply_action(s, a)
    else:
        RK.apply_action(s, a)


@njit
def actor(game, s):
    """The seat that decides next."""
    if game == YINSH:
        return s[YK.ACTOR]
    return s[RK.MOVER]


@njit
def outcome(game, s):
    """:data:`ONGOING`, :data:`DRAW` or the winner of a two-player game."""
    if game == YINSH:
        w = s[YK.WINNER]
        return ONGOING if w == YK.ONGOING else (DRAW if w == YK.DRAW else w)
    if not RK.is_over(s):
        return ONGOING
    m = RK.winners_mask(s)
    if m == 1:
        return 0
    if m == 2:
        return 1
    return DRAW


@njit
def position_key(game, s, zob):
    if game == YINSH:
        return _yinsh.position_key(s, zob)
    return _rings.position_key(s, zob)


@njit
def evaluate(game, s, me, wts, wtab, buf):
    """The game's evaluation of ``s`` for seat ``me`` (points)."""
    if game == YINSH:
        return _yinsh.evaluate(s, me, wts, wtab, buf)
    return _rings.evaluate(s, me, wts, wtab, buf)


@njit
def side(game, s, root):
    """The side that decides next: the seat (two players, ``root`` = -1), else 0 for ``root`` and 1 for the others."""
    a = actor(game, s)
    if root < 0:
        return a
    return 0 if a == root else 1


@njit
def side_outcome(game, s, root):
    """:func:`outcome` by side: with ``root`` >= 0, 0 if ``root`` alone won, :data:`DRAW` if it shares the win (the
    returns then put it level with a co-winner), else 1."""
    if root < 0:
        return outcome(game, s)
    if game == YINSH or not RK.is_over(s):
        return ONGOING
    m = RK.winners_mask(s)
    bit = 1 << root
    if m == bit:
        return 0
    return DRAW if m & bit else 1


@njit
def side_evaluate(game, s, sd, root, wts, wtab, buf):
    """The evaluation of ``s`` for side ``sd`` (:func:`side`; with ``root`` >= 0 the paranoid value, negated for the
    coalition)."""
    if root < 0:
        return evaluate(game, s, sd, wts, wtab, buf)
    x = _rings.evaluate_paranoid(s, root, wts, wtab)
    return x if sd == 0 else 0.0 - x


@njit
def side_key(game, s, zob, root):
    """:func:`position_key`, and the root seat with ``root`` >= 0 (paranoid values depend on it)."""
    h = position_key(game, s, zob)
    if root >= 0:
        h ^= zob[4080 + root]
    return h
