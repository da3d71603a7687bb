"""``ringgames selfplay --ray``: the same files and rows as the local runner (issue #33).

One local Ray instance for the module (2 CPUs, no dashboard, quiet), shut down after it. Needs the
``rl`` and ``ray`` extras (``scripts/test`` installs them): skipped without them, an error on CI.
"""

from __future__ import annotations

import logging

import pytest
from click.testing import CliRunner

from ringgames.cli import main

from .conftest import need

pq = need("pyarrow.parquet")
selfplay = need("ringgames.rl.selfplay")


@pytest.fixture(scope="module")
def ray_session():
    ray = need("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def _files(path):
    return {f.name: pq.read_table(f) for f in sorted(path.glob("games-*.parquet"))}


def test_selfplay_on_ray_writes_the_same_files_and_rows(ray_session, tmp_path):
    kw = {"variant": "beginner", "per_file": 2}
    local = selfplay.generate("gyges", "mcts:iterations=12", 5, tmp_path / "local", **kw)
    on_ray = selfplay.generate("gyges", "mcts:iterations=12", 5, tmp_path / "ray", ray="", **kw)
    assert on_ray == local and local["written"] == 5
    a, b = _files(tmp_path / "local"), _files(tmp_path / "ray")
    assert list(b) == list(a) == ["games-0000000-0000001.parquet", "games-0000002-0000003.parquet",
                                  "games-0000004-0000004.parquet"]
    for name, table in a.items():
        assert b[name].equals(table, check_metadata=True), name  # every row and column, and the file metadata
    assert (tmp_path / "ray" / "meta.json").read_text() == (tmp_path / "local" / "meta.json").read_text()
    # resuming on Ray: a larger --games adds only the missing games, in the same files as locally
    more = selfplay.generate("gyges", "mcts:iterations=12", 7, tmp_path / "ray", ray="", **kw)
    assert (more["skipped"], more["written"]) == (5, 2)
    selfplay.generate("gyges", "mcts:iterations=12", 7, tmp_path / "local", **kw)
    a, b = _files(tmp_path / "local"), _files(tmp_path / "ray")
    assert list(b) == list(a) and all(b[n].equals(t) for n, t in a.items())


def test_the_selfplay_command_with_ray(ray_session, tmp_path):
    args = ["selfplay", "rings", "--players", "3", "--agent", "random", "--games", "3", "--per-file", "1"]
    r1 = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "l")])
    r2 = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "r"), "--ray"])
    assert r1.exit_code == 0 and r2.exit_code == 0, (r1.output, r2.output)
    a, b = _files(tmp_path / "l"), _files(tmp_path / "r")
    assert len(a) == 3 and list(b) == list(a) and all(b[n].equals(t) for n, t in a.items())
