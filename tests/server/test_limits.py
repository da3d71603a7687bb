"""Request-size limits, upload limits, seat bounds, rate limits (HTTP and WebSocket) and bounded error echoes."""

import itertools
import json

import pytest
from starlette.websockets import WebSocketDisconnect

import ringgames
from ringgames.server.limits import MAX_SEATS, BodyLimitMiddleware, Limits

from .aio import run
from .conftest import two_humans

MIB = 1024 * 1024


def game_count(c):
    return len(c.get("/api/games", params={"limit": 500}).json()["games"])


# -- request bodies ---------------------------------------------------------------------------------------------

def test_json_body_over_one_mib_is_refused_with_413_and_creates_nothing(client):
    body = {"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "invite"}], "pad": "x" * (MIB + 10)}
    r = client.post("/api/games", json=body)
    assert r.status_code == 413
    d = r.json()
    assert d["error"] == "too_large" and "1 MiB" in d["message"] and len(r.text) < 500
    assert game_count(client) == 0
    # just under the limit passes the size check and reaches the request model (which has no field "pad")
    body["pad"] = "x" * (MIB - 200)
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and "pad" in r.json()["message"] and len(r.text) < 500
    del body["pad"]
    assert client.post("/api/games", json=body).status_code == 201


def _drive(app, scope, chunks):
    """Run the ASGI ``app`` on one HTTP request whose body arrives in ``chunks``; returns (status, body, chunks read)."""
    read = 0
    sent = []

    async def receive():
        nonlocal read
        if read < len(chunks):
            read += 1
            return {"type": "http.request", "body": chunks[read - 1], "more_body": read < len(chunks)}
        return {"type": "http.disconnect"}

    async def send(msg):
        sent.append(msg)

    run(app(scope, receive, send))  # a fresh loop in its own thread (see aio.py)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body, read


def _scope(path="/api/games", headers=(), client=("10.0.0.1", 1234)):
    return {"type": "http", "method": "POST", "path": path, "headers": list(headers), "client": client, "query_string": b""}


def test_body_limit_counts_bytes_without_content_length_and_stops_reading():
    called = []

    async def inner(scope, receive, send):  # the app behind the limit: reads the whole body, answers 200
        body = b""
        while True:
            m = await receive()
            body += m.get("body", b"")
            if not m.get("more_body"):
                break
        called.append(len(body))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    mw = BodyLimitMiddleware(inner, Limits(body_bytes=1000))
    # chunked (no Content-Length): 10 chunks of 300 bytes; refused after the 4th, the rest never read
    status, body, read = _drive(mw, _scope(), [b"x" * 300] * 10)
    assert status == 413 and json.loads(body)["error"] == "too_large" and read == 4 and called == []
    # a Content-Length over the limit is refused before any byte of the body is read
    status, body, read = _drive(mw, _scope(headers=[(b"content-length", b"5000")]), [b"x" * 5000])
    assert status == 413 and read == 0 and called == []
    # under the limit: the app gets the whole body, in order
    status, body, read = _drive(mw, _scope(), [b"a" * 300, b"b" * 300, b"c" * 300])
    assert status == 200 and called == [900]


# -- seats -----------------------------------------------------------------------------------------------------

def test_max_seats_is_the_largest_player_count_of_any_game():
    assert MAX_SEATS == max(ringgames.game_class(g).player_range[1] for g in ringgames.GAMES) == 6


def test_seat_count_is_bounded_before_any_work(client, monkeypatch):
    hub = client.app.state.hub

    async def no_work(*a, **kw):
        raise AssertionError("hub.create must not run for too many seats")

    monkeypatch.setattr(hub, "create", no_work)
    r = client.post("/api/games", json={"game": "rings", "players": 6, "seats": [{"kind": "invite"}] * 5000})
    assert r.status_code == 400 and r.json()["error"] == "bad_request" and "6" in r.json()["message"]
    assert len(r.text) < 1000


# -- echoes ------------------------------------------------------------------------------------------------------

def test_an_illegal_huge_action_is_not_echoed_whole(client):
    gid, _t0, _t1 = two_humans(client)
    huge = "e5" + "z" * 500_000
    r = client.post(f"/api/games/{gid}/actions", json={"action": huge, "ply": 0})  # over the model's 100 characters
    assert r.status_code == 400 and r.json()["error"] == "bad_request" and "action" in r.json()["message"]
    assert len(r.json()["message"]) <= 400 and len(r.text) < 20_000  # the legal list may follow, never the input
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.receive_json()
        ws.send_json({"type": "action", "action": huge[:50_000], "ply": 0})  # under the 64 KiB message limit
        m = ws.receive_json()
        assert m["error"] == "bad_request" and len(m["message"]) <= 400  # over the model's 100 characters
        ws.send_json({"type": "x" * 100_000})
        m = ws.receive_json()
        assert m["type"] == "error" and len(json.dumps(m)) < 1000
    r = client.get("/api/games/" + "q" * 5000)
    assert r.status_code in (400, 404) and len(r.text) < 500  # an over-long id is refused before any lookup


# -- uploads -----------------------------------------------------------------------------------------------------

_UPLOADS = itertools.count()


def rgn_games(n):
    """``n`` one-move YINSH games, each with players of its own (the same record twice is a duplicate, not imported)."""
    k = next(_UPLOADS)
    return "".join(f'[Game "yinsh"]\n[White "w{i}"]\n[Black "b{k}"]\n\n1. e5\n\n' for i in range(n)).encode()


def test_upload_file_over_its_limit_is_413_and_imports_nothing(make_client):
    c = make_client(upload_file_bytes=2000)
    files = [("files", ("small.rgn", rgn_games(1))), ("files", ("big.rgn", rgn_games(200)))]
    r = c.post("/api/import", files=files)
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    assert "big.rgn" in r.json()["message"] and "2000" in r.json()["message"].replace(",", "")
    assert game_count(c) == 0


def test_too_many_games_in_one_upload_is_413_and_imports_nothing(make_client):
    c = make_client(upload_games=5)
    r = c.post("/api/import", files=[("files", ("a.rgn", rgn_games(3))), ("files", ("b.rgn", rgn_games(3)))])
    assert r.status_code == 413 and r.json()["error"] == "too_large" and "6 games" in r.json()["message"]
    assert game_count(c) == 0
    r = c.post("/api/import", files=[("files", ("a.rgn", rgn_games(3))), ("files", ("b.rgn", rgn_games(2)))])
    assert r.status_code == 200 and r.json()["imported"] == 5 and game_count(c) == 5


def test_too_many_files_or_bytes_in_one_upload_is_413(make_client):
    c = make_client(upload_files=2, upload_request_bytes=20_000)
    r = c.post("/api/import", files=[("files", (f"{i}.rgn", rgn_games(1))) for i in range(3)])
    assert r.status_code == 413 and "3 files" in r.json()["message"]
    r = c.post("/api/import", files=[("files", ("a.rgn", rgn_games(1) + b";" * 30_000))])
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    assert game_count(c) == 0


# -- rate limits over HTTP ---------------------------------------------------------------------------------------

def _create(c):
    return c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "open"}]})


def test_games_per_client_per_minute(make_client):
    c = make_client(games_rate="3/hour")  # per client: counters per window (see docs); hours keep a test off the edges
    assert [_create(c).status_code for _ in range(3)] == [201, 201, 201]
    r = _create(c)
    assert r.status_code == 429 and r.json()["error"] == "rate_limited" and "3 per 1 hour" in r.json()["message"]
    assert 1 <= int(r.headers["retry-after"]) <= 3600 and r.json()["retry_after"] == int(r.headers["retry-after"])
    assert game_count(c) == 3
    # reading is not limited
    assert c.get("/api/games").status_code == 200


def test_seeks_and_their_acceptance_count_as_games_created(make_client):
    """Posting and accepting seeks starts games too: without this, two accounts started 30 games in 0.4 s."""
    c = make_client(games_rate="3/hour")
    assert c.post("/api/account", json={"username": "seeker", "password": "ring-Stones-42"}).status_code == 201
    sid = c.post("/api/seeks", json={"game": "yinsh"}).json()["seek"]["id"]
    assert c.post(f"/api/seeks/{sid}/accept").json()["error"] == "already_seated"  # counted all the same
    assert _create(c).status_code == 201
    r = c.post("/api/seeks", json={"game": "gyges"})
    assert r.status_code == 429 and r.json()["error"] == "rate_limited" and "3 per 1 hour" in r.json()["message"]


def test_rate_limits_are_per_client_address():
    hits = []

    async def inner(scope, receive, send):
        hits.append(scope["client"][0])
        await send({"type": "http.response.start", "status": 201, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    from ringgames.server.limits import RateLimitMiddleware, RateLimits

    mw = RateLimitMiddleware(inner, RateLimits(Limits(games_rate="2/hour")))
    a, b = ("10.0.0.1", 1), ("10.0.0.2", 2)
    statuses = [_drive(mw, _scope(client=who), [b"{}"])[0] for who in (a, a, a, b, b, b, a)]
    assert statuses == [201, 201, 429, 201, 201, 429, 429]
    assert hits == ["10.0.0.1"] * 2 + ["10.0.0.2"] * 2
    # other routes are not counted against game creation
    assert _drive(mw, _scope(path="/api/games/abc/actions", client=a), [b"{}"])[0] == 201


def test_chat_per_client_per_minute_over_http_and_websocket(make_client):
    c = make_client(chat_rate="4/hour")
    gid, _t0, _t1 = two_humans(c)
    assert [c.post(f"/api/games/{gid}/chat", json={"text": f"hi {i}"}).status_code for i in range(3)] == [200] * 3
    with c.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.receive_json()
        ws.send_json({"type": "chat", "text": "fourth"})
        assert ws.receive_json() == {"type": "chat", "name": "alice", "text": "fourth"}
        ws.send_json({"type": "chat", "text": "fifth", "id": 9})
        m = ws.receive_json()
        assert m["type"] == "error" and m["error"] == "rate_limited" and m["id"] == 9 and m["retry_after"] >= 1
    r = c.post(f"/api/games/{gid}/chat", json={"text": "sixth"})
    assert r.status_code == 429 and "retry-after" in r.headers
    assert [x["text"] for x in c.get(f"/api/games/{gid}/chat").json()["chat"]] == ["hi 0", "hi 1", "hi 2", "fourth"]


def test_uploads_per_client_per_minute(make_client):
    c = make_client(upload_rate="2/hour")
    assert [c.post("/api/import", files=[("files", ("a.rgn", rgn_games(1)))]).status_code for _ in range(3)] == [200, 200, 429]
    assert game_count(c) == 2


# -- WebSocket limits --------------------------------------------------------------------------------------------

def test_websocket_message_size_limit_keeps_the_connection(make_client):
    c = make_client(ws_message_bytes=1000)
    gid, _t0, _t1 = two_humans(c)
    with c.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.receive_json()
        ws.send_text(json.dumps({"type": "chat", "text": "x" * 5000}))
        m = ws.receive_json()
        assert m["type"] == "error" and m["error"] == "too_large" and "1000" in m["message"].replace(",", "") and len(json.dumps(m)) < 500
        ws.send_json({"type": "action", "action": "e5", "ply": 0})
        assert ws.receive_json()["state"]["ply"] == 1
    assert c.get(f"/api/games/{gid}/chat").json()["chat"] == []


def test_websocket_rate_per_connection_then_policy_close(make_client):
    c = make_client(ws_rate="5/minute", ws_strikes="3/minute")
    gid, _t0, _t1 = two_humans(c)
    with c.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.receive_json()
        for _ in range(5):
            ws.send_json({"type": "sync"})
            assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "sync", "id": 1})
        m = ws.receive_json()
        assert m["type"] == "error" and m["error"] == "rate_limited" and m["id"] == 1 and 1 <= m["retry_after"] <= 60
        for _ in range(10):
            ws.send_json({"type": "sync"})
        codes = []
        with pytest.raises(WebSocketDisconnect) as exc:
            while True:
                m = ws.receive_json()
                codes.append(m.get("error"))
        assert exc.value.code == 1008
        assert set(codes) <= {"rate_limited"} and len(codes) <= 3
    # a new connection of the same client starts afresh (the limit is per connection)
    with c.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "hello"
        ws.send_json({"type": "sync"})
        assert ws.receive_json()["type"] == "state"


def test_limit_settings_are_checked():
    with pytest.raises(ValueError, match="games_rate"):
        Limits(games_rate="lots")
    with pytest.raises(ValueError, match="body_bytes"):
        Limits(body_bytes=0)


def test_websocket_connections_per_client(make_client):
    from starlette.testclient import WebSocketDenialResponse

    c = make_client(ws_connect_rate="3/hour")
    gid, _, _ = two_humans(c)
    for _ in range(3):
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            assert ws.receive_json()["type"] == "hello"
    with pytest.raises(WebSocketDenialResponse) as exc, c.websocket_connect(f"/ws/games/{gid}"):
        pass
    r = exc.value
    assert r.status_code == 429 and r.json()["error"] == "rate_limited" and "WebSocket connections" in r.json()["message"]
    assert 1 <= int(r.headers["retry-after"]) <= 3600


def test_limit_options_of_serve():
    lim = Limits.from_options(["games_rate=5/minute", "body-bytes=2048", "room_idle_seconds=1.5"])
    assert (lim.games_rate, lim.body_bytes, lim.room_idle_seconds, lim.chat_rate) == ("5/minute", 2048, 1.5, Limits().chat_rate)
    with pytest.raises(ValueError, match="NAME=VALUE"):
        Limits.from_options(["nonsense=1"])
    with pytest.raises(ValueError, match="not a number"):
        Limits.from_options(["body_bytes=lots"])
    from click.testing import CliRunner

    from ringgames.cli import main

    r = CliRunner().invoke(main, ["serve", "--limit", "games_rate=often"])
    assert r.exit_code == 2 and "games_rate" in r.output and "Traceback" not in r.output


def test_connection_rate_is_a_moving_window(monkeypatch):
    import limits

    from ringgames.server import limits as lim

    now = [1000.0]
    monkeypatch.setattr(lim.time, "monotonic", lambda: now[0])
    r = lim.ConnectionRate(limits.parse("3 per 10 seconds"), "messages")
    for t in (1000.0, 1004.0, 1009.0):
        now[0] = t
        r.check()
    now[0] = 1009.5
    with pytest.raises(lim.RateLimited) as exc:
        r.check()
    assert exc.value.retry_after == 1 and "3 per 10 second" in exc.value.message  # the hit at 1000 leaves at 1010
    now[0] = 1010.0
    r.check()  # a refused hit is not counted: the window holds 1004, 1009 and now 1010
    now[0] = 1013.9
    with pytest.raises(lim.RateLimited) as exc:
        r.check()
    assert exc.value.retry_after == 1
    now[0] = 1014.0
    r.check()


def test_real_server_refuses_big_bodies_before_reading_them(tmp_path):
    """Through uvicorn: a 10 MB Content-Length is answered 413 although no byte of the body was sent,
    and a chunked body (no length) is answered 413 once it passes the limit; `--limit` reaches the app."""
    import socket

    from ringgames.server.testing import ServerProcess

    def exchange(sock_send, port):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            sock_send(s)
            data = b""
            while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            return data

    with ServerProcess(f"sqlite:///{tmp_path / 'u.sqlite3'}", extra_args=["--limit", "body_bytes=100000"]) as srv:
        head = (f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nContent-Type: application/json\r\n").encode()
        got = exchange(lambda s: s.sendall(head + b"Content-Length: 10000000\r\n\r\n"), srv.port)
        assert got.startswith(b"HTTP/1.1 413") and b'"too_large"' in got and b"100,000 bytes" in got

        def chunked(s):
            s.sendall(head + b"Transfer-Encoding: chunked\r\n\r\n")
            for _ in range(3):  # 3 x 40,000 bytes: over the 100,000 limit on the third chunk; no end chunk
                s.sendall(b"%x\r\n" % 40_000 + b"x" * 40_000 + b"\r\n")

        got = exchange(chunked, srv.port)
        assert got.startswith(b"HTTP/1.1 413") and b"100,000 bytes" in got


def test_forwarded_client_address_only_from_a_trusted_proxy(tmp_path):
    import urllib.error
    import urllib.request

    from ringgames.server.testing import ServerProcess

    def create(url, forwarded_for):
        body = json.dumps({"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "open"}]}).encode()
        req = urllib.request.Request(f"{url}/api/games", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded_for})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as exc:
            return exc.code

    one = ["--limit", "games_rate=1/hour"]
    with ServerProcess(f"sqlite:///{tmp_path / 'p1.sqlite3'}", extra_args=one) as srv:  # no trusted proxy: the header is ignored
        assert [create(srv.url, ip) for ip in ("10.0.0.1", "10.0.0.2")] == [201, 429]
    with ServerProcess(f"sqlite:///{tmp_path / 'p2.sqlite3'}", extra_args=[*one, "--forwarded-allow-ips", "127.0.0.1"]) as srv:
        assert [create(srv.url, ip) for ip in ("10.0.0.1", "10.0.0.1", "10.0.0.2")] == [201, 429, 201]
