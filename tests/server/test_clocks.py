"""Clocks: time controls, flags by the timer, increments per turn, time per move, two services on one database,
restarts (docs/time-controls.md). Short clocks (1 s), never long sleeps."""

import asyncio
import random
import sqlite3
import time

import httpx
import pytest

import ringgames
from ringgames.server import clocks as clk
from ringgames.server.db import PresenceRow
from ringgames.server.errors import ApiError
from ringgames.server.service import Hub, clocked_spec
from ringgames.server.testing import ServerProcess

from .aio import run
from .conftest import as_stranger, two_humans, wait_for


def create(c, game="yinsh", seats=None, **kw):
    seats = seats or [{"kind": "me", "name": "alice"}, {"kind": "me", "name": "bob"}]
    r = c.post("/api/games", json={"game": game, "seats": seats, **kw})
    assert r.status_code == 201, r.text
    d = r.json()
    return d["id"], ".".join(d["tokens"].values()), d


def db_rows(path, sql, *args):
    con = sqlite3.connect(path)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


# -- the arithmetic ---------------------------------------------------------------------------------------------

def test_increment_only_when_the_turn_passes():
    tc = clk.TimeControl(10_000, 2_000)
    # seat 0 acts at t=1500 and still decides (a YINSH ring move before its row): no increment
    u = clk.after_entry(tc, [10_000, 10_000], 0, 0, 0, 0, 1_500, turn_action=True)
    assert (u.clocks, u.spent_ms, u.left_ms, u.clock_seat, u.deadline) == ([8_500, 10_000], 1_500, 8_500, 0, 1_500 + 8_500)
    # the turn ends at t=2000: 500 ms more, then the increment, once; seat 1's clock starts
    u = clk.after_entry(tc, u.clocks, 0, u.clock_at, 0, 1, 2_000, turn_action=True)
    assert (u.clocks, u.spent_ms, u.left_ms, u.clock_seat, u.deadline) == ([10_000, 10_000], 500, 10_000, 1, 12_000)
    # a resignation ends no turn: no increment; the game is over, no clock runs
    u = clk.after_entry(tc, u.clocks, 1, u.clock_at, 1, None, 3_000, turn_action=False)
    assert (u.clocks, u.clock_seat, u.deadline) == ([10_000, 9_000], None, None)
    # correspondence: the clock is set back to the days per move
    days = clk.TimeControl.from_json({"days": 2})
    assert days is not None and days.label == "2d"
    u = clk.after_entry(days, [2 * clk.DAY_MS] * 2, 0, 0, 0, 1, 3_600_000, turn_action=True)
    assert u.clocks == [2 * clk.DAY_MS, 2 * clk.DAY_MS] and u.spent_ms == 3_600_000
    assert clk.TimeControl.from_json({"initial": 300, "increment": 3}).label == "300+3"  # type: ignore[union-attr]


def test_computer_thinks_within_a_share_of_its_time():
    tc = clk.TimeControl(60_000, 0)
    assert clk.think_budget(tc, 60_000) == pytest.approx(1.5)
    assert clk.think_budget(clk.TimeControl(clk.DAY_MS, 0, 1), clk.DAY_MS) is None
    # level 5 of YINSH thinks 5 s; with 1.5 s to spend it is scaled to 0.3 of its budget
    assert clocked_spec("level:5", "yinsh", 2, 1.5) == "level:5,scale=0.3"
    assert clocked_spec("level:5", "yinsh", 2, None) == "level:5"
    assert clocked_spec("level:3", "yinsh", 2, 10.0) == "level:3"
    assert clocked_spec("random", "yinsh", 2, 0.05) == "random"


# -- the API ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("body, words", [
    ({"clock": {"initial": 0, "increment": 2}}, "initial"),
    ({"clock": {"initial": -5}}, "initial"),
    ({"clock": {"initial": 86_401}}, "initial"),
    ({"clock": {"initial": 60, "increment": -1}}, "increment"),
    ({"clock": {"initial": 60, "increment": 3_601}}, "increment"),
    ({"clock": {"initial": "300"}}, "initial"),
    ({"clock": {"initial": True}}, "initial"),
    ({"clock": {"increment": 2}}, "initial"),
    ({"correspondence": {"days": 0}}, "days"),
    ({"correspondence": {"days": 15}}, "days"),
    ({"correspondence": {"days": 2.5}}, "days"),
    ({"clock": {"initial": 60}, "correspondence": {"days": 1}}, "not both"),
])
def test_absurd_time_controls_are_refused_with_the_reason(client, body, words):
    r = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}], **body})
    assert r.status_code == 400, r.text
    assert r.json()["error"] == "bad_request" and words in r.json()["message"]


def test_no_clock_is_the_default(client):
    gid, _, d = create(client)
    assert d["time_control"] is None and d["clocks"] is None and d["clock_running"] is None


def test_clocks_in_the_api_and_the_lists(client):
    gid, toks, d = create(client, clock={"initial": 300, "increment": 3})
    assert d["time_control"] == {"initial": 300, "increment": 3, "days": None, "label": "300+3"}
    assert d["clock_running"] == 0 and d["clocks"][1] == 300_000 and 299_000 < d["clocks"][0] <= 300_000
    time.sleep(0.2)
    s = client.get(f"/api/games/{gid}").json()
    assert s["clocks"][0] <= 300_000 - 200 and s["clocks"][1] == 300_000
    g = next(g for g in client.get("/api/games?status=live").json()["games"] if g["id"] == gid)
    assert g["time_control"] == "300+3" and g["clock_running"] == 0 and 0 < g["time_left"] <= 300_000 - 200
    gid2, _, d2 = create(client, correspondence={"days": 3})
    assert d2["time_control"]["label"] == "3d" and d2["clocks"] == [3 * clk.DAY_MS] * 2 or d2["clocks"][0] > 3 * clk.DAY_MS - 2000


def test_a_clock_waits_for_the_seats_to_be_taken(client):
    r = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "invite"}], "clock": {"initial": 1}})
    d = r.json()
    assert d["status"] == "open" and d["clock_running"] is None and d["clocks"] == [1000, 1000]
    time.sleep(1.3)  # nobody has joined: the clock does not run
    assert client.get(f"/api/games/{d['id']}").json()["status"] == "open"
    j = as_stranger(client, "POST", f"/api/games/{d['id']}/join", json={"seat": 1, "token": d["invites"]["1"].split("token=")[1]})
    assert j.json()["status"] == "live" and j.json()["clock_running"] == 0


def test_flag_by_the_timer_with_nobody_connected(client, tmp_path):
    """1 s + 0, nobody asks anything: the timer ends the game, reason time, the other seat wins."""
    gid, _, d = create(client, clock={"initial": 1, "increment": 0})
    db = tmp_path / "test.sqlite3"
    t0 = time.monotonic()
    wait_for(lambda: db_rows(db, "select status from games where id = ?", gid) == [("finished",)], timeout=10, every=0.05)
    assert 0.9 < time.monotonic() - t0 < 4
    assert db_rows(db, "select ply, action, text, seat, left_ms from moves where game_id = ?", gid) == [(0, -1, "time", 0, 0)]
    assert db_rows(db, "select result, deadline, clock_seat from games where id = ?", gid) == [("black", None, None)]
    s = client.get(f"/api/games/{gid}").json()
    assert (s["status"], s["result"], s["reason"], s["winners"], s["to_move"]) == ("finished", "black", "time", [1], None)
    assert s["clocks"][0] == 0 and s["clocks"][1] == 1000 and s["clock_running"] is None
    r = client.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": d["tokens"]["0"]})
    assert r.status_code == 409


def test_a_move_after_the_deadline_is_refused_even_before_the_timer(tmp_path):
    async def main():
        hub = Hub(f"sqlite:///{tmp_path / 'late.sqlite3'}", run_computers=False, run_clocks=False)
        await hub.start()
        try:
            room, mine, _ = await hub.create("yinsh", None, None, [{"kind": "me"}, {"kind": "me"}], time_control={"initial": 1})
            await asyncio.sleep(1.1)
            with pytest.raises(Exception) as e:
                await hub.act(room.id, "e5", list(mine.values()), 0)
            assert getattr(e.value, "code", None) == "time_out"
            assert hub.snapshot(room)["reason"] == "time" and room.state.winners() == (1,)
        finally:
            await hub.stop()

    run(main())


def yinsh_row_turn(seed=1):
    """Actions of a random YINSH game up to and including the first turn of three or more actions by one seat
    (a ring move, a row removal, a ring removal), and where that turn starts."""
    st = ringgames.load_game("yinsh").new_initial_state()
    rng = random.Random(seed)
    actions: list[str] = []
    turn_start = 0
    while not st.is_terminal():
        p = st.current_player()
        a = rng.choice(st.legal_actions())
        actions.append(st.action_to_string(a))
        st.apply_action(a)
        if st.is_terminal() or st.current_player() != p:
            if len(actions) - turn_start >= 3:
                return actions, turn_start
            turn_start = len(actions)
    raise AssertionError("no row in this game")


def test_increment_once_at_the_end_of_a_yinsh_turn_with_a_row_and_a_ring_removal(client, tmp_path):
    actions, start = yinsh_row_turn()
    gid, toks, _ = create(client, clock={"initial": 600, "increment": 5})
    for i, a in enumerate(actions):
        r = client.post(f"/api/games/{gid}/actions", json={"action": a, "ply": i}, headers={"X-Seat-Token": toks})
        assert r.status_code == 200, r.text
    s = r.json()
    moves = s["moves"]
    turn = moves[start:]
    seat = turn[0]["seat"]
    assert len(turn) >= 3 and all(m["seat"] == seat for m in turn) and turn[-2]["text"].startswith("x")
    before = next(m["left_ms"] for m in reversed(moves[:start]) if m["seat"] == seat)
    # within the turn: each action charges its time and adds nothing ...
    left = before
    for m in turn[:-1]:
        left -= m["spent_ms"]
        assert m["left_ms"] == left
    # ... and the turn's end adds the increment once
    assert turn[-1]["left_ms"] == left - turn[-1]["spent_ms"] + 5000
    assert s["clocks"][seat] == turn[-1]["left_ms"] and s["clock_running"] == 1 - seat
    # every turn of the game got exactly one increment: the clock is 600 s + 5 s per turn - the time spent
    turns = sum(1 for i, m in enumerate(moves) if i == len(moves) - 1 or moves[i + 1]["seat"] != m["seat"])
    mine = [m for m in moves if m["seat"] == seat]
    assert turn[-1]["left_ms"] == 600_000 + 5000 * sum(1 for i, m in enumerate(moves) if m["seat"] == seat and
                                                       (i == len(moves) - 1 or moves[i + 1]["seat"] != seat)) \
        - sum(m["spent_ms"] for m in mine)
    assert turns >= 2
    # time per move is stored: the database has what the API showed
    rows = db_rows(tmp_path / "test.sqlite3", "select spent_ms, left_ms from moves where game_id = ? order by ply", gid)
    assert rows == [(m["spent_ms"], m["left_ms"]) for m in moves] and all(x is not None for r in rows for x in r)


def test_gyges_setup_is_a_turn(client):
    gid, toks, _ = create(client, game="gyges", clock={"initial": 60, "increment": 10}, setup="preset")
    r = client.post(f"/api/games/{gid}/actions", json={"action": "321123", "ply": 0}, headers={"X-Seat-Token": toks})
    m = r.json()["moves"][0]
    assert m["left_ms"] == 60_000 - m["spent_ms"] + 10_000 and r.json()["clock_running"] == 1


def test_rings_flag_is_a_resignation_and_the_others_play_on(client):
    seats = [{"kind": "me", "name": n} for n in ("a", "b", "c")]
    gid, toks, _ = create(client, game="rings", players=3, seats=seats, clock={"initial": 1})
    s = wait_for(lambda: (x := client.get(f"/api/games/{gid}").json())["ply"] >= 1 and x, timeout=10)
    assert s["status"] == "live" and s["moves"][0]["text"] == "time" and s["moves"][0]["seat"] == 0
    assert s["active"] == [1, 2] and s["to_move"] == 1 and s["clock_running"] == 1 and s["reason"] is None
    # the next seat's clock runs out too: one seat is left, the game ends by time
    s = wait_for(lambda: (x := client.get(f"/api/games/{gid}").json())["status"] == "finished" and x, timeout=10)
    assert s["reason"] == "time" and s["winners"] == [2] and [m["text"] for m in s["moves"]] == ["time", "time"]


def test_rematch_keeps_the_time_control(client):
    gid, toks, _ = create(client, clock={"initial": 180, "increment": 2})
    client.post(f"/api/games/{gid}/resign", json={}, headers={"X-Seat-Token": toks})
    r = client.post(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": toks})
    assert r.status_code == 201 and r.json()["time_control"]["label"] == "180+2"


def test_rematch_against_the_computer_swaps_colours_and_keeps_the_clock(client):
    gid, toks, d = create(client, seats=[{"kind": "me", "name": "alice"}, {"kind": "computer", "level": 0}],
                          clock={"initial": 300, "increment": 3})
    client.cookies.clear()
    assert client.post(f"/api/games/{gid}/resign", json={}, headers={"X-Seat-Token": toks}).status_code == 200
    r = client.post(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": toks})
    assert r.status_code == 201, r.text
    n = r.json()
    assert [s["kind"] for s in n["seats"]] == ["computer", "human"] and n["my_seats"] == [1] and n["seats"][0]["level"] == 0
    assert n["time_control"]["label"] == "300+3" and n["status"] == "live"
    # the computer plays first now, on its running clock; then alice's clock runs
    s = wait_for(lambda: (x := client.get(f"/api/games/{n['id']}").json())["ply"] == 1 and x)
    assert s["clock_running"] == 1 and s["moves"][0]["seat"] == 0 and s["moves"][0]["left_ms"] is not None


def test_rematch_of_two_people_on_a_clock_starts_the_clock_when_both_are_back(client):
    gid, t0, t1 = two_humans(client, clock={"initial": 120, "increment": 1})
    client.cookies.clear()
    assert client.post(f"/api/games/{gid}/resign", json={}, headers={"X-Seat-Token": t1}).status_code == 200
    a = client.post(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": t0}).json()
    client.cookies.clear()
    assert a["my_seats"] == [1] and a["status"] == "open" and a["clock_running"] is None
    b = client.post(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": t1}).json()
    client.cookies.clear()
    assert b["id"] == a["id"] and b["my_seats"] == [0] and b["status"] == "live"
    assert b["time_control"]["label"] == "120+1" and b["clock_running"] == 0  # bob (black before) moves first now


def test_rematch_rings_three_players_rotates_seats_and_keeps_correspondence(client):
    d = client.post("/api/games", json={"game": "rings", "players": 3, "correspondence": {"days": 3}, "seats": [
        {"kind": "me", "name": "ann"}, {"kind": "me", "name": "ben"}, {"kind": "computer", "level": 0}]}).json()
    client.cookies.clear()
    tok = ".".join(d["tokens"].values())
    for seat in (0, 1):
        assert client.post(f"/api/games/{d['id']}/resign", json={"seat": seat}, headers={"X-Seat-Token": tok}).status_code == 200
    assert client.get(f"/api/games/{d['id']}").json()["status"] == "finished"
    r = client.post(f"/api/games/{d['id']}/rematch", headers={"X-Seat-Token": tok})
    assert r.status_code == 201, r.text
    n = r.json()
    assert [s["kind"] for s in n["seats"]] == ["computer", "human", "human"] and [s["name"] for s in n["seats"][1:]] == ["ann", "ben"]
    assert n["my_seats"] == [1, 2] and n["time_control"]["label"] == "3d" and n["players"] == 3 and n["status"] == "live"
    # the unfinished new game: no rematch of it while it is played
    assert client.post(f"/api/games/{n['id']}/rematch", headers={"X-Seat-Token": ".".join(n["tokens"].values())}).status_code == 409


# -- several processes on one database --------------------------------------------------------------------------

def test_two_services_on_one_database_flag_a_game_exactly_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'two.sqlite3'}"

    async def main():
        a = Hub(url, run_computers=False, run_clocks=False)
        b = Hub(url, run_computers=False, run_clocks=False)
        await a.start()
        await b.start()
        try:
            room, mine, _ = await a.create("yinsh", None, None, [{"kind": "me"}, {"kind": "me"}], time_control={"initial": 1})
            other = await b.room(room.id)  # both have the game in memory, as if players were connected to both
            assert other is not room and other.row.deadline == room.row.deadline
            await asyncio.sleep(1.05)
            won = await asyncio.gather(*(h.flag_due(room.id) for h in (a, b, a, b, b, a)))
            assert sorted(won) == [False] * 5 + [True]
            for h, r in ((a, room), (b, other)):  # the loser read the game again: both show the flag
                snap = h.snapshot(r)
                assert (snap["reason"], snap["winners"], [m["text"] for m in snap["moves"]]) == ("time", [1], ["time"])
            with a.Session() as s:
                from ringgames.server.db import MoveRow

                assert len(list(s.query(MoveRow).filter_by(game_id=room.id))) == 1
        finally:
            await a.stop()
            await b.stop()

        # now with their timers running: several games, each flagged once, by one of the two
        a = Hub(url, run_computers=False, run_clocks=True, clock_heartbeat=0.2)
        b = Hub(url, run_computers=False, run_clocks=True, clock_heartbeat=0.2)
        await a.start()
        await b.start()
        try:
            ids = []
            for i in range(6):
                r, _, _ = await (a, b)[i % 2].create("yinsh", None, None, [{"kind": "me"}, {"kind": "me"}],
                                                     time_control={"initial": 1})
                ids.append(r.id)
                await (b, a)[i % 2].room(r.id)
            for _ in range(100):
                await asyncio.sleep(0.1)
                with a.Session() as s:
                    from ringgames.server.db import GameRow, MoveRow

                    if all(s.get(GameRow, g).status == "finished" for g in ids):  # type: ignore[union-attr]
                        break
            with a.Session() as s:
                for g in ids:
                    assert [(m.text, m.seat) for m in s.query(MoveRow).filter_by(game_id=g)] == [("time", 0)]
            # a hub counts its flag once its writer thread is back, a moment after the commit this loop saw
            for _ in range(40):
                if a.flags_won + b.flags_won >= 6:
                    break
                await asyncio.sleep(0.05)
            assert a.flags_won + b.flags_won == 6
        finally:
            await a.stop()
            await b.stop()

    run(main())


# -- restarts --------------------------------------------------------------------------------------------------------

def test_restart_resumes_clocks_without_charging_the_downtime_and_applies_a_flag_that_fell_before(tmp_path):
    path = tmp_path / "restart.sqlite3"
    url = f"sqlite:///{path}"
    log = tmp_path / "server.log"
    args = ["--limit", "clock_heartbeat_seconds=0.2"]
    srv = ServerProcess(url, log=log, extra_args=args).start()
    try:
        c = httpx.Client(base_url=srv.url, timeout=10)
        seats = [{"kind": "me", "name": "a"}, {"kind": "me", "name": "b"}]
        t = time.monotonic()
        a = c.post("/api/games", json={"game": "yinsh", "seats": seats, "clock": {"initial": 20}}).json()
        b = c.post("/api/games", json={"game": "yinsh", "seats": seats, "clock": {"initial": 60}}).json()
        time.sleep(1.0)
        before = c.get(f"/api/games/{a['id']}").json()["clocks"][0]
        assert 20_000 - (time.monotonic() - t) * 1000 - 50 < before <= 19_000
        srv.kill()  # SIGKILL: nothing is written at the stop
    finally:
        srv.kill()
    # B: its deadline passed while the server was still up (it died before it could flag): a flag before the stop
    alive = db_rows(path, "select alive_ms from clock_site")[0][0]
    con = sqlite3.connect(path)
    con.execute("update games set deadline = ?, clock_at = ? where id = ?", (alive - 3000, alive - 3000 - 60_000, b["id"]))
    con.commit()
    con.close()
    time.sleep(6)  # the site is down for 6 s (and a few more while the server starts)
    t0 = time.monotonic()
    srv = ServerProcess(url, log=log, extra_args=args).start()
    try:
        c = httpx.Client(base_url=srv.url, timeout=10)
        s = c.get(f"/api/games/{a['id']}").json()
        since = (time.monotonic() - t0) * 1000  # at most this much of the clock ran since the restart
        assert s["status"] == "live" and s["clock_running"] == 0
        # charged: the second before the kill and (at most) the time since the restart; not the 6+ s of downtime.
        # The credit runs from the last heartbeat (every 0.2 s here), so up to one heartbeat before the kill is
        # credited too (docs/time-controls.md): the clock may read up to 200 ms more than just before the kill
        assert before - since - 400 < s["clocks"][0] <= before + 200 + 50, (before, since, s["clocks"])
        s = wait_for(lambda: (x := c.get(f"/api/games/{b['id']}").json())["status"] == "finished" and x, timeout=5)
        assert (s["reason"], s["winners"], s["moves"][-1]["text"], s["clocks"]) == ("time", [1], "time", [0, 60_000])
        # A's game goes on: a move is accepted and the clock passes to seat 1
        r = c.post(f"/api/games/{a['id']}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": ".".join(a["tokens"].values())})
        assert r.status_code == 200 and r.json()["clock_running"] == 1
    finally:
        srv.stop()


# -- abandonment: a first move that never comes ------------------------------------------------------------------------

@pytest.fixture()
def quick_abort(tmp_path):
    """A site whose real-time games are aborted when a first move has not come within 1 s."""
    from fastapi.testclient import TestClient

    from ringgames.server.app import create_app
    from ringgames.server.limits import Limits

    app = create_app(f"sqlite:///{tmp_path / 'abort.sqlite3'}", ai_workers=1, ai_delay=0,
                     limits=Limits(abort_first_move_seconds=1.0))
    with TestClient(app) as c:
        yield c


def test_a_game_whose_first_move_never_comes_is_aborted(quick_abort, tmp_path):
    c = quick_abort
    gid, toks, _ = create(c, clock={"initial": 60, "increment": 0})
    db = tmp_path / "abort.sqlite3"
    wait_for(lambda: db_rows(db, "select status from games where id = ?", gid) == [("aborted",)], timeout=10)
    s = c.get(f"/api/games/{gid}").json()
    assert (s["status"], s["reason"], s["result"], s["winners"], s["to_move"], s["legal"]) == ("aborted", "aborted", "none", [], None, [])
    assert s["moves"] == [] and s["clock_running"] is None and 58_000 < s["clocks"][0] < 60_000 and s["clocks"][1] == 60_000
    r = c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": toks})
    assert r.status_code == 409 and r.json()["error"] == "aborted"
    assert c.post(f"/api/games/{gid}/resign", json={}, headers={"X-Seat-Token": toks}).status_code == 409
    assert gid in [g["id"] for g in c.get("/api/games?status=aborted").json()["games"]]
    assert c.post(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": toks}).status_code == 201  # play again is offered


def test_abort_waits_for_each_seats_first_move_only(quick_abort, tmp_path):
    c = quick_abort
    # White moves at once; Black's first move never comes: aborted, White's move stays in the record
    gid, toks, _ = create(c, clock={"initial": 60})
    c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": toks})
    s = wait_for(lambda: (x := c.get(f"/api/games/{gid}").json())["status"] == "aborted" and x, timeout=10)
    assert [m["text"] for m in s["moves"]] == ["e5"] and s["result"] == "none"
    # both have moved: a long think later is not an abort, the clock decides (3 s here)
    gid, toks, _ = create(c, clock={"initial": 3})
    for i, a in enumerate(("e5", "f6")):
        assert c.post(f"/api/games/{gid}/actions", json={"action": a, "ply": i}, headers={"X-Seat-Token": toks}).status_code == 200
    s = wait_for(lambda: (x := c.get(f"/api/games/{gid}").json())["status"] != "live" and x, timeout=10)
    assert (s["status"], s["reason"], s["winners"]) == ("finished", "time", [1])
    # correspondence games and games without a clock are never aborted
    g2, _, _ = create(c, correspondence={"days": 1})
    g3, _, _ = create(c)
    time.sleep(1.5)
    assert [c.get(f"/api/games/{g}").json()["status"] for g in (g2, g3)] == ["live", "live"]


def test_two_server_processes_on_one_database_flag_each_game_once(tmp_path):
    """Two `ringgames serve` processes on one SQLite file; the games are created on one, watched on both."""
    path = tmp_path / "shared.sqlite3"
    url = f"sqlite:///{path}"
    args = ["--limit", "clock_heartbeat_seconds=0.2"]
    a = ServerProcess(url, log=tmp_path / "a.log", extra_args=args).start()
    b = ServerProcess(url, log=tmp_path / "b.log", extra_args=args).start()
    try:
        seats = [{"kind": "me"}, {"kind": "me"}]
        ids = []
        for i in range(4):
            srv, other = (a, b) if i % 2 == 0 else (b, a)
            ids.append(httpx.post(f"{srv.url}/api/games", json={"game": "yinsh", "seats": seats, "clock": {"initial": 1}}).json()["id"])
            assert httpx.get(f"{other.url}/api/games/{ids[-1]}").json()["clock_running"] == 0  # in memory on both
        for gid in ids:
            for srv in (a, b):
                url = f"{srv.url}/api/games/{gid}"
                s = wait_for(lambda u=url: (x := httpx.get(u).json())["status"] == "finished" and x, timeout=10)
                assert (s["reason"], s["winners"], [m["text"] for m in s["moves"]]) == ("time", [1], ["time"])
        rows = db_rows(path, "select game_id, count(*) from moves group by game_id")
        assert sorted(rows) == sorted((g, 1) for g in ids)
    finally:
        a.stop()
        b.stop()


# -- records ---------------------------------------------------------------------------------------------------------------

def test_the_record_carries_the_time_control_and_each_turns_time_and_reads_back(client):
    from ringgames.records import Record, loads, turn_times

    actions, start = yinsh_row_turn()
    gid, toks, _ = create(client, clock={"initial": 300, "increment": 3})
    for i, a in enumerate(actions):
        assert client.post(f"/api/games/{gid}/actions", json={"action": a, "ply": i}, headers={"X-Seat-Token": toks}).status_code == 200
    client.post(f"/api/games/{gid}/resign", json={}, headers={"X-Seat-Token": toks})
    s = client.get(f"/api/games/{gid}").json()
    text = client.get(f"/api/games/{gid}/record").text
    (rec,) = loads(text)
    assert rec.tags["TimeControl"] == "300+3"
    moves = s["moves"]
    # the turn with the row: one line, its time the sum of its three actions, left what the last one left
    row_line = rec.turns[-2]
    assert row_line.tokens == [m["text"] for m in moves[start:-1]]
    spent, left = turn_times(row_line)  # type: ignore[misc]
    assert spent == pytest.approx(sum(m["spent_ms"] for m in moves[start:-1]) / 1000, abs=0.0015)
    assert left == moves[-2]["left_ms"] / 1000
    assert all(turn_times(t) is not None for t in rec.turns)
    # round trip: written again, the same text; replayed, the same game
    assert Record(rec.game, rec.tags, rec.turns).dumps() == text
    assert rec.replay().position() == s["position"]
    # a flag is written as the seat's resignation, with Termination "time"
    gid, toks, _ = create(client, clock={"initial": 1})
    wait_for(lambda: client.get(f"/api/games/{gid}").json()["status"] == "finished", timeout=10)
    (rec,) = loads(client.get(f"/api/games/{gid}/record").text)
    assert rec.tags["Termination"] == "time" and rec.tags["Result"] == "black" and rec.turns[-1].tokens == ["resign"]
    assert turn_times(rec.turns[-1])[1] == 0  # type: ignore[index]


# -- abandonment: claiming a game without a clock against a seat that stays away --------------------------------------------

@pytest.fixture()
def quick_claim(tmp_path):
    """A site where a game without a clock may be claimed after 1 s without a move by the seat to decide."""
    from fastapi.testclient import TestClient

    from ringgames.server.app import create_app
    from ringgames.server.limits import Limits

    app = create_app(f"sqlite:///{tmp_path / 'claim.sqlite3'}", ai_workers=1, ai_delay=0, limits=Limits(claim_after_seconds=1.0))
    with TestClient(app) as c:
        yield c


def test_a_player_who_stays_away_can_be_claimed_against(quick_claim):
    from .conftest import two_humans

    c = quick_claim
    gid, t0, t1 = two_humans(c)
    r = c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": t0})
    assert 0 < r.json()["claim_in"] <= 1000
    claim = lambda tok: as_stranger(c, "POST", f"/api/games/{gid}/claim", headers={"X-Seat-Token": tok})  # noqa: E731
    r = claim(t0)
    assert r.status_code == 409 and r.json()["error"] == "not_claimable" and r.json()["claim_in"] > 0  # too early
    time.sleep(1.1)
    assert claim(t1).status_code == 403  # not against oneself
    s = c.get(f"/api/games/{gid}").json()
    assert s["claim_in"] == 0 and s["status"] == "live"
    r = claim(t0)
    s = r.json()
    assert r.status_code == 200 and (s["status"], s["reason"], s["winners"], s["result"]) == ("finished", "abandoned", [0], "white")
    assert s["moves"][-1]["text"] == "abandoned" and s["moves"][-1]["seat"] == 1 and s["claim_in"] is None
    assert claim(t0).json()["error"] == "game_over"
    # clocked games are decided by their clocks: no claim
    gid, toks, d = create(c, clock={"initial": 600})
    assert d["claim_in"] is None
    time.sleep(1.1)
    assert c.post(f"/api/games/{gid}/claim", headers={"X-Seat-Token": toks}).json()["error"] == "not_claimable"


def test_the_away_time_survives_a_reload_from_the_database(tmp_path):
    async def main():
        url = f"sqlite:///{tmp_path / 'away.sqlite3'}"
        hub = Hub(url, run_computers=False, run_clocks=False, claim_seconds=1.0)
        await hub.start()
        try:
            room, mine, _ = await hub.create("yinsh", None, None, [{"kind": "me"}, {"kind": "me"}])
            await hub.act(room.id, "e5", list(mine.values()), 0)
            await asyncio.sleep(1.1)
            hub.evict_idle(0)  # the next request reads the game again: the turn started at the stored move's time
            again = await hub.room(room.id)
            assert again is not room and hub.claim_in(again) == 0
            done = await hub.claim(room.id, [mine[0]])
            assert hub.snapshot(done)["reason"] == "abandoned"
        finally:
            await hub.stop()

    run(main())


# -- games of computers only stop --------------------------------------------------------------------------------------------

def test_a_game_of_computers_only_stops_after_its_time(tmp_path):
    async def main():
        hub = Hub(f"sqlite:///{tmp_path / 'cpu.sqlite3'}", ai_workers=1, ai_delay=0.1, run_clocks=False, computer_max_seconds=0.6)
        await hub.start()
        try:
            room, _, _ = await hub.create("yinsh", None, None, [{"kind": "computer", "level": 0}, {"kind": "computer", "level": 0}])
            for _ in range(300):
                await asyncio.sleep(0.1)
                if room.over:
                    break
            s = hub.snapshot(room)
            assert (s["status"], s["reason"], s["result"], s["winners"], s["to_move"]) == ("finished", "stopped", "none", [], None)
            assert 0 < s["ply"] < 60  # stopped in the middle of the game, after about 0.6 s
            assert [g["id"] for g in hub.list_games("finished")] == [room.id]
            # a game with a human seat is not stopped
            mixed, mine, _ = await hub.create("yinsh", None, None, [{"kind": "me"}, {"kind": "computer", "level": 0}])
            for i in range(4):
                await hub.act(mixed.id, mixed.state.legal_actions()[0], list(mine.values()), 2 * i)
                for _ in range(100):
                    if len(mixed.state.history) == 2 * i + 2:
                        break
                    await asyncio.sleep(0.05)
            assert len(mixed.state.history) == 8 and not mixed.over
        finally:
            await hub.stop()

    run(main())


# -- real time: claiming a game against a player who disconnected --------------------------------------------------------------

@pytest.fixture()
def quick_disconnect(tmp_path):
    """A site where a real-time game may be claimed 2 s after the seat to decide lost its last WebSocket."""
    from fastapi.testclient import TestClient

    from ringgames.server.app import create_app
    from ringgames.server.limits import Limits

    app = create_app(f"sqlite:///{tmp_path / 'gone.sqlite3'}", ai_workers=1, ai_delay=0,
                     limits=Limits(disconnect_claim_seconds=2.0, presence_heartbeat_seconds=0.2))
    with TestClient(app) as c:
        yield c


def test_a_real_time_game_is_claimed_after_a_disconnection(quick_disconnect, tmp_path):
    from .conftest import two_humans

    c = quick_disconnect
    db = tmp_path / "gone.sqlite3"
    gid, t0, t1 = two_humans(c, clock={"initial": 600, "increment": 0})
    c.cookies.clear()
    claim = lambda: c.post(f"/api/games/{gid}/claim", headers={"X-Seat-Token": t0})  # noqa: E731
    r = c.post(f"/api/games/{gid}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": t0})
    assert r.status_code == 200 and r.json()["claim_in"] is None  # bob never connected: the clock decides
    assert claim().json()["error"] == "not_claimable"
    with c.websocket_connect(f"/ws/games/{gid}", headers={"X-Seat-Token": t1}) as ws:
        hello = ws.receive_json()
        assert hello["my_seats"] == [1] and hello["state"]["claim_in"] is None
        assert db_rows(db, "select seat, connections from seat_presence where game_id = ?", gid) == [(1, 1)]
        time.sleep(2.2)  # connected for longer than the claim time: still no claim
        r = claim()
        assert r.status_code == 409 and r.json()["error"] == "not_claimable" and "connected" in r.json()["message"]
        assert c.get(f"/api/games/{gid}").json()["claim_in"] is None
    # bob's page closed (the server learns it a moment later): the claim comes 2 s after; alice's connection is told
    wait_for(lambda: db_rows(db, "select seat, connections from seat_presence where game_id = ?", gid) == [(1, 0)], timeout=5)
    with c.websocket_connect(f"/ws/games/{gid}", headers={"X-Seat-Token": t0}) as ws:
        hello = ws.receive_json()
        assert hello["my_seats"] == [0]
        assert db_rows(db, "select seat, connections from seat_presence where game_id = ? order by seat", gid) == [(0, 1), (1, 0)]
        assert 0 < hello["state"]["claim_in"] <= 2000
        r = claim()
        assert r.status_code == 409 and 0 < r.json()["claim_in"] <= 2000
        time.sleep(2.05)
        r = claim()
        assert r.status_code == 200, r.text
        s = r.json()
        assert (s["status"], s["reason"], s["winners"], s["result"]) == ("finished", "disconnected", [0], "white")
        assert s["moves"][-1]["text"] == "disconnected" and s["moves"][-1]["seat"] == 1 and s["clock_running"] is None
        msg = ws.receive_json()
        while msg["state"]["status"] != "finished":
            msg = ws.receive_json()
        assert msg["state"]["reason"] == "disconnected"
    assert '[Termination "disconnected"]' in c.get(f"/api/games/{gid}/record").text
    # correspondence games are decided by their days: no claim, connected or not
    gid, toks, d = create(c, correspondence={"days": 1})
    with c.websocket_connect(f"/ws/games/{gid}", headers={"X-Seat-Token": toks}):
        pass
    time.sleep(2.1)
    assert c.get(f"/api/games/{gid}").json()["claim_in"] is None


def test_every_state_says_which_seats_are_connected(quick_disconnect):
    """Issue 29: ``presence`` per seat in real-time games; the opponent's socket hears when a seat connects and when it
    goes away (with how long ago), the seat to move or not."""
    from .conftest import two_humans

    c = quick_disconnect
    gid, t0, t1 = two_humans(c, clock={"initial": 600, "increment": 0})
    c.cookies.clear()
    assert c.get(f"/api/games/{gid}").json()["presence"] == [None, None]  # nobody connected yet
    with c.websocket_connect(f"/ws/games/{gid}", headers={"X-Seat-Token": t0}) as alice:
        assert alice.receive_json()["state"]["presence"] == [{"connected": True, "away_ms": None}, None]
        with c.websocket_connect(f"/ws/games/{gid}", headers={"X-Seat-Token": t1}) as bob:
            assert bob.receive_json()["state"]["presence"] == [{"connected": True, "away_ms": None}] * 2
            assert alice.receive_json()["state"]["presence"] == [{"connected": True, "away_ms": None}] * 2
        msg = alice.receive_json()  # bob (not to move: white moves first) closed his page
        assert msg["type"] == "state" and msg["state"]["presence"][0] == {"connected": True, "away_ms": None}
        gone = msg["state"]["presence"][1]
        assert gone["connected"] is False and 0 <= gone["away_ms"] < 1000 and msg["state"]["claim_in"] is None
        time.sleep(0.5)
        away = c.get(f"/api/games/{gid}").json()["presence"][1]
        assert away["connected"] is False and away["away_ms"] >= 400
    # a game without a clock has no presence (claims there go by the time since the last move)
    gid, _, _ = two_humans(c)
    assert c.get(f"/api/games/{gid}").json()["presence"] is None


def test_presence_is_shared_by_server_processes_and_a_dead_process_stops_counting(tmp_path):
    """Two hubs on one database (two server processes): a seat connected to one cannot be claimed against through the
    other; once it disconnects it can; and a process that dies with a connection open stops counting after three beats."""
    presence_in_two_processes(f"sqlite:///{tmp_path / 'presence.sqlite3'}")


def presence_in_two_processes(url: str) -> None:
    async def main():
        a = Hub(url, run_computers=False, run_clocks=False, disconnect_claim_seconds=0.5, presence_heartbeat=0.3)
        b = Hub(url, run_computers=False, run_clocks=False, disconnect_claim_seconds=0.5, presence_heartbeat=0.3)
        await a.start()
        await b.start()
        try:
            seats = [{"kind": "me"}, {"kind": "invite"}]
            room, mine, inv = await a.create("yinsh", None, None, seats, time_control={"initial": 600})
            _, bob = await a.join(room.id, 1, "bob", inv[1])
            await a.act(room.id, "e5", [mine[0]], 0)
            await a.seats_connected(room, [1], True)  # bob's page is open on process a
            await asyncio.sleep(1.2)  # a beats (longer than stale: connected all the same); b reads the database
            with pytest.raises(ApiError) as e:
                await b.claim(room.id, [mine[0]])
            assert e.value.code == "not_claimable" and e.value.extra.get("claim_in") is None
            await a.seats_connected(room, [1], False)  # closed
            other = await b.room(room.id)
            await asyncio.to_thread(b.presence.read, [room.id])
            assert 0 <= b.claim_in(other) <= 500  # type: ignore[operator]
            await asyncio.sleep(0.55)
            done = await b.claim(room.id, [mine[0]])
            assert b.snapshot(done)["reason"] == "disconnected"

            # a process that dies with bob connected: its count stays, its beats stop
            room, mine, inv = await a.create("yinsh", None, None, seats, time_control={"initial": 600})
            await a.join(room.id, 1, "bob", inv[1])
            await a.act(room.id, "e5", [mine[0]], 0)
            await a.seats_connected(room, [1], True)
            await a.stop()  # gone without closing the WebSocket
            with b.Session() as s:
                assert s.get(PresenceRow, (room.id, 1)).connections == 1  # type: ignore[union-attr]
            with pytest.raises(ApiError):
                await b.claim(room.id, [mine[0]])
            await asyncio.sleep(0.9 + 0.5 + 0.1)  # three missed beats (stale), then the claim time
            done = await b.claim(room.id, [mine[0]])
            assert b.snapshot(done)["reason"] == "disconnected"
        finally:
            await a.stop()
            await b.stop()

    run(main())


def test_migration_0006_adds_presence_to_a_database_with_games(tmp_path):
    from sqlalchemy import create_engine, text

    from ringgames.server.db import migrate

    url = f"sqlite:///{tmp_path / 'm.sqlite3'}"
    migrate(url, "0005")
    eng = create_engine(url)
    with eng.begin() as conn:
        conn.execute(text("insert into games (id, game, variant, players, seats, status, source, start, tags, draw_offers, result, ply,"
                          " created, updated, rated, time_control) values ('000000000001', 'yinsh', 'standard', 2, '[]', 'live',"
                          " 'play', null, '{}', '[]', 'none', 0, '2026-12-01 00:00:00', '2026-12-01 00:00:00', 0,"
                          " '{\"initial\": 60, \"increment\": 0}')"))
    migrate(url)
    with eng.begin() as conn:
        assert conn.execute(text("select version_num from alembic_version")).scalar() == "0006"
        assert conn.execute(text("select count(*) from games")).scalar() == 1
        conn.execute(text("insert into seat_presence (game_id, seat, seen_ms) values ('000000000001', 1, 5)"))
        assert conn.execute(text("select connections, seen_ms from seat_presence")).all() == [(0, 5)]
    from pathlib import Path

    from alembic import command
    from alembic.config import Config

    import ringgames.server.db as db
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    cfg.set_main_option("sqlalchemy.url", url)
    command.downgrade(cfg, "0005")  # and back down
    with eng.connect() as conn:
        assert "seat_presence" not in [r[0] for r in conn.execute(text("select name from sqlite_master where type = 'table'"))]
    eng.dispose()
