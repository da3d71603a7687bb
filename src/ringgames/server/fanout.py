"""Fan-out: every committed change of a game reaches the watchers of every server process.

The hub commits a move to the database first (ordered per game by the database: ``moves`` is unique by
``(game_id, ply)`` and the game row is updated only where its ``ply`` is still the one the process knew), then
publishes one message per change. Two implementations:

* :class:`LocalFanout` (the default, one process): the message goes straight to this process's watchers.
* :class:`RedisFanout` (``ringgames serve --redis redis://…``): the message goes to this process's watchers at
  once and to the other processes through Redis pub/sub, on the game's channel ``ringgames:game:<id>``. Every
  process listens on the pattern ``ringgames:game:*`` (one subscription made at start-up, so that no message
  published after a process started can slip past it) and hands on the messages of the games it has in memory.

A message is a JSON object: ``{"o": origin, "k": kind, "gid": id, "ply": n, ...}``, optionally followed by a newline and
a text sent as it is (a move's state message, already encoded once for this process's sockets: the receivers hand it
to theirs without encoding or escaping it again; it arrives as the field ``m``). ``o`` is the publishing
process's random id (a process ignores its own messages, which it delivered locally already), ``k`` is
``move`` (one new entry of the history: the receiver applies it to its cached room, or re-reads the game from the
database when it is not at ``ply - 1``; a message at or below its ply is a duplicate and dropped), ``state``
(anything else changed: seats, offers, a flag, a takeback; the receiver re-reads the game) or ``chat``.
The lobby (``lobby.py``) has one channel of its own, ``ringgames:lobby``: ``{"o": origin, "k": "seeks", ...}``
says that the open seeks changed (every process lists them again from the database for its lobby sockets), with
``started`` when a seek's game began (its players' lobby pages are told at once).
Game messages are published by one task, in the order they were handed over, all those waiting at once in one
pipelined round trip (a busy process publishes many moves per round trip); a stopping process sends what is waiting
first. Redis pub/sub delivers at most once and keeps nothing: a process that was cut off re-reads a game from the
database whenever a message shows a gap, and a client that reconnects gets the state from the database.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

log = logging.getLogger("ringgames.server")

#: the channel of game ``gid`` (and the pattern every process listens on)
CHANNEL = "ringgames:game:{}"
PATTERN = "ringgames:game:*"
#: the lobby's channel (seeks changed)
LOBBY_CHANNEL = "ringgames:lobby"

#: called for every message of another process: (game id, message)
Deliver = Callable[[str, dict], Awaitable[None]]
#: called for every lobby message of another process
DeliverLobby = Callable[[dict], Awaitable[None]]


class LocalFanout:
    """One process: nothing to send anywhere (the hub delivers to its own watchers itself)."""

    cluster = False

    def __init__(self) -> None:
        self.origin = secrets.token_hex(8)
        self.published = 0

    async def start(self, deliver: Deliver, lobby: DeliverLobby | None = None) -> None:
        pass

    async def publish(self, gid: str, msg: dict, raw: str | None = None) -> None:
        self.published += 1

    async def publish_lobby(self, msg: dict) -> None:
        """A lobby message (``lobby.py``) for the other processes."""
        self.published += 1

    async def stop(self) -> None:
        pass


class RedisFanout(LocalFanout):
    """Several processes: messages through Redis pub/sub (the ``redis`` package's asyncio client)."""

    cluster = True

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.received = 0
        self._client: Any = None  # redis.asyncio.Redis, its PubSub (imported with the redis extra only)
        self._pubsub: Any = None
        self._reader: asyncio.Task | None = None
        self._deliver: Deliver | None = None
        self._lobby: DeliverLobby | None = None
        #: messages waiting for the publisher task: (channel, payload)
        self._outbox: list[tuple[str, bytes]] = []
        self._publisher: asyncio.Task | None = None
        self._wake = asyncio.Event()
        self._sending = False

    async def start(self, deliver: Deliver, lobby: DeliverLobby | None = None) -> None:
        import redis.asyncio as aioredis

        self._deliver, self._lobby = deliver, lobby
        self._client = aioredis.Redis.from_url(self.url, health_check_interval=10)
        self._pubsub = self._client.pubsub()
        await self._pubsub.psubscribe(PATTERN)
        await self._pubsub.subscribe(LOBBY_CHANNEL)
        # wait for Redis to confirm both subscriptions: from then on no message is missed
        confirmed: set[str] = set()
        for _ in range(30):
            m = await self._pubsub.get_message(timeout=1.0)
            if m is not None and m.get("type") in ("psubscribe", "subscribe"):
                confirmed.add(m["type"])
            if len(confirmed) == 2:
                break
        else:
            raise RuntimeError(f"Redis at {self.url.split('@')[-1]} did not confirm the subscription in 30 s")
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def publish(self, gid: str, msg: dict, raw: str | None = None) -> None:
        """Hand ``msg`` (and ``raw``, a text sent as it is) to the publisher task; returns at once."""
        assert self._client is not None, "the fan-out is not started"
        data = orjson.dumps({**msg, "o": self.origin, "gid": gid})
        self._outbox.append((CHANNEL.format(gid), data if raw is None else data + b"\n" + raw.encode()))
        if self._publisher is None or self._publisher.done():
            self._wake = asyncio.Event()
            self._publisher = asyncio.get_running_loop().create_task(self._publish_loop())
        self._wake.set()

    async def _publish_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._outbox = self._outbox, []
            if not batch:
                continue
            self._sending = True
            try:
                async with self._client.pipeline(transaction=False) as pipe:
                    for channel, data in batch:
                        pipe.publish(channel, data)
                    await pipe.execute()
                self.published += len(batch)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 (the moves are committed; the other processes' watchers resync on reconnect)
                log.exception("publishing %d messages to Redis failed", len(batch))
            finally:
                self._sending = False

    async def flush(self, timeout: float = 5.0) -> None:
        """Wait (at most ``timeout`` seconds) until every message handed over is sent."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while (self._outbox or self._sending) and self._publisher is not None and not self._publisher.done() and loop.time() < end:
            await asyncio.sleep(0.01)

    async def publish_lobby(self, msg: dict) -> None:
        assert self._client is not None, "the fan-out is not started"
        try:
            await self._client.publish(LOBBY_CHANNEL, orjson.dumps({**msg, "o": self.origin}))
            self.published += 1
        except Exception:  # noqa: BLE001 (the seek is stored; the other lobbies see it at their next listing)
            log.exception("publishing a lobby message to Redis failed")

    async def _read(self) -> None:
        assert self._pubsub is not None and self._deliver is not None
        while True:
            try:
                async for m in self._pubsub.listen():
                    if m.get("type") not in ("pmessage", "message"):
                        continue
                    head, _, raw = bytes(m["data"]).partition(b"\n")
                    try:
                        msg = orjson.loads(head)
                        if raw and isinstance(msg, dict):
                            msg["m"] = raw.decode()
                    except (orjson.JSONDecodeError, UnicodeDecodeError):
                        continue
                    if m["type"] == "message":  # the lobby's channel
                        if isinstance(msg, dict) and msg.get("o") != self.origin and self._lobby is not None:
                            self.received += 1
                            try:
                                await self._lobby(msg)
                            except Exception:  # noqa: BLE001
                                log.exception("delivering a lobby message failed")
                        continue
                    if not isinstance(msg, dict) or msg.get("o") == self.origin or not isinstance(msg.get("gid"), str):
                        continue
                    self.received += 1
                    try:
                        await self._deliver(msg["gid"], msg)
                    except Exception:  # noqa: BLE001 (one bad message must not stop the fan-out)
                        log.exception("delivering a message of game %s failed", msg.get("gid"))
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 (Redis went away: the client reconnects and subscribes again)
                log.exception("the Redis subscription failed; trying again")
                await asyncio.sleep(1.0)

    async def stop(self) -> None:
        await self.flush()
        if self._publisher is not None:
            self._publisher.cancel()
            try:
                await self._publisher
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
        if self._pubsub is not None:
            await self._pubsub.aclose()
        if self._client is not None:
            await self._client.aclose()


def make_fanout(redis_url: str | None) -> LocalFanout:
    """The fan-out for ``--redis`` (None: one process)."""
    return RedisFanout(redis_url) if redis_url else LocalFanout()
