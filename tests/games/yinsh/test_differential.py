"""The compiled kernel (behind YinshState) agrees with the slow reference engine (tests/.../reference.py).

On thousands of seeded random positions: the same legal actions, the same successor
positions and the same results; batched kernel playouts end in legal final positions.
"""

import random

import numpy as np
import pytest

from ringgames import load_game

from .reference import ReferenceYinshGame


@pytest.mark.parametrize("variant", ["standard", "blitz"])
def test_kernel_and_reference_agree_on_random_games(variant):
    fast_game, ref_game = load_game("yinsh", variant), ReferenceYinshGame(variant)
    positions = 0
    for seed in range(60 if variant == "standard" else 30):
        rng = random.Random(seed)
        fast, ref = fast_game.new_initial_state(), ref_game.new_initial_state()
        while True:
            assert fast.position() == ref.position()
            legal = fast.legal_actions()
            assert legal == ref.legal_actions()
            assert fast.outcome() == ref.outcome()
            positions += 1
            if not legal:
                break
            # every successor of this position agrees too (one ply deep)
            if positions % 5 == 0:
                for a in legal:
                    fast.apply_action(a)
                    ref.apply_action(a)
                    assert fast.position() == ref.position() and fast.outcome() == ref.outcome()
                    fast.undo_action()
                    ref.undo_action()
            a = rng.choice(legal)
            fast.apply_action(a)
            ref.apply_action(a)
    assert positions > (3000 if variant == "standard" else 1000)


def test_kernel_agrees_on_positions_read_from_strings():
    rng = random.Random(5)
    ref_game = ReferenceYinshGame()
    game = load_game("yinsh")
    for _ in range(200):
        s = game.new_initial_state()
        for _ in range(rng.randrange(0, 120)):
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))
        f, r = game.state_from_position(s.position()), ref_game.state_from_position(s.position())
        assert f.legal_actions() == r.legal_actions() == s.legal_actions()


def test_batched_playouts_return_consistent_arrays():
    s = load_game("yinsh").new_initial_state()
    res = s.random_playouts(300, seed=11)
    assert res["winner"].shape == (300,) and res["removed"].shape == (300, 2)
    assert set(np.unique(res["winner"])) <= {-1, 0, 1}
    assert set(np.unique(res["reason"])) <= {1, 2, 3}
    rings = res["reason"] == 1
    assert (res["removed"][rings].max(axis=1) == 3).all()
    draws = res["winner"] == -1
    assert (res["removed"][draws, 0] == res["removed"][draws, 1]).all()
    assert (res["length"] >= 10 + 51 - 30).all()  # placements plus moves until the pool or rings decide
    # the same seed gives the same playouts
    again = s.random_playouts(300, seed=11)
    assert (again["length"] == res["length"]).all()
    # random play ends by marker exhaustion most of the time (about 83%, the rules say)
    assert 0.7 < (res["reason"] == 2).mean() < 0.95
