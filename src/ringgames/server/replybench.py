"""How long the computer takes to reply on the play site, per level (a benchmark, not a test; issue #35).

Starts ``ringgames serve`` (SQLite in a temporary folder, no pause for show: ``--ai-delay 0``) and plays games
against the computer at each level through the site's own API and WebSocket, as the browser does: the bench plays
random legal moves at once, and a *reply* is the time from the bench's move sent to the state where it is the
bench's turn again — the computer's whole turn (a YINSH move with its row and ring removal, RINGS conversions),
what a player waits for. The first ``--warmup`` replies of each level are not counted (they start the computer
player's process). Prints p50 / p90 / max per level and the level's budget per decision.

    python -m ringgames.server.replybench --game yinsh --levels 1 2 3 5 --turns 20
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


async def replies(base: str, game: str, level: int, turns: int, rng: random.Random) -> list[float]:
    """Seconds per computer turn over games against ``level`` until ``turns`` replies were seen."""
    out: list[float] = []
    while len(out) < turns:
        d = await asyncio.to_thread(_post, f"{base}/api/games",
                                    {"game": game, "seats": [{"kind": "me"}, {"kind": "computer", "level": level}]})
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
                reply = None  # None: still the bench's turn (its move made a row for it): not a reply
                while True:
                    m = orjson.loads(await asyncio.wait_for(ws.recv(), 120))
                    if m["type"] == "error":
                        raise RuntimeError(f"game {d['id']}: {m}")
                    if m["type"] != "state" or m["state"]["ply"] <= ply:
                        continue
                    st = m["state"]
                    if st["to_move"] == 1:
                        reply = True
                        continue
                    break  # the bench's turn again (or the end)
                if reply and st["to_move"] is not None:
                    out.append(time.perf_counter() - t0)
    return out


def _q(xs: list[float], f: float) -> float:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(f * len(xs)))], 3)


async def run(base: str, game: str, levels: list[int], turns: int, seed: int, warmup: int = 3) -> list[dict]:
    rows = []
    for level in levels:
        # not counted: the first replies of a level start its computer-player process (spawn, kernels loaded)
        await replies(base, game, level, warmup, random.Random(seed - level))
        lat = await replies(base, game, level, turns, random.Random(seed + level))
        budget = parse_spec(spec_for(game, level))[1].get("time")
        rows.append({"game": game, "level": level, "spec": spec_for(game, level), "budget_s": budget,
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
    ap.add_argument("--url", default=None, help="a running server (default: start one on a temporary SQLite file)")
    args = ap.parse_args(argv)
    if args.url:
        rows = asyncio.run(run(args.url.rstrip("/"), args.game, args.levels, args.turns, args.seed, args.warmup))
    else:
        with tempfile.TemporaryDirectory() as d, ServerProcess(f"sqlite:///{Path(d) / 'bench.sqlite3'}", ai_workers=args.ai_workers,
                                                               extra_args=BENCH_LIMITS) as srv:
            rows = asyncio.run(run(srv.url, args.game, args.levels, args.turns, args.seed, args.warmup))
    for r in rows:
        print(f"{r['game']} level {r['level']} ({r['spec']}, budget {r['budget_s']} s per decision): {r['turns']} turns, "
              f"reply p50 {r['p50_s']} s, p90 {r['p90_s']} s, max {r['max_s']} s")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
