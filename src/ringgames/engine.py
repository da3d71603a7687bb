"""``ringgames engine``: the ring games' engine protocol (RGI) on stdin/stdout.

A line protocol in the spirit of UCI (chess) and UGI (universal game
interface), the same for YINSH, Gygès and RINGS; ``docs/engine.md`` describes
it with a transcript per game. In short, the controller sends::

    rgi                                   -> id name / id author / option ... / rgiok
    isready                               -> readyok (also while searching)
    setoption name NAME value VALUE       (game, variant, players, level, seed, threads, hash)
    newgame
    position startpos [moves A B ...]     (actions in the game's notation)
    position fen POSITION [moves A B ...] (the game's position string)
    go [movetime MS] [nodes N] [depth D] [infinite]
                                          -> info depth .. nodes .. score .. pv .. / bestmove A
    stop                                  (ends a search: bestmove at once)
    quit

Errors (unknown command, bad option value, illegal move, a command that needs
the search to be idle) answer ``info string error: ...`` (at most
:data:`MAX_ERROR` characters) and change nothing; the engine never exits on
bad input. ``go`` searches in a thread so that ``stop``, ``isready`` and
``quit`` are answered while it runs.

The engine is a thin shell over the agents (:mod:`ringgames.ai.agents`) and
the game protocol: it never reads a game's or an agent's private state.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from . import GAMES, load_game
from .ai.levels import MAX_LEVEL_THREADS, check_threads
from .protocol import RingGamesError, State, apply_strings
from .textbounds import bounded_lines, is_ascii_digits

if TYPE_CHECKING:
    from .ai.agents import Agent

__all__ = ["GO_LIMITS", "MAX_ERROR", "MAX_LINE", "Engine", "ProtocolError", "parse_go", "run"]

#: Longest error message written back (characters).
MAX_ERROR = 200
#: Longest command line accepted (characters): a whole game's moves fit easily.
MAX_LINE = 1_000_000
#: The largest value of each ``go`` limit: a day of milliseconds, 10^15 nodes, and the searches' deepest depth.
GO_LIMITS = {"movetime": 86_400_000, "nodes": 10**15, "depth": 64}
#: ``setoption name threads``: at most the machine's cores (at least 2), as ``level:N,threads=K`` (ai/levels.py)
MAX_ENGINE_THREADS = MAX_LEVEL_THREADS
#: Most characters of a bad token quoted back in an error.
_QUOTE = 40


def hash_max_mb() -> int:
    """The largest ``hash`` (MB): 65,536, or half the machine's memory where that is less."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not on this system: the protocol's own ceiling
        return 65536
    return max(1, min(65536, total // 2 // 2**20))


def _quote(text: str) -> str:
    text = text if len(text) <= _QUOTE else text[:_QUOTE] + "…"
    return repr(text)


class ProtocolError(Exception):
    """A command the engine cannot carry out (answered as ``info string error: ...``)."""


def whole(text: str, signed: bool = False) -> int:
    """``text`` as an integer if it is ASCII digits (with a leading ``-`` when ``signed``); else ValueError. Stricter
    than ``int()``, which also takes ``1_000``, ``+5``, spaces and other scripts' digits.

    >>> whole("500"), whole("-3", signed=True)
    (500, -3)
    >>> whole("1_000")
    Traceback (most recent call last):
    ...
    ValueError: not a whole number: '1_000'
    """
    digits = text[1:] if signed and text.startswith("-") else text
    if not is_ascii_digits(digits) or len(digits) > 30:
        raise ValueError(f"not a whole number: {_quote(text)}")
    return int(text)


def parse_go(tokens: list[str]) -> dict:
    """``["movetime", "500", "depth", "3"]`` -> ``{"movetime": 500, "depth": 3}`` (``infinite``: True).

    Raises :class:`ProtocolError` for an unknown limit or a value that is no positive integer.
    """
    out: dict = {}
    i = 0
    while i < len(tokens):
        key = tokens[i].lower()
        if key == "infinite":
            out["infinite"] = True
            i += 1
            continue
        if key not in ("movetime", "nodes", "depth"):
            raise ProtocolError(f"unknown go limit {_quote(tokens[i])} (movetime, nodes, depth, infinite)")
        if key in out:
            raise ProtocolError(f"go {key} given twice")
        if i + 1 >= len(tokens):
            raise ProtocolError(f"go {key} needs a value")
        try:
            value = whole(tokens[i + 1])
        except ValueError:
            raise ProtocolError(f"go {key} needs a positive integer, not {_quote(tokens[i + 1])}") from None
        if value <= 0:
            raise ProtocolError(f"go {key} needs a positive integer, not {value}")
        if value > GO_LIMITS[key]:
            raise ProtocolError(f"go {key} is at most {GO_LIMITS[key]:,}, not {_quote(tokens[i + 1])}")
        out[key] = value
        i += 2
    return out


class Engine:
    """The protocol's state machine: :meth:`handle` one command line at a time.

    ``write`` receives each output line (without newline); it is called from the
    search thread too, under a lock. ``level`` is the initial ``level`` option (1–5,
    ``baseline:N`` or any agent spec).
    """

    OPTIONS = ("game", "variant", "players", "level", "seed", "threads", "hash")

    def __init__(self, write: Callable[[str], None], game: str = "yinsh", variant: str | None = None,
                 players: int | None = None, level: str = "3", seed: int | None = None):
        self._write_raw = write
        self._lock = threading.Lock()
        self._game_name = game
        self._variant = variant
        self._players = players
        self._level = str(level)
        self._seed = seed
        self._hash = 0
        self._threads: int | None = None  # setoption name threads (None: the level's or spec's own, 1 by default)
        self._thread: threading.Thread | None = None
        self._busy = False  # a go is running (cleared, under the lock, as its bestmove is written)
        self._stop = threading.Event()
        self._agent: Agent | None = None
        self._warm: set[str] = set()  # games whose kernels, and game/players/levels whose searches, isready compiled
        self.game = load_game(game, variant, players)
        self._check_level(self._level)
        self.state: State = self.game.new_initial_state()
        #: (start, moves) of the last position command, so that a game going on replays only its new moves
        self._position_key: tuple = (("startpos", ""), [])

    # -- output ----------------------------------------------------------
    def write(self, line: str) -> None:
        with self._lock:
            self._write_raw(line)

    def error(self, message: str) -> None:
        message = " ".join(message.split())
        if len(message) > MAX_ERROR:
            message = message[: MAX_ERROR - 1] + "…"
        self.write(f"info string error: {message}")

    # -- agents ------------------------------------------------------------
    def _spec(self, level: str) -> str:
        from .ai.agents import with_seed

        spec = f"level:{level}" if level.isdigit() else level
        return spec if self._seed is None else with_seed(spec, self._seed)

    def _check_level(self, level: str) -> None:
        from .ai.agents import check_spec

        if level.lower().startswith("engine"):
            raise ProtocolError("level cannot be an external engine")
        try:  # for the current game: a level's agent and an evaluation's name are checked here, not at go
            check_spec(self._spec(level), self.game.name, self.game.num_players)
        except ValueError as exc:
            raise ProtocolError(f"bad level {_quote(level)}: {exc}") from None

    def agent(self) -> Agent:
        """The searching agent for the current game and level (made on first use, kept until
        ``newgame`` or an option changes, so that its tables and tree carry over between moves)."""
        if self._agent is None:
            self._agent = self._make_agent()
        return self._agent

    def _make_agent(self) -> Agent:
        from .ai.agents import make_agent

        agent = make_agent(self._spec(self._level))
        agent_for = getattr(agent, "agent_for", None)  # a level: the agent behind it for this game
        if agent_for is not None:
            agent = agent_for(self.game.name, self.game.num_players)
        if self._hash and hasattr(agent, "tt_size"):
            agent.tt_size = max(1000, self._hash * 1024 * 1024 // 256)
        if self._threads is not None and hasattr(agent, "threads"):  # set by setoption: the compiled search's
            agent.threads = self._threads  # lazy SMP (else a spec's own threads=); other agents use one thread
        return agent

    def _warm_level(self) -> int:
        """A short search by a throwaway agent of the current level (its tables and random numbers are not the
        game's), from a position a few random decisions into the game where the side to move has no win at once
        (a win is played without a search): compiles what this level alone uses (a Python alpha-beta's evaluation,
        a ``baseline:`` spec), which the game's warm-up does not. At most about 0.05 s once compiled: the trial
        agent's least depth is 1, whatever the level's ``min=``. Returns the nodes or iterations searched."""
        from .ai.tactics import winning_action
        from .simulate import playout_actions

        line = playout_actions(self.game.new_initial_state(), seed=1)
        state = self.game.new_initial_state()
        for k in range(min(12, max(0, len(line) - 2)), -1, -1):  # the latest quiet position up to 12 decisions in
            state = self.game.new_initial_state()
            for a in line[:k]:
                state.apply_action(a)
            if not state.is_terminal() and winning_action(state) is None:
                break
        agent = self._make_agent()
        if hasattr(agent, "min_depth"):
            agent.min_depth = 1
        analyse = getattr(agent, "analyse", None)
        if analyse is None:
            agent.choose(state)
            return 0
        res = analyse(state, 0.05)
        return int(res.get("nodes") or res.get("iterations") or 0)

    # -- commands --------------------------------------------------------------
    @property
    def searching(self) -> bool:
        return self._busy

    def handle(self, line: str) -> bool:
        """Carry out one command line; False after ``quit``. Never raises for bad input."""
        line = line.rstrip("\r\n")  # the line end is not part of the command
        if len(line) > MAX_LINE:
            self.too_long(len(line))
            return True
        tokens = line.split()
        if not tokens:
            return True
        cmd, args = tokens[0].lower(), tokens[1:]
        try:
            handler = getattr(self, f"cmd_{cmd}", None)
            if handler is None:
                raise ProtocolError(f"unknown command {_quote(tokens[0])}")
            return handler(args) is not False
        except ProtocolError as exc:
            self.error(str(exc))
        except Exception as exc:  # a bug must not kill the engine: say what, keep going
            self.error(f"internal error in {cmd}: {type(exc).__name__}: {exc}")
        return True

    def too_long(self, n: int) -> None:
        """Refuse a command line of ``n`` characters (over :data:`MAX_LINE`), read or not."""
        self.error(f"line too long ({n} characters; at most {MAX_LINE})")

    def _idle(self, what: str) -> None:
        if self.searching:
            raise ProtocolError(f"{what} while searching (send stop first)")

    def cmd_rgi(self, args: list[str]) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            ver = version("ringgames")
        except PackageNotFoundError:  # pragma: no cover
            ver = "dev"
        g = self.game
        self.write(f"id name ringgames {ver}")
        self.write("id author the ringgames authors")
        self.write(f"option name game type combo default {g.name} " + " ".join(f"var {n}" for n in sorted(GAMES)))
        self.write(f"option name variant type string default {g.variant}")
        lo, hi = g.player_range
        self.write(f"option name players type spin default {g.num_players} min {lo} max {hi}")
        self.write(f"option name level type string default {self._level}")
        self.write(f"option name seed type string default {'none' if self._seed is None else self._seed}")
        self.write(f"option name threads type spin default {self._threads or 1} min 1 max {MAX_ENGINE_THREADS}")
        self.write(f"option name hash type spin default {self._hash} min 0 max {hash_max_mb()}")
        self.write("rgiok")

    def cmd_isready(self, args: list[str]) -> None:
        if not self.searching and self.game.name not in self._warm:
            # compile (or load from numba's cache) the game's kernels now, not in the first go, where a cold cache
            # would cost the first decision tens of seconds that stop could not cut short
            from .warmup import warm_up

            warm_up([self.game.name])
            self._warm.add(self.game.name)
        level = f"{self.game.name}/{self.game.num_players}/{self._level}"
        if not self.searching and level not in self._warm:  # and what the level alone compiles
            self._warm.add(level)
            try:
                self._warm_level()
            except Exception as exc:  # noqa: BLE001 - readyok must come whatever happens; go will say it again
                self.error(f"the level {self._level} failed a trial search: {exc}")
        self.write("readyok")

    def cmd_setoption(self, args: list[str]) -> None:
        self._idle("setoption")
        if len(args) < 2 or args[0].lower() != "name":
            raise ProtocolError("usage: setoption name NAME value VALUE")
        rest = args[1:]
        low = [t.lower() for t in rest]
        if "value" in low:
            i = low.index("value")
            name, value = " ".join(rest[:i]).lower(), " ".join(rest[i + 1:])
        else:
            name, value = " ".join(rest).lower(), ""
        if name not in self.OPTIONS:
            raise ProtocolError(f"unknown option {_quote(name)} ({', '.join(self.OPTIONS)})")
        if not value:
            raise ProtocolError(f"option {name} needs a value")
        if name in ("game", "variant", "players"):
            game, variant, players = self._game_name, self._variant, self._players
            if name == "game":
                game, variant, players = value.lower(), None, None
            elif name == "variant":
                variant = value
            else:
                try:
                    players = whole(value)
                except ValueError:
                    raise ProtocolError(f"players must be a number, not {_quote(value)}") from None
            if game not in GAMES:
                raise ProtocolError(f"unknown game {_quote(game)} ({', '.join(sorted(GAMES))})")
            try:
                new = load_game(game, variant, players)
            except (ValueError, RingGamesError, ImportError) as exc:
                raise ProtocolError(str(exc)) from None
            self._game_name, self._variant, self._players, self.game = game, variant, players, new
            self.state = new.new_initial_state()
            self._position_key = (("startpos", ""), [])
            self._agent = None
        elif name == "level":
            self._check_level(value)
            self._level = value
            self._agent = None
        elif name == "seed":
            if value.lower() == "none":
                self._seed = None
            else:
                try:
                    self._seed = whole(value, signed=True)
                except ValueError:
                    raise ProtocolError(f"seed must be a number or none, not {_quote(value)}") from None
            self._agent = None
        elif name == "threads":
            try:
                n = check_threads(whole(value))
            except ValueError:
                raise ProtocolError(f"threads must be 1–{MAX_ENGINE_THREADS}, not {_quote(value)}") from None
            self._threads = n
            self._agent = None
        elif name == "hash":
            try:
                mb = whole(value)
            except ValueError:
                mb = -1
            top = hash_max_mb()
            if not 0 <= mb <= top:
                raise ProtocolError(f"hash must be 0–{top} (MB, at most half this machine's memory; 0: the level's own "
                                    f"size), not {_quote(value)}")
            self._hash = mb
            self._agent = None

    def cmd_newgame(self, args: list[str]) -> None:
        self._idle("newgame")
        self._agent = None
        self.state = self.game.new_initial_state()
        self._position_key = (("startpos", ""), [])

    def cmd_position(self, args: list[str]) -> None:
        self._idle("position")
        if not args:
            raise ProtocolError("usage: position startpos|fen POSITION [moves A B ...]")
        low = [t.lower() for t in args]
        moves: list[str] = []
        if "moves" in low:
            i = low.index("moves")
            args, moves = args[:i], args[i + 1:]
        kind = args[0].lower()
        start = (kind, " ".join(args[1:]))
        prev_start, prev_moves = self._position_key
        if start == prev_start and moves[: len(prev_moves)] == prev_moves:  # the game went on: play only the new moves
            state = self.state.clone()
            try:
                apply_strings(state, moves[len(prev_moves):])
            except RingGamesError:
                pass  # replayed from the start below, for an error message that counts from the start
            else:
                self.state, self._position_key = state, (start, moves)
                return
        try:
            if kind == "startpos":
                if len(args) > 1:
                    raise ProtocolError(f"unexpected {_quote(args[1])} after startpos")
                state = self.game.new_initial_state()
            elif kind == "fen":
                if len(args) < 2:
                    raise ProtocolError("position fen needs a position string")
                state = self.game.state_from_position(" ".join(args[1:]))
            else:
                raise ProtocolError(f"position: expected startpos or fen, not {_quote(args[0])}")
            apply_strings(state, moves)
        except RingGamesError as exc:
            text = str(exc)
            raise ProtocolError(text if text.startswith("position") else f"position: {text}") from None
        self.state, self._position_key = state, (start, moves)

    def cmd_go(self, args: list[str]) -> None:
        self._idle("go")
        limits = parse_go(args)
        if self.state.is_terminal():
            raise ProtocolError(f"the game is over ({self.state.result_string()}); nothing to search")
        try:
            agent = self.agent()
        except ValueError as exc:  # a level that does not fit a game chosen after it (say, an evaluation's name)
            raise ProtocolError(f"cannot search with level {_quote(self._level)}: {exc}") from None
        self._stop = threading.Event()
        state = self.state.clone()
        self._busy = True
        self._thread = threading.Thread(target=self._search, args=(agent, state, limits, self._stop),
                                        name="rgi-search", daemon=True)
        self._thread.start()

    def cmd_stop(self, args: list[str]) -> None:
        self._stop.set()

    def cmd_quit(self, args: list[str]) -> bool:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        return False

    # -- search ----------------------------------------------------------------
    def _info_line(self, state: State, info: dict) -> str:
        parts = ["info"]
        if "depth" in info:
            parts.append(f"depth {info['depth']}")
        nodes = info.get("nodes", info.get("iterations"))  # MCTS: iterations
        if nodes is not None:
            parts.append(f"nodes {nodes}")
        if "seconds" in info:
            parts.append(f"time {int(info['seconds'] * 1000)}")
        v = info.get("value")
        if v is not None:
            if "iterations" in info:  # MCTS: expected score 0..1
                parts.append(f"score wp {v:.3f}")
            else:
                from .ai.alphabeta import WIN

                if v >= WIN - 1000:
                    parts.append(f"score win {int(WIN - v)}")
                elif v <= -WIN + 1000:
                    parts.append(f"score loss {int(WIN + v)}")
                else:
                    parts.append(f"score cp {int(round(v))}")
        pv = []
        s = state.clone()
        for a in info.get("pv", []):
            if s.is_terminal() or a not in s.legal_actions():
                break
            pv.append(s.action_to_string(a))
            s.apply_action(a)
        if pv:
            parts.append("pv " + " ".join(pv))
        return " ".join(parts)

    def _search(self, agent: Agent, state: State, limits: dict, stop: threading.Event) -> None:
        try:
            action = self._run_agent(agent, state, limits, stop)
            if limits.get("infinite"):
                stop.wait()  # as in UCI: no bestmove before stop in infinite mode
            answer = f"bestmove {state.action_to_string(action)}"
        except Exception as exc:  # pragma: no cover - a bug; still answer
            self.error(f"search failed: {type(exc).__name__}: {exc}")
            answer = "bestmove none"
        with self._lock:  # idle again before the controller can read bestmove and send more
            self._busy = False
            self._write_raw(answer)

    def _run_agent(self, agent: Agent, state: State, limits: dict, stop: threading.Event) -> int:
        from .ai.alphabeta import AlphaBetaAgent
        from .ai.mcts import MCTSAgent

        def on_info(info: dict | None) -> None:
            if info is not None:
                self.write(self._info_line(state, info))

        limited = bool(limits)
        t0 = time.perf_counter()
        if isinstance(agent, AlphaBetaAgent):
            res = agent.analyse(
                state,
                time_limit=(limits["movetime"] / 1000 if "movetime" in limits else math.inf) if limited else None,
                max_depth=limits.get("depth", 64) if limited else None,
                nodes=limits.get("nodes"), stop=stop, on_info=on_info)
        elif isinstance(agent, MCTSAgent):
            mlimits = {k: v for k, v in limits.items() if k != "depth"}
            if "depth" in limits:  # searching on until stop would leave a controller waiting for the bestmove
                self.write("info string mcts has no depth; depth ignored" + ("" if mlimits else ", the level's own budget used"))
            limited = bool(mlimits)
            res = agent.analyse(
                state,
                time_limit=(mlimits["movetime"] / 1000 if "movetime" in mlimits else math.inf) if limited else None,
                iterations=mlimits.get("nodes", math.inf) if limited else None,
                stop=stop, on_info=on_info)
        else:  # greedy, random: one decision ahead, no limits to apply
            a = agent.choose(state)
            res = {"action": a, "depth": 1, "pv": [a], "seconds": time.perf_counter() - t0}
        if res.get("book"):  # the game's opening book answered (Gygès level 5's setup): no search ran
            self.write("info string book move")
        on_info(res)
        return res["action"]


def run(stdin: IO[str] | None = None, stdout: IO[str] | None = None, **options: Any) -> int:
    """Serve the protocol on ``stdin``/``stdout`` until ``quit`` or end of input; returns 0."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout

    def write(line: str) -> None:
        stdout.write(line + "\n")
        stdout.flush()

    engine = Engine(write, **options)
    for line in bounded_lines(stdin, MAX_LINE):  # a line that never ends costs bounded memory
        if isinstance(line, int):
            engine.too_long(line)
        elif not engine.handle(line):
            break
    else:
        engine.cmd_quit([])
    return 0
