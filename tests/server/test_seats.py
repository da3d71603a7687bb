"""Seat security: single-use invites exchanged for a fresh seat token, hashed tokens (and their migration),
no tokens in URL query strings, cross-site requests refused, cookie flags, ``ply`` required, strict types."""

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from starlette.websockets import WebSocketDisconnect

from ringgames.server.app import create_app
from ringgames.server.db import migrate

from .conftest import as_stranger, two_humans


def sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_with_invite(c: TestClient) -> tuple[str, str, str]:
    """A YINSH game: this client holds white (cookie); returns (id, white's token, black's invite token)."""
    r = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me", "name": "alice"}, {"kind": "invite"}]})
    assert r.status_code == 201, r.text
    d = r.json()
    link = d["invites"]["1"]
    assert link.startswith(f"http://testserver/game/{d['id']}#") and "?" not in link  # a fragment: never sent to the server
    return d["id"], d["tokens"]["0"], link.split("token=")[1]


def db_bytes(tmp_path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in tmp_path.glob("test.sqlite3*"))


# -- 1. invites are single use, exchanged for a fresh seat token; tokens hashed; none in query strings ------------

def test_invite_is_single_use_and_exchanged_for_a_fresh_seat_token(client):
    gid, _, inv = create_with_invite(client)
    r = as_stranger(client, "POST", f"/api/games/{gid}/join", json={"seat": 1, "token": inv, "name": "bob"})
    assert r.status_code == 200, r.text
    bob = r.json()["token"]
    assert bob != inv and len(bob) >= 40 and r.json()["my_seats"] == [1]
    assert f"rg_{gid}={bob}" in r.headers["set-cookie"]
    # white moves; now it is black's turn, and the invite token no longer holds black's seat
    assert client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}).status_code == 200
    leak = {"X-Seat-Token": inv}
    r = as_stranger(client, "POST", f"/api/games/{gid}/actions", json={"action": "f6", "ply": 1}, headers=leak)
    assert r.status_code == 403 and r.json()["error"] == "not_your_turn"
    r = as_stranger(client, "POST", f"/api/games/{gid}/resign", json={"seat": 1}, headers=leak)
    assert r.status_code == 403 and r.json()["error"] == "not_your_seat"
    # the creator (who made the link) can neither re-join nor rename the friend's seat
    for who in (client, None):
        r = (client.post(f"/api/games/{gid}/join", json={"seat": 1, "token": inv, "name": "mallory"}) if who
             else as_stranger(client, "POST", f"/api/games/{gid}/join", json={"seat": 1, "token": inv, "name": "mallory"}))
        assert r.status_code == 409 and r.json()["error"] == "seat_taken", r.text
    # a draw offered by white cannot be accepted for black with the invite token
    assert client.post(f"/api/games/{gid}/draw", json={"what": "offer"}).status_code == 200
    r = as_stranger(client, "POST", f"/api/games/{gid}/draw", json={"what": "accept"}, headers=leak)
    assert r.status_code == 403 and r.json()["error"] == "not_your_seat"
    s = as_stranger(client, "GET", f"/api/games/{gid}", headers={"X-Seat-Token": bob}).json()
    assert s["seats"][1]["name"] == "bob" and s["status"] == "live" and s["result"] == "none" and s["my_seats"] == [1]
    # the friend's own token works
    r = as_stranger(client, "POST", f"/api/games/{gid}/actions", json={"action": "f6", "ply": 1}, headers={"X-Seat-Token": bob})
    assert r.status_code == 200 and r.json()["ply"] == 2


def test_a_wrong_invite_takes_nothing(client):
    gid, _, inv = create_with_invite(client)
    r = as_stranger(client, "POST", f"/api/games/{gid}/join", json={"seat": 1, "token": inv[:-2] + "xx", "name": "eve"})
    assert r.status_code == 403 and r.json()["error"] == "bad_token"
    r = as_stranger(client, "POST", f"/api/games/{gid}/join", json={"seat": 1, "name": "eve"})  # an invite seat is not open
    assert r.status_code == 403 and r.json()["error"] == "seat_taken"
    assert client.get(f"/api/games/{gid}").json()["seats"][1]["joined"] is False


def test_open_seat_gets_a_fresh_token_once(client):
    r = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "open"}]})
    gid = r.json()["id"]
    assert r.json()["invites"] == {}
    a = as_stranger(client, "POST", f"/api/games/{gid}/join", json={"seat": 1, "name": "carol"})
    assert a.status_code == 200 and a.json()["my_seats"] == [1]
    b = as_stranger(client, "POST", f"/api/games/{gid}/join", json={"seat": 1, "name": "dave"})
    assert b.status_code == 409 and b.json()["error"] == "seat_taken"
    s = as_stranger(client, "GET", f"/api/games/{gid}", headers={"X-Seat-Token": a.json()["token"]}).json()
    assert s["my_seats"] == [1] and s["seats"][1]["name"] == "carol"


def test_seat_tokens_are_stored_hashed(tmp_path, client):
    gid, t0, inv = create_with_invite(client)
    bob = as_stranger(client, "POST", f"/api/games/{gid}/join", json={"seat": 1, "token": inv}).json()["token"]
    raw = db_bytes(tmp_path)
    for tok in (t0, inv, bob):
        assert tok.encode() not in raw
    eng = create_engine(f"sqlite:///{tmp_path / 'test.sqlite3'}")
    with eng.connect() as conn:
        seats = json.loads(conn.execute(text("select seats from games where id = :g"), {"g": gid}).scalar_one())
    eng.dispose()
    assert [s.get("token_hash") for s in seats] == [sha256(t0), sha256(bob)]
    assert all("token" not in s and not s.get("invite_hash") for s in seats)


def test_tokens_in_query_strings_or_bodies_hold_no_seat(client):
    gid, t0, _ = two_humans(client)
    r = as_stranger(client, "GET", f"/api/games/{gid}", params={"token": t0})
    assert r.status_code == 200 and r.json()["my_seats"] == []
    client.cookies.clear()
    with client.websocket_connect(f"/ws/games/{gid}?token={t0}") as ws:
        assert ws.receive_json()["my_seats"] == []
        ws.send_json({"type": "action", "action": "e5", "ply": 0, "token": t0})
        m = ws.receive_json()
        assert m["type"] == "error" and m["error"] == "not_your_turn"
    with client.websocket_connect(f"/ws/games/{gid}", headers={"X-Seat-Token": t0}) as ws:
        assert ws.receive_json()["my_seats"] == [0]
    r = client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0, "token": t0})
    assert r.status_code == 400 and "token" in r.json()["message"]
    assert client.get(f"/api/games/{gid}").json()["ply"] == 0


OLD_SEATS = [
    # a game between alice (created it) and bob (joined through his invite link): both tokens in clear
    [{"kind": "human", "name": "alice", "spec": None, "level": None, "token": "A" * 24, "joined": True, "invite": False, "open": False},
     {"kind": "human", "name": "bob", "spec": None, "level": None, "token": "B" * 24, "joined": True, "invite": True, "open": False}],
    # a game whose invite seat still waits, and one with an open seat
    [{"kind": "human", "name": "carol", "spec": None, "level": None, "token": "C" * 24, "joined": True, "invite": False, "open": False},
     {"kind": "human", "name": "waiting…", "spec": None, "level": None, "token": "D" * 24, "joined": False, "invite": True, "open": False}],
    [{"kind": "human", "name": "erin", "spec": None, "level": None, "token": "E" * 24, "joined": True, "invite": False, "open": False},
     {"kind": "human", "name": "waiting…", "spec": None, "level": None, "token": "F" * 24, "joined": False, "invite": False, "open": True}],
]


def test_migration_hashes_the_clear_tokens_of_existing_games_and_keeps_them_playable(tmp_path):
    url = f"sqlite:///{tmp_path / 'test.sqlite3'}"
    migrate(url, "0001")
    eng = create_engine(url)
    with eng.begin() as conn:
        for i, seats in enumerate(OLD_SEATS):
            conn.execute(text("insert into games (id, game, variant, players, seats, status, source, start, tags, draw_offers, result, ply,"
                              " created, updated) values (:id, 'yinsh', 'standard', 2, :seats, :status, 'play', null, '{}', '[]', 'none', 0,"
                              " '2026-12-01 00:00:00', '2026-12-01 00:00:00')"),
                         {"id": f"00000000000{i}", "seats": json.dumps(seats), "status": "live" if i == 0 else "open"})
    eng.dispose()
    with TestClient(create_app(url, ai_workers=1, ai_delay=0)) as c:
        raw = db_bytes(tmp_path)
        for ch in "ABCDEF":
            assert (ch * 24).encode() not in raw, ch
        # the old game goes on with the old tokens (now checked against their hashes)
        g = "000000000000"
        assert c.post(f"/api/games/{g}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": "A" * 24}).status_code == 200
        r = c.post(f"/api/games/{g}/actions", json={"action": "f6", "ply": 1}, headers={"X-Seat-Token": "B" * 24})
        assert r.status_code == 200 and r.json()["my_seats"] == [1]
        # the waiting invite link still works, once, and gives a fresh token
        r = as_stranger(c, "POST", "/api/games/000000000001/join", json={"seat": 1, "token": "D" * 24, "name": "dan"})
        assert r.status_code == 200 and r.json()["token"] != "D" * 24
        r = as_stranger(c, "GET", "/api/games/000000000001", headers={"X-Seat-Token": "D" * 24})
        assert r.json()["my_seats"] == [] and r.json()["seats"][1]["name"] == "dan"
        # an open seat's unused token was dropped: it holds nothing, and the seat is still open to anyone
        r = as_stranger(c, "GET", "/api/games/000000000002", headers={"X-Seat-Token": "F" * 24})
        assert r.json()["my_seats"] == [] and r.json()["seats"][1]["open"] is True
        assert as_stranger(c, "POST", "/api/games/000000000002/join", json={"seat": 1, "name": "fay"}).status_code == 200


# -- 2. cross-site requests and WebSocket Origin; cookie flags -------------------------------------------------------

def test_websocket_handshake_checks_origin(client):
    gid, _, _ = two_humans(client)
    with client.websocket_connect(f"/ws/games/{gid}", headers={"Origin": "http://testserver"}) as ws:
        assert ws.receive_json()["my_seats"] == [0]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:  # no Origin: a program, not a browser
        assert ws.receive_json()["type"] == "hello"
    for origin in ("http://evil.example", "http://testserver.evil.example", "null", "http://sub.testserver"):
        with pytest.raises(WebSocketDisconnect) as exc, client.websocket_connect(f"/ws/games/{gid}", headers={"Origin": origin}) as ws:
            ws.receive_json()
        assert exc.value.code == 1008, origin


def test_configured_origins_are_allowed(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'o.sqlite3'}", ai_workers=1, ai_delay=0, allowed_origins=["https://play.example.org"])
    with TestClient(app) as c:
        gid, _, _ = two_humans(c)
        with c.websocket_connect(f"/ws/games/{gid}", headers={"Origin": "https://play.example.org"}) as ws:
            assert ws.receive_json()["my_seats"] == [0]
        r = c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}, headers={"Origin": "https://play.example.org"})
        assert r.status_code == 200
        r = c.post(f"/api/games/{gid}/actions", json={"action": "f6", "ply": 1}, headers={"Origin": "https://other.example.org"})
        assert r.status_code == 403 and r.json()["error"] == "cross_site"


def test_cross_site_posts_are_refused_with_the_reason(client, tmp_path):
    gid, _, _ = two_humans(client)
    client.post(f"/api/games/{gid}/resign", json={})
    evil = {"Origin": "https://evil.example"}
    cases = [("/api/games", {"json": {"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}]}}),
             (f"/api/games/{gid}/rematch", {}),
             (f"/api/games/{gid}/chat", {"json": {"text": "hi"}}),
             ("/api/import", {"files": [("files", ("a.rgn", b'[Game "yinsh"]\n\n1. e5\n'))]})]
    for path, kw in cases:
        for headers in (evil, {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site", "Origin": "https://a.testserver"}):
            r = client.post(path, headers=headers, **kw)
            assert r.status_code == 403, (path, headers, r.text)
            assert r.json()["error"] == "cross_site" and "cross-site" in r.json()["message"]
    assert client.get(f"/api/games/{gid}").json()["tags"].get("rematch") is None
    assert client.get("/api/games", params={"status": "finished"}).json()["games"][0]["id"] == gid
    assert [m["text"] for m in client.get(f"/api/games/{gid}/chat").json()["chat"]] == []
    # the site's own pages (same origin, or a browser's "same-origin" fetch) and programs (no Origin) are served
    same = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert client.post(f"/api/games/{gid}/chat", json={"text": "gg"}, headers=same).status_code == 200
    assert client.post(f"/api/games/{gid}/rematch", headers={"Origin": "http://testserver"}).status_code == 201


def test_seat_cookie_flags(tmp_path):
    body = {"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}]}
    with TestClient(create_app(f"sqlite:///{tmp_path / 'a.sqlite3'}", ai_workers=1, ai_delay=0)) as c:
        cookie = c.post("/api/games", json=body).headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
    with TestClient(create_app(f"sqlite:///{tmp_path / 'b.sqlite3'}", ai_workers=1, ai_delay=0, behind_https=True)) as c:
        cookie = c.post("/api/games", json=body).headers["set-cookie"].lower()
        assert "; secure" in cookie and "httponly" in cookie and "samesite=lax" in cookie
    # the scheme a trusted proxy forwarded (uvicorn's proxy headers set it on the request) also makes it Secure
    with TestClient(create_app(f"sqlite:///{tmp_path / 'c.sqlite3'}", ai_workers=1, ai_delay=0), base_url="https://testserver") as c:
        assert "; secure" in c.post("/api/games", json=body).headers["set-cookie"].lower()


def test_serve_options_behind_https_and_allowed_origins(monkeypatch, tmp_path):
    import uvicorn

    from ringgames.cli import main

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app, **kw))
    r = CliRunner().invoke(main, ["serve", "--db", f"sqlite:///{tmp_path / 's.sqlite3'}", "--behind-https",
                                  "--allow-origin", "https://a.example", "--allow-origin", "https://b.example",
                                  "--forwarded-allow-ips", "10.0.0.2"])
    assert r.exit_code == 0, r.output
    sec = seen["app"].state.security
    assert sec.behind_https is True and sec.allowed_origins == ("https://a.example", "https://b.example")
    assert seen["proxy_headers"] is True and seen["forwarded_allow_ips"] == "10.0.0.2"
    seen.clear()
    assert CliRunner().invoke(main, ["serve", "--db", f"sqlite:///{tmp_path / 's.sqlite3'}"]).exit_code == 0
    assert seen["app"].state.security.behind_https is False and seen["app"].state.security.allowed_origins == ()


# -- 3. ply required, strict types ---------------------------------------------------------------------------------

def test_ply_is_required_so_a_duplicate_never_plays_for_the_next_seat(client):
    r = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}]})  # hot seat
    gid = r.json()["id"]
    r = client.post(f"/api/games/{gid}/actions", json={"action": "e5"})
    assert r.status_code == 400 and "ply" in r.json()["message"]
    assert client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}).status_code == 200
    r = client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0})  # the same submission again
    assert r.status_code == 409 and r.json()["error"] == "stale_ply"
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.receive_json()
        ws.send_json({"type": "action", "action": "f6", "id": 3})
        m = ws.receive_json()
        assert m["type"] == "error" and m["error"] == "bad_request" and "ply" in m["message"] and m["id"] == 3
    s = client.get(f"/api/games/{gid}").json()
    assert s["ply"] == 1 and [m["text"] for m in s["moves"]] == ["e5"]


def test_strict_types_for_action_and_ply(client):
    r = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}]})
    gid = r.json()["id"]
    for body in ({"action": True, "ply": 0}, {"action": "e5", "ply": True}, {"action": "e5", "ply": "0"},
                 {"action": "e5", "ply": 0.5}, {"action": ["e5"], "ply": 0}, {"action": 1.5, "ply": 0}):
        r = client.post(f"/api/games/{gid}/actions", json=body)
        assert r.status_code == 400 and r.json()["error"] == "bad_request", body
    r = client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": "3"})
    assert r.json()["message"] == "ply: Input should be a valid integer"
    r = client.post(f"/api/games/{gid}/actions", json={"action": True, "ply": 0})
    assert r.json()["message"] == "action: Input should be a valid string; action: Input should be a valid integer"
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.receive_json()
        ws.send_json({"type": "action", "action": "e5", "ply": "0"})
        m = ws.receive_json()
        assert m["error"] == "bad_request" and "ply" in m["message"] and "integer" in m["message"] and "not 0" not in m["message"]
        ws.send_json({"type": "action", "action": True, "ply": 0})
        m = ws.receive_json()
        assert m["error"] == "bad_request" and "action" in m["message"]
    assert client.get(f"/api/games/{gid}").json()["ply"] == 0


def test_request_bodies_are_typed_and_bounded(client):
    gid, _, _ = two_humans(client)
    bad = [
        ("/api/games", {"game": "yinsh", "seats": [{"kind": "me"}] * 600}),
        ("/api/games", {"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}], "extra": 1}),
        ("/api/games", {"game": "yinsh", "players": True, "seats": [{"kind": "me"}, {"kind": "me"}]}),
        ("/api/games", {"game": "yinsh", "seats": [{"kind": "computer", "level": "3"}, {"kind": "me"}]}),
        (f"/api/games/{gid}/actions", {"action": "e5" * 50_000, "ply": 0}),
        (f"/api/games/{gid}/join", {"seat": "1"}),
        (f"/api/games/{gid}/chat", {"text": "hi", "name": 5}),
        (f"/api/games/{gid}/draw", {"what": "maybe"}),
        (f"/api/games/{gid}/resign", {"seat": 0.5}),
    ]
    for path, body in bad:
        r = client.post(path, json=body)
        assert r.status_code == 400 and r.json()["error"] == "bad_request", (path, r.text[:300])
        assert len(r.text) < 1000  # never the whole input echoed back
    assert client.get(f"/api/games/{gid}").json()["ply"] == 0


def test_a_player_can_replace_a_lost_invite_link_and_the_old_one_stops_working(client):
    gid, _, old = create_with_invite(client)
    r = as_stranger(client, "POST", f"/api/games/{gid}/invite", json={"seat": 1})
    assert r.status_code == 403 and r.json()["error"] == "not_your_seat"  # only players hand out seats
    r = client.post(f"/api/games/{gid}/invite", json={"seat": 1})
    assert r.status_code == 200 and r.json()["seat"] == 1
    link = r.json()["invite"]
    assert link.startswith(f"http://testserver/game/{gid}#seat=1&token=")
    new = link.split("token=")[1]
    assert new != old
    r = as_stranger(client, "POST", f"/api/games/{gid}/join", json={"seat": 1, "token": old})
    assert r.status_code == 403 and r.json()["error"] == "bad_token"
    r = as_stranger(client, "POST", f"/api/games/{gid}/join", json={"seat": 1, "token": new, "name": "bob"})
    assert r.status_code == 200 and r.json()["my_seats"] == [1]
    r = client.post(f"/api/games/{gid}/invite", json={"seat": 1})  # taken: no new link for it
    assert r.status_code == 409 and r.json()["error"] == "seat_taken"
    assert client.post(f"/api/games/{gid}/invite", json={"seat": 0}).status_code == 409
    assert client.post(f"/api/games/{gid}/invite", json={"seat": 5}).status_code == 422


@pytest.mark.parametrize("headers,allowed", [
    ({"host": "play.example.org", "origin": "https://play.example.org"}, True),
    ({"host": "play.example.org:443", "origin": "https://play.example.org"}, True),  # default ports are the same origin
    ({"host": "Play.Example.org", "origin": "https://play.example.org/"}, True),
    ({"host": "play.example.org", "sec-fetch-site": "same-origin", "origin": "https://proxy.internal"}, True),
    ({"host": "play.example.org"}, True),  # a program
    ({"host": "play.example.org", "origin": "https://play.example.org:8443"}, False),  # another port: another origin
    ({"host": "play.example.org", "origin": "https://evil.example.org"}, False),
    ({"host": "play.example.org", "origin": "null"}, False),
    ({"host": "play.example.org", "sec-fetch-site": "same-site"}, False),
    ({"host": "play.example.org", "origin": "https://friends.example.net"}, True),  # configured
])
def test_cross_site_rule(headers, allowed):
    from ringgames.server.security import SecuritySettings, cross_site_reason

    reason = cross_site_reason(headers, SecuritySettings.make(["https://friends.example.net/"]))
    assert (reason is None) is allowed, reason
    if reason:
        assert reason.startswith("cross-site request refused")


# -- rematches: every player keeps their own seat, rotated by one (colours swap) ------------------------------------

def test_rematch_gives_nobody_the_other_players_seat(client):
    """The host asks first: he gets his own (rotated) seat and no invite for the friend's; he cannot take the friend's
    seat, and the friend, asking afterwards with his old token, gets his seat in the new game."""
    gid, host, friend = two_humans(client)
    client.cookies.clear()
    H, F = {"X-Seat-Token": host}, {"X-Seat-Token": friend}
    assert client.post(f"/api/games/{gid}/resign", json={}, headers=F).status_code == 200
    a = client.post(f"/api/games/{gid}/rematch", headers=H)
    client.cookies.clear()
    assert a.status_code == 201, a.text
    a = a.json()
    nid = a["id"]
    assert a["invites"] == {} and a["my_seats"] == [1] and list(a["tokens"]) == ["1"]
    assert a["seats"][0]["name"] == "bob" and a["seats"][0]["joined"] is False and a["seats"][0]["open"] is False
    # the host cannot take the friend's seat: no join (open or with any token), no new invite link
    r = client.post(f"/api/games/{nid}/join", json={"seat": 0, "name": "impostor"}, headers=H)
    assert r.status_code == 403 and r.json()["error"] == "seat_reserved", r.text
    r = client.post(f"/api/games/{nid}/join", json={"seat": 0, "name": "impostor", "token": host}, headers=H)
    assert r.status_code == 403 and r.json()["error"] == "seat_reserved", r.text
    r = client.post(f"/api/games/{nid}/invite", json={"seat": 0}, headers={"X-Seat-Token": a["tokens"]["1"]})
    assert r.status_code == 409 and r.json()["error"] == "seat_reserved", r.text
    # asking again, the host still gets only his own seat
    r = client.post(f"/api/games/{gid}/rematch", headers=H)
    client.cookies.clear()
    assert r.status_code == 201 and r.json()["my_seats"] == [1] and list(r.json()["tokens"]) == ["1"]
    # the friend gets his own seat, with a fresh token
    b = client.post(f"/api/games/{gid}/rematch", headers=F)
    client.cookies.clear()
    assert b.status_code == 201, b.text
    b = b.json()
    assert b["id"] == nid and b["my_seats"] == [0] and list(b["tokens"]) == ["0"] and b["invites"] == {}
    assert b["seats"][0]["name"] == "bob" and b["seats"][0]["joined"] is True and b["status"] == "live"
    ft = b["tokens"]["0"]
    assert ft not in (friend, host)
    ht = r.json()["tokens"]["1"]
    r = client.post(f"/api/games/{nid}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": ht})
    assert r.status_code == 403 and r.json()["error"] == "not_your_turn"
    assert client.post(f"/api/games/{nid}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": ft}).status_code == 200
    r = client.post(f"/api/games/{nid}/actions", json={"action": "f6", "ply": 1}, headers={"X-Seat-Token": ht})
    assert r.status_code == 200 and r.json()["ply"] == 2


def test_rematch_rings_seats_rotate_by_one(client):
    r = client.post("/api/games", json={"game": "rings", "players": 4, "seats": [
        {"kind": "me", "name": "p0"}, {"kind": "invite"}, {"kind": "invite"}, {"kind": "computer", "level": 0}]})
    d = r.json()
    gid, toks = d["id"], {0: d["tokens"]["0"]}
    client.cookies.clear()
    for i in (1, 2):
        j = client.post(f"/api/games/{gid}/join", json={"seat": i, "name": f"p{i}", "token": d["invites"][str(i)].split("token=")[1]})
        client.cookies.clear()
        toks[i] = j.json()["token"]
    for i in (0, 1, 2):  # every human resigns: the game is over
        s = client.get(f"/api/games/{gid}").json()
        if s["status"] == "finished":
            break
        assert client.post(f"/api/games/{gid}/resign", json={"seat": i}, headers={"X-Seat-Token": toks[i]}).status_code == 200
    assert client.get(f"/api/games/{gid}").json()["status"] == "finished"
    a = client.post(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": toks[2]}).json()
    client.cookies.clear()
    # old seat i -> new seat i + 1 (mod 4): the computer of seat 3 plays seat 0, p2 plays seat 3
    assert a["my_seats"] == [3] and list(a["tokens"]) == ["3"] and a["invites"] == {}
    assert [s["kind"] for s in a["seats"]] == ["computer", "human", "human", "human"]
    assert [s["name"] for s in a["seats"][1:]] == ["p0", "p1", "p2"]
    assert [s["joined"] for s in a["seats"][1:]] == [False, False, True]
    for i in (0, 1):
        b = client.post(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": toks[i]}).json()
        client.cookies.clear()
        assert b["id"] == a["id"] and b["my_seats"] == [i + 1] and list(b["tokens"]) == [str(i + 1)] and b["invites"] == {}
    assert client.get(f"/api/games/{a['id']}").json()["status"] == "live"


def test_rematch_made_before_reserved_seats_still_seats_the_old_holder(client):
    """A rematch created by the old code (the friend's seat an invite seat, no reserved hash): the friend asking
    with his old token still gets that seat while it waits."""
    gid, host, friend = two_humans(client)
    client.cookies.clear()
    assert client.post(f"/api/games/{gid}/resign", json={}, headers={"X-Seat-Token": friend}).status_code == 200
    nid = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me", "name": "alice"}, {"kind": "invite"}]}).json()["id"]
    client.cookies.clear()
    hub = client.app.state.hub
    old = client.portal.call(hub.room, gid)
    old.row.tags = {**old.row.tags, "rematch": nid}
    b = client.post(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": friend})
    client.cookies.clear()
    assert b.status_code == 201 and b.json()["id"] == nid and b.json()["my_seats"] == [1] and list(b.json()["tokens"]) == ["1"]
    r = client.post(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": friend})  # taken now: nothing more
    assert r.status_code == 201 and r.json()["tokens"] == {} and r.json()["my_seats"] == []
