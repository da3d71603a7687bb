"""Computer moves as jobs (server/computer.py): lanes that keep short decisions from waiting behind long searches,
a retry when a worker dies or an agent fails, ``computer_failed`` for the players after the second failure, and the
search state kept between a seat's decisions."""

import asyncio
import os
import signal
import time

import pytest

from ringgames import load_game
from ringgames.ai.agents import make_agent
from ringgames.server import computer
from ringgames.server.computer import ComputerFailed, Computers, lane_for, think

from .aio import run
from .conftest import as_stranger, wait_for

#: what a level-1 reply may take beyond its own thinking while the deep lane is busy (seconds): the time of
#: getting the job to its process and back, on a loaded machine
FAIRNESS_BOUND = 1.0


def test_lanes_by_level_clock_and_kind():
    assert lane_for("level:1", "yinsh", 2, bot=False) == "quick"
    assert lane_for("level:3", "yinsh", 2, bot=False) == "quick"
    assert lane_for("random", "yinsh", 2, bot=False) == "quick"
    assert lane_for("level:4", "yinsh", 2, bot=False) == "deep"
    assert lane_for("level:5", "gyges", 2, bot=False) == "deep"
    assert lane_for("level:5,scale=0.1", "yinsh", 2, bot=False) == "quick"  # a clock left it half a second
    assert lane_for("level:1", "yinsh", 2, bot=True) == "bot"


def _opening(plies: int = 12):
    s = load_game("yinsh").new_initial_state()
    agent = make_agent("random:seed=5")
    for _ in range(plies):
        s.apply_action(agent.choose(s))
    return s


def test_a_level_1_reply_does_not_wait_behind_level_5_searches():
    """Fairness: three 5-second searches (level 5) of three games are queued, then a level-1 decision of a fourth
    game; it is answered within its own thinking time plus FAIRNESS_BOUND, while the searches go on."""
    s = _opening()

    async def scenario():
        comp = Computers(quick=1, deep=1)
        try:
            await comp.choose("warm", 0, "random", s.serialize(), "quick")  # the processes start once
            deep = [asyncio.create_task(comp.choose(f"g{i}", s.current_player(), "level:5", s.serialize(), "deep"))
                    for i in range(3)]
            await asyncio.sleep(0.5)
            t0 = time.perf_counter()
            a = await comp.choose("human-game", s.current_player(), "level:1", s.serialize(), "quick")
            took = time.perf_counter() - t0
            t1 = time.perf_counter()
            think("alone", s.current_player(), "level:1", s.serialize())  # its own budget: the same decision here
            own = time.perf_counter() - t1
            stats = comp.stats()
            assert not any(t.done() for t in deep)
            for t in deep:
                t.cancel()
            return a, took, own, stats
        finally:
            await comp.close()

    a, took, own, stats = run(scenario())
    assert a in s.legal_actions()
    assert stats["deep"]["busy"] == 1 and stats["deep"]["waiting"] == 2
    print(f"level-1 reply with 3 level-5 searches queued: {took:.3f} s (alone: {own:.3f} s)")
    assert took <= own + FAIRNESS_BOUND, (took, own)


def test_a_job_whose_worker_dies_is_run_again():
    s = _opening()

    async def scenario():
        comp = Computers(quick=1, deep=1)
        try:
            await comp.choose("g", s.current_player(), "random", s.serialize(), "deep")  # the process is warm
            [pid] = comp.pids("deep")
            job = asyncio.create_task(comp.choose("g", s.current_player(), "alphabeta:time=2", s.serialize(), "deep"))
            await asyncio.sleep(0.7)  # mid-search
            assert comp.stats()["deep"]["busy"] == 1
            os.kill(pid, signal.SIGKILL)
            a = await asyncio.wait_for(job, 60)
            return a, pid, comp.pids("deep"), comp.stats(), comp.failures
        finally:
            await comp.close()

    a, dead, pids, stats, failures = run(scenario())
    assert a in s.legal_actions()
    assert pids and dead not in pids  # a new process took the job
    assert stats["deep"]["done"] == 2 and failures == 0


def test_a_job_that_fails_twice_is_reported():
    s = _opening()

    async def scenario():
        comp = Computers(quick=1)
        try:
            with pytest.raises(ComputerFailed, match="depth"):
                await comp.choose("g", 0, "alphabeta:depth=99", s.serialize(), "quick")
            return comp.failures
        finally:
            await comp.close()

    assert run(scenario()) == 1


def test_computer_failed_reaches_the_players_and_retry_plays_on(make_client):
    c = make_client()
    d = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "computer", "level": 1}]}).json()
    gid = d["id"]
    hub = c.app.state.hub
    room = hub.rooms[gid]
    seat = room.row.seats[1]
    seat["spec"] = "alphabeta:depth=99"  # an agent that fails every time
    with c.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "hello"
        assert c.post(f"/api/games/{gid}/actions", json={"action": d["legal"][0], "ply": 0}).status_code == 200
        seen = []
        while not any(m["type"] == "computer_failed" for m in seen):
            seen.append(ws.receive_json())
        m = next(m for m in seen if m["type"] == "computer_failed")
        assert (m["seat"], m["ply"]) == (1, 1) and "depth" in m["message"]
        g = c.get(f"/api/games/{gid}").json()
        assert g["computer_failed"]["seat"] == 1 and g["ply"] == 1 and g["to_move"] == 1
        # strangers may not ask for another try; the player may
        other = as_stranger(c, "POST", f"/api/games/{gid}/computer/retry")
        assert other.status_code == 403 and other.json()["error"] == "not_your_seat"
        seat["spec"] = "level:1"
        r = c.post(f"/api/games/{gid}/computer/retry")
        assert r.status_code == 200, r.text
        assert r.json()["computer_failed"] is None
    g = wait_for(lambda: (x := c.get(f"/api/games/{gid}").json())["ply"] >= 2 and x)
    assert g["computer_failed"] is None
    r = c.post(f"/api/games/{gid}/computer/retry")
    assert r.status_code == 409 and r.json()["error"] == "no_computer_failure"


@pytest.mark.parametrize("spec", ["alphabeta:depth=2,seed=3", "mcts:iterations=300,seed=3", "level:2,seed=3"])
def test_kept_search_state_plays_the_moves_of_one_agent_kept_for_the_game(spec):
    """The worker's kept agent (advanced with the opponent's moves, never rebuilt) decides as one agent kept for the
    whole game does (``ringgames match``); after its first decision every decision reuses the state."""
    computer._SEATS.clear()
    game = load_game("yinsh")
    ref = game.new_initial_state()
    agents = [make_agent(spec), make_agent(spec)]
    seq = []
    while not ref.is_terminal() and len(seq) < 40:
        a = agents[ref.current_player()].choose(ref)
        seq.append(a)
        ref.apply_action(a)
    s = game.new_initial_state()
    reused = []
    for want in seq:
        a, r = think("g", s.current_player(), spec, s.serialize())
        assert a == want
        reused.append(r)
        s.apply_action(a)
    assert reused[:2] == [False, False] and all(reused[2:])
    # another spec for the seat, or a history that does not continue the kept one (a takeback): rebuilt
    seat = s.current_player()
    assert think("g", seat, "random", s.serialize())[1] is False
    s.undo_action()
    s.undo_action()
    s.undo_action()
    assert think("g", s.current_player(), "random", s.serialize())[1] is False


def test_a_games_decisions_go_back_to_the_process_that_kept_its_state():
    """Sticky routing: with two processes in the lane, a game's later decisions go to the process of its first one,
    which continues its kept state (counted as reused)."""
    game = load_game("yinsh")

    async def scenario():
        comp = Computers(quick=2)
        try:
            s = game.new_initial_state()
            other = game.new_initial_state()
            for _ in range(8):
                a = await comp.choose("g", s.current_player(), "level:2", s.serialize(), "quick")
                await comp.choose("h", other.current_player(), "level:2", other.serialize(), "quick")
                s.apply_action(a)
                other.apply_action(other.legal_actions()[0])
            return comp.stats()["quick"], len(comp.pids("quick"))
        finally:
            await comp.close()

    stats, procs = run(scenario())
    assert procs == 2 and stats["done"] == 16
    assert stats["reused"] == 16 - 4  # each game's two seats start once, in their process; every later decision reuses


def test_a_clocked_level_keeps_its_agent_with_a_new_time_budget():
    """On a clock each decision's spec carries another share of the level's time (``level:4,scale=...``): the kept
    agent is retimed, not rebuilt."""
    computer._SEATS.clear()
    s = _opening()
    me = s.current_player()
    assert think("c", me, "level:4,scale=0.01", s.serialize())[1] is False
    agent = computer._SEATS[("c", me)].agent
    inner = agent.agent_for("yinsh")
    assert inner.time_limit == pytest.approx(0.02)  # level 4: 2 s
    for _ in range(2):
        s.apply_action(s.legal_actions()[0])
    assert think("c", me, "level:4,scale=0.02", s.serialize())[1] is True
    assert computer._SEATS[("c", me)].agent is agent and inner.time_limit == pytest.approx(0.04)
    assert think("c", me, "level:3,scale=0.02", s.serialize())[1] is False  # another level: another agent


def _sched(pid: int) -> tuple[int, int]:
    """(scheduling policy, niceness) of process ``pid``, read from /proc (fields 41 and 19 of ``stat``)."""
    from pathlib import Path

    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[38]), int(fields[16])


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads the scheduling policy from Linux's /proc")
def test_deep_and_bot_lanes_run_as_background_work_and_the_quick_lane_does_not():
    """The deep lane's and the computer-only games' processes run at SCHED_IDLE (where the system has it) and nice 19;
    the quick lane's at the server's own policy and niceness; the test's process (the server here) is unchanged."""
    s = _opening()
    own = _sched(os.getpid())

    async def scenario():
        comp = Computers(quick=1, deep=1, bot=1)
        try:
            for lane in ("quick", "deep", "bot"):
                await comp.choose("g", s.current_player(), "random", s.serialize(), lane)
            return {lane: [_sched(p) for p in comp.pids(lane)] for lane in ("quick", "deep", "bot")}
        finally:
            await comp.close()

    got = run(scenario())
    idle = getattr(os, "SCHED_IDLE", None)
    assert computer.DEEP_NICE == computer.BOT_NICE == 19
    assert got["quick"] == [own]
    for lane in ("deep", "bot"):
        [(policy, nice)] = got[lane]
        assert nice == min(19, own[1] + 19)
        assert policy == (idle if idle is not None else own[0]), (lane, policy)
    assert _sched(os.getpid()) == own
    print(f"quick {got['quick']}, deep {got['deep']}, bot {got['bot']} (policy, nice); SCHED_IDLE = {idle}")


def test_deep_lane_processes_leave_a_core_to_the_server():
    assert computer.deep_workers(2, cores=2) == 1
    assert computer.deep_workers(4, cores=2) == 1  # never as many as the cores
    assert computer.deep_workers(8, cores=4) == 3
    assert computer.deep_workers(4, cores=8) == 2  # half the quick lane's
    assert computer.deep_workers(1, cores=1) == 1  # at least one


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (ended, not yet reaped) counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_prestart_starts_the_quick_processes_before_any_job():
    """``ringgames serve`` prestarts the quick lane: its processes are up (started and compiled) before the first
    decision, which then runs in one of them; the deep and bot lanes still start with their first jobs."""
    s = _opening()

    async def scenario():
        comp = Computers(quick=2, deep=1, prestart=True)
        try:
            await comp.start()
            started = comp.pids("quick")
            pids = await asyncio.wait_for(asyncio.gather(*comp.prestarted), 60)  # each ran in its own process
            deep_before = comp.pids("deep")
            a = await comp.choose("g", s.current_player(), "level:1", s.serialize(), "quick")
            return started, sorted(pids), comp.pids("quick"), deep_before, a, comp.stats()
        finally:
            await comp.close()

    started, pids, after, deep_before, a, stats = run(scenario())
    assert len(started) == 2 and sorted(started) == pids
    assert sorted(after) == pids  # the first decision ran in a prestarted process: no new one
    assert deep_before == []
    assert a in s.legal_actions()
    assert stats["quick"]["done"] == 1  # the warm-up jobs are not decisions


def test_closing_while_the_prestarted_processes_warm_up_leaves_none_behind():
    async def scenario():
        comp = Computers(quick=2, prestart=True)
        await comp.start()
        pids = comp.pids("quick")
        await comp.close()
        return pids

    pids = run(scenario())
    assert len(pids) == 2
    assert not any(_alive(p) for p in pids)


def test_without_prestart_no_process_starts_before_a_job():
    async def scenario():
        comp = Computers(quick=2)
        try:
            await comp.start()
            return comp.pids("quick"), comp.prestarted
        finally:
            await comp.close()

    assert run(scenario()) == ([], [])
