"""OpenSpiel adapter: registration, OpenSpiel's random simulation test, its MCTS bot against its random bot."""

from __future__ import annotations

import random

import numpy as np
import pytest

import ringgames

from .conftest import need

pyspiel = need("pyspiel")
mcts = need("open_spiel.python.algorithms.mcts")
uniform_random = need("open_spiel.python.bots.uniform_random")
need("ringgames.openspiel")

NAMES = {
    "python_yinsh": ("yinsh", "standard", 2),
    "python_yinsh_blitz": ("yinsh", "blitz", 2),
    "python_gyges": ("gyges", "standard", 2),
    "python_gyges_beginner": ("gyges", "beginner", 2),
    "python_rings": ("rings", "standard", 2),
}


@pytest.mark.parametrize("name", sorted(NAMES))
def test_registered_with_the_protocols_description(name):
    assert name in pyspiel.registered_names()
    g = pyspiel.load_game(name)
    rg = ringgames.load_game(*NAMES[name][:2])
    assert g.num_players() == NAMES[name][2]
    assert g.num_distinct_actions() == rg.num_distinct_actions
    assert g.max_game_length() == rg.truncation_length()
    assert g.observation_tensor_shape() == list(rg.observation_shape())
    assert (g.min_utility(), g.max_utility()) == (rg.min_utility(), rg.max_utility())
    t = g.get_type()
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL


def test_rings_players_parameter():
    for n in range(2, 7):
        g = pyspiel.load_game(f"python_rings(players={n})")
        assert g.num_players() == n
        assert g.new_initial_state().current_player() == 0
    assert pyspiel.load_game("python_rings", {"players": 5}).num_players() == 5
    with pytest.raises(Exception, match="2–6 players"):
        pyspiel.load_game("python_rings(players=7)")


@pytest.mark.parametrize("spec", [
    "python_yinsh", "python_yinsh_blitz", "python_gyges", "python_gyges_beginner",
    "python_rings(players=2)", "python_rings(players=4)",
    pytest.param("python_rings(players=3)", marks=pytest.mark.slow),
    pytest.param("python_rings(players=6)", marks=pytest.mark.slow),
])
def test_openspiel_random_sim_test(spec):
    # OpenSpiel's own checks: legal actions, clone, serialisation, observation tensors, returns bounds
    pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("spec", ["python_yinsh_blitz", "python_gyges_beginner", "python_rings(players=3)"])
def test_states_follow_the_protocol(spec):
    g = pyspiel.load_game(spec)
    s = g.new_initial_state()
    rg_state = s.ringgames_state
    rng = random.Random(7)
    steps = 0
    while not s.is_terminal() and steps < 60:
        p = s.current_player()
        assert p == rg_state.current_player()
        assert s.legal_actions() == rg_state.legal_actions()
        assert s.legal_actions_mask() == rg_state.legal_action_mask().astype(int).tolist()
        for q in range(g.num_players()):
            want = rg_state.observation_tensor(q).ravel()
            assert np.array_equal(np.asarray(s.observation_tensor(q), np.float32), want)
        a = rng.choice(s.legal_actions())
        assert s.action_to_string(p, a) == rg_state.action_to_string(a)
        c = s.clone()
        s.apply_action(a)
        steps += 1
        # the clone did not move with the original, and moves on its own
        assert len(c.history()) == len(s.history()) - 1
        assert c.ringgames_state.history == rg_state.history[:-1]
        c.apply_action(a)
        assert c.ringgames_state.position() == rg_state.position()
    assert steps > 0


def _bot_game(spec: str, mcts_seat: int, seed: int, simulations: int) -> tuple[list[float], list[int]]:
    game = pyspiel.load_game(spec)
    rng = np.random.RandomState(seed)
    bots = {
        mcts_seat: mcts.MCTSBot(game, 2.0, simulations, mcts.RandomRolloutEvaluator(1, rng), random_state=rng),
        1 - mcts_seat: uniform_random.UniformRandomBot(1 - mcts_seat, rng),
    }
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    return state.returns(), state.history()


def test_openspiel_mcts_bot_beats_random_bot_at_gyges_beginner():
    mcts_score = 0.0
    for seat, seed in ((0, 1), (1, 2), (0, 3)):
        returns, history = _bot_game("python_gyges_beginner", seat, seed, simulations=30)
        # a real finished game of the protocol: every action legal, zero-sum returns
        replay = ringgames.load_game("gyges", "beginner").new_initial_state()
        for a in history:
            replay.play(a)
        assert replay.is_terminal()
        assert returns == replay.returns() and sum(returns) == 0
        mcts_score += returns[seat]
    # deterministic (seeded bots, a game without chance): MCTS wins at least two of three
    assert mcts_score >= 1.0


@pytest.mark.slow
def test_openspiel_mcts_bot_plays_yinsh_blitz_to_the_end():
    returns, history = _bot_game("python_yinsh_blitz", 0, 5, simulations=8)
    replay = ringgames.load_game("yinsh", "blitz").new_initial_state()
    for a in history:
        replay.play(a)
    assert replay.is_terminal() and returns == replay.returns()


def test_games_and_states_pickle_and_deserialize():
    import pickle

    g = pyspiel.load_game("python_rings(players=3)")
    g2 = pickle.loads(pickle.dumps(g))
    assert g2.num_players() == 3 and str(g2) == "python_rings(players=3)"
    s = g.new_initial_state()
    for k in (5, 40, 3):
        s.apply_action(s.legal_actions()[k % len(s.legal_actions())])
    for copy in (pickle.loads(pickle.dumps(s)), g.deserialize_state(s.serialize())):
        assert copy.history() == s.history()
        assert copy.ringgames_state.position() == s.ringgames_state.position()
        assert copy.current_player() == s.current_player()


def test_openspiel_rl_environment_plays_a_game():
    rl_environment = need("open_spiel.python.rl_environment")
    env = rl_environment.Environment("python_yinsh_blitz")
    ts = env.reset()
    rng = np.random.default_rng(0)
    replay = ringgames.load_game("yinsh", "blitz").new_initial_state()
    while not ts.last():
        p = ts.observations["current_player"]
        assert np.array_equal(np.asarray(ts.observations["info_state"][p], np.float32),
                              replay.observation_tensor(p).ravel())
        a = int(rng.choice(ts.observations["legal_actions"][p]))
        ts = env.step([a])
        replay.play(a)
    assert replay.is_terminal() and ts.rewards == replay.returns()
