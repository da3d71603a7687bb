"""Several ``ringgames serve`` processes on one PostgreSQL database and one Redis serve the same games (issue 33):
players on different processes play a game to the end, a spectator on a third process sees every move once and in
order, the database orders the moves of a game (two processes accepting the same ply: one wins, the other answers
409), and a process killed mid-game loses nothing: its clients reconnect to another one and play on."""

import contextlib
import json
import random
import time

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from ringgames.server.errors import ApiError
from ringgames.server.loadbench import BENCH_LIMITS
from ringgames.server.testing import ServerProcess

#: games played at random end within this many plies almost always; the rest are ended by a resignation
MAX_PLIES = 400


@pytest.fixture(scope="module")
def cluster(postgres_server, redis_server, tmp_path_factory):
    """Three server processes (A, B, C) on one new PostgreSQL database and one Redis database."""
    db, redis_url = postgres_server.create_database(), redis_server.fresh_url()
    logs = tmp_path_factory.mktemp("cluster")
    procs = []
    try:
        for name in "abc":
            procs.append(ServerProcess(db, log=logs / f"{name}.log", extra_args=["--redis", redis_url, *BENCH_LIMITS]).start())
        yield procs
    finally:
        for p in procs:
            p.stop()


def new_game(a: ServerProcess, b: ServerProcess) -> tuple[str, str, str]:
    """A YINSH game created on ``a`` (seat 0) whose seat 1 is taken through ``b``: (id, token 0, token 1)."""
    d = httpx.post(f"{a.url}/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "invite"}]}, timeout=10).json()
    j = httpx.post(f"{b.url}/api/games/{d['id']}/join", json={"seat": 1, "token": d["invites"]["1"].split("token=")[1]}, timeout=10)
    assert j.status_code == 200, j.text
    return d["id"], d["tokens"]["0"], j.json()["token"]


def ws(stack: contextlib.ExitStack, srv: ServerProcess, gid: str, token: str | None = None) -> tuple[ClientConnection, dict]:
    """A WebSocket to game ``gid`` on ``srv`` (closed with ``stack``) and its ``hello`` state."""
    c = stack.enter_context(connect(f"ws://127.0.0.1:{srv.port}/ws/games/{gid}",
                                    additional_headers={"X-Seat-Token": token} if token else {}, open_timeout=10))
    hello = json.loads(c.recv(10))
    assert hello["type"] == "hello"
    return c, hello["state"]


def until_ply(c: ClientConnection, ply: int, seen: list[int]) -> dict:
    """Read ``c`` until the state at ``ply`` arrives (every state's ply is added to ``seen``); errors fail."""
    while True:
        m = json.loads(c.recv(10))
        assert m["type"] != "error", m
        if m["type"] == "state":
            seen.append(m["state"]["ply"])
            if m["state"]["ply"] >= ply:
                return m["state"]


def play(socks: list[ClientConnection], watchers: list[ClientConnection], st: dict, rng: random.Random, seen: dict,
         plies: int | None = None) -> dict:
    """Random legal moves by the seat to move on its own socket until the game ends (or ``plies`` more were played);
    each move is awaited on every socket (its own, the opponent's, the spectators')."""
    end = st["ply"] + (plies if plies is not None else MAX_PLIES)
    while st["to_move"] is not None and st["ply"] < end:
        p, ply = st["to_move"], st["ply"]
        socks[p].send(json.dumps({"type": "action", "action": rng.choice(st["legal"]), "ply": ply}))
        st = until_ply(socks[p], ply + 1, seen.setdefault(id(socks[p]), []))
        for c in [socks[1 - p], *watchers]:
            other = until_ply(c, ply + 1, seen.setdefault(id(c), []))
            assert other["moves"] == st["moves"]
    return st


def test_two_processes_play_a_game_to_the_end_and_a_third_one_watches(cluster):
    a, b, c = cluster
    stack = contextlib.ExitStack()
    gid, t0, t1 = new_game(a, b)
    x, st = ws(stack, a, gid, t0)
    y, _ = ws(stack, b, gid, t1)
    spectator, _ = ws(stack, c, gid)
    seen: dict = {}
    st = play([x, y], [spectator], st, random.Random(7), seen)
    if st["to_move"] is not None:  # a very long random game: ended by a resignation, the last entry
        x.send(json.dumps({"type": "resign"}))
        st = until_ply(x, st["ply"] + 1, [])
        until_ply(y, st["ply"], [])
        until_ply(spectator, st["ply"], seen[id(spectator)])
    assert st["to_move"] is None and st["result"] != "none" and st["ply"] > 20
    # the spectator on the third process saw every move once, in order
    assert seen[id(spectator)] == list(range(1, st["ply"] + 1))
    for p in (a, b, c):  # and every process, and the database, tell the same story
        s = httpx.get(f"{p.url}/api/games/{gid}", timeout=10).json()
        assert s["moves"] == st["moves"] and s["result"] == st["result"]
        assert [m["ply"] for m in s["moves"]] == list(range(st["ply"]))
    stack.close()


def test_the_database_orders_the_moves_of_a_game(cluster):
    """The same player sends a move for the same ply to two processes at once: exactly one is stored; the other
    process answers 409 stale_ply and then knows the new state (its cached room was read again)."""
    a, b, _ = cluster
    gid, t0, _t1 = new_game(a, b)
    for p in (a, b):  # both processes hold the game in memory
        assert httpx.get(f"{p.url}/api/games/{gid}", timeout=10).json()["ply"] == 0
    import concurrent.futures

    def move(srv, action):
        return httpx.post(f"{srv.url}/api/games/{gid}/actions", json={"action": action, "ply": 0},
                          headers={"X-Seat-Token": t0}, timeout=10)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        ra, rb = pool.map(move, (a, b), ("e5", "f6"))
    codes = sorted([ra.status_code, rb.status_code])
    assert codes == [200, 409], (ra.text, rb.text)
    lost = rb if rb.status_code == 409 else ra
    assert lost.json()["error"] == "stale_ply" and lost.json()["ply"] == 1
    won = (ra if ra.status_code == 200 else rb).json()
    for p in (a, b):
        s = httpx.get(f"{p.url}/api/games/{gid}", timeout=10).json()
        assert s["ply"] == 1 and s["moves"] == won["moves"]


def test_a_killed_process_loses_nothing_and_its_clients_move_to_another(cluster):
    a, b, c = cluster
    stack = contextlib.ExitStack()
    gid, t0, t1 = new_game(a, c)
    x, st = ws(stack, a, gid, t0)
    y, _ = ws(stack, c, gid, t1)
    spectator, _ = ws(stack, b, gid)
    seen: dict = {}
    rng = random.Random(11)
    st = play([x, y], [spectator], st, rng, seen, plies=12)
    assert st["ply"] == 12
    c.kill()  # SIGKILL: no shutdown code runs; seat 1's connection breaks
    y.close()
    y, st_y = ws(stack, a, gid, t1)  # seat 1 reconnects to a live process
    assert st_y["moves"] == st["moves"]
    st = play([x, y], [spectator], st_y, rng, seen, plies=12)
    assert st["ply"] == 24
    assert seen[id(spectator)] == list(range(1, 25))  # once each, in order, across the kill
    s = httpx.get(f"{b.url}/api/games/{gid}", timeout=10).json()
    assert [m["ply"] for m in s["moves"]] == list(range(24)) and s["moves"] == st["moves"]
    # a move resent after an outage (the client did not see its answer) is refused, never stored twice
    p = st["to_move"]
    last = st["legal"][0]
    sock = (x, y)[p]
    sock.send(json.dumps({"type": "action", "action": last, "ply": 24}))
    until_ply(sock, 25, [])
    sock.send(json.dumps({"type": "action", "action": last, "ply": 24}))
    err = json.loads(sock.recv(10))  # no state again: the error only
    assert err["type"] == "error" and err["error"] in ("stale_ply", "not_your_turn"), err
    deadline = time.time() + 5
    while time.time() < deadline:
        s = httpx.get(f"{b.url}/api/games/{gid}", timeout=10).json()
        if s["ply"] == 25:
            break
        time.sleep(0.05)
    assert [m["ply"] for m in s["moves"]] == list(range(25))
    stack.close()


def test_workers_share_one_port(postgres_url, redis_url, tmp_path):
    """``serve --workers 2``: two processes on one port; a game played through it keeps every move once, in order."""
    from .test_shutdown import group_processes

    srv = ServerProcess(postgres_url, log=tmp_path / "w.log", extra_args=["--redis", redis_url, "--workers", "2", *BENCH_LIMITS])
    srv.start(timeout=60)
    try:
        assert srv.proc is not None
        deadline = time.time() + 30
        while time.time() < deadline and sum("multiprocessing" in cmd for _, _, cmd in group_processes(srv.proc.pid)) < 2:
            time.sleep(0.2)
        assert sum("multiprocessing" in cmd for _, _, cmd in group_processes(srv.proc.pid)) >= 2
        with contextlib.ExitStack() as stack:
            gid, t0, t1 = new_game(srv, srv)
            x, st = ws(stack, srv, gid, t0)
            y, _ = ws(stack, srv, gid, t1)
            spectator, _ = ws(stack, srv, gid)
            seen: dict = {}
            st = play([x, y], [spectator], st, random.Random(3), seen, plies=30)
            assert seen[id(spectator)] == list(range(1, 31))
    finally:
        srv.stop()


def test_workers_need_postgresql_and_redis(tmp_path):
    from click.testing import CliRunner

    from ringgames.cli import main

    r = CliRunner().invoke(main, ["serve", "--workers", "2", "--db", f"sqlite:///{tmp_path / 'x.sqlite3'}"])
    assert r.exit_code == 2 and "PostgreSQL with Redis" in r.output, r.output


def test_a_seek_made_on_one_process_reaches_the_lobby_sockets_of_another(cluster):
    """Issue 28: a seek posted on A is the next message of lobby sockets on B (the fan-out's lobby channel), and when
    it is accepted on A its owner's lobby socket on B is told the game at once."""
    from ringgames.server.accounts import SESSION_COOKIE

    a, b, _ = cluster
    amy, ben = httpx.Client(base_url=a.url, timeout=10), httpx.Client(base_url=a.url, timeout=10)
    for cl, name in ((amy, "lobbyamy"), (ben, "lobbyben")):
        assert cl.post("/api/account", json={"username": name, "password": "ring-Stones-42"}).status_code == 201
    cookie = {"Cookie": f"{SESSION_COOKIE}={amy.cookies[SESSION_COOKIE]}"}
    with connect(f"ws://127.0.0.1:{b.port}/ws/lobby", open_timeout=10) as guest, \
            connect(f"ws://127.0.0.1:{b.port}/ws/lobby", additional_headers=cookie, open_timeout=10) as owner:
        assert json.loads(guest.recv(10))["type"] == "seeks" and json.loads(owner.recv(10))["type"] == "seeks"
        took = []
        for _ in range(5):  # posted again: the same kind replaces the seek (a new id each time)
            t0 = time.perf_counter()
            sid = amy.post("/api/seeks", json={"game": "yinsh"}).json()["seek"]["id"]
            m = json.loads(guest.recv(10))
            took.append(time.perf_counter() - t0)
            assert m["type"] == "seeks" and [s["id"] for s in m["seeks"]] == [sid]
            assert json.loads(owner.recv(10)) == m
        print(f"seek POST on process A to its arrival on a lobby socket of process B: "
              f"median {sorted(took)[2] * 1000:.1f} ms, max {max(took) * 1000:.1f} ms")
        gid = ben.post(f"/api/seeks/{sid}/accept").json()["game_id"]
        assert json.loads(owner.recv(10)) == {"type": "accepted", "seek": sid, "game_id": gid, "url": f"/game/{gid}"}
        assert json.loads(owner.recv(10)) == json.loads(guest.recv(10)) == {"type": "seeks", "seeks": []}
    amy.close()
    ben.close()


def test_a_move_is_written_only_over_the_row_its_process_knew(postgres_url, redis_url, monkeypatch):
    """No read of the game before each move: the move's conditional UPDATE expects the row (ply, status, seats, offers,
    tags) as the process has it. A change another process made whose message has not arrived yet (made here straight in
    the database) makes the write fail; the game is read again and the move checked once more: it is played if it still
    stands (after a draw offer, a new tag), refused with the reason if it does not (the game was aborted)."""
    from sqlalchemy import update

    from ringgames.server.db import GameRow
    from ringgames.server.service import Hub

    from .aio import run

    async def main():
        hub = Hub(postgres_url, ai_workers=1, ai_delay=0, redis_url=redis_url)
        await hub.start()
        writes: list[int] = []
        write = hub._write_moves
        monkeypatch.setattr(hub, "_write_moves", lambda b: (writes.append(len(b)), write(b))[1])
        try:
            room, mine, _ = await hub.create("yinsh", None, None, [{"kind": "me"}, {"kind": "me"}])
            toks = list(mine.values())

            def elsewhere(**values) -> None:  # another process's change, its message not (yet) here
                assert hub.engine is not None
                with hub.engine.begin() as c:
                    c.execute(update(GameRow).where(GameRow.id == room.id).values(**values))

            for change in ({"draw_offers": [1]}, {"tags": {**room.row.tags, "note": "x"}}):
                ply = len(room.state.history)
                elsewhere(**change)
                writes.clear()
                await hub.act(room.id, room.state.legal_actions()[0], toks, ply)
                assert len(writes) == 2, (change, writes)  # refused once, then written over the row read again
                assert len(room.state.history) == ply + 1
            assert room.row.tags.get("note") == "x" and room.row.draw_offers == []
            elsewhere(status="aborted")
            writes.clear()
            with pytest.raises(ApiError) as e:
                await hub.act(room.id, room.state.legal_actions()[0], toks, 2)
            assert e.value.code == "aborted" and len(writes) == 1 and len(room.state.history) == 2
            with hub.Session() as s:
                row = s.get(GameRow, room.id)
                assert row is not None and row.ply == 2 and row.status == "aborted"
        finally:
            await hub.stop()

    run(main())


def test_a_worker_that_stalls_for_a_while_is_not_killed(postgres_url, redis_url, tmp_path):
    """``serve --workers 2``: uvicorn's supervisor kills a worker that does not answer its health check in time and
    starts another; with uvicorn's default (5 s) a worker that a busy machine left without CPU for a few seconds lost
    its WebSockets that way. A worker stopped (SIGSTOP) for 7 s is still the same process afterwards, and serves."""
    import os
    import signal

    from ringgames.cli import WORKER_HEALTHCHECK_SECONDS

    from .test_shutdown import group_processes

    assert WORKER_HEALTHCHECK_SECONDS >= 20
    srv = ServerProcess(postgres_url, log=tmp_path / "w.log", extra_args=["--redis", redis_url, "--workers", "2", *BENCH_LIMITS])
    srv.start(timeout=60)
    try:
        assert srv.proc is not None

        def workers() -> list[int]:
            return sorted(p for p, ppid, cmd in group_processes(srv.proc.pid) if ppid == srv.proc.pid and "spawn_main" in cmd)

        deadline = time.time() + 30
        while time.time() < deadline and len(workers()) < 2:
            time.sleep(0.2)
        before = workers()
        assert len(before) == 2, before
        os.kill(before[0], signal.SIGSTOP)
        try:
            time.sleep(7)
        finally:
            with contextlib.suppress(ProcessLookupError):  # (killed meanwhile: the assertion below says so)
                os.kill(before[0], signal.SIGCONT)
        time.sleep(1.5)  # (the supervisor checks its workers every half second)
        assert workers() == before
        with contextlib.ExitStack() as stack:
            gid, t0, t1 = new_game(srv, srv)
            x, st = ws(stack, srv, gid, t0)
            y, _ = ws(stack, srv, gid, t1)
            st = play([x, y], [], st, random.Random(5), {}, plies=6)
            assert st["ply"] == 6
        assert workers() == before
    finally:
        srv.stop()


def test_a_connecting_client_costs_one_read_of_the_game(postgres_url, redis_url, monkeypatch):
    """With several processes a connecting client's game is checked against the database (``Hub.fresh_room``), unless
    this very connection loaded it from there (as every client reconnecting after its process died does): one read,
    not a load and a check. A cached room is checked, and a change another process made (its message not here yet)
    is read before the client gets the game."""
    from sqlalchemy import update

    from ringgames.server.db import GameRow
    from ringgames.server.service import Hub

    from .aio import run

    async def main():
        hub = Hub(postgres_url, ai_workers=1, ai_delay=0, redis_url=redis_url)
        await hub.start()
        checks: list[str] = []
        current = hub._current
        monkeypatch.setattr(hub, "_current", lambda room: (checks.append(room.id), current(room))[1])
        try:
            room, _, _ = await hub.create("yinsh", None, None, [{"kind": "me"}, {"kind": "invite"}])
            gid = room.id
            del hub.rooms[gid]  # as in a process that has not served this game yet
            assert (await hub.fresh_room(gid)).id == gid and checks == []  # loaded by this call: no second read
            assert hub.engine is not None
            with hub.engine.begin() as c:  # another process's change, its message not (yet) here
                c.execute(update(GameRow).where(GameRow.id == gid).values(tags={"note": "x"}))
            again = await hub.fresh_room(gid)
            assert checks == [gid] and again.row.tags.get("note") == "x"
        finally:
            await hub.stop()

    run(main())
