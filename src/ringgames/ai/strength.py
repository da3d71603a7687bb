"""The strength report behind ``ringgames strength`` (``docs/ai.md``).

For each game and level L: L against ``random`` and L against level L−1
(``games`` games each, colours alternated, seeds fixed), with the score of L,
its Elo difference and 95% interval, and whether it meets the targets
(≥ 90% against random for L ≥ 2; ≥ 60% against the level below; against the
frozen levels of issue #35, level 5 ≥ 80% against ``baseline:5`` and level 3
≥ 65% against ``baseline:4``).

With more than two players (RINGS 3–6) the seats are dealt A-B-A-B… rotating
(``ai/match.seating``) and a game counts as who won it: 1 if only A's seats won,
0 if only B's, ½ if both shared the win or nobody won (``GameResult.side_for``):
the pairwise score hides that (docs/ai.md). A pairing can be played as a
sequential test (``sprt``): it stops once the test decides, and the report
replays the test over the ledger's games in the order they finished.

>>> target_for(5, "baseline:5,scale=0.05"), target_for(3, "baseline:4"), target_for(4, "level 3")
(0.8, 0.65, 0.6)
>>> target_for(1, "random"), target_for(2, "random"), target_for(4, "baseline:5")
(None, 0.9, None)
"""

from __future__ import annotations

import math
import platform
import time
from collections.abc import Iterator
from typing import Any, cast

from .. import load_game
from .levels import spec_for

__all__ = ["search_speed", "LEDGER", "pairings", "current_pairings", "read_ledger", "run_pairings", "ledger_table",
           "target_for", "game_value", "player_counts", "record_problem", "game_key"]


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


def target_for(level: int, opponent: str) -> float | None:
    """The score a level must reach against ``opponent`` (``random``, ``level N`` or an agent spec): 0.90 against
    random from level 2, 0.60 against the level below, and issue #35's targets against the frozen levels —
    level 5 0.80 against ``baseline:5``, level 3 0.65 against ``baseline:4`` (any ``scale=``); else None."""
    import re

    if opponent == "random":
        return 0.9 if level >= 2 else None
    if opponent.startswith("level "):
        return 0.6
    m = re.fullmatch(r"baseline:(\d)(,.*)?", opponent)
    if m:
        return {(5, 5): 0.8, (3, 4): 0.65}.get((level, int(m.group(1))))
    return None


def player_counts(name: str) -> range:
    """The numbers of players ``name`` can be played with (RINGS 2–6, the others 2)."""
    lo, hi = getattr(load_game(name), "player_range", (2, 2))
    return range(lo, hi + 1)


def pairings(name: str, levels, scale: float = 1.0, opponents=("random", "below"), against: str | None = None,
             players: int = 2) -> list[dict]:
    """The pairings of the report for one game and number of players: each level against ``random`` (target 0.90
    from level 2) and against the level below (target 0.60); with ``against`` (an agent spec such as
    ``baseline:5`` or ``engine:CMD``), each level against that spec instead (target: :func:`target_for`)."""
    out = []
    for lv in levels:
        me = spec_for(name, lv, scale, players=players)
        if against is not None:
            out.append({"game": name, "level": lv, "opponent": against, "a": me, "b": against,
                        "target": target_for(lv, against), "players": players})
            continue
        if "random" in opponents:
            out.append({"game": name, "level": lv, "opponent": "random", "a": me, "b": "random",
                        "target": target_for(lv, "random"), "players": players})
        if "below" in opponents and lv > 1:
            opp = spec_for(name, lv - 1, scale, players=players)
            if opp == me:
                opp += ("," if ":" in opp else ":") + "seed=999"
            out.append({"game": name, "level": lv, "opponent": f"level {lv - 1}", "a": me, "b": opp, "target": 0.6,
                        "players": players})
    return out


def current_pairings(names) -> set:
    """``(game, level, a, b, players)`` of every pairing of the levels as defined now (real budgets), for every
    number of players each game allows."""
    return {(p["game"], p["level"], p["a"], p["b"], p["players"]) for g in names for n in player_counts(g)
            for p in pairings(g, range(1, 6), players=n)}


def level_scale(game: str, level: int, spec: str, players: int = 2) -> float | None:
    """The ``scale`` at which ``spec`` is today's ``level`` of ``game`` for ``players`` (``spec_for(game, level,
    scale, players) == spec``; 1.0 for a level without a time budget), or None if it is no scaling of it (an earlier
    definition of the level, or another agent).

    >>> level_scale("rings", 3, "uct:time=0.05,c=0.5", players=4)
    0.1
    >>> level_scale("rings", 3, "uct:time=0.05,c=0.2", players=4) is None
    True
    """
    from .agents import parse_spec

    try:
        today = spec_for(game, level, players=players)
        if spec == today:
            return 1.0
        (kind, opts), (kind_t, opts_t) = parse_spec(spec), parse_spec(today)
        t, t0 = opts.get("time"), opts_t.get("time")
        if kind != kind_t or not _number(t) or not _number(t0) or not t0 or not t or opts.keys() != opts_t.keys():
            return None
        scale = float(f"{t / t0:.6g}")
        return scale if spec_for(game, level, scale, players=players) == spec else None
    except ValueError:  # not a level of this game, or a spec that does not parse
        return None


def _spec_scale(spec: str) -> float | None:
    """The ``scale=`` of a ``level:N`` or ``baseline:N`` spec (1 if it has none); None for any other spec."""
    from .agents import parse_spec

    try:
        kind, opts = parse_spec(spec)
    except ValueError:
        return None
    if kind not in ("level", "baseline"):
        return None
    v = opts.get("scale", 1.0)
    return float(v) if _number(v) else None


def game_value(rec: dict) -> float | None:
    """What a ledger game counts for A: with two players its score (1, ½, 0); with more, who won it (``won``:
    1 if only A's seats won, 0 if only B's, ½ if shared or nobody). None for a game without a result."""
    if rec.get("players", 2) > 2:
        return rec.get("won")
    return rec.get("score")


def _number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


#: The most random opening decisions of a ledger game (``strength --opening``).
MAX_OPENING = 40


def record_problem(rec: object) -> str | None:
    """What is wrong with a ledger line (already parsed from JSON), or None if it is a game the report can count:
    the keys a game needs with their types, ``players`` 2–6, a result in 0–1 (``won`` 0, ½ or 1 with more than
    two players) unless the game ended as an error, and a valid ``sprt`` (4 numbers the test accepts).

    >>> record_problem({"game": "yinsh", "level": 3, "opponent": "random", "a": "A", "b": "random", "seed": 0,
    ...                 "index": 0, "score": 1.0})
    >>> record_problem([1, 2])
    'not a JSON object'
    >>> record_problem({"game": "rings", "level": 3, "opponent": "random", "a": "A", "b": "random", "seed": 0,
    ...                 "index": 0, "score": 0.75, "players": 4})
    "won must be 0, 0.5 or 1 (who won a game of more than two players), not 'None'"
    """
    from .sprt import SPRT

    if not isinstance(rec, dict):
        return "not a JSON object"
    for k in ("game", "opponent", "a", "b"):
        if not isinstance(rec.get(k), str):
            return f"{k} must be a string, not {str(rec.get(k))[:40]!r}"
    for k, low in (("level", 1), ("seed", None), ("index", 0), ("opening", 0)):
        if k == "opening" and k not in rec:
            continue
        v = rec.get(k)
        if isinstance(v, bool) or not isinstance(v, int) or (low is not None and v < low):
            return f"{k} must be a whole number{'' if low is None else f' from {low}'}, not {str(v)[:40]!r}"
    if rec.get("opening", 0) > MAX_OPENING:
        return f"opening must be at most {MAX_OPENING}, not {str(rec['opening'])[:40]!r}"
    players = rec.get("players", 2)
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
        return f"players must be a whole number from 2 to 6, not {str(players)[:40]!r}"
    if rec.get("engine") is not None and not isinstance(rec.get("engine"), str):
        return f"engine must be a string, not {str(rec.get('engine'))[:40]!r}"
    error = rec.get("reason") == "error"
    score = rec.get("score")
    if not (score is None and error) and not (_number(score) and 0 <= cast(float, score) <= 1):
        return f"score must be a number from 0 to 1, not {str(score)[:40]!r}"
    if players > 2:
        won = rec.get("won")
        if not (won is None and error) and (not _number(won) or won not in (0, 0.5, 1)):
            return f"won must be 0, 0.5 or 1 (who won a game of more than two players), not {str(won)[:40]!r}"
    sprt = rec.get("sprt")
    if sprt not in (None, []):
        if not isinstance(sprt, list) or len(sprt) != 4 or not all(_number(x) for x in sprt):
            return f"sprt must be 4 numbers [elo0, elo1, alpha, beta], not {str(sprt)[:60]!r}"
        try:
            SPRT(*sprt)
        except ValueError as exc:
            return f"sprt: {exc}"[:120]
    return None


def read_ledger(path, problems: list | None = None) -> list[dict]:
    """The games recorded in a ledger (an absent file is empty). A line that is not a game the report can count
    (:func:`record_problem`; a torn last line too) and a second line of the same game (:func:`game_key`: ledgers
    concatenated, or a game listed twice; a game that ended as an error is no result and is played again, so its
    lines are kept as they are) are skipped, and ``(line number, why)`` appended to ``problems``."""
    import json
    from pathlib import Path

    p = Path(path)
    if not p.exists():
        return []
    out = []
    seen: dict[tuple, int] = {}
    for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            why: str | None = "not JSON (a torn line?)"
        else:
            why = record_problem(rec)
        if why is None and rec.get("reason") == "error":
            out.append(rec)  # a failed attempt (an external engine's illegal move…): the game is played again
        elif why is None:
            key = game_key(rec)
            if key in seen:
                why = f"the same game as line {seen[key]}"
            else:
                seen[key] = n
                out.append(rec)
        if why is not None and problems is not None:
            problems.append((n, why))
    return out


def game_key(rec: dict) -> tuple:
    """A ledger game's identity: game ``index`` of a pairing (game, opponent, both specs, players), seed and random
    opening (``opening``: the first decisions at random, 0 if none) is always the same game, so a ledger holds it
    once."""
    return (rec["game"], rec["opponent"], rec["a"], rec["b"], rec.get("players", 2), rec["seed"], rec.get("opening", 0),
            rec["index"])


def error_lines(records: list[dict], limit: int = 10) -> list[str]:
    """Markdown lines on the ledger's games that ended as an error (an external engine's illegal move, crash or
    timeout) and were not played since: how many per pairing, with the last error (bounded); [] if none."""
    from ..textbounds import excerpt

    played = {game_key(r) for r in records if r.get("reason") != "error"}
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        if r.get("reason") == "error" and game_key(r) not in played:
            who = f"{r['game']}" + ("" if r.get("players", 2) == 2 else f" ({r['players']} players)")
            groups.setdefault((who, r["level"], r["opponent"]), []).append(r)
    if not groups:
        return []
    lines = ["**Games that ended as an error** (not counted; the next run plays them again):", ""]
    for (who, lv, opp), rs in list(groups.items())[:limit]:
        games = len({game_key(r) for r in rs})
        lines.append(f"- {who}, level {lv} against {excerpt(opp, 100)}: {games} game(s); the last error: "
                     f"{excerpt(str(rs[-1].get('error', '')), 200)}")
    if len(groups) > limit:
        lines.append(f"- and {len(groups) - limit} more pairing(s)")
    return lines


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


def _record(pr: dict, r, seed: int, engine: str, commit: str | None, sprt: tuple | None = None,
            opening: int = 0) -> dict:
    """The ledger line of a finished game ``r`` (a :class:`~ringgames.ai.match.GameResult`) of pairing ``pr``
    (``players`` and ``won`` only with more than two players; ``sprt``: the test the pairing was played under;
    ``opening`` only if the game's first decisions were random)."""
    rec = {"game": pr["game"], "level": pr["level"], "opponent": pr["opponent"], "a": pr["a"], "b": pr["b"],
           "seed": seed, "index": r.index, "seats": r.seats, "score": r.score_for(pr["a"]),
           "reason": r.reason, "actions": r.actions, "seconds": round(r.seconds, 2),
           "think_a": round(r.think.get(pr["a"], 0.0), 2), "engine": engine,
           "date": time.strftime("%Y-%m-%d"), "python": platform.python_version(), "commit": commit}
    players = pr.get("players", 2)
    if players > 2:
        rec["players"] = players
        rec["won"] = r.side_for(pr["a"])
        rec["think_b"] = round(r.think.get(pr["b"], 0.0), 2)
    if sprt is not None:
        rec["sprt"] = list(sprt)
    if opening:
        rec["opening"] = opening
    if r.error is not None:
        rec["error"] = r.error
    return rec


def _sprt_of(records: list[dict], sprt: tuple):
    """The sequential test ``sprt`` = (elo0, elo1, alpha, beta) replayed over ``records`` (one pairing's games, in
    the order they finished), as it was when they were played."""
    from .sprt import SPRT

    test = SPRT(*sprt)
    for r in records:
        v = game_value(r)
        if v is not None and r.get("reason") != "error":
            test.add(v)
    return test


def _ray_job(key: int, args: tuple):
    """A Ray task: one game, with the rules engine of the machine that played it (see :func:`_engine`)."""
    from .match import _play_job

    return key, _play_job(args), _engine(args[0][0])


def run_pairings(pairs: list[dict], games: int, seed: int, ledger, jobs: int = 1, echo=print,
                 ray: str | None = None, ray_cpus: int | None = None, sprt: tuple | None = None,
                 opening: int = 0) -> None:
    """Play the games of ``pairs`` that ``ledger`` does not hold yet (game ``i`` of a pairing and seed
    is always the same game, colours alternating with ``i``; with more than two players, a pairing's
    ``players``, the seats dealt A-B-A-B… rotating) and append each to the ledger as it
    finishes, so the report can be run in pieces and resumed after an interruption.

    ``sprt`` = (elo0, elo1, alpha, beta): play each pairing as a sequential test (:mod:`.sprt`) over the games
    in the order they finish, the ledger's earlier games of that test (same bounds, seed and engine) first; once it
    decides no more games of the pairing start (with ``jobs`` > 1 the others already running finish and are
    recorded, not counted, as ``match --sprt`` reports them). ``games`` is then the most a pairing plays. Games of
    the pairing played outside the test (without it, or with other bounds) are not counted in it. Not with ``ray``.

    ``opening``: each game's first ``opening`` decisions at random (:func:`~ringgames.ai.match.play_game`; game
    ``i``'s opening is game ``i ^ 1``'s, so each is played with both colours), a pairing of its own in the ledger.

    ``ray``: play them as Ray tasks (``ringgames.raytasks``; ``""`` a local Ray instance with ``ray_cpus``
    CPUs, else a cluster's address), every pairing's games submitted at once and each written to the
    ledger as it finishes (the same lines as the local runner's, in the order the games end)."""
    import json
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, as_completed, wait
    from pathlib import Path

    from ..jit import JIT_ENABLED
    from .match import _play_job, seating
    from .sprt import SPRT

    if not JIT_ENABLED:
        echo("warning: the rules kernels run without numba's JIT (numba missing or RINGGAMES_NO_JIT set): "
             "time-budgeted levels will search far less than on a normal install; these games are "
             "recorded with engine 'kernel-nojit' and summarised apart")
    if sprt is not None and ray is not None:
        raise ValueError("a sequential test cannot stop games on Ray: use jobs")
    path = Path(ledger)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.stat().st_size:
        with path.open("rb+") as fh:  # a torn last line (an interrupted write) must not swallow the next game
            fh.seek(-1, 2)
            if fh.read(1) != b"\n":
                fh.write(b"\n")
    # a game that ended as an error (an external engine's illegal move, crash, timeout) is played again
    done = [r for r in read_ledger(path) if r.get("reason") != "error"]
    have = {game_key(r) for r in done}
    plans = []
    tests: dict[int, SPRT] = {}
    for pr in pairs:
        players = pr.get("players", 2)
        ident = (pr["game"], pr["opponent"], pr["a"], pr["b"], players, seed, opening)
        played = {k[-1] for k in have if k[:-1] == ident and k[-1] < games}
        label = (f"{pr['game']}{'' if players == 2 else f' ({players} players)'} L{pr['level']} vs {pr['opponent']}"
                 + (f", opening {opening}" if opening else ""))
        if sprt is not None:
            engine = _engine(pr["game"])
            mine = [r for r in done if game_key(r)[:-1] == ident]
            earlier = [r for r in mine if r.get("sprt") == list(sprt) and r.get("engine", "?") == engine]
            test = _sprt_of(earlier, sprt)
            if len(mine) > len(earlier):
                echo(f"{label}: {_games(len(mine) - len(earlier))} of this pairing and seed in {path} were played "
                     "outside this test (without --sprt, with other bounds or on another engine): not counted in it")
            if test.status != "running":
                echo(f"{label}: decided by the games in {path}: {test.line()}")
                continue
            tests[id(pr)] = test
        if len(played) >= games:
            echo(f"{label}: {_games(games)} already in {path}")
            continue
        plans.append((pr, label, played))

    def write(pr: dict, label: str, r, engine: str, commit: str | None) -> None:
        rec = _record(pr, r, seed, engine, commit, sprt, opening)
        if r.error is not None:
            echo(f"{label}: game {r.index + 1} ended as an error (not counted): {r.error}")
        with path.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        test = tests.get(id(pr))
        v = game_value(rec)
        if test is not None and v is not None and r.error is None:
            test.add(v)
            counted = test.wins + test.draws + test.losses
            echo(f"{label}: game {r.index + 1} (game {counted} of the test): {test.line()}")

    def todo(played: set) -> Iterator[int]:  # lazily: with --sprt, --games is only a cap
        return (i for i in range(games) if i not in played)

    if ray is not None and plans:
        from ..raytasks import imap_unordered, session

        commit = _commit()
        tasks = []
        for k, (pr, label, played) in enumerate(plans):
            echo(f"{label}: {_games(games - len(played))} of {games} to play")
            specs, n = [pr["a"], pr["b"]], pr.get("players", 2)
            tasks += [(k, ((pr["game"], seating(specs, n, i), i, seed), _kwargs(n, i, opening))) for i in todo(played)]
        left = [games - len(played) for _pr, _label, played in plans]
        t0 = time.perf_counter()
        with session(ray, num_cpus=ray_cpus):
            for k, r, engine in imap_unordered(_ray_job, tasks):
                pr, label, _played = plans[k]
                write(pr, label, r, engine, commit)
                left[k] -= 1
                if not left[k]:
                    echo(f"{label}: done in {time.perf_counter() - t0:.0f} s")
        return
    for pr, label, played in plans:
        echo(f"{label}: {_games(games - len(played))} of {games} to play")
        engine = _engine(pr["game"])
        commit = _commit()
        specs, n = [pr["a"], pr["b"]], pr.get("players", 2)
        args = (((pr["game"], seating(specs, n, i), i, seed), _kwargs(n, i, opening)) for i in todo(played))
        test = tests.get(id(pr))

        def decided(test: SPRT | None = test) -> bool:
            return test is not None and test.status != "running"

        t0 = time.perf_counter()
        if jobs > 1:
            # at most ``jobs`` games in flight, the next submitted as one ends: when the test decides, only the
            # games already being played are left to finish (and are recorded, not counted)
            with ProcessPoolExecutor(max_workers=jobs) as ex:
                running = set()
                for a in args:
                    if decided():
                        break
                    running.add(ex.submit(_play_job, a))
                    if len(running) < jobs:
                        continue
                    finished, running = wait(running, return_when=FIRST_COMPLETED)
                    for f in finished:
                        write(pr, label, f.result(), engine, commit)
                for f in as_completed(running):
                    write(pr, label, f.result(), engine, commit)
        else:
            for a in args:
                write(pr, label, _play_job(a), engine, commit)
                if decided():
                    break
        end = f"; {test.line()}" if test is not None else ""
        echo(f"{label}: done in {time.perf_counter() - t0:.0f} s{end}")


def _kwargs(players: int, index: int, opening: int) -> dict:
    """play_game's keywords for game ``index``: with an opening, the pairs of games 2j, 2j+1 (colours swapped; the
    two specs' seats rotate with period 2) share it."""
    return {"players": players} if not opening else {"players": players, "opening": opening,
                                                       "opening_key": index // 2}


def _elo(x: float) -> str:
    """A whole number of Elo with its sign (``+0``, never ``-0``)."""
    return f"{round(x) + 0:+d}"


def _games(n: int) -> str:
    return f"{n} game{'' if n == 1 else 's'}"


def ledger_table(records: list[dict], targets: dict | None = None, current: set | None = None) -> str:
    """Markdown table of a ledger: one row per (game, number of players, level, opponent, agent specs), all seeds
    together, with W-D-L, score, Elo and its 95% interval, and the target met or missed (:func:`target_for`).
    With more than two players the row counts who won each game (:func:`game_value`: A's share of the games),
    labelled ``rings (4 players)``. A pairing played as a sequential test gets the test's outcome, replayed over
    its games in the ledger's order (one test per seed and bounds).

    ``current``: the ``(game, level, a, b, players)`` of the pairings of today's levels (see
    :func:`current_pairings`); a row of today's levels at scaled budgets says "today's level at scale 0.1" in its
    target column (:func:`level_scale`, the level below at the same scale), any other row outside it (an earlier
    definition of a level) "not today's level"; a row against another agent (``baseline:5``) is today's if its
    level's spec is, at any scale. A row with fewer than :data:`MIN_GAMES` games and no decided test is
    marked provisional: its "met" or "missed" is the trend so far, not the verdict."""
    from .match import elo_summary

    current_a = {(g, lv, a, n) for g, lv, a, _b, n in current or ()}  # today's level against any other spec
    groups: dict = {}
    for r in records:
        if game_value(r) is None:
            continue
        # games on a different rules engine (Gygès before its kernel) are summarised apart
        key = (r["game"], r.get("players", 2), r["level"], r["opponent"], r["a"], r["b"], r.get("engine", "?"),
               r.get("opening", 0))
        groups.setdefault(key, []).append(r)
    lines = ["| game | level | agent | opponent | games (seeds) | W-D-L | score (95% CI) | Elo (95% CI) | target | engine |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(groups, key=lambda k: (k[0], k[1], k[2], k[3] != "random", k[4], k[5], k[6], k[7])):
        game, players, lv, opp, a, b, _engine_name, opening = key
        rs = groups[key]
        scores = [float(game_value(r)) for r in rs]  # type: ignore[arg-type]
        e = elo_summary(scores)
        n = len(scores)
        w = sum(1 for x in scores if x == 1.0)
        lo_ = sum(1 for x in scores if x == 0.0)
        target = target_for(lv, opp)
        if target is None:
            ok = ""
        elif e["score"] >= target:
            ok = "met" + ("" if e["score_low"] >= target else " (interval reaches below)")
        else:
            ok = f"**missed** (< {target:.2f})"
        tested = []
        for bounds_seed in sorted({(tuple(r["sprt"]), r["seed"]) for r in rs if r.get("sprt")}):
            test = _sprt_of([r for r in rs if r.get("sprt") and (tuple(r["sprt"]), r["seed"]) == bounds_seed],
                            bounds_seed[0])
            counted = test.wins + test.draws + test.losses
            when = f"{test.status} accepted at game {counted}" if test.status != "running" else f"running after {counted} games"
            tested.append(f"SPRT {test.elo0:g}/{test.elo1:g} (α {test.alpha:g}, β {test.beta:g}, seed {bounds_seed[1]}): "
                          f"{when}, LLR {test.llr:.2f}")
        if tested:
            ok = (ok + "; " if ok else "") + "; ".join(tested)
        if current is not None and (game, lv, a, b, players) not in current and not (
                opp != "random" and not opp.startswith("level ") and (game, lv, a, players) in current_a):
            scale = level_scale(game, lv, a, players)
            if scale is not None and opp.startswith("level "):  # the level below at the same scale
                try:
                    below = spec_for(game, int(opp.split()[1]), scale, players=players)
                except ValueError:
                    below = None
                scale = scale if below == b else None
            elif scale is not None and opp == "random" and b != "random":
                scale = None
            elif scale is not None and opp != "random":  # against a level or a baseline: the same scale
                scale = scale if _spec_scale(b) in (None, scale) else None
            if scale is None:
                ok = (ok + "; " if ok else "") + "not today's level"
            elif scale != 1:
                ok = (ok + "; " if ok else "") + f"today's level at scale {scale:g}"
        if target is not None and n < MIN_GAMES and not any("accepted" in t for t in tested):
            ok += f"; provisional ({n} of {MIN_GAMES} games)"
        seeds = ",".join(str(s) for s in sorted({r["seed"] for r in rs}))
        engines = "/".join(sorted({r.get("engine", "?") for r in rs}))
        if e["elo"] is None:  # one game: no Elo estimate (ai/match.py)
            elo = "none (1 game)"
        else:
            elo = (f"{_elo(e['elo'])} ({_elo(e['elo_low'])} … {_elo(e['elo_high'])})"
                   + (" clipped" if e["elo_clipped"] else ""))
        label = game if players == 2 else f"{game} ({players} players)"
        if opening:
            opp = f"{opp}, the first {opening} decision(s) at random"
        lines.append(f"| {label} | {lv} | `{a}` | {opp} (`{b}`) | {n} ({seeds}) | {w}-{n - w - lo_}-{lo_} | "
                     f"{e['score']:.3f} ({e['score_low']:.2f}–{e['score_high']:.2f}) | {elo} | {ok} | {engines} |")
    return "\n".join(lines) + "\n"
