"""Takebacks: asked, accepted or declined by the opponent, granted at once against the computer; the record keeps
only the moves that stand, and the clocks come back from the stored times."""

import json
import sqlite3

from fastapi.testclient import TestClient

from .conftest import as_stranger, two_humans, wait_for


def play(c, gid, moves, tokens, start=0):
    for i, m in enumerate(moves, start):
        r = c.post(f"/api/games/{gid}/actions", json={"action": m, "ply": i}, headers={"X-Seat-Token": tokens[i % 2]})
        assert r.status_code == 200, r.text
    return r.json()


def tb(c, gid, what, token):
    """A takeback request with only ``token`` (not the client's cookie, which holds seat 0)."""
    return as_stranger(c, "POST", f"/api/games/{gid}/takeback", json={"what": what}, headers={"X-Seat-Token": token})


def test_takeback_accepted_undoes_the_turn_and_restores_the_clocks(client, tmp_path):
    gid, t0, t1 = two_humans(client, clock={"initial": 600, "increment": 5})
    s = play(client, gid, ["e5", "f6", "d4"], (t0, t1))
    e5, f6 = s["moves"][0], s["moves"][1]
    r = tb(client, gid, "ask", t0)  # White takes back d4 (Black has not answered yet)
    assert r.status_code == 200 and r.json()["takeback"] == {"seat": 0, "ply": 3, "accepted": [0]} and r.json()["ply"] == 3
    assert tb(client, gid, "ask", t0).json()["error"] == "takeback_pending"
    assert tb(client, gid, "accept", t0).json()["ply"] == 3  # the asker's own "accept" changes nothing
    r = tb(client, gid, "accept", t1)
    s = r.json()
    assert r.status_code == 200 and s["ply"] == 2 and [m["text"] for m in s["moves"]] == ["e5", "f6"] and s["to_move"] == 0
    assert s["takeback"] is None and s["clock_running"] == 0
    # the clocks are what each seat had after its last remaining move: White gets back the time d4 took
    assert s["clocks"][1] == f6["left_ms"] and e5["left_ms"] - 500 < s["clocks"][0] <= e5["left_ms"]
    rows = sqlite3.connect(tmp_path / "test.sqlite3").execute("select ply, text from moves where game_id = ? order by ply", (gid,)).fetchall()
    assert rows == [(0, "e5"), (1, "f6")]
    assert "d4" not in client.get(f"/api/games/{gid}/record").text
    # play goes on from there, at ply 2
    assert play(client, gid, ["g7"], (t0, t1), start=2)["ply"] == 3


def test_takeback_after_the_reply_undoes_both_and_decline_undoes_nothing(client):
    gid, t0, t1 = two_humans(client)
    play(client, gid, ["e5", "f6", "d4", "g7"], (t0, t1))
    assert tb(client, gid, "ask", t0).status_code == 200  # White's last turn is d4; Black's g7 came after it
    r = tb(client, gid, "decline", t1)
    assert r.status_code == 200 and r.json()["takeback"] is None and r.json()["ply"] == 4
    assert tb(client, gid, "accept", t1).json()["error"] == "no_takeback"
    assert tb(client, gid, "ask", t0).status_code == 200
    s = tb(client, gid, "accept", t1).json()
    assert [m["text"] for m in s["moves"]] == ["e5", "f6"] and s["to_move"] == 0


def test_an_offer_lapses_with_the_next_move_and_strangers_cannot_answer(client):
    gid, t0, t1 = two_humans(client)
    play(client, gid, ["e5"], (t0, t1))
    assert tb(client, gid, "ask", t0).status_code == 200
    r = as_stranger(client, "POST", f"/api/games/{gid}/takeback", json={"what": "accept"})
    assert r.status_code == 403
    s = play(client, gid, ["f6"], (t0, t1), start=1)
    assert s["takeback"] is None and s["ply"] == 2
    assert tb(client, gid, "bogus", t1).status_code == 400


def test_nothing_to_take_back(client):
    gid, t0, t1 = two_humans(client)
    play(client, gid, ["e5"], (t0, t1))
    assert tb(client, gid, "ask", t1).json()["error"] == "no_takeback"  # Black has not played
    client.post(f"/api/games/{gid}/resign", json={}, headers={"X-Seat-Token": t1})
    assert tb(client, gid, "ask", t0).json()["error"] == "game_over"


def test_against_the_computer_a_takeback_is_granted_at_once(client):
    d = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "computer", "level": 0}]}).json()
    gid, tok = d["id"], d["tokens"]["0"]
    play(client, gid, ["e5"], (tok, tok))
    wait_for(lambda: client.get(f"/api/games/{gid}").json()["ply"] == 2)
    s = tb(client, gid, "ask", tok).json()
    assert s["ply"] == 0 and s["moves"] == [] and s["to_move"] == 0


def test_takeback_over_the_websocket(client: TestClient):
    gid, t0, t1 = two_humans(client)
    play(client, gid, ["e5"], (t0, t1))
    client.cookies.clear()  # each socket holds only its own seat's token
    with client.websocket_connect(f"/ws/games/{gid}", headers={"X-Seat-Token": t0}) as a, \
            client.websocket_connect(f"/ws/games/{gid}", headers={"X-Seat-Token": t1}) as b:
        a.receive_json(), b.receive_json()
        a.send_text(json.dumps({"type": "takeback", "what": "ask"}))
        assert b.receive_json()["state"]["takeback"]["seat"] == 0
        b.send_text(json.dumps({"type": "takeback", "what": "accept"}))
        m = wait_for(lambda: (x := b.receive_json())["type"] == "state" and x["state"]["ply"] == 0 and x, timeout=5)
        assert m["state"]["moves"] == []


def test_positions_after_a_takeback_and_other_moves_are_the_replayed_ones(client):
    """The room remembers recent position strings by the moves that led to them (one position formatted per change):
    after a takeback and different moves to the same ply, the position and the last turn's "before" are those of a
    fresh replay of the moves, never the remembered ones of the line taken back."""
    import ringgames

    gid, t0, t1 = two_humans(client)
    play(client, gid, ["e5", "f6", "d4", "g7"], (t0, t1))
    assert tb(client, gid, "ask", t0).status_code == 200
    assert tb(client, gid, "accept", t1).status_code == 200  # back to ply 2
    s = play(client, gid, ["c3", "h8"], (t0, t1), start=2)
    st = ringgames.load_game("yinsh").new_initial_state()
    positions = [st.position()]
    for m in ["e5", "f6", "c3", "h8"]:
        st.apply_action(st.string_to_action(m))
        positions.append(st.position())
    assert s["ply"] == 4 and s["position"] == positions[4]
    assert s["last_turn"]["ply"] == 3 and s["last_turn"]["before"] == positions[3]
    g = client.get(f"/api/games/{gid}").json()
    assert g["position"] == positions[4] and g["last_turn"]["before"] == positions[3]
