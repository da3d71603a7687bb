"""The single-agent Gymnasium environment: Gymnasium's env checker, registered ids, whole episodes."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

import ringgames

from .conftest import need

gymnasium = need("gymnasium")
check_env = need("gymnasium.utils.env_checker").check_env
envs = need("ringgames.envs")
SingleAgentEnv = need("ringgames.envs.single").SingleAgentEnv


@pytest.mark.parametrize(("env_id", "kw"), [
    ("ringgames/Yinsh-v0", {"opponent": "level:2"}),
    ("ringgames/YinshBlitz-v0", {"opponent": "random"}),
    ("ringgames/GygesBeginner-v0", {"opponent": "mcts:iterations=10"}),
    ("ringgames/Gyges-v0", {"opponent": "random", "seat": 1}),
    ("ringgames/Rings-v0", {"opponent": "random", "players": 3}),
    ("ringgames/Rings-v0", {"opponent": "level:2", "players": 6, "seat": "random"}),
])
def test_gymnasium_env_checker(env_id, kw):
    env = gymnasium.make(env_id, render_mode="rgb_array", **kw).unwrapped  # the spec lets the checker try every render mode
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings are failures too
        check_env(env, skip_render_check=False)


def test_registered_ids():
    assert set(envs.GYM_IDS) <= set(gymnasium.registry)
    env = gymnasium.make("ringgames/Rings-v0", players=4, opponent="random")
    assert env.unwrapped.game.num_players == 4 and env.unwrapped.game.name == "rings"
    env = gymnasium.make("ringgames/YinshBlitz-v0")
    assert env.unwrapped.game.variant == "blitz"
    obs, _ = env.reset(seed=1)
    assert obs["observation"].shape == ringgames.load_game("yinsh").observation_shape()


@pytest.mark.parametrize(("game", "variant", "players", "seat"), [
    ("yinsh", "blitz", None, 1),
    ("gyges", "beginner", None, 0),
    ("rings", None, 3, 2),
])
def test_whole_episodes_against_random(game, variant, players, seat):
    env = SingleAgentEnv(game, variant=variant, players=players, opponent="random", seat=seat)
    obs, info = env.reset(seed=5)
    rng = random.Random(5)
    total = 0.0
    steps = 0
    while True:
        state = env.state
        assert state.current_player() == seat and info["seat"] == seat
        assert np.array_equal(obs["observation"], state.observation_tensor(seat))
        assert np.array_equal(obs["action_mask"].astype(bool), state.legal_action_mask())
        assert np.array_equal(env.action_masks(), state.legal_action_mask())
        obs, reward, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        total += reward
        steps += 1
        if terminated or truncated:
            break
        assert reward == 0.0
    assert terminated and not truncated
    assert total == env.state.returns()[seat]
    # the opponents' moves are in the history, the whole game is legal
    replay = env.game.new_initial_state()
    for a in env.state.history:
        replay.play(a)
    assert replay.is_terminal() and len(env.state.history) > steps
    assert not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)


def test_same_seed_same_episode_and_random_seats():
    env = SingleAgentEnv("yinsh", variant="blitz", opponent="mcts:iterations=5", seat="random")
    seats = set()
    for seed in range(6):
        obs1, info1 = env.reset(seed=seed)
        h1 = list(env.state.history)
        obs2, _ = env.reset(seed=seed)
        assert env.state.history == h1 and np.array_equal(obs1["observation"], obs2["observation"])
        seats.add(info1["seat"])
        if info1["seat"] == 1:  # the opponent (White) has already placed a ring
            assert len(h1) == 1
    assert seats == {0, 1}


def test_illegal_action_loses_or_raises():
    env = SingleAgentEnv("yinsh", opponent="random")
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not obs["action_mask"].any()
    env = SingleAgentEnv("yinsh", opponent="random", illegal="raise")
    first, _ = env.reset(seed=0)
    history = list(env.state.history)
    with pytest.raises(ValueError, match=f"action {illegal} is not legal"):
        env.step(illegal)
    legal = int(np.flatnonzero(first["action_mask"])[0])
    for bad in (legal + 0.5, float(legal), True, str(legal)):  # never truncated or converted to an id
        with pytest.raises(ValueError, match="int action id"):
            env.step(bad)
    assert env.state.history == history
    env.step(np.int64(legal))  # NumPy integers are ids
    assert len(env.state.history) > len(history)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="unknown agent"):
        SingleAgentEnv("yinsh", opponent="grandmaster")
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv("yinsh", seat=2)
    with pytest.raises(ValueError, match="2–6 players"):
        SingleAgentEnv("rings", players=9)
    with pytest.raises(ValueError, match="render_mode"):
        SingleAgentEnv("gyges", render_mode="text")


def test_truncation_after_truncation_length():
    env = SingleAgentEnv("gyges", variant="beginner", opponent="random")
    env.truncation_length = 4  # the real Gygès cap is 10,000 actions; the mechanism is the same
    obs, _ = env.reset(seed=0)
    flags = []
    while True:
        obs, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        flags.append((reward, terminated, truncated))
        if terminated or truncated:
            break
    assert flags == [(0.0, False, False), (0.0, False, True)] and len(env.state.history) == 4
    assert not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)


def test_observer_action_frame_for_north():
    env = SingleAgentEnv("gyges", variant="beginner", opponent="random", seat=1, action_frame="observer")
    perm = env.game.observer_actions(1)
    obs, info = env.reset(seed=3)
    for _ in range(5):
        state = env.state
        assert np.array_equal(obs["action_mask"].astype(bool)[perm], state.legal_action_mask())
        assert np.array_equal(info["action_mask"], obs["action_mask"].astype(bool))
        o = int(np.flatnonzero(obs["action_mask"])[-1])
        before = len(state.history)
        obs, _, terminated, truncated, info = env.step(o)
        assert state.history[before] == int(np.argsort(perm)[o])
        if terminated or truncated:
            break
