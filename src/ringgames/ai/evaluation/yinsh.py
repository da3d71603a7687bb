"""YINSH evaluation: rings removed, pending rows, markers, near-complete rows, mobility.

Reads the public attributes of :class:`~ringgames.games.yinsh.state.YinshState`
(``board``, ``rings``, ``removed``, ``phase``, ``actor``) and the board
geometry tables. Values are per seat (zero-sum), in points:

* 1000 per ring removed; a pending row (phase ``row``/``ring``) counts as 800 /
  900 for the player who must take it;
* 12 per own marker on the board;
* rows in the making: a 5-point window holding only one colour's markers (and
  possibly that colour's rings): 4 markers = 90 (150 if that player is to
  move: it may complete it), 3 markers = 20;
* mobility: 3 per legal ring step target (rings that can move a lot are
  flexible, and blocked rings are a liability).

>>> from ringgames import load_game
>>> s = load_game("yinsh").new_initial_state()
>>> evaluate(s)
[0.0, 0.0]
"""

from __future__ import annotations

import numpy as np

from ...games.yinsh import kernel as K
from ...games.yinsh.board import WINDOWS

SCALE = 600.0

_RING_VALUE = 1000.0
_MARKER = 12.0
_FOUR = 90.0
_FOUR_TO_MOVE = 150.0
_THREE = 20.0
_MOBILITY = 3.0


_BUF = np.empty(K.MAX_LEGAL, dtype=np.int32)


def _mobility(state, player: int) -> int:
    """Number of ring moves ``player`` has (counted by the rules kernel, not re-implemented here)."""
    return int(K.ring_moves(state.s, player, _BUF, 0, False))


def _window_table(actor: int):
    """Score of a window (for White, minus Black's) indexed by its code sum (see ``_CODE``)."""
    four_w = _FOUR_TO_MOVE if actor == 0 else _FOUR
    four_b = _FOUR_TO_MOVE if actor == 1 else _FOUR
    table = np.zeros(5 * 216 + 1)
    for w in range(6):
        for b in range(6 - w):
            for wr in range(6 - w - b):
                for br in range(6 - w - b - wr):
                    code = w + 6 * b + 36 * wr + 216 * br  # base 6: unique
                    v = 0.0
                    if w >= 3 and b == 0 and br == 0:
                        v = four_w if w == 4 else _THREE
                    elif b >= 3 and w == 0 and wr == 0:
                        v = -(four_b if b == 4 else _THREE)
                    table[code] = v
    return table


# point contents 0..4 -> code: white marker 1, black marker 6, white ring 36, black ring 216
_CODE = np.array([0, 1, 6, 36, 216], dtype=np.int64)
_WIN = np.array(WINDOWS, dtype=np.int64)
_TABLES = (_window_table(0), _window_table(1))


def evaluate(state) -> list[float]:
    board = state.board
    if not isinstance(board, list):  # an engine may expose a numpy view
        board = board.tolist()
    removed = state.removed
    score = _RING_VALUE * (removed[0] - removed[1])
    phase = state.phase
    actor = state.actor
    sign = 1.0 if actor == 0 else -1.0
    if phase == "row":
        score += sign * 800.0
    elif phase == "ring":
        score += sign * 900.0
    if phase != "place":
        score += _MARKER * (board.count(1) - board.count(2))
        codes = _CODE[np.asarray(board, dtype=np.int64)]
        sums = codes[_WIN].sum(axis=1)
        score += float(_TABLES[actor][sums].sum())
    score += _MOBILITY * (_mobility(state, 0) - _mobility(state, 1))
    return [score, 0.0 - score]


def may_win_within_turn(state) -> bool:
    """Necessary condition for the player to move to win within this turn (exact: never False for a win).

    The game ends within the turn only by the marker pool running out, by a
    second pass in a row, or by the player removing enough rings. Rows removed
    in one turn are disjoint sets of 5 of the player's markers, and a ring move
    can add at most the new marker plus every flipped opposing marker to them,
    so ``k`` more removals need ``5 k`` markers (one removal already made with its
    ring still to take, phase ``ring``, counts as done; after our own move no
    more markers change colour, but rows the opponent's move made for us are
    taken before our move). The number of rows one
    move makes is not bounded otherwise: a move that flips three markers can
    complete three rows at once.
    """
    if state.pool <= 1 or state.passes >= 1:
        return True
    actor = state.actor
    need = state.game.rings_to_win - state.removed[actor]
    phase = state.phase
    if phase == "place":
        return False
    if phase == "ring":
        need -= 1
    if need <= 0:
        return True
    board = state.board
    if not isinstance(board, list):
        board = board.tolist()
    own = board.count(1 if actor == 0 else 2)
    if phase in ("row", "ring") and state.mover == actor:
        return own >= 5 * need  # the move is made: no more flips this turn
    # a move still to come this turn (rows made for us by the opponent's move are removed first)
    return own + 1 + board.count(2 if actor == 0 else 1) >= 5 * need
