"""The computer-move fairness benchmark runs end to end (a short, small run)."""

from ringgames.server import computerbench, loadbench
from ringgames.server.testing import ServerProcess

from .aio import run


def test_short_computerbench_run_measures_both_phases(tmp_path):
    with ServerProcess(f"sqlite:///{tmp_path / 'b.sqlite3'}", extra_args=loadbench.BENCH_LIMITS) as srv:
        res = run(computerbench.run(srv.url, seconds=2, n_humans=1, n_level1=1, deep=1, bots=0, seed=2, settle=1.0))
    for phase in ("alone", "loaded"):
        p = res[phase]
        assert p["human_moves"] > 5 and p["level1_replies"] > 0, res
        assert 0 < p["human_p50_ms"] <= p["human_p99_ms"] and 0 < p["level1_p50_ms"] <= p["level1_p99_ms"]
    assert set(res["p99_ratio"]) == {"human_p99_ms", "level1_p99_ms"}


def test_rounds_alternate_the_phases_and_pool_them(tmp_path):
    with ServerProcess(f"sqlite:///{tmp_path / 'b.sqlite3'}", extra_args=loadbench.BENCH_LIMITS) as srv:
        res = run(computerbench.run(srv.url, seconds=1.5, n_humans=1, n_level1=1, deep=1, bots=0, seed=3, settle=1.0, rounds=2))
    assert res["rounds"] == 2 and len(res["p99_ratio_per_round"]) == 2 and len(res["drain_s"]) == 1
    assert res["alone"]["human_moves"] > 5 and res["loaded"]["human_moves"] > 5
    assert "_human" not in res["alone"]  # (the raw samples stay out of the report)
