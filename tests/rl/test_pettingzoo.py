"""PettingZoo AEC environments: PettingZoo's API and seed tests, whole games, rendering."""

from __future__ import annotations

import random

import numpy as np
import pytest

import ringgames

from .conftest import need

need("pettingzoo")
api_test = need("pettingzoo.test").api_test
seed_test = need("pettingzoo.test").seed_test
envs = need("ringgames.envs")
need("ringgames.envs.aec")

CASES = [("yinsh_v0", {}), ("yinsh_v0", {"variant": "blitz"}), ("gyges_v0", {}), ("gyges_v0", {"variant": "beginner"})]
CASES += [("rings_v0", {"players": n}) for n in range(2, 7)]
IDS = [f"{m}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for m, kw in CASES]


def make(module: str, **kw):
    return getattr(envs, module).env(**kw)


# the two warnings PettingZoo's own board games (chess, go, ...) are exempted from by name:
# a dict observation {"observation", "action_mask"} is the documented form for action masks
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be:UserWarning")
@pytest.mark.parametrize(("module", "kw"), CASES, ids=IDS)
def test_pettingzoo_api_and_seed_tests(module, kw):
    api_test(make(module, **kw), num_cycles=300)
    seed_test(lambda: make(module, **kw), num_cycles=60)


@pytest.mark.parametrize(("module", "kw", "game"), [
    ("yinsh_v0", {"variant": "blitz"}, ("yinsh", "blitz", None)),
    ("gyges_v0", {"variant": "beginner"}, ("gyges", "beginner", None)),
    ("rings_v0", {"players": 3}, ("rings", None, 3)),
])
def test_a_whole_game_through_the_aec_loop(module, kw, game):
    env = make(module, **kw)
    env.reset(seed=1)
    rng = random.Random(1)  # seed 1: YINSH blitz ends by a row (a multi-decision turn)
    replay = ringgames.load_game(*game).new_initial_state()
    agents = list(env.possible_agents)
    final: dict[str, float] = {}
    same_agent_again = 0
    last_agent = None
    for agent in env.agent_iter(max_iter=5000):
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        seat = agents.index(agent)
        assert seat == replay.current_player()
        same_agent_again += agent == last_agent
        last_agent = agent
        # the agent's view of the protocol state
        assert np.array_equal(obs["observation"], replay.observation_tensor(seat))
        assert np.array_equal(obs["action_mask"].astype(bool), replay.legal_action_mask())
        others = [a for a in agents if a != agent]
        assert not env.observe(others[0])["action_mask"].any()
        a = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        env.step(a)
        replay.play(a)
    assert replay.is_terminal() and env.agents == []
    assert final == {a: r for a, r in zip(agents, replay.returns(), strict=True)}
    assert sum(final.values()) == pytest.approx(0.0)
    if module != "gyges_v0":  # YINSH rows and RINGS conversions: the same agent decides again
        assert same_agent_again > 0


def test_illegal_action_is_refused_and_changes_nothing():
    env = make("yinsh_v0")
    env.reset()
    obs = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    position = env.unwrapped.state.position()
    with pytest.raises(ValueError, match=f"player_0: action {illegal} is not legal"):
        env.step(illegal)
    for bad in ("e5", 3.5, True):
        with pytest.raises(ValueError, match="int action id"):
            env.step(bad)
    assert env.unwrapped.state.position() == position and env.agent_selection == "player_0"


def test_observer_action_frame_turns_gyges_for_north():
    aec = need("ringgames.envs.aec")
    game = ringgames.load_game("gyges")
    frame = aec.ActionFrame(game, "observer")
    # the same board with North to move looks to North as it looks to South with South to move
    south = game.state_from_position("321123/000000/000000/000000/000000/321123 S")
    north = game.state_from_position("321123/000000/000000/000000/000000/321123 N")
    assert not np.array_equal(north.legal_action_mask(), south.legal_action_mask())
    assert np.array_equal(frame.mask(1, north.legal_action_mask()), south.legal_action_mask())
    assert np.array_equal(frame.mask(0, south.legal_action_mask()), south.legal_action_mask())
    # through the environment: North's masks and actions in its frame, the protocol sees absolute ids
    env = make("gyges_v0", variant="beginner", action_frame="observer")
    env.reset()
    rng = random.Random(2)
    perm = game.observer_actions(1)
    for _ in range(30):
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        seat = int(agent[-1])
        state = env.unwrapped.state
        m = env.observe(agent)["action_mask"].astype(bool)
        want = state.legal_action_mask()
        assert np.array_equal(m[perm] if seat == 1 else m, want)
        o = rng.choice(np.flatnonzero(m).tolist())
        before = len(state.history)
        env.step(o)
        assert state.history[before] == (int(np.argsort(perm)[o]) if seat == 1 else o)
    with pytest.raises(ValueError, match="action_frame"):
        make("gyges_v0", action_frame="north")


def test_truncation_after_truncation_length():
    env = make("gyges_v0", variant="beginner")
    env.reset()
    raw = env.unwrapped
    raw.truncation_length = 5  # the real Gygès cap is 10,000 actions; the mechanism is the same
    for _ in range(5):
        assert not any(env.truncations.values())
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(r == 0 for r in env.rewards.values())
    for _agent in env.agent_iter():
        assert env.last()[3] is True
        env.step(None)
    assert env.agents == []


def test_render_modes(capsys):
    env = make("yinsh_v0", render_mode="human")
    env.reset()
    env.step(env.unwrapped.state.string_to_action("e5"))
    printed = capsys.readouterr().out
    assert printed.strip() == env.unwrapped.state.render().strip() and "W" in printed
    with pytest.raises(ValueError, match="render_mode"):
        make("yinsh_v0", render_mode="ascii")


def _count(img: np.ndarray, colour) -> int:
    return int(np.all(img == np.array(colour, np.uint8), axis=-1).sum())


@pytest.mark.parametrize(("module", "kw", "moves", "colour"), [
    ("yinsh_v0", {}, ["e5"], (250, 250, 245)),  # a white ring
    ("rings_v0", {"players": 3}, ["K12"], (217, 70, 59)),  # a red stone
    ("gyges_v0", {}, ["321123"], (30, 30, 30)),  # South's pieces as black circles
])
def test_rgb_array_draws_the_pieces(module, kw, moves, colour):
    env = make(module, render_mode="rgb_array", **kw)
    env.reset()
    before = env.render()
    assert before.dtype == np.uint8 and before.ndim == 3 and before.shape[2] == 3 and min(before.shape[:2]) > 300
    for m in moves:
        env.step(env.unwrapped.state.string_to_action(m))
    after = env.render()
    assert after.shape == before.shape
    assert _count(after, colour) > _count(before, colour) + 30
