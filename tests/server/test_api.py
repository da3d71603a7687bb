"""The JSON API: creating, joining, acting, and the protections (wrong seat, illegal move, bad JSON, unknown game)."""

import ringgames
from ringgames.records import loads

from .conftest import as_stranger, two_humans, wait_for


def state(c, gid, **headers):
    r = c.get(f"/api/games/{gid}", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


def test_meta_lists_yinsh_with_its_seats(client):
    m = client.get("/api/meta").json()
    assert m["yinsh"]["variants"] == ["standard", "blitz"]
    assert m["yinsh"]["seat_names"]["2"] == ["white", "black"]


def test_create_and_play_and_moves_in_notation(client):
    gid, t0, t1 = two_humans(client)
    s = state(client, gid)
    assert s["my_seats"] == [0] and s["to_move"] == 0 and s["ply"] == 0 and len(s["legal"]) == 85
    r = client.post(f"/api/games/{gid}/actions", json={"action": "E5", "ply": 0})
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["moves"] == [{"ply": 0, "seat": 0, "text": "e5", "spent_ms": None, "left_ms": None}] and s["to_move"] == 1
    assert "e5" not in s["legal"] and len(s["legal"]) == 84
    expected = ringgames.load_game("yinsh").new_initial_state()
    expected.play("e5")
    assert s["position"] == expected.position()
    # seat 1 plays with the seat token it got for its invite link (header)
    r = client.post(f"/api/games/{gid}/actions", json={"action": "f6", "ply": 1}, headers={"X-Seat-Token": t1})
    assert r.status_code == 200 and r.json()["ply"] == 2


def test_wrong_seat_is_refused_and_changes_nothing(client):
    gid, t0, t1 = two_humans(client)
    before = state(client, gid)
    # white (this client's cookie) is to move; black's token may not move for white
    r = as_stranger(client, "POST", f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": t1})
    assert r.status_code == 403 and r.json()["error"] == "not_your_turn"
    # a stranger without a token
    client.cookies.clear()
    r = client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0})
    assert r.status_code == 403
    r = client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": "forged-token"})
    assert r.status_code == 403
    after = state(client, gid, **{"X-Seat-Token": t0})
    assert after["position"] == before["position"] and after["ply"] == 0 and after["moves"] == []
    assert after["my_seats"] == [0]


def test_illegal_and_malformed_moves_are_refused_with_the_reason(client):
    gid, t0, t1 = two_humans(client)
    client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0})
    before = state(client, gid)
    client.cookies.clear()
    black = {"X-Seat-Token": t1}
    # occupied point
    r = client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 1}, headers=black)
    assert r.status_code == 422 and r.json()["error"] == "illegal_action"
    assert "not legal" in r.json()["message"] and "f6" in r.json()["legal"] and "e5" not in r.json()["legal"]
    # off the board / nonsense
    for bad in ["z9", "a1", "hello", ""]:
        r = client.post(f"/api/games/{gid}/actions", json={"action": bad, "ply": 1}, headers=black)
        assert r.status_code == 422, bad
    r = client.post(f"/api/games/{gid}/actions", json={"action": 10**6, "ply": 1}, headers=black)
    assert r.status_code == 422
    after = state(client, gid)
    assert after["position"] == before["position"] and after["ply"] == 1


def test_bad_json_and_bad_requests(client):
    gid, t0, t1 = two_humans(client)
    r = client.post(f"/api/games/{gid}/actions", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"] == "bad_request"
    r = client.post(f"/api/games/{gid}/actions", json={"move": "e5", "ply": 0})
    assert r.status_code == 400 and "action" in r.json()["message"]
    # well-formed, but not a game the server has: 422
    r = client.post("/api/games", json={"game": "chess", "seats": [{"kind": "me"}, {"kind": "me"}]})
    assert r.status_code == 422 and "unknown game" in r.json()["message"]
    r = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}]})
    assert r.status_code == 422 and r.json()["error"] == "bad_seats"
    r = client.post("/api/games", json={"game": "yinsh", "variant": "turbo", "seats": [{"kind": "me"}, {"kind": "me"}]})
    assert r.status_code == 422
    assert state(client, gid)["ply"] == 0


def test_unknown_game(client):
    for method, path in [("get", "/api/games/nope"), ("post", "/api/games/nope/actions"), ("get", "/api/games/nope/positions"),
                         ("post", "/api/games/nope/resign")]:
        r = getattr(client, method)(path, **({"json": {"action": "e5", "ply": 0} if path.endswith("actions") else {}} if method == "post" else {}))
        assert r.status_code == 404, path
        assert r.json()["error"] == "unknown_game"
    with client.websocket_connect("/ws/games/nope") as ws:
        assert ws.receive_json()["error"] == "unknown_game"


def test_stale_ply_is_refused_so_a_move_is_never_applied_twice(client):
    gid, t0, t1 = two_humans(client)
    assert client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}).status_code == 200
    assert client.post(f"/api/games/{gid}/actions", json={"action": "f6", "ply": 1}, headers={"X-Seat-Token": t1}).status_code == 200
    # a retried request for ply 0 must not play again
    r = client.post(f"/api/games/{gid}/actions", json={"action": "a2", "ply": 0})
    assert r.status_code == 409 and r.json()["ply"] == 2
    assert [m["text"] for m in state(client, gid)["moves"]] == ["e5", "f6"]


def test_invite_join_and_open_seat(client):
    r = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me", "name": "alice"}, {"kind": "invite"}]})
    gid, inv = r.json()["id"], r.json()["invites"]["1"].split("token=")[1]
    s = state(client, gid)
    assert s["status"] == "open" and "invites" not in s  # invite links are shown once, at creation
    client.cookies.clear()  # from here on: the friend's browser
    r = client.post(f"/api/games/{gid}/join", json={"seat": 1, "token": "wrong", "name": "bob"})
    assert r.status_code == 403
    r = client.post(f"/api/games/{gid}/join", json={"seat": 1, "token": inv, "name": "<script>alert(1)</script>bob"})
    assert r.status_code == 200 and r.json()["my_seats"] == [1]
    s = state(client, gid)
    # the name is kept as text (pages insert it as text, never as HTML), and the cookie now holds seat 1
    assert s["status"] == "live" and s["seats"][1]["name"] == "<script>alert(1)</script>bob"
    assert s["my_seats"] == [1]
    # open seat: anyone may take it, once
    client.cookies.clear()
    g2 = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "open"}]}).json()["id"]
    assert any(x["id"] == g2 and x["seats"][1]["open"] for x in client.get("/api/games", params={"status": "open"}).json()["games"])
    client.cookies.clear()
    assert client.post(f"/api/games/{g2}/join", json={"seat": 1, "name": "carol"}).status_code == 200
    client.cookies.clear()
    r = client.post(f"/api/games/{g2}/join", json={"seat": 1, "name": "dave"})
    assert r.status_code == 409 and r.json()["error"] == "seat_taken"
    assert state(client, g2)["seats"][1]["name"] == "carol"


def test_resign_and_draw(client):
    gid, t0, t1 = two_humans(client)
    # draw: offer by white, accept by black
    r = client.post(f"/api/games/{gid}/draw", json={"what": "accept"})
    assert r.status_code == 409
    assert client.post(f"/api/games/{gid}/draw", json={"what": "offer"}).json()["draw_offers"] == [0]
    r = as_stranger(client, "POST", f"/api/games/{gid}/draw", json={"what": "accept"}, headers={"X-Seat-Token": t1})
    s = r.json()
    assert s["result"] == "draw" and s["reason"] == "agreement" and s["status"] == "finished" and s["to_move"] is None
    assert client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 1}).status_code == 409
    # resign: black resigns while white is to move
    gid, t0, t1 = two_humans(client)
    client.cookies.clear()
    r = client.post(f"/api/games/{gid}/resign", json={}, headers={"X-Seat-Token": t1})
    assert r.status_code == 200 and r.json()["result"] == "white" and r.json()["reason"] == "resign"
    assert r.json()["moves"][-1] == {"ply": 0, "seat": 1, "text": "resign", "spent_ms": None, "left_ms": None}
    r = client.post("/api/games/nothere/resign", json={})
    assert r.status_code == 404


def test_computer_answers_and_the_game_list(client):
    r = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "computer", "level": 2}]})
    gid = r.json()["id"]
    assert r.json()["seats"][1]["kind"] == "computer"
    client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0})
    s = wait_for(lambda: (x := state(client, gid))["ply"] == 2 and x)
    assert s["moves"][1]["seat"] == 1 and s["to_move"] == 0 and s["moves"][1]["text"] != "e5"
    games = client.get("/api/games", params={"status": "live"}).json()["games"]
    assert [g["id"] for g in games] == [gid]


def test_rematch_swaps_the_colours(client):
    gid, t0, t1 = two_humans(client)
    client.post(f"/api/games/{gid}/resign", json={})
    r = client.post(f"/api/games/{gid}/rematch")
    assert r.status_code == 201
    d = r.json()
    # alice played seat 0 (white): now she plays seat 1; the friend's seat 0 waits for him (no invite link)
    assert d["id"] != gid and d["my_seats"] == [1] and d["ply"] == 0 and d["invites"] == {}
    assert [s["name"] for s in d["seats"]] == ["bob", "alice"] and [s["joined"] for s in d["seats"]] == [False, True]


def test_rematch_asked_by_both_players_is_one_game_with_the_colours_swapped(client):
    gid, t0, t1 = two_humans(client)
    client.cookies.clear()  # from here on each request carries the tokens of one player only
    assert client.post(f"/api/games/{gid}/resign", json={}, headers={"x-seat-token": t0}).status_code == 200
    a = client.post(f"/api/games/{gid}/rematch", headers={"x-seat-token": t1}).json()
    client.cookies.clear()
    assert a["my_seats"] == [0] and a["seats"][1]["joined"] is False and a["seats"][0]["name"] == "bob"
    assert state(client, gid)["tags"]["rematch"] == a["id"]
    b = client.post(f"/api/games/{gid}/rematch", headers={"x-seat-token": t0}).json()
    client.cookies.clear()
    assert b["id"] == a["id"] and b["my_seats"] == [1] and b["seats"][1]["joined"] and b["seats"][1]["name"] == "alice"
    assert b["status"] == "live" and b["invites"] == {}
    assert client.post(f"/api/games/{gid}/rematch").status_code == 403  # a spectator
    r = client.post(f"/api/games/{a['id']}/actions", json={"action": "e5", "ply": 0}, headers={"x-seat-token": b["tokens"]["1"]})
    assert r.status_code == 403  # alice plays the second seat now
    r = client.post(f"/api/games/{a['id']}/actions", json={"action": "e5", "ply": 0}, headers={"x-seat-token": a["tokens"]["0"]})
    assert r.status_code == 200 and r.json()["ply"] == 1
    assert [g["id"] for g in client.get("/api/games", params={"status": "live"}).json()["games"]] == [a["id"]]


def test_import_upload_good_and_bad_files_and_replay_positions(client, boardspace_files):
    good = boardspace_files[0]
    files = [("files", (good.name, good.read_bytes())), ("files", ("junk.sgf", b"this is not a game")),
             ("files", ("bad.rgn", b'[Game "yinsh"]\n\n1. e5\n2. e5\n'))]
    r = client.post("/api/import", files=files)
    d = r.json()
    assert d["imported"] == 1 and d["failed"] == 2
    bad = [x for x in d["results"] if not x["ok"]]
    assert "junk.sgf" in bad[0]["error"] and "unknown record format" in bad[0]["error"]
    assert "bad.rgn" in bad[1]["error"] and "e5" in bad[1]["error"]
    ok = [x for x in d["results"] if x["ok"]][0]
    expected = loads(good.read_text(errors="replace"), good.name)[0].replay()
    s = state(client, ok["id"])
    assert s["source"] == "import" and s["ply"] == len(expected.history) and s["position"] == expected.position()
    assert s["result"] == expected.result_string()
    pos = client.get(f"/api/games/{ok['id']}/positions").json()["positions"]
    assert len(pos) == len(expected.history) + 1 and pos[-1] == expected.position()
    assert pos[0] == ringgames.load_game("yinsh").new_initial_state().position()
    rec = client.get(f"/api/games/{ok['id']}/record").text
    assert loads(rec)[0].replay().position() == expected.position()
    # imported games cannot be played on
    assert client.post(f"/api/games/{ok['id']}/actions", json={"action": "pass", "ply": s["ply"]}).status_code in (403, 409)


def test_pages_and_openapi(client):
    assert "New game" in client.get("/").text
    gid = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "open"}]}).json()["id"]
    assert "svg" in client.get(f"/game/{gid}").text
    assert "Import records" in client.get("/archive").text
    assert "85 intersections" in client.get("/rules/yinsh").text
    assert client.get("/rules/../etc").status_code == 404
    paths = client.get("/openapi.json").json()["paths"]
    for p in ["/api/games", "/api/games/{gid}", "/api/games/{gid}/actions", "/api/games/{gid}/join", "/api/games/{gid}/resign",
              "/api/games/{gid}/draw", "/api/import", "/api/games/{gid}/legal"]:
        assert p in paths, p


def test_gyges_setup_modes(client):
    r = client.post("/api/games", json={"game": "gyges", "setup": "random", "seats": [{"kind": "me"}, {"kind": "me"}]})
    s = r.json()
    # both arrangements were drawn at random: two setup moves, six pieces on each home row
    assert s["ply"] == 2 and [m["seat"] for m in s["moves"]] == [0, 1]
    rows = s["position"].split()[0].split("/")
    assert "0" not in rows[0] and "0" not in rows[5] and sorted(rows[0]) == list("112233")
    r = client.post("/api/games", json={"game": "gyges", "setup": "preset", "seats": [{"kind": "me"}, {"kind": "me"}]})
    s = r.json()
    assert sorted(s["legal"]) == sorted(["321123", "123321", "231132", "312213"])
    bad = client.post(f"/api/games/{s['id']}/actions", json={"action": "112233", "ply": 0})
    assert bad.status_code == 422 and "preset" in bad.json()["message"]
    ok = client.post(f"/api/games/{s['id']}/actions", json={"action": "231132", "ply": 0})
    assert ok.status_code == 200 and ok.json()["position"].startswith("231132/")


def test_rings_for_four_players(client):
    r = client.post("/api/games", json={"game": "rings", "players": 4, "seats": [{"kind": "me"}] * 4})
    s = r.json()
    assert r.status_code == 201 and s["seat_names"] == ["red", "blue", "green", "yellow"] and s["my_seats"] == [0, 1, 2, 3]
    assert "pass" in s["legal"] and len(s["legal"]) == 217
    s = client.post(f"/api/games/{s['id']}/actions", json={"action": "pass", "ply": 0}).json()
    assert s["to_move"] == 1 and s["moves"][0]["text"] == "pass"


def test_server_answers_while_the_computer_thinks(client):
    import time

    r = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "computer", "level": 4}, {"kind": "me"}]})
    gid = r.json()["id"]
    answered = []
    t_end = time.time() + 1.5
    while time.time() < t_end:
        t0 = time.perf_counter()
        s = state(client, gid)
        dt = time.perf_counter() - t0
        if s["ply"] == 0:
            answered.append(dt)
    # level 4 thinks about 2 s per decision in another process; meanwhile the API answers at once
    assert len(answered) >= 5 and max(answered) < 0.25, answered
    s = wait_for(lambda: (x := state(client, gid))["ply"] == 1 and x, timeout=60)
    assert s["moves"][0]["seat"] == 0 and s["to_move"] == 1
