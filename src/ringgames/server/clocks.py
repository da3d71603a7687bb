"""Time controls and the per-seat clocks of a game: pure arithmetic on a game row's clock fields.

A game has a time control or none (``games.time_control``):

* real time (Fischer): ``{"initial": S, "increment": S}`` — every seat starts with ``initial`` seconds, and
  ``increment`` seconds are added to a seat's clock when its turn ends;
* correspondence: ``{"days": N}`` — every turn may take N days; the clock is set back to N days when the
  seat's turn ends.

A seat's clock runs from the moment it is that seat's decision until its **turn** ends. The turn is read
from the game protocol only: a turn ends when, after an action, the game is over or another seat is to
decide (``current_player()`` changed). So a YINSH ring move followed by a row and a ring removal is one
turn (one increment), a RINGS turn ends with its ``end``, and a Gygès setup (one decision) is a turn.

The running clock is kept as ``clocks[seat]`` (milliseconds left as of ``clock_at``) and ``deadline`` (when it
reaches zero, ``clock_at + clocks[seat]``), all in milliseconds since the epoch, so that any process can
find the games whose time is up with one indexed query (``deadline <= now``). See ``docs/time-controls.md``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["ABORT_SECONDS", "CLAIM_SECONDS", "COMPUTER_MAX_SECONDS", "ClockUpdate", "MAX_DAYS", "MAX_INCREMENT", "MAX_INITIAL", "PRESETS", "CORRESPONDENCE_DAYS", "TimeControl",
           "left_now", "now_ms"]

#: limits of ``POST /api/games`` (seconds): a real-time game is at most a day per seat, plus at most an hour a turn
MAX_INITIAL = 86_400
MAX_INCREMENT = 3_600
#: correspondence: at most 14 days per turn
MAX_DAYS = 14
#: the lobby's real-time presets (minutes, increment seconds) and correspondence choices (days per move)
PRESETS = [(3, 2), (5, 3), (10, 5), (15, 10)]
CORRESPONDENCE_DAYS = [1, 2, 3, 5, 7, 14]
DAY_MS = 86_400_000
#: a real-time game is aborted (no result) when the seat to decide has not made its first move this long after its
#: turn began (``ringgames serve --limit abort_first_move_seconds=N``)
ABORT_SECONDS = 30.0
#: in a game without a clock, the other players may claim the game when the seat to decide has not moved for this
#: long (``ringgames serve --limit claim_after_seconds=N``)
CLAIM_SECONDS = 86_400.0
#: in a real-time game, the other players may claim the game when the seat to decide has had no connected WebSocket
#: for this long (``--limit disconnect_claim_seconds=N``; lichess waits some 10-60 s depending on the speed)
DISCONNECT_CLAIM_SECONDS = 30.0
#: every server process marks the seats it has WebSockets of as seen this often (``presence.py``); a seat counts
#: as gone three beats after its process's last beat (a process that died)
PRESENCE_HEARTBEAT_SECONDS = 5.0
#: a game of computers only is stopped (finished, no result) after this many plies or this long after its creation
COMPUTER_MAX_SECONDS = 6 * 3600.0


def now_ms() -> int:
    """The wall clock in milliseconds since the epoch (shared by every process on the database)."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class TimeControl:
    """``initial_ms`` and ``increment_ms`` (real time), or ``days`` (correspondence; ``initial_ms`` is the days)."""

    initial_ms: int
    increment_ms: int = 0
    days: int | None = None

    @classmethod
    def from_json(cls, tc: dict | None) -> TimeControl | None:
        if not tc:
            return None
        if tc.get("days"):
            return cls(int(tc["days"]) * DAY_MS, 0, int(tc["days"]))
        return cls(int(round(float(tc["initial"]) * 1000)), int(round(float(tc.get("increment", 0)) * 1000)))

    def to_json(self) -> dict:
        if self.days:
            return {"days": self.days}
        return {"initial": self.initial_ms / 1000, "increment": self.increment_ms / 1000}

    @property
    def label(self) -> str:
        """``"300+3"`` (seconds, as in PGN's TimeControl tag) or ``"3d"`` (days per move)."""
        if self.days:
            return f"{self.days}d"
        return f"{self.initial_ms / 1000:g}+{self.increment_ms / 1000:g}"

    def after_turn(self, left: int) -> int:
        """The clock of a seat whose turn just ended with ``left`` ms: plus the increment, or a fresh allowance."""
        return self.initial_ms if self.days else left + self.increment_ms


def left_now(clocks: list[int] | None, seat: int | None, clock_at: int | None, now: int) -> list[int] | None:
    """Milliseconds left per seat at ``now`` (the running seat charged since ``clock_at``; never below 0)."""
    if clocks is None:
        return None
    out = [int(x) for x in clocks]
    if seat is not None and clock_at is not None:
        out[seat] = max(0, out[seat] - max(0, now - clock_at))
    return out


@dataclass
class ClockUpdate:
    """What one history entry does to the clocks: the new clock fields of the game row, and what the move
    row stores (``spent_ms``: how long the acting seat's clock ran for it; ``left_ms``: what it had left after)."""

    clocks: list[int] | None
    clock_seat: int | None
    clock_at: int | None
    deadline: int | None
    spent_ms: int | None = None
    left_ms: int | None = None

    def row_values(self) -> dict:
        return {"clocks": self.clocks, "clock_seat": self.clock_seat, "clock_at": self.clock_at, "deadline": self.deadline}


def start(tc: TimeControl, players: int, seat: int, now: int) -> ClockUpdate:
    """The clocks of a game that starts now with ``seat`` to decide."""
    clocks = [tc.initial_ms] * players
    return ClockUpdate(clocks, seat, now, now + tc.initial_ms)


def after_entry(tc: TimeControl, clocks: list[int], running: int | None, clock_at: int | None, actor: int,
                next_seat: int | None, now: int, *, turn_action: bool) -> ClockUpdate:
    """The clocks after a history entry by ``actor`` at ``now``.

    ``running``: the seat whose clock ran before it; ``next_seat``: the seat to decide after it (None: the
    game is over); ``turn_action``: the entry is an action of the seat to decide (not a resignation or a
    draw), so if the decision passes to another seat, ``actor``'s turn ended and gets its increment.
    """
    clocks = [int(x) for x in clocks]
    spent = left = None
    if running is not None and clock_at is not None:
        ran = max(0, now - clock_at)
        clocks[running] = max(0, clocks[running] - ran)
        if running == actor:
            spent, left = ran, clocks[running]
    if turn_action and running == actor and next_seat != actor:  # the actor's turn ended
        clocks[actor] = tc.after_turn(clocks[actor])
        left = clocks[actor]
    if next_seat is None:
        return ClockUpdate(clocks, None, None, None, spent, left)
    return ClockUpdate(clocks, next_seat, now, now + clocks[next_seat], spent, left)


def think_budget(tc: TimeControl, left_ms: int) -> float | None:
    """Seconds a computer seat may think on a running clock: a 40th of what it has left plus 60 % of the
    increment (at least 0.05 s); None for correspondence (days are plenty: the level's own budget)."""
    if tc.days:
        return None
    return max(0.05, left_ms / 40_000 + 0.6 * tc.increment_ms / 1000)
