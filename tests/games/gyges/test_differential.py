"""The compiled kernel (behind GygesState) agrees with the slow reference engine (reference.py).

On thousands of seeded random positions reached by random play from random and preset
setups, in both variants: the same legal actions, the same successor positions, the same
results (goal, repetition) and the same move strings; batched kernel playouts return
consistent arrays.
"""

import random

import numpy as np
import pytest

from ringgames import load_game
from ringgames.games.gyges import PRESETS
from ringgames.simulate import playouts

from .helpers import START
from .reference import ReferenceGygesGame

#: A sparse position where random play repeats positions quickly (one movable piece a side).
REP = "100000/000000/122330/122330/000000/000001 S"


def _lockstep(fast, ref, rng, max_plies, every, repeat=0.0):
    """Play the same random game on both engines, comparing everything; returns positions checked.

    With probability ``repeat`` a move back to an earlier position of the game is preferred
    (when there is one), so that repetitions happen.
    """
    checked = 0
    seen = {fast.hash_key()}
    while True:
        assert fast.position() == ref.position()
        assert fast.outcome() == ref.outcome(), fast.position()
        assert fast.current_player() == ref.current_player()
        assert fast.hash_key() == ref.hash_key()
        legal = fast.legal_actions()
        assert legal == ref.legal_actions(), fast.position()
        checked += 1
        if not legal or len(fast.history) >= max_plies:
            return checked
        if checked % every == 0:  # every successor of this position agrees too (one ply deep)
            for a in legal:
                fast.apply_action(a)
                ref.apply_action(a)
                assert fast.position() == ref.position() and fast.outcome() == ref.outcome()
                fast.undo_action()
                ref.undo_action()
        a = rng.choice(legal)
        if rng.random() < repeat:
            back = []
            for b in legal:
                fast.apply_action(b)
                if fast.hash_key() in seen:
                    back.append(b)
                fast.undo_action()
            if back:
                a = rng.choice(back)
        fast.apply_action(a)
        ref.apply_action(a)
        seen.add(fast.hash_key())


@pytest.mark.parametrize("variant", ["standard", "beginner"])
def test_kernel_and_reference_agree_on_random_games(variant):
    fast_game, ref_game = load_game("gyges", variant), ReferenceGygesGame(variant)
    positions = 0
    for seed in range(12 if variant == "standard" else 60):
        rng = random.Random(seed)
        fast, ref = fast_game.new_initial_state(), ref_game.new_initial_state()
        if seed % 2:  # a preset setup; the other seeds draw both arrangements at random
            for s in (fast, ref):
                s.play(PRESETS[seed % 4])
                s.play(PRESETS[(seed // 4) % 4])
        positions += _lockstep(fast, ref, rng, 400, 7)
    assert positions > (3000 if variant == "standard" else 2000)


@pytest.mark.parametrize("variant", ["standard", "beginner"])
def test_kernel_and_reference_agree_on_repetitions(variant):
    fast_game, ref_game = load_game("gyges", variant), ReferenceGygesGame(variant)
    repetitions = 0
    for seed in range(16):
        rng = random.Random(100 + seed)
        start = REP if seed % 2 else START
        fast, ref = fast_game.state_from_position(start), ref_game.state_from_position(start)
        _lockstep(fast, ref, rng, 80, 5, repeat=0.7)
        out = fast.outcome()
        repetitions += out is not None and out.reason == "repetition"
        # undo all the way back: both engines still agree at every step
        while fast.history:
            fast.undo_action()
            ref.undo_action()
            assert fast.position() == ref.position() and fast.outcome() == ref.outcome()
    assert repetitions >= 8


def test_move_strings_agree_with_the_reference():
    fast_game, ref_game = load_game("gyges"), ReferenceGygesGame()
    rng = random.Random(7)
    strings = 0
    fast, ref = fast_game.state_from_position(START), ref_game.state_from_position(START)
    while not fast.is_terminal() and len(fast.history) < 150:
        legal = fast.legal_actions()
        if len(fast.history) % 5 == 0:
            for a in legal[:: max(1, len(legal) // 40)]:
                text = fast.action_to_string(a)
                assert text == ref.action_to_string(a), fast.position()
                assert fast.string_to_action(text) == a
                strings += 1
        a = rng.choice(legal)
        fast.apply_action(a)
        ref.apply_action(a)
    assert strings > 500


def test_kernel_agrees_on_positions_read_from_strings():
    game, ref_game = load_game("gyges", "beginner"), ReferenceGygesGame("beginner")
    rng = random.Random(5)
    for _ in range(60):
        s = game.new_initial_state()
        for _ in range(rng.randrange(2, 150)):
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))
        f, r = game.state_from_position(s.position()), ref_game.state_from_position(s.position())
        assert f.legal_actions() == r.legal_actions()
        assert f.outcome() == r.outcome() and f.perft(1) == r.perft(1)


def test_batched_playouts_return_consistent_arrays():
    s = load_game("gyges").new_initial_state()
    res = s.random_playouts(200, seed=11)
    assert res["winner"].shape == res["reason"].shape == res["length"].shape == (200,)
    assert res["returns"].shape == (200, 2)
    assert set(np.unique(res["winner"])) <= {-1, 0, 1}
    assert set(np.unique(res["reason"])) <= {1, 2}  # goal or repetition: every random game ends
    assert ((res["winner"] == -1) == (res["reason"] == 2)).all()
    assert (res["returns"][:, 0] == -res["returns"][:, 1]).all()
    assert (res["returns"][res["winner"] == 0, 0] == 1).all() and (res["returns"][res["winner"] == 1, 1] == 1).all()
    assert (res["length"] >= 3).all() and res["length"].mean() > 50  # the setup, then moves
    assert (s.random_playouts(200, seed=11)["length"] == res["length"]).all()  # the same seed, the same games
    # random play: both sides win often, draws are rare
    assert (res["winner"] == 0).sum() > 50 and (res["winner"] == 1).sum() > 50 and (res["reason"] == 2).mean() < 0.2
    # the simulate API takes the kernel path; it agrees with the protocol path in distribution
    assert playouts(s, 5, seed=3)["winner"].shape == (5,)


def test_playouts_respect_the_games_repetition_history():
    # REP has occurred twice; one more return to it ends the game, so playouts from here end in
    # an early draw far more often than playouts from a fresh REP (where it has occurred once)
    s = load_game("gyges").state_from_position(REP)
    for m in ("a1-a2", "f6-f5", "a2-a1", "f5-f6"):
        s.play(m)
    assert s.repetition_count() == 2
    res = s.random_playouts(300, seed=2)
    fresh = load_game("gyges").state_from_position(REP).random_playouts(300, seed=2)

    def early_draws(r):
        return int(((r["length"] <= 4) & (r["reason"] == 2)).sum())

    assert early_draws(res) > early_draws(fresh) + 5


def test_playouts_refuse_a_finished_game():
    s = load_game("gyges").state_from_position("000000/000000/000000/000000/321123/321123 S")
    s.play("c5-c6-G")
    with pytest.raises(ValueError, match="over"):
        s.random_playouts(3)
