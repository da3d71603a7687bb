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
