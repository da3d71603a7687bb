"""Who is connected to a game: per-seat WebSocket presence, kept in the database for every server process.

A real-time game may be claimed by the other players when the seat to decide has had no connected WebSocket for
``disconnect_claim_seconds`` (``docs/time-controls.md``). Presence has to be the same in every server process on
one database, so it lives in the table ``seat_presence`` (migration ``0006``), one row per game and seat that ever
had a connection:

* ``connections``: the seat's open WebSockets over all processes (+1 on connect, -1 on disconnect);
* ``seen_ms``: the last time the seat was seen connected (milliseconds since the epoch): set on connect and on
  disconnect, and every ``heartbeat_ms`` by each process for the seats it has connections of.

A seat is **connected** while ``connections > 0`` and ``seen_ms`` is fresher than ``stale_ms`` (three heartbeats):
a process that dies leaves its connections counted, but stops beating, so its seats count as gone
``stale_ms`` after its last beat. A seat that is not connected has been **away since** ``seen_ms``.

Each process also keeps what it last read per game (:meth:`Presence.cached`), refreshed by its own connects and
disconnects at once and by the heartbeat (which reads the rows of the real-time games it holds), so that every
state message can say ``claim_in`` without a query.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import case, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker

from .db import PresenceRow

__all__ = ["Presence", "SeatPresence"]


@dataclass(frozen=True)
class SeatPresence:
    connections: int
    seen_ms: int


class Presence:
    def __init__(self, sessions: sessionmaker[Session], heartbeat_ms: int):
        self.Session = sessions
        self.heartbeat_ms = heartbeat_ms
        #: a seat with connections counts as gone this long after the last beat (a process died)
        self.stale_ms = 3 * heartbeat_ms
        #: this process's open connections per (game id, seat)
        self.local: Counter[tuple[str, int]] = Counter()
        #: game id -> seat -> what was last read from the database (or written by this process)
        self._cache: dict[str, dict[int, SeatPresence]] = {}

    # -- reading ---------------------------------------------------------------------------------------------
    def connected(self, p: SeatPresence | None, now: int) -> bool:
        return p is not None and p.connections > 0 and now - p.seen_ms < self.stale_ms

    def away_since(self, gid: str, seat: int, now: int) -> int | None:
        """When ``seat`` of game ``gid`` was last seen connected, if it is not connected now (from the cache);
        None while it is connected or if it never connected by WebSocket."""
        p = self._cache.get(gid, {}).get(seat)
        if p is None or self.connected(p, now):
            return None
        return p.seen_ms

    def cached(self, gid: str) -> dict[int, SeatPresence]:
        return self._cache.get(gid, {})

    def read(self, gids: Iterable[str]) -> dict[str, dict[int, SeatPresence]]:
        """The rows of games ``gids`` from the database; the cache is updated with them."""
        ids = list(gids)
        if not ids:
            return {}
        out: dict[str, dict[int, SeatPresence]] = {g: {} for g in ids}
        with self.Session() as s:
            for r in s.execute(select(PresenceRow).where(PresenceRow.game_id.in_(ids))).scalars():
                out[r.game_id][r.seat] = SeatPresence(r.connections, r.seen_ms)
        self._cache.update(out)
        return out

    # -- writing (blocking: run in a worker thread) ------------------------------------------------------------
    def _add(self, s: Session, gid: str, seat: int, delta: int, now: int) -> None:
        dialect = s.get_bind().dialect.name
        values = {"game_id": gid, "seat": seat, "connections": max(0, delta), "seen_ms": now}
        ins = (postgresql.insert(PresenceRow) if dialect == "postgresql" else sqlite.insert(PresenceRow)).values(values)
        n = PresenceRow.connections + delta
        # never below zero (a row that a dead process left counted is judged by its staleness, not by subtraction)
        s.execute(ins.on_conflict_do_update(index_elements=["game_id", "seat"],
                                            set_={"connections": case((n < 0, 0), else_=n), "seen_ms": now}))

    def connect(self, gid: str, seats: Iterable[int], now: int) -> None:
        """A WebSocket holding ``seats`` of game ``gid`` connected in this process."""
        seats = list(seats)
        if not seats:
            return
        with self.Session.begin() as s:
            for seat in seats:
                self.local[(gid, seat)] += 1
                self._add(s, gid, seat, +1, now)
        self.read([gid])

    def disconnect(self, gid: str, seats: Iterable[int], now: int) -> None:
        """That WebSocket closed."""
        seats = list(seats)
        if not seats:
            return
        with self.Session.begin() as s:
            for seat in seats:
                key = (gid, seat)
                self.local[key] -= 1
                if self.local[key] <= 0:
                    del self.local[key]
                self._add(s, gid, seat, -1, now)
        self.read([gid])

    def beat(self, now: int) -> None:
        """Mark every seat with a connection in this process as seen now (one statement per seat)."""
        keys = [k for k, n in self.local.items() if n > 0]
        if not keys:
            return
        with self.Session.begin() as s:
            for gid, seat in keys:
                s.execute(update(PresenceRow).where(PresenceRow.game_id == gid, PresenceRow.seat == seat).values(seen_ms=now))

    def forget(self, gid: str) -> None:
        """Drop the cache of a game no longer held in memory."""
        self._cache.pop(gid, None)

