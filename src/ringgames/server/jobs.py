"""The computer-move queue in Redis (the distributed setup): ``ringgames serve --redis URL --computer-queue`` queues the decisions,
``ringgames worker --redis URL [--lanes quick,deep,bot]`` processes run them.

A reliable queue (Redis's "reliable queue" pattern with leases):

* ``ringgames:ai:q:LANE`` — a list per lane (:data:`~ringgames.server.computer.LANES`); the server ``LPUSH``-es a
  job (JSON: id, game, seat, spec, state, lane, attempts), the oldest is taken first;
* a worker takes a job with ``LMOVE q:LANE proc:WORKER`` (atomic: the job is in exactly one list at any time),
  runs it (:func:`ringgames.server.computer.think`, which keeps the search state per game and seat), pushes the
  result to ``ringgames:ai:res:JOB`` (a list the server waits on with ``BLPOP``; it expires) and removes the job
  from its processing list;
* every worker holds a lease, ``ringgames:ai:alive:WORKER``, renewed by a heartbeat thread every third of the
  lease (default 5 s); a worker is listed in ``ringgames:ai:workers``;
* a reaper (in the server and in every worker, every half lease) finds the workers whose lease ran out, and puts
  each job of their processing lists back at the front of its lane (attempts + 1), or, when it was the job's second
  attempt, answers it with an error. An agent that raises is handled the same way by its worker. The server reports
  a failed job to the game's players (``computer_failed``), as with the in-process lanes.

The worker that decided for a game before gets its next job only by chance (any free worker of the lane takes the
oldest job); the search state is kept where it does.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import socket
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

import orjson

from .computer import LANES, ComputerFailed, think

__all__ = ["PREFIX", "RedisComputers", "Worker", "reap"]

log = logging.getLogger("ringgames.server")

PREFIX = "ringgames:ai:"
#: a dead worker's jobs are put back this long after its last heartbeat (seconds)
LEASE_SECONDS = 5.0
#: how long the server waits for a job's answer before it counts as failed (seconds)
JOB_TIMEOUT = 300.0
#: how long an answer waits for the server in Redis (seconds)
RESULT_TTL = 300


def _q(lane: str) -> str:
    return f"{PREFIX}q:{lane}"


def _proc(worker: str) -> str:
    return f"{PREFIX}proc:{worker}"


def _alive(worker: str) -> str:
    return f"{PREFIX}alive:{worker}"


def _res(job: str) -> str:
    return f"{PREFIX}res:{job}"


WORKERS = PREFIX + "workers"


def _fail_or_requeue(r, job: dict, message: str, retries: int) -> str:
    """A job that failed (``r``: a synchronous Redis client): back at the front of its lane, or answered with an error
    after ``retries`` retries. Returns "requeued" or "failed"."""
    job["attempts"] = int(job.get("attempts", 0)) + 1
    job.setdefault("errors", []).append(message[:200])
    if job["attempts"] <= retries:
        r.rpush(_q(job["lane"]), orjson.dumps(job))  # the right end: the next one taken
        return "requeued"
    pipe = r.pipeline()
    pipe.rpush(_res(job["id"]), orjson.dumps({"error": message[:200], "attempts": job["attempts"]}))
    pipe.expire(_res(job["id"]), RESULT_TTL)
    pipe.execute()
    return "failed"


def reap(r, retries: int = 1) -> int:
    """Put back (or fail) the jobs of workers whose lease ran out; ``r`` is a synchronous Redis client. Returns how
    many jobs it handled. Safe to run in several processes at once (each job is popped by one of them)."""
    n = 0
    for raw in r.smembers(WORKERS):
        worker = raw.decode() if isinstance(raw, bytes) else raw
        if r.exists(_alive(worker)):
            continue
        while (item := r.rpop(_proc(worker))) is not None:
            try:
                job = orjson.loads(item)
            except orjson.JSONDecodeError:
                continue
            what = _fail_or_requeue(r, job, f"the worker {worker} running it died", retries)
            log.warning("worker %s died: job %s of game %s %s", worker, job.get("id"), job.get("game"), what)
            n += 1
        r.srem(WORKERS, worker)
    return n


class Worker:
    """``ringgames worker``: takes jobs of ``lanes`` (in that order of preference) from Redis at ``url`` and runs
    them, one at a time, until stopped (SIGTERM/SIGINT: after the current job)."""

    def __init__(self, url: str, lanes: Sequence[str] = LANES, name: str | None = None, lease: float = LEASE_SECONDS,
                 retries: int = 1):
        import redis

        bad = [x for x in lanes if x not in LANES]
        if bad or not lanes:
            raise ValueError(f"lanes are {', '.join(LANES)}; not {', '.join(bad) or 'none'}")
        self.r: Any = redis.Redis.from_url(url)
        self.lanes = list(lanes)
        self.name = name or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        self.lease = float(lease)
        self.retries = retries
        self.stopping = threading.Event()
        self.done = 0

    def _beat(self) -> None:
        every = self.lease / 3
        while not self.stopping.wait(every):
            try:
                self.r.set(_alive(self.name), b"1", px=int(self.lease * 1000))
                self.r.sadd(WORKERS, self.name)
                reap(self.r, self.retries)
            except Exception:  # noqa: BLE001 - Redis away for a moment: the next beat tries again
                log.warning("worker %s: heartbeat failed", self.name, exc_info=True)

    def _take(self) -> bytes | None:
        for lane in self.lanes:
            item = self.r.lmove(_q(lane), _proc(self.name), "RIGHT", "LEFT")
            if item is not None:
                return item
        return None

    def run_one(self, item: bytes) -> None:
        job = orjson.loads(item)
        try:
            t0 = time.perf_counter()
            action, reused = think(job["game"], int(job["seat"]), job["spec"], job["state"])
            answer = {"action": action, "reused": reused, "worker": self.name, "attempts": job.get("attempts", 0) + 1,
                      "seconds": round(time.perf_counter() - t0, 4)}
            pipe = self.r.pipeline()
            pipe.rpush(_res(job["id"]), orjson.dumps(answer))
            pipe.expire(_res(job["id"]), RESULT_TTL)
            pipe.lrem(_proc(self.name), 1, item)
            pipe.execute()
            self.done += 1
        except Exception as exc:  # noqa: BLE001 - the agent failed: retried once, then answered with the error
            log.warning("worker %s: job %s failed: %s", self.name, job.get("id"), exc)
            self.r.lrem(_proc(self.name), 1, item)
            _fail_or_requeue(self.r, job, f"{exc.__class__.__name__}: {exc}", self.retries)

    def run(self, max_jobs: int | None = None) -> None:
        from ..warmup import warm_up

        warm_up()
        self.r.set(_alive(self.name), b"1", px=int(self.lease * 1000))
        self.r.sadd(WORKERS, self.name)
        beat = threading.Thread(target=self._beat, name="ringgames-worker-heartbeat", daemon=True)
        beat.start()
        try:
            while not self.stopping.is_set() and (max_jobs is None or self.done < max_jobs):
                item = self._take()
                if item is None:
                    self.stopping.wait(0.05)
                    continue
                self.run_one(item)
        finally:
            self.stopping.set()
            # a clean stop: nothing is left in the processing list, the lease is given up
            self.r.delete(_alive(self.name))
            if not self.r.llen(_proc(self.name)):
                self.r.srem(WORKERS, self.name)

    def install_signals(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self.stopping.set())


class RedisComputers:
    """The server's side: the same interface as :class:`ringgames.server.computer.Computers`, with the jobs in
    Redis. Runs the reaper every half lease."""

    def __init__(self, url: str, *, lease: float = LEASE_SECONDS, job_timeout: float = JOB_TIMEOUT, retries: int = 1):
        self.url = url
        self.lease = lease
        self.job_timeout = job_timeout
        self.retries = retries
        self._r: Any = None
        self._sync: Any = None
        self._reaper: asyncio.Task | None = None
        self.failures = 0
        #: the last answers (action, worker, attempts, seconds, reused), newest last
        self.answers: deque[dict] = deque(maxlen=100)

    async def start(self) -> None:
        import redis
        import redis.asyncio as aredis

        self._r = aredis.Redis.from_url(self.url)
        self._sync = redis.Redis.from_url(self.url)
        await self._r.ping()
        self._reaper = asyncio.get_running_loop().create_task(self._reap_loop())

    async def _reap_loop(self) -> None:
        while True:
            await asyncio.sleep(self.lease / 2)
            try:
                await asyncio.to_thread(reap, self._sync, self.retries)
            except Exception:  # noqa: BLE001 - Redis away for a moment
                log.warning("computer queue: reaper failed", exc_info=True)

    async def choose(self, game_id: str, seat: int, spec: str, serialized: str, lane: str) -> int:
        if self._r is None:
            raise RuntimeError("the computer queue is not started")
        jid = secrets.token_hex(8)
        job = {"id": jid, "game": game_id, "seat": seat, "spec": spec, "state": serialized, "lane": lane, "attempts": 0}
        await self._r.lpush(_q(lane), orjson.dumps(job))
        got = await self._r.blpop([_res(jid)], timeout=self.job_timeout)
        if got is None:
            self.failures += 1
            raise ComputerFailed(f"no worker answered within {self.job_timeout:g} s")
        answer = orjson.loads(got[1])
        if "error" in answer:
            self.failures += 1
            raise ComputerFailed(answer["error"])
        self.answers.append(answer)
        return int(answer["action"])

    def forget(self, game_id: str) -> None:
        """(The workers' search states age out of their caches.)"""

    def stats(self) -> dict:
        return {"redis": True, "failures": self.failures, "answers": len(self.answers)}

    def pids(self, lane: str) -> list[int]:
        return []

    async def close(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            self._reaper = None
        if self._r is not None:
            await self._r.aclose()
            self._r = None
        if self._sync is not None:
            self._sync.close()
            self._sync = None
