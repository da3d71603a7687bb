"""Load benchmark (not a test): N concurrent games played over WebSockets on loopback.

Each game has two clients, one per seat, each on its own WebSocket; a table that
finishes its game starts another, so N games are in play for the whole run. The client
to move sends a random legal action and waits for the broadcast of the new
state. Prints moves/s and the p50/p99 latency (send → own broadcast), over the whole run and over the steady phase
(after the ramp-up: from the moment every table has its game created and its sockets open), then checks against the
HTTP API that no move was lost or duplicated.

The tables arrive as on a real site, not all at once: ``--ramp SECONDS`` spreads their first games' arrivals at random
over that time (uniformly: a Poisson process of N arrivals), by default ``games / 100`` seconds (100 new games a
second: 1 s for 100 games, 10 s for 1,000); ``--ramp 0`` starts them all at the same moment (1,000 games then queue
1,000 creations and 3,000 WebSocket handshakes at once, and the moves played meanwhile wait behind them). The whole-run
figures include the ramp; the figure to quote is the whole-run p99 with its ramp stated. The report also gives each
table's seating time (from its planned arrival to its three sockets' hello: whether the servers keep up with the
arrivals) and the delay of the load generator's own event loop (its p99; a late loop adds to every latency it
measures). The tables' HTTP requests run on that loop, not in threads (docs/performance.md, the ramp-up).

    python -m ringgames.server.loadbench --games 100 --seconds 20

``--sync-flood K`` adds K spectators (in a process of their own, so that they do not slow the players'
clients) that each send ``sync`` requests as fast as they can on a game of their own, reconnecting
whenever the server closes them: the other games' latency shows whether one client's flood slows
everybody (it must not; see docs/security.md).

``--clock 600+5`` plays every game on a real-time clock (initial seconds + increment), to show that the
clocks' timer costs no per-game work (docs/time-controls.md).

Several processes (docs/deploy.md): ``--processes 2 --db postgresql+psycopg://… --redis redis://…`` starts two
servers on the same database and Redis (or ``--url`` names several running servers, comma-separated); each game's
seats then sit on different processes, and ``--spectators`` adds a watching WebSocket per game on yet another one.
Every client checks that it sees each ply once and in order; lost and duplicated moves are counted from that and
from the database.

    python -m ringgames.server.loadbench --games 100 --processes 2 --db postgresql+psycopg://… --redis redis://…
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import orjson
import websockets

from .testing import ServerProcess

#: the server limits for the benchmark's own server: one client plays every game, as fast as it can
BENCH_LIMITS = ["--limit", "games_rate=1000000/minute", "--limit", "ws_rate=1000000/second", "--limit", "ws_connect_rate=1000000/minute"]


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


class HttpError(Exception):
    """An HTTP answer other than 2xx (its status and the start of its body)."""


async def _request(method: str, url: str, body: dict | None = None, timeout: float = 30.0) -> dict:
    """One HTTP/1.1 request on the event loop (a connection of its own, closed after the answer); the JSON answer.

    The tables' game creations and joins go through this, not through threads: the default thread pool (cores + 4
    threads, 6 on 2 cores) let only 6 requests run at once, so the tables queued for it and arrived seconds to tens of
    seconds after their planned moments (the ramp-up of 1,000 games then took 3-4 times ``--ramp``), and its threads
    took the interpreter lock from the loop that time-stamps the moves (docs/performance.md, the ramp-up)."""
    parts = urllib.parse.urlsplit(url)
    data = b"" if body is None else orjson.dumps(body)
    head = (f"{method} {parts.path or '/'}{'?' + parts.query if parts.query else ''} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n")

    async def go() -> bytes:
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
        try:
            writer.write(head.encode() + data)
            return await reader.read()  # to the end: the server closes the connection after the answer
        finally:
            writer.close()

    raw = await asyncio.wait_for(go(), timeout)
    header, _, payload = raw.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        raise HttpError(f"{method} {url}: no HTTP answer ({raw[:80]!r})") from None
    fields = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    if fields.get("transfer-encoding", "").lower() == "chunked":
        out, rest = b"", payload
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            out, rest = out + rest[:size], rest[size + 2:]
        payload = out
    if not 200 <= status < 300:
        raise HttpError(f"{method} {url}: HTTP {status}: {payload[:200]!r}")
    return orjson.loads(payload)


async def play_game(base: str | list[str], game: str, deadline: float, rng: random.Random, lat: list, seen: dict, think: float = 0.0,
                    clock: dict | None = None, spectate: bool = False, table: int = 0, ramp: dict | None = None,
                    arrive: float | None = None) -> tuple[str, int]:
    """One game, two seats on two WebSockets (and a spectator's, if ``spectate``), until it ends or ``deadline``;
    returns (id, moves sent); adds (send time, latency) of each move to ``lat``. With several servers (``base`` a
    list), table ``table``'s seats and spectator are on different ones (round robin). ``ramp``: ``{"games": N,
    "tables": set(), "at": None}``, its ``at`` set when every table has its sockets open; ``arrive``: when (perf_counter)
    the table's first game arrives (None: now)."""
    bases = [base] if isinstance(base, str) else base
    on = [bases[(table + k) % len(bases)] for k in range(3)]  # seat 0 (creates the game), seat 1, spectator
    if arrive is not None and arrive > time.perf_counter():
        await asyncio.sleep(arrive - time.perf_counter())
    body = {"game": game, "seats": [{"kind": "me"}, {"kind": "invite"}], **({"clock": clock} if clock else {})}
    d = await _request("POST", f"{on[0]}/api/games", body)
    gid = d["id"]
    joined = await _request("POST", f"{on[1]}/api/games/{gid}/join", {"seat": 1, "token": d["invites"]["1"].split("token=")[1]})
    toks = [d["tokens"]["0"], joined["token"]]
    socks = [await websockets.connect(f"{on[i].replace('http', 'ws', 1)}/ws/games/{gid}", additional_headers={"X-Seat-Token": t},
                                      max_size=2**22) for i, t in enumerate(toks)]
    if spectate:
        socks.append(await websockets.connect(f"{on[2].replace('http', 'ws', 1)}/ws/games/{gid}", max_size=2**22))
    states = [orjson.loads(await s.recv())["state"] for s in socks]
    if ramp is not None and table not in ramp["tables"]:  # this table is seated: once all are, the ramp-up is over
        ramp["tables"].add(table)
        if arrive is not None:  # how long after its arrival the table could play (creation, join, 3 handshakes)
            ramp.setdefault("seating", []).append(time.perf_counter() - arrive)
        if len(ramp["tables"]) == ramp["games"]:
            ramp["at"] = time.perf_counter()
    plies_seen: list[list[int]] = [[] for _ in socks]
    sent = 0
    try:
        st = states[0]
        while time.perf_counter() < deadline and st["to_move"] is not None:
            p = st["to_move"]
            ply = st["ply"]
            if think:
                await asyncio.sleep(min(rng.uniform(0, 2 * think), max(0.0, deadline - time.perf_counter())))
                if time.perf_counter() >= deadline:  # the run is over: a long think does not stretch it
                    break
            action = rng.choice(st["legal"])
            t0 = time.perf_counter()
            await socks[p].send(json.dumps({"type": "action", "action": action, "ply": ply}))
            sent += 1
            while True:
                m = orjson.loads(await socks[p].recv())
                if m["type"] == "error":
                    raise RuntimeError(f"game {gid}: {m}")
                if m["type"] == "state":
                    plies_seen[p].append(m["state"]["ply"])
                    if m["state"]["ply"] == ply + 1:
                        break
            lat.append((t0, time.perf_counter() - t0))
            st = m["state"]
            # the other seat (and the spectator) must see the same broadcast
            for o in [1 - p, *range(2, len(socks))]:
                while True:
                    m2 = orjson.loads(await socks[o].recv())
                    if m2["type"] == "state":
                        plies_seen[o].append(m2["state"]["ply"])
                        if m2["state"]["ply"] >= ply + 1:
                            break
    finally:
        for s in socks:
            await s.close()
    seen[gid] = plies_seen
    return gid, sent


async def play_games(base: str | list[str], game: str, deadline: float, rng: random.Random, lat: list, seen: dict,
                     think: float = 0.0, clock: dict | None = None, spectate: bool = False, table: int = 0,
                     ramp: dict | None = None, arrive: float | None = None) -> list[tuple[str, int]]:
    """Game after game at one table until ``deadline`` (the first when the table ``arrive``s), so that the load stays at
    N games throughout."""
    out = [await play_game(base, game, deadline, rng, lat, seen, think, clock, spectate, table, ramp, arrive)]
    while time.perf_counter() < deadline:
        out.append(await play_game(base, game, deadline, rng, lat, seen, think, clock, spectate, table, ramp))
    return out


async def sync_flood(base: str, game: str, deadline: float, counts: dict) -> None:
    """A spectator sending ``sync`` as fast as it can on a game of its own, reconnecting when it is closed."""
    d = await asyncio.to_thread(_post, f"{base}/api/games", {"game": game, "seats": [{"kind": "me"}, {"kind": "open"}]})
    url = f"{base.replace('http', 'ws', 1)}/ws/games/{d['id']}"
    if "127.0.0.1" not in url:
        raise ValueError("the sync flood runs against a server on 127.0.0.1 only")
    msg = json.dumps({"type": "sync"})
    while time.perf_counter() < deadline:
        try:
            # from another loopback address (127.0.0.2): for the server's per-client limits, another client
            async with websockets.connect(url, max_size=2**22, local_addr=("127.0.0.2", 0)) as ws:
                counts["connections"] += 1

                async def drain():
                    async for _ in ws:
                        counts["received"] += 1

                reader = asyncio.create_task(drain())
                try:
                    while time.perf_counter() < deadline:
                        await ws.send(msg)
                        counts["sent"] += 1
                        if counts["sent"] % 50 == 0:
                            await asyncio.sleep(0)  # let the reader and the games' clients run too
                finally:
                    reader.cancel()
        except websockets.InvalidStatus:  # the handshake was refused (too many connections): wait as told
            counts["refused"] += 1
            await asyncio.sleep(0.05)
        except websockets.ConnectionClosed as exc:
            counts["closed"] += 1
            counts["close_codes"][str(exc.rcvd.code if exc.rcvd else None)] = counts["close_codes"].get(str(exc.rcvd.code if exc.rcvd else None), 0) + 1


def _flood_process(base: str, game: str, seconds: float, flood: int, out) -> None:
    """Runs in a child process: ``flood`` flooding spectators for ``seconds``; sends their counts to ``out``."""
    counts = {"sent": 0, "received": 0, "connections": 0, "closed": 0, "refused": 0, "close_codes": {}}

    async def go():
        deadline = time.perf_counter() + seconds
        await asyncio.gather(*(sync_flood(base, game, deadline, counts) for _ in range(flood)), return_exceptions=True)

    asyncio.run(go())
    out.send(counts)


#: the load generator's loop checks its own delay this often (a sleep's overshoot)
LAG_TICK = 0.01


def parse_clock(text: str | None) -> dict | None:
    """``"600+5"`` → ``{"initial": 600, "increment": 5}``; None → None."""
    if not text:
        return None
    initial, _, inc = text.partition("+")
    return {"initial": float(initial), "increment": float(inc or 0)}


def default_ramp(games: int) -> float:
    """The default ``--ramp``: 100 games arrive per second."""
    return games / 100


async def run(base: str | list[str], games: int, seconds: float, game: str, seed: int, think: float = 0.0, flood: int = 0,
              clock: dict | None = None, spectate: bool = False, ramp_s: float | None = None) -> dict:
    """The benchmark; ``ramp_s``: the tables' first games arrive at random over that many seconds (None:
    :func:`default_ramp`; 0: all at once)."""
    ramp_s = default_ramp(games) if ramp_s is None else max(0.0, ramp_s)
    lat: list[tuple[float, float]] = []
    seen: dict = {}
    ramp: dict = {"games": games, "tables": set(), "at": None}
    rng = random.Random(seed)
    deadline = time.perf_counter() + seconds
    t0 = time.perf_counter()
    counts: dict = {}
    bases = [base] if isinstance(base, str) else base
    base = bases[0]
    if flood:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        recv, send = ctx.Pipe(duplex=False)
        flooder = ctx.Process(target=_flood_process, args=(base, game, seconds, flood, send), daemon=True)
        flooder.start()
    arrivals = sorted(t0 + rng.uniform(0, ramp_s) for _ in range(games)) if ramp_s else [t0] * games
    lags: list[tuple[float, float]] = []

    async def watch_loop() -> None:  # this loop's own delays: a move's time-stamps wait for them too
        while True:
            t = time.perf_counter()
            await asyncio.sleep(LAG_TICK)
            lags.append((t, time.perf_counter() - t - LAG_TICK))

    watcher = asyncio.create_task(watch_loop())
    tables = await asyncio.gather(*(play_games(bases, game, deadline, random.Random(rng.random()), lat, seen, think, clock, spectate, i, ramp,
                                               arrivals[i]) for i in range(games)))
    wall = time.perf_counter() - t0
    watcher.cancel()
    if flood:
        counts = await asyncio.to_thread(recv.recv)
        flooder.join(10)
    results = [r for table in tables for r in table]
    lost = dup = repeated = 0
    for gid, sent in results:
        s = await _request("GET", f"{base}/api/games/{gid}")
        plies = [m["ply"] for m in s["moves"]]
        if len(plies) != sent or plies != list(range(sent)):
            lost += max(0, sent - len(plies))
            dup += max(0, len(plies) - sent)
            if len(plies) == sent:  # same count, wrong plies: count it as a loss and a duplicate
                lost, dup = lost + 1, dup + 1
        for raw in seen[gid]:
            # the same ply again at once is the same position sent again (a seat's presence changed, the clock's
            # notice): counted apart as a repeated state; a ply seen again later, or out of order, is a duplicate
            ps = [x for i, x in enumerate(raw) if i == 0 or raw[i - 1] != x]
            repeated += len(raw) - len(ps)
            if len(ps) != len(set(ps)) or ps != sorted(ps):
                dup += 1
            elif ps and ps[-1] < len(plies):  # a client that never saw the last move
                lost += 1
    every = sorted(dt for _, dt in lat)
    # the steady phase, after the ramp-up (every table seated: all games created, all sockets open)
    steady = sorted(dt for t, dt in lat if ramp["at"] is not None and t >= ramp["at"])
    rising = sorted(dt for t, dt in lat if ramp["at"] is None or t < ramp["at"])

    def q(xs: list[float], f: float) -> float:
        return round(xs[min(len(xs) - 1, int(f * len(xs)))] * 1000, 1) if xs else float("nan")

    return {"games": games, "processes": len(bases), "spectators": spectate, "played": len(results), "moves": len(lat), "seconds": round(wall, 2), "moves_per_s": round(len(lat) / wall, 1),
            "p50_ms": q(every, 0.50), "p99_ms": q(every, 0.99), "mean_ms": round(statistics.fmean(every) * 1000, 1) if every else None,
            "ramp_s": round(ramp_s, 2), "ramp_up_s": round(ramp["at"] - t0, 2) if ramp["at"] is not None else None,
            "ramp_moves": len(rising), "ramp_p99_ms": q(rising, 0.99), "steady_moves": len(steady),
            "steady_p50_ms": q(steady, 0.50), "steady_p99_ms": q(steady, 0.99),
            "seating_p50_ms": q(sorted(ramp.get("seating", [])), 0.50), "seating_p99_ms": q(sorted(ramp.get("seating", [])), 0.99),
            "loop_lag_p99_ms": q(sorted(d for _, d in lags), 0.99),
            "ramp_loop_lag_p99_ms": q(sorted(d for t, d in lags if ramp["at"] is None or t < ramp["at"]), 0.99),
            "lost": lost, "duplicated": dup, "repeated_states": repeated, **({"flood": counts} if flood else {}), **({"clock": clock} if clock else {})}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--game", default="yinsh")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--think", type=float, default=0.0, help="mean seconds a client waits before each move (0: as fast as possible)")
    ap.add_argument("--ramp", type=float, default=None, metavar="SECONDS",
                    help="the tables' first games arrive at random over this many seconds (default: games / 100, i.e. 100 "
                         "new games a second; 0: all at once)")
    ap.add_argument("--url", default=None, help="a running server, or several, comma-separated (default: start one on a temporary SQLite file)")
    ap.add_argument("--processes", type=int, default=1, help="server processes started here (more than 1: give --db and --redis)")
    ap.add_argument("--redis", default=None, help="Redis URL for the servers started here (several processes)")
    ap.add_argument("--spectators", action="store_true", help="a spectator's WebSocket per game (on another process, if several)")
    ap.add_argument("--db", default=None, help="database URL for the server started here")
    ap.add_argument("--sync-flood", type=int, default=0, metavar="K", help="K spectators flooding `sync` requests (see above)")
    ap.add_argument("--server-limits", action="store_true",
                    help="start the server with its default limits (per-connection message rate included); "
                         "else the benchmark raises the game and message rates (one client plays everything)")
    ap.add_argument("--clock", default=None, metavar="INITIAL+INC", help="play on a real-time clock, e.g. 600+5 (seconds)")
    args = ap.parse_args(argv)
    clock = parse_clock(args.clock)
    me0 = time.process_time()
    if args.processes > 1 and not (args.db and args.redis):
        ap.error("--processes above 1 needs --db (PostgreSQL) and --redis")
    if args.url:
        urls = [u.strip().rstrip("/") for u in args.url.split(",") if u.strip()]
        res = asyncio.run(run(urls, args.games, args.seconds, args.game, args.seed, args.think, args.sync_flood, clock, args.spectators, args.ramp))
    else:
        with tempfile.TemporaryDirectory() as d:
            db = args.db or f"sqlite:///{Path(d) / 'bench.sqlite3'}"
            extra = BENCH_LIMITS[:2] + BENCH_LIMITS[4:] if args.server_limits else BENCH_LIMITS
            if args.redis:
                extra = [*extra, "--redis", args.redis]
            servers = []
            try:
                for _ in range(args.processes):
                    servers.append(ServerProcess(db, extra_args=extra).start())
                pids = [srv.proc.pid for srv in servers if srv.proc is not None]
                cpus0 = [_cpu_seconds(p) for p in pids]
                res = asyncio.run(run([srv.url for srv in servers], args.games, args.seconds, args.game, args.seed, args.think,
                                      args.sync_flood, clock, args.spectators, args.ramp))
                cpus1 = [_cpu_seconds(p) for p in pids]
            finally:
                for srv in servers:
                    srv.stop()
            cpu0 = None if None in cpus0 else sum(c for c in cpus0 if c is not None)
            cpu1 = None if None in cpus1 else sum(c for c in cpus1 if c is not None)
            if cpu0 is not None and cpu1 is not None and res["moves"]:  # includes the final checks, a slight overestimate
                res["server_cpu_ms_per_move"] = round((cpu1 - cpu0) * 1000 / res["moves"], 3)
    if res["moves"]:
        res["client_cpu_ms_per_move"] = round((time.process_time() - me0) * 1000 / res["moves"], 3)
    print(f"{res['games']} concurrent {args.game} games over WebSockets on {res['processes']} server process(es)"
          f"{' with a spectator each' if res['spectators'] else ''}{f' on a {args.clock} clock' if clock else ''} (think {args.think} s, {res['played']} games played): {res['moves']} moves in {res['seconds']} s = "
          f"{res['moves_per_s']} moves/s; latency over the whole run (tables arriving over {res['ramp_s']} s): "
          f"p50 {res['p50_ms']} ms, p99 {res['p99_ms']} ms; during the {res['ramp_up_s']} s ramp-up p99 {res['ramp_p99_ms']} ms "
          f"({res['ramp_moves']} moves); steady phase after it: p50 {res['steady_p50_ms']} ms, p99 {res['steady_p99_ms']} ms; "
          f"a table's seating (arrival to its 3 sockets open) p50 {res['seating_p50_ms']} ms, p99 {res['seating_p99_ms']} ms; "
          f"the load generator's loop delay p99 {res['loop_lag_p99_ms']} ms (in the ramp-up {res['ramp_loop_lag_p99_ms']} ms); "
          f"lost {res['lost']}, duplicated {res['duplicated']} (states repeated at the same ply: {res.get('repeated_states', 0)}); CPU per move: server {res.get('server_cpu_ms_per_move', '?')} ms, "
          f"load generator {res.get('client_cpu_ms_per_move', '?')} ms"
          + (f"; sync flood: {res['flood']['sent']} sent, {res['flood']['received']} answers, "
             f"{res['flood']['connections']} connections, {res['flood']['refused']} refused, closed {res['flood']['close_codes']}"
             if "flood" in res else ""))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
