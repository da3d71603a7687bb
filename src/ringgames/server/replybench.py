"""How long the computer takes to reply on the play site, per level (a benchmark, not a test; issue #35).

Starts ``ringgames serve`` (SQLite in a temporary folder, no pause for show: ``--ai-delay 0``) and plays games
against the computer at each level through the site's own API and WebSocket, as the browser does: the bench plays
random legal moves at once, and a *reply* is the time from the bench's move sent to the state where it is the
bench's turn again — the computer's whole turn (a YINSH move with its row and ring removal, RINGS conversions),
what a player waits for. The first ``--warmup`` replies of each level are not counted (they start the computer
player's process). Prints p50 / p90 / max per level and the level's budget per decision.

RINGS with ``--players N`` (3–6): the bench holds seat 0 and the computer the others, each at the level; every
computer seat's turn is a reply, timed from the state that hands it the turn (for the first, from the bench's move
sent) to the state that passes it on.

    python -m ringgames.server.replybench --game yinsh --levels 1 2 3 5 --turns 20
    python -m ringgames.server.replybench --game rings --players 4 --levels 3 4 5 --turns 30
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

from ..ai.agents import parse_spec
from ..ai.levels import spec_for
from .loadbench import BENCH_LIMITS, _post
from .testing import ServerProcess


async def replies(base: str, game: str, level: int, turns: int, rng: random.Random, players: int = 2) -> list[float]:
    """Seconds per computer turn over games against ``level`` (every seat but the first) until ``turns``
    replies were seen."""
    out: list[float] = []
    body: dict = {"game": game, "seats": [{"kind": "me"}] + [{"kind": "computer", "level": level}] * (players - 1)}
    if players != 2:
        body["players"] = players
    while len(out) < turns:
        d = await asyncio.to_thread(_post, f"{base}/api/games", body)
        async with websockets.connect(f"{base.replace('http', 'ws', 1)}/ws/games/{d['id']}",
                                      additional_headers={"X-Seat-Token": d["tokens"]["0"]}, max_size=2**22) as ws:
            st = orjson.loads(await ws.recv())["state"]
            while len(out) < turns and st["to_move"] is not None:
                if st["to_move"] != 0:
                    m = orjson.loads(await ws.recv())
                    st = m.get("state") or st
                    continue
                ply = st["ply"]
                t0 = time.perf_counter()
                await ws.send(json.dumps({"type": "action", "action": rng.choice(st["legal"]), "ply": ply}))
                seat = None  # the computer seat whose turn it is (None: still the bench's: its move made a row)
                while True:
                    m = orjson.loads(await asyncio.wait_for(ws.recv(), 120))
                    if m["type"] == "error":
                        raise RuntimeError(f"game {d['id']}: {m}")
                    if m["type"] != "state" or m["state"]["ply"] <= ply:
                        continue
                    st, now = m["state"], time.perf_counter()
                    if seat is not None and st["to_move"] != seat and st["to_move"] is not None:
                        out.append(now - t0)  # that seat's turn, up to the state that passes it on
                        t0 = now
                    if st["to_move"] in (0, None):
                        break  # the bench's turn again (or the end)
                    seat = st["to_move"]
    return out[:turns]


def _q(xs: list[float], f: float) -> float:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(f * len(xs)))], 3)


async def run(base: str, game: str, levels: list[int], turns: int, seed: int, warmup: int = 3, players: int = 2,
              workers: int = 1) -> list[dict]:
    rows = []
    for level in levels:
        # not counted: the first replies of a level start its computer-player processes (spawn, kernels loaded); a
        # new game goes to a process that serves no game yet, so one warm-up game per process of the lane
        for w in range(max(1, workers)):
            await replies(base, game, level, warmup, random.Random(seed - level - 1000 * w), players)
        lat = await replies(base, game, level, turns, random.Random(seed + level), players)
        spec = spec_for(game, level, players=players)
        budget = parse_spec(spec)[1].get("time")
        rows.append({"game": game, "players": players, "level": level, "spec": spec, "budget_s": budget,
                     "turns": len(lat), "p50_s": _q(lat, 0.5), "p90_s": _q(lat, 0.9), "max_s": _q(lat, 1.0)})
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="yinsh", choices=["yinsh", "gyges", "rings"])
    ap.add_argument("--levels", type=int, nargs="+", default=[1, 2, 3, 5])
    ap.add_argument("--turns", type=int, default=20, help="computer turns measured per level")
    ap.add_argument("--ai-workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=3, help="replies per level not counted (process start-up)")
    ap.add_argument("--players", type=int, default=2, help="RINGS: 2–6 (the bench holds one seat, the computer the others)")
    ap.add_argument("--url", default=None, help="a running server (default: start one on a temporary SQLite file)")
    args = ap.parse_args(argv)
    if args.players != 2 and (args.game != "rings" or not 3 <= args.players <= 6):
        ap.error("--players other than 2 is for RINGS, 3–6")
    if args.url:
        rows = asyncio.run(run(args.url.rstrip("/"), args.game, args.levels, args.turns, args.seed, args.warmup, args.players))
    else:
        with tempfile.TemporaryDirectory() as d, ServerProcess(f"sqlite:///{Path(d) / 'bench.sqlite3'}", ai_workers=args.ai_workers,
                                                               extra_args=BENCH_LIMITS) as srv:
            rows = asyncio.run(run(srv.url, args.game, args.levels, args.turns, args.seed, args.warmup, args.players,
                                   args.ai_workers))
    for r in rows:
        print(f"{r['game']} ({r['players']} players) level {r['level']} ({r['spec']}, budget {r['budget_s']} s per decision): {r['turns']} turns, "
              f"reply p50 {r['p50_s']} s, p90 {r['p90_s']} s, max {r['max_s']} s")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
