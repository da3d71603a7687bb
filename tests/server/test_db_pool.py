"""The PostgreSQL pool checks a connection with a round trip only when it sat idle (``db._ping_when_idle``).

A connection killed on the server side (as by a restart of PostgreSQL) while it sat idle in the pool longer than
``IDLE_PING_SECONDS`` is replaced before anyone uses it; a connection back in the pool moments ago is handed out
without that round trip (what the check saves on every query)."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from ringgames.server import db


def _kill(url: str, pid: int) -> None:
    other = db.make_engine(url)
    try:
        with other.connect() as c:
            assert c.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar() is True
    finally:
        other.dispose()


def _pid(engine) -> int:
    with engine.connect() as c:
        return c.execute(text("SELECT pg_backend_pid()")).scalar()


def test_an_idle_connection_killed_on_the_server_is_replaced_before_use(postgres_url, monkeypatch):
    engine = db.make_engine(postgres_url)
    try:
        first = _pid(engine)
        _kill(postgres_url, first)
        monkeypatch.setattr(db, "IDLE_PING_SECONDS", 0.0)  # every pooled connection counts as idle: pinged
        second = _pid(engine)  # no error: the ping found it dead and the pool opened another
        assert second != first
        assert engine.pool.checkedout() == 0
    finally:
        engine.dispose()


def test_a_connection_just_returned_is_not_pinged(postgres_url, monkeypatch):
    monkeypatch.setattr(db, "IDLE_PING_SECONDS", 3600.0)
    engine = db.make_engine(postgres_url)
    try:
        first = _pid(engine)
        _kill(postgres_url, first)
        with pytest.raises(OperationalError):  # no round trip before use: the dead connection is used once
            _pid(engine)
        assert _pid(engine) != first  # and the pool, invalidated by that error, reconnects
    finally:
        engine.dispose()


def test_a_test_postgres_server_leaves_no_process_when_stopped(postgres_server):
    """``PostgresServer.stop`` ends the server itself, not only ``runuser`` (which, as root, is the process started and
    exits on SIGINT without passing it on: every stopped test server used to stay behind)."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    from ringgames.server.testing import PostgresServer

    root = Path(tempfile.mkdtemp(prefix="ringgames-pgstop-"))  # (as the session's server: a path postgres can reach)
    try:
        pg = PostgresServer(root).start()
        assert pg.create_database().endswith("_1")
        pg.stop()
        left = subprocess.run(["pgrep", "-f", f"postgres -D {root}"], capture_output=True, text=True).stdout.split()
        assert left == [] and not (root / "data" / "postmaster.pid").exists(), left
    finally:
        subprocess.run(["pkill", "-9", "-f", f"postgres -D {root}"], check=False)
        shutil.rmtree(root, ignore_errors=True)
