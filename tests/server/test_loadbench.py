"""The load benchmark runs end to end (a short, small run) and its loss/duplication check works."""

from ringgames.server import loadbench
from ringgames.server.testing import ServerProcess

from .aio import run


def test_short_loadbench_run_loses_and_duplicates_nothing(tmp_path):
    with ServerProcess(f"sqlite:///{tmp_path / 'b.sqlite3'}", extra_args=loadbench.BENCH_LIMITS) as srv:
        res = run(loadbench.run(srv.url, games=4, seconds=3, game="yinsh", seed=3))
    assert res["moves"] > 50 and res["played"] >= 4
    assert res["lost"] == 0 and res["duplicated"] == 0
    assert 0 < res["p50_ms"] <= res["p99_ms"]


def test_loadbench_on_clocks(tmp_path):
    assert loadbench.parse_clock("600+5") == {"initial": 600.0, "increment": 5.0} and loadbench.parse_clock(None) is None
    with ServerProcess(f"sqlite:///{tmp_path / 'c.sqlite3'}", extra_args=loadbench.BENCH_LIMITS) as srv:
        res = run(loadbench.run(srv.url, games=3, seconds=2, game="yinsh", seed=4, clock={"initial": 600, "increment": 5}))
        assert res["moves"] > 20 and res["lost"] == 0 and res["duplicated"] == 0 and res["clock"]["initial"] == 600
        import httpx

        live = httpx.get(f"{srv.url}/api/games?status=live").json()["games"]
        assert live and all(g["time_control"] == "600+5" for g in live)


def test_cpu_seconds_reads_this_process():
    import os

    assert loadbench._cpu_seconds(os.getpid()) >= 0
    assert loadbench._cpu_seconds(2**22 + 12345) is None  # no such process


def test_loadbench_spreads_seats_and_spectators_over_processes(postgres_url, redis_url):
    """Two processes on PostgreSQL + Redis: each game's seats and spectator on different processes, nothing lost."""
    extra = [*loadbench.BENCH_LIMITS, "--redis", redis_url]
    with ServerProcess(postgres_url, extra_args=extra) as a, ServerProcess(postgres_url, extra_args=extra) as b:
        res = run(loadbench.run([a.url, b.url], games=3, seconds=3, game="yinsh", seed=5, spectate=True))
    assert res["processes"] == 2 and res["spectators"] is True
    assert res["moves"] > 30 and res["lost"] == 0 and res["duplicated"] == 0


def test_tables_arrive_over_the_ramp_and_both_phases_are_reported(tmp_path):
    """``--ramp``: the tables' first games arrive at random over that time (none before it can have started), and the
    whole run, the ramp-up and the steady phase after it are reported apart (their moves add up)."""
    assert loadbench.default_ramp(1000) == 10 and loadbench.default_ramp(100) == 1
    with ServerProcess(f"sqlite:///{tmp_path / 'b.sqlite3'}", extra_args=loadbench.BENCH_LIMITS) as srv:
        res = run(loadbench.run(srv.url, games=6, seconds=4, game="yinsh", seed=6, ramp_s=1.5))
    assert res["ramp_s"] == 1.5 and res["lost"] == 0 and res["duplicated"] == 0
    assert res["ramp_up_s"] is not None and 0.2 < res["ramp_up_s"] < 4  # the last table came late in the ramp
    assert res["ramp_moves"] + res["steady_moves"] == res["moves"] and res["steady_moves"] > 0
    assert 0 < res["steady_p50_ms"] <= res["steady_p99_ms"]


def test_requests_run_on_the_loop_and_a_long_think_ends_with_the_run(tmp_path):
    """The tables' HTTP requests go through ``_request`` on the event loop (JSON back; an error status raises), a think
    longer than the run is cut at its end (the run lasts ``seconds``, not the longest think), and the report gives
    each table's seating time and the load generator's own loop delay."""
    import time

    import pytest

    with ServerProcess(f"sqlite:///{tmp_path / 'r.sqlite3'}", extra_args=loadbench.BENCH_LIMITS) as srv:
        d = run(loadbench._request("POST", f"{srv.url}/api/games", {"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "invite"}]}))
        assert run(loadbench._request("GET", f"{srv.url}/api/games/{d['id']}"))["id"] == d["id"]
        with pytest.raises(loadbench.HttpError, match="404"):
            run(loadbench._request("GET", f"{srv.url}/api/games/nosuchgame"))
        t = time.perf_counter()
        res = run(loadbench.run(srv.url, games=3, seconds=2, game="yinsh", seed=7, think=60, ramp_s=0.5))
        assert time.perf_counter() - t < 20  # not the up to 120 s of a think
    assert res["lost"] == 0 and res["duplicated"] == 0
    assert res["seating_p50_ms"] > 0 and res["seating_p99_ms"] >= res["seating_p50_ms"]
    assert res["loop_lag_p99_ms"] >= 0 and res["ramp_loop_lag_p99_ms"] >= 0
