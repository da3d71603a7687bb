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
import random
import secrets
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

import orjson
from sqlalchemy import Table, bindparam, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from .. import load_game
from ..protocol import AGREED_DRAW, RESIGN, IllegalActionError, NotationError, RingGamesError, State
from ..warmup import warm_up
from . import seats as seat_tokens
from .db import ChatRow, GameRow, MoveRow, make_engine, migrate, sessions
from .errors import MAX_MESSAGE_CHARS, ApiError, clip, short

__all__ = ["MAX_MESSAGE_CHARS", "ApiError", "Hub", "Room", "clip", "short"]

log = logging.getLogger("ringgames.server")

#: Setup decisions that a "random setup" plays for both sides at creation (game-agnostic count).
SETUP_PLIES = {"gyges": 2}
#: Preset setup choices offered by the "preset" mode.
PRESETS = {"gyges": ["321123", "123321", "231132", "312213"]}
MAX_NAME = 40
MAX_CHAT = 500
#: the longest action string accepted (one action's notation is a few characters)
MAX_ACTION_CHARS = 100
#: analysis requests that may wait for the analysis worker (more: 429 analysis_busy)
ANALYSIS_QUEUE = 4
#: games analysed at once ("analyse this game"), and how many games' evaluations are kept in memory
GAME_ANALYSES = 2
GAME_ANALYSIS_KEEP = 200
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


def choose_action(serialized: str, spec: str) -> int:
    """Runs in a worker process: the agent's action for a serialized state."""
    from .. import deserialize_state
    from ..ai.agents import make_agent

    state = deserialize_state(serialized)
    return make_agent(spec).choose(state)


@dataclass
class Room:
    id: str
    row: GameRow
    state: State
    texts: list[str]
    seats_of: list[int]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set = field(default_factory=set)
    chat: list[dict] = field(default_factory=list)
    ai_task: asyncio.Task | None = None
    #: when the room was last asked for (event loop time), for evicting idle rooms
    touched: float = 0.0
    #: the encoded state (JSON text) and the key of the state it encodes; see ``Hub.state_json``
    encoded: str | None = None
    encoded_key: tuple | None = None

    def state_key(self) -> tuple:
        """Changes whenever what ``Hub.snapshot`` shows changes (moves, status, seats, tags, draw offers)."""
        return (len(self.state.history), self.row.status, id(self.row.seats), id(self.row.tags), tuple(self.row.draw_offers or ()))


class Hub:
    def __init__(self, db_url: str, *, ai_workers: int = 2, ai_delay: float = 0.3, run_computers: bool = True,
                 room_idle_seconds: float = 600.0, max_rooms: int = 5000):
        """``run_computers``: play the computer seats (``ringgames serve``); off for tools that share the
        database with a server (``ringgames import``). Rooms idle for ``room_idle_seconds`` (nobody
        watching, nothing running) are dropped from memory, and at most ``max_rooms`` are kept; the
        database is the truth and a later request loads them again."""
        self.db_url = db_url
        self.engine: Engine | None = None
        self._sessionmaker: sessionmaker[Session] | None = None
        self.rooms: dict[str, Room] = {}
        #: games being loaded now: the first request loads, the others wait for its outcome (empty when idle)
        self._loading: dict[str, asyncio.Future] = {}
        self.run_computers = run_computers
        self.room_idle_seconds = room_idle_seconds
        self.max_rooms = max_rooms
        self.ai_workers = ai_workers
        self.ai_delay = ai_delay
        self.warmup_seconds: dict[str, float] = {}  # per game, measured by start()
        self._pool: ProcessPoolExecutor | None = None
        #: the analysis board's own single worker: analyses never queue in front of live games' computer moves
        self._analysis_pool: ProcessPoolExecutor | None = None
        self._analysis_slot = asyncio.Semaphore(1)  # one analysis at a time
        self._analysis_waiting = 0
        self._game_analyses: dict[str, dict] = {}  # "analyse this game", by game id
        self._tasks: set[asyncio.Task] = set()
        self._frozen: set[str | None] = set()
        #: moves waiting for the writer: (game id, game row values, move row, future resolved after the commit)
        self._pending: list[tuple[str, dict, dict, asyncio.Future]] = []
        self._writer: asyncio.Task | None = None
        self._wake = asyncio.Event()  # made anew with each writer task
        # the declarative base types __table__ as a FromClause; these are Tables
        self._moves_t = cast(Table, MoveRow.__table__)
        games = cast(Table, GameRow.__table__)
        self._game_update = update(games).where(games.c.id == bindparam("gid")).values(
            {c: bindparam(f"v_{c}", type_=games.c[c].type) for c in ("status", "result", "ply", "draw_offers", "updated")})

    @property
    def Session(self) -> sessionmaker[Session]:  # noqa: N802 (used like the class it makes)
        """The database session factory (after :meth:`start`)."""
        if self._sessionmaker is None:
            raise RuntimeError("the hub is not started")
        return self._sessionmaker

    # -- life cycle ------------------------------------------------------
    async def start(self) -> None:
        await asyncio.to_thread(migrate, self.db_url)
        # the kernels are compiled (or loaded from numba's cache) before the first request, not inside it
        self.warmup_seconds = await asyncio.to_thread(warm_up)
        self.engine = make_engine(self.db_url)
        self._sessionmaker = sessions(self.engine)
        self._freeze()
        self._spawn(self._sweep())
        if not self.run_computers:
            return
        # resume computer moves of unfinished games
        ids = await asyncio.to_thread(self._live_ids)
        for gid in ids:
            room = await self.room(gid)
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
        for t in list(self._tasks):
            t.cancel()
        if self._writer is not None:
            self._writer.cancel()
            self._writer = None
        for pool in (self._pool, self._analysis_pool):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        if self.engine is not None:
            self.engine.dispose()

    def _freeze(self, game: str | None = None) -> None:
        """Move everything alive now out of the garbage collector's sight (``gc.freeze``): after start-up and
        after a game's engine is loaded for the first time, which leaves ~180,000 long-lived objects (numba,
        SQLAlchemy, FastAPI) that each full collection would otherwise walk, a 0.1 s pause of every game."""
        if game is None or game not in self._frozen:
            self._frozen.add(game)
            gc.freeze()

    def _live_ids(self) -> list[str]:
        with self.Session() as s:
            return list(s.scalars(select(GameRow.id).where(GameRow.status.in_(("live", "open")))))

    @property
    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.ai_workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=warm_up)  # each worker compiles before its first job
        return self._pool

    async def _in_analysis_worker(self, fn, *args):
        """``fn(*args)`` in the analysis worker (the caller holds the analysis slot)."""
        if self._analysis_pool is None:
            self._analysis_pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=warm_up)
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
        with self.Session() as s:
            row = s.get(GameRow, gid)
            if row is None:
                return None
            moves = list(s.scalars(select(MoveRow).where(MoveRow.game_id == gid).order_by(MoveRow.ply)))
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
        try:
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
        game = load_game(row.game, row.variant, row.players)
        self._freeze(game.name)
        state = game.new_initial_state() if row.start is None else game.state_from_position(row.start)
        texts, seats_of = [], []
        for m in moves:
            if m.action == RESIGN:
                state.resign(m.seat)
            elif m.action == AGREED_DRAW:
                state.agree_draw()
            else:
                state.play(m.action)
            texts.append(m.text)
            seats_of.append(m.seat)
        room = Room(gid, row, state, texts, seats_of)
        room.chat = [{"name": c.name, "text": c.text} for c in chat]
        return room

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
                     setup: str | None = None) -> tuple[Room, dict[int, str], dict[int, str]]:
        """A new game. ``seats``: one dict per seat, ``kind`` me|invite|open|computer, ``name``, ``level``.

        Returns the room, the seat tokens of the "me" seats (the creator's) and the invite tokens of the
        "invite" seats (single use; only their hashes are stored).
        """
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
            elif kind in ("me", "invite", "open"):
                name = clean_name(spec.get("name"), "me") if kind == "me" else clean_name(None, "waiting…")
                seat, tok, inv = seat_tokens.human_seat(kind, name)
                out.append(seat)
                if tok:
                    mine[i] = tok
                if inv:
                    invites[i] = inv
            else:
                raise ApiError(422, "bad_seats", f"seat {seat_name}: kind must be me, invite, open or computer, not {kind!r}")
        if setup not in (None, "", "free", "preset", "random"):
            raise ApiError(422, "bad_setup", "setup must be free, preset or random")
        state = g.new_initial_state()
        row = GameRow(id=secrets.token_hex(6), game=g.name, variant=g.variant, players=g.num_players, seats=out,
                      status="live", source="play", start=None, tags={"setup": setup or "free"}, draw_offers=[],
                      result="none", ply=0)
        row.status = self._status(row, state)
        room = Room(row.id, row, state, [], [], touched=asyncio.get_running_loop().time())
        pre: list[tuple[int, int, str]] = []
        if setup == "random":
            rng = random.Random()
            for _ in range(SETUP_PLIES.get(g.name, 0)):
                p = state.current_player()
                a = rng.choice(state.legal_actions())
                pre.append((a, p, state.action_to_string(a)))
                state.apply_action(a)
        await asyncio.to_thread(self._insert, row, pre)
        for _a, p, t in pre:
            room.texts.append(t)
            room.seats_of.append(p)
        self.rooms[row.id] = room
        self._evict_over_capacity()
        self._maybe_ai(room)
        return room, mine, invites

    def _insert(self, row: GameRow, pre) -> None:
        with self.Session.begin() as s:
            row.ply = len(pre)
            s.add(row)
            s.flush()
            for i, (a, p, t) in enumerate(pre):
                s.add(MoveRow(game_id=row.id, ply=i, action=a, text=t, seat=p))

    @staticmethod
    def _status(row: GameRow, state: State) -> str:
        if state.is_terminal():
            return "finished"
        if any(s["kind"] == "human" and not s["joined"] for s in row.seats):
            return "open"
        return "live"

    # -- seats -----------------------------------------------------------
    @staticmethod
    def seats_for(room: Room, tokens: list[str]) -> list[int]:
        """The seats of ``room`` that ``tokens`` hold (see :mod:`.seats`)."""
        return seat_tokens.held(room.row.seats, tokens)

    async def join(self, gid: str, seat: int, name: str | None, invite: str | None, *, vouched: bool = False) -> tuple[Room, str]:
        """Take seat ``seat``: with its invite token (used up), or without one if the seat is open (or ``vouched``
        for by the server). Returns the room and the player's fresh seat token."""
        async with self._locked(gid) as room:
            seats = [dict(s) for s in room.row.seats]
            if not 0 <= seat < len(seats):
                raise ApiError(422, "bad_seat", f"there is no seat {seat}")
            s = seats[seat]
            token = seat_tokens.claim(s, invite, vouched=vouched)
            s["name"] = clean_name(name, room.state.game.seat_names[seat])
            room.row.seats = seats
            room.row.status = self._status(room.row, room.state)
            await asyncio.to_thread(self._save_row, room.row)
            await self.broadcast(room)
            return room, token

    async def reinvite(self, gid: str, seat: int, tokens: list[str]) -> str:
        """A new single-use invite token for waiting seat ``seat``, for a player of the game (the old link dies)."""
        async with self._locked(gid) as room:
            if not self.seats_for(room, tokens):
                raise ApiError(403, "not_your_seat", "only players of this game can invite")
            seats = [dict(s) for s in room.row.seats]
            if not 0 <= seat < len(seats):
                raise ApiError(422, "bad_seat", f"there is no seat {seat}")
            invite = seat_tokens.reinvite(seats[seat])
            room.row.seats = seats
            await asyncio.to_thread(self._save_row, room.row)
            return invite

    def _save_row(self, row: GameRow) -> None:
        with self.Session.begin() as s:
            s.merge(row)

    # -- acting ----------------------------------------------------------
    async def act(self, gid: str, action: str | int, tokens: list[str], ply: int) -> Room:
        """Play ``action`` (notation or id) at ``ply`` for the seat to move, if ``tokens`` hold that seat's token.

        ``ply`` must be the game's ply (else 409 stale_ply): a repeated submission can never count as the
        next seat's move. The action is committed to the database, then broadcast. On any error the
        state is unchanged.
        """
        async with self._locked(gid) as room:
            st = room.state
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
                legal = list(getattr(exc, "legal", []) or [])
                raise ApiError(422, "illegal_action", str(exc), legal=legal[:300]) from None
            except RingGamesError as exc:
                raise ApiError(422, "illegal_action", str(exc)) from None
            st.undo_action()
            text = st.action_to_string(a)
            if allowed is not None and text not in allowed:
                raise ApiError(422, "illegal_action", f"{text!r} is not one of the preset arrangements", legal=sorted(allowed))
            await self._commit(room, a, p, text)
        self._maybe_ai(room)
        return room

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

        apply()  # to learn the status and result after the move
        status, result = self._status(room.row, st), st.result_string()
        st.undo_action()
        values = {"status": status, "result": result, "ply": ply + 1, "draw_offers": []}
        move = {"game_id": room.id, "ply": ply, "action": a, "text": text, "seat": p, "created": _utcnow()}

        async def store_then_apply() -> None:
            await self._store_move(room.id, values, move)
            apply()
            for k, v in values.items():
                setattr(room.row, k, v)
            room.texts.append(text)
            room.seats_of.append(p)
            await self.broadcast(room)

        # shielded: if the caller goes away (cancelled) while the move is being written, the move
        # may still commit, and memory must then follow the database
        await asyncio.shield(store_then_apply())

    # -- group commit ------------------------------------------------------
    async def _store_move(self, gid: str, values: dict, move: dict) -> None:
        """Commit one move (and its game row); returns once it is committed, raises if it was not.

        One writer task stores the moves of all games: whatever arrived while the
        previous transaction was being written goes into the next one (group
        commit), so a busy server pays one commit for many moves and the writers
        never wait on each other's database locks.
        """
        fut = asyncio.get_running_loop().create_future()
        self._pending.append((gid, values, move, fut))
        if self._writer is None or self._writer.done():
            self._wake = asyncio.Event()
            self._writer = asyncio.get_running_loop().create_task(self._write_loop())
        self._wake.set()
        await fut

    async def _write_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
            try:
                errors = await asyncio.to_thread(self._write_batch, [(g, v, m) for g, v, m, _ in batch])
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

    def _write_batch(self, batch: list[tuple[str, dict, dict]]) -> list[Exception | None]:
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

    def _write_moves(self, batch: list[tuple[str, dict, dict]]) -> None:
        now = _utcnow()
        assert self.engine is not None  # the writer runs between start() and stop()
        with self.engine.begin() as conn:  # one transaction: the moves (unique per game and ply) and their game rows
            conn.execute(insert(self._moves_t), [m for _, _, m in batch])
            conn.execute(self._game_update, [{"gid": g, **{f"v_{k}": v for k, v in values.items()}, "v_updated": now}
                                             for g, values, _ in batch])

    async def resign(self, gid: str, tokens: list[str], seat: int | None = None) -> Room:
        async with self._locked(gid) as room:
            st = room.state
            if st.is_terminal():
                raise ApiError(409, "game_over", "the game is already over")
            mine = [s for s in self.seats_for(room, tokens) if s in st.active_players()]
            if seat is None:
                cur = st.current_player()
                seat = cur if cur in mine else (mine[0] if mine else None)
            if seat is None or seat not in mine:
                raise ApiError(403, "not_your_seat", "you do not hold a seat that can resign")
            await self._commit(room, RESIGN, seat, "resign")
        self._maybe_ai(room)
        return room

    async def draw(self, gid: str, tokens: list[str], what: str) -> Room:
        """``what``: offer | accept | decline. The draw is agreed once every human seat still playing agrees."""
        async with self._locked(gid) as room:
            st = room.state
            if st.is_terminal():
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
                offers |= set(mine)
            else:
                raise ApiError(400, "bad_request", "draw: use offer, accept or decline")
            if set(active) <= offers:
                await self._commit(room, AGREED_DRAW, mine[0], "draw")
            else:
                room.row.draw_offers = sorted(offers)
                await asyncio.to_thread(self._save_row, room.row)
                await self.broadcast(room)
        return room

    async def chat(self, gid: str, tokens: list[str], text: str, name: str | None = None) -> None:
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
        if not self.run_computers or st.is_terminal() or (room.ai_task and not room.ai_task.done()):
            return
        p = st.current_player()
        if room.row.seats[p]["kind"] != "computer":
            return
        room.ai_task = self._spawn(self._ai_move(room))

    async def _ai_move(self, room: Room) -> None:
        try:
            while True:
                st = room.state
                if st.is_terminal():
                    return
                p = st.current_player()
                seat = room.row.seats[p]
                if seat["kind"] != "computer":
                    return
                ply = len(st.history)
                serialized = st.serialize()
                loop = asyncio.get_running_loop()
                t0 = loop.time()
                try:
                    a = await loop.run_in_executor(self.pool, choose_action, serialized, seat["spec"])
                except BrokenProcessPool:  # a worker died: start a new pool next time, think in a thread now
                    log.warning("computer process pool broke; game %s thinks in a thread this time", room.id)
                    self._pool = None
                    a = await asyncio.to_thread(choose_action, serialized, seat["spec"])
                wait = self.ai_delay - (loop.time() - t0)
                if wait > 0:
                    await asyncio.sleep(wait)  # let people see the computer's steps one by one
                async with room.lock:
                    if len(room.state.history) != ply or not room.state.is_legal(a):
                        continue
                    await self._commit(room, a, p, room.state.action_to_string(a))
        except asyncio.CancelledError:
            raise
        except Exception:  # pragma: no cover - logged, the game waits
            log.exception("computer move failed in game %s", room.id)

    # -- views -----------------------------------------------------------
    def snapshot(self, room: Room) -> dict:
        st, row = room.state, room.row
        g = st.game
        out = st.outcome()
        terminal = out is not None
        legal = [] if terminal else [st.action_to_string(a) for a in st.legal_actions()]
        allowed = self._preset_filter(room)
        if allowed is not None:
            legal = [x for x in legal if x in allowed]
        return {
            "id": room.id,
            "game": g.name,
            "title": g.title,
            "variant": g.variant,
            "players": g.num_players,
            "seat_names": list(g.seat_names),
            "seats": [{"seat": i, "name": s["name"], "kind": s["kind"], "level": s.get("level"), "joined": s.get("joined", True),
                       "open": bool(s.get("open")) and not s.get("joined")} for i, s in enumerate(row.seats)],
            "status": row.status,
            "source": row.source,
            "setup": row.tags.get("setup"),
            "tags": {k: v for k, v in row.tags.items() if k != "setup"},
            "ply": len(st.history),
            "position": st.position(),
            "to_move": None if terminal else st.current_player(),
            "legal": legal,
            "moves": [{"ply": i, "seat": s, "text": t} for i, (t, s) in enumerate(zip(room.texts, room.seats_of, strict=True))],
            "result": st.result_string(),
            "reason": out.reason if out else None,
            "winners": list(out.winners) if out else [],
            "summary": st.summary(),
            "active": st.active_players(),
            "draw_offers": list(row.draw_offers or []),
            "last_turn": self._last_turn(room),
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
        before = room.state.clone()
        for _ in range(len(seats) - start):
            before.undo_action()
        return {"seat": seats[-1], "ply": start, "before": before.position()}

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
        return [{"id": r.id, "game": r.game, "variant": r.variant, "players": r.players, "status": r.status,
                 "source": r.source, "result": r.result, "ply": r.ply,
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

    def state_message(self, room: Room) -> str:
        """The ``{"type": "state", "state": ...}`` message of the current state, as JSON text."""
        return '{"type":"state","state":' + self.state_json(room) + "}"

    async def broadcast(self, room: Room) -> None:
        if room.listeners:
            self._queue_all(room, self.state_message(room))

    async def send_all(self, room: Room, msg: dict) -> None:
        """Queue ``msg`` (encoded once) for every WebSocket of the room."""
        if room.listeners:
            self._queue_all(room, orjson.dumps(msg).decode())

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


def _utcnow() -> datetime:
    return datetime.now(UTC)


def escape(text: str) -> str:
    return html.escape(text, quote=True)
