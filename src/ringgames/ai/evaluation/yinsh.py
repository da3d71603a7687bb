"""YINSH evaluation: rings removed, pending rows, markers, near-complete rows, mobility.

Reads the public attributes of :class:`~ringgames.games.yinsh.state.YinshState`
(``board``, ``rings``, ``removed``, ``phase``, ``actor``) and the board
geometry tables. Values are per seat (zero-sum), in points, and *linear*: the
dot product of a feature vector (:func:`features`, White's view, names in
:data:`FEATURES`) with a weight vector. Today's hand-set weights
(:data:`HAND_WEIGHTS`, used by :func:`evaluate` and so by every level and
``baseline:N``) are:

* 1000 per ring removed; a pending row (phase ``row``/``ring``) counts as 800 /
  900 for the player who must take it;
* 12 per own marker on the board;
* rows in the making: a 5-point window holding only one colour's markers (and
  possibly that colour's rings): 4 markers = 90 (150 if that player is to
  move: it may complete it, ``four_to_move`` = the extra 60), 3 markers = 20;
* mobility: 3 per legal ring step target (rings that can move a lot are
  flexible, and blocked rings are a liability);
* ``tempo`` (the player to move) and ``match_point`` (one ring short of the
  win) are 0.

The weights fitted on real games (``ringgames tune yinsh``, :mod:`ringgames.ai.tuning`)
are in ``yinsh_weights.json`` next to this module: ``evaluator("tuned")``
(agent option ``eval=tuned``; opt-in: they predict results better but played worse than today's
weights, ``docs/ai.md``).

>>> from ringgames import load_game
>>> s = load_game("yinsh").new_initial_state()
>>> evaluate(s)
[0.0, 0.0]
>>> features(s).tolist()
[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from ...games.yinsh import kernel as K
from ...games.yinsh.board import WINDOWS
from . import named_evaluator, read_weight_file

__all__ = ["SCALE", "FEATURES", "HAND_WEIGHTS", "WEIGHTS_FILE", "features", "make_evaluate", "evaluate", "window_table",
           "evaluator", "load_weights", "may_win_within_turn"]

SCALE = 600.0

#: The evaluation's features, all from White's view (Black's value is minus White's).
FEATURES = (
    "rings",         # rings removed, White minus Black
    "row_pending",   # +1 / -1: White / Black (to act) must take a row now (phase ``row``)
    "ring_pending",  # +1 / -1: White / Black must take a ring now (phase ``ring``)
    "markers",       # markers on the board, White minus Black (0 while placing rings)
    "four",          # windows with 4 markers of one colour and none of the other's pieces, White minus Black
    "four_to_move",  # such windows of the player to act (+ for White, - for Black)
    "three",         # windows with 3 (or 5) markers of one colour, as ``four``
    "mobility",      # ring moves, White minus Black
    "tempo",         # +1 / -1: White / Black to act
    "match_point",   # one ring short of the win: White minus Black (0 or ±1)
)

#: Today's hand-set weights (points): :func:`evaluate`, every level and ``baseline:N``.
HAND_WEIGHTS: dict[str, float] = {
    "rings": 1000.0, "row_pending": 800.0, "ring_pending": 900.0, "markers": 12.0, "four": 90.0,
    "four_to_move": 60.0, "three": 20.0, "mobility": 3.0, "tempo": 0.0, "match_point": 0.0,
}

#: The weights fitted by ``ringgames tune yinsh`` (a small JSON file in the package).
WEIGHTS_FILE = Path(__file__).with_name("yinsh_weights.json")

_BUF = np.empty(K.MAX_LEGAL, dtype=np.int32)


def _mobility(state, player: int) -> int:
    """Number of ring moves ``player`` has (counted by the rules kernel, not re-implemented here)."""
    return int(K.ring_moves(state.s, player, _BUF, 0, False))


# point contents 0..4 -> code: white marker 1, black marker 6, white ring 36, black ring 216
_CODE = np.array([0, 1, 6, 36, 216], dtype=np.int64)
_WIN = np.array(WINDOWS, dtype=np.int64)


def _kind_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per window code sum: is it a White four, a Black four, a White three (or five), a Black three."""
    w4, b4, w3, b3 = (np.zeros(5 * 216 + 1) for _ in range(4))
    for w in range(6):
        for b in range(6 - w):
            for wr in range(6 - w - b):
                for br in range(6 - w - b - wr):
                    code = w + 6 * b + 36 * wr + 216 * br  # base 6: unique
                    if w >= 3 and b == 0 and br == 0:
                        (w4 if w == 4 else w3)[code] = 1.0
                    elif b >= 3 and w == 0 and wr == 0:
                        (b4 if b == 4 else b3)[code] = 1.0
    return w4, b4, w3, b3


_W4, _B4, _W3, _B3 = _kind_tables()


def window_table(actor: int, weights: Mapping[str, float]) -> np.ndarray:
    """Score of a window (for White, minus Black's) indexed by its code sum, for ``actor`` to act."""
    four, extra, three = weights["four"], weights["four_to_move"], weights["three"]
    four_w = four + extra if actor == 0 else four
    four_b = four + extra if actor == 1 else four
    return four_w * _W4 - four_b * _B4 + three * (_W3 - _B3)


def features(state) -> np.ndarray:
    """The feature vector of ``state`` (White's view; order :data:`FEATURES`)."""
    board = state.board
    if not isinstance(board, list):
        board = board.tolist()
    removed = state.removed
    phase = state.phase
    actor = state.actor
    sign = 1.0 if actor == 0 else -1.0
    f = np.zeros(len(FEATURES))
    f[0] = removed[0] - removed[1]
    f[1] = sign if phase == "row" else 0.0
    f[2] = sign if phase == "ring" else 0.0
    if phase != "place":
        f[3] = board.count(1) - board.count(2)
        sums = _CODE[np.asarray(board, dtype=np.int64)][_WIN].sum(axis=1)
        w4, b4 = float(_W4[sums].sum()), float(_B4[sums].sum())
        f[4] = w4 - b4
        f[5] = w4 if actor == 0 else -b4
        f[6] = float(_W3[sums].sum() - _B3[sums].sum())
    f[7] = _mobility(state, 0) - _mobility(state, 1)
    f[8] = sign
    near = state.game.rings_to_win - 1
    f[9] = float(removed[0] == near) - float(removed[1] == near)
    return f


def make_evaluate(weights: Mapping[str, float]) -> Callable[[object], list[float]]:
    """The evaluation ``features(state) · weights`` as a fast function (window tables built once).

    With :data:`HAND_WEIGHTS` it is today's evaluation, computed in the same order (the same floats)."""
    missing = [k for k in FEATURES if k not in weights]
    if missing:
        raise ValueError(f"weights without {', '.join(missing)}")
    w = {k: float(weights[k]) for k in FEATURES}
    ring_value, row_value, ring_pending = w["rings"], w["row_pending"], w["ring_pending"]
    marker, mobility, tempo, match_point = w["markers"], w["mobility"], w["tempo"], w["match_point"]
    tables = (window_table(0, w), window_table(1, w))

    def evaluate(state) -> list[float]:
        board = state.board
        if not isinstance(board, list):  # an engine may expose a numpy view
            board = board.tolist()
        removed = state.removed
        score = ring_value * (removed[0] - removed[1])
        phase = state.phase
        actor = state.actor
        sign = 1.0 if actor == 0 else -1.0
        if phase == "row":
            score += sign * row_value
        elif phase == "ring":
            score += sign * ring_pending
        if phase != "place":
            score += marker * (board.count(1) - board.count(2))
            codes = _CODE[np.asarray(board, dtype=np.int64)]
            sums = codes[_WIN].sum(axis=1)
            score += float(tables[actor][sums].sum())
        score += mobility * (_mobility(state, 0) - _mobility(state, 1))
        if tempo:
            score += sign * tempo
        if match_point:
            near = state.game.rings_to_win - 1
            score += match_point * (float(removed[0] == near) - float(removed[1] == near))
        return [score, 0.0 - score]

    return evaluate


#: Today's evaluation (hand-set weights).
evaluate = make_evaluate(HAND_WEIGHTS)


def load_weights(path: str | Path = WEIGHTS_FILE) -> dict:
    """The weight file: ``{"weights": {feature: points}, "scale": points, ...}`` (ValueError if malformed)."""
    return read_weight_file(path, FEATURES)


_variants: dict[str, tuple[Callable[[object], list[float]], float]] = {}


def evaluator(name: str) -> tuple[Callable[[object], list[float]], float]:
    """``(evaluate, scale)`` of a named evaluation: ``hand`` (today's) or ``tuned`` (``yinsh_weights.json``)."""
    return named_evaluator(name, "YINSH", (evaluate, SCALE), load_weights, make_evaluate, _variants)


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
