"""The playouts' move sampler (``kernel.random_move``) is uniform over exactly the legal actions.

It draws from an over-approximation of each piece's targets and keeps a draw only when the
exact search confirms it (rejection sampling), so these tests check the two things that
could go wrong: an illegal action returned, or legal actions drawn with unequal odds.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from ringgames import load_game
from ringgames.games.gyges import kernel as K
from ringgames.games.gyges.board import MOVE_BASE

# South to move; its nearest row (row 1) holds three 3s that cannot move at all, so the
# legal moves start on row 2 (*A move* 1, next-row fallback).
FALLBACK = "033030/101123/010222/000000/000000/000000 S"


def chi2_bound(df: int) -> float:
    """The 99.99% quantile of a chi-square with df degrees of freedom (Wilson–Hilferty)."""
    z = 3.719
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def positions(variant: str, count: int, seed: int):
    game = load_game("gyges", variant=variant)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = game.new_initial_state()
        for _ in range(rng.randrange(3, 120)):
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))
        if not s.is_terminal() and s.s[K.PHASE] == K.PLAY:
            out.append(s)
    return out


def draws(state, count: int, seed: int) -> np.ndarray:
    out = np.empty(count, dtype=np.int32)
    K.random_actions(state.s, count, seed, out, *K.workspace())
    return out


def check_uniform(state, seed: int) -> None:
    legal = state.legal_actions()
    n = len(legal)
    per = 40
    got = draws(state, per * n, seed)
    values, counts = np.unique(got, return_counts=True)
    assert set(values.tolist()) <= set(legal), "the sampler returned an illegal action"
    assert len(values) == n, f"{n - len(values)} legal actions never drawn in {per * n} draws"
    if n > 1:
        chi2 = float((((counts - per) ** 2) / per).sum())
        assert chi2 < chi2_bound(n - 1), f"draws not uniform over {n} actions (chi2 {chi2:.0f})"


@pytest.mark.parametrize("variant", ["standard", "beginner"])
def test_sampler_is_uniform_over_the_legal_actions(variant):
    for i, s in enumerate(positions(variant, 8, seed=41)):
        check_uniform(s, seed=i)


def test_sampler_uses_the_next_row_when_the_nearest_cannot_move():
    s = load_game("gyges").state_from_position(FALLBACK)
    starts = {(a - MOVE_BASE) // (37 * 37) for a in s.legal_actions()}
    assert starts and all(st // 6 == 1 for st in starts)  # all legal moves start on row 2
    check_uniform(s, seed=5)


def test_sampler_bound_contains_every_legal_target():
    # reach_bound is an over-approximation: whatever the exact search finds, it finds too
    ws = K.workspace()
    for s in positions("standard", 30, seed=3):
        b = s.s
        occ = K.occupancy(b)
        goal_row = 5 if b[K.SIDE] == 0 else 0
        for sq in range(36):
            if b[sq] == 0:
                continue
            lifted = occ & ~(1 << sq)
            ends, reps = K.search(b, lifted, sq, b[sq], 0, 0, goal_row, 0, *ws)
            ub_ends, ub_reps = K.reach_bound(b, lifted, sq, b[sq], goal_row)
            assert ends & ~ub_ends == 0 and reps & ~ub_reps == 0
