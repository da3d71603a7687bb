"""Accounts: sign-up, login, logout, password change, the session cookie, bad input, the brute-force slow-down,
guest seats carried over to the account, passwords never stored in clear, and the 0003 migration."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from ringgames.server.accounts import SESSION_COOKIE, cheap_hasher
from ringgames.server.app import create_app
from ringgames.server.db import migrate
from ringgames.server.limits import Limits

PASSWORD = "ring-Stones-42"


def make_client(tmp_path: Path, https: bool = False, **limits) -> TestClient:
    return TestClient(create_app(f"sqlite:///{tmp_path / 'test.sqlite3'}", ai_workers=1, ai_delay=0, limits=Limits(**limits),
                                 password_hasher=cheap_hasher(), behind_https=https))


@pytest.fixture()
def c(tmp_path):
    with make_client(tmp_path) as client:
        yield client


@contextmanager
def browser(c: TestClient):
    """Requests from another browser: its own cookie jar, swapped in for the block."""
    saved = httpx.Cookies(c.cookies)
    c.cookies.clear()
    try:
        yield c
    finally:
        c.cookies = saved


def sign_up(c: TestClient, name: str, password: str = PASSWORD) -> httpx.Response:
    return c.post("/api/account", json={"username": name, "password": password})


def db_bytes(tmp_path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in tmp_path.glob("test.sqlite3*"))


# -- sign-up, login, logout ---------------------------------------------------------------------------------------

def test_sign_up_logs_in_and_log_out_and_log_in_again(c):
    assert c.get("/api/me").status_code == 401 and c.get("/api/me").json()["error"] == "not_logged_in"
    r = sign_up(c, "Alice_1")
    assert r.status_code == 201, r.text
    assert r.json()["username"] == "Alice_1" and r.json()["ratings"] == {}
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=") and "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
    assert "Secure" not in cookie and "Path=/" in cookie
    assert c.get("/api/me").json()["username"] == "Alice_1"

    r = c.delete("/api/session")
    assert r.status_code == 200 and r.json() == {"ok": True}
    assert c.get("/api/me").status_code == 401
    # logging in: the name in any case
    r = c.post("/api/session", json={"username": "alice_1", "password": PASSWORD})
    assert r.status_code == 200 and r.json()["username"] == "Alice_1"
    assert c.get("/api/me").json()["username"] == "Alice_1"


def test_logout_ends_the_session_on_the_server(c):
    sign_up(c, "bob")
    stolen = c.cookies[SESSION_COOKIE]
    c.delete("/api/session")
    with browser(c):  # a copy of the cookie made before the logout no longer works
        c.cookies.set(SESSION_COOKIE, stolen)
        assert c.get("/api/me").status_code == 401


def test_a_forged_or_altered_session_cookie_is_refused(c):
    sign_up(c, "carol")
    good = c.cookies[SESSION_COOKIE]
    with browser(c):
        for bad in (good[:-2] + ("AA" if not good.endswith("AA") else "BB"), "x" * 50, good + "." + good, "", "a" * 5000):
            c.cookies.set(SESSION_COOKIE, bad)
            assert c.get("/api/me").status_code == 401, bad[:30]
        c.cookies.set(SESSION_COOKIE, good)
        assert c.get("/api/me").json()["username"] == "carol"


def test_wrong_password_and_unknown_user_get_the_same_answer(c):
    sign_up(c, "dave")
    c.delete("/api/session")
    wrong = c.post("/api/session", json={"username": "dave", "password": "not-the-password"})
    unknown = c.post("/api/session", json={"username": "nobody", "password": PASSWORD})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"error": "bad_credentials", "message": "wrong username or password"}
    assert SESSION_COOKIE not in c.cookies


def test_secure_cookie_behind_https(tmp_path):
    with make_client(tmp_path, https=True) as c:
        r = sign_up(c, "erin")
        assert r.status_code == 201 and "Secure" in r.headers["set-cookie"]


def test_change_password_ends_other_sessions(c):
    sign_up(c, "frank")
    with browser(c):
        assert c.post("/api/session", json={"username": "frank", "password": PASSWORD}).status_code == 200
        other = c.cookies[SESSION_COOKIE]
    r = c.post("/api/me/password", json={"password": "wrong-password", "new_password": "new-Secret-77"})
    assert r.status_code == 401 and r.json()["error"] == "bad_credentials"
    r = c.post("/api/me/password", json={"password": PASSWORD, "new_password": "short"})
    assert r.status_code == 422 and r.json()["error"] == "weak_password"
    r = c.post("/api/me/password", json={"password": PASSWORD, "new_password": "new-Secret-77"})
    assert r.status_code == 200
    assert c.get("/api/me").json()["username"] == "frank"  # this session goes on
    with browser(c):
        c.cookies.set(SESSION_COOKIE, other)
        assert c.get("/api/me").status_code == 401  # the other one ended
        assert c.post("/api/session", json={"username": "frank", "password": PASSWORD}).status_code == 401
        assert c.post("/api/session", json={"username": "frank", "password": "new-Secret-77"}).status_code == 200
    with browser(c):
        assert c.post("/api/me/password", json={"password": PASSWORD, "new_password": "new-Secret-88"}).status_code == 401


# -- bad input ------------------------------------------------------------------------------------------------------

def test_duplicate_usernames_ignoring_case(c):
    assert sign_up(c, "Grace").status_code == 201
    with browser(c):
        for name in ("Grace", "grace", "GRACE", "gRaCe"):
            r = sign_up(c, name, "another-Pass-1")
            assert r.status_code == 409 and r.json()["error"] == "username_taken", name
    with browser(c):  # the taken name still logs in with its own password only
        assert c.post("/api/session", json={"username": "GRACE", "password": "another-Pass-1"}).status_code == 401


@pytest.mark.parametrize("password,why", [
    ("short1", "at least 8"), ("heidi-12345", "username"), ("aaaaaaaaaaaa", "different characters"),
    ("abababab", "different characters"), ("password123", "most common"), ("Qwertyuiop", "most common"),
])
def test_weak_passwords_are_refused(c, password, why):
    r = sign_up(c, "heidi", password)
    assert r.status_code == 422 and r.json()["error"] == "weak_password" and why in r.json()["message"]
    assert password not in r.text  # the answer never quotes the password
    assert c.get("/api/me").status_code == 401


@pytest.mark.parametrize("name", ["ab", "a" * 21, "has space", "naïve", "semi;colon", "dot.ted", "", "ivan\n"])
def test_bad_usernames_are_refused(c, name):
    r = sign_up(c, name)
    assert r.status_code in (400, 422) and r.json()["error"] in ("bad_username", "bad_request"), r.text
    if 1 <= len(name) <= 64:
        assert r.status_code == 422 and r.json()["error"] == "bad_username"


def test_oversized_and_malformed_fields_are_400(c):
    for body in ({"username": "u" * 65, "password": PASSWORD}, {"username": "judy", "password": "p" * 257},
                 {"username": "judy"}, {"username": 5, "password": PASSWORD}, {"username": "judy", "password": PASSWORD, "x": 1},
                 {"username": "judy", "password": None}):
        for url in ("/api/account", "/api/session"):
            r = c.post(url, json=body)
            assert r.status_code == 400 and r.json()["error"] == "bad_request", (url, body, r.text)
    r = c.post("/api/account", content=b'{"username": "judy", "password": "' + b"p" * (2 * 1024 * 1024) + b'"}',
               headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert c.post("/api/account", json={"username": "judy", "password": "pass-Word" * 28 + "abcd"}).status_code == 201  # the longest: 256


def test_sign_up_from_another_site_is_refused(c):
    r = c.post("/api/account", json={"username": "mallory", "password": PASSWORD}, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["error"] == "cross_site"
    r = c.post("/api/session", json={"username": "mallory", "password": PASSWORD}, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403


# -- brute force ----------------------------------------------------------------------------------------------------

def test_failed_logins_for_one_username_are_slowed_down(tmp_path):
    with make_client(tmp_path, login_user_rate="3/hour", login_address_rate="100/hour") as c:
        sign_up(c, "kate")
        c.delete("/api/session")
        for _ in range(3):
            assert c.post("/api/session", json={"username": "kate", "password": "guess-guess-1"}).status_code == 401
        for password in ("guess-guess-2", PASSWORD):  # now refused whatever the password, the right one too
            r = c.post("/api/session", json={"username": "KATE", "password": password})
            assert r.status_code == 429 and r.json()["error"] == "rate_limited"
            retry = int(r.headers["Retry-After"])
            assert 1 <= retry <= 3600 and r.json()["retry_after"] == retry
        assert SESSION_COOKIE not in c.cookies
        # another username from the same address is not affected
        sign_up(c, "leo")
        c.delete("/api/session")
        assert c.post("/api/session", json={"username": "leo", "password": PASSWORD}).status_code == 200


def test_failed_logins_from_one_address_are_slowed_down(tmp_path):
    with make_client(tmp_path, login_user_rate="100/hour", login_address_rate="4/hour") as c:
        sign_up(c, "mia")
        c.delete("/api/session")
        for i in range(4):  # a different name each time: only the address is counted against
            assert c.post("/api/session", json={"username": f"user{i}", "password": "guess-guess-1"}).status_code == 401
        r = c.post("/api/session", json={"username": "mia", "password": PASSWORD})
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1


def test_sign_ups_per_address_are_limited(tmp_path):
    with make_client(tmp_path, signup_rate="2/hour") as c:
        assert sign_up(c, "nina").status_code == 201
        assert sign_up(c, "oscar").status_code == 201
        r = sign_up(c, "paul")
        assert r.status_code == 429 and "Retry-After" in r.headers


# -- guest seats carried over -----------------------------------------------------------------------------------------

def test_a_guest_keeps_their_seats_when_signing_up_and_on_another_browser(c):
    r = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me", "name": "guest"}, {"kind": "invite"}]})
    gid = r.json()["id"]
    other = c.post("/api/games", json={"game": "gyges", "seats": [{"kind": "me"}, {"kind": "me"}]}).json()["id"]
    with browser(c):  # someone else's game is not touched
        stranger = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me", "name": "zed"}, {"kind": "open"}]}).json()["id"]
    assert sign_up(c, "Quinn").status_code == 201
    g = c.get(f"/api/games/{gid}").json()
    assert g["seats"][0]["name"] == "Quinn" and g["seats"][0]["account"] is True and g["seats"][1]["account"] is False
    assert [s["name"] for s in c.get(f"/api/games/{other}").json()["seats"]] == ["Quinn", "Quinn"]
    assert c.get(f"/api/games/{stranger}").json()["seats"][0]["name"] == "zed"
    profile = c.get("/api/players/quinn").json()
    assert sorted(g["id"] for g in profile["games"]) == sorted([gid, other])
    # on another browser, without the game's cookie, the account holds the seat and can play
    with browser(c):
        assert c.get(f"/api/games/{gid}").json()["my_seats"] == []
        assert c.post("/api/session", json={"username": "quinn", "password": PASSWORD}).status_code == 200
        assert f"rg_{gid}" not in c.cookies
        assert c.get(f"/api/games/{gid}").json()["my_seats"] == [0]
        r = c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0})
        assert r.status_code == 200 and r.json()["ply"] == 1
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            assert ws.receive_json()["my_seats"] == [0]
        c.delete("/api/session")
        assert c.get(f"/api/games/{gid}").json()["my_seats"] == []


def test_a_guest_logging_in_keeps_their_seats(c):
    sign_up(c, "rosa")
    c.delete("/api/session")
    gid = c.post("/api/games", json={"game": "rings", "players": 3,
                                     "seats": [{"kind": "me"}, {"kind": "computer", "level": 1}, {"kind": "open"}]}).json()["id"]
    assert c.post("/api/session", json={"username": "ROSA", "password": PASSWORD}).status_code == 200
    seats = c.get(f"/api/games/{gid}").json()["seats"]
    assert [(s["name"], s["account"]) for s in seats][:2] == [("rosa", True), ("computer (level 1)", False)]


def test_a_logged_in_player_sits_as_their_account(c):
    sign_up(c, "sam")
    r = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me", "name": "typed name"}, {"kind": "open"}]})
    gid = r.json()["id"]
    assert r.json()["seats"][0]["name"] == "sam"
    with browser(c):
        sign_up(c, "tina")
        r = c.post(f"/api/games/{gid}/join", json={"seat": 1, "name": "whatever"})
        assert r.status_code == 200 and r.json()["seats"][1]["name"] == "tina" and r.json()["my_seats"] == [1]
    assert [g["id"] for g in c.get("/api/players/tina").json()["games"]] == [gid]


# -- storage -----------------------------------------------------------------------------------------------------------

def test_no_clear_password_or_session_id_in_the_database(tmp_path):
    secret = "Uniq-Secret-Phrase-93"
    with make_client(tmp_path) as c:
        r = sign_up(c, "uma", secret)
        assert r.status_code == 201 and secret not in r.text
        c.post("/api/me/password", json={"password": secret, "new_password": secret + "x"})
        c.delete("/api/session")
        c.post("/api/session", json={"username": "uma", "password": secret + "x"})
        session = c.cookies[SESSION_COOKIE]
        raw = db_bytes(tmp_path)
        eng = create_engine(f"sqlite:///{tmp_path / 'test.sqlite3'}")
        with eng.connect() as conn:
            (stored,), = conn.execute(text("select password_hash from accounts where username_key = 'uma'")).all()
            sessions = [r[0] for r in conn.execute(text("select id_hash from sessions"))]
        eng.dispose()
    assert stored.startswith("$argon2id$v=19$")
    assert secret.encode() not in raw and (secret + "x").encode() not in raw
    session_id = session.split(".")[0]
    assert session_id.encode() not in raw and len(sessions) == 1 and len(sessions[0]) == 64


def test_the_production_hasher_is_argon2id_with_rfc_9106_costs():
    from ringgames.server.accounts import Accounts

    hasher = Accounts(None).hasher  # type: ignore[arg-type]
    assert (hasher.type.name, hasher.time_cost, hasher.memory_cost, hasher.parallelism) == ("ID", 3, 65536, 4)


def test_migration_from_0002_keeps_existing_games(tmp_path):
    url = f"sqlite:///{tmp_path / 'test.sqlite3'}"
    migrate(url, "0002")
    seats = [{"kind": "human", "name": "old-alice", "spec": None, "level": None, "token_hash": None, "invite_hash": None,
              "joined": True, "invite": False, "open": False},
             {"kind": "computer", "name": "computer (level 1)", "spec": "level:1", "level": 1, "token_hash": None,
              "joined": True, "invite": False}]
    eng = create_engine(url)
    with eng.begin() as conn:
        for i, status in enumerate(("live", "finished")):
            conn.execute(text("insert into games (id, game, variant, players, seats, status, source, start, tags, draw_offers,"
                              " result, ply, created, updated) values (:id, 'yinsh', 'standard', 2, :seats, :status, 'play', null,"
                              " '{}', '[]', 'none', 2, '2026-12-01 00:00:00', '2026-12-01 00:00:00')"),
                         {"id": f"00000000000{i}", "seats": json.dumps(seats), "status": status})
            for ply, (action, txt, seat) in enumerate([(0, "e5", 0), (1, "f6", 1)]):
                conn.execute(text("insert into moves (game_id, ply, action, text, seat, created) values (:g, :p, :a, :t, :s,"
                                  " '2026-12-01 00:00:00')"), {"g": f"00000000000{i}", "p": ply, "a": action, "t": txt, "s": seat})
        conn.execute(text("insert into chat (game_id, name, text, created) values ('000000000000', 'old-alice', 'hi',"
                          " '2026-12-01 00:00:00')"))
    with TestClient(create_app(url, ai_workers=1, ai_delay=0, password_hasher=cheap_hasher())) as c:
        for i in range(2):
            g = c.get(f"/api/games/00000000000{i}").json()
            assert g["ply"] == 2 and g["moves"][0]["text"] and g["rated"] is False and g["seats"][0]["name"] == "old-alice"
        assert c.get("/api/games/000000000000/chat").json()["chat"] == [{"name": "old-alice", "text": "hi"}]
        assert {g["id"] for g in c.get("/api/games").json()["games"]} == {"000000000000", "000000000001"}
        assert sign_up(c, "vera").status_code == 201  # the new tables work
    with eng.connect() as conn:
        assert conn.execute(text("select version_num from alembic_version")).scalar() == "0006"  # migrated to the head (0003 accounts, 0004 clocks, 0005 puzzles, 0006 presence)
        assert conn.execute(text("select count(*) from moves")).scalar() == 4
        assert conn.execute(text("select count(*) from site_keys where name = 'session'")).scalar() == 1
        assert conn.execute(text("select rated from games")).scalars().all() == [0, 0]
    eng.dispose()


def test_an_expired_session_is_refused(tmp_path):
    with make_client(tmp_path) as c:
        sign_up(c, "wes")
        eng = create_engine(f"sqlite:///{tmp_path / 'test.sqlite3'}")
        with eng.begin() as conn:
            conn.execute(text("update sessions set expires = '2020-01-01 00:00:00'"))
        eng.dispose()
        assert c.get("/api/me").status_code == 401


def test_logging_out_from_another_site_is_refused(c):
    sign_up(c, "xena")
    r = c.delete("/api/session", headers={"Origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["error"] == "cross_site"
    assert c.get("/api/me").json()["username"] == "xena"


def test_a_hash_with_older_parameters_is_replaced_at_login(tmp_path):
    from argon2 import PasswordHasher

    url = f"sqlite:///{tmp_path / 'test.sqlite3'}"

    def stored() -> str:
        eng = create_engine(url)
        with eng.connect() as conn:
            value = conn.execute(text("select password_hash from accounts")).scalar()
        eng.dispose()
        return value

    with TestClient(create_app(url, ai_workers=1, ai_delay=0, password_hasher=cheap_hasher())) as c:
        sign_up(c, "yuri")
    old = stored()
    assert "m=1024,t=1,p=1" in old
    stronger = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1)
    with TestClient(create_app(url, ai_workers=1, ai_delay=0, password_hasher=stronger)) as c:
        assert c.post("/api/session", json={"username": "yuri", "password": PASSWORD}).status_code == 200
    assert "m=2048,t=2,p=1" in stored()


# -- my games ---------------------------------------------------------------------------------------------------------

def my_turn_badge(c: TestClient) -> str:
    import re

    m = re.search(r'id="my-turn-count"[^>]*>(\d+)<', c.get("/").text)
    assert m, "no my-games count in the header"
    return m.group(1)


def test_my_games_put_the_games_awaiting_my_move_first(c):
    sign_up(c, "zoe")
    with browser(c):
        sign_up(c, "abe")
        abe = httpx.Cookies(c.cookies)
    r = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "invite"}]})
    gid, invite = r.json()["id"], r.json()["invites"]["1"].split("token=")[1]
    waiting = c.post("/api/games", json={"game": "rings", "players": 3, "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}]}).json()["id"]
    done = c.post("/api/games", json={"game": "gyges", "seats": [{"kind": "me"}, {"kind": "computer", "level": 0}]}).json()["id"]
    c.post(f"/api/games/{done}/resign", json={})
    zoe = httpx.Cookies(c.cookies)
    c.cookies = abe
    assert c.post(f"/api/games/{gid}/join", json={"seat": 1, "token": invite}).status_code == 200
    assert c.get("/api/me/games").json()["live"][0]["id"] == gid and my_turn_badge(c) == "0"
    c.cookies = zoe
    mine = c.get("/api/me/games").json()
    assert [g["id"] for g in mine["my_turn"]] == [gid] and my_turn_badge(c) == "1"
    assert [g["id"] for g in mine["live"]] == [waiting] and [g["id"] for g in mine["finished"]] == [done]
    assert mine["my_turn"][0]["names"] == ["zoe", "abe"] and mine["my_turn"][0]["to_move"] == 0
    assert c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}).status_code == 200
    assert c.get("/api/me/games").json()["my_turn"] == [] and my_turn_badge(c) == "0"
    c.cookies = abe
    assert [g["id"] for g in c.get("/api/me/games").json()["my_turn"]] == [gid] and my_turn_badge(c) == "1"
    assert "my-games" in c.get("/my-games").text
    with browser(c):
        assert c.get("/api/me/games").status_code == 401 and 'id="my-turn-count"' not in c.get("/").text


def test_logging_in_again_ends_the_browsers_previous_session(c):
    sign_up(c, "bea")
    first = c.cookies[SESSION_COOKIE]
    assert sign_up(c, "cid").status_code == 201  # a second account signed up in the same browser
    assert c.get("/api/me").json()["username"] == "cid"
    with browser(c):
        c.cookies.set(SESSION_COOKIE, first)
        assert c.get("/api/me").status_code == 401
    second = c.cookies[SESSION_COOKIE]
    assert c.post("/api/session", json={"username": "bea", "password": PASSWORD}).json()["username"] == "bea"
    with browser(c):
        c.cookies.set(SESSION_COOKIE, second)
        assert c.get("/api/me").status_code == 401


def test_the_profile_keeps_the_language_choice(c):
    sign_up(c, "dora")
    assert 'lang="cs"' in c.get("/?lang=cs").text
    with browser(c):  # another browser, with neither the cookie nor Accept-Language: the profile's choice
        assert 'lang="en"' in c.get("/").text
        c.post("/api/session", json={"username": "dora", "password": PASSWORD})
        assert 'lang="cs"' in c.get("/", headers={"Accept-Language": "ru"}).text
        assert 'lang="ru"' in c.get("/archive?lang=ru").text  # a new choice replaces it
    c.cookies.pop("rg_lang", None)
    assert 'lang="ru"' in c.get("/").text
    c.delete("/api/session")
    assert 'lang="en"' in c.get("/").text  # logged out: back to cookie / Accept-Language / English
