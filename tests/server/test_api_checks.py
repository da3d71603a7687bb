"""Smaller API checks: the legal list with an unreadable action, one's own draw offer, setups only for Gygès,
computer levels only (and always) for computer seats, imported tags in the record export, a port in use."""

import socket
import subprocess
import sys

from ringgames.server.testing import free_port

from .conftest import REPO, as_stranger, two_humans


def test_unreadable_action_answers_the_legal_actions(client):
    gid = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}]}).json()["id"]
    by_id = client.post(f"/api/games/{gid}/actions", json={"action": 10**6, "ply": 0}).json()
    assert by_id["error"] == "illegal_action" and len(by_id["legal"]) == 85
    for junk in ("zz", "e5-", "???", "xq99"):
        r = client.post(f"/api/games/{gid}/actions", json={"action": junk, "ply": 0})
        assert r.status_code == 422 and r.json()["error"] == "illegal_action", r.text
        assert r.json()["legal"] == by_id["legal"], junk
    assert client.get(f"/api/games/{gid}").json()["ply"] == 0


def test_a_player_cannot_accept_their_own_draw_offer(client):
    gid, t0, t1 = two_humans(client)
    client.cookies.clear()
    assert client.post(f"/api/games/{gid}/draw", json={"what": "offer"}, headers={"X-Seat-Token": t0}).status_code == 200
    r = client.post(f"/api/games/{gid}/draw", json={"what": "accept"}, headers={"X-Seat-Token": t0})
    assert r.status_code == 409 and r.json()["error"] == "own_offer", r.text
    s = client.get(f"/api/games/{gid}").json()
    assert (s["status"], s["result"], s["draw_offers"]) == ("live", "none", [0])
    r = client.post(f"/api/games/{gid}/draw", json={"what": "accept"}, headers={"X-Seat-Token": t1})
    assert r.status_code == 200 and r.json()["result"] == "draw"


def test_hot_seat_player_may_accept_for_the_other_seat(client):
    gid = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}]}).json()["id"]
    r = client.post(f"/api/games/{gid}/draw", json={"what": "offer"})  # both seats offer: agreed at once
    assert r.status_code == 200 and r.json()["result"] == "draw"


def test_setup_only_for_gyges(client):
    me2 = [{"kind": "me"}, {"kind": "me"}]
    for game, setup in (("yinsh", "random"), ("yinsh", "preset"), ("rings", "random")):
        r = client.post("/api/games", json={"game": game, "seats": me2, "setup": setup})
        assert r.status_code == 400 and r.json()["error"] == "bad_setup" and "setup" in r.json()["message"], r.text
    assert client.post("/api/games", json={"game": "yinsh", "seats": me2, "setup": "free"}).status_code == 201
    assert client.post("/api/games", json={"game": "gyges", "seats": me2, "setup": "random"}).status_code == 201


def test_level_only_and_always_for_computer_seats(client):
    for seat in ({"kind": "computer"}, {"kind": "computer", "level": None}, {"kind": "me", "level": 3},
                 {"kind": "invite", "level": 0}, {"kind": "open", "level": 5}):
        r = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, seat]})
        assert r.status_code == 400 and r.json()["error"] == "bad_request", (seat, r.text)
        assert "seats.1" in r.json()["message"] and "level" in r.json()["message"], r.json()["message"]
    assert client.get("/api/games").json()["games"] == []


RGN = """[Game "yinsh"]
[Event "Spring cup"]
[Round "3"]
[Site "Belgrade"]
[Annotator "Ana \\"the judge\\""]
[White "ann"]
[Black "bob"]

e5
f6
"""


def test_record_export_keeps_the_imported_tags(client):
    r = client.post("/api/import", files=[("files", ("cup.rgn", RGN.encode(), "text/plain"))])
    gid = r.json()["results"][0]["id"]
    rec = client.get(f"/api/games/{gid}/record").text
    for tag in ('[Event "Spring cup"]', '[Round "3"]', '[Site "Belgrade"]', '[Annotator "Ana \\"the judge\\""]',
                '[White "ann"]', '[Black "bob"]', '[Game "yinsh"]'):
        assert tag in rec, (tag, rec)
    assert "[file " not in rec and "[setup " not in rec
    # a game played on the site: no internal tags either
    gid2, *_ = two_humans(client)
    rec2 = as_stranger(client, "GET", f"/api/games/{gid2}/record").text
    assert "[setup " not in rec2 and '[White "alice"]' in rec2


def test_serve_says_the_port_is_in_use(tmp_path):
    port = free_port()
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen()
        p = subprocess.run([sys.executable, "-m", "ringgames", "serve", "--port", str(port), "--db",
                            f"sqlite:///{tmp_path / 'p.sqlite3'}"], capture_output=True, text=True, timeout=120,
                           cwd=REPO, env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"})
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "ringgames is at" not in out and f"port {port}" in out and "in use" in out, out
