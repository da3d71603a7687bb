"""The reply-time benchmark runs end to end: a computer turn is timed from the bench's move to its turn again."""

from ringgames.server import loadbench, replybench
from ringgames.server.testing import ServerProcess

from .aio import run


def test_short_replybench_run_times_whole_computer_turns(tmp_path):
    with ServerProcess(f"sqlite:///{tmp_path / 'b.sqlite3'}", extra_args=loadbench.BENCH_LIMITS) as srv:
        rows = run(replybench.run(srv.url, "yinsh", [1, 3], turns=3, seed=2, warmup=1))
    assert [(r["level"], r["turns"]) for r in rows] == [(1, 3), (3, 3)]
    one, three = rows
    assert one["spec"] == "greedy:eval=0" and one["budget_s"] is None
    assert three["spec"] == "search:time=0.8" and three["budget_s"] == 0.8
    for r in rows:
        assert 0 < r["p50_s"] <= r["p90_s"] <= r["max_s"] < 60
    # level 3 searches (its ring placements take its budget's iterations); level 1 answers at once
    assert three["p50_s"] > one["p50_s"]


def test_with_four_rings_players_each_computer_seat_s_turn_is_a_reply(tmp_path):
    with ServerProcess(f"sqlite:///{tmp_path / 'b.sqlite3'}", extra_args=loadbench.BENCH_LIMITS) as srv:
        rows = run(replybench.run(srv.url, "rings", [1, 3], turns=6, seed=3, warmup=1, players=4))
    assert [(r["players"], r["level"], r["turns"]) for r in rows] == [(4, 1, 6), (4, 3, 6)]
    one, three = rows
    assert three["spec"] == "uct:time=0.5,c=0.5" and three["budget_s"] == 0.5
    # one seat's search at a time: at least most of its budget (a time budget does not end sooner on a faster
    # machine), not the three computer seats' turns together (1.5 s at least); level 1 answers at once
    assert 0.4 <= three["p50_s"] < 1.45 and three["p50_s"] > one["p50_s"]
