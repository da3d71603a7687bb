"""Bad command-line values stop with a usage error naming the option, never a traceback."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ringgames.cli import main


@pytest.mark.parametrize("args,code,words", [
    (["analyse", "yinsh", "--time", "nan"], 2, "--time"),
    (["analyse", "yinsh", "--time", "-1"], 2, "--time"),
    (["analyse", "rings", "--players", "3", "--time", "inf"], 2, "--time"),
    (["selfplay", "yinsh", "--agent", "engine:/bin/sh", "--games", "1", "--out", "OUT"], 2, "external engines"),
    (["import", "--db", "garbage://x", "f.sgf"], 1, "cannot open the database garbage://x"),
    (["import", "--db", "sqlite:////nonexistent/dir/x.db", "f.sgf"], 1, "unable to open database file"),
    (["serve", "--db", "garbage://x"], 1, "cannot open the database"),
    (["serve", "--limit", "storage=bogus://"], 2, "storage=bogus://"),
])
def test_bad_values_are_usage_errors(tmp_path, args, code, words):
    args = [str(tmp_path / "out") if a == "OUT" else a for a in args]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == code, r.output
    assert words in r.output and "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_a_password_in_a_bad_database_url_is_not_printed():
    r = CliRunner().invoke(main, ["import", "--db", "postgresql+psycopg://u:secret@127.0.0.1:1/db", "f.sgf"])
    assert r.exit_code == 1 and "cannot open the database" in r.output and "secret" not in r.output
