"""Board symmetries for data augmentation: they map legal masks to legal masks and
observations to observations (checked on the symmetric state built from the mapped
position string), and they are the board's true symmetries (a group, geometry kept)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ringgames import load_game

CONFIGS = [
    ("yinsh", None, None),
    ("yinsh", "blitz", None),
    ("gyges", None, None),
    ("gyges", "beginner", None),
    ("rings", None, 2),
    ("rings", None, 3),
    ("rings", None, 5),
]
COUNTS = {"yinsh": 12, "gyges": 2, "rings": 12}


def _random_states(game, seed: int, games: int = 2, every: int = 5):
    """States met in random games (every ``every``-th one, terminal ones included)."""
    rng = random.Random(seed)
    for _ in range(games):
        s = game.new_initial_state()
        n = 0
        while not s.is_terminal():
            if n % every == 0:
                yield s.clone()
            s.apply_action(rng.choice(s.legal_actions()))
            n += 1
            if n > 400:
                break
        yield s


@pytest.mark.parametrize("name,variant,players", CONFIGS)
def test_symmetries_map_masks_and_observations(name, variant, players):
    game = load_game(name, variant, players)
    syms = game.symmetries()
    assert len(syms) == COUNTS[name]
    checked = 0
    for state in _random_states(game, seed=7, games=4 if name == "gyges" else 2):
        base = game.state_from_position(state.position())  # the position without its history
        if name != "gyges" or not state.is_terminal():
            assert (base.legal_action_mask() == state.legal_action_mask()).all()
        mask = base.legal_action_mask()
        obs = [base.observation_tensor(p) for p in range(game.num_players)]
        if name != "gyges":  # the position string holds everything the observation shows
            for p in range(game.num_players):
                assert np.array_equal(state.observation_tensor(p), obs[p])
        for sym in syms:
            t = game.state_from_position(sym.apply_position(base.position()))
            assert (t.legal_action_mask() == sym.apply_mask(mask)).all(), sym.name
            assert (np.sort(sym.apply_actions(np.flatnonzero(mask))) == np.flatnonzero(t.legal_action_mask())).all()
            for p in range(game.num_players):
                assert np.array_equal(t.observation_tensor(p), sym.apply_observation(obs[p])), (sym.name, p)
        checked += 1
    assert checked >= 15


@pytest.mark.parametrize("name,variant,players", [("yinsh", None, None), ("gyges", None, None), ("rings", None, 4)])
def test_symmetries_are_a_group_of_permutations(name, variant, players):
    game = load_game(name, variant, players)
    syms = game.symmetries()
    a = game.num_distinct_actions
    assert (syms[0].action_perm == np.arange(a)).all()
    perms = {tuple(s.action_perm.tolist()) for s in syms}
    assert len(perms) == len(syms)  # all different
    for s in syms:
        assert sorted(s.action_perm.tolist()) == list(range(a))
        cells = int(np.prod(game.observation_shape()[1:]))
        assert sorted(s.cell_perm.tolist()) == list(range(cells))
        for u in syms:  # closed under composition
            assert tuple(u.action_perm[s.action_perm].tolist()) in perms


def test_rings_symmetries_keep_the_geometry():
    from ringgames.games.rings.board import CIRCLE_NEIGHBOURS, CIRCLE_POINTS, circle_index, point_index
    from ringgames.games.rings.observation import SYMMETRY_CIRCLES, SYMMETRY_POINTS

    for pm, cm in zip(SYMMETRY_POINTS, SYMMETRY_CIRCLES, strict=True):
        for c, pts in enumerate(CIRCLE_POINTS):
            assert {pm[p] for p in pts} == set(CIRCLE_POINTS[cm[c]])
            assert {cm[d] for d in CIRCLE_NEIGHBOURS[c]} == set(CIRCLE_NEIGHBOURS[cm[c]])
        assert cm[circle_index("LM12")] == circle_index("LM12")  # the centre stays
    # a rotation by 60 degrees moves the top circle to the upper right corner circle and back after six
    top = circle_index("LM2")
    images = {SYMMETRY_CIRCLES[k][top] for k in range(6)}
    assert len(images) == 6
    assert SYMMETRY_POINTS[0][point_index("L1")] == point_index("L1")
    # the top-bottom mirror sends the top circle to the bottom one
    assert SYMMETRY_CIRCLES[6][top] == circle_index("LM22")


def test_gyges_mirror_reverses_files():
    game = load_game("gyges")
    mirror = game.symmetries()[1]
    s = game.state_from_position("321123/000000/000000/000000/000000/321123 S")
    a = s.string_to_action("c1-b1(a4)")
    t = game.state_from_position(mirror.apply_position(s.position()))
    assert t.action_to_string(int(mirror.apply_actions(a))) == "d1-e1(f4)"
    assert mirror.apply_position("123321/000000/000000/000000/000000/231132 N") == "123321/000000/000000/000000/000000/231132 N"
    assert mirror.apply_position("321000/000000/000000/000000/000000/000000 S").startswith("000123/")


def test_yinsh_rotation_moves_points_around_f6():
    game = load_game("yinsh")
    syms = game.symmetries()
    s = game.new_initial_state()
    s.play("e3")
    assert s.action_to_string(int(syms[0].apply_actions(s.history[0]))) == "e3"
    images = {s.action_to_string(int(sym.apply_actions(s.history[0]))) for sym in syms}
    assert len(images) == 12 and "f6" not in images
    from ringgames.games.yinsh.board import point_index

    centre = point_index("f6")  # the centre: every symmetry keeps it
    assert all(int(sym.apply_actions(centre)) == centre for sym in syms)


@pytest.mark.parametrize("name,players", [("yinsh", None), ("gyges", None), ("rings", 3)])
def test_symmetries_pickle(name, players):
    """Symmetries travel to worker processes (self-play, batched data) intact."""
    import pickle

    game = load_game(name, None, players)
    pos = game.new_initial_state().position()
    for sym in game.symmetries():
        back = pickle.loads(pickle.dumps(sym))
        assert back.name == sym.name and (back.action_perm == sym.action_perm).all()
        assert back.apply_position(pos) == sym.apply_position(pos)
