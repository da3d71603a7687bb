"""Rated games: ratings after a decisive game, a draw and a 4-player RINGS game with a shared win equal what
openskill computes for those results; computer levels keep their fixed ratings; unrated and abandoned games change
nothing; who may create and join rated games; profiles and leaderboards."""

from __future__ import annotations

import math
from contextlib import contextmanager

import httpx
import pytest
from fastapi.testclient import TestClient
from openskill.models import BradleyTerryFull, PlackettLuce

from ringgames.server import ratings
from ringgames.server.accounts import cheap_hasher
from ringgames.server.app import create_app

from .conftest import wait_for

PASSWORD = "ring-Stones-42"
#: the documented model (docs/accounts.md), written out here so that a change of parameters fails a test
MODEL = BradleyTerryFull(mu=1500, sigma=350, beta=400 / (math.log(10) * math.sqrt(2)), tau=3.5)


class Players:
    """Several logged-in browsers on one test client: each name has its own cookie jar."""

    def __init__(self, c: TestClient):
        self.c, self.jars = c, {}

    @contextmanager
    def as_(self, name: str):
        saved = httpx.Cookies(self.c.cookies)
        self.c.cookies = self.jars.setdefault(name, httpx.Cookies())
        try:
            yield self.c
        finally:
            self.jars[name] = httpx.Cookies(self.c.cookies)
            self.c.cookies = saved

    def sign_up(self, *names: str) -> None:
        for name in names:
            with self.as_(name) as c:
                assert c.post("/api/account", json={"username": name, "password": PASSWORD}).status_code == 201


@pytest.fixture()
def c(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'test.sqlite3'}", ai_workers=1, ai_delay=0, password_hasher=cheap_hasher())
    with TestClient(app) as client:
        yield client


@pytest.fixture()
def p(c):
    return Players(c)


def rating(c: TestClient, name: str, key: str) -> dict | None:
    return c.get(f"/api/players/{name}").json()["ratings"].get(key)


def rated_duel(p: Players, a: str, b: str, game: str = "yinsh", variant: str | None = None) -> str:
    """A rated game: ``a`` creates it (seat 0), ``b`` joins through the invite link (seat 1)."""
    with p.as_(a) as c:
        r = c.post("/api/games", json={"game": game, "variant": variant, "rated": True, "seats": [{"kind": "me"}, {"kind": "invite"}]})
        assert r.status_code == 201, r.text
        gid, invite = r.json()["id"], r.json()["invites"]["1"].split("token=")[1]
        assert r.json()["rated"] is True
    with p.as_(b) as c:
        r = c.post(f"/api/games/{gid}/join", json={"seat": 1, "token": invite})
        assert r.status_code == 200 and r.json()["seats"][1]["name"] == b
    return gid


def move(p: Players, name: str, gid: str, action: str, ply: int) -> dict:
    with p.as_(name) as c:
        r = c.post(f"/api/games/{gid}/actions", json={"action": action, "ply": ply})
        assert r.status_code == 200, r.text
        return r.json()


def check(got: dict, expected, games: int) -> None:
    assert got["rating"] == pytest.approx(expected.mu, rel=1e-12)
    assert got["deviation"] == pytest.approx(expected.sigma, rel=1e-12)
    assert got["games"] == games


def test_a_decisive_game_then_a_draw(p):
    p.sign_up("alice", "bob")
    gid = rated_duel(p, "alice", "bob")
    move(p, "alice", gid, "e5", 0)
    move(p, "bob", gid, "f6", 1)
    with p.as_("alice") as c:
        assert c.post(f"/api/games/{gid}/resign", json={}).json()["result"] == "black"
    a0, b0 = MODEL.rating(), MODEL.rating()
    [[a1], [b1]] = MODEL.rate([[a0], [b0]], ranks=[2, 1])  # resignation: a loss
    with p.as_("bob") as c:
        check(rating(c, "alice", "yinsh"), a1, 1)
        check(rating(c, "bob", "yinsh"), b1, 1)
        assert b1.mu > 1500 > a1.mu
        prof = c.get("/api/players/bob").json()
        assert prof["ratings"]["yinsh"]["provisional"] is True
        assert [(h["game_id"], h["before"]) for h in prof["history"]] == [(gid, 1500.0)]
        assert prof["games"][0]["id"] == gid and prof["games"][0]["rated"] is True
        board = c.get("/api/leaderboard/yinsh").json()
        assert [(x["username"], x["games"]) for x in board["players"]] == [("bob", 1), ("alice", 1)]
        assert c.get("/api/leaderboard/yinsh-blitz").json()["players"] == []

    # a draw between the same players, from their new ratings
    gid2 = rated_duel(p, "bob", "alice")
    move(p, "bob", gid2, "e5", 0)
    move(p, "alice", gid2, "f6", 1)
    with p.as_("bob") as c:
        c.post(f"/api/games/{gid2}/draw", json={"what": "offer"})
    with p.as_("alice") as c:
        assert c.post(f"/api/games/{gid2}/draw", json={"what": "accept"}).json()["result"] == "draw"
    [[b2], [a2]] = MODEL.rate([[MODEL.rating(mu=b1.mu, sigma=b1.sigma)], [MODEL.rating(mu=a1.mu, sigma=a1.sigma)]], ranks=[1, 1])
    with p.as_("alice") as c:
        check(rating(c, "alice", "yinsh"), a2, 2)
        check(rating(c, "bob", "yinsh"), b2, 2)
        assert a2.mu > a1.mu and b2.mu < b1.mu  # a draw with a stronger-rated player gains
        hist = c.get("/api/players/alice").json()["history"]
        assert [h["game_id"] for h in hist] == [gid, gid2] and hist[1]["before"] == pytest.approx(a1.mu)


def test_variants_have_their_own_ratings(p):
    p.sign_up("carl", "dora")
    gid = rated_duel(p, "carl", "dora", variant="blitz")
    move(p, "carl", gid, "e5", 0)
    move(p, "dora", gid, "f6", 1)
    with p.as_("dora") as c:
        c.post(f"/api/games/{gid}/resign", json={})
        assert set(c.get("/api/players/carl").json()["ratings"]) == {"yinsh-blitz"}
        assert c.get("/api/me").json()["ratings"]["yinsh-blitz"]["games"] == 1


RINGS_PLAN = [["L1", "M1", "N2", "K2"], ["A13", "X11", "F4", "S4"], ["L11", "M11", "N12", "K12"], ["L23", "B12", "W12", "Q3"]]


def test_four_player_rings_with_a_shared_win(p):
    names = ["ann", "ben", "cat", "dan"]
    p.sign_up(*names)
    with p.as_("ann") as c:
        r = c.post("/api/games", json={"game": "rings", "players": 4, "rated": True,
                                       "seats": [{"kind": "me"}] + [{"kind": "open"}] * 3})
        gid = r.json()["id"]
    for i, name in enumerate(names[1:], 1):
        with p.as_(name) as c:
            assert c.post(f"/api/games/{gid}/join", json={"seat": i}).status_code == 200
    ply = 0
    for turn in range(4):  # ann and cat fill a circle each (4 stones: majority), ben and dan scatter theirs
        for seat, name in enumerate(names):
            move(p, name, gid, RINGS_PLAN[seat][turn], ply)
            ply += 1
    with p.as_("ben") as c:
        assert c.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    ply += 1
    for name in ("ann", "cat", "dan"):
        g = move(p, name, gid, "pass", ply)
        ply += 1
    assert g["winners"] == [0, 2] and g["summary"]["scores"] == [1, 0, 1, 0] and g["reason"] == "passes"
    # ann and cat share the win; dan (still in, score 0) next; ben resigned: last
    assert ratings.ranks("rings", [0, 2], 4, "passes", g["summary"], [1]) == [1, 3, 1, 2]
    expected = MODEL.rate([[MODEL.rating()] for _ in names], ranks=[1, 3, 1, 2])
    with p.as_("ann") as c:
        for name, (exp,) in zip(names, expected, strict=True):
            check(rating(c, name, "rings"), exp, 1)
        assert rating(c, "ann", "rings")["rating"] == pytest.approx(rating(c, "cat", "rings")["rating"])
        board = [x["username"] for x in c.get("/api/leaderboard/rings").json()["players"]]
        assert board[2:] == ["dan", "ben"] and set(board[:2]) == {"ann", "cat"}


def test_a_game_against_the_computer_moves_only_the_player(p):
    p.sign_up("eve")
    with p.as_("eve") as c:
        before = c.get("/api/leaderboard/yinsh").json()["computers"]
        assert [x["rating"] for x in before] == [600, 689, 1070, 1854, 2039, 2253]
        r = c.post("/api/games", json={"game": "yinsh", "rated": True, "seats": [{"kind": "me"}, {"kind": "computer", "level": 2}]})
        gid = r.json()["id"]
        c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0})
        wait_for(lambda: c.get(f"/api/games/{gid}").json()["ply"] >= 2)
        assert c.post(f"/api/games/{gid}/resign", json={}).json()["status"] == "finished"
        [[eve], _] = MODEL.rate([[MODEL.rating()], [MODEL.rating(mu=1070, sigma=50)]], ranks=[2, 1])
        check(rating(c, "eve", "yinsh"), eve, 1)
        assert c.get("/api/leaderboard/yinsh").json()["computers"] == before
        assert [x["username"] for x in c.get("/api/leaderboard/yinsh").json()["players"]] == ["eve"]
        # a second game: the computer's rating is the same fixed number again
        gid = c.post("/api/games", json={"game": "yinsh", "rated": True,
                                         "seats": [{"kind": "me"}, {"kind": "computer", "level": 2}]}).json()["id"]
        c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0})
        wait_for(lambda: c.get(f"/api/games/{gid}").json()["ply"] >= 2)
        c.post(f"/api/games/{gid}/resign", json={})
        [[eve2], _] = MODEL.rate([[MODEL.rating(mu=eve.mu, sigma=eve.sigma)], [MODEL.rating(mu=1070, sigma=50)]], ranks=[2, 1])
        check(rating(c, "eve", "yinsh"), eve2, 2)


def test_unrated_and_abandoned_games_change_no_rating(p):
    p.sign_up("fay", "gus")
    # a casual game between two accounts
    with p.as_("fay") as c:
        r = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "invite"}]})
        gid, invite = r.json()["id"], r.json()["invites"]["1"].split("token=")[1]
        assert r.json()["rated"] is False
    with p.as_("gus") as c:
        c.post(f"/api/games/{gid}/join", json={"seat": 1, "token": invite})
    move(p, "fay", gid, "e5", 0)
    move(p, "gus", gid, "f6", 1)
    with p.as_("fay") as c:
        assert c.post(f"/api/games/{gid}/resign", json={}).json()["status"] == "finished"
    # a rated game that gus resigns before he has made a move: abandoned, not counted
    gid2 = rated_duel(p, "fay", "gus")
    move(p, "fay", gid2, "e5", 0)
    with p.as_("gus") as c:
        assert c.post(f"/api/games/{gid2}/resign", json={}).json()["status"] == "finished"
        for name in ("fay", "gus"):
            prof = c.get(f"/api/players/{name}").json()
            assert prof["ratings"] == {} and prof["history"] == [] and {g["id"] for g in prof["games"]} == {gid, gid2}
        assert c.get("/api/leaderboard/yinsh").json()["players"] == []


def test_who_may_create_and_join_rated_games(p):
    p.sign_up("hal", "ivy")
    with p.as_("guest") as c:  # not logged in
        r = c.post("/api/games", json={"game": "yinsh", "rated": True, "seats": [{"kind": "me"}, {"kind": "computer", "level": 1}]})
        assert r.status_code == 401 and r.json()["error"] == "login_required"
    with p.as_("hal") as c:
        r = c.post("/api/games", json={"game": "yinsh", "rated": True, "seats": [{"kind": "me"}, {"kind": "me"}]})
        assert r.status_code == 422 and r.json()["error"] == "bad_seats"
        r = c.post("/api/games", json={"game": "yinsh", "rated": True,
                                       "seats": [{"kind": "computer", "level": 1}, {"kind": "computer", "level": 2}]})
        assert r.status_code == 422 and "computers only" in r.json()["message"]
        r = c.post("/api/games", json={"game": "rings", "players": 3, "rated": True,
                                       "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}]})
        gid = r.json()["id"]
        r = c.post(f"/api/games/{gid}/join", json={"seat": 1})
        assert r.status_code == 409 and r.json()["error"] == "already_seated"
    with p.as_("guest") as c:
        r = c.post(f"/api/games/{gid}/join", json={"seat": 1, "name": "anon"})
        assert r.status_code == 401 and r.json()["error"] == "login_required"
    with p.as_("ivy") as c:
        assert c.post(f"/api/games/{gid}/join", json={"seat": 1}).status_code == 200


def test_unknown_players_and_rating_lists(c):
    assert c.get("/api/players/nobody").status_code == 404 and c.get("/api/players/nobody").json()["error"] == "unknown_player"
    assert c.get("/api/leaderboard/chess").status_code == 404
    board = c.get("/api/leaderboard/gyges-beginner").json()
    assert board["key"] == "gyges-beginner" and [x["rating"] for x in board["computers"]] == [600, 1000, 1400, 1908, 2158, 2344]
    assert [x["rating"] for x in c.get("/api/leaderboard/rings").json()["computers"]] == [600, 628, 1028, 1681, 1865, 2016]


@pytest.mark.parametrize("game,winners,n,reason,scores,resigned,expected", [
    ("yinsh", [1], 2, "rings", None, [], [2, 1]),
    ("gyges", [0], 2, "resign", None, [1], [1, 2]),
    ("yinsh", [], 2, "agreement", None, [], [1, 1]),
    ("gyges", [0, 1], 2, "repetition", None, [], [1, 1]),
    ("rings", [0, 2], 4, "passes", [3, 1, 3, 2], [], [1, 3, 1, 2]),
    ("rings", [3], 4, "passes", [1, 2, 2, 5], [], [3, 2, 2, 1]),
    ("rings", [2], 3, "resign", [0, 0, 0], [0, 1], [2, 2, 1]),
    ("rings", [0, 1, 2, 3, 4], 5, "agreement", [0] * 5, [], [1] * 5),
])
def test_results_become_ranks(game, winners, n, reason, scores, resigned, expected):
    assert ratings.ranks(game, winners, n, reason, {"scores": scores} if scores else {}, resigned) == expected


def test_rating_keys_and_the_provisional_marker():
    assert [ratings.rating_key(g, v) for g, v in [("yinsh", "standard"), ("yinsh", "blitz"), ("gyges", "standard"),
                                                   ("gyges", "beginner"), ("rings", "standard")]] == list(ratings.KEYS)
    assert ratings.provisional(9, 100) and ratings.provisional(30, 201) and not ratings.provisional(10, 200)


def test_why_bradley_terry_full_and_not_plackett_luce():
    """With two players the two models agree; with ties among several, openskill's Plackett-Luce (6.2) gives the
    player ranked below two tied winners the winners' rating, Bradley-Terry (full pairing) ranks them apart."""
    pl = PlackettLuce(mu=1500, sigma=350, beta=ratings.BETA, tau=ratings.TAU)
    bt = ratings.model()
    a, b = bt.rating(mu=1650, sigma=200), bt.rating(mu=1500, sigma=320)
    for rk in ([1, 2], [2, 1], [1, 1]):
        x = pl.rate([[pl.rating(mu=a.mu, sigma=a.sigma)], [pl.rating(mu=b.mu, sigma=b.sigma)]], ranks=rk)
        y = bt.rate([[a], [b]], ranks=rk)
        assert [t[0].mu for t in x] == pytest.approx([t[0].mu for t in y]) and [t[0].sigma for t in x] == pytest.approx([t[0].sigma for t in y])
    four = [1, 3, 1, 2]
    mus = [t[0].mu for t in bt.rate([[bt.rating()] for _ in four], ranks=four)]
    assert mus[0] == mus[2] > mus[3] > mus[1]


def test_a_rated_game_that_ended_before_a_restart_is_rated_at_start(tmp_path):
    """The ratings are written after the last move's commit; if the server stops in between, the next start
    rates the game (once: ``rated_at`` marks it)."""
    from sqlalchemy import create_engine, text

    url = f"sqlite:///{tmp_path / 'test.sqlite3'}"
    with TestClient(create_app(url, ai_workers=1, ai_delay=0, password_hasher=cheap_hasher())) as c:
        p = Players(c)
        p.sign_up("kim", "lou")
        gid = rated_duel(p, "kim", "lou")
        move(p, "kim", gid, "e5", 0)
        move(p, "lou", gid, "f6", 1)
        with p.as_("lou") as cl:
            cl.post(f"/api/games/{gid}/resign", json={})
            first = rating(cl, "kim", "yinsh")
    eng = create_engine(url)
    with eng.begin() as conn:  # as if the server had died between the move and the ratings
        conn.execute(text("update games set rated_at = null"))
        conn.execute(text("delete from ratings"))
        conn.execute(text("delete from rating_history"))
    for _ in range(2):  # rated at the first start, and not again at the second
        with TestClient(create_app(url, ai_workers=1, ai_delay=0, password_hasher=cheap_hasher())) as c:
            assert rating(c, "kim", "yinsh") == first
    with eng.connect() as conn:
        assert conn.execute(text("select count(*) from rating_history")).scalar() == 2
    eng.dispose()


def test_the_player_game_list_filters_and_pages(p, monkeypatch):
    from ringgames.server import api

    p.sign_up("pam", "rex", "sue")
    casual = []
    for friend, end in (("rex", "friend_resigns"), ("sue", "draw")):
        with p.as_("pam") as c:
            r = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "invite"}]})
            gid, invite = r.json()["id"], r.json()["invites"]["1"].split("token=")[1]
        with p.as_(friend) as c:
            c.post(f"/api/games/{gid}/join", json={"seat": 1, "token": invite})
            if end == "friend_resigns":
                c.post(f"/api/games/{gid}/resign", json={})
            else:
                c.post(f"/api/games/{gid}/draw", json={"what": "offer"})
        if end == "draw":
            with p.as_("pam") as c:
                assert c.post(f"/api/games/{gid}/draw", json={"what": "accept"}).json()["result"] == "draw"
        casual.append(gid)
    with p.as_("pam") as c:
        lost = c.post("/api/games", json={"game": "gyges", "seats": [{"kind": "me"}, {"kind": "computer", "level": 0}]}).json()["id"]
        c.post(f"/api/games/{lost}/resign", json={})
        live = c.post("/api/games", json={"game": "rings", "players": 3,
                                          "seats": [{"kind": "me"}, {"kind": "computer", "level": 0}, {"kind": "open"}]}).json()["id"]

        def ids(**params):
            r = c.get("/api/players/pam", params=params)
            assert r.status_code == 200, r.text
            return [g["id"] for g in r.json()["games"]]

        assert set(ids()) == {*casual, lost, live}
        assert ids(result="win") == [casual[0]] and ids(result="draw") == [casual[1]] and ids(result="loss") == [lost]
        assert ids(game="gyges") == [lost] and ids(game="rings") == [live] and ids(game="yinsh-blitz") == []
        assert ids(opponent="SU") == [casual[1]] and ids(opponent="rex", result="loss") == []
        prof = c.get("/api/players/pam").json()
        assert {g["id"]: g["outcome"] for g in prof["games"]} == {casual[0]: "win", casual[1]: "draw", lost: "loss", live: ""}
        assert c.get("/api/players/rex").json()["games"][0]["outcome"] == "loss"
        monkeypatch.setattr(api, "PER_PAGE", 3)
        first, second = c.get("/api/players/pam").json(), c.get("/api/players/pam", params={"page": 2}).json()
        assert (first["page"], first["pages"], first["total"], len(first["games"])) == (1, 2, 4, 3)
        assert len(second["games"]) == 1 and {g["id"] for g in first["games"] + second["games"]} == {*casual, lost, live}
        assert c.get("/api/players/pam", params={"result": "lost"}).status_code == 400


def test_computer_ratings_are_fitted_on_the_published_results():
    # a chain of results is fitted exactly: each step its Elo
    fit = ratings.fit_ratings([("l1", "random", 76, 0, 24), ("l2", "l1", 50, 0, 50), ("l3", "l2", 10, 0, 0)])
    assert fit == {"random": 600.0, "l1": pytest.approx(800.2, abs=0.05), "l2": pytest.approx(800.2, abs=0.05),
                   "l3": pytest.approx(1200.2, abs=0.05)}
    # a cycle is a compromise weighted by games: 100 games saying +200 outweigh 10 saying +400
    fit = ratings.fit_ratings([("a", "random", 76, 0, 24), ("a", "random", 10, 0, 0)])
    assert fit["a"] == pytest.approx(600 + (100 * 200.2 + 10 * 400) / 110, abs=0.1)
    for game, levels in ratings.COMPUTER_RATINGS.items():
        assert levels[0] == ratings.ANCHOR and list(levels) == sorted(levels), game  # the ladder is monotone
        fit = ratings.fit_ratings(ratings.COMPUTER_RESULTS[game])
        # today's levels 3-5 above the levels they replaced (issue #35), level 5 above baseline:5 by about what it
        # scored against it
        for n in (3, 4, 5):
            assert fit[f"level:{n}"] > fit[f"baseline:{n}"], (game, n)
        gap = fit["level:5"] - fit["baseline:5"]
        assert 150 < gap < 600, (game, gap)
    assert ratings.computer_rating("yinsh-blitz", 5) == ratings.COMPUTER_RATINGS["yinsh"][5]
    with pytest.raises(ValueError, match="connected"):
        ratings.fit_ratings([("a", "b", 1, 0, 0)])


def test_the_baselines_results_of_the_computer_ratings_are_the_ledgers():
    """The results between the levels before issue #35 (``baseline:N``, 100 games each at the real budgets on
    1–2 December 2026) are the strength ledger's."""
    import json
    from pathlib import Path

    from ringgames.ai.levels import spec_for

    ledger = Path(__file__).resolve().parents[2] / "docs" / "strength" / "results.jsonl"
    counts: dict[tuple, list[int]] = {}
    for line in ledger.read_text().splitlines():
        r = json.loads(line)
        if r["date"] in ("2026-12-01", "2026-12-02") and len(r["seats"]) == 2 and not r.get("opening") and r["engine"] == "kernel":
            c = counts.setdefault((r["game"], r["a"], r["b"]), [0, 0, 0])
            c[0 if r["score"] == 1 else 1 if r["score"] == 0.5 else 2] += 1
    checked = 0
    for game, results in ratings.COMPUTER_RESULTS.items():
        for a, b, w, d, lo in results:
            if a.startswith("baseline:") or b == "random" or a in ("level:1", "level:2"):
                spec = {"random": "random"}
                for x in (a, b):
                    if x != "random":
                        spec[x] = spec_for(game, int(x[-1]), baseline=x.startswith("baseline:") or int(x[-1]) < 3)
                assert counts[game, spec[a], spec[b]] == [w, d, lo], (game, a, b)
                checked += 1
    assert checked == 15
