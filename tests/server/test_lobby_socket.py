"""The lobby's WebSocket ``/ws/lobby`` (issue 28): a seek posted, accepted, withdrawn or expired reaches every lobby
socket as the next message; the owner's socket is told at once that the seek's game started; the caps per client and
in all; Origin; bad messages answered with a reason."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from ringgames.server.accounts import cheap_hasher
from ringgames.server.app import create_app
from ringgames.server.limits import Limits

from .test_ratings import Players


@pytest.fixture()
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'test.sqlite3'}"


@pytest.fixture()
def p(db):
    app = create_app(db, ai_workers=1, ai_delay=0, password_hasher=cheap_hasher(),
                     limits=Limits(lobby_sockets_per_client=3, lobby_sockets_total=5))
    with TestClient(app) as client:
        players = Players(client)
        players.sign_up("amy", "ben")
        yield players


def recv(ws) -> dict:
    return json.loads(ws.receive_text())


def test_a_new_seek_is_the_next_message_of_every_lobby_socket_and_its_owner_is_told_when_it_is_accepted(p):
    c = p.c
    with p.as_("amy"):
        amy = c.websocket_connect("/ws/lobby").__enter__()  # amy's lobby page (her session cookie)
    guest = c.websocket_connect("/ws/lobby").__enter__()  # somebody not logged in
    try:
        assert recv(amy) == {"type": "seeks", "seeks": []} and recv(guest) == {"type": "seeks", "seeks": []}
        with p.as_("amy"):
            t0 = time.perf_counter()
            seek = c.post("/api/seeks", json={"game": "gyges", "rated": True}).json()["seek"]
        m = recv(guest)
        took = time.perf_counter() - t0
        print(f"seek POST to its arrival on another lobby socket: {took * 1000:.1f} ms")
        assert m["type"] == "seeks" and [s["id"] for s in m["seeks"]] == [seek["id"]]
        assert m["seeks"][0]["owner"] == "amy" and m["seeks"][0]["game"] == "gyges" and m["seeks"][0]["rated"] is True
        assert recv(amy)["seeks"] == m["seeks"]
        with p.as_("ben"):
            gid = c.post(f"/api/seeks/{seek['id']}/accept").json()["game_id"]
        assert gid
        # the owner's socket: the game, at once (before the new list)
        assert recv(amy) == {"type": "accepted", "seek": seek["id"], "game_id": gid, "url": f"/game/{gid}"}
        assert recv(amy) == {"type": "seeks", "seeks": []}
        assert recv(guest) == {"type": "seeks", "seeks": []}  # a guest is not told about other players' games
        # withdrawn: gone from the list at once
        with p.as_("ben"):
            sid = c.post("/api/seeks", json={"game": "yinsh"}).json()["seek"]["id"]
            assert [s["id"] for s in recv(guest)["seeks"]] == [sid]
            assert c.delete(f"/api/seeks/{sid}").status_code == 200
        assert recv(guest) == {"type": "seeks", "seeks": []}
    finally:
        amy.__exit__(None, None, None)
        guest.__exit__(None, None, None)


def test_a_seek_that_expires_leaves_every_lobby_without_a_request(p, db):
    c = p.c
    with c.websocket_connect("/ws/lobby") as ws:
        assert recv(ws)["seeks"] == []
        with p.as_("amy"):
            sid = c.post("/api/seeks", json={"game": "yinsh"}).json()["seek"]["id"]
        assert [s["id"] for s in recv(ws)["seeks"]] == [sid]
        soon = datetime.now(UTC) + timedelta(seconds=1)
        with create_engine(db).begin() as conn:  # as if its owner's page closed 89 s ago
            conn.execute(text("UPDATE seeks SET expires = :t WHERE id = :i"), {"t": soon, "i": sid})
        ws.send_text('{"type": "sync"}')  # the lobby lists again and learns the new expiry
        assert [s["id"] for s in recv(ws)["seeks"]] == [sid]
        t0 = time.perf_counter()
        assert recv(ws) == {"type": "seeks", "seeks": []}  # pushed when it expired
        assert time.perf_counter() - t0 < 3


def test_lobby_sockets_per_client_and_in_all_are_capped(p):
    c = p.c
    lobby = c.app.state.hub.lobby
    open_ = [c.websocket_connect("/ws/lobby").__enter__() for _ in range(3)]
    try:
        for ws in open_:
            recv(ws)
        with pytest.raises(WebSocketDenialResponse) as refused:  # a fourth from the same address
            c.websocket_connect("/ws/lobby").__enter__()
        assert refused.value.status_code == 429 and refused.value.json()["error"] == "too_many_sockets"
        assert "at most 3 lobby connections" in refused.value.json()["message"]
        assert lobby.refusal("10.0.0.9", 3, 5) is None  # another address is let in while the total has room
        assert "its most" in (lobby.refusal("10.0.0.9", 3, 3) or "")  # not when it is full
    finally:
        for ws in open_:
            ws.__exit__(None, None, None)
    time.sleep(0.2)
    assert not lobby.sockets and not lobby.clients  # closed ones are counted out


def test_the_lobby_socket_checks_origin_and_messages(p):
    c = p.c
    with pytest.raises(WebSocketDisconnect) as closed:
        with c.websocket_connect("/ws/lobby", headers={"origin": "https://evil.example"}) as ws:
            ws.receive_text()
    assert closed.value.code == 1008
    with c.websocket_connect("/ws/lobby", headers={"origin": "http://testserver"}) as ws:
        assert recv(ws)["type"] == "seeks"
        ws.send_text("not json")
        assert recv(ws)["error"] == "bad_json"
        ws.send_text('{"type": "action", "action": "e5"}')
        m = recv(ws)
        assert m["error"] == "bad_message" and "sync" in m["message"]
        ws.send_text('{"type": "sync", "pad": "' + "x" * 70_000 + '"}')
        assert recv(ws)["error"] == "too_large"
        ws.send_text('{"type": "sync"}')
        assert recv(ws) == {"type": "seeks", "seeks": []}
