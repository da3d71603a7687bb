"""The clock, takeback, accounts, ratings, seeks, rematch and presence scenarios on PostgreSQL (issues 28 and 29).

The other server tests run on SQLite; these run the key scenarios on the test run's own PostgreSQL server
(``postgres_url`` in tests/conftest.py; ``RINGGAMES_TEST_POSTGRES`` for another one), each on a new database,
and read the database with SQL where the SQLite tests read the file."""

from __future__ import annotations

import os
import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from ringgames.server.accounts import cheap_hasher
from ringgames.server.app import create_app
from ringgames.server.db import normalize_url
from ringgames.server.limits import Limits

from .conftest import two_humans, wait_for
from .test_clocks import presence_in_two_processes, yinsh_row_turn
from .test_ratings import MODEL, PASSWORD, Players, check, rated_duel, rating
from .test_takeback import play, tb


@pytest.fixture()
def pg_url(request) -> str:
    return os.environ.get("RINGGAMES_TEST_POSTGRES") or request.getfixturevalue("postgres_url")


@pytest.fixture()
def pg(pg_url):
    app = create_app(pg_url, ai_workers=1, ai_delay=0, password_hasher=cheap_hasher(),
                     limits=Limits(disconnect_claim_seconds=1.0, presence_heartbeat_seconds=0.2))
    with TestClient(app) as c:
        yield c


@pytest.fixture()
def sql(pg_url):
    eng = create_engine(normalize_url(pg_url))

    def q(statement: str, **args):
        with eng.connect() as conn:
            return [tuple(r) for r in conn.execute(text(statement), args)]

    yield q
    eng.dispose()


def create(c, **kw):
    r = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me", "name": "a"}, {"kind": "me", "name": "b"}], **kw})
    assert r.status_code == 201, r.text
    return r.json()["id"], ".".join(r.json()["tokens"].values())


def test_flag_by_the_timer_with_nobody_connected(pg, sql):
    gid, _ = create(pg, clock={"initial": 1, "increment": 0})
    t0 = time.monotonic()
    wait_for(lambda: sql("select status from games where id = :g", g=gid) == [("finished",)], timeout=10)
    assert 0.9 < time.monotonic() - t0 < 4
    assert sql("select ply, action, text, seat, left_ms from moves where game_id = :g", g=gid) == [(0, -1, "time", 0, 0)]
    assert sql("select result, deadline, clock_seat from games where id = :g", g=gid) == [("black", None, None)]
    s = pg.get(f"/api/games/{gid}").json()
    assert (s["reason"], s["winners"], s["clocks"]) == ("time", [1], [0, 1000])


def test_increment_once_per_yinsh_turn_with_a_row_and_a_ring_removal(pg, sql):
    actions, start = yinsh_row_turn()
    gid, toks = create(pg, clock={"initial": 600, "increment": 5})
    for i, a in enumerate(actions):
        r = pg.post(f"/api/games/{gid}/actions", json={"action": a, "ply": i}, headers={"X-Seat-Token": toks})
        assert r.status_code == 200, r.text
    moves = r.json()["moves"]
    turn = moves[start:]
    seat = turn[0]["seat"]
    assert len(turn) >= 3 and all(m["seat"] == seat for m in turn)
    left = next(m["left_ms"] for m in reversed(moves[:start]) if m["seat"] == seat)
    for m in turn[:-1]:  # no increment inside the turn
        left -= m["spent_ms"]
        assert m["left_ms"] == left
    assert turn[-1]["left_ms"] == left - turn[-1]["spent_ms"] + 5000  # one, at its end
    rows = sql("select spent_ms, left_ms from moves where game_id = :g order by ply", g=gid)
    assert rows == [(m["spent_ms"], m["left_ms"]) for m in moves]


def test_takeback(pg, sql):
    gid, t0, t1 = two_humans(pg, clock={"initial": 600, "increment": 5})
    pg.cookies.clear()
    s = play(pg, gid, ["e5", "f6", "d4"], (t0, t1))
    assert tb(pg, gid, "ask", t0).status_code == 200
    s = tb(pg, gid, "accept", t1).json()
    assert s["ply"] == 2 and [m["text"] for m in s["moves"]] == ["e5", "f6"] and s["clock_running"] == 0
    assert sql("select ply, text from moves where game_id = :g order by ply", g=gid) == [(0, "e5"), (1, "f6")]
    assert play(pg, gid, ["g7"], (t0, t1), start=2)["ply"] == 3


def test_sign_up_log_in_log_out(pg, sql):
    r = pg.post("/api/account", json={"username": "Vera", "password": PASSWORD})
    assert r.status_code == 201 and r.json()["username"] == "Vera"
    assert pg.post("/api/account", json={"username": "vera", "password": PASSWORD}).json()["error"] == "username_taken"
    assert pg.get("/api/me").json()["username"] == "Vera"
    assert pg.delete("/api/session").status_code == 200
    assert pg.get("/api/me").status_code == 401
    assert pg.post("/api/session", json={"username": "vera", "password": "wrong-password-1"}).json()["error"] == "bad_credentials"
    assert pg.post("/api/session", json={"username": "VERA", "password": PASSWORD}).status_code == 200
    assert pg.get("/api/me").json()["username"] == "Vera"
    (h,) = sql("select password_hash from accounts")[0]
    assert h.startswith("$argon2id$") and PASSWORD not in h
    assert sql("select count(*) from sessions") == [(1,)]


def test_a_rated_game_updates_the_ratings(pg, sql):
    p = Players(pg)
    p.sign_up("alice", "bob")
    gid = rated_duel(p, "alice", "bob")
    with p.as_("alice") as c:
        assert c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}).status_code == 200
    with p.as_("bob") as c:
        assert c.post(f"/api/games/{gid}/actions", json={"action": "f6", "ply": 1}).status_code == 200
    with p.as_("alice") as c:
        assert c.post(f"/api/games/{gid}/resign", json={}).json()["result"] == "black"
    [[a1], [b1]] = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[2, 1])
    check(rating(pg, "alice", "yinsh"), a1, 1)
    check(rating(pg, "bob", "yinsh"), b1, 1)
    assert sql("select rated_at is not null from games where id = :g", g=gid) == [(True,)]
    assert sql("select count(*) from rating_history where game_id = :g", g=gid) == [(2,)]


def test_seeks_accepted_and_play_again_swaps_the_colours(pg, sql):
    p = Players(pg)
    p.sign_up("amy", "ben")
    with p.as_("amy") as c:
        sid = c.post("/api/seeks", json={"game": "yinsh", "rated": True}).json()["seek"]["id"]
    with p.as_("ben") as c:
        r = c.post(f"/api/seeks/{sid}/accept")
        assert r.status_code == 200, r.text
        gid = r.json()["game_id"]
        names = [s["name"] for s in c.get(f"/api/games/{gid}").json()["seats"]]
        assert sorted(names) == ["amy", "ben"]
        assert sql("select game_id from seeks where id = :s", s=sid) == [(gid,)]
        assert c.post(f"/api/games/{gid}/resign", json={}).status_code == 200
        n = c.post(f"/api/games/{gid}/rematch").json()
        assert n["rated"] is True and [s["name"] for s in n["seats"]] == names[::-1]
    with p.as_("amy") as c:
        m = c.post(f"/api/games/{gid}/rematch").json()
        assert m["id"] == n["id"] and m["status"] == "live"
    assert sorted(sql("select seat from game_players where game_id = :g", g=n["id"])) == [(0,), (1,)]


def test_a_real_time_game_is_claimed_after_a_disconnection(pg, sql):
    gid, t0, t1 = two_humans(pg, clock={"initial": 600, "increment": 0})
    pg.cookies.clear()
    assert pg.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": t0}).status_code == 200
    claim = lambda: pg.post(f"/api/games/{gid}/claim", headers={"X-Seat-Token": t0})  # noqa: E731
    with pg.websocket_connect(f"/ws/games/{gid}", headers={"X-Seat-Token": t1}) as ws:
        ws.receive_json()
        assert sql("select seat, connections from seat_presence where game_id = :g", g=gid) == [(1, 1)]
        time.sleep(1.2)
        assert claim().json()["error"] == "not_claimable"
    wait_for(lambda: sql("select seat, connections from seat_presence where game_id = :g", g=gid) == [(1, 0)], timeout=5)
    time.sleep(1.05)
    r = claim()
    assert r.status_code == 200 and r.json()["reason"] == "disconnected" and r.json()["winners"] == [0]


def test_presence_is_shared_by_two_processes(pg_url):
    presence_in_two_processes(pg_url)
