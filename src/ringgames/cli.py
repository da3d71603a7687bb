"""The ``ringgames`` command: perft, replay, play, bench, match, analyse, strength, selfplay, engine.

Every command drives the games through the game protocol only.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import Any

import click

from . import GAMES, load_game
from .protocol import IllegalActionError, NotationError, RingGamesError, apply_strings


def _game(name, variant=None, players=None):
    try:
        return load_game(name, variant, players)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _start_state(game, position, moves, initial=None):
    try:
        if position:
            state = game.state_from_position(position)
        else:
            state = (initial or game.new_initial_state)()
        if moves:
            apply_strings(state, moves.replace(",", " ").split())
    except RingGamesError as exc:
        raise click.UsageError(str(exc)) from None
    return state


game_arg = click.argument("game", type=click.Choice(sorted(GAMES), case_sensitive=False))
variant_opt = click.option("--variant", default=None, help="Variant (YINSH: standard|blitz; Gygès: standard|beginner).")
players_opt = click.option("--players", type=int, default=None, help="Number of players (RINGS: 2–6).")
position_opt = click.option("--position", default=None, help="Start from this position string.")
ray_opt = click.option(
    "--ray", "ray_address", is_flag=False, flag_value="", default=None, metavar="[ADDRESS]",
    help="Play the games as Ray tasks (one CPU each) on the cluster at ADDRESS (HOST:PORT, ray://HOST:PORT, auto) "
         "or, without it, on a new local Ray instance (all cores, or --jobs when given) or $RAY_ADDRESS if set; "
         "same results as without. Needs 'ringgames[ray]'. Give it last or as --ray=ADDRESS.")
moves_opt = click.option("--moves", default=None, help='Actions to play first, in notation, space-separated: "e3 a5 ...".')


def _sprt_test(sprt_elo, alpha, beta):
    """The SPRT of ``--sprt ELO0,ELO1 --alpha A --beta B`` (None without ``--sprt``); a clear error for bad values,
    and for ``--alpha``/``--beta`` without ``--sprt``."""
    if sprt_elo is None:
        if alpha is not None or beta is not None:
            raise click.UsageError("--alpha and --beta are the sequential test's error rates: give --sprt too")
        return None
    alpha = 0.05 if alpha is None else alpha
    beta = 0.05 if beta is None else beta
    from .ai.sprt import SPRT

    try:
        elo0, elo1 = (float(x) for x in sprt_elo.split(","))
    except ValueError:
        raise click.BadParameter("give two Elo numbers ELO0,ELO1 with ELO0 < ELO1", param_hint="--sprt") from None
    try:
        return SPRT(elo0, elo1, alpha, beta)
    except ValueError as exc:
        raise click.BadParameter(str(exc)[:200], param_hint="--sprt/--alpha/--beta") from None


sprt_opts = [
    click.option("--sprt", "sprt_elo", default=None, metavar="ELO0,ELO1",
                 help="Sequential test of H0 'A is ELO0 Elo stronger' against H1 'ELO1': stop when the LLR crosses a "
                      "bound (--games is then the most games played). Not with --ray. With more than two seats a game "
                      "counts as who won it (A's side 1, the other 0, shared or none ½)."),
    click.option("--alpha", "sprt_alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=None,
                 help="SPRT: chance of accepting H1 when H0 holds (default 0.05)."),
    click.option("--beta", "sprt_beta", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=None,
                 help="SPRT: chance of accepting H0 when H1 holds (default 0.05)."),
]


def sprt_opt(f):
    for opt in reversed(sprt_opts):
        f = opt(f)
    return f



@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ringgames")
def main():
    """ringgames: exact engines and play for YINSH, Gygès and RINGS."""


@main.command()
@game_arg
@click.argument("depth", type=click.IntRange(0))
@variant_opt
@players_opt
@position_opt
@moves_opt
@click.option("--divide", is_flag=True, help="Print the count below each legal action first.")
def perft(game, depth, variant, players, position, moves, divide):
    """Count the nodes DEPTH plies deep (the count is the last line)."""
    g = _game(game, variant, players)
    state = _start_state(g, position, moves, initial=g.perft_start)
    t0 = time.perf_counter()
    if divide and depth > 0:
        total = 0
        for a in state.legal_actions():
            name = state.action_to_string(a)
            state.apply_action(a)
            n = state.perft(depth - 1)
            state.undo_action()
            click.echo(f"{name}: {n}")
            total += n
        # divide sums the action tree; games that merge children (Gygès) report their own perft
        total = state.perft(depth)
    else:
        total = state.perft(depth)
    dt = time.perf_counter() - t0
    click.echo(f"# {g.title} {g.variant} depth {depth}: {dt:.3f} s, {total / dt if dt else 0:,.0f} nodes/s", err=True)
    click.echo(total)


def _replay_row(path, rec, state):
    game = state.game
    out = state.outcome()
    row = {
        "file": path,
        "game": game.name,
        "variant": game.variant,
        "players": {seat: rec.tags.get(seat.capitalize(), "") for seat in game.seat_names},
        "winner": state.result_string(),
        "end": out.reason if out else "none",
    }
    row.update(state.summary())
    return row


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game and line.")
@click.option("--save", "save_dir", type=click.Path(file_okay=False), default=None, help="Also write each game as .rgn here.")
def replay(files, as_json, save_dir):
    """Replay game records (any supported format) and print each result.

    Errors name the file, the place and the reason; the run goes on with the
    other files and exits with status 1 if any failed.
    """
    from pathlib import Path

    from tqdm import tqdm

    from .records import Record, RecordError, load_file, save_file

    failed = 0
    ok = 0
    bar = tqdm(files, unit="file", file=sys.stderr, disable=len(files) < 20 or not sys.stderr.isatty(), leave=False)
    for path in bar:
        try:
            recs = load_file(path)
            for i, rec in enumerate(recs):
                state = rec.replay()
                row = _replay_row(path, rec, state)
                if as_json:
                    bar.write(json.dumps(row, ensure_ascii=False), file=sys.stdout)
                else:
                    extra = " ".join(f"{k}={v}" for k, v in row.items() if k not in ("file", "game", "variant", "players", "winner", "end"))
                    seats = " ".join(f"{k}={v or '?'}" for k, v in row["players"].items())
                    bar.write(f"{path}: {row['game']} {row['variant']} {seats} winner={row['winner']} end={row['end']} {extra}".rstrip(), file=sys.stdout)
                if save_dir:
                    Path(save_dir).mkdir(parents=True, exist_ok=True)
                    name = Path(path).stem + (f"-{i + 1}" if len(recs) > 1 else "") + ".rgn"
                    save_file(Path(save_dir) / name, [Record.from_state(state, {k: v for k, v in rec.tags.items() if k not in ("Game", "Variant", "Players", "Result", "Termination")})])
                ok += 1
        except RecordError as exc:
            failed += 1
            bar.write(f"error: {exc}", file=sys.stderr)
    bar.close()
    click.echo(f"# {ok} game(s) replayed, {failed} file(s) failed", err=True)
    sys.exit(1 if failed else 0)


def _seat_specs(game, named: dict, seats: tuple) -> list[str]:
    specs = ["human"] * game.num_players
    if seats:
        if len(seats) > game.num_players:
            raise click.UsageError(f"{len(seats)} --seat options for {game.num_players} players")
        specs[: len(seats)] = list(seats)
    for seat, spec in named.items():
        if spec is None:
            continue
        if seat not in game.seat_names:
            raise click.UsageError(f"--{seat} does not apply to {game.title} (seats: {', '.join(game.seat_names)})")
        specs[game.seat_names.index(seat)] = spec
    return specs


@main.command()
@game_arg
@variant_opt
@players_opt
@position_opt
@moves_opt
@click.option("--white", default=None, help="YINSH White: human or an agent spec (random, greedy, level:3, mcts:time=2, ...).")
@click.option("--black", default=None, help="YINSH Black: human or an agent spec.")
@click.option("--south", default=None, help="Gygès South: human or an agent spec.")
@click.option("--north", default=None, help="Gygès North: human or an agent spec.")
@click.option("--seat", "seats", multiple=True, help="Seats in turn order (RINGS): human or an agent spec; repeat per seat.")
@click.option("--setup", default=None, help="Gygès: arrangements SOUTH,NORTH, e.g. 321123,123321 (or 'random').")
@click.option("--seed", type=int, default=None, help="Seed for random agents and random setups.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), default=None, help="Write the game to this .rgn file at the end.")
def play(game, variant, players, position, moves, white, black, south, north, seats, setup, seed, save_path):
    """Play in the terminal; type actions in the game's notation.

    Also: `?` lists legal actions, `undo` takes back your last turn, `resign`,
    `quit` (prints the record so far). Works when driven through a pipe.
    """
    import random as _random
    from pathlib import Path

    from .ai.agents import make_agent
    from .records import Record, save_file

    g = _game(game, variant, players)
    if save_path and not Path(save_path).resolve().parent.is_dir():  # refused now, not after the game
        raise click.BadParameter(f"no directory {str(Path(save_path).parent)[:100]!r} to save into", param_hint="--save")
    state = _start_state(g, position, moves)
    if setup:
        parts = [p.strip() for p in setup.split(",")]
        rng = _random.Random(seed)
        for part in parts:
            if part.lower() == "random":
                part = state.action_to_string(rng.choice(state.legal_actions()))
            try:
                state.play(part)
            except RingGamesError as exc:
                raise click.UsageError(f"--setup {part}: {exc}") from None
    specs = _seat_specs(g, {"white": white, "black": black, "south": south, "north": north}, seats)
    agents = {}
    for i, spec in enumerate(specs):
        if spec.lower() != "human":
            try:
                if seed is not None:
                    from .ai.agents import with_seed

                    spec = with_seed(spec, seed + i)
                agents[i] = make_agent(spec)
            except ValueError as exc:
                raise click.UsageError(str(exc)) from None
    names = g.seat_names
    click.echo(f"{g.title} ({g.variant}) — " + ", ".join(f"{n}: {s}" for n, s in zip(names, specs, strict=True)))

    def record() -> Record:  # the seats' tags in every record this command prints or saves
        return Record.from_state(state, {n.capitalize(): s for n, s in zip(names, specs, strict=True)})

    def finish(code=0):
        if save_path:
            save_file(save_path, [record()])
            click.echo(f"saved to {save_path}")
        sys.exit(code)

    last_drawn = None
    while not state.is_terminal():
        p = state.current_player()
        if p in agents:
            a = agents[p].choose(state)
            click.echo(f"{names[p]} plays {state.action_to_string(a)}")
            state.apply_action(a)
            continue
        if last_drawn != len(state.history):
            click.echo(state.render())
            last_drawn = len(state.history)
        click.echo(f"{names[p]} to play> ", nl=False)
        line = sys.stdin.readline()
        if not line:
            click.echo("\ninput ended; the game is unfinished. Record so far:")
            click.echo(record().dumps())
            finish(1)
        text = line.split(";")[0].strip()
        if not sys.stdin.isatty():
            click.echo(text)  # echo piped input so that transcripts read naturally
        if not text:
            continue
        low = text.lower()
        if low in ("?", "help", "moves"):
            click.echo("legal: " + " ".join(state.action_to_string(a) for a in state.legal_actions()))
            continue
        if low == "quit":
            click.echo(record().dumps())
            finish(0)
        if low == "resign":
            state.resign(p)
            continue
        if low == "undo":
            if not state.history:
                click.echo("nothing to undo")
                continue
            # take back to before this human's previous decision
            state.undo_action()
            while state.history and state.current_player() in agents:
                state.undo_action()
            continue
        for tok in text.split():
            try:
                state.play(tok)
            except (NotationError, IllegalActionError) as exc:
                choices = state.input_choices(tok) if not state.is_terminal() else []
                if choices and len(choices) < len(state.legal_actions()):
                    click.echo(f"{tok!r} is not a complete action; choose one of: {' '.join(choices)}")
                else:
                    click.echo(f"illegal: {exc}")
                    legal = getattr(exc, "legal", None) or [state.action_to_string(a) for a in state.legal_actions()]
                    click.echo("legal: " + " ".join(legal))
                break
            if state.is_terminal() or state.current_player() != p:
                break
    click.echo(state.render())
    out = state.outcome()
    res = state.result_string()
    click.echo(f"Result: {res}" + ("" if res in ("draw", "none") else " wins") + f" ({out.reason})")
    finish(0)


def _seconds(value: float, name: str) -> float:
    """A positive, finite number of seconds (at most a day), else a usage error naming the option."""
    if not (0 < value <= 86_400):  # also false for nan
        raise click.BadParameter(f"{value} is not a number of seconds in (0, 86400]", param_hint=name)
    return value


def _check_db(url: str) -> None:
    """Connect to the database once, so that a bad ``--db`` stops with the reason instead of a traceback."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    try:
        shown = make_url(url).render_as_string(hide_password=True)
    except (SQLAlchemyError, ValueError):
        raise click.BadParameter(f"{url[:80]!r} is not a database URL (sqlite:///PATH, postgresql+psycopg://...)",
                                 param_hint="--db") from None
    from .server.db import normalize_url

    try:
        engine = create_engine(normalize_url(url))
        try:
            with engine.connect():
                pass
        finally:
            engine.dispose()
    except (SQLAlchemyError, ImportError, ValueError) as exc:
        reason = " ".join(str(getattr(exc, "orig", None) or exc).split())[:200]
        raise click.ClickException(f"cannot open the database {shown}: {reason}") from None


def _check_redis(url: str) -> None:
    """Reach Redis once, so that a bad ``--redis`` stops with the reason instead of a traceback."""
    try:
        import redis
    except ImportError:
        raise click.ClickException("--redis needs the redis extra: pip install 'ringgames[redis]'") from None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5)
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, ValueError) as exc:
        raise click.ClickException(f"cannot reach Redis at {url.split('@')[-1][:80]}: {str(exc)[:200]}") from None


def _ray_setup(ray_address, jobs_param="jobs"):
    """Checks ``--ray`` before a run: Ray importable (else the install hint, exit 1); returns the CPUs
    of a local Ray instance (``--jobs`` when given on the command line, else None: all cores)."""
    if ray_address is None:
        return None
    from .raytasks import RayError, check_address, require_ray

    try:
        require_ray()
        check_address(ray_address)
    except RayError as exc:
        raise click.ClickException(str(exc)) from None
    ctx = click.get_current_context()
    if ctx.get_parameter_source(jobs_param) == click.core.ParameterSource.COMMANDLINE:
        return ctx.params[jobs_param]
    return None


def _check_specs(specs, external: bool = True, game=None, hint: str | None = None):
    """Refuse a bad agent spec before any game; with ``game`` (a Game) also what only the game decides (a level's
    agent for it, an evaluation's name). ``hint``: the option the specs came from, named in the error."""
    from .ai.agents import check_spec, make_agent

    for spec in specs:
        try:
            if game is None:
                agent = make_agent(spec, external=external)
            else:
                agent = check_spec(spec, game.name, game.num_players, external=external)
        except ValueError as exc:
            raise click.BadParameter(str(exc)[:300], param_hint=hint) from None
        check = getattr(agent, "check", None)  # an external engine: started once, its options set, then ended
        if check is not None and game is not None:
            from .ai.agents import AgentError

            try:
                check(game)
            except AgentError as exc:
                raise click.BadParameter(str(exc)[:300], param_hint=hint) from None
        close = getattr(agent, "close", None)
        if close is not None:
            close()


def _check_against_scale(against: str, scale: float) -> None:
    """Refuse ``--against level:N`` or ``baseline:N`` without ``scale=`` when ``--scale`` is not 1: it would play at
    its full time budget against levels at a share of theirs, where the issue's targets compare equal budgets."""
    from .ai.agents import parse_spec
    from .textbounds import excerpt

    try:
        kind, opts = parse_spec(against)
    except ValueError:
        return  # _check_specs names what is wrong with it
    if kind in ("level", "baseline") and "scale" not in opts and scale != 1:
        fixed = f"{against.strip()},scale={scale:g}"
        raise click.BadParameter(
            f"{excerpt(against, 60)} would think at its full time budget while the levels think at --scale "
            f"{scale:g} of theirs: give {excerpt(fixed, 80)} for equal budgets (or scale=1 to mean the full one)",
            param_hint="--against")


@main.command()
@game_arg
@click.argument("agents", nargs=-1, required=True)
@click.option("--games", "-n", type=click.IntRange(1), default=10, show_default=True, help="Number of games.")
@click.option("--seed", type=int, default=0, show_default=True, help="Base seed (each game and seat derives its own).")
@click.option("--jobs", "-j", type=click.IntRange(1), default=1, show_default=True, help="Games in parallel processes.")
@variant_opt
@players_opt
@click.option("--save", "save_dir", type=click.Path(file_okay=False), default=None, help="Write every game as .rgn here.")
@click.option("--json", "as_json", is_flag=True, help="End with one JSON line: wins, draws, losses, score, elo, elo_low, elo_high.")
@click.option("--opening", type=click.IntRange(0, 40), default=0, show_default=True,
              help="Random decisions at the start of each game (seeded; the same for each seating of the agents, so "
                   "each opening is played with both colours; none that ends the game while another is legal): varied "
                   "games between deterministic agents. Gygès --opening 1: South's arrangement at random.")
@ray_opt
@sprt_opt
def match(game, agents, games, seed, jobs, variant, players, save_dir, as_json, opening, ray_address, sprt_elo,
          sprt_alpha, sprt_beta):
    """Play GAMES games between agent specs A B [C ...] (colours alternate).

    Agent specs: random, greedy, mcts:iterations=2000, mcts:time=1,
    alphabeta:depth=3, alphabeta:time=2, level:4, baseline:5 (today's level 5,
    frozen), "engine:CMD;movetime=500" (a program speaking the engine protocol,
    docs/engine.md) ... Results are for the first agent (A) against the others;
    a game an external engine spoils (illegal move, crash, timeout) is an error,
    not a result (exit status 1 when every game is one). --sprt 0,50: stop as soon as the sequential test decides
    (docs/ai.md, "SPRT"); with more than two seats it tests the share of games
    A's seats won.
    """
    from pathlib import Path

    from tqdm import tqdm

    from .ai.match import run_match
    from .records import Record, save_file

    ray_cpus = _ray_setup(ray_address)  # first: `--ray A B` takes A as the address
    if len(agents) < 2:
        raise click.UsageError("give at least two agent specs")
    g = _game(game, variant, players if players is not None else (len(agents) if len(agents) > 2 else None))
    if len(agents) > 2 and g.num_players == 2 and g.player_range == (2, 2):
        raise click.UsageError(f"{g.title} is a two-player game: give two agent specs")
    same = sorted({a for a in agents if agents.count(a) > 1})
    if same:  # results go to a side by its spec: two sides with one spec could not be told apart
        raise click.UsageError(f"agent spec {same[0][:80]!r} given twice: the sides of a match need different specs "
                               "(to match an agent against itself, give one side another seed, e.g. level:3,seed=2)")
    _check_specs(agents, game=g)
    if save_dir:
        try:
            Path(save_dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise click.BadParameter(f"cannot create {save_dir[:100]!r}: {exc.strerror}", param_hint="--save") from None
    test = _sprt_test(sprt_elo, sprt_alpha, sprt_beta)
    if test is not None:
        if len(agents) != 2:
            raise click.UsageError("--sprt compares two agents: give two agent specs")
        if ray_address is not None:
            raise click.UsageError("--sprt cannot stop games on Ray: use --jobs")

    def saver(r):
        if not save_dir or r.reason == "error":  # an error is no game record
            return
        Path(save_dir).mkdir(parents=True, exist_ok=True)
        st = g.new_initial_state()
        for tok in r.history:
            st.play(tok)
        tags = {n.capitalize(): s for n, s in zip(g.seat_names, r.seats, strict=True)}
        save_file(Path(save_dir) / f"{game}-{r.index + 1:04d}.rgn", [Record.from_state(st, tags)])

    def on_result(r):
        saver(r)
        if test is not None:  # more than two seats: the side that won (the pairwise score hides it)
            score = r.score_for(agents[0]) if g.num_players == 2 else r.side_for(agents[0])
            if score is not None:
                test.add(score)
                click.echo(f"game {r.index + 1}: {test.line()}", err=True)

    bar = tqdm(total=games, unit="game", file=sys.stderr, desc=f"{agents[0]} vs {' / '.join(agents[1:])}", leave=False)
    from .raytasks import RayError

    try:
        res = run_match(game, list(agents), games=games, seed=seed, jobs=jobs, variant=variant,
                        players=g.num_players, progress=bar, on_result=on_result, ray=ray_address, ray_cpus=ray_cpus,
                        stop=None if test is None else lambda: test.status != "running", opening=opening)
    except RayError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        bar.close()
    a = agents[0]
    click.echo(f"{g.title} ({g.variant}, {g.num_players} players): {a} vs {' / '.join(agents[1:])}, {res['games']} games"
               + (f", the first {opening} decision(s) of each at random" if opening else ""))
    for err in res["errors"]:
        click.echo(f"error (not counted): {err}")
    if res["score"] is None:
        click.echo("no game finished without an error: no score")
    else:
        errs = f" ({len(res['errors'])} games ended as errors, not counted)" if res["errors"] else ""
        if g.num_players == 2:
            click.echo(f"{a}: {res['wins']} wins, {res['draws']} draws, {res['losses']} losses; score {res['score']:.3f}{errs}")
        else:  # a pairwise score: 1, 0 or between per game, not a win, a loss or a draw (who won: the line below)
            click.echo(f"{a}: pairwise score {res['score']:.3f} (against each seat of the others: 1 if only {a}'s "
                       f"seat won, 0 if only the other, ½ else); games scored 1 / between / 0: {res['wins']} / "
                       f"{res['draws']} / {res['losses']}{errs}")
        if res["elo"] is None:  # one game counted: no Elo estimate (ai/match.py)
            click.echo("Elo difference: none (one game is too few for an Elo estimate)")
        else:
            clip = " (score at the edge: Elo clipped)" if res["elo_clipped"] else ""
            elo = {k: round(res[k]) + 0 for k in ("elo", "elo_low", "elo_high")}  # whole numbers: no "-0"
            click.echo(f"Elo difference: {elo['elo']:+d} (95% CI {elo['elo_low']:+d} to {elo['elo_high']:+d}){clip}")
    if test is not None:
        verdict = {"H1": f"H1 accepted (A is stronger by about {test.elo1:g} Elo or more)",
                   "H0": f"H0 accepted (A is not stronger by {test.elo1:g} Elo)",
                   "running": f"no decision after {res['games']} games"}[test.status]
        click.echo(f"{test.line()} — {verdict}")
        res["sprt"] = {"elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha, "beta": test.beta,
                       "llr": test.llr, "lower": test.lower, "upper": test.upper, "status": test.status}
    won = res.get("won")
    if won and won["share"] is not None:  # more than two seats: the pairwise score hides who won
        click.echo(f"games won: by {a}'s seats {won['a']}, by the others' {won['others']}, shared {won['shared']}, "
                   f"no winner {won['none']}; {a}'s share {won['share']:.3f} (95% CI {won['share_low']:.2f}–{won['share_high']:.2f};"
                   " equal sides: 0.5)")
    think = ", ".join(f"{k} {v / max(1, res['games']):.1f} s/game" for k, v in res["think_seconds"].items())
    click.echo(f"thinking time: {think}; mean game length {res['mean_actions']:.1f} actions")
    if as_json:
        click.echo(json.dumps({k: res[k] for k in ("agents", "games", "wins", "draws", "losses", "score", "score_low", "score_high", "elo", "elo_low", "elo_high", "elo_clipped", "won", "errors", "sprt") if k in res}))
    if res["score"] is None and res["errors"]:  # every game ended as an error: no result, and a script should know
        sys.exit(1)


@main.command()
@game_arg
@variant_opt
@players_opt
@position_opt
@moves_opt
@click.option("--time", "seconds", type=float, default=5.0, show_default=True, callback=lambda c, p, v: _seconds(v, "--time"),
              help="Search time in seconds (more than 0, at most 86,400).")
@click.option("--agent", "kind", type=click.Choice(["auto", "alphabeta", "mcts"]), default="auto", show_default=True,
              help="Search to use (auto: alpha-beta for two players, MCTS for more).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def analyse(game, variant, players, position, moves, seconds, kind, seed, as_json):
    """Search a position: best action, evaluation, principal variation."""
    from .ai.alphabeta import WIN, AlphaBetaAgent
    from .ai.mcts import MCTSAgent

    g = _game(game, variant, players)
    state = _start_state(g, position, moves)
    if state.is_terminal():
        raise click.UsageError(f"the game is over ({state.result_string()})")
    if kind == "auto":
        kind = "alphabeta" if g.num_players == 2 else "mcts"
    work = state.clone()
    if kind == "alphabeta":
        res = AlphaBetaAgent(time=seconds, seed=seed).analyse(work)
        v = res["value"]
        if v >= WIN - 1000:
            ev = f"win in {int(WIN - v)} decisions"
        elif v <= -WIN + 1000:
            ev = f"loss in {int(WIN + v)} decisions"
        else:
            ev = f"{round(v) + 0:+d} points"  # + 0: no "-0"
        extra = f"depth {res['depth']}, {res['nodes']} nodes"
    else:
        res = MCTSAgent(time=seconds, seed=seed, rollout=0).analyse(work)
        ev = f"expected score {res['value']:.3f}"
        extra = f"{res['iterations']} iterations"
    pv = []
    s2 = state.clone()
    for a in res["pv"]:
        if s2.is_terminal() or a not in s2.legal_actions():
            break
        pv.append(f"{g.seat_names[s2.current_player()]}:{s2.action_to_string(a)}")
        s2.apply_action(a)
    player = g.seat_names[state.current_player()]
    best = state.action_to_string(res["action"])
    if as_json:
        click.echo(json.dumps({"player": player, "best": best, "evaluation": ev, "value": res["value"],
                               "win_probability": res["win_probability"], "pv": pv, "search": kind}))
        return
    click.echo(f"{player} to play; search: {kind}, {res.get('seconds', 0):.1f} s, {extra}")
    click.echo(f"best: {best}")
    click.echo(f"evaluation: {ev} (win probability {res['win_probability']:.2f} for {player})")
    click.echo("pv: " + " ".join(pv))


@main.command()
@click.option("--game", "games_", multiple=True, type=click.Choice(sorted(GAMES), case_sensitive=False),
              help="Games to measure (repeatable; default: all that are available).")
@click.option("--games", "-n", type=click.IntRange(1), default=100, show_default=True, help="Games per pairing.")
@click.option("--scale", type=float, default=1.0, show_default=True, help="Multiply every level's time budget (1 = the real levels).")
@click.option("--levels", default="1-5", show_default=True, help="Levels to measure, e.g. 1-3 or 4.")
@click.option("--opponents", type=click.Choice(["both", "random", "below"]), default="both", show_default=True,
              help="Pairings: each level against random, against the level below, or both.")
@click.option("--jobs", "-j", type=click.IntRange(1), default=1, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--ledger", type=click.Path(dir_okay=False), default="docs/strength/results.jsonl", show_default=True,
              help="One JSON line per finished game; games already there are not played again (resumable).")
@click.option("--out", type=click.Path(dir_okay=False), default="docs/strength/report.md", show_default=True,
              help="Markdown summary of the whole ledger, rewritten at the end.")
@click.option("--summary-only", is_flag=True, help="Only rewrite --out from the ledger.")
@click.option("--against", default=None,
              help="Play each level against this agent spec instead (e.g. baseline:5 or \"engine:CMD;movetime=500\").")
@click.option("--players", type=click.IntRange(2, 6), default=2, show_default=True,
              help="Number of players (RINGS: 2–6; the seats dealt A-B-A-B… rotating, a game counted as who won it).")
@click.option("--opening", type=click.IntRange(0, 40), default=0, show_default=True,
              help="Random decisions at the start of each game, the same for both colours (as match --opening; "
                   "Gygès 1: South's arrangement at random); a pairing of its own in the ledger and the report.")
@sprt_opt
@ray_opt
def strength(games_, games, scale, levels, opponents, jobs, seed, ledger, out, summary_only, against, players,
             opening, sprt_elo, sprt_alpha, sprt_beta, ray_address):
    """Strength report: every level against random and against the level below.

    Resumable and divisible: each finished game is appended to --ledger at once,
    a rerun plays only the games missing there (game i of a pairing and seed is
    always the same game, colours alternating), and --out summarises every game
    in the ledger (all seeds and runs of a pairing together). --sprt 120,240:
    play each pairing as a sequential test, stopping once it decides (a rerun
    replays the test over the ledger's games first).
    """
    from pathlib import Path

    from .ai.levels import check_scale, spec_for
    from .ai.strength import (
        _available,
        current_pairings,
        error_lines,
        ledger_table,
        pairings,
        player_counts,
        read_ledger,
        run_pairings,
    )

    lo, _, hi = levels.partition("-")
    try:
        lv = list(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise click.BadParameter(f"give a level or a range such as 1-3, not {levels[:40]!r}", param_hint="--levels") from None
    if not lv or not set(lv) <= set(range(1, 6)):
        raise click.BadParameter(f"levels are 1–5, not {levels[:40]!r}", param_hint="--levels")
    try:
        scale = check_scale(scale)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--scale") from None
    if Path(out).resolve() == Path(ledger).resolve():
        raise click.BadParameter("the report would overwrite the ledger: give --out another file", param_hint="--out")
    try:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        if Path(out).is_dir():
            raise IsADirectoryError(21, "is a directory")
    except OSError as exc:  # before any game is played, not after
        raise click.BadParameter(f"cannot write {str(out)[:100]!r}: {exc.strerror}", param_hint="--out") from None
    names = list(dict.fromkeys(g for g in (list(games_) or list(GAMES)) if _available(g)))  # each game once
    if players != 2:
        wrong = [g for g in names if players not in player_counts(g)]
        if wrong and games_:
            raise click.BadParameter(f"{wrong[0]} is not played by {players} players", param_hint="--players")
        names = [g for g in names if g not in wrong]  # no --game: the games that take that many players
    opp = ("random", "below") if opponents == "both" else (opponents,)
    if against is not None:
        if not summary_only:
            _check_against_scale(against, scale)
            for g in names:
                game = load_game(g, None, players)
                _check_specs([against], game=game, hint="--against")
                mine = {spec_for(g, lv_, scale, players=players) for lv_ in lv}
                if against in mine:  # one spec on both sides: its results could not be told apart
                    raise click.BadParameter(f"{against[:80]!r} is the spec of a level measured here: give the other "
                                             "side another spec (e.g. add seed=2)", param_hint="--against")
        else:
            _check_specs([against], hint="--against")
    test = _sprt_test(sprt_elo, sprt_alpha, sprt_beta)
    if test is not None and ray_address is not None:
        raise click.UsageError("--sprt cannot stop games on Ray: use --jobs")
    if test is not None and summary_only:
        raise click.UsageError("--sprt plays games: not with --summary-only (the report gives every test's outcome)")
    if not summary_only:
        from .raytasks import RayError

        ray_cpus = _ray_setup(ray_address)
        pairs = [p for g in names for p in pairings(g, lv, scale, opp, against=against, players=players)]
        sprt = None if test is None else (test.elo0, test.elo1, test.alpha, test.beta)
        try:
            run_pairings(pairs, games, seed, ledger, jobs=jobs, echo=lambda m: click.echo(m, err=True),
                         ray=ray_address, ray_cpus=ray_cpus, sprt=sprt, opening=opening)
        except RayError as exc:
            raise click.ClickException(str(exc)) from None
    lines = ["# Strength ledger summary", "",
             f"Generated by `ringgames strength` from `{ledger}` (one line per game; rerun with `--summary-only` "
             "to refresh). Score of the level in the row; 95% intervals (Wilson score intervals). Targets: "
             "≥ 0.90 against `random` from level 2, ≥ 0.60 against the level below; issue #35: level 5 ≥ 0.80 "
             "against `baseline:5`, level 3 ≥ 0.65 against `baseline:4`. With more than two players (`rings (4 "
             "players)`) a game counts as who won it: W when only the row's seats won, L when only the opponent's, "
             "D when both shared the win or nobody won; the score is the row's share of the games. A row played as "
             "a sequential test (`--sprt`) says how the test ended. `engine`: `python` marks "
             "games played on a pure-Python rules engine (Gygès before its kernel), `kernel-nojit` games whose "
             "kernel ran without numba's JIT. \"today's level at scale 0.1\": the levels below with every time "
             "budget multiplied by 0.1 (`--scale`), both sides alike; \"not today's level\": the row's specs are "
             "not those of the levels below at any one scale (an earlier definition of a level).", "",
             "Levels now:", "", "| game | 1 | 2 | 3 | 4 | 5 |", "|---|---|---|---|---|---|"]
    for g in GAMES:
        if not _available(g):
            continue
        seen: dict[tuple, list[int]] = {}
        for n in player_counts(g):
            seen.setdefault(tuple(spec_for(g, i, players=n) for i in range(1, 6)), []).append(n)
        for specs, ns in seen.items():
            who = "" if ns == [2] else f" ({ns[0]} players)" if len(ns) == 1 else f" ({ns[0]}–{ns[-1]} players)"
            lines.append(f"| {g}{who} | " + " | ".join(f"`{x}`" for x in specs) + " |")
    problems: list[tuple[int, str]] = []
    records = read_ledger(ledger, problems)
    lines += ["", ledger_table(records, current=current_pairings([g for g in GAMES if _available(g)]))]
    failed = error_lines(records)
    if failed:
        lines += [""] + failed + [""]
    if problems:  # bounded: the first few, and how many
        shown = "; ".join(f"line {n}: {why}" for n, why in problems[:5])
        more = f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
        note = f"{len(problems)} ledger line(s) skipped (not counted): {shown}{more}"
        click.echo(f"warning: {note}", err=True)
        lines += ["", f"**{note}.**", ""]
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text("\n".join(lines))
    click.echo("\n".join(lines))


@main.command()
@click.argument("game", required=False, type=click.Choice(sorted(GAMES), case_sensitive=False))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game.")
@click.option("--seconds", type=float, default=2.0, show_default=True, help="Time spent on random playouts per game.")
@click.option("--startup", is_flag=True, help="Also measure start-up (import + first calls) in fresh interpreters, warm and cold cache.")
@click.option("--search-seconds", type=float, default=1.0, show_default=True,
              help="Time for each search-speed measurement from the start position (MCTS iterations/s, alpha-beta nodes/s); 0 leaves them out.")
@click.option("--batch", "batch", is_flag=True,
              help="Measure the batched environments instead (ringgames.batch: random steps/s, docs/research.md, *Batched simulation*); "
                   "each run lasts --seconds, at most 1.")
@click.option("--batch-size", type=click.IntRange(1, 1 << 20), default=1024, show_default=True, help="Games per batch (--batch).")
@click.option("--repeats", type=click.IntRange(1, 100), default=3, show_default=True, help="Runs of each --batch figure (best and all runs reported).")
def bench(game, as_json, seconds, startup, search_seconds, batch, batch_size, repeats):
    """Measure engine speed: random playouts/s, actions/s, perft nodes/s, MCTS iterations/s, alpha-beta nodes/s."""
    from .bench import bench_game, machine_description, startup_cost

    games = [game] if game else list(GAMES)
    if batch:
        from .bench import bench_batch, format_batch_row

        for name in games:
            row = bench_batch(name, batch_size, seconds=min(seconds, 1.0), repeats=repeats)
            click.echo(json.dumps(row) if as_json else format_batch_row(row))
        return
    rows = []
    for name in games:
        try:
            row = bench_game(name, seconds, search_seconds=search_seconds)
        except ModuleNotFoundError as exc:
            click.echo(f"# {name}: not available ({exc})", err=True)
            continue
        if startup:
            row["startup_warm_s"] = startup_cost(name, cold=False)
            row["startup_cold_s"] = startup_cost(name, cold=True)
        rows.append(row)
        if as_json:
            click.echo(json.dumps(row))
    if not as_json:
        click.echo(f"# {machine_description()}, single thread")
        click.echo(
            f"{'game':<8} {'playouts/s':>11} {'actions/s':>12} {'path':>8} {'protocol playouts/s':>20}"
            f" {'protocol actions/s':>19} {'actions/game':>13} {'perft':>6} {'perft nodes/s':>14}"
            + (f" {'MCTS iter/s':>12} {'playout iter/s':>15} {'AB nodes/s':>11} {'AB depth':>9}"
               f" {'search nodes/s':>15} {'depth':>6} {'ratio':>6} {'UCT iter/s':>11} {'ratio':>6}"
               if search_seconds > 0 else "")
            + (f" {'start warm s':>13} {'start cold s':>13}" if startup else "")
        )
        for r in rows:
            click.echo(
                f"{r['game']:<8} {r['playouts_per_s']:>11,.1f} {r['actions_per_s']:>12,.0f} {r['playout_path']:>8}"
                f" {r['protocol_playouts_per_s']:>20,.1f} {r['protocol_actions_per_s']:>19,.0f}"
                f" {r['mean_actions_per_game']:>13,.1f} {'d=' + str(r['perft_depth']):>6} {r['perft_nodes_per_s']:>14,.0f}"
                + (f" {r['mcts_iter_per_s']:>12,.0f} {r['mcts_playout_iter_per_s']:>15,.0f}"
                   f" {r['alphabeta_nodes_per_s']:>11,.0f} {r['alphabeta_depth']:>9}"
                   f" {r['search_nodes_per_s']:>15,.0f} {r['search_depth']:>6} {r['search_speedup']:>6.1f}"
                   f" {r['uct_iter_per_s']:>11,.0f} {r['uct_speedup']:>6.1f}"
                   if search_seconds > 0 else "")
                + (f" {r['startup_warm_s']:>13.2f} {r['startup_cold_s']:>13.2f}" if startup else "")
            )


#: The play site's packages (the ``server`` extra), as (import names, distribution): any one name will do.
#: ``serve --workers N``: seconds a worker may leave uvicorn's health check unanswered before the supervisor kills and
#: replaces it (uvicorn's default, 5 s, killed workers -- and their players' WebSockets -- that a busy machine had left
#: without CPU for a few seconds)
WORKER_HEALTHCHECK_SECONDS = 30

SERVER_PACKAGES = (
    (("fastapi",), "fastapi"),
    (("uvicorn",), "uvicorn"),
    (("sqlalchemy",), "SQLAlchemy"),
    (("alembic",), "alembic"),
    (("python_multipart", "multipart"), "python-multipart"),
    (("orjson",), "orjson"),
    (("swagger_ui",), "swagger-ui-py"),
    (("babel",), "babel"),
    (("jinja2",), "jinja2"),
    (("limits",), "limits"),
    (("argon2",), "argon2-cffi"),
    (("itsdangerous",), "itsdangerous"),
    (("openskill",), "openskill"),
)


def _require_server(command: str) -> None:
    """Stop with a clear message (exit 1, no traceback) when the ``server`` extra is not installed."""
    import importlib

    missing = []
    for names, dist in SERVER_PACKAGES:
        for name in names:
            try:
                importlib.import_module(name)
                break
            except ImportError:
                pass
        else:
            missing.append(dist)
    if missing:
        raise click.ClickException(
            f"`ringgames {command}` needs the play site's packages, which are not installed here "
            f"(missing: {', '.join(missing)}). Install the server extra: pip install 'ringgames[server]' "
            "(in a checkout: pip install -e '.[server]'; scripts/run does it)")


@main.command()
@game_arg
@click.option("--agent", required=True, help="Agent spec playing every seat: mcts:iterations=200, level:2, random, ...")
@click.option("--games", "-n", type=click.IntRange(1), required=True, help="Number of games (ids 0 … N-1).")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Directory of the Parquet files (resumable).")
@click.option("--jobs", "-j", type=click.IntRange(1), default=1, show_default=True, help="Parallel processes.")
@variant_opt
@players_opt
@click.option("--per-file", type=click.IntRange(1), default=8, show_default=True, help="Games per Parquet file.")
@click.option("--seed", type=int, default=0, show_default=True, help="Base seed (each game and seat derives its own).")
@ray_opt
def selfplay(game, agent, games, out, jobs, variant, players, per_file, seed, ray_address):
    """Write self-play games as Parquet, one row per decision (needs 'ringgames[rl]'); see docs/research.md."""
    from .rl.selfplay import cli_selfplay

    _game(game, variant, players)
    _check_specs([agent], external=False)  # self-play records our own agents' search policies: no engine:
    ray_cpus = _ray_setup(ray_address)
    try:
        cli_selfplay(game, agent, games, out, jobs, variant, players, per_file, seed, click.echo,
                     ray=ray_address, ray_cpus=ray_cpus)
    except (ImportError, OSError, RingGamesError) as exc:
        raise click.ClickException(str(exc)) from None


@main.command()
@click.option("--game", "game_name", default="yinsh", show_default=True, type=click.Choice(sorted(GAMES), case_sensitive=False),
              help="Initial game (the controller may change it with setoption).")
@variant_opt
@players_opt
@click.option("--level", default="3", show_default=True,
              help="Initial level: 1–5, baseline:N, or an agent spec such as alphabeta:time=1.")
@click.option("--seed", type=int, default=None, help="Seed of the searching agent (repeatable play).")
def engine(game_name, variant, players, level, seed):
    """Speak the engine protocol (RGI, like UCI) on stdin/stdout; see docs/engine.md."""
    from .engine import Engine, ProtocolError, run

    try:
        Engine(lambda line: None, game=game_name, variant=variant, players=players, level=level, seed=seed)
    except (ValueError, ProtocolError) as exc:
        raise click.BadParameter(str(exc)) from None
    sys.exit(run(game=game_name, variant=variant, players=players, level=level, seed=seed))


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@click.option("--db", "db_url", default=None, help="Database URL (default: an SQLite file; postgresql://... works too).")
@click.option("--ai-workers", default=2, show_default=True, type=int, help="Processes for computer moves.")
@click.option("--ai-delay", default=0.3, show_default=True, type=float, help="Least seconds between two computer actions (so people can follow).")
@click.option("--ws-compression/--no-ws-compression", default=False, show_default=True,
              help="Compress WebSocket messages (permessage-deflate): less traffic for far-away players, "
                   "more server CPU per move and per watcher.")
@click.option("--behind-https", is_flag=True, default=False,
              help="The site is served over HTTPS (by a proxy): the seat cookie gets the Secure flag. A trusted proxy's "
                   "X-Forwarded-Proto: https does the same per request.")
@click.option("--allow-origin", "allowed_origins", multiple=True, metavar="ORIGIN",
              help="Another origin (scheme://host[:port]) whose pages may use the API and WebSockets; repeatable. "
                   "The site's own host always may; every other cross-site request is refused.")
@click.option("--limit", "limit_options", multiple=True, metavar="NAME=VALUE",
              help="Change a limit (repeatable), e.g. --limit games_rate=60/minute --limit body_bytes=2097152; "
                   "names and defaults: docs/security.md.")
@click.option("--forwarded-allow-ips", default="", metavar="IPS",
              help="Addresses of trusted reverse proxies (comma-separated, or *): only requests from them may set "
                   "the client address (X-Forwarded-For, which rate limits count by) and scheme (X-Forwarded-Proto, "
                   "which makes the seat cookie Secure). Default: none.")
@click.option("--ai-deep-workers", default=None, type=int,
              help="Processes for levels 4–5 of games with a person (default: half of --ai-workers, at least one, fewer than the cores); "
                   "short decisions never wait behind them (docs/architecture.md, computer moves).")
@click.option("--redis", "redis_url", default=None, metavar="URL",
              help="redis://host:port/db: this process is one of several on the same --db (PostgreSQL), on this machine or "
                   "others; every move is published to the others through Redis pub/sub (docs/deploy.md).")
@click.option("--computer-queue", is_flag=True, default=False,
              help="With --redis: computer moves are jobs in that Redis, run by `ringgames worker --redis URL` processes "
                   "(on this machine or others) instead of this server's own processes.")
@click.option("--ai-prestart/--no-ai-prestart", default=True, show_default=True,
              help="Start the processes for quick computer moves (levels 1-3) with the server, so that a game's first "
                   "computer reply does not wait about a second for one to start.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Server processes on this port (more than 1 needs --db postgresql+psycopg://... and --redis).")
def serve(host, port, db_url, ai_workers, ai_delay, ws_compression, behind_https, allowed_origins, limit_options,
          forwarded_allow_ips, ai_deep_workers, redis_url, computer_queue, ai_prestart, workers):
    """Run the play site (lobby, games, archive, JSON API at /docs). Needs the ``server`` extra."""
    _require_server("serve")
    import uvicorn
    from limits.errors import ConfigurationError

    from .server.app import create_app
    from .server.db import default_sqlite_url
    from .server.limits import Limits, RateLimits

    try:
        limits = Limits.from_options(limit_options)
        RateLimits(limits)  # the rate limits' storage URL is read here: a bad one stops serve with the reason
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--limit") from None
    except ConfigurationError as exc:
        raise click.BadParameter(f"storage={limits.storage}: {exc}"[:300], param_hint="--limit") from None

    url = db_url or default_sqlite_url()
    if computer_queue and not redis_url:
        raise click.BadParameter("the computer-move queue lives in Redis: give --redis redis://... too", param_hint="--computer-queue")
    if workers > 1 and (url.startswith("sqlite") or not redis_url):
        raise click.BadParameter("several processes share games only on PostgreSQL with Redis: give --db postgresql+psycopg://... "
                                 "and --redis redis://... (SQLite serves one process)", param_hint="--workers")
    _check_db(url)
    if redis_url:
        _check_redis(redis_url)
    if url.startswith("sqlite:///"):
        click.echo(f"database: SQLite file {url[len('sqlite:///'):]}")
    else:
        click.echo(f"database: {url.split('@')[-1]}")
    problem = _cannot_listen(host, port)
    if problem:
        click.echo(f"error: {problem}", err=True)
        sys.exit(1)
    click.echo(f"ringgames is at http://{host}:{port}/  (API docs: http://{host}:{port}/docs)")
    options = dict(ai_workers=ai_workers, ai_delay=ai_delay, allowed_origins=list(allowed_origins), behind_https=behind_https,
                   deep_workers=ai_deep_workers, redis_url=redis_url, computer_queue=computer_queue,
                   prestart_computers=ai_prestart and not computer_queue)
    if workers > 1:  # the workers build the app themselves (server.app.app_from_env), from these settings
        import json
        import os

        from .server.app import SERVE_ENV
        from .server.db import migrate

        migrate(url)  # once, before the workers start
        os.environ[SERVE_ENV] = json.dumps({"db_url": url, "limit_options": list(limit_options), **options})
        click.echo(f"{workers} server processes")
        target: Any = "ringgames.server.app:app_from_env"
    else:
        target = create_app(url, limits=limits, **options)
    uvicorn.run(target, host=host, port=port, log_level="warning", ws_per_message_deflate=ws_compression,
                factory=workers > 1, workers=workers if workers > 1 else None, timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS,
                proxy_headers=bool(forwarded_allow_ips), forwarded_allow_ips=forwarded_allow_ips or None,
                # a hard stop far above the app's own per-message limit (which answers with the reason)
                ws_max_size=max(4 * limits.ws_message_bytes, 1024 * 1024),
                # an idle keep-alive connection is closed after 5 s; slow or incomplete requests (slowloris) are
                # not timed out by uvicorn at all: a reverse proxy in front must do that (docs/security.md)
                timeout_keep_alive=5)


@main.command()
@click.option("--redis", "redis_url", required=True, metavar="URL", help="The Redis of the computer-move queue (as `serve --redis URL --computer-queue`).")
@click.option("--lanes", default="quick,deep,bot", show_default=True,
              help="The lanes whose jobs this worker takes, in order of preference: quick (levels 0–3), deep (levels 4–5), "
                   "bot (computer-only games).")
@click.option("--name", default=None, help="This worker's name in Redis (default: host-pid-random).")
@click.option("--lease", default=5.0, show_default=True, type=click.FloatRange(0.5, 600),
              help="Seconds after its last heartbeat that a dead worker's job is given to another worker.")
@click.option("--nice", default=0, show_default=True, type=click.IntRange(0, 19), help="Run at this lower CPU priority.")
def worker(redis_url, lanes, name, lease, nice):
    """Run computer moves from the Redis queue of `ringgames serve --redis URL --computer-queue`, one at a time, until SIGTERM (after the
    current job). A job of a worker that dies is run again by another (once), then reported to the game's players."""
    _require_server("worker")
    _check_redis(redis_url)
    from .server.jobs import Worker

    try:
        w = Worker(redis_url, [x.strip() for x in lanes.split(",") if x.strip()], name=name, lease=lease)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--lanes") from None
    if nice:
        os.nice(nice)
    w.install_signals()
    click.echo(f"worker {w.name}: lanes {','.join(w.lanes)} at {redis_url.split('@')[-1]}")
    w.run()


def _cannot_listen(host: str, port: int) -> str | None:
    """Why ``serve`` could not listen on ``host``:``port`` (the port in use, ...), or None: tried with a socket
    bound the way uvicorn binds it (SO_REUSEADDR), then closed."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return f"cannot listen on {host}: {exc.strerror or exc}"
    family, kind, proto, _, addr = infos[0]
    try:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(addr)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return f"port {port} on {host} is in use (another server?); choose another with --port"
        return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


@main.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--db", "db_url", default=None, help="Database URL (default: the server's SQLite file).")
def import_(files, db_url):
    """Load game records (boardspace YINSH, .rgn) into the server's archive.

    A file that cannot be read or replayed is reported with its reason; the
    others are imported all the same; a game already in the archive is not imported again. Exit status 1
    if any failed. Needs the ``server`` extra.
    """
    _require_server("import")
    import asyncio
    from pathlib import Path

    from .server.db import default_sqlite_url
    from .server.service import Hub

    url = db_url or default_sqlite_url()
    _check_db(url)

    async def run():
        hub = Hub(url, run_computers=False)  # a server may use this database: only `serve` plays computer seats
        await hub.start()
        ok = bad = dup = 0
        try:
            for f in files:
                try:
                    text = Path(f).read_text(encoding="utf-8", errors="replace")
                except OSError as exc:
                    click.echo(f"error: {f}: cannot read: {exc.strerror}", err=True)
                    bad += 1
                    continue
                for r in await hub.import_text(text, str(f)):
                    if r["ok"]:
                        ok += 1
                        click.echo(f"{f}: imported as {r['id']} ({r['game']}, {r['plies']} plies, result {r['result']})")
                    elif r.get("duplicate"):
                        dup += 1
                        click.echo(f"{f}: already in the archive as {r['id']}, not imported again")
                    else:
                        bad += 1
                        click.echo(f"error: {r['error']}", err=True)
        finally:
            await hub.stop()
        return ok, bad, dup

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        ok, bad, dup = asyncio.run(run())
    else:  # called from code that already runs an event loop (tests, notebooks): use a thread of its own
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(1) as ex:
            ok, bad, dup = ex.submit(asyncio.run, run()).result()
    click.echo(f"# {ok} game(s) imported, {bad} failed" + (f", {dup} already in the archive" if dup else ""), err=True)
    sys.exit(1 if bad else 0)


@main.command()
@click.argument("game", type=click.Choice(["yinsh", "gyges", "rings"]))
@click.option("--games", "games_dir", type=click.Path(file_okay=False, exists=True), multiple=True,
              help="Folder of game records (*.sgf, *.rgn; repeatable; default: the 878 boardspace games next to "
                   "the checkout).")
@click.option("--limit", type=click.IntRange(1), default=None, help="Read at most this many record files per folder.")
@click.option("--selfplay", type=click.IntRange(0, 10_000), default=None,
              help="YINSH: add this many self-play games of alphabeta:depth=2 (default 0); Gygès: fit on this many "
                   "self-play games of search:depth=2,min=2 (default 1500); RINGS: fit on this many self-play games of "
                   "the compiled MCTS (default 300). Seeded.")
@click.option("--players", type=click.IntRange(3, 6), default=None, help="RINGS: players of the self-play games (default 4).")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True, help="Gygès, RINGS: processes playing the self-play games.")
@click.option("--spec", default=None, help="Gygès, RINGS: the self-play agent (default search:depth=2,min=2; uct:iterations=1000,c=0.2).")
@click.option("--skip", type=click.IntRange(0, 200), default=None,
              help="YINSH: turns after the ring placement left out of each game (default 0); Gygès: decisions left "
                   "out (default 4: the random ones); RINGS: decisions left out (default 0).")
@click.option("--l2", type=click.FloatRange(0), default=1.0, show_default=True, callback=lambda c, p, v: _finite(v, "--l2"),
              help="Pull of each weight towards today's (per standardised feature).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the self-play games.")
@click.option("--fix", multiple=True, help="A feature that keeps today's weight (repeatable), e.g. --fix three.")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Write the weights here (default: print them only; the package's files are "
                   "src/ringgames/ai/evaluation/<game>_weights.json).")
def tune(game, games_dir, limit, selfplay, players, jobs, spec, skip, l2, seed, fix, out):
    """Fit GAME's evaluation weights on game outcomes (logistic "Texel" tuning, docs/ai.md).

    YINSH: on real games (and self-play); Gygès: on self-play games; RINGS: on self-play games with 3-6 players (a
    softmax over the seats). Prints the cross-validated log-loss and accuracy of today's weights and of the tuned ones.
    """
    echo = lambda m: click.echo(m, err=True)  # noqa: E731
    if players is not None and game != "rings":
        raise click.UsageError("--players is for RINGS (YINSH and Gygès are two-player games)")
    if out:
        _check_writable(out)  # before the games are played, not after
    if game in ("gyges", "rings"):
        label = "Gygès" if game == "gyges" else "RINGS"
        if games_dir or limit or fix:
            raise click.UsageError(f"{label} is tuned on self-play games only: --games, --limit and --fix are for YINSH")
        kwargs: dict[str, Any]
        if game == "gyges":
            from .ai import tuning_gyges as tuning_mod

            kwargs = {"games": tuning_mod.GAMES if selfplay is None else selfplay,
                      "skip": tuning_mod.OPENING if skip is None else skip}
        else:
            from .ai import tuning_rings as tuning_mod  # type: ignore[no-redef]

            kwargs = {"games": 300 if selfplay is None else selfplay, "players": players or 4, "skip": skip or 0}
        try:
            data = tuning_mod.tune(seed=seed, l2=l2, jobs=jobs, echo=echo, spec=spec or tuning_mod.SELFPLAY_SPEC,
                                   **kwargs)
        except ValueError as exc:
            raise click.ClickException(str(exc)[:300]) from None
        describe, write = tuning_mod.describe, tuning_mod.write
    else:
        if spec:
            raise click.UsageError("--spec is for Gygès and RINGS (YINSH's self-play agent is alphabeta:depth=2)")
        from .ai import tuning

        try:
            data = tuning.tune(list(games_dir) or tuning.DEFAULT_GAMES, limit=limit, selfplay=selfplay or 0,
                               skip=skip or 0, l2=l2, seed=seed, echo=echo, fix=fix)
        except (FileNotFoundError, ValueError) as exc:
            raise click.ClickException(str(exc)[:300]) from None
        describe, write = tuning.describe, tuning.write
    click.echo(describe(data))
    k = float(data["fit"]["K"])
    if not (math.isfinite(k) and k > 0):
        raise click.ClickException(f"the fitted scale K is {k:g}: today's weights do not predict these games' results "
                                   f"(too few games, or games decided at random?); no weight file written")
    if out:
        write(data, out)
        click.echo(f"-> {out}")


@main.command()
@click.argument("game", type=click.Choice(["gyges"]))
@click.option("--depth", type=click.IntRange(1, 8), default=None,
              help="Turns each search looks ahead from North's setup decision (default 6: the shipped book).")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True, help="Processes running the searches.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the searches' root order.")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Write the book here (default: print its summary only; the package's is "
                   "src/ringgames/ai/books/gyges_setup.json).")
def book(game, depth, jobs, seed, out):
    """Build GAME's opening book by deep searches (Gygès: the setup; docs/ai.md, "Gygès setup book").

    North's reply to each of South's 90 arrangements (48 searches: mirror images share one) and South's arrangement.
    The same options give the same book on any machine. The shipped one: --depth 6 --jobs 2 (about 35 minutes on 2
    cores).
    """
    from .ai import book as book_mod

    if out:
        _check_writable(out)
    data = book_mod.build(depth=book_mod.DEPTH if depth is None else depth, jobs=jobs, seed=seed,
                          echo=lambda m: click.echo(m, err=True))
    click.echo(book_mod.describe(data))
    if out:
        try:
            book_mod.write(data, out)
        except OSError as exc:
            raise click.ClickException(f"cannot write the book to {out[:100]!r}: {exc.strerror}") from None
        click.echo(f"-> {out}")


def _finite(value: float, name: str) -> float:
    if not math.isfinite(value):
        raise click.BadParameter(f"{name} must be a finite number, not {value}")
    return value


def _check_writable(path: str) -> None:
    """A UsageError unless a file can be written at ``path`` (checked by opening it; a file made here is removed)."""
    existed = os.path.exists(path)
    try:
        with open(path, "a"):
            pass
    except OSError as exc:
        raise click.UsageError(f"cannot write {path[:200]}: {exc.strerror}") from None
    if not existed:
        os.remove(path)


@main.group()
def puzzles():
    """Puzzles found by our search (YINSH, Gygès, RINGS): build and check the set the site serves."""


@puzzles.command("build")
@click.option("--games", type=click.IntRange(1), default=878, show_default=True, help="Real YINSH games to scan at most.")
@click.option("--selfplay", type=click.IntRange(0), default=60, show_default=True,
              help="Self-played games per game (Gygès, RINGS) at most.")
@click.option("--per-game", type=click.IntRange(1), default=40, show_default=True, help="Puzzles kept per game.")
@click.option("--data", "data_dir", type=click.Path(file_okay=False), default=None,
              help="The folder holding boardspace-2005/ (default: the shared data next to the checkout).")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None, help="Write here (default: the shipped set).")
def puzzles_build(games, selfplay, per_game, data_dir, out):
    """Find puzzles in real and self-played games, verify each, and write them as JSON."""
    from . import puzzles as pz

    found, meta = pz.build(games=games, selfplay=selfplay, per_game=per_game, data_dir=data_dir,
                           log=lambda m: click.echo(m, err=True))
    bad = [(p.id, pz.verify(p)) for p in found]
    bad = [b for b in bad if b[1]]
    if bad:
        raise click.ClickException(f"{len(bad)} puzzle(s) do not verify, e.g. {bad[0][0]}: {bad[0][1]}")
    pz.save(found, out or pz.SHIPPED, meta)
    click.echo(f"{len(found)} puzzles ({', '.join(f'{g} {n}' for g, n in sorted(meta['counts'].items()))}) "
               f"in {meta['seconds']} s -> {out or pz.SHIPPED}")


@puzzles.command("verify")
@click.argument("file", type=click.Path(dir_okay=False, exists=True), required=False)
def puzzles_verify(file):
    """Re-verify every puzzle of FILE (default: the shipped set); exit status 1 if any fails."""
    from . import puzzles as pz

    bad = 0
    items = pz.load(file or pz.SHIPPED)
    for p in items:
        problems = pz.verify(p)
        if problems:
            bad += 1
            click.echo(f"{p.id}: {'; '.join(problems)}")
    click.echo(f"{len(items) - bad} of {len(items)} puzzles verify")
    if bad:
        sys.exit(1)


if __name__ == "__main__":
    main()
