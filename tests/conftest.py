"""Shared test fixtures. Real game data is read from ../shared (beside the checkout), never copied."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared() -> Path:
    """The ../shared folder; fails loudly when it is missing."""
    if not (SHARED / "rules").is_dir():
        pytest.fail(f"shared data folder not found at {SHARED} (tests need ../shared beside the checkout)")
    return SHARED


def _service(what: str, make):
    """Start a throwaway service or say why not: on CI a missing program fails (``scripts/test`` installs it as root)."""
    import os

    from ringgames.server.testing import ServiceMissing
    try:
        return make()
    except ServiceMissing as e:
        if os.environ.get("CI"):
            pytest.fail(f"{what}: {e}")
        pytest.skip(f"{what} tests need it: {e}; run scripts/test as root to install it")


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server of the test run's own on 127.0.0.1 (``ringgames.server.testing.PostgresServer``)."""
    import shutil
    import tempfile

    from ringgames.server.testing import PostgresServer
    root = Path(tempfile.mkdtemp(prefix="ringgames-pg-"))
    srv = _service("PostgreSQL", lambda: PostgresServer(root).start())
    yield srv
    srv.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A Redis server of the test run's own on 127.0.0.1 (``ringgames.server.testing.RedisServer``)."""
    from ringgames.server.testing import RedisServer
    srv = _service("Redis", lambda: RedisServer(tmp_path_factory.mktemp("redis")).start())
    yield srv
    srv.stop()


@pytest.fixture()
def postgres_url(postgres_server) -> str:
    """A new empty database on the test run's PostgreSQL."""
    return postgres_server.create_database()


@pytest.fixture()
def redis_url(redis_server) -> str:
    """An emptied logical database on the test run's Redis."""
    return redis_server.fresh_url()
