"""Computer-move fairness benchmark (not a test): do level-5 searches slow the other games down?

Two phases on one server, ``--seconds`` each: first *alone* — ``--humans`` games between two bench clients (the
human-move latency: send → own broadcast, as ``loadbench``) and ``--level1`` games against the computer at level 1
(the reply latency: the bench's move sent → the state where it is the bench's turn again) — then *loaded*: the
same, while ``--deep`` games against level 5 (the bench answers each computer move at once, so a level-5 search
is always running or queued for each) and ``--bots`` computer-only level-5 games run. Prints p50/p99 of both
latencies per phase and the loaded/alone ratio of the p99s (issue 33 asks for at most 1.2). ``--rounds K`` alternates
the two phases K times and pools each kind's samples (the machine's other load then weighs on both alike).

    python -m ringgames.server.computerbench --deep 4 --seconds 30
    python -m ringgames.server.computerbench --url http://127.0.0.1:8000 ...   # a server started elsewhere
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from pathlib import Path

import orjson
import websockets

from .loadbench import BENCH_LIMITS, _post, play_game
from .testing import ServerProcess


async def _ws(base: str, gid: str, token: str):
    return await websockets.connect(f"{base.replace('http', 'ws', 1)}/ws/games/{gid}", additional_headers={"X-Seat-Token": token},
                                    max_size=2**22)


async def against_computer(base: str, level: int, stop: asyncio.Event, rng: random.Random, lat: list | None,
                           gate: asyncio.Event | None = None, waiting: list | None = None) -> int:
    """Games against the computer at ``level`` until ``stop``: the bench plays seat 0 at once (with ``gate``, once the
    gate is open: closed, the computer gets no new decision to make); with ``lat``, the time from each bench move to
    its next turn (the computer's reply) is appended. ``waiting``: a one-item counter of the games whose computer is
    deciding now (0 after the gate closed: no search of these games runs). Returns the replies seen."""
    replies = 0
    count = waiting if waiting is not None else [0]
    while not stop.is_set():
        d = await asyncio.to_thread(_post, f"{base}/api/games", {"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "computer", "level": level}]})
        ws = await _ws(base, d["id"], d["tokens"]["0"])
        try:
            st = orjson.loads(await ws.recv())["state"]
            while not stop.is_set() and st["to_move"] is not None:
                if st["to_move"] != 0:  # (not at the start: seat 0 begins)
                    st = orjson.loads(await ws.recv()).get("state") or st
                    continue
                if gate is not None and not gate.is_set():
                    opened = asyncio.ensure_future(gate.wait())
                    waiter = asyncio.ensure_future(stop.wait())
                    await asyncio.wait({opened, waiter}, return_when=asyncio.FIRST_COMPLETED)
                    opened.cancel()
                    waiter.cancel()
                    if stop.is_set():
                        return replies
                t0 = time.perf_counter()
                await ws.send(json.dumps({"type": "action", "action": rng.choice(st["legal"]), "ply": st["ply"]}))
                ply = st["ply"]
                count[0] += 1
                try:
                    while True:
                        recv = asyncio.ensure_future(ws.recv())
                        waiter = asyncio.ensure_future(stop.wait())
                        done, _ = await asyncio.wait({recv, waiter}, return_when=asyncio.FIRST_COMPLETED)
                        if recv not in done:
                            recv.cancel()
                            return replies
                        waiter.cancel()
                        m = orjson.loads(recv.result())
                        if m["type"] == "error":
                            raise RuntimeError(f"game {d['id']}: {m}")
                        if m["type"] == "state" and m["state"]["ply"] > ply + 1 and m["state"]["to_move"] in (0, None):
                            st = m["state"]
                            break
                finally:
                    count[0] -= 1
                replies += 1
                if lat is not None:
                    lat.append(time.perf_counter() - t0)
        finally:
            await ws.close()
    return replies


async def humans(base: str, deadline: float, rng: random.Random, lat: list) -> None:
    while time.perf_counter() < deadline:
        await play_game(base, "yinsh", deadline, rng, lat, {}, think=0.05)


def _q(xs: list, f: float) -> float | None:
    xs = sorted(x[1] if isinstance(x, tuple) else x for x in xs)  # loadbench's play_game records (start, latency)
    return round(xs[min(len(xs) - 1, int(f * len(xs)))] * 1000, 1) if xs else None


async def phase(base: str, seconds: float, n_humans: int, n_level1: int, rng: random.Random) -> dict:
    stop = asyncio.Event()
    hum: list[float] = []
    l1: list[float] = []
    deadline = time.perf_counter() + seconds
    tasks: list[asyncio.Future] = [asyncio.ensure_future(humans(base, deadline, random.Random(rng.random()), hum)) for _ in range(n_humans)]
    tasks += [asyncio.ensure_future(against_computer(base, 1, stop, random.Random(rng.random()), l1)) for _ in range(n_level1)]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=False)
    return {"human_moves": len(hum), "human_p50_ms": _q(hum, 0.5), "human_p99_ms": _q(hum, 0.99),
            "level1_replies": len(l1), "level1_p50_ms": _q(l1, 0.5), "level1_p99_ms": _q(l1, 0.99),
            "level1_max_ms": _q(l1, 1.0), "_human": hum, "_level1": l1}


def _pooled(phases: list[dict]) -> dict:
    """The figures of several phases' samples together."""
    hum = [x for p in phases for x in p["_human"]]
    l1 = [x for p in phases for x in p["_level1"]]
    return {"human_moves": len(hum), "human_p50_ms": _q(hum, 0.5), "human_p99_ms": _q(hum, 0.99),
            "level1_replies": len(l1), "level1_p50_ms": _q(l1, 0.5), "level1_p99_ms": _q(l1, 0.99), "level1_max_ms": _q(l1, 1.0)}


async def run(base: str, seconds: float, n_humans: int, n_level1: int, deep: int, bots: int, seed: int, settle: float = 8.0,
              rounds: int = 1) -> dict:
    """``rounds`` above 1: the alone and loaded phases alternate that many times (``seconds`` each), the samples of each
    kind pooled, so that a change of the machine's other load during the run weighs on both alike; before each alone
    phase the level-5 games pause (the bench does not answer their computer) until no level-5 search runs."""
    rng = random.Random(seed)
    await phase(base, min(5.0, seconds), n_humans, n_level1, rng)  # not counted: the computer's processes start
    stop = asyncio.Event()
    gate = asyncio.Event()
    waiting = [0]
    load: list[asyncio.Future] = []
    alone_phases: list[dict] = []
    loaded_phases: list[dict] = []
    drained: list[float] = []
    for r in range(max(1, rounds)):
        if r:  # pause the level-5 games; wait for the searches of theirs that run or wait in the lane
            gate.clear()
            t = time.perf_counter()
            while waiting[0]:
                await asyncio.sleep(0.05)
            drained.append(round(time.perf_counter() - t, 2))
        alone_phases.append(await phase(base, seconds, n_humans, n_level1, rng))
        gate.set()
        if not load:
            load = [asyncio.ensure_future(against_computer(base, 5, stop, random.Random(rng.random()), None, gate, waiting))
                    for _ in range(deep)]
            for _ in range(bots):
                await asyncio.to_thread(_post, f"{base}/api/games", {"game": "yinsh", "seats": [{"kind": "computer", "level": 5}] * 2})
            await asyncio.sleep(settle)  # the searches are under way (and the processes that run them have started)
        else:
            await asyncio.sleep(min(settle, 2.0))  # the paused games answered: their searches are under way
        loaded_phases.append(await phase(base, seconds, n_humans, n_level1, rng))
    stop.set()
    deep_replies = sum(await asyncio.gather(*load))
    alone, loaded = _pooled(alone_phases), _pooled(loaded_phases)
    ratio = {k: round(loaded[k] / alone[k], 2) for k in ("human_p99_ms", "level1_p99_ms") if alone[k] and loaded[k]}
    per_round = [{k: round(b[k] / a[k], 2) for k in ("human_p99_ms", "level1_p99_ms") if a[k] and b[k]}
                 for a, b in zip(alone_phases, loaded_phases, strict=True)]
    return {"seconds": seconds, "rounds": max(1, rounds), "humans": n_humans, "level1": n_level1, "deep": deep, "bots": bots,
            "alone": alone, "loaded": {**loaded, "level5_replies": deep_replies}, "p99_ratio": ratio,
            **({"p99_ratio_per_round": per_round, "drain_s": drained} if rounds > 1 else {})}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--humans", type=int, default=4, help="games between two bench clients (human-move latency)")
    ap.add_argument("--level1", type=int, default=2, help="games against level 1 (its reply latency)")
    ap.add_argument("--deep", type=int, default=4, help="games against level 5 in the loaded phase")
    ap.add_argument("--bots", type=int, default=0, help="computer-only level-5 games in the loaded phase")
    ap.add_argument("--ai-workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1,
                    help="alternate the alone and loaded phases this many times, pooling each kind's samples")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--url", default=None, help="a running server (default: start one on a temporary SQLite file)")
    args = ap.parse_args(argv)
    if args.url:
        res = asyncio.run(run(args.url.rstrip("/"), args.seconds, args.humans, args.level1, args.deep, args.bots, args.seed, rounds=args.rounds))
    else:
        limits = BENCH_LIMITS + ["--limit", f"computer_games_per_client={max(2, args.bots)}",
                                 "--limit", f"computer_games_total={max(6, args.bots)}"]
        with tempfile.TemporaryDirectory() as d, ServerProcess(f"sqlite:///{Path(d) / 'bench.sqlite3'}", ai_workers=args.ai_workers,
                                                               extra_args=limits) as srv:
            res = asyncio.run(run(srv.url, args.seconds, args.humans, args.level1, args.deep, args.bots, args.seed, rounds=args.rounds))
    a, b = res["alone"], res["loaded"]
    print(f"alone: human p50/p99 {a['human_p50_ms']}/{a['human_p99_ms']} ms, level-1 reply p50/p99 {a['level1_p50_ms']}/{a['level1_p99_ms']} ms; "
          f"with {args.deep} level-5 games (+{args.bots} computer-only): human {b['human_p50_ms']}/{b['human_p99_ms']} ms, "
          f"level-1 {b['level1_p50_ms']}/{b['level1_p99_ms']} ms; p99 ratios {res['p99_ratio']}"
          + (f" (per round {res['p99_ratio_per_round']})" if "p99_ratio_per_round" in res else ""))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
