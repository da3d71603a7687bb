"""The batched environments (``ringgames.batch``) against the protocol path.

The differential test drives B protocol states with the same actions as a batch of B
games and compares, at every step, the legal actions (mask and id lists), the player
to decide, the sampler's draws, the rewards, ``terminated`` (with auto-reset) and the
position string and kernel array of every game.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from ringgames import IllegalActionError, load_game
from ringgames.batch import BatchedEnv, make
from ringgames.batch import gyges as gyges_batch
from ringgames.games.gyges import kernel as GK
from ringgames.games.gyges.board import GOAL, MOVE_BASE
from ringgames.games.gyges.board import PASS as GYGES_PASS
from ringgames.games.rings.notation import END as RINGS_END
from ringgames.games.rings.notation import PASS as RINGS_PASS

CASES = [
    ("yinsh", None, None),
    ("yinsh", "blitz", None),
    ("rings", None, 2),
    ("rings", None, 3),
    ("gyges", None, None),
    ("gyges", "beginner", None),
]


def _gyges_end(action: int) -> int:
    return ((action - MOVE_BASE) // 37) % 37


class _Policy:
    """Chooses the actions of the differential test: the batch sampler's draw half of the time,
    otherwise a move that ends games sooner (RINGS: pass or end; Gygès: into the goal, or back to
    the position of four plies ago, which makes repetitions; YINSH: uniform). Every third Gygès
    game goes back to the position of four plies ago whenever it can, and never wins (draws by repetition)."""

    def __init__(self, game: str, seed: int):
        self.game = game
        self.rng = random.Random(seed)

    def choose(self, state, legal: list[int], sampled: int, past_keys: list[int], row: int) -> int:
        if self.game == "gyges" and row % 3 == 0 and MOVE_BASE <= legal[0] < GYGES_PASS:
            # these rows go back whenever they can, and never win
            back = state.successor_keys().get(past_keys[-4]) if len(past_keys) >= 4 else None
            if back is not None:
                return back
            calm = [a for a in legal if a == GYGES_PASS or _gyges_end(a) != GOAL]
            return sampled if sampled in calm else self.rng.choice(calm or legal)
        r = self.rng.random()
        if r < 0.5:
            return sampled
        if self.game == "rings":
            quick = [a for a in legal if a in (RINGS_PASS, RINGS_END)]
            if quick and r < 0.8:
                return quick[0]
        if self.game == "gyges" and MOVE_BASE <= legal[0] < GYGES_PASS:
            goal = [a for a in legal if _gyges_end(a) == GOAL]
            if goal and r < 0.75:
                return self.rng.choice(goal)
            if len(past_keys) >= 4:
                back = state.successor_keys().get(past_keys[-4])
                if back is not None:
                    return back
        return self.rng.choice(legal)


@pytest.mark.parametrize("game,variant,players", CASES)
def test_batched_steps_equal_the_protocol(game, variant, players):
    b, steps = 6, 250
    env = BatchedEnv(game, b, variant=variant, players=players, seed=7)
    if game == "gyges" and variant is None:
        env._b.tables = gyges_batch.new_tables(b, 8)  # tiny repetition tables: they grow (rehash) during the walk
    g = load_game(game, variant, players)
    states = [g.new_initial_state() for _ in range(b)]
    keys: list[list[int]] = [[] for _ in range(b)]
    policy = _Policy(game, 11)
    finished = draws = 0
    for _ in range(steps):
        mask = env.legal_action_mask()
        ids, counts = env.legal_action_ids()
        player = env.current_player()
        sampled = env.sample_random_actions()
        assert mask.shape == (b, g.num_distinct_actions) and mask.dtype == np.bool_
        actions = []
        for i, st in enumerate(states):
            legal = st.legal_actions()
            assert np.flatnonzero(mask[i]).tolist() == legal
            assert ids[i, : counts[i]].tolist() == legal and (ids[i, counts[i]:] == -1).all()
            assert player[i] == st.current_player()
            assert int(sampled[i]) in legal
            actions.append(policy.choose(st, legal, int(sampled[i]), keys[i], i))
        rewards, terminated = env.step(np.array(actions))
        assert rewards.shape == (b, g.num_players) and rewards.dtype == np.float32
        for i, st in enumerate(states):
            st.apply_action(actions[i])
            if game == "gyges":
                keys[i].append(st.hash_key())
            if st.is_terminal():
                assert terminated[i]
                assert rewards[i].tolist() == pytest.approx(st.returns())
                finished += 1
                draws += st.outcome().is_draw(g.num_players)
                states[i] = st = g.new_initial_state()
                keys[i] = []
            else:
                assert not terminated[i]
                assert not rewards[i].any()
            assert env.position(i) == st.position()
            assert np.array_equal(env.states[i], st.s)
    # the walk covered auto-resets (and draws where the policy makes them: RINGS passes, Gygès repetitions)
    assert finished >= 5, finished
    if game == "gyges" and variant is None:
        assert env._b.tables[0].shape[1] >= 64
    if game in ("rings", "gyges") and variant is None:
        assert draws >= 1, draws


@pytest.mark.parametrize("game,variant,players", [("yinsh", None, None), ("rings", None, 4), ("gyges", None, None)])
def test_play_random_equals_sampler_then_step(game, variant, players):
    b, n = 5, 120
    fused = BatchedEnv(game, b, variant=variant, players=players, seed=3)
    looped = BatchedEnv(game, b, variant=variant, players=players, seed=3)
    reward_sum, finished = fused.play_random(n)
    total = np.zeros((b, looped.num_players))
    count = np.zeros(b, dtype=np.int64)
    for _ in range(n):
        r, t = looped.step(looped.sample_random_actions(), validate=False)
        total += r
        count += t
    assert np.array_equal(fused.states, looped.states)
    assert np.allclose(reward_sum, total)
    assert finished.tolist() == count.tolist()
    assert fused.sample_random_actions().tolist() == looped.sample_random_actions().tolist()


@pytest.mark.parametrize("game,variant,players", [("yinsh", None, None), ("yinsh", "blitz", None), ("rings", None, 2),
                                                  ("rings", None, 5), ("gyges", None, None), ("gyges", "beginner", None)])
def test_step_random_equals_sampler_then_step(game, variant, players):
    # the one-call step draws the same actions from the same streams and plays them: the same
    # actions, rewards, terminated flags and positions as sample_random_actions() then step()
    b, n = 7, 300
    one = BatchedEnv(game, b, variant=variant, players=players, seed=13)
    two = BatchedEnv(game, b, variant=variant, players=players, seed=13)
    if game == "gyges" and variant is None:
        one._b.tables = gyges_batch.new_tables(b, 8)  # tiny tables: step_random grows them too
    finished = 0
    for k in range(n):
        sampled = two.sample_random_actions()
        r2, t2 = two.step(sampled, validate=False)
        actions, r1, t1 = one.step_random()
        assert actions.dtype == np.int32 and r1.dtype == np.float32 and t1.dtype == np.bool_
        assert actions.tolist() == sampled.tolist(), k
        assert np.array_equal(r1, r2) and t1.tolist() == t2.tolist(), k
        assert np.array_equal(one.states, two.states), k
        finished += int(t1.sum())
        assert (r1[~t1] == 0).all()
    assert finished >= 1, finished
    if game == "gyges" and variant is None:
        assert one._b.tables[0].shape[1] > 8
    # the protocol path: the actions taken are legal, rewards and terminated are its returns, and
    # each row's position is the protocol state's (a new game after each end)
    env = BatchedEnv(game, b, variant=variant, players=players, seed=21)
    g = load_game(game, variant, players)
    states = [g.new_initial_state() for _ in range(b)]
    for _ in range(60):
        actions, rewards, terminated = env.step_random()
        for i in range(b):
            st = states[i]
            assert int(actions[i]) in st.legal_actions()
            st.apply_action(int(actions[i]))
            assert st.is_terminal() == terminated[i]
            if terminated[i]:
                assert rewards[i].tolist() == pytest.approx(st.returns())
                states[i] = st = g.new_initial_state()
            assert env.position(i) == st.position() and np.array_equal(env.states[i], st.s)


def test_step_random_seeds_and_threads():
    numba = pytest.importorskip("numba")
    runs = []
    before = numba.get_num_threads()
    try:
        for threads in (1, before):
            numba.set_num_threads(threads)
            env = BatchedEnv("rings", 64, players=3, seed=4)
            runs.append([env.step_random()[0].tolist() for _ in range(30)])
    finally:
        numba.set_num_threads(before)
    assert runs[0] == runs[1]
    env = BatchedEnv("rings", 64, players=3, seed=5)
    assert [env.step_random()[0].tolist() for _ in range(30)] != runs[0]


def test_step_random_is_uniform():
    # 20,000 copies of one Gygès middle-game position: the first step_random draws are uniform
    # over its legal moves (the kernel's rejection sampler on each row's own stream)
    env = BatchedEnv("gyges", 20_000, seed=1)
    for k in range(8):
        env.step(np.full(env.batch_size, env.sample_random_actions(rng_seed=k)[0]), validate=False)
    assert (env.states == env.states[0]).all()
    legal = env.state(0).legal_actions()
    draws = env.step_random()[0]
    values, counts = np.unique(draws, return_counts=True)
    assert values.tolist() == legal
    expected = env.batch_size / len(legal)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    dof = len(legal) - 1
    assert chi2 < dof + 6 * (2 * dof) ** 0.5, (chi2, dof)


@pytest.mark.parametrize("game", ["gyges", "rings"])
def test_sampler_is_uniform_over_the_legal_actions(game):
    # 20,000 copies of one middle-game position, one draw each (one stream per row): a Gygès
    # position after random moves (rejection sampler from bounded targets), a RINGS board with
    # few empty points left (rejection draws, then the counting fallback)
    env = BatchedEnv(game, 20_000, seed=1)
    for k in range(8 if game == "gyges" else 170):
        if game == "gyges":
            a = env.sample_random_actions(rng_seed=k)[0]
        else:
            a = env.legal_action_ids()[0][0, 0]  # the lowest empty point, or the first conversion
        env.step(np.full(env.batch_size, a), validate=False)
    assert (env.states == env.states[0]).all()
    legal = env.state(0).legal_actions()
    draws = env.sample_random_actions(rng_seed=123)
    values, counts = np.unique(draws, return_counts=True)
    assert values.tolist() == legal  # every legal action drawn, nothing else
    expected = env.batch_size / len(legal)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    dof = len(legal) - 1
    assert chi2 < dof + 6 * (2 * dof) ** 0.5, (chi2, dof)
    if game == "rings":
        assert 10 < len(legal) < 60


def test_seeds_and_threads_give_the_same_draws():
    numba = pytest.importorskip("numba")
    env = BatchedEnv("yinsh", 64, seed=2)
    env.play_random(15)
    a = env.sample_random_actions(rng_seed=4)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        b = env.sample_random_actions(rng_seed=4)
    finally:
        numba.set_num_threads(before)
    assert a.tolist() == b.tolist()
    assert env.sample_random_actions(rng_seed=5).tolist() != a.tolist()
    # reset(seed) restarts the streams
    env.reset(9)
    first = env.sample_random_actions()
    env.reset(9)
    assert env.sample_random_actions().tolist() == first.tolist()


def test_illegal_and_malformed_actions_are_refused_with_nothing_played():
    env = make("yinsh", 3, seed=1)
    env.step(np.array([0, 1, 2]))  # three placements by White
    before = env.states.copy()
    with pytest.raises(IllegalActionError, match="action 1 is not legal in game 1"):
        env.step(np.array([5, 1, 6]))  # game 1: point 1 already holds White's ring
    with pytest.raises(ValueError, match="shape"):
        env.step(np.array([5, 6]))
    with pytest.raises(ValueError, match="outside"):
        env.step(np.array([5, 6, env.num_actions]))
    with pytest.raises(ValueError, match="integers"):
        env.step(np.array([5.0, 6.0, 7.0]))
    assert np.array_equal(env.states, before)
    with pytest.raises(ValueError, match="batch_size"):
        BatchedEnv("rings", 0)
    with pytest.raises(IndexError):
        env.position(3)
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="num_steps"):
            env.play_random(bad)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros((3, 1), dtype=np.int32))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.int32(5))
    assert np.array_equal(env.states, before)


def _protocol_observation(state):
    """``state.observation_tensor(player)`` of the protocol (from the research branch), or None."""
    fn = getattr(state, "observation_tensor", None)
    return None if fn is None else fn(state.current_player())


@pytest.mark.parametrize("game,variant,players", [("yinsh", None, None), ("yinsh", "blitz", None), ("rings", None, 2),
                                                  ("rings", None, 5), ("gyges", None, None), ("gyges", "beginner", None)])
def test_observations_equal_the_protocol_planes(game, variant, players):
    env = BatchedEnv(game, 8, variant=variant, players=players, seed=5)
    first = env.observation()
    assert first.shape == (8, *env.observation_shape) and first.dtype == np.float32
    checked = 0
    for step in range(60):
        obs = env.observation()
        for i in range(env.batch_size):
            st = env.state(i)
            if game == "gyges" and i == 0:
                # the repetition count is not in the position string: compare it with the array
                s = env.states[i]
                assert obs[i, 6].max() == (1.0 if s[GK.REPS] >= 2 and s[GK.PHASE] == GK.PLAY else 0.0)
            want = _protocol_observation(st)
            if want is None:
                continue
            if game == "gyges":  # state(i) forgets earlier repetitions: compare that plane separately
                want[6] = obs[i, 6]
            np.testing.assert_array_equal(obs[i], want, err_msg=f"{game} game {i} step {step}: {st.position()}")
            checked += 1
        env.step(env.sample_random_actions(), validate=False)
    assert checked == 60 * env.batch_size


def test_observation_values_at_the_start():
    y = BatchedEnv("yinsh", 2).observation()
    assert y[0, 4].sum() == 85  # on_board: the 85 points
    assert y[0, :4].sum() == 0  # no ring or marker yet
    assert (y[0, 7] == 1).all() and (y[0, 8:11] == 0).all()  # placement phase
    assert (y[0, 11] == 1).all() and (y[0, 18] == 1).all()  # to move, White
    assert (y[0, 15] == 1).all()  # pool 51 / 51
    env = BatchedEnv("yinsh", 2)
    env.step(np.array([0, 84]))
    y = env.observation()  # Black to move: White's ring is the opponent's; a2 is cell 1 of row 2
    assert y[0, 1, 1, 0] == 1 and y[0, 0].sum() == 0 and (y[0, 18] == 0).all()
    assert y[1, 1, 9, 10] == 1  # k10: row 10, column K
    gy = BatchedEnv("gyges", 1)
    gy.step(np.array([0]))  # South's set 112233 on row 1; North to move sees it on its far row
    o = gy.observation()[0]
    assert o[:3, 5].sum() == 6 and o[:3, :5].sum() == 0 and (o[4] == 1).all() and (o[5] == 1).all()
    r = BatchedEnv("rings", 1, players=3).observation()[0]
    assert r[7].sum() == 216 and r[38].sum() == 216 and r[39].sum() == 182  # empty, point cells, circle cells
    assert (r[22] == 1).all() and (r[23:28] == 0).all()  # to move: slot 0 (the observer)
    assert (r[28:31] == 1).all() and (r[31:34] == 0).all() and (r[34] == 1).all()  # 3 seats active; placement


def test_bench_batch_cli_gives_one_json_object_per_game():
    import json

    from click.testing import CliRunner

    from ringgames.cli import main

    res = CliRunner().invoke(main, ["bench", "--batch", "rings", "--json", "--batch-size", "8", "--seconds", "0.02",
                                    "--repeats", "2"])
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1
    row = json.loads(lines[0])
    assert row["game"] == "rings" and row["batch_size"] == 8 and row["players"] == 2
    for key in ("batch", "single_thread", "two_threads", "two_call", "validated", "mask_obs", "fused", "protocol"):
        assert len(row[f"{key}_runs"]) == 2 and min(row[f"{key}_runs"]) > 0
    assert row["batch_steps_per_s"] == max(row["batch_runs"])
    assert row["two_call_steps_per_s"] == max(row["two_call_runs"])
    assert abs(row["one_call_ratio"] - row["batch_steps_per_s"] / row["two_call_steps_per_s"]) <= 0.0051
    assert abs(row["ratio_to_protocol"] - row["batch_steps_per_s"] / row["protocol_steps_per_s"]) <= 0.051  # 1 decimal
    assert row["observation_shape"] == [40, 23, 24] and row["num_actions"] == 309
    assert min(row["batch_steps_per_cpu_s"], row["single_thread_steps_per_cpu_s"], row["protocol_steps_per_cpu_s"]) > 0


def test_out_buffers_are_refilled_and_checked():
    env = BatchedEnv("gyges", 4, variant="beginner", seed=3)
    env.play_random(7)
    mask = np.ones((4, env.num_actions), dtype=np.bool_)  # stale values must be cleared
    obs = np.full((4, *env.observation_shape), 7.0, dtype=np.float32)
    assert env.legal_action_mask(out=mask) is mask and np.array_equal(mask, env.legal_action_mask())
    assert env.observation(out=obs) is obs and np.array_equal(obs, env.observation())
    with pytest.raises(ValueError, match="out must be"):
        env.legal_action_mask(out=np.zeros((4, 10), dtype=np.bool_))
    with pytest.raises(ValueError, match="out must be"):
        env.observation(out=np.zeros((4, *env.observation_shape), dtype=np.float64))


def test_states_are_a_read_only_view_of_the_live_array():
    env = BatchedEnv("yinsh", 4, seed=0)
    view = env.states
    with pytest.raises(ValueError):
        view[0, :] = 12345
    env.step(env.sample_random_actions(), validate=False)
    assert np.array_equal(view, env.states) and view[0].any()  # a view: it follows the games
    assert env.position(0)  # the games were not touched
