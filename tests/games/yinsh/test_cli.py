"""`ringgames play yinsh` driven through a pipe, and `ringgames bench`."""

import json
import subprocess
import sys

from click.testing import CliRunner

from ringgames import load_game
from ringgames.cli import main
from ringgames.records import load_file


def test_play_through_a_pipe_rejects_illegal_input_and_saves(tmp_path):
    out = tmp_path / "g.rgn"
    moves = "e3\nz9\ne3\nb5\nd6\nh7\ng3\n"
    r = subprocess.run(
        [sys.executable, "-m", "ringgames", "play", "yinsh", "--black", "random", "--seed", "7", "--save", str(out)],
        input=moves, capture_output=True, text=True, timeout=60,
    )
    assert r.returncode == 1  # input ended before the game did
    assert "not a YINSH action" in r.stdout  # z9
    assert "illegal:" in r.stdout and "legal:" in r.stdout  # second e3
    assert "black plays" in r.stdout and "pool 51 markers" in r.stdout
    rec = load_file(out)[0]
    s = rec.replay()
    whites = [s.action_to_string(a) for a in s.history[0::2]]
    assert whites == ["e3", "b5", "d6", "h7", "g3"]
    assert s.phase == "move" and rec.tags["Black"].startswith("random")


def test_play_random_against_random_to_the_end():
    r = CliRunner().invoke(main, ["play", "yinsh", "--white", "random", "--black", "random", "--seed", "3"])
    assert r.exit_code == 0, r.output
    last = r.output.strip().splitlines()[-1]
    assert last.startswith("Result: ") and ("wins" in last or "draw" in last)


def test_play_human_can_resign():
    r = CliRunner().invoke(main, ["play", "yinsh", "--black", "random"], input="e3\nresign\n")
    assert r.exit_code == 0 and "Result: black wins (resign)" in r.output


def test_bench_json_has_the_figures():
    r = CliRunner().invoke(main, ["bench", "yinsh", "--json", "--seconds", "0.3", "--search-seconds", "0.05"])
    assert r.exit_code == 0, r.output
    row = json.loads(r.output.strip().splitlines()[-1])
    assert row["game"] == "yinsh" and row["playout_path"] == "kernel"
    assert row["playouts_per_s"] > 0 and row["actions_per_s"] > 30 * row["playouts_per_s"]
    assert row["protocol_playouts_per_s"] > 0 and row["protocol_actions_per_s"] > 30 * row["protocol_playouts_per_s"]
    assert (row["perft_depth"], row["perft_nodes"]) == (3, 486978)  # the rules' reference after placement
    # search speed from the start position (tiny budget here)
    assert row["search_seconds"] == 0.05
    assert row["mcts_iter_per_s"] > 0 and row["mcts_playout_iter_per_s"] > 0
    assert row["alphabeta_nodes_per_s"] > 0 and row["alphabeta_depth"] >= 1
    # the compiled search: its nodes over the same time, and the ratio to the Python search's
    assert row["search_depth"] >= row["alphabeta_depth"] and row["search_nodes"] > 0
    assert row["search_speedup"] == round(row["search_nodes_per_s"] / row["alphabeta_nodes_per_s"], 2)
    # the compiled MCTS: its iterations over the same time, and the ratio to the Python MCTS's
    assert row["uct_iterations"] > 0 and row["uct_speedup"] == round(row["uct_iter_per_s"] / row["mcts_iter_per_s"], 2)


def test_bench_search_speed_counts_iterations():
    from ringgames.bench import search_speed

    s = load_game("rings").new_initial_state()
    row = search_speed(s, seconds=0.05)
    # the figures are the work done (counted) over the time taken; no claim about the machine's speed
    for work, rate in (("mcts_iterations", "mcts_iter_per_s"), ("mcts_playout_iterations", "mcts_playout_iter_per_s"),
                       ("alphabeta_nodes", "alphabeta_nodes_per_s"), ("uct_iterations", "uct_iter_per_s")):
        assert isinstance(row[work], int) and row[work] >= 1, (work, row)
        assert row[rate] > 0
    assert s.history == []  # the state given is not modified


def test_mcts_playout_iterations_do_more_work_than_evaluation_ones(monkeypatch):
    """Why the evaluation-only MCTS of the levels runs more iterations per second than MCTS with playouts,
    measured in work (calls), not seconds: per iteration, one leaf evaluation against one whole random game."""
    import ringgames.ai.mcts as mcts_module
    from ringgames.ai.mcts import MCTSAgent

    calls = {"evaluate": 0, "playout_actions": 0, "playouts": 0}
    real_get_evaluator = mcts_module.get_evaluator

    def counting_get_evaluator(name):
        evaluate, scale = real_get_evaluator(name)

        def counted(state):
            calls["evaluate"] += 1
            return evaluate(state)

        return counted, scale

    monkeypatch.setattr(mcts_module, "get_evaluator", counting_get_evaluator)
    s = load_game("rings").new_initial_state()
    cls = type(s)
    real_playouts = cls.random_playouts

    def counting_playouts(self, n, seed=0):
        res = real_playouts(self, n, seed)
        calls["playouts"] += n
        calls["playout_actions"] += int(res["length"].sum())
        return res

    monkeypatch.setattr(cls, "random_playouts", counting_playouts)
    iterations = 40
    MCTSAgent(iterations=iterations, rollout=0, seed=1, safe=0, reuse=0).search(s.clone())
    assert calls == {"evaluate": iterations, "playout_actions": 0, "playouts": 0}
    calls["evaluate"] = 0
    MCTSAgent(iterations=iterations, rollout=-1, seed=1, safe=0, reuse=0).search(s.clone())
    assert calls["evaluate"] == 0 and calls["playouts"] == iterations  # no leaf is terminal this early
    # each playout is a whole game of RINGS: dozens of actions where the evaluation-only search applies none
    assert calls["playout_actions"] > 30 * iterations
