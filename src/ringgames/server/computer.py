"""Computer moves as jobs: fair lanes of worker processes, a retry, and the search state kept between decisions.

A computer seat's decision is a *job* (game, seat, agent spec, the state). Jobs go to one of three *lanes*, each
with worker processes of its own, so that a long search never delays a short one behind it:

=======  ============================================================================================
Lane     Jobs
=======  ============================================================================================
quick    games with a person: levels 0–3, and deeper levels whose clock leaves them under a second
deep     games with a person: levels 4–5 (a few seconds each); its processes run as background work (below)
bot      computer-only games (every seat a computer): one process, also background work
=======  ============================================================================================

The deep and bot lanes' processes are *background* work: scheduling policy ``SCHED_IDLE`` where the system has it
(Linux: they get a core only when nothing else wants it, so a level-5 search never takes the CPU from the server,
the quick lane or a level-1 reply), and nice ``DEEP_NICE``/``BOT_NICE`` (19: the lowest priority) where it has not.
A deep search then plays in its time budget with the CPU left over: on a busy machine it searches less deep.

A lane runs one job per process; jobs wait in first-in, first-out order, and a game has at most one job at a
time (the hub asks for one decision, then the next), so games of a lane take turns. A job whose process dies
(``BrokenProcessPool``: the process is replaced) or whose agent fails is run once more; a second failure is
:class:`ComputerFailed`, which the hub reports to the game's players (``computer_failed``).

Search state: each worker process keeps, per (game, seat), the agent and the state it last decided in
(:func:`think`). The next job for that seat continues that state with the moves played since (no replay of the
whole history) and asks the same agent, which keeps what it learnt (alpha-beta's transposition table and history
scores, the MCTS tree). The lane sends a game's jobs to the process that served it last when that process is
free (sticky routing), else to any free process (which rebuilds from the state). With the Redis queue
(:mod:`.jobs`, ``ringgames worker``) the same :func:`think` runs in the worker processes.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Protocol

import orjson

from ..warmup import warm_up

__all__ = ["LANES", "BOT_NICE", "DEEP_NICE", "background", "deep_workers", "ComputerFailed", "Job", "Lane", "Computers", "think", "lane_for",
           "close_pool", "worker_init", "WATCHDOG_SECONDS", "SEAT_CACHE", "ComputerPlayers"]

log = logging.getLogger("ringgames.server")

#: the lanes, shortest jobs first
LANES = ("quick", "deep", "bot")
#: the niceness of the computer-only games' process (games with a human get the CPU first); with ``SCHED_IDLE`` too
BOT_NICE = 19
#: the niceness of the deep lane's processes (a level-1 reply and the server get the CPU before a level-5 search);
#: with ``SCHED_IDLE`` too, where the system has it
DEEP_NICE = 19
#: how often a computer-player process checks that the server that started it is still alive (seconds)
WATCHDOG_SECONDS = 0.5
#: how many (game, seat) search states one worker process keeps (least recently used dropped first)
SEAT_CACHE = 64
#: a level whose time budget is at least this many seconds goes to the deep lane
DEEP_SECONDS = 1.0


class ComputerFailed(Exception):
    """A computer move failed twice (its process died or its agent raised): the game's players are told."""


# -- in the worker process -------------------------------------------------
def _watch_parent(parent: int, every: float) -> None:
    while True:
        time.sleep(every)
        if os.getppid() != parent:  # the server is gone (killed, crashed): this process must not outlive it
            os._exit(0)


def background() -> bool:
    """Make this process background work: scheduling policy ``SCHED_IDLE`` (Linux; it runs only on a core that
    nothing else wants). Returns whether it could (False: no such policy here, or not allowed)."""
    setter, policy = getattr(os, "sched_setscheduler", None), getattr(os, "SCHED_IDLE", None)
    if setter is None or policy is None:
        return False
    try:
        setter(0, policy, os.sched_param(0))
    except OSError:
        return False
    return True


def worker_init(parent: int, every: float = WATCHDOG_SECONDS, nice: int = 0, idle: bool = False) -> None:
    """The initializer of every computer-player process: a watchdog thread that ends the process when its parent
    (the server, pid ``parent``) dies, a lower CPU priority if ``nice`` (and the ``SCHED_IDLE`` policy if ``idle``,
    where the system has it: :func:`background`), then ``warm_up()`` (the kernels compiled before the first job)."""
    threading.Thread(target=_watch_parent, args=(parent, every), name="ringgames-parent-watchdog", daemon=True).start()
    if nice:
        try:
            os.nice(nice)
        except (OSError, AttributeError):  # not allowed, or no such call on this system: run at normal priority
            pass
    if idle:
        background()
    warm_up()


@dataclass
class _Seat:
    spec: str
    agent: object
    state: object  # the State the agent last decided in
    head: tuple  # (game, params, start): what must match for the state to be continued
    history: list  # the serialized history of ``state``


#: this process's search states: (game id, seat) -> _Seat
_SEATS: OrderedDict[tuple[str, int], _Seat] = OrderedDict()


def _play_entries(state, entries) -> None:
    for a in entries:
        if isinstance(a, str) and a.startswith("resign:"):
            state.resign(int(a[7:]))
        elif a == "draw":
            state.agree_draw()
        else:
            state.play(int(a))


def _same_agent(agent, old: str, new: str) -> bool:
    """``agent`` (made from spec ``old``) can decide for spec ``new``: the same spec, or the same level whose time
    budget a clock cut differently (``level:5,scale=0.3``; the agent is retimed)."""
    if old == new:
        return True
    from ..ai.agents import parse_spec

    (k1, o1), (k2, o2) = parse_spec(old), parse_spec(new)
    if k1 != k2 or k1 not in ("level", "baseline") or not hasattr(agent, "retime"):
        return False
    if {k: v for k, v in o1.items() if k != "scale"} != {k: v for k, v in o2.items() if k != "scale"}:
        return False
    agent.retime(float(o2.get("scale", 1.0)))
    return True


def think(game_id: str, seat: int, spec: str, serialized: str) -> tuple[int, bool]:
    """Runs in a worker process: the action of ``spec`` for the state ``serialized`` (``State.serialize()``), and
    whether this process's search state for (``game_id``, ``seat``) was reused. When the process decided for that
    seat before, with the same spec (or the same level on a clock that cut its time differently), in a state whose history is a prefix of this one, the moves since are played
    on that state and the same agent decides; else the state is rebuilt and a new agent made."""
    from .. import deserialize_state
    from ..ai.agents import make_agent

    data = orjson.loads(serialized)
    head = (data["game"], orjson.dumps(data["params"], option=orjson.OPT_SORT_KEYS), data.get("start"))
    history = data["history"]
    key = (game_id, seat)
    cached = _SEATS.pop(key, None)
    reused = False
    state = None
    if cached is not None and cached.head == head and len(cached.history) <= len(history) \
            and history[:len(cached.history)] == cached.history and _same_agent(cached.agent, cached.spec, spec):
        try:
            _play_entries(cached.state, history[len(cached.history):])
            state, agent, reused = cached.state, cached.agent, True
        except Exception:  # noqa: BLE001 - an unexpected entry: rebuild below
            state = None
    if state is None:
        state = deserialize_state(serialized)
        agent = make_agent(spec)
    action = agent.choose(state)  # type: ignore[attr-defined]
    _SEATS[key] = _Seat(spec, agent, state, head, list(history))
    while len(_SEATS) > SEAT_CACHE:
        _SEATS.popitem(last=False)
    return int(action), reused


def ready() -> int:
    """A job that does nothing (the process's pid): run first, it starts a lane's process (and its warm-up)."""
    return os.getpid()


def _ignore_result(fut: asyncio.Future) -> None:
    if not fut.cancelled():
        fut.exception()  # retrieved: a process ended by close() before its warm-up is not an error to log


def forget(game_id: str) -> None:
    """Drop this process's search states of ``game_id`` (the game ended)."""
    for k in [k for k in _SEATS if k[0] == game_id]:
        del _SEATS[k]


# -- in the server -----------------------------------------------------------
def lane_for(spec: str, game: str, players: int, bot: bool) -> str:
    """The lane of a decision: ``bot`` for computer-only games; ``deep`` for levels whose time budget (after a
    clock's cut, ``scale``) is at least :data:`DEEP_SECONDS`; ``quick`` for the rest."""
    if bot:
        return "bot"
    if not spec.startswith(("level:", "baseline:")):
        return "quick"
    from ..ai.agents import parse_spec
    from ..ai.levels import spec_for

    opts = parse_spec(spec)[1]
    try:
        own = parse_spec(spec_for(game, int(opts.get("value", 3)), float(opts.get("scale", 1.0)), players))[1]
    except ValueError:
        return "quick"
    seconds = own.get("time")
    return "deep" if isinstance(seconds, (int, float)) and seconds >= DEEP_SECONDS else "quick"


def close_pool(pool: ProcessPoolExecutor, timeout: float = 3.0) -> None:
    """Stop ``pool`` now: queued jobs cancelled, and its worker processes (busy thinking or not) terminated and
    joined (killed if they do not end within ``timeout`` seconds). Blocks; run it in a thread."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + timeout
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(1.0)


def _make_pool(nice: int, idle: bool = False) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=worker_init,
                               initargs=(os.getpid(), WATCHDOG_SECONDS, nice, idle))


def deep_workers(quick: int, cores: int | None = None) -> int:
    """The default number of deep-lane processes: half the quick lane's, at least one, and fewer than the machine's
    cores (one is left to the server and the quick lane)."""
    if cores is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(quick // 2, cores - 1))


@dataclass
class Job:
    game_id: str
    seat: int
    spec: str
    serialized: str
    lane: str
    future: asyncio.Future
    attempts: int = 0
    queued: float = field(default_factory=time.monotonic)
    #: the failures so far (their messages)
    errors: list[str] = field(default_factory=list)


class _Slot:
    """One worker process of a lane (a one-process pool, so that a game's jobs can go back to it)."""

    def __init__(self, nice: int, idle: bool = False):
        self.nice = nice
        self.idle = idle
        self.pool: ProcessPoolExecutor | None = None
        self.busy = False
        self.jobs = 0

    def executor(self) -> ProcessPoolExecutor:
        if self.pool is None:  # the process compiles before its first job, and ends when the server dies
            self.pool = _make_pool(self.nice, self.idle)
        return self.pool

    def pids(self) -> list[int]:
        return list((getattr(self.pool, "_processes", None) or {}).keys())


class Lane:
    """``workers`` processes at nice ``nice`` (background work if ``idle``: :func:`background`); jobs wait first-in,
    first-out."""

    def __init__(self, name: str, workers: int, nice: int = 0, idle: bool = False):
        self.name = name
        self.nice = nice
        self.idle = idle
        self.slots = [_Slot(nice, idle) for _ in range(max(1, workers))]
        self.waiting: deque[Job] = deque()
        #: game id -> the slot that served its last job
        self.sticky: dict[str, _Slot] = {}
        self.reused = 0
        self.done = 0

    def pids(self) -> list[int]:
        return [p for s in self.slots for p in s.pids()]


class ComputerPlayers(Protocol):
    """What the hub needs of a computer-move scheduler (:class:`Computers`, or the Redis queue's
    :class:`ringgames.server.jobs.RedisComputers`)."""

    failures: int

    async def start(self) -> None: ...

    async def choose(self, game_id: str, seat: int, spec: str, serialized: str, lane: str) -> int: ...

    def forget(self, game_id: str) -> None: ...

    def stats(self) -> dict: ...

    def pids(self, lane: str) -> list[int]: ...

    async def close(self) -> None: ...


class Computers:
    """The scheduler of computer moves (see the module's text). ``await choose(...)`` gives the action, or raises
    :class:`ComputerFailed` after the retry. ``runner`` replaces the local lanes by another backend (the Redis
    queue: :class:`ringgames.server.jobs.RedisComputers`)."""

    def __init__(self, quick: int = 2, deep: int = 1, bot: int = 1, *, retries: int = 1,
                 run: Callable[..., tuple[int, bool]] = think, prestart: bool = False):
        #: start the quick lane's processes with :meth:`start` (else each starts with its first job, and that job
        #: waits about a second for the process to spawn and compile)
        self.prestart = prestart
        #: the prestarted processes' first jobs (done once each process has started and compiled)
        self.prestarted: list[asyncio.Future] = []
        self.lanes = {"quick": Lane("quick", quick), "deep": Lane("deep", deep, DEEP_NICE, idle=True),
                      "bot": Lane("bot", bot, BOT_NICE, idle=True)}
        self.retries = retries
        self._run = run
        self._closed = False
        self.failures = 0
        self._tasks: set[asyncio.Task] = set()

    async def start(self) -> None:
        """Nothing to connect to. With ``prestart`` the quick lane's processes are started now (in the background: the
        server does not wait for them), so that the first quick decision of a game does not wait for a process to
        spawn and compile; the deep and bot lanes' processes start with their first jobs."""
        if not self.prestart:
            return
        loop = asyncio.get_running_loop()
        for slot in self.lanes["quick"].slots:
            fut = loop.run_in_executor(slot.executor(), ready)
            fut.add_done_callback(_ignore_result)
            self.prestarted.append(fut)

    async def choose(self, game_id: str, seat: int, spec: str, serialized: str, lane: str) -> int:
        if self._closed:
            raise asyncio.CancelledError
        job = Job(game_id, seat, spec, serialized, lane, asyncio.get_running_loop().create_future())
        self.lanes[lane].waiting.append(job)
        self._dispatch(self.lanes[lane])
        try:
            return await job.future
        except asyncio.CancelledError:
            if job in self.lanes[lane].waiting:
                self.lanes[lane].waiting.remove(job)
            raise

    def forget(self, game_id: str) -> None:
        """The game ended: its sticky routes are dropped (its states age out of the processes' caches)."""
        for lane in self.lanes.values():
            lane.sticky.pop(game_id, None)

    def _dispatch(self, lane: Lane) -> None:
        while lane.waiting and not self._closed:
            free = [s for s in lane.slots if not s.busy]
            if not free:
                return
            job = lane.waiting.popleft()
            if job.future.done():  # its game no longer waits (cancelled)
                continue
            slot = lane.sticky.get(job.game_id)
            if slot is None or slot.busy:
                # a free process that serves no game yet, else any free one
                idle = [s for s in free if s not in lane.sticky.values()]
                slot = (idle or free)[0]
            slot.busy = True
            lane.sticky[job.game_id] = slot
            t = asyncio.get_running_loop().create_task(self._execute(lane, slot, job))
            self._tasks.add(t)
            t.add_done_callback(self._tasks.discard)

    async def _execute(self, lane: Lane, slot: _Slot, job: Job) -> None:
        loop = asyncio.get_running_loop()
        retry = False
        try:
            job.attempts += 1
            action, reused = await loop.run_in_executor(slot.executor(), self._run, job.game_id, job.seat, job.spec,
                                                        job.serialized)
            lane.done += 1
            lane.reused += bool(reused)
            if not job.future.done():
                job.future.set_result(action)
        except BrokenProcessPool as exc:  # the process died (killed, out of memory): a new one for the next job
            if self._closed:
                return
            old, slot.pool = slot.pool, None
            if old is not None:
                await asyncio.to_thread(close_pool, old)
            lane.sticky = {g: s for g, s in lane.sticky.items() if s is not slot}
            job.errors.append(f"the computer's process died ({exc.__class__.__name__})")
            retry = True
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the agent failed: retried, then reported
            job.errors.append(f"{exc.__class__.__name__}: {exc}"[:200])
            retry = True
        finally:
            slot.busy = False
        if retry:
            log.warning("computer move failed in game %s (attempt %d): %s", job.game_id, job.attempts, job.errors[-1])
            if job.attempts <= self.retries and not job.future.done():
                lane.waiting.appendleft(job)  # first in line: it waited already
            elif not job.future.done():
                self.failures += 1
                job.future.set_exception(ComputerFailed(job.errors[-1]))
        self._dispatch(lane)

    def stats(self) -> dict:
        return {name: {"workers": len(lane.slots), "waiting": len(lane.waiting), "busy": sum(s.busy for s in lane.slots),
                       "done": lane.done, "reused": lane.reused} for name, lane in self.lanes.items()}

    def pids(self, lane: str) -> list[int]:
        return self.lanes[lane].pids()

    async def close(self) -> None:
        """Cancel the waiting jobs and end every worker process (busy thinking or not)."""
        self._closed = True
        pools = []
        for lane in self.lanes.values():
            for job in lane.waiting:
                job.future.cancel()
            lane.waiting.clear()
            for s in lane.slots:
                if s.pool is not None:
                    pools.append(s.pool)
                    s.pool = None
        for pool in pools:
            await asyncio.to_thread(close_pool, pool)
