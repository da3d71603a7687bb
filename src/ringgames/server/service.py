"""The game hub: live games in memory, every accepted action committed to the database
before it is broadcast, computer moves in a process pool.

Everything here uses the game protocol only (``load_game``, ``State.play``,
``legal_actions``, ``action_to_string``, ``position``, ...).
"""

from __future__ import annotations

import asyncio
import gc
import html
import logging
import multiprocessing
import os
import random
import secrets
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

import orjson
from sqlalchemy import JSON, Table, bindparam, delete, func, insert, literal_column, select, update
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from .. import load_game
from ..protocol import AGREED_DRAW, RESIGN, IllegalActionError, NotationError, RingGamesError, State
from ..warmup import warm_up
from . import clocks as clk
from . import ratings
from . import seats as seat_tokens
from .accounts import Account, Accounts
from .computer import (
    BOT_NICE,
    WATCHDOG_SECONDS,
    ComputerFailed,
    ComputerPlayers,
    Computers,
    close_pool,
    lane_for,
    worker_init,
)
from .computer import deep_workers as default_deep
from .db import ChatRow, ClockSite, GamePlayerRow, GameRow, MoveRow, make_engine, migrate, sessions
from .errors import MAX_MESSAGE_CHARS, ApiError, clip, short
from .fanout import make_fanout
from .lobby import Lobby
from .presence import Presence
from .seats import Credential
from .seeks import Seeks

OrmSession = Session  # (inside Hub, ``Session`` is the session factory)

__all__ = ["MAX_MESSAGE_CHARS", "ApiError", "Hub", "Room", "clip", "short", "BOT_NICE", "close_pool", "worker_init"]

log = logging.getLogger("ringgames.server")

#: Setup decisions that a "random setup" plays for both sides at creation (game-agnostic count).
SETUP_PLIES = {"gyges": 2}
#: Preset setup choices offered by the "preset" mode.
PRESETS = {"gyges": ["321123", "123321", "231132", "312213"]}
MAX_NAME = 40
MAX_CHAT = 500
#: at most this many game cookies of one browser are carried over to an account at sign-up or login
MAX_CARRIED_GAMES = 100
#: the longest action string accepted (one action's notation is a few characters)
MAX_ACTION_CHARS = 100
#: the clock columns of a game row that every move writes
CLOCK_FIELDS = ("clocks", "clock_seat", "clock_at", "deadline")
#: the move text of a flag (the seat's time ran out): stored as the protocol's resignation
TIME_TEXT = "time"
#: the move text of a win claimed against a seat that stayed away (recorded as that seat's resignation)
ABANDONED_TEXT = "abandoned"
#: the move text of a real-time game claimed against a seat that has had no connection for a while (a resignation)
DISCONNECTED_TEXT = "disconnected"


#: analysis requests that may wait for the analysis worker (more: 429 analysis_busy)
ANALYSIS_QUEUE = 4
#: games analysed at once ("analyse this game"), and how many games' evaluations are kept in memory
GAME_ANALYSES = 2
GAME_ANALYSIS_KEEP = 200


#: the game row's JSON columns a move's write expects unchanged when several processes share the database
EXPECTED_JSON = ("seats", "draw_offers", "tags")
#: the game row's columns that change after its creation other than through a move (``Hub._save_row`` writes them)
SAVED_COLUMNS = ("seats", "status", "tags", "draw_offers", "result", "to_move", *CLOCK_FIELDS)


class StaleGame(Exception):
    """A write found the game at another ply than this process's room: another process changed it first."""


class StaleWrite(ApiError):
    """409 stale_ply for a move whose write found the game changed by another process (the room was read again)."""


def clean_name(name: str | None, default: str) -> str:
    """Player names: trimmed, printable, at most MAX_NAME characters (pages render them as text)."""
    name = "".join(ch for ch in (name or "") if ch.isprintable()).strip()[:MAX_NAME]
    return name or default


def agent_spec(level: int | None) -> str:
    """The agent spec for "computer, level N": ``level:N`` when the AI provides it, else ``random``."""
    from ..ai.agents import AGENTS

    if level is not None and level >= 1 and "level" in AGENTS:
        return f"level:{min(int(level), 5)}"
    return "random"  # level 0, or no AI levels installed


def clocked_spec(spec: str, game: str, players: int, budget: float | None) -> str:
    """The agent spec for a computer seat on a clock: a level's time budget cut to ``budget`` seconds (the share
    of its remaining time it may think, :func:`clocks.think_budget`); other specs as they are."""
    if budget is None or not spec.startswith("level:"):
        return spec
    from ..ai.agents import parse_spec
    from ..ai.levels import spec_for

    level = int(parse_spec(spec)[1].get("value", 3))
    own = parse_spec(spec_for(game, level, 1.0, players))[1].get("time")
    if not isinstance(own, (int, float)) or own <= budget:
        return spec
    return f"level:{level},scale={max(budget / own, 1e-3):.4g}"


def choose_action(serialized: str, spec: str) -> int:
    """The agent's action for a serialized state (a fresh agent; the server's computer seats use
    :func:`ringgames.server.computer.think`, which keeps the search state between decisions)."""
    from .. import deserialize_state
    from ..ai.agents import make_agent

    state = deserialize_state(serialized)
    return make_agent(spec).choose(state)


def _make_pool(workers: int, nice: int = 0) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=worker_init,
                               initargs=(os.getpid(), WATCHDOG_SECONDS, nice))


def check_time_control(tc: dict | None) -> clk.TimeControl | None:
    """A time control from the API (``{"initial": S, "increment": S}`` or ``{"days": N}``), checked: 422
    ``bad_clock`` with the reason for impossible values (the API's request models refuse most of them first)."""
    if not tc:
        return None
    try:
        if "days" in tc:
            days = tc["days"]
            if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= clk.MAX_DAYS:
                raise ValueError(f"correspondence: days per move must be a whole number from 1 to {clk.MAX_DAYS}")
            return clk.TimeControl(days * clk.DAY_MS, 0, days)
        initial, inc = tc.get("initial"), tc.get("increment", 0)
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in (initial, inc)):
            raise ValueError("clock: initial and increment must be numbers of seconds")
        assert isinstance(initial, (int, float)) and isinstance(inc, (int, float))
        if not 1 <= initial <= clk.MAX_INITIAL:
            raise ValueError(f"clock: the initial time is 1 to {clk.MAX_INITIAL:,} seconds (a day), not {initial}")
        if not 0 <= inc <= clk.MAX_INCREMENT:
            raise ValueError(f"clock: the increment is 0 to {clk.MAX_INCREMENT:,} seconds, not {inc}")
        return clk.TimeControl(int(round(initial * 1000)), int(round(inc * 1000)))
    except ValueError as exc:
        raise ApiError(422, "bad_clock", str(exc)) from None


@dataclass
class Room:
    id: str
    row: GameRow
    state: State
    texts: list[str]
    seats_of: list[int]
    #: per entry: (spent_ms, left_ms) of the acting seat's clock, (None, None) without a clock
    times: list[tuple[int | None, int | None]] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set = field(default_factory=set)
    chat: list[dict] = field(default_factory=list)
    ai_task: asyncio.Task | None = None
    #: when the room was last asked for (event loop time), for evicting idle rooms
    touched: float = 0.0
    #: the encoded state (JSON text) and the key of the state it encodes; see ``Hub.state_json``
    encoded: str | None = None
    encoded_key: tuple | None = None
    #: when the seat to decide got the turn (ms since the epoch): the last entry, or when the game became live
    turn_since: int = 0
    #: the computer's move failed twice (its process died or its agent raised): {"seat", "ply", "message"}; the
    #: game waits until someone asks for another try (``Hub.retry_computer``)
    computer_failed: dict | None = None
    #: position strings by the moves that led to them (the last few): a turn's "before" position is the one shown
    #: when the turn began, so a state change formats one position, not two (``Hub._position``)
    positions: dict[tuple, str] = field(default_factory=dict)

    @property
    def over(self) -> bool:
        """The game is over: by its rules, a resignation, a draw, a flag — or aborted by the server."""
        return self.row.status == "aborted" or bool(self.row.tags.get("stopped")) or self.state.is_terminal()

    def state_key(self) -> tuple:
        """Changes whenever what ``Hub.snapshot`` shows changes (moves, status, seats, tags, draw offers)."""
        return (len(self.state.history), self.row.status, id(self.row.seats), id(self.row.tags), tuple(self.row.draw_offers or ()),
                self.row.clock_at, self.row.deadline, id(self.computer_failed))


class Hub:
    def __init__(self, db_url: str, *, ai_workers: int = 2, ai_delay: float = 0.3, run_computers: bool = True,
                 room_idle_seconds: float = 600.0, max_rooms: int = 5000, computer_games_per_client: int = 2,
                 computer_games_total: int = 6, computer_game_actions: int = 600, run_clocks: bool | None = None,
                 clock_heartbeat: float = 1.0, abort_seconds: float = clk.ABORT_SECONDS,
                 claim_seconds: float = clk.CLAIM_SECONDS, disconnect_claim_seconds: float = clk.DISCONNECT_CLAIM_SECONDS,
                 presence_heartbeat: float = clk.PRESENCE_HEARTBEAT_SECONDS,
                 computer_max_seconds: float = clk.COMPUTER_MAX_SECONDS, password_hasher=None,
                 deep_workers: int | None = None, redis_url: str | None = None, computer_queue: bool = False,
                 prestart_computers: bool = False):
        """``run_computers``: play the computer seats (``ringgames serve``); off for tools that share the
        database with a server (``ringgames import``). Rooms idle for ``room_idle_seconds`` (nobody
        watching, nothing running) are dropped from memory, and at most ``max_rooms`` are kept; the
        database is the truth and a later request loads them again. ``run_clocks`` (default: as
        ``run_computers``): flag games whose clock ran out and beat the site's heartbeat every
        ``clock_heartbeat`` seconds (see ``docs/time-controls.md``); off for tools such as ``ringgames import``.
        Computer moves (``server/computer.py``): ``ai_workers`` processes for quick decisions, ``deep_workers``
        (default half of them, at least one, fewer than the cores) for levels 4–5, one for computer-only games; with ``computer_queue``
        they are jobs in the Redis at ``redis_url`` instead, run by ``ringgames worker`` processes (``server/jobs.py``);
        ``prestart_computers``: the quick decisions' processes start with the server (``ringgames serve``), not with
        their first jobs (which then wait about a second for a process to spawn and compile).
        ``redis_url``: several server processes share the database; every change is published to the others
        through Redis (``fanout.py``, ``docs/deploy.md``); None: this process is the only one."""
        self.db_url = db_url
        self.fanout = make_fanout(redis_url)
        #: the lobby's WebSockets (seeks pushed, ``lobby.py``)
        self.lobby = Lobby(lambda: self.seeks, self.fanout)
        #: games whose messages from other processes arrived while the game was being loaded here (read again after)
        self._missed: set[str] = set()
        self._password_hasher = password_hasher  # argon2.PasswordHasher; None: argon2-cffi's defaults
        self._accounts: Accounts | None = None
        self._seeks: Seeks | None = None
        self.engine: Engine | None = None
        #: the engine for reads (after :meth:`start`): on PostgreSQL without a transaction (autocommit), see :meth:`_load`
        self._reader: Engine | None = None
        self._sessionmaker: sessionmaker[Session] | None = None
        self.rooms: dict[str, Room] = {}
        #: games being loaded now: the first request loads, the others wait for its outcome (empty when idle)
        self._loading: dict[str, asyncio.Future] = {}
        self.run_computers = run_computers
        self.room_idle_seconds = room_idle_seconds
        self.max_rooms = max_rooms
        self.ai_workers = ai_workers
        #: computer-only games (every seat a computer): at most this many live per client and in all, and
        #: this many actions each (then a draw, reason "action_limit"); they think in their own one-process pool
        self.computer_games_per_client = computer_games_per_client
        self.computer_games_total = computer_games_total
        self.computer_game_actions = computer_game_actions
        #: live computer-only games: game id -> the creating client (None for games resumed at start)
        self.computer_games: dict[str, str | None] = {}
        self.redis_url = redis_url
        if computer_queue and not redis_url:
            raise ValueError("computer_queue needs redis_url: the queue lives in Redis")
        self.computer_queue = computer_queue
        self.computers: ComputerPlayers = Computers(quick=ai_workers, deep=deep_workers or default_deep(ai_workers), bot=1,
                                                    prestart=prestart_computers)
        self._stopping = False
        self.ai_delay = ai_delay
        self.warmup_seconds: dict[str, float] = {}  # per game, measured by start()
        self.run_clocks = run_computers if run_clocks is None else run_clocks
        self.clock_heartbeat_ms = max(50, int(clock_heartbeat * 1000))
        #: a real-time game whose seat to decide has not made its first move this long after its turn began is aborted
        self.abort_ms = max(100, int(abort_seconds * 1000))
        #: in a game without a clock, the others may claim it when the seat to decide has not moved for this long
        self.claim_ms = max(100, int(claim_seconds * 1000))
        #: in a real-time game, the others may claim it when the seat to decide has had no WebSocket for this long
        self.disconnect_ms = max(100, int(disconnect_claim_seconds * 1000))
        #: every process marks the seats it has WebSockets of as seen this often (``presence.py``)
        self.presence_heartbeat_ms = max(50, int(presence_heartbeat * 1000))
        self._presence: Presence | None = None
        #: per room in memory: (ply, seat to decide, since when it is away, which seats are connected) as last seen, to
        #: tell the players of changes
        self._away_shown: dict[str, tuple[int, int | None, int | None, tuple[bool | None, ...]]] = {}
        #: games with computer seats only are stopped this long after their creation (their length in actions:
        #: computer_game_actions)
        self.computer_max_ms = int(computer_max_seconds * 1000)
        #: the site counts as down when no process beat for this long (checked when a process starts)
        self.clock_down_after_ms = int(self.clock_heartbeat_ms * 2.5)
        #: downtime credited to the running clocks when this process started (ms; 0: none)
        self.clock_resumed_ms = 0
        #: flags this process tried and flags it applied (a flag another process applied first is not applied here)
        self.flags_tried = 0
        self.flags_won = 0
        self._clock_wake: asyncio.Event | None = None
        self._next_wake_ms = 0
        #: the analysis board's own single worker: analyses never queue in front of live games' computer moves
        self._analysis_pool: ProcessPoolExecutor | None = None
        self._analysis_slot = asyncio.Semaphore(1)  # one analysis at a time
        self._analysis_waiting = 0
        self._game_analyses: dict[str, dict] = {}  # "analyse this game", by game id
        self._tasks: set[asyncio.Task] = set()
        self._frozen: set[str | None] = set()
        #: moves waiting for the writer: (game id, game row values, move row, the row's expected status, seats, offers
        #: and tags or None, future resolved after the commit)
        self._pending: list[tuple[str, dict, dict, dict | None, asyncio.Future]] = []
        self._writer: asyncio.Task | None = None
        self._writing = False  # the writer is committing a batch now
        self._writer_conn: Connection | None = None  # the writer's own database connection (opened on first use)
        #: the writer's own thread: a batch of moves never waits in the default thread pool behind the reads of game
        #: creations, joins and WebSocket hellos (a burst of a thousand of them queued moves for hundreds of ms)
        self._writer_thread: ThreadPoolExecutor | None = None
        self._wake = asyncio.Event()  # made anew with each writer task
        # the declarative base types __table__ as a FromClause; these are Tables
        self._moves_t = cast(Table, MoveRow.__table__)
        games = cast(Table, GameRow.__table__)
        # only where the game is still at the ply before the move: a process whose room was stale changes nothing
        self._game_update = update(games).where(games.c.id == bindparam("gid"), games.c.ply == bindparam("old_ply")).values(
            {c: bindparam(f"v_{c}", type_=games.c[c].type) for c in ("status", "result", "ply", "draw_offers", "to_move", "updated", *CLOCK_FIELDS)})
        # several processes (PostgreSQL): also only where the seats, offers and tags are still those this process
        # knew (another process's join, draw offer or seat change whose message has not arrived yet makes the
        # move's write fail; the room is read again and the move checked again) -- instead of a read before each move
        jsonb = [func.coalesce(sql_cast(games.c[c], JSONB), literal_column("'null'::jsonb"))
                 == sql_cast(bindparam(f"old_{c}", type_=JSON()), JSONB) for c in EXPECTED_JSON]
        self._game_update_expect = self._game_update.where(games.c.status == bindparam("old_status"), *jsonb)
        self._postgres = db_url.startswith("postgresql")
        #: moves being committed (and then applied and published) now: a clean stop waits for them
        self._in_flight: set[asyncio.Future] = set()

    @property
    def Session(self) -> sessionmaker[Session]:  # noqa: N802 (used like the class it makes)
        """The database session factory (after :meth:`start`)."""
        if self._sessionmaker is None:
            raise RuntimeError("the hub is not started")
        return self._sessionmaker

    @property
    def accounts(self) -> Accounts:
        """Accounts and sessions (after :meth:`start`)."""
        if self._accounts is None:
            raise RuntimeError("the hub is not started")
        return self._accounts

    @property
    def presence(self) -> Presence:
        """WebSocket presence per seat, in the database (after :meth:`start`)."""
        if self._presence is None:
            raise RuntimeError("the hub is not started")
        return self._presence

    @property
    def seeks(self) -> Seeks:
        """Seeks (after :meth:`start`)."""
        if self._seeks is None:
            raise RuntimeError("the hub is not started")
        return self._seeks

    # -- life cycle ------------------------------------------------------
    async def start(self) -> None:
        await asyncio.to_thread(migrate, self.db_url)
        # the kernels are compiled (or loaded from numba's cache) before the first request, not inside it
        self.warmup_seconds = await asyncio.to_thread(warm_up)
        self.engine = make_engine(self.db_url)
        self._postgres = self.engine.dialect.name == "postgresql"
        if not self._postgres:
            self._game_update_expect = self._game_update.where(cast(Table, GameRow.__table__).c.status == bindparam("old_status"))
        self._sessionmaker = sessions(self.engine)
        # reads on PostgreSQL in autocommit: no BEGIN before their queries and no ROLLBACK when the connection goes back
        # to the pool (two round trips fewer for each; at READ COMMITTED each query sees what was committed at its
        # moment either way). SQLite keeps its transactions (there they give the queries one snapshot).
        self._reader = self.engine.execution_options(isolation_level="AUTOCOMMIT") if self._postgres else self.engine
        self._accounts = Accounts(self._sessionmaker, self._password_hasher)
        self._seeks = Seeks(self._sessionmaker)
        self._presence = Presence(self._sessionmaker, self.presence_heartbeat_ms)
        await self.fanout.start(self._remote, self.lobby.remote)
        self._freeze()
        self._spawn(self._sweep())
        self._spawn(self.lobby.run())
        self._spawn(self._presence_loop())
        if self.run_clocks:  # before any room is loaded: downtime is credited to the stored clocks first
            self.clock_resumed_ms = await asyncio.to_thread(self._resume_clocks, clk.now_ms())
            self._clock_wake = asyncio.Event()
            self._spawn(self._clock_loop())
        if not self.run_computers:
            return
        if self.computer_queue and self.redis_url:
            from .jobs import RedisComputers

            self.computers = RedisComputers(self.redis_url)
        await self.computers.start()
        # rated games that ended while a server stopped before their ratings were written
        for gid in await asyncio.to_thread(self._unrated_ids):
            await self._rate(await self.room(gid))
        # resume computer moves of unfinished games
        ids = await asyncio.to_thread(self._live_ids)
        for gid in ids:
            room = await self.room(gid)
            if self.computer_only(room.row.seats) and not room.state.is_terminal():
                self.computer_games.setdefault(gid, None)  # counts towards the total (the creator is not stored)
            self._maybe_ai(room)

    def _spawn(self, coro) -> asyncio.Task:
        t = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)
        return t

    async def _sweep(self) -> None:
        """Evict idle rooms now and then (every quarter of the idle time, at least every 60 s)."""
        while True:
            await asyncio.sleep(min(60.0, max(1.0, self.room_idle_seconds / 4)))
            self.evict_idle()

    async def stop(self) -> None:
        """Stop: background tasks cancelled, the move writer stopped, and the computer players' processes ended
        (jobs cancelled, busy workers terminated: none outlives the server)."""
        self._stopping = True
        for t in list(self._tasks):
            t.cancel()
        await self._drain_writer()
        if self._in_flight:  # committed moves are applied and published before the fan-out stops
            await asyncio.wait(list(self._in_flight), timeout=10)
        await self.fanout.stop()
        if self._writer is not None:
            self._writer.cancel()
            self._writer = None
        self._close_writer_connection()
        if self._writer_thread is not None:
            self._writer_thread.shutdown(wait=False)
            self._writer_thread = None
        await self.computers.close()
        pool, self._analysis_pool = self._analysis_pool, None
        if pool is not None:
            await asyncio.to_thread(close_pool, pool)
        if self.engine is not None:
            self.engine.dispose()

    def _freeze(self, game: str | None = None) -> None:
        """Move everything alive now out of the garbage collector's sight (``gc.freeze``): after start-up and
        after a game's engine is loaded for the first time, which leaves ~180,000 long-lived objects (numba,
        SQLAlchemy, FastAPI) that each full collection would otherwise walk, a 0.1 s pause of every game."""
        if game is None or game not in self._frozen:
            self._frozen.add(game)
            gc.freeze()

    def _unrated_ids(self) -> list[str]:
        with self.Session() as s:
            return list(s.scalars(select(GameRow.id).where(GameRow.rated.is_(True), GameRow.rated_at.is_(None),
                                                             GameRow.status == "finished")))

    def _live_ids(self) -> list[str]:
        with self.Session() as s:
            return list(s.scalars(select(GameRow.id).where(GameRow.status.in_(("live", "open")))))

    @staticmethod
    def computer_only(seats: list[dict]) -> bool:
        """Every seat is played by the computer."""
        return bool(seats) and all(s.get("kind") == "computer" for s in seats)

    async def _in_analysis_worker(self, fn, *args):
        """``fn(*args)`` in the analysis worker (the caller holds the analysis slot)."""
        if self._analysis_pool is None:
            self._analysis_pool = _make_pool(1)  # its own process, with the watchdog and warm-up of the others
        try:
            return await asyncio.get_running_loop().run_in_executor(self._analysis_pool, fn, *args)
        except BrokenProcessPool:
            self._analysis_pool = None
            raise ApiError(429, "analysis_busy", "the analysis engine restarted; try again", retry_after=5) from None

    def game_analysis(self, gid: str) -> dict:
        """The state of "analyse this game" for ``gid``: ``{"status": "none" | "running" | "done" | "failed", "done",
        "total", "evals", "mistakes"}`` (kept in memory only, for :data:`GAME_ANALYSIS_KEEP` games)."""
        job = self._game_analyses.get(gid)
        if job is None:
            return {"status": "none", "done": 0, "total": 0, "evals": [], "mistakes": []}
        from ..ai.analysis import mistakes

        evals = job["evals"]
        return {"status": job["status"], "done": sum(e is not None for e in evals), "total": len(evals), "evals": evals,
                "mistakes": mistakes(evals, job["movers"])}

    async def start_game_analysis(self, gid: str) -> dict:
        """Start "analyse this game" (an evaluation after every ply, by a quick search each) in the background, unless
        it runs or is done for the game as it stands. Each position takes the analysis slot in turn, so an analysis
        asked for meanwhile waits for one position at most; at most :data:`GAME_ANALYSES` games at once (429)."""
        room = await self.room(gid)
        job = self._game_analyses.get(gid)
        plies = len(room.state.history)
        if job is not None and job["status"] in ("running", "done") and len(job["evals"]) == plies + 1:
            return self.game_analysis(gid)
        if sum(j["status"] == "running" for j in self._game_analyses.values()) >= GAME_ANALYSES:
            raise ApiError(429, "analysis_busy", "other games are being analysed; try again in a minute", retry_after=30)
        start = room.state.game.new_initial_state() if room.row.start is None else room.state.game.state_from_position(room.row.start)
        states, movers = [start.serialize()], [None]  # type: list[str], list[int | None]
        for entry, after in room.state.replay_history():
            states.append(after.serialize())
            movers.append(entry.seat if entry.action >= 0 else None)  # a resignation or agreed draw is no move
        job = {"status": "running", "evals": [None] * len(states), "movers": movers}
        self._game_analyses[gid] = job
        while len(self._game_analyses) > GAME_ANALYSIS_KEEP:  # the oldest finished ones go first
            old = next((g for g, j in self._game_analyses.items() if j["status"] != "running"), None)
            if old is None:
                break
            del self._game_analyses[old]
        self._spawn(self._run_game_analysis(job, states))
        return self.game_analysis(gid)

    async def _run_game_analysis(self, job: dict, states: list[str]) -> None:
        from ..ai.analysis import evaluate_serialized

        try:
            for i, s in enumerate(states):
                async with self._analysis_slot:
                    job["evals"][i] = await self._in_analysis_worker(evaluate_serialized, s)
            job["status"] = "done"
        except Exception:  # noqa: BLE001 (reported as failed; the log has it)
            log.exception("game analysis failed")
            job["status"] = "failed"

    async def analyse(self, serialized: str, seconds: float, depth: int | None, iterations: int | None) -> dict:
        """The analysis board's search (:func:`ringgames.ai.analysis.analyse_serialized`) in its own one-process
        pool, one at a time: live games' computer moves (:attr:`pool`) never wait behind it. At most
        :data:`ANALYSIS_QUEUE` requests wait for the slot; more are refused (429 analysis_busy)."""
        from ..ai.analysis import analyse_serialized

        if self._analysis_waiting >= ANALYSIS_QUEUE:
            raise ApiError(429, "analysis_busy", "the analysis engine is busy; try again in a few seconds", retry_after=5)
        self._analysis_waiting += 1
        waiting = True
        try:
            async with self._analysis_slot:
                self._analysis_waiting -= 1
                waiting = False
                return await self._in_analysis_worker(analyse_serialized, serialized, seconds, depth, iterations)
        finally:
            if waiting:  # cancelled (the client left) before its turn
                self._analysis_waiting -= 1

    # -- loading ---------------------------------------------------------
    def _load(self, gid: str):
        with self.Session(bind=self._reader) as s:
            row = s.get(GameRow, gid)
            if row is None:
                return None
            # (a game's ply is its number of moves: every write of a move checks and raises it, so a new game has none)
            moves = list(s.scalars(select(MoveRow).where(MoveRow.game_id == gid).order_by(MoveRow.ply))) if row.ply else []
            chat = list(s.scalars(select(ChatRow).where(ChatRow.game_id == gid).order_by(ChatRow.id).limit(200)))
            s.expunge_all()
            return row, moves, chat

    async def room(self, gid: str) -> Room:
        """The live room of game ``gid`` (replayed from the database on first use).

        Concurrent requests for a game not in memory share one load; nothing is kept for an
        id that is not a game (no lock, no entry)."""
        loop = asyncio.get_running_loop()
        while True:
            room = self.rooms.get(gid)
            if room is not None:
                room.touched = loop.time()
                return room
            pending = self._loading.get(gid)
            if pending is None:
                break
            await asyncio.wait([pending])  # another request is loading it: use its outcome
            if not pending.cancelled() and isinstance(err := pending.exception(), ApiError):
                raise ApiError(err.status, err.code, err.message, **err.extra)
        fut = loop.create_future()
        self._loading[gid] = fut
        self._missed.discard(gid)
        try:
            room = await self._load_room(gid)
            for _ in range(3):  # another process changed the game while it was read: read it again
                if gid not in self._missed:
                    break
                self._missed.discard(gid)
                room = await self._load_room(gid)
        except BaseException as exc:
            if isinstance(exc, ApiError):
                fut.set_exception(exc)
                fut.exception()  # retrieved: no "never retrieved" warning when nobody else waited
            else:
                fut.cancel()  # the waiters try again themselves
            raise
        finally:
            del self._loading[gid]
        room.touched = loop.time()
        self.rooms[gid] = room
        fut.set_result(room)
        self._evict_over_capacity()
        if self.run_computers:
            self._maybe_ai(room)
        return room

    async def _load_room(self, gid: str) -> Room:
        loaded = await asyncio.to_thread(self._load, gid) if len(gid) <= 32 else None
        if loaded is None:
            raise ApiError(404, "unknown_game", f"there is no game {clip(gid)}")
        row, moves, chat = loaded
        room = Room(gid, row, *self._replay(row, moves))
        last = moves[-1].created if moves else row.updated
        room.turn_since = _epoch_ms(last) if last is not None else clk.now_ms()
        room.chat = [{"name": c.name, "text": c.text} for c in chat]
        return room

    def _replay(self, row: GameRow, moves: list[MoveRow]) -> tuple[State, list[str], list[int], list]:
        game = load_game(row.game, row.variant, row.players)
        self._freeze(game.name)
        state = game.new_initial_state() if row.start is None else game.state_from_position(row.start)
        texts, seats_of, times = [], [], []
        for m in moves:
            if m.action == RESIGN:
                state.resign(m.seat)
            elif m.action == AGREED_DRAW:
                state.agree_draw()
            else:
                state.play(m.action)
            texts.append(m.text)
            seats_of.append(m.seat)
            times.append((m.spent_ms, m.left_ms))
        return state, texts, seats_of, times

    async def _refresh(self, room: Room) -> None:
        """Read ``room`` again from the database (another process changed the game: its clock was flagged there,
        or a move was played there). The room object stays, so its listeners keep it. Caller holds room.lock."""
        loaded = await asyncio.to_thread(self._load, room.id)
        if loaded is None:
            return
        row, moves, _chat = loaded
        before = self.state_json(room)
        room.row = row
        room.state, room.texts, room.seats_of, room.times = self._replay(row, moves)
        last = moves[-1].created if moves else row.updated
        if last is not None:
            room.turn_since = _epoch_ms(last)
        self._clock_changed(row.deadline)
        if self.state_json(room) != before:  # the watchers here get each state once
            self._deliver_local(room)  # (the process that made the change published it to the others itself)

    def _load_row(self, gid: str) -> GameRow | None:
        with self.Session(bind=self._reader) as s:
            row = s.get(GameRow, gid)
            s.expunge_all()
            return row

    async def _refresh_row(self, room: Room) -> None:
        """:meth:`_refresh` for a change that is not a move (a seat taken, a draw offer, tags, a clock started): the
        game's row is read again, and only if its ply is not the room's (moves were played or taken back meanwhile) its
        moves too. A new game's first change (the join) then costs one query instead of three and no replay. Caller
        holds room.lock."""
        row = await asyncio.to_thread(self._load_row, room.id)
        if row is None:
            return
        if row.ply != len(room.state.history):
            await self._refresh(room)
            return
        before = self.state_json(room)
        room.row = row
        if row.ply == 0 and row.updated is not None:  # (else the last move's time, which did not change)
            room.turn_since = _epoch_ms(row.updated)
        self._clock_changed(row.deadline)
        if self.state_json(room) != before:
            self._deliver_local(room)

    @asynccontextmanager
    async def _locked(self, gid: str) -> AsyncIterator[Room]:
        """The room of ``gid`` with its lock held; if the room was evicted while we waited for the lock,
        the room that is in memory now (loaded again from the database) instead."""
        while True:
            room = await self.room(gid)
            async with room.lock:
                if self.rooms.get(gid) is room:
                    yield room
                    return

    @staticmethod
    def _busy(room: Room) -> bool:
        """Somebody watches, a request holds its lock, or a computer is thinking: the room stays in memory."""
        return bool(room.listeners) or room.lock.locked() or (room.ai_task is not None and not room.ai_task.done())

    def evict_idle(self, idle: float | None = None) -> int:
        """Drop rooms not asked for during ``idle`` seconds (default: ``room_idle_seconds``) and not busy.

        Finished, imported (also unfinished) and live games alike: the database holds all of
        them, and the next request loads them again. Returns how many were dropped."""
        cutoff = asyncio.get_running_loop().time() - (self.room_idle_seconds if idle is None else idle)
        gone = [gid for gid, r in self.rooms.items() if r.touched <= cutoff and not self._busy(r)]
        for gid in gone:
            del self.rooms[gid]
        return len(gone)

    def _evict_over_capacity(self) -> None:
        """Above ``max_rooms``, drop the least recently used rooms that are not busy (down to 90 %)."""
        if len(self.rooms) <= self.max_rooms:
            return
        target = max(1, int(self.max_rooms * 0.9))
        now = asyncio.get_running_loop().time()
        for r in sorted(self.rooms.values(), key=lambda r: r.touched):
            if len(self.rooms) <= target:
                break
            if not self._busy(r) and r.touched < now:  # never the room just loaded for the request at hand
                del self.rooms[r.id]

    # -- creating --------------------------------------------------------
    async def create(self, game: str, variant: str | None, players: int | None, seats: list[dict],
                     setup: str | None = None, time_control: dict | None = None, *, client: str | None = None,
                     creator: str | None = None, account: Account | None = None,
                     rated: bool = False) -> tuple[Room, dict[int, str], dict[int, str]]:
        """A new game. ``seats``: one dict per seat, ``kind`` me|invite|open|computer, ``name``, ``level``.
        ``time_control``: ``{"initial": S, "increment": S}``, ``{"days": N}`` or None (no clock; see ``clocks.py``).
        ``account``: the creator's, if logged in (the "me" seats are the account's); ``rated``: a rated game (the
        creator must be logged in, with one "me" seat at most; the other seats are computers or taken by accounts).

        Returns the room, the seat tokens of the "me" seats (the creator's) and the invite tokens of the
        "invite" seats (single use; only their hashes are stored). A computer-only game counts towards the
        limits of ``client`` (429 over them); ``creator``: its creator token (stored hashed), which stops it.
        """
        if rated:
            if account is None:
                raise ApiError(401, "login_required", "log in to play a rated game")
            if sum(str(spec.get("kind", "me")) == "me" for spec in seats) > 1:
                raise ApiError(422, "bad_seats", "in a rated game each seat is a different player: one 'me' seat at most")
            if seats and all(str(spec.get("kind", "me")) == "computer" for spec in seats):
                raise ApiError(422, "bad_seats", "a game of computers only cannot be rated: the levels' ratings are fixed")
        try:
            g = load_game(game, variant, players)
        except ValueError as exc:
            raise ApiError(422, "bad_game", str(exc)) from None
        self._freeze(g.name)
        if len(seats) != g.num_players:
            raise ApiError(422, "bad_seats", f"{g.title} with {g.num_players} players needs {g.num_players} seats, got {len(seats)}")
        out, mine, invites = [], {}, {}
        for i, spec in enumerate(seats):
            kind = str(spec.get("kind", "me"))
            seat_name = g.seat_names[i]
            if kind == "computer":
                level = spec.get("level")
                try:
                    level = None if level in (None, "") else int(level)
                except (TypeError, ValueError):
                    raise ApiError(422, "bad_seats", f"seat {seat_name}: level must be a number") from None
                out.append({"kind": "computer", "name": f"computer{'' if level is None else f' (level {level})'}",
                            "spec": agent_spec(level), "level": level, "token_hash": None, "joined": True, "invite": False})
            elif kind == "account" and isinstance(spec.get("account"), Account):  # a seat filled by a seek: held by the account
                acct = spec["account"]
                out.append({"kind": "human", "name": acct.username, "spec": None, "level": None, "token_hash": None,
                            "invite_hash": None, "joined": True, "invite": False, "open": False, "account": acct.id})
            elif kind in ("me", "invite", "open", "reserved"):  # "reserved": rematches only (never from the API)
                name = (clean_name(spec.get("name"), "me") if kind in ("me", "reserved")
                        else clean_name(None, "waiting…"))
                seat, tok, inv = seat_tokens.human_seat(kind, name, spec.get("reserved_hash"), spec.get("reserved_account"))
                if kind == "me" and account is not None:
                    seat.update(account=account.id, name=account.username)
                out.append(seat)
                if tok:
                    mine[i] = tok
                if inv:
                    invites[i] = inv
            else:
                raise ApiError(422, "bad_seats", f"seat {seat_name}: kind must be me, invite, open or computer, not {kind!r}")
        if setup not in (None, "", "free", "preset", "random"):
            raise ApiError(400, "bad_setup", "setup must be free, preset or random")
        if setup not in (None, "", "free") and g.name not in SETUP_PLIES:
            raise ApiError(400, "bad_setup", f"setup: {g.title} has no setup phase (only Gygès has; leave setup out)")
        tc = check_time_control(time_control)
        bot = self.computer_only(out)
        if bot:
            self._check_computer_games(client)
        tags = {"setup": setup or "free"}
        if bot and creator:
            tags["creator_hash"] = seat_tokens.hash_token(creator)
        state = g.new_initial_state()
        row = GameRow(id=secrets.token_hex(6), game=g.name, variant=g.variant, players=g.num_players, seats=out,
                      status="live", source="play", start=None, tags=tags, draw_offers=[],
                      result="none", ply=0, rated=bool(rated), time_control=tc.to_json() if tc else None)
        row.status = self._status(row, state)
        room = Room(row.id, row, state, [], [], touched=asyncio.get_running_loop().time(), turn_since=clk.now_ms())
        pre: list[tuple[int, int, str]] = []
        if setup == "random":
            rng = random.Random()
            for _ in range(SETUP_PLIES.get(g.name, 0)):
                p = state.current_player()
                a = rng.choice(state.legal_actions())
                pre.append((a, p, state.action_to_string(a)))
                state.apply_action(a)
        row.to_move = None if state.is_terminal() else state.current_player()
        self._start_clock(room)
        await asyncio.to_thread(self._insert, row, pre)
        for _a, p, t in pre:
            room.texts.append(t)
            room.seats_of.append(p)
            room.times.append((None, None))
        if bot:
            self.computer_games[row.id] = client
        self.rooms[row.id] = room
        self._evict_over_capacity()
        self._maybe_ai(room)
        return room, mine, invites

    def _check_computer_games(self, client: str | None) -> None:
        """429 when ``client`` already has ``computer_games_per_client`` live computer-only games, or the site
        ``computer_games_total``."""
        if len(self.computer_games) >= self.computer_games_total:
            raise ApiError(429, "too_many_computer_games", f"the site already runs {len(self.computer_games)} games between "
                           f"computers, at most {self.computer_games_total}; try again when one has ended")
        mine = sum(1 for c in self.computer_games.values() if c is not None and c == client)
        if client is not None and mine >= self.computer_games_per_client:
            raise ApiError(429, "too_many_computer_games", f"this address already runs {mine} games between computers, "
                           f"at most {self.computer_games_per_client}; stop one (resign with its creator token) or wait until one ends")

    async def stop_computer_game(self, room: Room, reason: str) -> None:
        """End computer-only game ``room`` now as a draw, its ``reason`` (stopped | action_limit) kept in the
        game's tags ("ended"). Caller holds room.lock."""
        st = room.state
        if st.is_terminal():
            return
        room.row.tags = {**room.row.tags, "ended": reason}
        await self._save(room)
        await self._commit(room, AGREED_DRAW, st.current_player(), reason)

    def _insert(self, row: GameRow, pre) -> None:
        with self.Session.begin() as s:
            row.ply = len(pre)
            s.add(row)
            s.flush()
            for i, (a, p, t) in enumerate(pre):
                s.add(MoveRow(game_id=row.id, ply=i, action=a, text=t, seat=p))
            self._sync_players(s, row, new=True)

    @staticmethod
    def _sync_players(s: OrmSession, row: GameRow, new: bool = False) -> None:
        """``game_players`` follows the seats' ``account`` fields (in the caller's transaction; ``new``: a game just
        inserted, which has none yet)."""
        if not new and _accounts(row.seats):  # (none now: none ever, as an account never leaves a seat)
            s.execute(delete(GamePlayerRow).where(GamePlayerRow.game_id == row.id))
        s.add_all(GamePlayerRow(game_id=row.id, seat=i, account_id=seat["account"])
                  for i, seat in enumerate(row.seats) if seat.get("account") is not None)

    def _start_clock(self, room: Room) -> None:
        """Start the clocks of a clocked game that has just become live (every seat taken), in memory."""
        row, st = room.row, room.state
        tc = clk.TimeControl.from_json(row.time_control)
        if tc is None or row.status != "live" or row.clocks is not None or st.is_terminal():
            return
        for k, v in clk.start(tc, st.num_players, st.current_player(), clk.now_ms()).row_values().items():
            setattr(row, k, v)
        row.deadline = self._abort_cap(room, tc, row.clock_seat, row.clock_at, row.deadline)
        self._clock_changed(row.deadline)

    def _has_moved(self, room: Room, seat: int, extra: int | None = None) -> bool:
        """``seat`` has played an action of its own (not one the server played at creation, a random setup)."""
        pre = SETUP_PLIES.get(room.row.game, 0) if room.row.tags.get("setup") == "random" else 0
        hist = room.state.history
        return seat == extra or any(s == seat and hist[i] >= 0 for i, s in enumerate(room.seats_of) if i >= pre)

    def _abort_cap(self, room: Room, tc: clk.TimeControl, seat: int | None, clock_at: int | None, deadline: int | None,
                   moved: int | None = None) -> int | None:
        """The deadline, brought forward to ``abort_ms`` after the turn's start while the real-time seat to decide has
        not made its first move (``moved``: a seat that just did); the timer then aborts the game instead of flagging."""
        if tc.days or seat is None or clock_at is None or deadline is None or self._has_moved(room, seat, moved):
            return deadline
        if room.row.seats[seat].get("kind") != "human":
            return deadline
        return min(deadline, clock_at + self.abort_ms)

    @staticmethod
    def _status(row: GameRow, state: State) -> str:
        if row.status == "aborted":
            return "aborted"
        if state.is_terminal() or row.tags.get("stopped"):
            return "finished"
        if any(s["kind"] == "human" and not s["joined"] for s in row.seats):
            return "open"
        return "live"

    # -- seats -----------------------------------------------------------
    @staticmethod
    def seats_for(room: Room, tokens: Sequence[Credential]) -> list[int]:
        """The seats of ``room`` that ``tokens`` hold (see :mod:`.seats`)."""
        return seat_tokens.held(room.row.seats, tokens)

    async def join(self, gid: str, seat: int, name: str | None, invite: str | None, *, vouched: bool = False,
                   account: Account | None = None) -> tuple[Room, str]:
        """Take seat ``seat``: with its invite token (used up), or without one if the seat is open (or ``vouched``
        for by the server); a logged-in player sits as their ``account`` (required in a rated game, once per game).
        Returns the room and the player's fresh seat token."""
        async with self._locked(gid) as room:
            seats = [dict(s) for s in room.row.seats]
            if not 0 <= seat < len(seats):
                raise ApiError(422, "bad_seat", f"there is no seat {seat}")
            if room.row.rated and seats[seat].get("kind") == "human" and not seats[seat].get("joined"):
                if account is None:
                    raise ApiError(401, "login_required", "log in to play a rated game")
                if any(x.get("account") == account.id for x in seats):
                    raise ApiError(409, "already_seated", "you already have a seat in this rated game")
            s = seats[seat]
            token = seat_tokens.claim(s, invite, vouched=vouched)
            s["name"] = clean_name(name, room.state.game.seat_names[seat])
            if account is not None:
                s.update(account=account.id, name=account.username)
            room.row.seats = seats
            was = room.row.status
            room.row.status = self._status(room.row, room.state)
            if was != room.row.status:
                room.turn_since = clk.now_ms()  # the waiting for a player is nobody's turn
            self._start_clock(room)
            await self._save(room)
            await self.broadcast(room)
            return room, token

    async def carry_over(self, account: Account, tokens: dict[str, list[str]]) -> list[str]:
        """A guest logged in or signed up: the seats that ``tokens`` (game id → seat tokens, from the browser's
        game cookies) hold become ``account``'s, named after it. Returns the ids of the games that changed."""
        changed = []
        for gid, toks in list(tokens.items())[:MAX_CARRIED_GAMES]:
            try:
                async with self._locked(gid) as room:
                    mine = [i for i in seat_tokens.held(room.row.seats, toks) if room.row.seats[i].get("account") != account.id]
                    if not mine:
                        continue
                    seats = [dict(s) for s in room.row.seats]
                    for i in mine:
                        if seats[i].get("account") is None and seats[i].get("kind") == "human":
                            seats[i].update(account=account.id, name=account.username)
                    room.row.seats = seats
                    room.row.to_move = None if room.state.is_terminal() else room.state.current_player()
                    await self._save(room)
                    changed.append(gid)
                await self.broadcast(room)
            except ApiError:  # a cookie of a game that is gone
                continue
        return changed

    async def reclaim(self, gid: str, old_hashes: dict[int, str | None], account: Account | None = None,
                      ) -> tuple[Room, dict[int, str]]:
        """Rematch: the seats of game ``gid`` kept for the player who held seats of the previous game — old seat ->
        the hash of its seat token (``old_hashes``), or by ``account``. Seats rotate in a rematch, so a seat is found by
        its ``reserved_hash``/``reserved_account``, not its number. Returns the room and a fresh seat token per seat of
        the new game (see ``seats.reclaim``)."""
        async with self._locked(gid) as room:
            seats = [dict(s) for s in room.row.seats]
            toks: dict[int, str] = {}
            for i, h in old_hashes.items():
                j = next((k for k, s in enumerate(seats) if h and s.get("reserved_hash") == h), None)
                if j is not None:
                    toks[j] = seat_tokens.reclaim(seats[j], h)  # type: ignore[arg-type]
                elif 0 <= i < len(seats) and seats[i].get("kind") == "human" and not seat_tokens.reserved(seats[i]) \
                        and not seats[i].get("joined"):
                    # a rematch made before seats were reserved (and rotated): its waiting seat goes to the old holder
                    toks[i] = seat_tokens.claim(seats[i], None, vouched=True)
            if account is not None:
                for k, s in enumerate(seats):
                    if s.get("reserved_account") == account.id and not s.get("joined") and k not in toks:
                        toks[k] = seat_tokens.claim(s, None, vouched=True)
            for k in toks:
                if account is not None and seats[k].get("reserved_account") in (None, account.id):
                    seats[k].update(account=account.id, name=account.username)
            if toks:
                room.row.seats = seats
                was = room.row.status
                room.row.status = self._status(room.row, room.state)
                if was != room.row.status:
                    room.turn_since = clk.now_ms()
                self._start_clock(room)
                await self._save(room)
                await self.broadcast(room)
            return room, toks

    async def reinvite(self, gid: str, seat: int, tokens: Sequence[Credential]) -> str:
        """A new single-use invite token for waiting seat ``seat``, for a player of the game (the old link dies)."""
        async with self._locked(gid) as room:
            if not self.seats_for(room, tokens):
                raise ApiError(403, "not_your_seat", "only players of this game can invite")
            seats = [dict(s) for s in room.row.seats]
            if not 0 <= seat < len(seats):
                raise ApiError(422, "bad_seat", f"there is no seat {seat}")
            invite = seat_tokens.reinvite(seats[seat])
            room.row.seats = seats
            await self._save(room)
            return invite

    def _save_row(self, row: GameRow) -> None:
        """Write the game row (seats, status, offers, tags, clocks...), only if the game is still at ``row.ply`` in the
        database: else :class:`StaleGame` and nothing is written. One conditional ``UPDATE`` (before: a locking read, the
        ORM's read of the row to merge into, then the update)."""
        games = cast(Table, GameRow.__table__)
        stmt = (update(games).where(games.c.id == row.id, games.c.ply == row.ply)
                .values({**{c: getattr(row, c) for c in SAVED_COLUMNS}, "updated": _utcnow()}))
        if self._postgres and not _accounts(row.seats):
            # no seat belongs to an account, so no game_players rows to follow (accounts never leave a seat): the one
            # UPDATE is its own transaction, one round trip instead of BEGIN, UPDATE, DELETE and COMMIT
            assert self._reader is not None
            with self._reader.connect() as conn:
                if conn.execute(stmt).rowcount:
                    return
        with self.Session.begin() as s:
            done = s.execute(stmt)
            if not done.rowcount:  # type: ignore[attr-defined]
                now = s.execute(select(games.c.ply).where(games.c.id == row.id)).scalar()
                if now is not None:
                    raise StaleGame(f"game {row.id} is at ply {now}, not {row.ply}")
                s.merge(row)  # not stored (yet): as before, the row is written whole
            self._sync_players(s, row)

    async def _save(self, room: Room) -> None:
        """``_save_row`` of the room's row; if another process changed the game first, the room is read again and the
        request answered 409 stale_ply (the client sees the new state and may try again). Caller holds room.lock."""
        try:
            await asyncio.to_thread(self._save_row, room.row)
        except StaleGame:
            await self._refresh(room)
            raise ApiError(409, "stale_ply", "the game changed meanwhile (in another server process); try again",
                           ply=len(room.state.history)) from None

    # -- acting ----------------------------------------------------------
    async def act(self, gid: str, action: str | int, tokens: Sequence[Credential], ply: int) -> Room:
        """Play ``action`` (notation or id) at ``ply`` for the seat to move, if ``tokens`` hold that seat's token.

        ``ply`` must be the game's ply (else 409 stale_ply): a repeated submission can never count as the
        next seat's move. The action is committed to the database, then broadcast. On any error the
        state is unchanged.
        """
        async with self._locked(gid) as room:
            # several processes: the room may miss a change made by another one whose message has not arrived yet; the
            # move's write then fails (it expects the row as the room has it), or the move is refused here. Either way
            # the room is read again from the database and the move checked once more.
            for attempt in (0, 1) if self.fanout.cluster else (1,):
                try:
                    a, p, text = await self._check_action(room, action, tokens, ply)
                    await self._commit(room, a, p, text)
                    break
                except ApiError as exc:
                    if attempt or exc.code not in ("stale_ply", "not_your_turn", "illegal_action"):
                        raise
                    if not isinstance(exc, StaleWrite):  # (a failed write read the room again already)
                        await self._refresh(room)
        self._maybe_ai(room)
        return room

    async def fresh_room(self, gid: str) -> Room:
        """``room(gid)``, and with several processes checked against the database first (one indexed read): a client
        that connects (or reconnects, after its process stopped) gets the game with every committed move even when
        another process's message about it has not arrived yet. A room this call loads is not checked again (after a
        process dies, each reconnecting client's game costs the other process one read, not two)."""
        loads_here = gid not in self.rooms and gid not in self._loading  # (no await before room() decides the same)
        room = await self.room(gid)
        if loads_here:  # read from the database by this very call: current as of after the client connected
            return room
        if self.fanout.cluster and not await asyncio.to_thread(self._current, room):
            async with self._locked(gid) as room:
                await self._refresh_row(room)
        return room

    def _current(self, room: Room) -> bool:
        """The cached room is the game as the database has it now (ply, status, seats, offers, tags)."""
        assert self.engine is not None
        row = room.row
        assert self._reader is not None
        with self._reader.connect() as conn:
            now = conn.execute(_CURRENT, {"gid": room.id}).first()
        return now is None or tuple(now) == (row.ply, row.status, row.seats, row.draw_offers, row.tags)

    async def _check_action(self, room: Room, action: str | int, tokens: Sequence[Credential], ply: int) -> tuple[int, int, str]:
        """``action`` checked for ``act``: (action id, seat, notation), or ApiError. Caller holds room.lock."""
        st = room.state
        if room.row.deadline is not None and clk.now_ms() >= room.row.deadline:
            await self._flag_locked(room)  # the timer has not seen it yet: the time is up all the same
            if room.row.status == "aborted":
                raise ApiError(409, "aborted", "the game was aborted: a first move did not come in time")
            raise ApiError(409, "time_out", "the time of the seat to move ran out", ply=len(st.history))
        if room.row.status == "aborted":
            raise ApiError(409, "aborted", "the game was aborted: a first move did not come in time")
        if st.is_terminal():
            raise ApiError(409, "game_over", f"the game is over ({st.result_string()})")
        if isinstance(ply, bool) or not isinstance(ply, int):
            raise ApiError(400, "bad_request", "ply: an integer is required (the ply the game is at)")
        if ply != len(st.history):
            raise ApiError(409, "stale_ply", f"the game is at ply {len(st.history)}, not {ply}", ply=len(st.history))
        p = st.current_player()
        seat = room.row.seats[p]
        if seat["kind"] != "human" or p not in self.seats_for(room, tokens):
            raise ApiError(403, "not_your_turn", f"it is {st.game.seat_names[p]}'s turn, and you do not hold that seat",
                           to_move=st.game.seat_names[p])
        if isinstance(action, bool) or not isinstance(action, (int, str)):
            raise ApiError(400, "bad_action", "action must be a string in the game's notation or an action id")
        if isinstance(action, str) and len(action) > MAX_ACTION_CHARS:
            raise ApiError(422, "illegal_action", f"{clip(action)} is not an action: an action is at most {MAX_ACTION_CHARS} characters")
        allowed = self._preset_filter(room)
        try:
            a = st.play(action)
        except (IllegalActionError, NotationError) as exc:
            # the legal actions, also when the text could not be read at all (the parser knows none then)
            legal = list(getattr(exc, "legal", []) or []) or [st.action_to_string(x) for x in st.legal_actions()[:300]]
            if allowed is not None:
                legal = [x for x in legal if x in allowed]
            raise ApiError(422, "illegal_action", str(exc), legal=legal[:300]) from None
        except RingGamesError as exc:
            raise ApiError(422, "illegal_action", str(exc)) from None
        st.undo_action()
        text = st.action_to_string(a)
        if allowed is not None and text not in allowed:
            raise ApiError(422, "illegal_action", f"{text!r} is not one of the preset arrangements", legal=sorted(allowed))
        return a, p, text

    def _preset_filter(self, room: Room) -> set[str] | None:
        if room.row.tags.get("setup") == "preset" and len(room.state.history) < SETUP_PLIES.get(room.row.game, 0):
            return set(PRESETS.get(room.row.game, [])) or None
        return None

    async def _commit(self, room: Room, a: int, p: int, text: str) -> None:
        """Apply (already validated) ``a`` for seat ``p``: database first, then memory, then broadcast.

        Readers never see a move that is not committed: the state changes only
        after the commit. Caller holds room.lock.
        """
        st = room.state
        ply = len(st.history)

        def apply() -> None:
            if a == RESIGN:
                st.resign(p)
            elif a == AGREED_DRAW:
                st.agree_draw()
            else:
                st.apply_action(a)

        apply()  # to learn the status, result and seat to move after the move
        status, result = self._status(room.row, st), st.result_string()
        next_seat = None if st.is_terminal() else st.current_player()
        st.undo_action()
        values = {"status": status, "result": result, "ply": ply + 1, "draw_offers": [], "to_move": next_seat}
        move = {"game_id": room.id, "ply": ply, "action": a, "text": text, "seat": p, "created": _utcnow(),
                "spent_ms": None, "left_ms": None}
        row = room.row
        tc = clk.TimeControl.from_json(row.time_control)
        if tc is not None and row.clocks is not None:
            upd = clk.after_entry(tc, row.clocks, row.clock_seat, row.clock_at, p, next_seat, clk.now_ms(),
                                  turn_action=a >= 0)
            values.update(upd.row_values())
            values["deadline"] = self._abort_cap(room, tc, upd.clock_seat, upd.clock_at, upd.deadline, p if a >= 0 else None)
            move.update(spent_ms=upd.spent_ms, left_ms=upd.left_ms)
        else:
            values.update({c: getattr(row, c) for c in CLOCK_FIELDS})
        upd_times = cast(tuple[int | None, int | None], (move["spent_ms"], move["left_ms"]))
        # several processes: the write also expects the row's status, seats, offers and tags as this room has them
        # (on SQLite -- one machine, a test -- only the status: its JSON columns have no JSONB to compare by value)
        expect = None if not self.fanout.cluster else {"old_status": row.status} if not self._postgres else \
            {"old_status": row.status, **{f"old_{c}": getattr(row, c) for c in EXPECTED_JSON}}

        async def store_then_apply() -> None:
            try:
                await self._store_move(room.id, values, move, expect)
            except (StaleGame, IntegrityError):  # another process changed the game first (a move, a join...): it stands
                await self._refresh(room)
                raise StaleWrite(409, "stale_ply", f"the game changed meanwhile (now at ply {len(room.state.history)}); "
                                 "try again", ply=len(room.state.history)) from None
            self._apply_entry(room, a, p, text, values, upd_times)
            self._deliver_local(room)
            await self.fanout.publish(room.id, {"k": "move", "ply": ply + 1, "a": a, "p": p, "t": text, "v": values,
                                                "tm": list(upd_times)}, self.state_message(room) if self.fanout.cluster else None)
            if room.row.rated and st.is_terminal():
                await self._rate(room)

        # shielded: if the caller goes away (cancelled) while the move is being written, the move
        # may still commit, and memory must then follow the database (and a stopping server waits for it)
        task = asyncio.ensure_future(store_then_apply())
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)
        await asyncio.shield(task)

    def _apply_entry(self, room: Room, a: int, p: int, text: str, values: dict, times: tuple[int | None, int | None]) -> None:
        """Add one committed entry (an action, resignation or agreed draw of seat ``p``) to the room in memory, with
        the game row's new ``values``. Caller holds room.lock."""
        st = room.state
        if a == RESIGN:
            st.resign(p)
        elif a == AGREED_DRAW:
            st.agree_draw()
        else:
            st.apply_action(a)
        if st.is_terminal():
            self.computer_games.pop(room.id, None)
        for k, v in values.items():
            setattr(room.row, k, v)
        room.texts.append(text)
        room.seats_of.append(p)
        room.times.append((times[0], times[1]))
        room.turn_since = clk.now_ms()
        self._clock_changed(room.row.deadline)

    async def _remote(self, gid: str, msg: dict) -> None:
        """A message of another process (``fanout.py``): the cached room follows it and its watchers here get it.
        A move at the next ply is applied; one at or below the room's ply is a duplicate (dropped); anything else (a
        gap, a change that is not a move) reads the game again from the database, the truth."""
        room = self.rooms.get(gid)
        if room is None:
            if gid in self._loading:
                self._missed.add(gid)
            return
        kind = msg.get("k")
        if kind == "chat":
            chat = msg.get("msg")
            if isinstance(chat, dict):
                room.chat = [*room.chat, chat][-200:]
                if room.listeners:
                    self._queue_all(room, orjson.dumps({"type": "chat", **chat}).decode())
            return
        async with room.lock:
            if self.rooms.get(gid) is not room:
                return
            have, ply = len(room.state.history), msg.get("ply")
            if kind == "move" and isinstance(ply, int):
                if ply <= have:
                    return
                if ply == have + 1:
                    try:
                        self._apply_entry(room, int(msg["a"]), int(msg["p"]), str(msg["t"]), dict(msg["v"]),
                                          (msg["tm"][0], msg["tm"][1]))
                    except Exception:  # noqa: BLE001 (not applicable here: the database decides)
                        log.warning("move %s of game %s from another process does not apply; reading the game again", ply, gid)
                        await self._refresh(room)
                        return
                    if room.listeners:
                        self._queue_all(room, msg["m"] if isinstance(msg.get("m"), str) else self.state_message(room))
                    return
                await self._refresh(room)  # a gap: the moves are read again
                return
            await self._refresh_row(room)

    # -- ratings -----------------------------------------------------------
    async def _rate(self, room: Room) -> None:
        """Update the ratings for the result of rated game ``room`` (once: ``rated_at`` marks it done)."""
        st = room.state
        out = st.outcome()
        if not room.row.rated or room.row.rated_at is not None or out is None:
            return
        resigned = [s for t, s in zip(room.texts, room.seats_of, strict=True) if t == "resign"]
        ranking = ratings.ranks(room.row.game, list(out.winners), room.row.players, str(out.reason), st.summary(), resigned)
        try:
            room.row.rated_at = await asyncio.to_thread(self._store_ratings, room.id, ranking)
        except Exception:  # pragma: no cover - logged; the game itself is stored
            log.exception("rating update failed for game %s", room.id)

    def _store_ratings(self, gid: str, ranking: list[int]) -> datetime | None:
        now = _utcnow()
        games = cast(Table, GameRow.__table__)
        with self.Session.begin() as s:
            # marks the game first: of several processes (or a restart), exactly one rates it
            done = s.execute(update(games).where(games.c.id == gid, games.c.rated_at.is_(None)).values(rated_at=now))
            if not done.rowcount:  # type: ignore[attr-defined]
                return now
            row = s.get(GameRow, gid)
            assert row is not None
            moves = list(s.scalars(select(MoveRow).where(MoveRow.game_id == gid).order_by(MoveRow.ply)))
            every_seat_rated = all(x.get("kind") == "computer" or x.get("account") is not None for x in row.seats)
            if every_seat_rated and ratings.played_by_every_seat(row, moves, SETUP_PLIES.get(row.game, 0)):
                ratings.rate_game(s, row, ranking, now)
        return now

    # -- group commit ------------------------------------------------------
    async def _store_move(self, gid: str, values: dict, move: dict, expect: dict | None = None) -> None:
        """Commit one move (and its game row); returns once it is committed, raises if it was not.

        One writer task stores the moves of all games: whatever arrived while the
        previous transaction was being written goes into the next one (group
        commit), so a busy server pays one commit for many moves and the writers
        never wait on each other's database locks.
        """
        fut = asyncio.get_running_loop().create_future()
        self._pending.append((gid, values, move, expect, fut))
        if self._writer is None or self._writer.done():
            self._wake = asyncio.Event()
            self._writer = asyncio.get_running_loop().create_task(self._write_loop())
        self._wake.set()
        await fut

    async def _drain_writer(self, timeout: float = 10.0) -> None:
        """Wait (at most ``timeout`` seconds) until the moves handed to the writer are committed (clean shutdown)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while (self._pending or self._writing) and self._writer is not None and not self._writer.done() and loop.time() < end:
            await asyncio.sleep(0.01)

    async def _write_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
            try:
                self._writing = True
                if self._writer_thread is None:
                    self._writer_thread = ThreadPoolExecutor(1, thread_name_prefix="ringgames-move-writer")
                errors = await asyncio.get_running_loop().run_in_executor(
                    self._writer_thread, self._write_batch, [(g, v, m, e) for g, v, m, e, _ in batch])
                self._writing = False
            except BaseException as exc:  # cancelled at shutdown, or the thread could not run
                for *_, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc if isinstance(exc, Exception) else RuntimeError("the server is stopping"))
                raise
            for (*_, fut), err in zip(batch, errors, strict=True):
                if fut.done():
                    continue
                if err is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(err)

    def _write_batch(self, batch: list[tuple[str, dict, dict, dict | None]]) -> list[Exception | None]:
        """Write ``batch`` in one transaction; if that fails, each move alone (so one bad move fails alone)."""
        try:
            self._write_moves(batch)
            return [None] * len(batch)
        except Exception as exc:
            if len(batch) == 1:
                return [exc]
        out: list[Exception | None] = []
        for item in batch:
            try:
                self._write_moves([item])
                out.append(None)
            except Exception as exc:
                out.append(exc)
        return out

    def _write_moves(self, batch: list[tuple[str, dict, dict, dict | None]]) -> None:
        """One transaction on the writer's own connection (kept open: no pool checkout and liveness ping per batch); a
        connection found broken (the database restarted) is replaced and the batch tried once more on the new one."""
        try:
            self._write_moves_on(self._writer_connection(), batch)
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
            self._close_writer_connection()
            self._write_moves_on(self._writer_connection(), batch)

    def _writer_connection(self) -> Connection:
        assert self.engine is not None  # the writer runs between start() and stop()
        if self._writer_conn is None or self._writer_conn.closed or self._writer_conn.invalidated:
            self._close_writer_connection()
            self._writer_conn = self.engine.connect()
        return self._writer_conn

    def _close_writer_connection(self) -> None:
        conn, self._writer_conn = self._writer_conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 (already broken)
                log.debug("closing the writer's connection failed", exc_info=True)

    def _write_moves_on(self, conn: Connection, batch: list[tuple[str, dict, dict, dict | None]]) -> None:
        now = _utcnow()
        with conn.begin():  # one transaction: the moves (unique per game and ply) and their game rows
            conn.execute(insert(self._moves_t), [m for _, _, m, _ in batch])
            changed = 0
            for stmt, rows in ((self._game_update, [b for b in batch if b[3] is None]),
                               (self._game_update_expect, [b for b in batch if b[3] is not None])):
                if rows:
                    changed += conn.execute(stmt, [{"gid": g, "old_ply": m["ply"], **(expect or {}),
                                                    **{f"v_{k}": v for k, v in {**dict.fromkeys(CLOCK_FIELDS), **values}.items()},
                                                    "v_updated": now}
                                                   for g, values, m, expect in rows]).rowcount
            if changed != len(batch):  # a game row was not as its process knew it: rolled back
                raise StaleGame(f"{len(batch) - changed} of {len(batch)} games changed meanwhile")

    # -- clocks ------------------------------------------------------------
    # Every process polls the indexed ``games.deadline`` column (one query per wake-up, never per game) and
    # sleeps until the earliest deadline or the next heartbeat; a move of this process that sets an earlier
    # deadline wakes it. A flag is a conditional UPDATE of the game row (same ply, same deadline, deadline
    # passed) plus the flag's move row in one transaction: of several processes, exactly one applies it.
    def _clock_changed(self, deadline: int | None) -> None:
        if deadline is not None and self._clock_wake is not None and deadline < self._next_wake_ms:
            self._clock_wake.set()

    def _resume_clocks(self, now: int) -> int:
        """At start: if no process beat the heartbeat for ``clock_down_after_ms``, the whole site was down since
        the last beat, and that time is charged to nobody: every running clock whose deadline had not passed by
        then is moved on by the gap. A deadline that passed before the last beat stays: its flag is applied by
        the timer at once. Exactly one starting process shifts (a conditional UPDATE of the heartbeat row).
        Returns the gap credited (ms)."""
        assert self.engine is not None
        site = cast(Table, ClockSite.__table__)
        games = cast(Table, GameRow.__table__)
        try:
            with self.engine.begin() as conn:
                alive = conn.execute(select(site.c.alive_ms).where(site.c.id == 1)).scalar()
                if alive is None:
                    conn.execute(insert(site).values(id=1, alive_ms=now))
                    return 0
                if now - alive <= self.clock_down_after_ms:
                    return 0
                if conn.execute(update(site).where(site.c.id == 1, site.c.alive_ms == alive).values(alive_ms=now)).rowcount != 1:
                    return 0  # another process that started at the same time did it
                gap = now - alive
                conn.execute(update(games).where(games.c.deadline.is_not(None), games.c.deadline > alive)
                             .values(clock_at=games.c.clock_at + gap, deadline=games.c.deadline + gap))
                return gap
        except (IntegrityError, DBAPIError):  # another starting process wrote the row first (SQLite: a busy snapshot)
            return 0

    def _beat(self, now: int) -> None:
        assert self.engine is not None
        site = cast(Table, ClockSite.__table__)
        with self.engine.begin() as conn:
            conn.execute(update(site).where(site.c.id == 1, site.c.alive_ms < now).values(alive_ms=now))

    def _due(self, now: int, limit: int = 100) -> tuple[list[str], int | None]:
        """Games whose running clock has reached zero (at most ``limit``), and the next deadline after ``now``."""
        with self.Session() as s:
            due = list(s.scalars(select(GameRow.id).where(GameRow.deadline <= now).order_by(GameRow.deadline).limit(limit)))
            nxt = s.scalar(select(func.min(GameRow.deadline)).where(GameRow.deadline > now))
        return due, nxt

    async def _clock_loop(self) -> None:
        assert self._clock_wake is not None
        next_beat = 0
        while True:
            try:
                now = clk.now_ms()
                if now >= next_beat:
                    await asyncio.to_thread(self._beat, now)
                    next_beat = now + self.clock_heartbeat_ms
                due, nxt = await asyncio.to_thread(self._due, now)
                # and the rooms in memory whose deadline passed: if another process flagged the game (the database
                # has no deadline any more), the flag fails here and the room is read again, so that the players
                # connected to this process see it too
                mem = [r.row.deadline for r in self.rooms.values() if r.row.deadline is not None]
                due += [r.id for r in list(self.rooms.values()) if r.row.deadline is not None and r.row.deadline <= now
                        and r.id not in due]
                for gid in due:
                    await self.flag_due(gid)
                later = [d for d in [nxt, *mem] if d is not None and d > now]
                wake = min([next_beat, *later])
                if due and len(due) >= 100:
                    wake = clk.now_ms()  # more are due: poll again at once
            except asyncio.CancelledError:
                raise
            except Exception:  # pragma: no cover - logged; the loop goes on (the database may be back soon)
                log.exception("the clock timer failed; trying again")
                wake = clk.now_ms() + self.clock_heartbeat_ms
            self._next_wake_ms = wake
            self._clock_wake.clear()
            try:
                await asyncio.wait_for(self._clock_wake.wait(), max(0, wake - clk.now_ms()) / 1000)
            except TimeoutError:
                pass

    async def flag_due(self, gid: str) -> bool:
        """Flag game ``gid`` if the running clock has reached zero (True if this process applied the flag)."""
        try:
            async with self._locked(gid) as room:
                return await self._flag_locked(room)
        except ApiError:  # the game is gone
            return False

    async def _flag_locked(self, room: Room) -> bool:
        """The seat whose clock ran out loses by time: recorded as its resignation (``text`` "time"), which in a
        two-player game makes the other seat the winner, and in RINGS with more players lets the others play on.
        Applied only if the game row in the database is still the one this process knows (else the room is
        read again: another process flagged it or a move came in there). Caller holds room.lock."""
        row, st = room.row, room.state
        now = clk.now_ms()
        tc = clk.TimeControl.from_json(row.time_control)
        if tc is None or row.deadline is None or row.clocks is None or row.clock_seat is None or now < row.deadline \
                or room.over:
            return False
        p, ply, deadline = row.clock_seat, len(st.history), row.deadline
        if now - (row.clock_at or 0) < row.clocks[p]:  # the clock has time left: it is the first-move deadline
            return await self._abort_locked(room, now)
        st.resign(p)
        status, result = self._status(row, st), st.result_string()
        next_seat = None if st.is_terminal() else st.current_player()
        st.undo_action()
        upd = clk.after_entry(tc, row.clocks, p, row.clock_at, p, next_seat, now, turn_action=False)
        values = {"status": status, "result": result, "ply": ply + 1, "draw_offers": [], "to_move": next_seat,
                  **upd.row_values()}
        values["deadline"] = self._abort_cap(room, tc, upd.clock_seat, upd.clock_at, upd.deadline)  # RINGS plays on
        move = {"game_id": room.id, "ply": ply, "action": RESIGN, "text": TIME_TEXT, "seat": p, "created": _utcnow(),
                "spent_ms": upd.spent_ms, "left_ms": 0}
        self.flags_tried += 1

        async def store_then_apply() -> bool:
            if not await asyncio.to_thread(self._write_flag, room.id, deadline, ply, now, values, move):
                await self._refresh(room)
                return False
            self.flags_won += 1
            st.resign(p)
            for k, v in values.items():
                setattr(row, k, v)
            room.texts.append(TIME_TEXT)
            room.seats_of.append(p)
            room.times.append((upd.spent_ms, 0))
            self._clock_changed(row.deadline)
            await self.broadcast(room)
            return True

        won = await asyncio.shield(store_then_apply())
        if won:
            self._maybe_ai(room)
        return won

    async def _abort_locked(self, room: Room, now: int) -> bool:
        """Abort the game: a real-time seat did not make its first move within ``abort_ms``. No result, no winner,
        no move recorded; the status says ``aborted``. Guarded like a flag. Caller holds room.lock."""
        row = room.row
        ply, deadline = len(room.state.history), row.deadline
        assert deadline is not None
        values = {"status": "aborted", "result": "none", "ply": ply, "draw_offers": [], "to_move": None,
                  "clocks": clk.left_now(row.clocks, row.clock_seat, row.clock_at, now), "clock_seat": None, "clock_at": None,
                  "deadline": None}
        self.flags_tried += 1

        async def store_then_apply() -> bool:
            if not await asyncio.to_thread(self._write_flag, room.id, deadline, ply, now, values, None):
                await self._refresh(room)
                return False
            self.flags_won += 1
            for k, v in values.items():
                setattr(row, k, v)
            await self.broadcast(room)
            return True

        return await asyncio.shield(store_then_apply())

    def _write_flag(self, gid: str, deadline: int, ply: int, now: int, values: dict, move: dict | None) -> bool:
        assert self.engine is not None
        games = cast(Table, GameRow.__table__)
        with self.engine.begin() as conn:
            r = conn.execute(update(games).where(games.c.id == gid, games.c.ply == ply, games.c.deadline == deadline,
                                                 games.c.deadline <= now).values(**values, updated=_utcnow()))
            if r.rowcount != 1:
                return False
            if move is not None:
                conn.execute(insert(self._moves_t), [move])
        return True

    def clock_view(self, room: Room, now: int | None = None) -> dict:
        """``clocks`` (ms left per seat now; None without a clock) and ``clock_running`` (the seat whose clock runs)."""
        row = room.row
        if row.time_control is None:
            return {"clocks": None, "clock_running": None, "claim_in": self.claim_in(room, now), "presence": None}
        now = clk.now_ms() if now is None else now
        claim_in = self.claim_in(room, now)
        left = clk.left_now(row.clocks, row.clock_seat, row.clock_at, now)
        if left is None:  # not started (a seat is still waiting)
            left = [clk.TimeControl.from_json(row.time_control).initial_ms] * row.players  # type: ignore[union-attr]
        return {"clocks": left, "clock_running": row.clock_seat, "claim_in": claim_in, "presence": self.presence_view(room, now)}

    def presence_view(self, room: Room, now: int) -> list[dict | None] | None:
        """Real-time games in play: per seat ``{"connected", "away_ms"}`` as this process last read it (``presence.py``;
        None for a computer or a seat never connected by WebSocket); None for other games."""
        if self._presence is None or not self._realtime_live(room):
            return None
        cached = self._presence.cached(room.id)
        out: list[dict | None] = []
        for seat, spec in enumerate(room.row.seats):
            p = cached.get(seat)
            if p is None or spec["kind"] == "computer":
                out.append(None)
            elif self._presence.connected(p, now):
                out.append({"connected": True, "away_ms": None})
            else:
                out.append({"connected": False, "away_ms": max(0, now - p.seen_ms)})
        return out

    async def resign(self, gid: str, tokens: Sequence[Credential], seat: int | None = None) -> Room:
        async with self._locked(gid) as room:
            st = room.state
            if room.over:
                raise ApiError(409, "game_over", "the game is already over")
            creator = room.row.tags.get("creator_hash")
            if creator and any(isinstance(t, str) and secrets.compare_digest(seat_tokens.hash_token(t), creator)
                               for t in tokens[:seat_tokens.MAX_TOKENS]):
                await self.stop_computer_game(room, "stopped")  # a computer-only game, stopped by its creator
                return room
            mine = [s for s in self.seats_for(room, tokens) if s in st.active_players()]
            if seat is None:
                cur = st.current_player()
                seat = cur if cur in mine else (mine[0] if mine else None)
            if seat is None or seat not in mine:
                raise ApiError(403, "not_your_seat", "you do not hold a seat that can resign")
            await self._commit(room, RESIGN, seat, "resign")
        self._maybe_ai(room)
        return room

    # -- abandonment: claiming a game against a seat that stays away -----------
    def claim_in(self, room: Room, now: int | None = None) -> int | None:
        """Milliseconds until the other players may claim the game against the seat to decide (0: now), or None
        where claims do not apply: over, not live, a computer to move, correspondence (the days decide), and in a
        real-time game while the seat to decide is connected (or never connected by WebSocket). Without a clock:
        ``claim_ms`` after its turn began; in real time: ``disconnect_ms`` after its last WebSocket went away."""
        st, row = room.state, room.row
        if row.status != "live" or room.over:
            return None
        p = st.current_player()
        if row.seats[p]["kind"] != "human":
            return None
        now = clk.now_ms() if now is None else now
        if row.time_control is not None:
            tc = clk.TimeControl.from_json(row.time_control)
            if tc is None or tc.days or self._presence is None:
                return None
            since = self._presence.away_since(room.id, p, now)
            return None if since is None else max(0, since + self.disconnect_ms - now)
        return max(0, room.turn_since + self.claim_ms - now)

    async def claim(self, gid: str, tokens: Sequence[Credential]) -> Room:
        """A player claims the game against the seat to decide: in a game without a clock when it has made no move
        for ``claim_ms`` (text and reason ``abandoned``), in a real-time game when it has had no WebSocket for
        ``disconnect_ms`` (``disconnected``); recorded as that seat's resignation."""
        async with self._locked(gid) as room:
            st = room.state
            if room.over:
                raise ApiError(409, "game_over", "the game is already over")
            p = st.current_player()
            mine = [s for s in self.seats_for(room, tokens) if s in st.active_players() and s != p]
            if not mine:
                raise ApiError(403, "not_your_seat", "only the other players can claim the game")
            realtime = room.row.time_control is not None
            if realtime:  # presence as every process sees it now, not this process's cache
                await asyncio.to_thread(self.presence.read, [gid])
            wait = self.claim_in(room)
            if wait is None or wait > 0:
                why = (f" yet: the seat to move has {wait / 1000:,.0f} more seconds" if wait
                       else " (the player to move is connected)" if realtime else " (a clock decides, or nobody is away)")
                raise ApiError(409, "not_claimable", "the game cannot be claimed" + why, claim_in=wait)
            await self._commit(room, RESIGN, p, DISCONNECTED_TEXT if realtime else ABANDONED_TEXT)
        self._maybe_ai(room)
        return room

    # -- presence: who is connected (``presence.py``) ----------------------------------------------------------
    @staticmethod
    def _realtime_live(room: Room) -> bool:
        tc = room.row.time_control
        return bool(tc) and not tc.get("days") and room.row.status in ("open", "live") and not room.over  # type: ignore[union-attr]

    async def seats_connected(self, room: Room, seats: list[int], connected: bool) -> None:
        """A WebSocket holding ``seats`` of ``room`` opened (``connected``) or closed: counted in the database for
        real-time games (the others may claim the game when the seat to decide stays away), and the players told."""
        if not seats or not self._realtime_live(room):
            return
        fn = self.presence.connect if connected else self.presence.disconnect
        await asyncio.to_thread(fn, room.id, seats, clk.now_ms())
        await self._show_away(room)

    async def _show_away(self, room: Room, now: int | None = None) -> None:
        """Broadcast the state when whether (or since when) the seat to decide is away changed. After a move (another
        ply) the move's own broadcast told the players, unless the seat to decide is away: then once more."""
        now = clk.now_ms() if now is None else now
        seat = None if room.over else room.state.current_player()
        since = None if seat is None else self.presence.away_since(room.id, seat, now)
        # which seats are connected: every change is shown on the game page (its presence labels)
        cached = self.presence.cached(room.id)
        connected = tuple(self.presence.connected(cached.get(s), now) if s in cached else None for s in range(room.row.players))
        key = (len(room.state.history), seat, since, connected)
        prev = self._away_shown.get(room.id)
        self._away_shown[room.id] = key
        if ((since is not None) if prev is None or prev[:2] != key[:2] else prev[2] != since) or (
                prev is not None and prev[3] != connected):
            await self.broadcast(room)

    async def _presence_loop(self) -> None:
        """Every ``presence_heartbeat_ms``: mark this process's connected seats as seen, read the presence of the
        real-time games in memory (connections in other processes, or a process that died), and tell the players
        when the seat to decide went away or came back."""
        while True:
            await asyncio.sleep(self.presence_heartbeat_ms / 1000)
            try:
                now = clk.now_ms()
                await asyncio.to_thread(self.presence.beat, now)
                rooms = [r for r in list(self.rooms.values()) if self._realtime_live(r)]
                await asyncio.to_thread(self.presence.read, [r.id for r in rooms])
                for r in rooms:
                    await self._show_away(r, now)
                held = {r.id for r in rooms}
                for gid in [g for g in self._away_shown if g not in held]:
                    del self._away_shown[gid]
                    self.presence.forget(gid)
            except asyncio.CancelledError:
                raise
            except Exception:  # pragma: no cover - logged; the loop goes on (the database may be back soon)
                log.exception("the presence heartbeat failed; trying again")

    # -- takebacks ---------------------------------------------------------
    @staticmethod
    def _takeback_offer(room: Room) -> dict | None:
        """The takeback asked for at the game's current ply (an offer lapses with any new entry), or None."""
        offer = room.row.tags.get("takeback")
        if not offer or offer.get("ply") != len(room.state.history) or room.over:
            return None
        return offer

    @staticmethod
    def _takeback_from(room: Room, seat: int) -> int | None:
        """The ply where ``seat``'s last turn starts (its last run of actions; everything after it goes too), or
        None if there is nothing of that seat's to take back: no action of it, or a resignation, draw, flag or a
        random setup played by the server at creation in the way."""
        pre = SETUP_PLIES.get(room.row.game, 0) if room.row.tags.get("setup") == "random" else 0
        i = len(room.texts) - 1
        while i >= 0 and room.seats_of[i] != seat:
            i -= 1
        if i < 0:
            return None
        while i > 0 and room.seats_of[i - 1] == seat:
            i -= 1
        hist = room.state.history
        if i < pre or any(a < 0 for a in hist[i:]):
            return None
        return i

    async def takeback(self, gid: str, tokens: Sequence[Credential], what: str) -> Room:
        """``what``: ask | accept | decline. A player asks to take back their last turn (with whatever was played
        after it); once every other human seat still playing accepts, the server undoes it and restores the clocks
        from the times stored with the moves. Against computers only, it is granted at once, except in a rated game
        (409 takeback_rated: nobody else could agree)."""
        async with self._locked(gid) as room:
            st = room.state
            if room.over:
                raise ApiError(409, "game_over", "the game is already over")
            mine = [s for s in self.seats_for(room, tokens) if s in st.active_players()]
            if not mine:
                raise ApiError(403, "not_your_seat", "only players can ask for or answer a takeback")
            offer = self._takeback_offer(room)
            humans = [s for s in st.active_players() if room.row.seats[s]["kind"] == "human"]
            if what == "ask":
                if offer is not None:
                    raise ApiError(409, "takeback_pending", "a takeback is already asked for")
                seat = next((s for s in mine if self._takeback_from(room, s) is not None), None)
                if seat is None:
                    raise ApiError(409, "no_takeback", "there is no turn of yours to take back")
                if room.row.rated and set(humans) <= set(mine):
                    # nobody else to agree: a rated game against the computer would let every blunder (or the
                    # whole game, back to an unrated ply 0) be taken back
                    raise ApiError(409, "takeback_rated", "the computer grants no takebacks in a rated game")
                offer = {"seat": seat, "ply": len(st.history), "accepted": [s for s in mine]}
            elif what == "accept":
                if offer is None:
                    raise ApiError(409, "no_takeback", "no takeback is asked for")
                offer = {**offer, "accepted": sorted(set(offer["accepted"]) | set(mine))}
            elif what == "decline":
                if offer is None:
                    raise ApiError(409, "no_takeback", "no takeback is asked for")
                offer = None
            else:
                raise ApiError(400, "bad_request", "takeback: use ask, accept or decline")
            if offer is not None and set(humans) <= set(offer["accepted"]):
                frm = self._takeback_from(room, offer["seat"])
                if frm is None:
                    raise ApiError(409, "no_takeback", "there is no turn to take back")
                await self._undo_to(room, frm)
            else:
                room.row.tags = {**{k: v for k, v in room.row.tags.items() if k != "takeback"},
                                 **({"takeback": offer} if offer else {})}
                await self._save(room)
                await self.broadcast(room)
        self._maybe_ai(room)
        return room

    async def _undo_to(self, room: Room, frm: int) -> None:
        """Take the history back to ply ``frm``: database first (the later moves deleted and the game row updated,
        only if the game is still at the ply this process knows), then memory, then broadcast. The clocks are
        restored from the stored times: each seat has what it had after its last remaining move (the initial time
        if it has none), and the seat to decide starts now. Caller holds room.lock."""
        st, row = room.state, room.row
        ply = len(st.history)
        undone = st.history[frm:]
        for _ in undone:
            st.undo_action()
        status, result = self._status(row, st), st.result_string()
        to_move = st.current_player()
        for a in undone:  # back as it was until the database has changed
            st.apply_action(a)
        clock: dict = {c: getattr(row, c) for c in CLOCK_FIELDS}
        tc = clk.TimeControl.from_json(row.time_control)
        if tc is not None and row.clocks is not None:
            left = [tc.initial_ms] * st.num_players
            for seat, (_, lm) in zip(room.seats_of[:frm], room.times[:frm], strict=True):
                if lm is not None:
                    left[seat] = lm
            now = clk.now_ms()
            clock = {"clocks": left, "clock_seat": to_move, "clock_at": now, "deadline": now + left[to_move]}
        tags = {k: v for k, v in row.tags.items() if k != "takeback"}
        values = {"status": status, "result": result, "ply": frm, "draw_offers": [], "tags": tags, "to_move": to_move, **clock}
        if not await asyncio.to_thread(self._write_undo, room.id, ply, frm, values):
            await self._refresh(room)
            raise ApiError(409, "stale_ply", "the game changed meanwhile", ply=len(room.state.history))
        for _ in undone:
            st.undo_action()
        for k, v in values.items():
            setattr(row, k, v)
        del room.texts[frm:], room.seats_of[frm:], room.times[frm:]
        room.turn_since = clk.now_ms()
        self._clock_changed(row.deadline)
        await self.broadcast(room)

    def _write_undo(self, gid: str, ply: int, frm: int, values: dict) -> bool:
        assert self.engine is not None
        games = cast(Table, GameRow.__table__)
        with self.engine.begin() as conn:
            r = conn.execute(update(games).where(games.c.id == gid, games.c.ply == ply).values(**values, updated=_utcnow()))
            if r.rowcount != 1:
                return False
            conn.execute(delete(self._moves_t).where(self._moves_t.c.game_id == gid, self._moves_t.c.ply >= frm))
        return True

    async def draw(self, gid: str, tokens: Sequence[Credential], what: str) -> Room:
        """``what``: offer | accept | decline. The draw is agreed once every human seat still playing agrees."""
        async with self._locked(gid) as room:
            st = room.state
            if room.over:
                raise ApiError(409, "game_over", "the game is already over")
            mine = [s for s in self.seats_for(room, tokens) if s in st.active_players()]
            if not mine:
                raise ApiError(403, "not_your_seat", "only players can offer or accept a draw")
            active = st.active_players()
            if any(room.row.seats[s]["kind"] != "human" for s in active):
                raise ApiError(409, "computer_declines", "the computer does not accept draws")
            offers = set(room.row.draw_offers or [])
            if what == "decline":
                offers = set()
            elif what in ("offer", "accept"):
                if what == "accept" and not offers:
                    raise ApiError(409, "no_offer", "there is no draw offer to accept")
                if what == "accept" and set(mine) <= offers:
                    raise ApiError(409, "own_offer", "you offered this draw yourself; another player has to accept it")
                offers |= set(mine)
            else:
                raise ApiError(400, "bad_request", "draw: use offer, accept or decline")
            if set(active) <= offers:
                await self._commit(room, AGREED_DRAW, mine[0], "draw")
            else:
                room.row.draw_offers = sorted(offers)
                await self._save(room)
                await self.broadcast(room)
        return room

    async def chat(self, gid: str, tokens: Sequence[Credential], text: str, name: str | None = None) -> None:
        room = await self.room(gid)
        text = "".join(ch for ch in str(text) if ch.isprintable() or ch == " ").strip()[:MAX_CHAT]
        if not text:
            raise ApiError(422, "empty", "empty chat message")
        mine = self.seats_for(room, tokens)
        who = room.row.seats[mine[0]]["name"] if mine else clean_name(name, "spectator") + " (watching)"
        await asyncio.to_thread(self._store_chat, ChatRow(game_id=gid, name=who, text=text))
        msg = {"name": who, "text": text}
        room.chat.append(msg)
        room.chat = room.chat[-200:]
        await self.send_all(room, {"type": "chat", **msg})

    def _store_chat(self, c: ChatRow) -> None:
        with self.Session.begin() as s:
            s.add(c)

    # -- computer --------------------------------------------------------
    def _maybe_ai(self, room: Room) -> None:
        st = room.state
        if not self.run_computers or room.over or (room.ai_task and not room.ai_task.done()):
            return
        p = st.current_player()
        if room.row.seats[p]["kind"] != "computer":
            return
        if room.computer_failed is not None:
            if room.computer_failed["ply"] == len(st.history):
                return  # it failed here: the players may ask for another try (retry_computer)
            room.computer_failed = None  # the game moved on (a takeback)
        room.ai_task = self._spawn(self._ai_move(room))

    async def _ai_move(self, room: Room) -> None:
        try:
            while True:
                st = room.state
                if room.over:
                    self.computers.forget(room.id)
                    return
                p = st.current_player()
                seat = room.row.seats[p]
                if seat["kind"] != "computer":
                    return
                # a game between computers ends: after computer_game_actions actions (a draw, below) or, here,
                # computer_max_seconds after its creation (finished, no result)
                if all(s["kind"] == "computer" for s in room.row.seats) and (
                        clk.now_ms() - _epoch_ms(room.row.created or _utcnow()) >= self.computer_max_ms):
                    async with room.lock:
                        await self._stop(room)
                    return
                ply = len(st.history)
                bot = self.computer_only(room.row.seats)
                if bot and ply >= self.computer_game_actions:  # a game between computers is not endless
                    async with room.lock:
                        if len(room.state.history) == ply:
                            await self.stop_computer_game(room, "action_limit")
                    continue
                serialized = st.serialize()
                loop = asyncio.get_running_loop()
                t0 = loop.time()
                row = room.row
                tc = clk.TimeControl.from_json(row.time_control)
                budget = None
                if tc is not None and row.clock_seat == p and row.clocks is not None:
                    budget = clk.think_budget(tc, clk.left_now(row.clocks, p, row.clock_at, clk.now_ms())[p])  # type: ignore[index]
                spec = clocked_spec(seat["spec"], st.game.name, st.num_players, budget)
                lane = lane_for(spec, st.game.name, st.num_players, bot)
                try:
                    a = await self.computers.choose(room.id, p, spec, serialized, lane)
                except ComputerFailed as exc:  # failed twice: the players are told, the game waits for a retry
                    if self._stopping:
                        return
                    async with room.lock:
                        if len(room.state.history) == ply and not room.over:
                            room.computer_failed = {"seat": p, "ply": ply, "message": str(exc)[:200]}
                            await self.send_all(room, {"type": "computer_failed", **room.computer_failed})
                            await self.broadcast(room)
                    return
                # on a running real-time clock, no pause for show: it would cost the computer its time
                wait = (0 if budget is not None else self.ai_delay) - (loop.time() - t0)
                if wait > 0:
                    await asyncio.sleep(wait)  # let people see the computer's steps one by one
                async with room.lock:
                    if len(room.state.history) != ply or not room.state.is_legal(a):
                        continue
                    try:
                        await self._commit(room, a, p, room.state.action_to_string(a))
                    except ApiError:  # another process stored an entry at this ply first (the room is read again)
                        continue
        except asyncio.CancelledError:
            raise
        except Exception:  # pragma: no cover - logged, the game waits
            log.exception("computer move failed in game %s", room.id)

    async def retry_computer(self, gid: str, tokens: Sequence[Credential]) -> Room:
        """Another try of a computer move that failed (``computer_failed``): for the game's players, and the creator of
        a computer-only game. 409 no_computer_failure when no computer move failed."""
        async with self._locked(gid) as room:
            creator = room.row.tags.get("creator_hash")
            mine = self.seats_for(room, tokens) or (creator and any(
                isinstance(t, str) and secrets.compare_digest(seat_tokens.hash_token(t), creator)
                for t in tokens[:seat_tokens.MAX_TOKENS]))
            if not mine:
                raise ApiError(403, "not_your_seat", "only the game's players may ask the computer to try again")
            if room.computer_failed is None or room.over:
                raise ApiError(409, "no_computer_failure", "no computer move of this game failed")
            room.computer_failed = None
            await self.broadcast(room)
        self._maybe_ai(room)
        return room

    async def _stop(self, room: Room) -> None:
        """End a game of computers only that went on too long: finished, no result (``reason: "stopped"``),
        so that such games cannot pile up. Caller holds room.lock."""
        row = room.row
        if room.over:
            return
        row.clocks = clk.left_now(row.clocks, row.clock_seat, row.clock_at, clk.now_ms())
        row.clock_seat = row.clock_at = row.deadline = None
        row.tags = {**row.tags, "stopped": True}
        row.status = "finished"
        await self._save(room)
        await self.broadcast(room)

    # -- views -----------------------------------------------------------
    def snapshot(self, room: Room) -> dict:
        st, row = room.state, room.row
        g = st.game
        out = st.outcome()
        terminal = out is not None or room.over
        legal = [] if terminal else [st.action_to_string(a) for a in st.legal_actions()]
        allowed = self._preset_filter(room)
        if allowed is not None:
            legal = [x for x in legal if x in allowed]
        reason: str | None = ((row.tags.get("ended") or out.reason) if out else "aborted" if row.status == "aborted"
                              else "stopped" if row.tags.get("stopped") else None)
        if out is not None and room.texts and room.texts[-1] in (TIME_TEXT, ABANDONED_TEXT, DISCONNECTED_TEXT):
            reason = room.texts[-1]  # the last entry, the resignation that ended the game, was a flag or a claim
        tc = clk.TimeControl.from_json(row.time_control)
        return {
            "id": room.id,
            "game": g.name,
            "title": g.title,
            "variant": g.variant,
            "players": g.num_players,
            "seat_names": list(g.seat_names),
            "seats": [{"seat": i, "name": s["name"], "kind": s["kind"], "level": s.get("level"), "joined": s.get("joined", True),
                       "open": bool(s.get("open")) and not s.get("joined"), "account": s.get("account") is not None}
                      for i, s in enumerate(row.seats)],
            "rated": bool(row.rated),
            "status": row.status,
            "source": row.source,
            "setup": row.tags.get("setup"),
            "tags": {k: v for k, v in row.tags.items() if k not in ("setup", "creator_hash", "takeback", "stopped")},
            "ply": len(st.history),
            "position": self._position(room),
            "to_move": None if terminal else st.current_player(),
            "legal": legal,
            "moves": [{"ply": i, "seat": s, "text": t, "spent_ms": tm[0], "left_ms": tm[1]}
                      for i, (t, s, tm) in enumerate(zip(room.texts, room.seats_of, room.times, strict=True))],
            "result": st.result_string(),
            "reason": reason,
            "time_control": None if tc is None else {**tc.to_json(), "label": tc.label},
            "winners": list(out.winners) if out else [],
            "summary": st.summary(),
            "active": st.active_players(),
            "draw_offers": list(row.draw_offers or []),
            "last_turn": self._last_turn(room),
            "takeback": self._takeback_offer(room),
            "computer_failed": room.computer_failed,
        }

    @staticmethod
    def _last_turn(room: Room) -> dict | None:
        """The last turn: the trailing moves of one seat, from ``ply`` on, and the position before them (the board
        marks what the turn changed: a ring's origin and the markers it flipped, converted stones...)."""
        seats = room.seats_of
        if not seats:
            return None
        start = len(seats)
        while start > 0 and seats[start - 1] == seats[-1]:
            start -= 1
        key = tuple(room.state.history[:start])
        pos = room.positions.get(key)
        if pos is None:
            before = room.state.clone()
            for _ in range(len(seats) - start):
                before.undo_action()
            pos = room.positions[key] = before.position()
        return {"seat": seats[-1], "ply": start, "before": pos}

    @staticmethod
    def _position(room: Room) -> str:
        """The room's position string, remembered with the moves that led to it (the last 8 positions)."""
        key = tuple(room.state.history)
        pos = room.positions.get(key)
        if pos is None:
            pos = room.positions[key] = room.state.position()
            while len(room.positions) > 8:
                del room.positions[next(iter(room.positions))]
        return pos

    async def positions(self, gid: str) -> dict[str, list]:
        """For replay, per ply (index 0: the start): the position, the seat to move (None once the game is over)
        and the summary (rings removed, scores...) of the game at that ply."""
        room = await self.room(gid)
        g = room.state.game
        s = g.new_initial_state() if room.row.start is None else g.state_from_position(room.row.start)
        positions, to_move, summaries = [s.position()], [self._to_move(s)], [s.summary()]
        for _, after in room.state.replay_history():
            positions.append(after.position())
            to_move.append(self._to_move(after))
            summaries.append(after.summary())
        return {"positions": positions, "to_move": to_move, "summaries": summaries}

    @staticmethod
    def _to_move(st: State) -> int | None:
        return None if st.is_terminal() else st.current_player()

    def list_games(self, status: str | None = None, limit: int = 100) -> list[dict]:
        """The games of ``status``, most recently changed first. ``open`` lists only games with a seat that anyone
        may take: a game waiting for an invited friend is private (only the invite link lets anyone in)."""
        with self.Session() as s:
            q = select(GameRow).order_by(GameRow.updated.desc(), GameRow.id)
            if status:
                q = q.where(GameRow.status == status)
            if status != "open":
                rows = list(s.scalars(q.limit(limit)))
            else:  # the seats are JSON: read pages of open games until enough have an open seat
                rows, offset, page = [], 0, max(50, limit)
                while len(rows) < limit:
                    batch = list(s.scalars(q.offset(offset).limit(page)))
                    rows += [r for r in batch if any(x.get("open") and not x.get("joined") for x in r.seats)]
                    if len(batch) < page:
                        break
                    offset += page
                rows = rows[:limit]
        now = clk.now_ms()
        return [{"id": r.id, "game": r.game, "variant": r.variant, "players": r.players, "status": r.status,
                 "source": r.source, "result": r.result, "ply": r.ply,
                 "time_control": (tc := clk.TimeControl.from_json(r.time_control)) and tc.label,
                 "clock_running": r.clock_seat,
                 "time_left": None if r.clock_seat is None else (clk.left_now(r.clocks, r.clock_seat, r.clock_at, now) or [0] * r.players)[r.clock_seat],
                 "seats": [{"name": x["name"], "kind": x["kind"], "open": bool(x.get("open")) and not x.get("joined")} for x in r.seats],
                 "updated": r.updated.isoformat() if r.updated else None} for r in rows]

    # -- live ------------------------------------------------------------
    def state_json(self, room: Room) -> str:
        """``snapshot(room)`` encoded as JSON text, computed once per change of the game and then reused
        (broadcasts, ``hello`` and ``sync`` answers all send this text)."""
        key = room.state_key()
        if room.encoded is None or room.encoded_key != key:
            room.encoded, room.encoded_key = orjson.dumps(self.snapshot(room)).decode(), key
        return room.encoded

    def live_state_json(self, room: Room) -> str:
        """``state_json`` with the clocks as they are now (``clocks``, ``clock_running``) added: the cached text
        with two fields appended, so that every message carries the clocks of the moment it is sent."""
        return self.state_json(room)[:-1] + "," + orjson.dumps(self.clock_view(room)).decode()[1:]

    def state_message(self, room: Room) -> str:
        """The ``{"type": "state", "state": ...}`` message of the current state, as JSON text."""
        return '{"type":"state","state":' + self.live_state_json(room) + "}"

    async def broadcast(self, room: Room) -> None:
        """The room's state to its watchers here, and a ``state`` message to the other processes (which read the game
        again from the database)."""
        self._deliver_local(room)
        await self.fanout.publish(room.id, {"k": "state", "ply": len(room.state.history)})

    def _deliver_local(self, room: Room) -> None:
        if room.listeners:
            self._queue_all(room, self.state_message(room))

    async def send_all(self, room: Room, msg: dict) -> None:
        """Queue ``msg`` (encoded once) for every WebSocket of the room (a chat line; to the other processes too)."""
        if room.listeners:
            self._queue_all(room, orjson.dumps(msg).decode())
        if msg.get("type") == "chat":
            await self.fanout.publish(room.id, {"k": "chat", "msg": {k: v for k, v in msg.items() if k != "type"}})

    @staticmethod
    def _queue_all(room: Room, msg: str) -> None:
        for q in list(room.listeners):
            try:
                q.put_nowait(msg)
            except asyncio.QueueFull:  # a stuck client: it will resync on reconnect
                room.listeners.discard(q)

    # -- import ----------------------------------------------------------
    async def import_text(self, text: str, source: str) -> list[dict]:
        """Import every game record in ``text`` (any supported format). Returns one result per record/file."""
        return await self._import_records(source, await asyncio.to_thread(self._parse_records, text, source))

    async def import_upload(self, files: list[tuple[str, str]], max_games: int) -> list[dict]:
        """Import uploaded files ``(name, text)``: all of them are read first, and if they hold more than
        ``max_games`` games together, nothing is imported (413). A record that does not replay is
        reported and the others are imported, as with ``import_text``."""
        parsed = [(name, await asyncio.to_thread(self._parse_records, text, name)) for name, text in files]
        total = sum(len(recs) for _, recs in parsed if isinstance(recs, list))
        if total > max_games:
            raise ApiError(413, "too_large", f"the upload holds {total:,} games, at most {max_games:,} are imported at once; "
                                             "nothing was imported")
        results: list[dict] = []
        for name, recs in parsed:
            results.extend(await self._import_records(name, recs))
        return results

    @staticmethod
    def _parse_records(text: str, source: str) -> list | dict:
        """The records in ``text``, or the error result of the whole file."""
        from ..records import RecordError, loads

        try:
            return loads(text, source)
        except RecordError as exc:
            return {"file": source, "ok": False, "error": short(str(exc))}

    async def _import_records(self, source: str, recs: list | dict) -> list[dict]:
        if isinstance(recs, dict):
            return [recs]
        return [await asyncio.to_thread(self._import_one, rec, source) for rec in recs]

    def _import_one(self, rec, source: str) -> dict:
        """Replay one record and store it (in a worker thread: the event loop keeps serving the games)."""
        from ..records import RecordError

        try:
            st = rec.replay()
        except RecordError as exc:
            return {"file": source, "ok": False, "error": short(str(exc))}
        same = self._find_import(st, rec)
        if same is not None:
            return {"file": source, "ok": False, "duplicate": True, "id": same, "game": st.game.name,
                    "result": st.result_string(), "plies": len(st.history),
                    "error": f"the same game is already in the archive (game {same}); not imported again"}
        gid = self._store_import(st, rec)
        return {"file": source, "ok": True, "id": gid, "game": st.game.name, "result": st.result_string(), "plies": len(st.history)}

    @staticmethod
    def _import_names(st: State, rec) -> list[str]:
        return [clean_name(rec.tags.get(n.capitalize()) or rec.tags.get(n), n) for n in st.game.seat_names]

    def _find_import(self, st: State, rec) -> str | None:
        """The id of an imported game that is the same record: same game, variant, players, start position,
        player names and actions (uploading a file twice does not make a second archive game)."""
        g = st.game
        names = self._import_names(st, rec)
        actions = [e.action for e in st.history_entries()]
        with self.Session() as s:
            candidates = list(s.scalars(select(GameRow).where(
                GameRow.source == "import", GameRow.game == g.name, GameRow.variant == g.variant,
                GameRow.players == g.num_players, GameRow.ply == len(actions), GameRow.result == st.result_string())))
            for row in candidates:
                if row.start != st._start_position() or [x.get("name") for x in row.seats] != names:
                    continue
                stored = list(s.scalars(select(MoveRow.action).where(MoveRow.game_id == row.id).order_by(MoveRow.ply)))
                if stored == actions:
                    return row.id
        return None

    def _store_import(self, st: State, rec) -> str:
        g = st.game
        names = self._import_names(st, rec)
        seats = [{"kind": "record", "name": n, "spec": None, "level": None, "token_hash": None, "joined": True, "invite": False} for n in names]
        tags = {k: str(v)[:200] for k, v in rec.tags.items() if k not in ("Game", "Variant", "Players")}
        tags["file"] = str(rec.source).rsplit("/", 1)[-1][:200]
        row = GameRow(id=secrets.token_hex(6), game=g.name, variant=g.variant, players=g.num_players, seats=seats,
                      status="finished" if st.is_terminal() else "archived", source="import", start=st._start_position(),
                      tags=tags, draw_offers=[], result=st.result_string(), ply=len(st.history))
        moves = [MoveRow(game_id=row.id, ply=i, action=e.action, text=e.text, seat=max(e.seat, 0))
                 for i, e in enumerate(st.history_entries())]
        with self.Session.begin() as ses:
            ses.add(row)
            ses.flush()
            ses.add_all(moves)
        return row.id


_GAMES = cast(Table, GameRow.__table__)
#: what ``Hub._current`` compares, built once (a connecting client's check; building the query cost more than running it)
_CURRENT = (select(_GAMES.c.ply, _GAMES.c.status, _GAMES.c.seats, _GAMES.c.draw_offers, _GAMES.c.tags)
            .where(_GAMES.c.id == bindparam("gid")))


def _accounts(seats: list[dict]) -> bool:
    """Whether any seat belongs to an account (seats gain an ``account`` on joining or logging in, never lose it)."""
    return any(seat.get("account") is not None for seat in seats)


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _epoch_ms(t: datetime) -> int:
    """A stored time in ms since the epoch (SQLite gives naive datetimes, which are UTC here)."""
    return int((t if t.tzinfo else t.replace(tzinfo=UTC)).timestamp() * 1000)


def escape(text: str) -> str:
    return html.escape(text, quote=True)
