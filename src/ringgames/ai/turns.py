"""A turn costs one time budget: the bookkeeping shared by the searches whose turns span several decisions (a YINSH
move with its row and ring, a RINGS placement with its conversions). An agent keeps ``turn``: ``(seat, the position
its next decision of the turn will be taken in, when the turn started)``, or None between turns."""

from __future__ import annotations

import math
import time

from ..protocol import State

__all__ = ["TURN_FLOOR", "Turn", "turn_start", "turn_limit", "turn_after"]

#: A turn's later decisions that are searched get what is left of the turn's budget, at least this share of it.
TURN_FLOOR = 0.1

Turn = tuple[int, str, float]


def turn_start(turn: Turn | None, state: State) -> tuple[bool, float]:
    """Whether ``state`` continues ``turn`` (the same seat, the position expected), and when its turn started."""
    now = time.perf_counter()
    if turn is not None and turn[0] == state.current_player() and turn[1] == state.position():
        return True, turn[2]
    return False, now


def turn_limit(budget: float | None, start: float) -> float | None:
    """The time for a later decision of a turn that started at ``start`` (None: no budget to share)."""
    if budget is None or math.isinf(budget):
        return None
    return max(budget * TURN_FLOOR, budget - (time.perf_counter() - start))


def turn_after(state: State, action: int, start: float) -> Turn | None:
    """The turn after ``action`` is played in ``state``: still the same seat's, or over (None)."""
    me = state.current_player()
    after = state.clone()
    after.apply_action(action)
    if after.is_terminal() or after.current_player() != me:
        return None
    return me, after.position(), start
