"""``ringgames serve`` leaves no process behind: on SIGTERM it stops its computer players (also while they think),
and when it is killed outright (SIGKILL) they notice that their parent is gone and end themselves."""

import json
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from ringgames.server.testing import ServerProcess

from .conftest import wait_for


def group_processes(pgid: int) -> list[tuple[int, int, str]]:
    """(pid, parent pid, command) of the live (not zombie) processes of process group ``pgid`` (from /proc)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, ...
        if fields[0] != "Z" and int(fields[2]) == pgid:
            out.append((int(d.name), int(fields[1]), cmd))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_no_computer_player_outlives_the_server(tmp_path, sig):
    srv = ServerProcess(f"sqlite:///{tmp_path / 's.sqlite3'}", ai_delay=0, ai_workers=2, log=tmp_path / "server.log").start()
    pid = srv.proc.pid  # the server leads its own process group (start_new_session): its children stay in it
    try:
        c = httpx.Client(base_url=srv.url, timeout=10)
        level3 = {"kind": "computer", "level": 3}
        games = [c.post("/api/games", json={"game": "yinsh", "seats": [level3, {"kind": "me"}]}).json()["id"],
                 c.post("/api/games", json={"game": "yinsh", "seats": [level3, level3]}).json()["id"]]
        # the computers are at work: the pools' processes (and multiprocessing's resource tracker) run
        wait_for(lambda: len([p for p in group_processes(pid) if p[0] != pid]) >= 3, timeout=60)
        wait_for(lambda: all(c.get(f"/api/games/{g}").json()["ply"] >= 1 for g in games), timeout=120)
        assert any(p[1] == pid for p in group_processes(pid))
        os.kill(pid, sig)  # the server alone, not its group
        srv.proc.wait(20)
        deadline = time.time() + 8
        while time.time() < deadline and group_processes(pid):
            time.sleep(0.1)
        assert group_processes(pid) == [], group_processes(pid)
    finally:
        srv.kill()
        for p, *_ in group_processes(pid):
            os.kill(p, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_serve_starts_the_quick_computer_players_with_the_server(tmp_path):
    """``ringgames serve`` (``--ai-prestart``, the default) starts the quick lane's processes before any game, so a
    first level-1 reply does not wait for one to spawn and compile; SIGTERM ends them like any other."""
    srv = ServerProcess(f"sqlite:///{tmp_path / 's.sqlite3'}", ai_delay=0, ai_workers=2, log=tmp_path / "server.log").start()
    pid = srv.proc.pid
    try:
        def workers():
            return [p for p in group_processes(pid) if p[1] == pid and "spawn_main" in p[2]]

        wait_for(lambda: len(workers()) == 2, timeout=60)  # no game was created: these are the prestarted ones
        os.kill(pid, signal.SIGTERM)
        srv.proc.wait(20)
        deadline = time.time() + 8
        while time.time() < deadline and group_processes(pid):
            time.sleep(0.1)
        assert group_processes(pid) == [], group_processes(pid)
    finally:
        srv.kill()
        for p, *_ in group_processes(pid):
            os.kill(p, signal.SIGKILL)


# -- SIGTERM of one of several processes under a stream of moves (issue 33) ------------------------------------------

#: games played in the SIGTERM test: over WebSockets and over HTTP, all of their players on the process that is stopped
WS_GAMES, HTTP_GAMES = 4, 3
#: SIGTERM comes once this many moves were acknowledged; every game then plays on to this ply and its player resigns
KILL_AFTER, LAST_PLY = 40, 80


def _stored_moves(db_url: str, gid: str) -> list[tuple[int, str]]:
    """(ply, text) of the moves of game ``gid`` as the database has them."""
    import sqlalchemy as sa

    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text("SELECT ply, text FROM moves WHERE game_id = :g ORDER BY ply"), {"g": gid})]
    finally:
        engine.dispose()


def test_sigterm_under_a_stream_of_moves_keeps_every_acknowledged_move(postgres_url, redis_url, tmp_path):
    """Two processes on PostgreSQL + Redis; the players of 7 games (4 over WebSockets, 3 over HTTP) all on process A,
    a spectator of each game on process B. A gets SIGTERM while the moves stream in: it stops accepting connections
    and exits by itself, with no child process left (its computer players were busy); every move it acknowledged (an
    HTTP 200, a WebSocket state) is in the database; the players reconnect to B and finish their games there; and the
    spectators on B see every ply of every game once, in order, across the stop."""
    import json
    import random
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from ringgames.server.loadbench import BENCH_LIMITS

    extra = ["--redis", redis_url, *BENCH_LIMITS]
    a = ServerProcess(postgres_url, ai_workers=1, log=tmp_path / "a.log", extra_args=extra).start(60)
    b = ServerProcess(postgres_url, ai_workers=1, log=tmp_path / "b.log", extra_args=extra).start(60)
    assert a.proc is not None
    pid = a.proc.pid
    acked: dict[str, dict[int, str]] = {}  # game -> ply -> text of every move a server acknowledged
    total = [0]
    stale = [0]  # moves answered stale_ply after the stop
    lock = threading.Lock()
    stop_watching = threading.Event()
    try:
        # a computer-only game on A: its computer players' process (and multiprocessing's resource tracker) run
        comp = {"kind": "computer", "level": 2}
        httpx.post(f"{a.url}/api/games", json={"game": "yinsh", "seats": [comp, comp]}, timeout=10).raise_for_status()
        wait_for(lambda: len([p for p in group_processes(pid) if p[0] != pid]) >= 2, timeout=60)
        games = []
        for _ in range(WS_GAMES + HTTP_GAMES):
            d = httpx.post(f"{a.url}/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "invite"}]}, timeout=10).json()
            j = httpx.post(f"{a.url}/api/games/{d['id']}/join", json={"seat": 1, "token": d["invites"]["1"].split("token=")[1]}, timeout=10)
            assert j.status_code == 200, j.text
            games.append((d["id"], d["tokens"]["0"] + "." + j.json()["token"]))  # one client holds both seats
            acked[d["id"]] = {}
        seen: dict[str, list[int]] = {g: [] for g, _ in games}

        def watch(gid: str) -> None:  # a spectator on B: the plies of the states it gets
            with connect(f"ws://127.0.0.1:{b.port}/ws/games/{gid}", open_timeout=10) as c:
                assert json.loads(c.recv(10))["type"] == "hello"
                while not stop_watching.is_set():
                    try:
                        m = json.loads(c.recv(0.2))
                    except TimeoutError:
                        continue
                    if m["type"] == "state":
                        seen[gid].append(m["state"]["ply"])

        def ack(gid: str, st: dict) -> None:
            ply = st["ply"] - 1
            with lock:
                acked[gid][ply] = st["moves"][ply]["text"]
                total[0] += 1

        def check_prefix(gid: str, st: dict) -> None:
            """A state read from B after the stop holds every acknowledged move."""
            moves = {m["ply"]: m["text"] for m in st["moves"]}
            assert all(moves.get(p) == t for p, t in acked[gid].items()), (gid, acked[gid], moves)

        def over(st: dict) -> bool:
            return st["to_move"] is None

        def ws_player(gid: str, tokens: str, rng: random.Random) -> dict:
            srv, moved = a, False
            while True:
                with connect(f"ws://127.0.0.1:{srv.port}/ws/games/{gid}", additional_headers={"X-Seat-Token": tokens},
                             open_timeout=10) as c:
                    st = json.loads(c.recv(10))["state"]
                    if moved:
                        check_prefix(gid, st)
                    try:
                        while not over(st):
                            resign = st["ply"] >= LAST_PLY
                            msg = {"type": "resign", "seat": st["to_move"]} if resign else \
                                {"type": "action", "action": rng.choice(st["legal"]), "ply": st["ply"]}
                            ply = st["ply"]
                            c.send(json.dumps(msg))
                            while True:
                                m = json.loads(c.recv(10))
                                if m["type"] == "error" and moved and m["error"] == "stale_ply":
                                    # a move A committed as it stopped reached B after this client's hello: the
                                    # answer says so, and the state with that move follows
                                    stale[0] += 1
                                    st = _until(c, m["ply"])
                                    break
                                assert m["type"] != "error", m
                                if m["type"] == "state" and m["state"]["ply"] > ply:
                                    st = m["state"]
                                    ack(gid, st)
                                    break
                        return st
                    except ConnectionClosed:
                        assert srv is a, "only A's connections close"
                        srv, moved = b, True

        def http_player(gid: str, tokens: str, rng: random.Random) -> dict:
            srv, moved = a, False
            c = httpx.Client(timeout=10, headers={"X-Seat-Token": tokens})
            st = c.get(f"{srv.url}/api/games/{gid}").json()
            while not over(st):
                try:
                    if st["ply"] >= LAST_PLY:
                        r = c.post(f"{srv.url}/api/games/{gid}/resign", json={"seat": st["to_move"]})
                    else:
                        r = c.post(f"{srv.url}/api/games/{gid}/actions", json={"action": rng.choice(st["legal"]), "ply": st["ply"]})
                except httpx.TransportError:  # A is gone (or closing this connection): not acknowledged
                    assert srv is a, "only A stops"
                    srv, moved = b, True
                    st = c.get(f"{srv.url}/api/games/{gid}").json()
                    check_prefix(gid, st)
                    continue
                if moved and r.status_code == 409 and r.json()["error"] == "stale_ply":  # (as over WebSockets)
                    stale[0] += 1
                    st = c.get(f"{srv.url}/api/games/{gid}").json()
                    continue
                assert r.status_code == 200, r.text
                st = r.json()
                ack(gid, st)
            assert moved or srv is a
            return st

        with ThreadPoolExecutor(2 * len(games)) as pool:
            try:
                watchers = [pool.submit(watch, g) for g, _ in games]
                time.sleep(1.0)  # the spectators are connected
                rng = random.Random(5)
                players = [pool.submit(ws_player if i < WS_GAMES else http_player, g, t, random.Random(rng.random()))
                           for i, (g, t) in enumerate(games)]
                # every game under way (its client acknowledged a few moves) and KILL_AFTER moves in all
                wait_for(lambda: (total[0] >= KILL_AFTER and all(len(v) >= 3 for v in acked.values()))
                         or any(p.done() for p in players), timeout=120)
                assert not any(p.done() for p in players), [p.result() for p in players if p.done()]
                os.kill(pid, signal.SIGTERM)  # the server alone, not its process group
                acked_at_stop = total[0]
                t0 = time.time()
                # it stops accepting connections at once
                wait_for(lambda: not _answers(a.url), timeout=5)
                a.proc.wait(30)
                stopped_in = time.time() - t0
                finals = {g: p.result(timeout=180) for (g, _), p in zip(games, players, strict=True)}
                deadline = time.time() + 10
                while time.time() < deadline and any(seen[g][-1:] != [finals[g]["ply"]] for g in seen):
                    time.sleep(0.1)
                stop_watching.set()
                for w in watchers:
                    w.result(timeout=10)
            # uvicorn raises the signal again once its shutdown is done, so that the exit status tells what stopped it
            finally:  # (else the pool would wait for the spectators for ever)
                stop_watching.set()
        assert a.proc.returncode in (0, -signal.SIGTERM), a.proc.returncode
        assert stopped_in < 20, stopped_in
        deadline = time.time() + 8
        while time.time() < deadline and group_processes(pid):
            time.sleep(0.1)
        assert group_processes(pid) == [], group_processes(pid)
        for gid, st in finals.items():
            assert st["result"] != "none" and st["ply"] > KILL_AFTER // len(games)
            stored = _stored_moves(postgres_url, gid)
            assert [p for p, _ in stored] == list(range(st["ply"])), gid  # nothing lost, nothing twice
            assert {p: t for p, t in stored if p in acked[gid]} == acked[gid]  # every acknowledged move, as acknowledged
            assert [(m["ply"], m["text"]) for m in st["moves"]] == stored
            assert seen[gid] == list(range(1, st["ply"] + 1)), (gid, seen[gid])  # the spectator: once each, in order
        # moves A committed while it stopped whose answer never came (each is in the database, none twice: above)
        print(f"A stopped in {stopped_in:.2f} s; moves acknowledged before the stop: {acked_at_stop}; stale_ply after it: {stale[0]}; "
              f"stored but not acknowledged: {sum(len(_stored_moves(postgres_url, g)) - len(acked[g]) for g in finals)}")
        log = (tmp_path / "a.log").read_text(errors="replace")
        assert "Traceback" not in log, log[-3000:]
    finally:
        stop_watching.set()
        a.kill()
        b.stop()
        for p, *_ in group_processes(pid):
            os.kill(p, signal.SIGKILL)


def _until(c, ply: int) -> dict:
    """Read WebSocket ``c`` until a state at ``ply`` or later arrives."""
    while True:
        m = json.loads(c.recv(10))
        if m["type"] == "state" and m["state"]["ply"] >= ply:
            return m["state"]


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.TransportError:
        return False
