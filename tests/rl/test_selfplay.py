"""Self-play data: Parquet rows per decision, the NumPy reader, resuming, the CLI command."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import ringgames
from ringgames.cli import main

from .conftest import need

need("pyarrow")
selfplay = need("ringgames.rl.selfplay")


def _check_games(data: dict, game: ringgames.Game) -> int:
    """Every row against a replay of its game; returns the number of games."""
    n = len(data["action"])
    rows = np.arange(n)
    assert data["observation"].shape == (n, *game.observation_shape())
    assert data["legal_mask"].shape == (n, game.num_distinct_actions)
    assert data["legal_mask"][rows, data["action"]].all()  # each chosen action is legal in its mask
    ids = np.unique(data["game_id"])
    for gid in ids:
        idx = np.flatnonzero(data["game_id"] == gid)
        assert data["ply"][idx].tolist() == list(range(len(idx)))
        state = game.new_initial_state()
        for i in idx:
            p = state.current_player()
            assert data["player"][i] == p
            assert np.array_equal(data["observation"][i], state.observation_tensor(p))
            assert np.array_equal(data["legal_mask"][i], state.legal_action_mask())
            state.play(int(data["action"][i]))
        assert state.is_terminal()
        ret = data["returns"][idx]
        assert (ret == np.asarray(state.returns(), np.float32)).all()
        if game.game_type() in ("zero_sum", "constant_sum"):
            assert ret[0].sum() == pytest.approx(game.utility_sum())
        assert (data["value"][idx] == ret[np.arange(len(idx)), data["player"][idx]]).all()
        assert not data["truncated"][idx].any()
    return len(ids)


def test_three_tiny_mcts_games_read_back_and_resume(tmp_path):
    out = tmp_path / "gy"
    game = ringgames.load_game("gyges", "beginner")
    res = selfplay.generate("gyges", "mcts:iterations=12", 3, out, variant="beginner", per_file=2)
    assert (res["games"], res["written"], res["skipped"]) == (3, 3, 0)
    files = sorted(p.name for p in out.glob("*.parquet"))
    assert files == ["games-0000000-0000001.parquet", "games-0000002-0000002.parquet"]
    data = selfplay.load(out)
    assert _check_games(data, game) == 3 and res["rows"] == len(data["action"])
    # MCTS search policies: visit shares over legal actions that sum to 1, the chosen action among the most visited
    assert data["has_policy"].all()
    pol = data["policy"]
    assert np.allclose(pol.sum(axis=1), 1.0)
    assert not (pol[~data["legal_mask"]] > 0).any()
    rows = np.arange(len(pol))
    assert (pol[rows, data["action"]] == pol.max(axis=1)).all()
    sparse = selfplay.load(out, policy="sparse", mask="packed")
    assert sparse["policy_actions"].shape == (len(pol),)
    packed = sparse["legal_mask"]
    assert packed.dtype == np.uint8 and packed.shape == (len(pol), (game.num_distinct_actions + 7) // 8)
    assert np.array_equal(np.unpackbits(packed, axis=1, count=game.num_distinct_actions).view(bool), data["legal_mask"])
    i = int(np.argmax([len(a) for a in sparse["policy_actions"]]))
    assert np.array_equal(np.flatnonzero(pol[i]), sparse["policy_actions"][i])
    # the observer's frame: North's rows renumbered by game.observer_actions(1), South's unchanged
    obs_frame = selfplay.load(out, frame="observer")
    perm = game.observer_actions(1)
    north = data["player"] == 1
    assert north.any() and (~north).any()
    assert np.array_equal(obs_frame["action"][north], perm[data["action"][north]])
    assert np.array_equal(obs_frame["action"][~north], data["action"][~north])
    assert np.array_equal(obs_frame["legal_mask"][north][:, perm], data["legal_mask"][north])
    assert np.array_equal(obs_frame["policy"][north][:, perm], pol[north])
    assert obs_frame["legal_mask"][rows, obs_frame["action"]].all()
    packed_obs = selfplay.load(out, mask="packed", policy="sparse", frame="observer")
    assert np.array_equal(np.unpackbits(packed_obs["legal_mask"], axis=1, count=game.num_distinct_actions).view(bool),
                          obs_frame["legal_mask"])
    assert all(np.array_equal(np.sort(a), np.flatnonzero(obs_frame["policy"][i]))
               for i, a in enumerate(packed_obs["policy_actions"]))
    # a rerun skips what is written; a larger --games adds only the new games, in its own file
    mtimes = {p.name: p.stat().st_mtime_ns for p in out.glob("*.parquet")}
    again = selfplay.generate("gyges", "mcts:iterations=12", 3, out, variant="beginner", per_file=2)
    assert (again["written"], again["skipped"], again["rows"]) == (0, 3, 0)
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.parquet")} == mtimes
    more = selfplay.generate("gyges", "mcts:iterations=12", 4, out, variant="beginner", per_file=2)
    assert (more["written"], more["skipped"]) == (1, 3)
    assert "games-0000003-0000003.parquet" in {p.name for p in out.glob("*.parquet")}
    full = selfplay.load(out)
    assert _check_games(full, game) == 4
    # a game's rows depend on the settings and its id only: the same as in the first run
    first = data["game_id"] == 2
    assert np.array_equal(full["action"][full["game_id"] == 2], data["action"][first])
    # other settings into the same directory are refused
    with pytest.raises(selfplay.SelfPlayError, match="other settings .*agent"):
        selfplay.generate("gyges", "random", 3, out, variant="beginner")


def test_rings_random_agent_has_no_policy_and_file_metadata(tmp_path):
    pq = need("pyarrow.parquet")
    selfplay.generate("rings", "random", 2, tmp_path, players=3, per_file=5)
    data = selfplay.load(tmp_path)
    game = ringgames.load_game("rings", players=3)
    assert _check_games(data, game) == 2
    assert not data["has_policy"].any() and not data["policy"].any()
    (f,) = tmp_path.glob("*.parquet")
    meta = json.loads(pq.read_schema(f).metadata[b"ringgames"])
    assert meta["observation_shape"] == list(game.observation_shape())
    assert (meta["game"], meta["players"], meta["agent"]) == ("rings", 3, "random")


def test_parallel_jobs_write_the_same_games(tmp_path):
    selfplay.generate("yinsh", "random", 3, tmp_path / "a", variant="blitz", per_file=1, jobs=2, seed=4)
    selfplay.generate("yinsh", "random", 3, tmp_path / "b", variant="blitz", per_file=3, jobs=1, seed=4)
    a, b = selfplay.load(tmp_path / "a"), selfplay.load(tmp_path / "b")
    assert np.array_equal(a["action"], b["action"]) and np.array_equal(a["game_id"], b["game_id"])
    assert _check_games(a, ringgames.load_game("yinsh", "blitz")) == 3


def test_cli_selfplay(tmp_path):
    runner = CliRunner()
    out = tmp_path / "cli"
    r = runner.invoke(main, ["selfplay", "yinsh", "--variant", "blitz", "--agent", "random", "--games", "2",
                             "--out", str(out), "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert "2 games in" in r.output and "2 written" in r.output
    assert len(np.unique(selfplay.load(out)["game_id"])) == 2
    r = runner.invoke(main, ["selfplay", "yinsh", "--variant", "blitz", "--agent", "random", "--games", "2",
                             "--out", str(out), "--seed", "1"])
    assert r.exit_code == 0 and "0 written" in r.output and "2 already there" in r.output
    # errors: a clear message, no traceback
    r = runner.invoke(main, ["selfplay", "yinsh", "--agent", "grandmaster", "--games", "1", "--out", str(out)])
    assert r.exit_code == 2 and "unknown agent 'grandmaster'" in r.output
    r = runner.invoke(main, ["selfplay", "yinsh", "--variant", "blitz", "--agent", "random", "--games", "2",
                             "--out", str(out), "--seed", "2"])
    assert r.exit_code == 1 and "other settings (seed)" in r.output and "Traceback" not in r.output
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("mine")
    r = runner.invoke(main, ["selfplay", "rings", "--agent", "random", "--games", "1", "--out", str(tmp_path / "junk")])
    assert r.exit_code == 1 and "not empty" in r.output
    assert (tmp_path / "junk" / "notes.txt").read_text() == "mine"


def test_load_refuses_what_is_not_self_play_data(tmp_path):
    with pytest.raises(selfplay.SelfPlayError, match="no self-play files"):
        selfplay.load(tmp_path)
    bad = tmp_path / "games-0000000-0000000.parquet"
    bad.write_bytes(b"not parquet at all")
    with pytest.raises(selfplay.SelfPlayError, match="not a readable Parquet file"):
        selfplay.load(tmp_path)


def test_level_agents_that_search_with_mcts_give_their_policy():
    game = ringgames.load_game("rings", players=4)
    state = game.new_initial_state()
    level = selfplay.seeded_agent("level:3,scale=0.05", 1)  # RINGS with 4+ players: level 3 is MCTS
    a = level.choose(state)
    visits = selfplay._searcher(level, game).root_visits()
    assert visits and a in visits and set(visits) <= set(state.legal_actions())
    assert not hasattr(selfplay._searcher(selfplay.seeded_agent("level:2", 1), game), "root_visits")  # greedy
