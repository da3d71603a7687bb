"""GET /api/tv: the lobby's TV game (null when none is live, the live game picked, following its moves)."""

from datetime import UTC, datetime, timedelta

from ringgames.server.tv import pick

from .conftest import wait_for

BOTS = {"game": "yinsh", "seats": [{"kind": "computer", "level": 0}, {"kind": "computer", "level": 0}]}


def hot_seat(c, game="yinsh"):
    r = c.post("/api/games", json={"game": game, "seats": [{"kind": "me", "name": "ann"}, {"kind": "me", "name": "bob"}]})
    assert r.status_code == 201, r.text
    return r.json()


def test_no_live_game_is_null(client):
    assert client.get("/api/tv").json() == {"game": None}
    # a game still waiting for its invited player and a finished game are not live
    waiting = client.post("/api/games", json={"game": "gyges", "seats": [{"kind": "me"}, {"kind": "invite"}]}).json()
    assert waiting["status"] == "open"
    done = hot_seat(client)
    r = client.post(f"/api/games/{done['id']}/resign", json={})
    assert r.json()["status"] == "finished"
    r = client.get("/api/tv")
    assert r.status_code == 200 and r.json() == {"game": None}


def test_picks_the_live_game_and_follows_its_moves(client):
    g = hot_seat(client, "yinsh")
    tv = client.get("/api/tv").json()["game"]
    assert tv["id"] == g["id"] and tv["game"] == "yinsh" and tv["status"] == "live"
    assert tv["ply"] == 0 and tv["last_turn"] is None and tv["to_move"] == 0
    assert tv["position"] == g["position"] and tv["seat_names"] == ["white", "black"]
    assert [s["name"] for s in tv["seats"]] == ["ann", "bob"] and {s["kind"] for s in tv["seats"]} == {"human"}
    r = client.post(f"/api/games/{g['id']}/actions", json={"action": "e5", "ply": 0})
    assert r.status_code == 200, r.text
    tv = client.get("/api/tv").json()["game"]
    assert tv["ply"] == 1 and tv["to_move"] == 1 and tv["position"] == r.json()["position"] != g["position"]
    assert tv["last_turn"] == {"seat": 0, "ply": 0, "before": g["position"], "texts": ["e5"]}
    client.post(f"/api/games/{g['id']}/actions", json={"action": "f6", "ply": 1})
    tv = client.get("/api/tv").json()["game"]
    assert tv["ply"] == 2 and tv["last_turn"]["seat"] == 1 and tv["last_turn"]["texts"] == ["f6"]


def test_a_human_game_before_computers_only_which_is_the_fallback(client):
    bots = client.post("/api/games", json=BOTS).json()
    wait_for(lambda: (client.get("/api/tv").json()["game"] or {}).get("ply", 0) >= 2)
    tv = client.get("/api/tv").json()["game"]
    assert tv["id"] == bots["id"] and [s["kind"] for s in tv["seats"]] == ["computer", "computer"]
    assert [s["level"] for s in tv["seats"]] == [0, 0] and tv["last_turn"]["texts"]
    human = hot_seat(client, "rings")
    assert client.get("/api/tv").json()["game"]["id"] == human["id"]  # though the computers moved after it was made
    wait_for(lambda: client.get(f"/api/games/{bots['id']}").json()["ply"] >= tv["ply"] + 2)
    assert client.get("/api/tv").json()["game"]["id"] == human["id"]
    client.post(f"/api/games/{bots['id']}/resign", json={}, headers={"X-Seat-Token": bots["creator_token"]})


def row(gid, kinds, ply, minutes_ago, status="live", now=datetime(2026, 12, 4, 12, tzinfo=UTC)):
    return {"id": gid, "status": status, "ply": ply, "seats": [{"kind": k} for k in kinds],
            "updated": (now - timedelta(minutes=minutes_ago)).isoformat()}


def test_pick_order():
    now = datetime(2026, 12, 4, 12, tzinfo=UTC)
    hh, hc, cc = ["human", "human"], ["human", "computer"], ["computer", "computer"]
    assert pick([], now) is None
    assert pick([row("f", hh, 9, 1, status="finished")], now) is None
    # most recently changed first; among the recent ones a human player's game, past its first move
    games = [row("bots", cc, 30, 0), row("fresh", hh, 0, 1), row("vs-computer", hc, 12, 2), row("old", hh, 40, 60 * 24)]
    assert pick(games, now)["id"] == "vs-computer"
    assert pick([games[0], games[1], games[3]], now)["id"] == "fresh"
    assert pick([games[0], games[3]], now)["id"] == "bots"  # a stale human game: the moving computers are better TV
    assert pick([games[3]], now)["id"] == "old"
    naive = dict(games[2], updated=(now - timedelta(minutes=2)).replace(tzinfo=None).isoformat())  # SQLite's
    assert pick([games[0], naive], now)["id"] == "vs-computer"


def test_tv_is_described(client):
    op = client.get("/openapi.json").json()["paths"]["/api/tv"]["get"]
    assert op["operationId"] == "get_tv"
    assert op["responses"]["200"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/TvAnswer"}
