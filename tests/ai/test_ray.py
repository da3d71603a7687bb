"""``--ray``: matches and the strength ledger as Ray tasks give what the local runner gives (issue #33).

One local Ray instance for the module (2 CPUs, no dashboard, quiet), shut down after it; the code
under test finds it initialised and uses it (``ringgames.raytasks.session``). Needs the ``ray`` extra
(``scripts/test`` installs it): skipped without it, an error on CI.
"""

from __future__ import annotations

import importlib
import json
import logging
import os

import pytest
from click.testing import CliRunner

from ringgames.ai.match import run_match
from ringgames.ai.strength import pairings, read_ledger, run_pairings
from ringgames.cli import main
from ringgames.raytasks import RayError, check_address, session


def _need_ray():
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        reason = f"ray is missing ({exc}): pip install -e '.[ray]'"
        if os.environ.get("CI"):
            pytest.fail(f"the Ray tests cannot run on CI: {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def ray_session():
    ray = _need_ray()
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def _played(game, specs, games, seed, **kw):
    """Summary and the finished games (sorted by index) of a match."""
    seen = []
    res = run_match(game, specs, games=games, seed=seed, on_result=seen.append, **kw)
    seen.sort(key=lambda r: r.index)
    return res, [(r.index, r.seats, r.returns, r.winners, r.reason, r.actions, r.history, r.error) for r in seen]


def _no_timing(summary):
    return {k: v for k, v in summary.items() if k != "think_seconds"}


@pytest.mark.parametrize(("game", "specs", "kw"), [
    ("yinsh", ["greedy", "random"], {"variant": "blitz"}),
    ("gyges", ["alphabeta:depth=1", "greedy"], {"variant": "beginner"}),
    ("rings", ["random", "greedy:eval=0", "random:seed=5"], {"players": 3}),
])
def test_a_match_on_ray_plays_the_same_games_as_the_local_runner(ray_session, game, specs, kw):
    local, local_games = _played(game, specs, 4, 7, **kw)
    on_ray, ray_games = _played(game, specs, 4, 7, ray="", **kw)
    assert ray_games == local_games  # moves, seats, winners, returns of every game
    assert _no_timing(on_ray) == _no_timing(local)  # W-D-L, score, Elo and its interval
    assert len({tuple(g[6]) for g in local_games}) > 1  # the seeds differ between games


def _comparable(records):
    """Ledger lines less what depends on the clock (time spent, date)."""
    out = [{k: v for k, v in r.items() if k not in ("seconds", "think_a", "date")} for r in records]
    return sorted(out, key=lambda r: (r["game"], r["level"], r["opponent"], r["index"]))


def test_strength_on_ray_writes_the_same_ledger_lines(ray_session, tmp_path):
    pairs = pairings("yinsh", [1, 2])  # L1 vs random, L2 vs random, L2 vs L1
    local, on_ray = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    said = []
    run_pairings(pairs, 2, 3, local, echo=said.append)
    run_pairings(pairs, 2, 3, on_ray, echo=said.append, ray="")
    a, b = read_ledger(local), read_ledger(on_ray)
    assert len(a) == len(b) == 6
    assert _comparable(b) == _comparable(a)
    assert sum("done in" in m for m in said) == 6  # each pairing reports its end on both runners
    # resumable as before: a rerun on Ray plays nothing, one missing game is played again
    lines = on_ray.read_text().splitlines()
    on_ray.write_text("\n".join(lines[:-1]) + "\n")
    again: list[str] = []
    run_pairings(pairs, 2, 3, on_ray, echo=again.append, ray="")
    assert _comparable(read_ledger(on_ray)) == _comparable(a)
    assert sum("1 game of 2 to play" in m for m in again) == 1
    assert sum("2 games already in" in m for m in again) == 2


def test_the_match_command_with_ray(ray_session):
    args = ["match", "yinsh", "greedy", "random", "-n", "2", "--variant", "blitz", "--seed", "1", "--json"]
    local = CliRunner().invoke(main, args)
    on_ray = CliRunner().invoke(main, [*args, "--ray"])
    assert local.exit_code == 0 and on_ray.exit_code == 0, (local.output, on_ray.output)
    summary = [json.loads([ln for ln in r.output.splitlines() if ln.startswith("{")][-1]) for r in (local, on_ray)]
    assert summary[1] == summary[0]


@pytest.mark.parametrize(("address", "says"), [
    ("127.0.0.1:1", "cannot reach the Ray cluster at '127.0.0.1:1'"),
    ("ray://127.0.0.1:1", "cannot reach the Ray cluster at 'ray://127.0.0.1:1'"),
    ("nowhere", "bad Ray address 'nowhere': give HOST:PORT"),
])
def test_a_bad_address_is_a_clear_error(address, says):
    _need_ray()
    with pytest.raises(RayError, match="Ray"):
        check_address(address)
    r = CliRunner().invoke(main, ["match", "yinsh", "random", "random", "-n", "1", f"--ray={address}"])
    assert r.exit_code == 1 and says in r.output and r.exception is not None
    assert isinstance(r.exception, SystemExit)  # click's error, no traceback
    r = CliRunner().invoke(main, ["strength", "--game", "yinsh", "--levels", "1", "-n", "1", f"--ray={address}"])
    assert r.exit_code == 1 and says in r.output


def test_session_refuses_an_unreachable_cluster():
    _need_ray()
    with pytest.raises(RayError, match="cannot reach"), session("127.0.0.1:1"):
        pass
