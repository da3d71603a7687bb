"""RINGS evaluation (any number of players): majorities, rings, influence leads.

Uses the state's public helpers (``majority``, ``ring_owner``, ``influence``,
``owner``, ``scores``-style counting). Per seat, in points:

* 100 per circle where the seat has majority (the final score counts these);
* 25 per ring the seat owns (rings make stones safe and add influence);
* on a circle nobody holds: 12 × the seat's lead in influence over the next
  best seat, capped at 3 (a circle close to being won).

>>> from ringgames import load_game
>>> evaluate(load_game("rings").new_initial_state())
[0.0, 0.0]
"""

from __future__ import annotations

from ...games.rings.board import NUM_CIRCLES

SCALE = 400.0

_MAJORITY = 100.0
_RING = 25.0
_LEAD = 12.0


def evaluate(state) -> list[float]:
    n = state.num_players
    vals = [0.0] * n
    majority = state.majority
    ring_owner = state.ring_owner
    influence = state.influence
    for c in range(NUM_CIRCLES):
        m = majority(c)
        if m >= 0:
            vals[m] += _MAJORITY
        r = ring_owner(c)
        if r >= 0 and r < n:
            vals[r] += _RING
        if m < 0:
            best = second = 0
            who = -1
            for p in range(n):
                x = influence(p, c)
                if x > best:
                    best, second, who = x, best, p
                elif x > second:
                    second = x
            if who >= 0 and best > second:
                vals[who] += _LEAD * min(3, best - second)
    if n == 2:
        d = (vals[0] - vals[1]) / 2.0
        return [d, 0.0 - d]
    mean = sum(vals) / n
    return [v - mean for v in vals]


def may_win_within_turn(state) -> bool:
    """The game can only end in this turn if every other active player has just passed."""
    return state.pass_count() >= len(state.active_players()) - 1
