"""The lobby's WebSocket ``/ws/lobby``: open seeks pushed to every lobby page, not polled (issue 28).

Messages to the client (JSON text):

* ``{"type": "seeks", "seeks": [...]}``: the open seeks, oldest first, as ``GET /api/seeks`` lists them (at most
  ``seeks.MAX_LISTED``). Sent on connect and again whenever the list changed: a seek posted, a seat of one taken, a
  seek's game started, a seek withdrawn or expired (the lobby wakes at the earliest ``expires`` of the seeks listed).
* ``{"type": "accepted", "seek": id, "game_id": id, "url": "/game/<id>"}``: to the lobby sockets of the players of
  a seek whose seats are all taken (its owner and those who joined), at once: the page opens the game.
* ``{"type": "error", "error": code, "message": ...}``: a refused message (the connection stays open).

The client may send ``{"type": "sync"}`` (answered with the list); nothing else is understood.

Several server processes (``--redis``): a process that changes a seek lists the seeks for its own lobby sockets and
publishes a lobby notice through the fan-out (``fanout.py``, channel ``ringgames:lobby``); every other process then
lists the seeks again from the database (the truth) for its lobby sockets, and tells its sockets of the players of a
started seek. Nothing about seeks lives only in one process: a notice that Redis lost is made good by the next
change or expiry, and the page also asks ``GET /api/seeks/{id}`` for a seek of its own that left the list.

Limits (``server/limits.py``, ``docs/security.md``): ``lobby_sockets_per_client`` and ``lobby_sockets_total`` per
process (more: refused at the handshake with 429 ``too_many_sockets``), the WebSocket connection rate
(``ws_connect_rate``), each message at most ``ws_message_bytes`` and ``ws_rate`` messages per connection (a client
that goes on past ``ws_strikes`` refusals is closed with 1008), and a handshake whose ``Origin`` is another site is
refused like the game socket's (``security.py``). A client that does not read its messages is closed with 1013 once
:data:`QUEUE` messages wait for it (it reconnects and gets the list again).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import anyio
import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from .accounts import SESSION_COOKIE
from .errors import ApiError, clip
from .limits import RateLimited, client_of, size_text
from .security import cross_site_reason, settings_of

if TYPE_CHECKING:
    from .fanout import LocalFanout
    from .seeks import Seeks

router = APIRouter()
log = logging.getLogger("ringgames.server")

POLICY_VIOLATION = 1008
TRY_AGAIN_LATER = 1013
#: messages waiting for one client at most (more: it is closed and reconnects)
QUEUE = 16


@dataclass(eq=False)
class LobbySocket:
    """One lobby connection: its queue of encoded messages, its account (None: a guest) and client address."""

    account: int | None
    client: str
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(maxsize=QUEUE))
    overflow: bool = False


class Lobby:
    """The lobby sockets of this process and the seek list they were last sent."""

    def __init__(self, seeks: Callable[[], Seeks], fanout: LocalFanout):
        self._seeks, self.fanout = seeks, fanout
        self.sockets: set[LobbySocket] = set()
        self.clients: Counter[str] = Counter()
        self._wake = asyncio.Event()
        self._dirty = False
        #: the ``seeks`` message last sent to every socket (None: none sent since the last socket closed)
        self.last: str | None = None
        #: when (epoch seconds) the first of the listed seeks expires; None: no seek listed
        self._next_expiry: float | None = None
        #: listings made for the sockets (not counting each socket's first)
        self.listings = 0

    # -- sockets -----------------------------------------------------------------------------------------
    def refusal(self, client: str, per_client: int, total: int) -> str | None:
        """Why one more lobby socket of ``client`` is refused, or None."""
        if len(self.sockets) >= total:
            return f"the lobby has {total} connections, its most: try again later"
        if self.clients[client] >= per_client:
            return f"at most {per_client} lobby connections from one address"
        return None

    def add(self, sock: LobbySocket) -> None:
        self.sockets.add(sock)
        self.clients[sock.client] += 1

    def remove(self, sock: LobbySocket) -> None:
        if sock in self.sockets:
            self.sockets.discard(sock)
            self.clients[sock.client] -= 1
            if self.clients[sock.client] <= 0:
                del self.clients[sock.client]
        if not self.sockets:
            self.last = None

    def put(self, sock: LobbySocket, text: str) -> None:
        try:
            sock.queue.put_nowait(text)
        except asyncio.QueueFull:  # a client that does not read: closed by its sender, it reconnects
            sock.overflow = True
            self.remove(sock)

    # -- the list ----------------------------------------------------------------------------------------
    async def listing(self) -> str:
        """The ``seeks`` message of the open seeks now (read from the database)."""
        seeks = await asyncio.to_thread(self._seeks().listed)
        expiries = [datetime.fromisoformat(s["expires"]).timestamp() for s in seeks]
        nxt = min(expiries) if expiries else None
        if nxt != self._next_expiry:  # the loop waits for the new earliest expiry
            self._next_expiry = nxt
            self._wake.set()
        return orjson.dumps({"type": "seeks", "seeks": seeks}).decode()

    async def run(self) -> None:
        """While any lobby socket is open: list the seeks after every change and at the earliest expiry, and send
        the list to every socket when it differs from the last one sent."""
        while True:
            timeout = None
            if self.sockets and self._next_expiry is not None:
                timeout = min(60.0, max(0.05, self._next_expiry - time.time() + 0.05))
            try:
                await asyncio.wait_for(self._wake.wait(), timeout)
            except TimeoutError:
                pass
            self._wake.clear()
            due = self._next_expiry is not None and time.time() >= self._next_expiry
            if not self.sockets or not (self._dirty or due):
                self._dirty = False
                continue
            self._dirty = False
            try:
                msg = await self.listing()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 (the database may be back soon)
                log.exception("listing the seeks for the lobby failed; trying again")
                self._dirty = True
                await asyncio.sleep(1.0)
                self._wake.set()
                continue
            self.listings += 1
            if msg != self.last:
                self.last = msg
                for sock in list(self.sockets):
                    self.put(sock, msg)

    # -- changes -----------------------------------------------------------------------------------------
    async def changed(self, started: dict | None = None) -> None:
        """The seeks changed in this process (``started``: ``{"seek", "game_id", "accounts"}`` when a seek's game
        began): the lobby sockets here and, through the fan-out, those of the other processes are told."""
        self._dirty = True
        self._wake.set()
        if started is not None:
            self._tell_started(started)
        await self.fanout.publish_lobby({"k": "seeks", "started": started})

    async def remote(self, msg: dict) -> None:
        """A lobby notice of another process."""
        if msg.get("k") != "seeks":
            return
        self._dirty = True
        self._wake.set()
        started = msg.get("started")
        if isinstance(started, dict):
            self._tell_started(started)

    def _tell_started(self, started: dict) -> None:
        accounts, gid, sid = started.get("accounts"), started.get("game_id"), started.get("seek")
        if not isinstance(accounts, list) or not isinstance(gid, str) or not isinstance(sid, str):
            return
        text = orjson.dumps({"type": "accepted", "seek": sid, "game_id": gid, "url": f"/game/{gid}"}).decode()
        for sock in list(self.sockets):
            if sock.account is not None and sock.account in accounts:
                self.put(sock, text)


def _error(code: str, message: str) -> str:
    return orjson.dumps({"type": "error", "error": code, "message": message}).decode()


def _message_error(raw: MutableMapping[str, Any], limit: int) -> ApiError | None:
    """Why a received frame is refused, or None for ``{"type": "sync"}``."""
    text = raw.get("text")
    if text is None:
        if len(raw.get("bytes") or b"") > limit:
            return ApiError(413, "too_large", f"a message is at most {size_text(limit)}")
        return ApiError(400, "bad_message", "binary frames are not understood: send JSON objects as text")
    if len(text.encode()) > limit:
        return ApiError(413, "too_large", f"a message is at most {size_text(limit)}")
    try:
        msg = orjson.loads(text)
    except orjson.JSONDecodeError:
        return ApiError(400, "bad_json", "messages must be JSON objects")
    if not isinstance(msg, dict):
        return ApiError(400, "bad_json", f"messages must be JSON objects, not {type(msg).__name__}")
    if msg.get("type") != "sync":
        return ApiError(400, "bad_message", f"unknown message type {clip(msg.get('type'))}: the lobby understands sync only")
    return None


async def _refuse(ws: WebSocket, exc: ApiError, close_reason: str) -> None:
    """Refused at the handshake (an HTTP answer with the reason) where the server can, else right after it."""
    headers = {"Retry-After": str(exc.extra.get("retry_after", 5))} if exc.status == 429 else None
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        await ws.send_denial_response(JSONResponse(exc.payload(), exc.status, headers=headers))
    else:
        await ws.accept()
        await ws.send_text(_error(exc.code, exc.message))
        await ws.close(code=POLICY_VIOLATION, reason=close_reason)


@router.websocket("/ws/lobby")
async def lobby_socket(ws: WebSocket):
    hub = ws.app.state.hub
    lobby: Lobby = hub.lobby
    reason = cross_site_reason(ws.headers, settings_of(ws.app))
    if reason:  # like the game socket: a page of another site never gets to listen with the player's cookie
        await ws.close(code=POLICY_VIOLATION, reason=reason[:120])
        return
    rates, settings = ws.app.state.rates, ws.app.state.limits
    client = client_of(ws.scope)
    try:
        await rates.check("ws_connect", client)
    except RateLimited as exc:
        await _refuse(ws, exc, "too many connections from this address")
        return
    full = lobby.refusal(client, settings.lobby_sockets_per_client, settings.lobby_sockets_total)
    if full:
        await _refuse(ws, ApiError(429, "too_many_sockets", full, retry_after=5), full[:120])
        return
    session = ws.cookies.get(SESSION_COOKIE)
    account = await asyncio.to_thread(hub.accounts.from_cookie, session) if session else None
    sock = LobbySocket(account.id if account is not None else None, client)
    lobby.add(sock)  # counted (and listening) before the first listing: no change slips between them
    try:
        await ws.accept()
        first = await lobby.listing()
        await ws.send_text(first)
        await _serve(ws, lobby, sock, rates, settings.ws_message_bytes)
    except (WebSocketDisconnect, RuntimeError, OSError) as exc:  # the client went away
        log.debug("lobby socket closed: %s", exc)
    finally:
        with anyio.CancelScope(shield=True):
            lobby.remove(sock)


async def _serve(ws: WebSocket, lobby: Lobby, sock: LobbySocket, rates, limit: int) -> None:
    messages, strikes = rates.connection()
    sync_waiting = asyncio.Event()

    async def sender() -> None:
        try:
            while True:
                text = await sock.queue.get()
                await ws.send_text(text)
                if sock.overflow:
                    await ws.close(code=TRY_AGAIN_LATER, reason="too many messages waiting: reconnect")
                    return
        except (WebSocketDisconnect, RuntimeError, OSError):
            return

    async def syncer() -> None:  # coalesced: one listing per wait, however many syncs arrived
        while True:
            await sync_waiting.wait()
            sync_waiting.clear()
            lobby.put(sock, await lobby.listing())

    tasks = [asyncio.create_task(sender()), asyncio.create_task(syncer())]
    try:
        while True:
            raw = await ws.receive()
            if raw["type"] == "websocket.disconnect":
                return
            err = _message_error(raw, limit)
            try:
                messages.check()
            except RateLimited as exc:
                try:
                    strikes.check()
                except RateLimited:
                    await ws.close(code=POLICY_VIOLATION, reason="too many messages on this connection")
                    return
                err = exc
            if err is not None:
                lobby.put(sock, _error(err.code, err.message))
            else:
                sync_waiting.set()
            if tasks[0].done():  # the sender closed the connection (a client that does not read)
                return
    finally:
        for t in tasks:
            t.cancel()
