"""Seeks: post, list, accept (the game starts with both accounts seated, rated when asked), RINGS waiting until
every seat is taken, rating ranges, quick pairing, withdrawing, expiry, and who may do what."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from ringgames.server.accounts import cheap_hasher
from ringgames.server.app import create_app

from .conftest import wait_for
from .test_ratings import Players


@pytest.fixture()
def c(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'test.sqlite3'}", ai_workers=1, ai_delay=0, password_hasher=cheap_hasher())
    with TestClient(app) as client:
        yield client


@pytest.fixture()
def p(c):
    players = Players(c)
    players.sign_up("amy", "ben", "cal", "dee")
    return players


def test_a_seek_accepted_starts_a_rated_game_with_both_accounts(p):
    with p.as_("amy") as c:
        r = c.post("/api/seeks", json={"game": "yinsh", "rated": True})
        assert r.status_code == 201 and r.json()["game_id"] is None
        seek = r.json()["seek"]
        assert (seek["owner"], seek["rating"], seek["provisional"], seek["players"]) == ("amy", 1500.0, True, 2)
    with p.as_("ben") as c:
        assert [s["id"] for s in c.get("/api/seeks").json()["seeks"]] == [seek["id"]]
        r = c.post(f"/api/seeks/{seek['id']}/accept")
        assert r.status_code == 200, r.text
        gid = r.json()["game_id"]
        g = c.get(f"/api/games/{gid}").json()
        assert g["rated"] is True and sorted(s["name"] for s in g["seats"]) == ["amy", "ben"]
        assert all(s["account"] for s in g["seats"]) and len(g["my_seats"]) == 1
        assert c.get("/api/seeks").json()["seeks"] == []  # taken: gone from the lobby
        assert c.post(f"/api/seeks/{seek['id']}/accept").status_code == 404
    with p.as_("amy") as c:  # the owner finds the game in "my games" and holds her seat through her account
        mine = c.get("/api/me/games").json()
        assert gid in [x["id"] for x in mine["my_turn"] + mine["live"]]
        assert c.get(f"/api/games/{gid}").json()["my_seats"] == [[s["name"] for s in g["seats"]].index("amy")]


def test_a_rings_seek_waits_for_every_seat(p):
    with p.as_("amy") as c:
        sid = c.post("/api/seeks", json={"game": "rings", "players": 4}).json()["seek"]["id"]
    for name, started in (("ben", False), ("cal", False), ("dee", True)):
        with p.as_(name) as c:
            r = c.post(f"/api/seeks/{sid}/accept").json()
            assert (r["game_id"] is not None) is started, name
    g = c.get(f"/api/games/{r['game_id']}").json()
    assert g["players"] == 4 and sorted(s["name"] for s in g["seats"]) == ["amy", "ben", "cal", "dee"] and g["rated"] is False
    assert r["seek"]["joined"] == ["ben", "cal", "dee"]


def test_rating_ranges_and_quick_pairing(p):
    with p.as_("amy") as c:
        high = c.post("/api/seeks", json={"game": "gyges", "rating_min": 1600}).json()["seek"]["id"]
    with p.as_("ben") as c:
        r = c.post(f"/api/seeks/{high}/accept")
        assert r.status_code == 409 and r.json()["error"] == "out_of_range"
        # quick pairing finds no compatible seek (ben's 1500 is below amy's 1600): ben's own seek is posted
        r = c.post("/api/seeks", json={"game": "gyges", "quick": True})
        assert r.status_code == 201 and r.json()["game_id"] is None and r.json()["seek"]["owner"] == "ben"
    with p.as_("cal") as c:  # cal's quick pairing meets ben's seek (the oldest compatible), not amy's
        r = c.post("/api/seeks", json={"game": "gyges", "quick": True})
        assert r.json()["game_id"] is not None and r.json()["seek"]["owner"] == "ben"
        # a quick seek for another variant does not pair with amy's
        r = c.post("/api/seeks", json={"game": "gyges", "variant": "beginner", "quick": True})
        assert r.json()["game_id"] is None
    with p.as_("dee") as c:
        assert c.post("/api/seeks", json={"game": "gyges", "quick": True, "rating_max": 1400}).json()["game_id"] is None


def test_withdraw_keep_expire_and_who_may(p, tmp_path):
    with p.as_("amy") as c:
        sid = c.post("/api/seeks", json={"game": "yinsh"}).json()["seek"]["id"]
        assert c.post(f"/api/seeks/{sid}/accept").json()["error"] == "already_seated"
        sid2 = c.post("/api/seeks", json={"game": "yinsh", "variant": "blitz"}).json()["seek"]["id"]
        assert c.delete(f"/api/seeks/{sid}").status_code == 200
        assert [s["id"] for s in c.get("/api/seeks").json()["seeks"]] == [sid2]
    with p.as_("ben") as c:
        assert c.delete(f"/api/seeks/{sid2}").status_code == 403
        assert c.post(f"/api/seeks/{sid2}/keep").status_code == 403
    with p.as_("guest") as c:
        assert c.post("/api/seeks", json={"game": "yinsh"}).status_code == 401
        assert c.post(f"/api/seeks/{sid2}/accept").json()["error"] == "login_required"
        assert c.get("/api/seeks").status_code == 200
    with p.as_("amy") as c:
        before = c.get("/api/seeks").json()["seeks"][0]["expires"]
        assert c.post(f"/api/seeks/{sid2}/keep").json()["expires"] >= before
        eng = create_engine(f"sqlite:///{tmp_path / 'test.sqlite3'}")
        with eng.begin() as conn:  # the owner left: nobody keeps the seek alive
            conn.execute(text("update seeks set expires = :t"), {"t": datetime.now(UTC) - timedelta(seconds=1)})
        eng.dispose()
        assert c.get("/api/seeks").json()["seeks"] == []
        assert c.post(f"/api/seeks/{sid2}/keep").status_code == 404
        sid3 = c.post("/api/seeks", json={"game": "rings", "players": 3}).json()["seek"]["id"]
        assert c.delete(f"/api/seeks/{sid3}").status_code == 200 and c.get("/api/seeks").json()["seeks"] == []
        r = c.post("/api/seeks", json={"game": "rings", "players": 9})
        assert r.status_code == 422 and r.json()["error"] == "bad_game"
        r = c.post("/api/seeks", json={"game": "yinsh", "rating_min": 1800, "rating_max": 1200})
        assert r.status_code == 422 and r.json()["error"] == "bad_range"


def test_several_seeks_per_player(p):
    """Up to three open seeks of different kinds; the same kind again replaces the old one; a fourth is refused; each
    can be withdrawn or accepted on its own, and the others stay open."""
    with p.as_("amy") as c:
        ids = [c.post("/api/seeks", json=body).json()["seek"]["id"] for body in (
            {"game": "yinsh"}, {"game": "gyges", "rated": True}, {"game": "rings", "players": 3})]
        listed = c.get("/api/seeks").json()["seeks"]
        assert [s["id"] for s in listed] == ids and {s["owner"] for s in listed} == {"amy"}
        r = c.post("/api/seeks", json={"game": "yinsh", "variant": "blitz"})
        assert r.status_code == 409 and r.json()["error"] == "too_many_seeks" and "at most 3" in r.json()["message"]
        # the same kind again replaces the open one (a new id, a new range), without counting as a fourth
        r = c.post("/api/seeks", json={"game": "gyges", "rated": True, "rating_max": 1700})
        assert r.status_code == 201, r.text
        ids[1] = r.json()["seek"]["id"]
        assert [(s["id"], s["rating_max"]) for s in c.get("/api/seeks").json()["seeks"]] == [(ids[0], None), (ids[2], None), (ids[1], 1700)]
        assert c.delete(f"/api/seeks/{ids[2]}").status_code == 200  # withdrawn: room for another
        ids[2] = c.post("/api/seeks", json={"game": "yinsh", "variant": "blitz"}).json()["seek"]["id"]
        for sid in ids:
            assert c.post(f"/api/seeks/{sid}/keep").status_code == 200  # each is kept alive on its own
    with p.as_("ben") as c:
        gid = c.post(f"/api/seeks/{ids[1]}/accept").json()["game_id"]
        assert gid is not None and c.get(f"/api/games/{gid}").json()["game"] == "gyges"
        assert sorted(s["id"] for s in c.get("/api/seeks").json()["seeks"]) == sorted([ids[0], ids[2]])
    with p.as_("amy") as c:
        assert c.get(f"/api/seeks/{ids[1]}").json()["game_id"] == gid  # the lobby learns the game from its seek
        assert c.post("/api/seeks", json={"game": "gyges"}).status_code == 201  # a started seek is no longer open


def test_play_again_after_a_rated_seek_game_is_rated_with_the_colours_swapped(p):
    """Seats of a seek's game are held by accounts only (no seat token): play again keeps the other account's seat
    for that account, rotated, and the new game is rated."""
    with p.as_("amy") as c:
        sid = c.post("/api/seeks", json={"game": "yinsh", "rated": True}).json()["seek"]["id"]
    with p.as_("ben") as c:
        gid = c.post(f"/api/seeks/{sid}/accept").json()["game_id"]
        g = c.get(f"/api/games/{gid}").json()
        names = [s["name"] for s in g["seats"]]
        assert c.post(f"/api/games/{gid}/resign", json={}).status_code == 200
        r = c.post(f"/api/games/{gid}/rematch")
        assert r.status_code == 201, r.text
        n = r.json()
        assert n["rated"] is True and [s["name"] for s in n["seats"]] == names[::-1]
        assert n["my_seats"] == [1 - names.index("ben")] and n["status"] == "open" and n["invites"] == {}
        # ben cannot take amy's seat
        r = c.post(f"/api/games/{n['id']}/join", json={"seat": names.index("ben")})
        assert r.status_code == 409 and r.json()["error"] == "already_seated"
    with p.as_("cal") as c:  # nor can anybody else
        r = c.post(f"/api/games/{n['id']}/join", json={"seat": names.index("ben")})
        assert r.status_code == 403 and r.json()["error"] == "seat_reserved"
        assert c.post(f"/api/games/{gid}/rematch").status_code == 403
    with p.as_("amy") as c:
        r = c.post(f"/api/games/{gid}/rematch")
        assert r.status_code == 201, r.text
        m = r.json()
        assert m["id"] == n["id"] and m["my_seats"] == [1 - names.index("amy")] and m["status"] == "live"
        assert [s["account"] is not None for s in m["seats"]] == [True, True]


def test_players_seated_by_their_account_take_back_and_claim_over_http(p):
    """A seek's game seats accounts without seat tokens: takeback and claim over HTTP find the seats by the login."""
    with p.as_("amy") as c:
        sid = c.post("/api/seeks", json={"game": "yinsh"}).json()["seek"]["id"]
    with p.as_("ben") as c:
        gid = c.post(f"/api/seeks/{sid}/accept").json()["game_id"]
        g = c.get(f"/api/games/{gid}").json()
        first = g["seats"][0]["name"]
    with p.as_(first) as c:
        assert c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}).status_code == 200
        r = c.post(f"/api/games/{gid}/takeback", json={"what": "ask"})
        assert r.status_code == 200 and r.json()["takeback"] == {"seat": 0, "ply": 1, "accepted": [0]}, r.text
        r = c.post(f"/api/games/{gid}/claim")  # the other seat to move has not been away long enough: not 403
        assert (r.status_code, r.json()["error"]) == (409, "not_claimable"), r.text


def test_the_computer_grants_no_takeback_in_a_rated_game(p):
    with p.as_("amy") as c:
        d = c.post("/api/games", json={"game": "yinsh", "rated": True,
                                       "seats": [{"kind": "me"}, {"kind": "computer", "level": 0}]}).json()
        gid = d["id"]
        assert c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}).status_code == 200
        r = c.post(f"/api/games/{gid}/takeback", json={"what": "ask"})
        assert (r.status_code, r.json()["error"]) == (409, "takeback_rated"), r.text
        assert c.get(f"/api/games/{gid}").json()["ply"] >= 1  # nothing was undone
        d = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "computer", "level": 0}]}).json()
        assert c.post(f"/api/games/{d['id']}/actions", json={"action": "e5", "ply": 0}).status_code == 200
        wait_for(lambda: c.get(f"/api/games/{d['id']}").json()["ply"] == 2)
        assert c.post(f"/api/games/{d['id']}/takeback", json={"what": "ask"}).json()["ply"] == 0  # casual: granted
