"""Limits of the web tier: request sizes, uploads, rate limits per client and per WebSocket connection.

All numbers live in one settings object, :class:`Limits` (defaults below, documented in
``docs/security.md``); ``create_app(..., limits=Limits(...))`` and ``ringgames serve --limit NAME=VALUE``
change them. Rates are strings in the notation of the `limits <https://limits.readthedocs.io>`_
library (``"20/minute"``, ``"30 per 10 seconds"``).

* Per client (games created, chat messages, uploads, analyses, WebSocket connections): ``limits``'s
  *sliding window counter* (the count of the current window plus the previous window's count
  weighted by how much of it still overlaps: close to "at most N in any window", two counters per
  client; bursts at the edge of two windows can pass up to about 2 N in the worst case). (The exact
  moving window of ``limits`` keeps a timestamp per hit, and its in-memory storage sweeps them with a
  thread hop per key after every hit: too costly for a busy server.) The counters live in memory by
  default (``storage="memory://"``); a shared storage (``"redis://host:6379"``) can replace it for
  several server processes without code changes.
* Per WebSocket connection (messages, refused messages): an exact moving window of the
  connection's own timestamps (:class:`ConnectionRate`), kept with the connection: nothing to share
  between processes, and no storage work on the per-message path.

A *client* is the remote address of the connection (``scope["client"]``). Behind a reverse proxy
every request comes from the proxy; ``ringgames serve --forwarded-allow-ips PROXY_IP`` then makes
uvicorn take the client address from the proxy's ``X-Forwarded-For`` header, and only from
that proxy (other clients cannot forge it).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

import limits as _limits
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from fastapi import FastAPI, UploadFile

from .errors import ApiError, clip

MIB = 1024 * 1024
KIB = 1024
#: the most seats any game has (RINGS: 6 players); ``POST /api/games`` refuses more before doing any work
MAX_SEATS = 6


def size_text(n: int) -> str:
    """``1048576`` → ``"1 MiB"``; ``65536`` → ``"64 KiB"``; else ``"2,000 bytes"``."""
    if n % MIB == 0:
        return f"{n // MIB} MiB"
    if n % KIB == 0:
        return f"{n // KIB} KiB"
    return f"{n:,} bytes"


#: time settings that tests may set below a second
_SHORT_SECONDS = ("clock_heartbeat_seconds", "abort_first_move_seconds", "claim_after_seconds", "disconnect_claim_seconds",
                  "presence_heartbeat_seconds")


@dataclass(frozen=True)
class Limits:
    """Every limit of the web tier (see ``docs/security.md``). Rates: ``limits`` notation, moving window."""

    #: largest request body (JSON) in bytes; more → 413 before the body is parsed
    body_bytes: int = MIB
    #: ``POST /api/import``: largest file, whole request, files per request, games per request
    upload_file_bytes: int = 2 * MIB
    upload_request_bytes: int = 8 * MIB
    upload_files: int = 20
    upload_games: int = 1000
    #: per client (remote address)
    games_rate: str = "20/minute"
    chat_rate: str = "20/minute"
    upload_rate: str = "5/minute"
    #: ``POST /api/analysis`` (each up to 5 s of a worker's time)
    analysis_rate: str = "12/minute"
    ws_connect_rate: str = "120/minute"
    #: accounts: sign-ups per client; failed logins (and failed password changes) per username and per client,
    #: past which logins are refused with 429 until the window has room again (brute-force slow-down)
    signup_rate: str = "30/hour"
    login_user_rate: str = "5 per 5 minutes"
    login_address_rate: str = "30 per 5 minutes"
    #: per WebSocket connection: largest message, messages, and refused messages before a policy close (1008)
    ws_message_bytes: int = 64 * KIB
    ws_rate: str = "30 per 10 seconds"
    ws_strikes: str = "10/minute"
    #: the lobby's WebSocket (``/ws/lobby``, seeks pushed): open connections per client and in all, per process
    lobby_sockets_per_client: int = 8
    lobby_sockets_total: int = 2000
    #: computer-only games (every seat a computer): live ones per client and in all (more → 429), and their
    #: length in actions, after which such a game ends in a draw (reason ``action_limit``)
    computer_games_per_client: int = 2
    computer_games_total: int = 6
    computer_game_actions: int = 600
    #: rooms (games in memory): evicted after this many idle seconds, at most this many in memory
    room_idle_seconds: float = 600.0
    max_rooms: int = 5000
    #: clocks: every process beats the site's heartbeat this often and re-reads the deadlines set by other
    #: processes at least this often (docs/time-controls.md)
    clock_heartbeat_seconds: float = 1.0
    #: a real-time game is aborted when a seat has not made its first move this long after its turn began
    abort_first_move_seconds: float = 30.0
    #: a game without a clock may be claimed by the others when the seat to decide has not moved for this long
    claim_after_seconds: float = 86_400.0
    #: a real-time game may be claimed by the others when the seat to decide has had no WebSocket for this long;
    #: every process marks its connected seats as seen in the database every presence_heartbeat_seconds
    disconnect_claim_seconds: float = 30.0
    presence_heartbeat_seconds: float = 5.0
    #: a game of computers only is stopped (finished, no result) this long after its creation
    #: (its length in actions is bounded by computer_game_actions)
    computer_game_max_seconds: float = 21_600.0
    #: where the rate counters live (a ``limits`` storage URI)
    storage: str = "memory://"

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name.endswith("_rate") or f.name == "ws_strikes":
                try:
                    _limits.parse(v)
                except ValueError:
                    raise ValueError(f"limit {f.name}: {v!r} is not a rate such as '20/minute' or '30 per 10 seconds'") from None
            elif f.type in ("int", "float") and not (isinstance(v, (int, float)) and v >= (0 if f.name == "room_idle_seconds" else 0.05 if f.name in _SHORT_SECONDS else 1)):
                raise ValueError(f"limit {f.name}: {v!r} must be a positive number")

    @classmethod
    def from_options(cls, options: list[str] | tuple[str, ...]) -> Limits:
        """``["games_rate=5/minute", "body_bytes=2097152"]`` → ``Limits`` (the ``--limit`` options of ``serve``)."""
        known = {f.name: f for f in fields(cls)}
        kw: dict[str, Any] = {}
        for opt in options:
            name, sep, value = opt.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in known:
                raise ValueError(f"--limit {opt!r}: use NAME=VALUE with NAME one of {', '.join(known)}")
            typ = known[name].type
            try:
                kw[name] = int(value) if typ == "int" else float(value) if typ == "float" else value.strip()
            except ValueError:
                raise ValueError(f"--limit {opt!r}: {value!r} is not a number") from None
        return cls(**kw)


class RateLimited(ApiError):
    """429 with the reason and the seconds to wait (also as a ``Retry-After`` header)."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(429, "rate_limited", message, retry_after=retry_after)
        self.retry_after = retry_after


class RateLimits:
    """The rate limiters of one app: ``await rates.check("games", client)`` raises :class:`RateLimited`."""

    WHAT: ClassVar[dict[str, str]] = {"games": "games created", "chat": "chat messages", "upload": "uploads",
                                      "ws_connect": "WebSocket connections", "signup": "sign-ups",
                                      "login_user": "failed logins for this username",
                                      "login_address": "failed logins from this address",
                                      "analysis": "analyses"}

    def __init__(self, settings: Limits):
        self.settings = settings
        uri = settings.storage if settings.storage.startswith("async+") else "async+" + settings.storage
        self.limiter = SlidingWindowCounterRateLimiter(_limits.storage.storage_from_string(uri))
        self.items = {"games": _limits.parse(settings.games_rate), "chat": _limits.parse(settings.chat_rate),
                      "upload": _limits.parse(settings.upload_rate), "ws_connect": _limits.parse(settings.ws_connect_rate),
                      "signup": _limits.parse(settings.signup_rate), "login_user": _limits.parse(settings.login_user_rate),
                      "login_address": _limits.parse(settings.login_address_rate),
                      "analysis": _limits.parse(settings.analysis_rate)}

    async def check(self, kind: str, client: str) -> None:
        """Count one ``kind`` hit (games, chat, upload, ws_connect) for ``client``; raise if over the rate."""
        item = self.items[kind]
        if await self.limiter.hit(item, kind, client):
            return
        stats = await self.limiter.get_window_stats(item, kind, client)
        retry = max(1, math.ceil(stats.reset_time - time.time()))
        raise RateLimited(f"too many {self.WHAT[kind]} from this address: at most {item}; try again in {retry} s", retry)

    async def refuse_if_full(self, kind: str, key: str) -> None:
        """Raise :class:`RateLimited` if ``kind``'s window for ``key`` is full (counts nothing): failed logins are
        counted by :meth:`strike` only when they fail, and once the window is full every login is refused."""
        item = self.items[kind]
        if await self.limiter.test(item, kind, key):
            return
        stats = await self.limiter.get_window_stats(item, kind, key)
        retry = max(1, math.ceil(stats.reset_time - time.time()))
        raise RateLimited(f"too many {self.WHAT[kind]}: at most {item}; try again in {retry} s", retry)

    async def strike(self, kind: str, key: str) -> None:
        """Count one failure of ``kind`` for ``key``."""
        await self.limiter.hit(self.items[kind], kind, key)

    def connection(self) -> tuple[ConnectionRate, ConnectionRate]:
        """The message rate and the refusal rate of a new WebSocket connection."""
        return (ConnectionRate(_limits.parse(self.settings.ws_rate), "messages"),
                ConnectionRate(_limits.parse(self.settings.ws_strikes), "refused messages"))


class ConnectionRate:
    """At most ``item.amount`` hits in any window of ``item``'s length (moving window), for one connection."""

    def __init__(self, item: _limits.RateLimitItem, what: str):
        self.item, self.what = item, what
        self.window = float(item.get_expiry())
        self.times: deque[float] = deque()

    def check(self) -> None:
        """Count one hit now; raise :class:`RateLimited` (nothing counted) if the window is full."""
        now = time.monotonic()
        while self.times and self.times[0] <= now - self.window:
            self.times.popleft()
        if len(self.times) >= self.item.amount:
            retry = max(1, math.ceil(self.times[0] + self.window - now))
            raise RateLimited(f"too many {self.what} on this connection: at most {self.item}; try again in {retry} s", retry)
        self.times.append(now)


def client_of(scope: Scope) -> str:
    """The client's identity for rate limits: its remote address (see the module docstring for proxies)."""
    client = scope.get("client")
    return client[0] if client else "unknown"


async def _send_error(send: Send, status: int, payload: dict, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), *headers]})
    await send({"type": "http.response.body", "body": body})


#: (method, path pattern, rate kind): the HTTP requests that are rate limited per client
RATED = [
    ("POST", re.compile(r"/api/games/?"), "games"),
    ("POST", re.compile(r"/api/games/[^/]+/rematch/?"), "games"),
    ("POST", re.compile(r"/api/seeks/?"), "games"),  # a seek is a game on its way (and a change for every lobby)
    ("POST", re.compile(r"/api/seeks/[^/]+/accept/?"), "games"),
    ("POST", re.compile(r"/api/games/[^/]+/chat/?"), "chat"),
    ("POST", re.compile(r"/api/import/?"), "upload"),
    ("POST", re.compile(r"/api/account/?"), "signup"),
    ("POST", re.compile(r"/api/analysis/?"), "analysis"),
    ("POST", re.compile(r"/api/games/[^/]+/analysis/?"), "analysis"),
]
UPLOAD_PATH = re.compile(r"/api/import/?")


class RateLimitMiddleware:
    """ASGI middleware: game creation, chat, uploads and analyses per client, answered 429 with ``Retry-After``."""

    def __init__(self, app: ASGIApp, rates: RateLimits):
        self.app, self.rates = app, rates

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for method, pattern, kind in RATED:
                if scope["method"] == method and pattern.fullmatch(scope["path"]):
                    try:
                        await self.rates.check(kind, client_of(scope))
                    except RateLimited as exc:
                        await _send_error(send, 429, exc.payload(), [(b"retry-after", str(exc.retry_after).encode())])
                        return
                    break
        await self.app(scope, receive, send)


class BodyLimitMiddleware:
    """ASGI middleware: request bodies larger than the limit get 413 ``too_large`` before the app sees them.

    A ``Content-Length`` over the limit is refused at once; otherwise the bytes are counted as they
    arrive (chunked uploads have no length) and reading stops at the first byte over the limit.
    The body (at most the limit) is then handed to the app. ``POST /api/import`` has its own limit.
    """

    def __init__(self, app: ASGIApp, settings: Limits):
        self.app, self.settings = app, settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        upload = UPLOAD_PATH.fullmatch(scope["path"]) is not None
        limit = self.settings.upload_request_bytes if upload else self.settings.body_bytes
        what = "an upload" if upload else "the request body"

        async def refuse() -> None:
            await _send_error(send, 413, {"error": "too_large", "message": f"{what} is larger than {size_text(limit)}"})

        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    if int(value) > limit:
                        await refuse()
                        return
                except ValueError:
                    await _send_error(send, 400, {"error": "bad_request", "message": "malformed Content-Length"})
                    return
        chunks: list[bytes] = []
        size = 0
        while True:
            msg = await receive()
            if msg["type"] != "http.request":  # the client went away
                return
            body = msg.get("body", b"")
            size += len(body)
            if size > limit:
                await refuse()
                return
            chunks.append(body)
            if not msg.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def read_uploads(files: list[UploadFile], settings: Limits) -> list[tuple[str, str]]:
    """The uploaded files as ``(name, text)``, or 413 ``too_large`` (nothing imported) when there are more
    files than ``upload_files`` or one is larger than ``upload_file_bytes``."""
    if len(files) > settings.upload_files:
        raise ApiError(413, "too_large", f"{len(files)} files in one upload, at most {settings.upload_files} are accepted; "
                                         "nothing was imported")
    out = []
    limit = settings.upload_file_bytes
    for f in files:
        name = (f.filename or "upload").rsplit("/", 1)[-1][:200]
        data = b"" if f.size is not None and f.size > limit else await f.read(limit + 1)
        if len(data) > limit or (f.size or 0) > limit:
            raise ApiError(413, "too_large", f"file {clip(name)} is larger than {size_text(limit)}; nothing was imported")
        out.append((name, data.decode("utf-8", errors="replace")))
    return out


def install(app: FastAPI, settings: Limits) -> RateLimits:
    """Put the limits on ``app``: the body-size and rate-limit middlewares, ``app.state.limits`` and
    ``app.state.rates`` (for the WebSocket rooms and the upload route), and 429 answers with ``Retry-After``."""
    rates = RateLimits(settings)
    app.state.limits, app.state.rates = settings, rates
    app.add_middleware(BodyLimitMiddleware, settings=settings)  # inner: runs after the rate check
    app.add_middleware(RateLimitMiddleware, rates=rates)  # outer: refuses a flood before reading any body

    @app.exception_handler(RateLimited)
    async def _rate_limited(request: Request, exc: RateLimited) -> JSONResponse:
        return JSONResponse(exc.payload(), status_code=429, headers={"Retry-After": str(exc.retry_after)})

    return rates
