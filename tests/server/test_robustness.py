"""No per-id leftovers for unknown games, eviction of idle rooms, WebSocket input that is not what we expect,
cached ``sync`` answers, and ``ringgames import`` next to a server (no computer players in the importer)."""

import json
import logging
import secrets

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ringgames.cli import main
from ringgames.server.app import create_app
from ringgames.server.limits import Limits

from .conftest import two_humans


def test_unknown_game_ids_leave_nothing_behind(client):
    hub = client.app.state.hub
    gid, _, _ = two_humans(client)
    before = (len(hub.rooms), len(hub._loading))
    for _ in range(60):
        assert client.get(f"/api/games/{secrets.token_hex(6)}").status_code == 404
        assert client.post(f"/api/games/{secrets.token_hex(6)}/actions", json={"action": "e5", "ply": 0}).status_code == 404
    for _ in range(20):
        with client.websocket_connect(f"/ws/games/{secrets.token_hex(6)}") as ws:
            assert ws.receive_json()["error"] == "unknown_game"
    assert (len(hub.rooms), len(hub._loading)) == before == (1, 0)
    assert gid in hub.rooms


def _evict(c):
    """Evict every room idle now (the sweeper would, after ``room_idle_seconds``)."""
    return c.portal.call(c.app.state.hub.evict_idle, 0)


def test_idle_rooms_and_imported_unfinished_games_are_evicted_and_reload(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'e.sqlite3'}", ai_workers=1, ai_delay=0)
    with TestClient(app) as c:
        hub = app.state.hub
        gid, _t0, t1 = two_humans(c)
        assert c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}).status_code == 200
        c.post(f"/api/games/{gid}/chat", json={"text": "still here"})
        up = c.post("/api/import", files=[("files", ("u.rgn", b'[Game "yinsh"]\n\n1. e5\n2. f6\n'))]).json()
        imported = up["results"][0]["id"]
        assert c.get(f"/api/games/{imported}").json()["status"] == "archived"  # unfinished, in memory now
        assert gid in hub.rooms and imported in hub.rooms
        with c.websocket_connect(f"/ws/games/{gid}") as ws:  # watched: stays
            ws.receive_json()
            assert _evict(c) == 1 and set(hub.rooms) == {gid}
        assert _evict(c) == 1 and hub.rooms == {}
        # the database is the truth: both reload as they were, and play goes on
        s = c.get(f"/api/games/{gid}").json()
        assert s["ply"] == 1 and s["moves"][0]["text"] == "e5" and s["my_seats"] == [0]
        assert c.get(f"/api/games/{gid}/chat").json()["chat"][-1]["text"] == "still here"
        r = c.post(f"/api/games/{gid}/actions", json={"action": "f6", "ply": 1}, headers={"x-seat-token": t1})
        assert r.status_code == 200 and r.json()["ply"] == 2
        assert c.get(f"/api/games/{imported}").json()["ply"] == 2


def test_rooms_in_memory_are_bounded(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'm.sqlite3'}", ai_workers=1, ai_delay=0, limits=Limits(max_rooms=3, room_idle_seconds=3600))
    with TestClient(app) as c:
        ids = [two_humans(c)[0] for _ in range(6)]
        assert len(app.state.hub.rooms) <= 3
        assert all(c.get(f"/api/games/{g}").json()["id"] == g for g in ids)  # each reloads on demand
        assert len(app.state.hub.rooms) <= 3


BAD_FRAMES = [
    ("bytes", b"\x00\x01binary"),
    ("text", "{oops"),
    ("text", "[" * 30_000 + "]" * 30_000),  # deep, and under the 64 KiB message limit
    ("text", '{"type": "chat", "text": ' + "[" * 5000 + "]" * 5000 + "}"),
    ("text", "[1, 2, 3]"),
    ("text", '"a string"'),
    ("text", json.dumps({"type": "chat", "text": "hello", "name": 12345})),
    ("text", json.dumps({"type": "chat", "text": ["not", "a", "string"]})),
    ("text", json.dumps({"type": "chat", "text": {"a": 1}, "name": None})),
    ("text", json.dumps({"type": "draw", "what": ["offer"]})),
    ("text", json.dumps({"type": "resign", "seat": "all"})),
    ("text", json.dumps({"type": "action", "action": True, "ply": 0})),
    ("text", json.dumps({"type": "action", "action": "e5", "ply": "0"})),
    ("text", json.dumps({"type": {"nested": 1}})),
    ("text", json.dumps({"type": "nonsense", "id": "x" * 10_000})),
    ("text", json.dumps({"no_type": 1})),
]


def test_websocket_survives_bad_messages_without_tracebacks(client, caplog):
    gid, _t0, _t1 = two_humans(client)
    caplog.set_level(logging.DEBUG)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "hello"
        for kind, frame in BAD_FRAMES:
            if kind == "bytes":
                ws.send_bytes(frame)
            else:
                ws.send_text(frame)
            m = ws.receive_json()
            assert m["type"] == "error" and m["error"] in ("bad_message", "bad_json", "bad_request"), (frame[:60], m)
            assert 10 < len(m["message"]) <= 400 and len(json.dumps(m)) < 1000, m
        # still usable, and nothing was played or said
        ws.send_json({"type": "action", "action": "e5", "ply": 0})
        m = ws.receive_json()
        assert m["type"] == "state" and m["state"]["ply"] == 1
    assert client.get(f"/api/games/{gid}/chat").json()["chat"] == []
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR or "Traceback" in r.getMessage()]


def test_sync_is_answered_from_the_cached_state(client, monkeypatch):
    hub = client.app.state.hub
    gid, _t0, _t1 = two_humans(client)
    calls = []
    real = hub.snapshot
    monkeypatch.setattr(hub, "snapshot", lambda room: calls.append(room.id) or real(room))
    # the fields of the moment a message is sent (clocks, the time until a claim) are added to the cached text
    moment = ("clocks", "clock_running", "claim_in")
    stable = lambda s: {k: v for k, v in s.items() if k not in moment}  # noqa: E731
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        hello = ws.receive_json()
        n = len(calls)
        for _ in range(10):
            ws.send_json({"type": "sync"})
            m = ws.receive_json()
            assert m["type"] == "state" and stable(m["state"]) == stable(hello["state"]) and set(moment) <= set(m["state"])
        assert len(calls) == n  # no snapshot computed again for syncs of an unchanged game
        ws.send_json({"type": "action", "action": "e5", "ply": 0})
        after = ws.receive_json()["state"]
        ws.send_json({"type": "sync"})
        assert stable(ws.receive_json()["state"]) == stable(after) and after["ply"] == 1  # and never a stale one


def test_import_next_to_a_server_runs_no_computer_player(tmp_path, monkeypatch, boardspace_files):
    db = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    with TestClient(create_app(db, ai_workers=1, ai_delay=0)) as c:
        gid = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}]}).json()["id"]
    # white becomes a computer seat, to move at ply 0 (as in a live game of a server that is running)
    from sqlalchemy.orm import Session

    from ringgames.server.db import GameRow, make_engine

    eng = make_engine(db)
    with Session(eng) as s, s.begin():
        row = s.get(GameRow, gid)
        row.seats = [{"kind": "computer", "name": "computer", "spec": "random", "level": 0, "token": None, "joined": True,
                      "invite": False}, row.seats[1]]
    eng.dispose()

    from ringgames.server import computer, service

    used = []
    monkeypatch.setattr(computer.Computers, "choose", lambda *a, **k: used.append("choose") or pytest.fail("the importer started a computer player"))
    monkeypatch.setattr(service.Hub, "_ai_move", lambda self, room: used.append(room.id) or _noop())
    r = CliRunner().invoke(main, ["import", "--db", db, str(boardspace_files[0])])
    assert r.exit_code == 0, r.output
    assert used == []
    import sqlite3

    con = sqlite3.connect(tmp_path / "shared.sqlite3")
    assert con.execute("select count(*) from moves where game_id=?", (gid,)).fetchone()[0] == 0
    assert con.execute("select count(*) from games where source='import'").fetchone()[0] == 1


async def _noop():
    return None


def test_websocket_flood_close_code_is_policy_violation(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'f.sqlite3'}", ai_workers=1, ai_delay=0, limits=Limits(ws_rate="2/minute", ws_strikes="1/minute"))
    with TestClient(app) as c:
        gid, _, _ = two_humans(c)
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.receive_json()
            for _ in range(6):
                ws.send_bytes(b"junk")
            with pytest.raises(WebSocketDisconnect) as exc:
                while True:
                    ws.receive_json()
            assert exc.value.code == 1008 and "too many" in (exc.value.reason or "")


def test_a_room_evicted_while_a_request_waits_for_its_lock_is_not_used(tmp_path):
    import asyncio

    from ringgames.server.service import Hub

    from .aio import run

    async def scenario():
        hub = Hub(f"sqlite:///{tmp_path / 'r.sqlite3'}", run_computers=False)
        await hub.start()
        try:
            room, mine, _invites = await hub.create("yinsh", None, None, [{"kind": "me"}, {"kind": "me"}])
            await room.lock.acquire()
            task = asyncio.create_task(hub.act(room.id, "e5", list(mine.values()), 0))
            await asyncio.sleep(0.05)  # the action waits for the lock
            del hub.rooms[room.id]  # dropped meanwhile, as evict_idle does once the lock is free
            room.lock.release()
            fresh = await task
            assert fresh is hub.rooms[room.id] and fresh is not room
            assert len(fresh.state.history) == 1 and len(room.state.history) == 0
            again = await hub.act(room.id, "f6", list(mine.values()), 1)
            assert again is fresh and len(fresh.state.history) == 2
        finally:
            await hub.stop()

    run(scenario())


def test_the_sweeper_evicts_idle_rooms_by_itself(tmp_path):
    import time

    app = create_app(f"sqlite:///{tmp_path / 's.sqlite3'}", ai_workers=1, ai_delay=0, limits=Limits(room_idle_seconds=0.5))
    with TestClient(app) as c:
        gid, _, _ = two_humans(c)
        assert gid in app.state.hub.rooms
        deadline = time.time() + 10
        while gid in app.state.hub.rooms and time.time() < deadline:
            time.sleep(0.1)
        assert gid not in app.state.hub.rooms  # swept within a few seconds (every max(1 s, idle / 4))
        assert c.get(f"/api/games/{gid}").json()["id"] == gid
