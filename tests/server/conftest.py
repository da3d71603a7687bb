import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from ringgames.server.app import create_app
from ringgames.server.limits import Limits

REPO = Path(__file__).resolve().parents[2]
BOARDSPACE = REPO.parent / "shared" / "data" / "yinsh" / "boardspace-2005"


@pytest.fixture()
def client(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'test.sqlite3'}", ai_workers=1, ai_delay=0)
    with TestClient(app) as c:
        yield c


@pytest.fixture()
def make_client(tmp_path):
    """``make_client(ai_delay=0, **limits)``: a test client of an app with these limit settings (closed afterwards)."""
    clients = []

    def make(ai_delay: float = 0.0, **kw):
        app = create_app(f"sqlite:///{tmp_path / f'l{len(clients)}.sqlite3'}", ai_workers=1, ai_delay=ai_delay,
                         limits=Limits(**kw))
        c = TestClient(app).__enter__()
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.__exit__(None, None, None)


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


def as_stranger(c: TestClient, method: str, url: str, **kw) -> httpx.Response:
    """A request from another browser: none of ``c``'s cookies go out, and none come back into its jar."""
    jar = httpx.Cookies(c.cookies)
    c.cookies.clear()
    try:
        return c.request(method, url, **kw)
    finally:
        c.cookies = jar


def two_humans(c, game="yinsh", **kw):
    """A game where this client holds seat 0 (cookie) and a friend took seat 1 through the invite link.

    Returns (id, seat 0's token, seat 1's token: the fresh one the friend got for the invite token)."""
    n = kw.pop("players", None)
    seats = [{"kind": "me", "name": "alice"}] + [{"kind": "invite"}] * ((n or 2) - 1)
    r = c.post("/api/games", json={"game": game, "seats": seats, "players": n, **kw})
    assert r.status_code == 201, r.text
    d = r.json()
    invite = d["invites"]["1"].split("token=")[1]
    j = as_stranger(c, "POST", f"/api/games/{d['id']}/join", json={"seat": 1, "token": invite, "name": "bob"})
    assert j.status_code == 200, j.text
    return d["id"], d["tokens"]["0"], j.json()["token"]
