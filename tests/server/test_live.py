"""WebSocket rooms: broadcast after commit, errors, reconnect, chat."""

from .conftest import two_humans


def test_action_over_websocket_is_broadcast_to_every_watcher(client):
    gid, t0, t1 = two_humans(client)
    with client.websocket_connect(f"/ws/games/{gid}") as white:
        hw = white.receive_json()
        client.cookies.clear()  # black is another browser: only its seat token (a program's header)
        with client.websocket_connect(f"/ws/games/{gid}", headers={"X-Seat-Token": t1}) as black:
            hb = black.receive_json()
            assert hw["type"] == "hello" and hw["my_seats"] == [0] and hb["my_seats"] == [1]
            black.send_json({"type": "action", "action": "e5", "ply": 0, "id": 7})
            err = black.receive_json()
            assert err["type"] == "error" and err["error"] == "not_your_turn" and err["id"] == 7
            white.send_json({"type": "action", "action": "e5", "ply": 0})
            for ws in (white, black):
                m = ws.receive_json()
                assert m["type"] == "state" and m["state"]["ply"] == 1 and m["state"]["moves"][-1]["text"] == "e5"
            black.send_json({"type": "action", "action": "e5", "ply": 1})
            m = black.receive_json()
            assert m["error"] == "illegal_action"
            black.send_text("{oops")
            assert black.receive_json()["error"] == "bad_json"
            black.send_json({"type": "chat", "text": "<img src=x onerror=alert(1)> hi"})
            for ws in (white, black):
                m = ws.receive_json()
                assert m == {"type": "chat", "name": "bob", "text": "<img src=x onerror=alert(1)> hi"}
    # a reconnecting client gets the current state
    with client.websocket_connect(f"/ws/games/{gid}", headers={"X-Seat-Token": t1}) as again:
        h = again.receive_json()
        assert h["state"]["ply"] == 1 and h["my_seats"] == [1] and h["state"]["to_move"] == 1
        assert h["chat"][-1]["text"].endswith(" hi")
        again.send_json({"type": "action", "action": "f6", "ply": 1})
        assert again.receive_json()["state"]["ply"] == 2
