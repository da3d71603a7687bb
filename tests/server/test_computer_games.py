"""Computer-only games (every seat a computer): live games per client and in all, a length limit, the creator's
stop, and their own one-process pool (games with a human never wait behind them)."""

import os

import pytest
from fastapi.testclient import TestClient

from ringgames.server.limits import Limits

from .conftest import wait_for

BOTS = {"game": "yinsh", "seats": [{"kind": "computer", "level": 0}, {"kind": "computer", "level": 0}]}


def from_address(c: TestClient, address: str) -> None:
    """The following requests of ``c`` come from ``address`` (the client identity of the limits)."""
    c._transport.client = (address, 50000)  # type: ignore[attr-defined]


def test_computer_games_per_client_and_in_total(make_client):
    c = make_client(ai_delay=0.05, computer_games_per_client=2, computer_games_total=3, computer_game_actions=10_000)
    ids = []
    for _ in range(2):
        r = c.post("/api/games", json=BOTS)
        assert r.status_code == 201, r.text
        assert r.json()["creator_token"] and r.json()["tokens"] == {} and r.json()["invites"] == {}
        ids.append(r.json()["id"])
    r = c.post("/api/games", json=BOTS)
    assert r.status_code == 429 and r.json()["error"] == "too_many_computer_games"
    assert "at most 2" in r.json()["message"] and "this address" in r.json()["message"]
    # games with a human are not counted
    assert c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "computer", "level": 0}]}).status_code == 201
    from_address(c, "10.0.0.2")
    assert c.post("/api/games", json=BOTS).status_code == 201
    from_address(c, "10.0.0.3")
    r = c.post("/api/games", json=BOTS)
    assert r.status_code == 429 and r.json()["error"] == "too_many_computer_games" and "at most 3" in r.json()["message"]
    hub = c.app.state.hub
    assert len(hub.computer_games) == 3
    # they think in their own pool, of one process
    wait_for(lambda: c.get(f"/api/games/{ids[0]}").json()["ply"] >= 3)
    bot = hub.computers.lanes["bot"]
    assert len(bot.slots) == 1 and len(hub.computers.pids("bot")) == 1 and hub.computers.pids("quick") == []
    from pathlib import Path

    from ringgames.server.service import BOT_NICE

    def nice(pid):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat[stat.rindex(")") + 2:].split()[16])  # field 19 of stat: the niceness

    if Path("/proc/self/stat").exists():
        own = nice(os.getpid())
        assert [nice(p) for p in hub.computers.pids("bot")] == [min(19, own + BOT_NICE)]


def test_computer_game_stopped_by_its_creator_only(make_client):
    c = make_client(ai_delay=0.05, computer_games_per_client=1, computer_game_actions=10_000)
    d = c.post("/api/games", json=BOTS).json()
    gid, creator = d["id"], d["creator_token"]
    c.cookies.clear()
    assert "creator_hash" not in d["tags"]
    r = c.post(f"/api/games/{gid}/resign", json={})
    assert r.status_code == 403 and r.json()["error"] == "not_your_seat"
    assert c.post("/api/games", json=BOTS).status_code == 429
    r = c.post(f"/api/games/{gid}/resign", json={}, headers={"X-Seat-Token": creator})
    assert r.status_code == 200, r.text
    s = r.json()
    assert (s["status"], s["result"], s["reason"], s["moves"][-1]["text"]) == ("finished", "draw", "stopped", "stopped")
    c.cookies.clear()
    assert c.post("/api/games", json=BOTS).status_code == 201  # the slot is free again
    assert c.get(f"/api/games/{gid}").json()["reason"] == "stopped"


def test_computer_game_ends_in_a_draw_after_its_length_limit(make_client):
    c = make_client(ai_delay=0.05, computer_game_actions=6)
    gid = c.post("/api/games", json=BOTS).json()["id"]
    s = wait_for(lambda: (x := c.get(f"/api/games/{gid}").json())["status"] == "finished" and x, timeout=60)
    assert (s["ply"], s["result"], s["reason"], s["moves"][-1]["text"]) == (7, "draw", "action_limit", "action_limit")
    assert c.app.state.hub.computer_games == {}


def test_computer_game_limits_are_options_of_serve():
    lim = Limits.from_options(["computer_games_per_client=1", "computer_games_total=4", "computer_game_actions=300"])
    assert (lim.computer_games_per_client, lim.computer_games_total, lim.computer_game_actions) == (1, 4, 300)
    with pytest.raises(ValueError):
        Limits(computer_games_total=0)
