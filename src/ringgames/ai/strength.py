"""The strength report behind ``ringgames strength`` (``docs/ai.md``).

For each game and level L: L against ``random`` and L against level L−1
(``games`` games each, colours alternated, seeds fixed), with the score of L,
its Elo difference and 95% interval, and whether it meets the targets
(≥ 90% against random for L ≥ 2; ≥ 60% against the level below).
"""

from __future__ import annotations

import platform
import time
from typing import Any

from .. import load_game
from .levels import spec_for

__all__ = ["search_speed", "LEDGER", "pairings", "current_pairings", "read_ledger", "run_pairings", "ledger_table"]


def search_speed(name: str, seconds: float = 1.0, seed: int = 1) -> dict:
    """MCTS iterations/s (playouts to the end, and evaluation at the leaf) and alpha-beta
    nodes/s, from a middle-game position reached by ``seed``-ed random play."""
    import random

    from .alphabeta import AlphaBetaAgent
    from .mcts import MCTSAgent

    game = load_game(name)
    rng = random.Random(seed)
    for _attempt in range(50):
        state = game.new_initial_state()
        for _ in range({"yinsh": 30, "gyges": 6, "rings": 60}.get(name, 20)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            break
    out: dict[str, Any] = {"game": name, "position": state.position()}
    for label, ro in (("mcts_playout_iter_per_s", -1), ("mcts_eval_iter_per_s", 0)):
        m = MCTSAgent(time=seconds, rollout=ro, seed=seed, safe=0)
        m.search(state)
        out[label] = round(m.iterations_done / seconds, 1)
    ab = AlphaBetaAgent(time=seconds, seed=seed)
    r = ab.analyse(state.clone())
    out["alphabeta_nodes_per_s"] = round(r["nodes"] / max(1e-9, r["seconds"]), 1)
    out["alphabeta_depth"] = r["depth"]
    return out


def _available(name: str) -> bool:
    try:
        load_game(name)
        return True
    except (ModuleNotFoundError, ImportError):
        return False


#: Default ledger of ``ringgames strength``: one JSON object per finished game.
LEDGER = "docs/strength/results.jsonl"
MIN_GAMES = 100  # games a row needs before its target is called (issue #5: "at least 100 games each")


def pairings(name: str, levels, scale: float = 1.0, opponents=("random", "below"), against: str | None = None) -> list[dict]:
    """The pairings of the report for one game: each level against ``random`` (target 0.90 from
    level 2) and against the level below (target 0.60); with ``against`` (an agent spec such as
    ``baseline:5`` or ``engine:CMD``), each level against that spec instead (no target)."""
    out = []
    for lv in levels:
        me = spec_for(name, lv, scale)
        if against is not None:
            out.append({"game": name, "level": lv, "opponent": against, "a": me, "b": against, "target": None})
            continue
        if "random" in opponents:
            out.append({"game": name, "level": lv, "opponent": "random", "a": me, "b": "random",
                        "target": 0.9 if lv >= 2 else None})
        if "below" in opponents and lv > 1:
            opp = spec_for(name, lv - 1, scale)
            if opp == me:
                opp += ("," if ":" in opp else ":") + "seed=999"
            out.append({"game": name, "level": lv, "opponent": f"level {lv - 1}", "a": me, "b": opp, "target": 0.6})
    return out


def current_pairings(names) -> set:
    """``(game, level, a, b)`` of every pairing of the levels as defined now (real budgets)."""
    return {(p["game"], p["level"], p["a"], p["b"]) for g in names for p in pairings(g, range(1, 6))}


def read_ledger(path) -> list[dict]:
    """The games recorded in a ledger (an absent file is empty; a torn last line is skipped)."""
    import json
    from pathlib import Path

    p = Path(path)
    if not p.exists():
        return []
    out = []
    for line in p.read_text().splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def _commit() -> str | None:
    """The git commit of the code being measured (None outside a git checkout)."""
    import subprocess
    from pathlib import Path

    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _engine(name: str) -> str:
    """``kernel`` (compiled rules kernel), ``kernel-nojit`` (the kernel's functions run as plain
    Python: numba missing or ``RINGGAMES_NO_JIT``) or ``python`` (a pure-Python engine). Time-budgeted
    levels search far less without the JIT, so such games are summarised apart."""
    from ..jit import JIT_ENABLED

    if not hasattr(load_game(name).new_initial_state(), "random_playouts"):
        return "python"
    return "kernel" if JIT_ENABLED else "kernel-nojit"


def _record(pr: dict, r, seed: int, engine: str, commit: str | None) -> dict:
    """The ledger line of a finished game ``r`` (a :class:`~ringgames.ai.match.GameResult`) of pairing ``pr``."""
    rec = {"game": pr["game"], "level": pr["level"], "opponent": pr["opponent"], "a": pr["a"], "b": pr["b"],
           "seed": seed, "index": r.index, "seats": r.seats, "score": r.score_for(pr["a"]),
           "reason": r.reason, "actions": r.actions, "seconds": round(r.seconds, 2),
           "think_a": round(r.think.get(pr["a"], 0.0), 2), "engine": engine,
           "date": time.strftime("%Y-%m-%d"), "python": platform.python_version(), "commit": commit}
    if r.error is not None:
        rec["error"] = r.error
    return rec


def _ray_job(key: int, args: tuple):
    """A Ray task: one game, with the rules engine of the machine that played it (see :func:`_engine`)."""
    from .match import _play_job

    return key, _play_job(args), _engine(args[0][0])


def run_pairings(pairs: list[dict], games: int, seed: int, ledger, jobs: int = 1, echo=print,
                 ray: str | None = None, ray_cpus: int | None = None) -> None:
    """Play the games of ``pairs`` that ``ledger`` does not hold yet (game ``i`` of a pairing and seed
    is always the same game, colours alternating with ``i``) and append each to the ledger as it
    finishes, so the report can be run in pieces and resumed after an interruption.

    ``ray``: play them as Ray tasks (``ringgames.raytasks``; ``""`` a local Ray instance with ``ray_cpus``
    CPUs, else a cluster's address), every pairing's games submitted at once and each written to the
    ledger as it finishes (the same lines as the local runner's, in the order the games end)."""
    import json
    from concurrent.futures import ProcessPoolExecutor
    from pathlib import Path

    from ..jit import JIT_ENABLED
    from .match import _play_job, seating

    if not JIT_ENABLED:
        echo("warning: the rules kernels run without numba's JIT (numba missing or RINGGAMES_NO_JIT set): "
             "time-budgeted levels will search far less than on a normal install; these games are "
             "recorded with engine 'kernel-nojit' and summarised apart")
    path = Path(ledger)
    path.parent.mkdir(parents=True, exist_ok=True)
    # a game that ended as an error (an external engine's illegal move, crash, timeout) is played again
    have = {(r["game"], r["a"], r["b"], r["seed"], r["index"]) for r in read_ledger(path) if r.get("reason") != "error"}
    plans = []
    for pr in pairs:
        todo = [i for i in range(games) if (pr["game"], pr["a"], pr["b"], seed, i) not in have]
        label = f"{pr['game']} L{pr['level']} vs {pr['opponent']}"
        if not todo:
            echo(f"{label}: {games} games already in {path}")
            continue
        plans.append((pr, label, todo))

    def write(pr: dict, label: str, r, engine: str, commit: str | None) -> None:
        rec = _record(pr, r, seed, engine, commit)
        if r.error is not None:
            echo(f"{label}: game {r.index + 1} ended as an error (not counted): {r.error}")
        with path.open("a") as f:
            f.write(json.dumps(rec) + "\n")

    if ray is not None and plans:
        from ..raytasks import imap_unordered, session

        commit = _commit()
        tasks = []
        for k, (pr, label, todo) in enumerate(plans):
            echo(f"{label}: {len(todo)} of {games} games to play")
            specs = [pr["a"], pr["b"]]
            tasks += [(k, ((pr["game"], seating(specs, 2, i), i, seed), {"players": 2})) for i in todo]
        left = [len(todo) for _pr, _label, todo in plans]
        t0 = time.perf_counter()
        with session(ray, num_cpus=ray_cpus):
            for k, r, engine in imap_unordered(_ray_job, tasks):
                pr, label, _todo = plans[k]
                write(pr, label, r, engine, commit)
                left[k] -= 1
                if not left[k]:
                    echo(f"{label}: done in {time.perf_counter() - t0:.0f} s")
        return
    for pr, label, todo in plans:
        echo(f"{label}: {len(todo)} of {games} games to play")
        engine = _engine(pr["game"])
        commit = _commit()
        specs = [pr["a"], pr["b"]]
        args = [((pr["game"], seating(specs, 2, i), i, seed), {"players": 2}) for i in todo]
        t0 = time.perf_counter()
        ex = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else None
        try:
            results = ex.map(_play_job, args) if ex else map(_play_job, args)
            for r in results:
                write(pr, label, r, engine, commit)
        finally:
            if ex:
                ex.shutdown()
        echo(f"{label}: done in {time.perf_counter() - t0:.0f} s")


def ledger_table(records: list[dict], targets: dict | None = None, current: set | None = None) -> str:
    """Markdown table of a ledger: one row per (game, level, opponent, agent specs), all seeds
    together, with W-D-L, score, Elo and its 95% interval, and the target met or missed.

    ``current``: the ``(game, level, a, b)`` of the pairings of today's levels (see
    :func:`current_pairings`); a row outside it (an earlier definition of a level, or scaled
    budgets) says so in its target column. A row with fewer than :data:`MIN_GAMES` games is
    marked provisional: its "met" or "missed" is the trend so far, not the verdict."""
    from .match import elo_summary

    groups: dict = {}
    for r in records:
        if r.get("score") is None:
            continue
        # games on a different rules engine (Gygès before its kernel) are summarised apart
        key = (r["game"], r["level"], r["opponent"], r["a"], r["b"], r.get("engine", "?"))
        groups.setdefault(key, []).append(r)
    lines = ["| game | level | agent | opponent | games (seeds) | W-D-L | score (95% CI) | Elo (95% CI) | target | engine |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(groups, key=lambda k: (k[0], k[1], k[2] != "random", k[3], k[4], k[5])):
        game, lv, opp, a, b, _engine_name = key
        rs = groups[key]
        scores = [r["score"] for r in rs]
        e = elo_summary(scores)
        n = len(scores)
        w = sum(1 for x in scores if x == 1.0)
        lo_ = sum(1 for x in scores if x == 0.0)
        target = 0.6 if opp.startswith("level") else (0.9 if lv >= 2 else None) if opp == "random" else None
        if target is None:
            ok = ""
        elif e["score"] >= target:
            ok = "met" + ("" if e["score_low"] >= target else " (interval reaches below)")
        else:
            ok = f"**missed** (< {target:.2f})"
        if current is not None and (game, lv, a, b) not in current:
            ok = (ok + "; " if ok else "") + "not today's level"
        if target is not None and n < MIN_GAMES:
            ok += f"; provisional ({n} of {MIN_GAMES} games)"
        seeds = ",".join(str(s) for s in sorted({r["seed"] for r in rs}))
        engines = "/".join(sorted({r.get("engine", "?") for r in rs}))
        if e["elo"] is None:  # one game: no Elo estimate (ai/match.py)
            elo = "none (1 game)"
        else:
            elo = f"{e['elo']:+.0f} ({e['elo_low']:+.0f} … {e['elo_high']:+.0f})" + (" clipped" if e["elo_clipped"] else "")
        lines.append(f"| {game} | {lv} | `{a}` | {opp} (`{b}`) | {n} ({seeds}) | {w}-{n - w - lo_}-{lo_} | "
                     f"{e['score']:.3f} ({e['score_low']:.2f}–{e['score_high']:.2f}) | {elo} | {ok} | {engines} |")
    return "\n".join(lines) + "\n"
