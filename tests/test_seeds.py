"""One seed makes one game: the compiled kernel path and the Python protocol path play the
same actions for the same seed (generator and choice rule: ``ringgames.rng``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ringgames import load_game
from ringgames.rng import PlayoutRandom, below, new_state
from ringgames.simulate import playout_actions, playouts, random_playout

CONFIGS = [
    ("yinsh", None, None),
    ("yinsh", "blitz", None),
    ("gyges", None, None),
    ("gyges", "beginner", None),
    ("rings", None, 2),
    ("rings", None, 3),
    ("rings", None, 6),
]


def test_splitmix64_known_answers():
    # the reference outputs of SplitMix64 (Steele, Lea, Flood 2014; Vigna's splitmix64.c) from state 0
    r = PlayoutRandom(0)
    assert [r.next64() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    s = new_state(0)
    from ringgames.rng import next64

    assert [int(next64(s)) for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_below_is_the_same_rule_on_both_paths_and_uniform():
    for seed in (0, 1, -3, 2**63 + 5):
        r, s = PlayoutRandom(seed), new_state(seed)
        for n in (1, 2, 3, 7, 90, 217, 1000, 49_375):
            assert [r.below(n) for _ in range(50)] == [int(below(s, n)) for _ in range(50)]
    r = PlayoutRandom(9)
    assert r.below(1) == 0 and r.getstate() == PlayoutRandom(9).getstate()  # n == 1 draws nothing
    counts = np.bincount([r.below(6) for _ in range(60_000)], minlength=6)
    assert ((counts - 10_000) ** 2 / 10_000).sum() < 25  # chi-square, 5 degrees of freedom
    assert isinstance(r, random.Random) and 0 <= r.random() < 1 and r.getrandbits(100) < 2**100


def _midgame(game, seed: int, plies: int):
    s = game.new_initial_state()
    rng = random.Random(seed)
    for _ in range(plies):
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("name,variant,players", CONFIGS)
def test_kernel_and_python_paths_play_the_same_game(name, variant, players):
    game = load_game(name, variant, players)
    starts = [game.new_initial_state(), _midgame(game, 1, 40)]
    if name == "gyges":  # with repetitions in the history: the kernel counts them too
        g = game.state_from_position("100000/220000/330000/000331/000022/000011 S")
        for m in ("a1-b1", "e6-d6", "b1-a1", "d6-e6", "a1-b1"):
            g.play(m)
        starts.append(g)
    for start in starts:
        if start.is_terminal():
            continue
        for seed in (0, 5, 123456789):
            kernel = playout_actions(start, seed)
            python = playout_actions(start, seed, path="python")
            assert kernel == python and len(kernel) > 0
            s = start.clone()
            for a in kernel:
                s.play(a)  # legal all the way
            assert s.is_terminal()


@pytest.mark.parametrize("name,variant,players", CONFIGS)
def test_batched_playouts_are_the_seeded_games(name, variant, players):
    game = load_game(name, variant, players)
    start = game.new_initial_state()
    res = playouts(start, 4, seed=20)
    for i in range(4):
        actions = random_playout(start, 20 + i)
        assert int(res["length"][i]) == len(actions)
        s = start.clone()
        for a in actions:
            s.apply_action(a)
        assert res["returns"][i].tolist() == s.returns()


def test_gyges_fast_sampler_is_reproducible_but_other_games():
    s = load_game("gyges").new_initial_state()
    fast = s.random_playouts(30, seed=3, sampler="fast")
    assert (s.random_playouts(30, seed=3, sampler="fast")["length"] == fast["length"]).all()
    exact = s.random_playouts(30, seed=3)
    assert (exact["length"] != fast["length"]).any()
    with pytest.raises(ValueError, match="sampler"):
        s.random_playouts(1, sampler="quick")


def test_policy_gets_the_seeded_generator():
    s = load_game("rings", players=2).new_initial_state()
    seen = []

    def first(state, rng):
        seen.append(rng)
        return state.legal_actions()[-1]  # always pass: the game ends after two passes

    res = playouts(s, 2, seed=4, policy=first)
    assert res["length"].tolist() == [2, 2]
    assert all(isinstance(r, PlayoutRandom) for r in seen)
    with pytest.raises(ValueError, match="path"):
        playout_actions(s, 1, path="gpu")
