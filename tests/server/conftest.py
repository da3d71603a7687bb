import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ringgames.server.app import create_app

REPO = Path(__file__).resolve().parents[2]
BOARDSPACE = REPO.parent / "shared" / "data" / "yinsh" / "boardspace-2005"


@pytest.fixture()
def client(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'test.sqlite3'}", ai_workers=1, ai_delay=0)
    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="session")
def boardspace_files():
    files = sorted(BOARDSPACE.glob("*.sgf"))
    if not files:
        raise AssertionError(f"the boardspace YINSH games are missing: expected *.sgf files in {BOARDSPACE}")
    return files


def wait_for(fn, timeout=20.0, every=0.05):
    """Poll ``fn`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(every)
    raise AssertionError(f"condition not met within {timeout} s")


def two_humans(c, game="yinsh", **kw):
    """A game where this client holds seat 0 (cookie) and returns (id, token0, token1 from the invite link)."""
    n = kw.pop("players", None)
    seats = [{"kind": "me", "name": "alice"}] + [{"kind": "invite"}] * ((n or 2) - 1)
    r = c.post("/api/games", json={"game": game, "seats": seats, "players": n, **kw})
    assert r.status_code == 201, r.text
    d = r.json()
    inv = d["invites"]["1"]
    tok1 = inv.split("token=")[1]
    return d["id"], d["tokens"]["0"], tok1
