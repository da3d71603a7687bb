"""WebSocket rooms: ``/ws/games/{id}``.

On connect the server sends ``{"type": "hello", "state": ..., "my_seats": [...], "chat": [...]}``;
after every accepted action ``{"type": "state", "state": ...}``. Clients send
``{"type": "action", "action": "e3", "ply": 12}``, ``{"type": "resign"}``,
``{"type": "draw", "what": "offer"}``, ``{"type": "takeback", "what": "ask"}``, ``{"type": "claim"}``, ``{"type": "chat", "text": "..."}``, ``{"type": "sync"}``
(answered with the current ``state``); a refused request is answered
``{"type": "error", "error": code, "message": ..., "id": <echoed>}`` and the connection stays open.
A client that reconnects simply gets a new ``hello`` with the current state.

``ply`` is required for actions (a repeated message never plays for the next seat) and the fields are
checked as strictly as the HTTP API's request models (``bool`` is no number, ``"3"`` no ply). Seat
tokens come from the game's cookie or an ``X-Seat-Token`` handshake header, never from the URL or a
message. A handshake whose ``Origin`` is another site is refused with HTTP 403 (closed before it is
accepted), before anything is sent. The whole protocol: ``docs/websocket.md``.

Limits (``server/limits.py``, ``docs/security.md``): each message at most ``ws_message_bytes``; at most
``ws_rate`` messages per connection (more are answered ``rate_limited``; a client that goes on past
``ws_strikes`` refusals is closed with 1008, policy violation); chat counts against the client's
``chat_rate``. ``sync`` requests are coalesced and answered with the cached encoded state.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Annotated, Any, Literal

import anyio
import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
)

from . import seats as seat_tokens
from .accounts import SESSION_COOKIE
from .api import COOKIE, ActionIn, ChatIn, DrawIn, ResignIn, TakebackIn
from .errors import ApiError, clip, describe_validation_errors, short
from .limits import RateLimited, client_of, size_text
from .security import cross_site_reason, settings_of

router = APIRouter()
log = logging.getLogger("ringgames.server")

POLICY_VIOLATION = 1008


#: the envelope (``type``, and ``id``, echoed in errors) and fields of newer clients are ignored, and so is a
#: ``token`` (tokens travel only in the cookie or the handshake's header); the fields are the HTTP API's, as strict
_ENVELOPE = ConfigDict(extra="ignore", strict=True)


class ActionMessage(ActionIn):
    model_config = _ENVELOPE
    type: Literal["action"]


class ResignMessage(ResignIn):
    model_config = _ENVELOPE
    type: Literal["resign"]


class DrawMessage(DrawIn):
    model_config = _ENVELOPE
    type: Literal["draw"]


class TakebackMessage(TakebackIn):
    model_config = _ENVELOPE
    type: Literal["takeback"]


class ClaimMessage(BaseModel):
    model_config = _ENVELOPE
    type: Literal["claim"]


class ChatMessage(ChatIn):
    model_config = _ENVELOPE
    type: Literal["chat"]


class SyncMessage(BaseModel):
    model_config = _ENVELOPE
    type: Literal["sync"]


MESSAGE = TypeAdapter(Annotated[ActionMessage | ResignMessage | DrawMessage | TakebackMessage | ClaimMessage | ChatMessage
                                | SyncMessage,
                                Field(discriminator="type")])

#: the sender's cue for "send the current state" (a coalesced ``sync``)
_SYNC = object()


def _echo_id(msg: dict):
    """The client's ``id`` to echo in answers: a number or a short string, else nothing."""
    v = msg.get("id")
    if isinstance(v, bool) or not isinstance(v, (int, str)) or (isinstance(v, str) and len(v) > 64):
        return None
    return v


def _parse(raw: Mapping[str, Any]) -> tuple[object, dict | None, ApiError | None]:
    """A received frame → (message id, JSON object or None, error or None)."""
    if raw.get("text") is None:
        return None, None, ApiError(400, "bad_message", "binary frames are not understood: send JSON objects as text")
    try:
        msg = orjson.loads(raw["text"])
    except orjson.JSONDecodeError as exc:
        return None, None, ApiError(400, "bad_json", f"messages must be JSON objects ({short(str(exc), 120)})")
    if not isinstance(msg, dict):
        return None, None, ApiError(400, "bad_json", f"messages must be JSON objects, not {type(msg).__name__}")
    return _echo_id(msg), msg, None


def _invalid(exc: ValidationError, msg: dict) -> ApiError:
    """A readable, bounded reason for a message that does not fit its type's fields."""
    e = exc.errors(include_url=False, include_input=False)[0]
    loc = [str(x) for x in e.get("loc", ())]
    if e.get("type") == "union_tag_invalid":
        return ApiError(400, "bad_message", f"unknown message type {clip(msg.get('type'))}: use action, resign, draw, takeback, claim, chat or sync")
    if e.get("type") == "union_tag_not_found":
        return ApiError(400, "bad_message", "a message needs a \"type\": action, resign, draw, takeback, claim, chat or sync")
    if len(loc) < 2:
        return ApiError(400, "bad_message", f"message: {e.get('msg')}")
    # the fields of a known type: the same code and wording as the HTTP API's request models
    fields = [{**x, "loc": tuple(x.get("loc", ()))[1:]} for x in exc.errors(include_url=False, include_input=False)]
    return ApiError(400, "bad_request", describe_validation_errors(fields))


@router.websocket("/ws/games/{gid}")
async def game_socket(ws: WebSocket, gid: str):
    hub = ws.app.state.hub
    reason = cross_site_reason(ws.headers, settings_of(ws.app))
    if reason:  # before accepting: a page of another site never gets to talk with the player's cookie
        await ws.close(code=POLICY_VIOLATION, reason=reason[:120])
        return
    rates = ws.app.state.rates
    limit = rates.settings.ws_message_bytes
    client = client_of(ws.scope)  # per client: connections, chat
    messages, strikes = rates.connection()  # per connection: messages, refused messages
    try:
        await rates.check("ws_connect", client)
    except RateLimited as exc:  # refused at the handshake (HTTP 429 with the reason), else right after it
        if "websocket.http.response" in ws.scope.get("extensions", {}):
            await ws.send_denial_response(JSONResponse(exc.payload(), 429, headers={"Retry-After": str(exc.retry_after)}))
        else:
            await ws.accept()
            await ws.send_json({"type": "error", **exc.payload()})
            await ws.close(code=POLICY_VIOLATION, reason="too many connections from this address")
        return
    await ws.accept()
    try:
        room = await hub.fresh_room(gid)
    except ApiError as exc:
        await ws.send_json({"type": "error", **exc.payload()})
        await ws.close(code=4404)
        return
    tokens: list[seat_tokens.Credential] = [*seat_tokens.split_tokens(ws.headers.get("x-seat-token")),
                                            *seat_tokens.split_tokens(ws.cookies.get(COOKIE.format(gid)))]
    session = ws.cookies.get(SESSION_COOKIE)
    account = await asyncio.to_thread(hub.accounts.from_cookie, session) if session else None
    if account is not None:  # a logged-in player holds their account's seats here too
        tokens.insert(0, seat_tokens.AccountKey(account.id))
    queue: asyncio.Queue = asyncio.Queue(maxsize=1000)
    sync_queued = False
    present = hub.seats_for(room, tokens)  # the seats this connection counts as connected (claims in real time)
    await hub.seats_connected(room, present, True)  # (before listening: the hello below has the state with it)
    room.listeners.add(queue)

    async def sender():
        nonlocal sync_queued
        try:
            while True:
                msg = await queue.get()
                if msg is _SYNC:  # whatever the state is now, encoded once per change for everybody
                    sync_queued = False
                    msg = hub.state_message(room)
                if isinstance(msg, str):  # a broadcast, already encoded once for everybody
                    await ws.send_text(msg)
                else:
                    await ws.send_text(orjson.dumps(msg).decode())
        except (WebSocketDisconnect, RuntimeError, OSError):  # the connection is gone: the receiving loop ends too
            return

    send_task = asyncio.create_task(sender())
    try:
        await ws.send_text('{"type":"hello","state":' + hub.live_state_json(room) + ',"my_seats":'
                           + orjson.dumps(hub.seats_for(room, tokens)).decode() + ',"chat":' + orjson.dumps(room.chat[-50:]).decode() + "}")
        while True:
            raw = await ws.receive()
            if raw["type"] == "websocket.disconnect":
                break
            err: ApiError | None
            size = len(raw.get("text") or "") or len(raw.get("bytes") or b"")
            if size > limit or (raw.get("text") is not None and len(raw["text"].encode()) > limit):
                mid, msg, err = None, None, ApiError(413, "too_large", f"a message is at most {size_text(limit)}")
            else:
                mid, msg, err = _parse(raw)
            try:
                messages.check()
            except RateLimited as exc:
                try:
                    strikes.check()
                except RateLimited:
                    await ws.close(code=POLICY_VIOLATION, reason="too many messages on this connection")
                    break
                err = exc
            if err is None:
                try:
                    m = MESSAGE.validate_python(msg)
                except ValidationError as exc:
                    err = _invalid(exc, msg or {})
            if err is not None:
                await queue.put({"type": "error", "id": mid, **err.payload()})
                continue
            toks = tokens
            try:
                if isinstance(m, ActionMessage):
                    await hub.act(gid, m.action, toks, m.ply)
                elif isinstance(m, ResignMessage):
                    await hub.resign(gid, toks, m.seat)
                elif isinstance(m, DrawMessage):
                    await hub.draw(gid, toks, m.what)
                elif isinstance(m, TakebackMessage):
                    await hub.takeback(gid, toks, m.what)
                elif isinstance(m, ClaimMessage):
                    await hub.claim(gid, toks)
                elif isinstance(m, ChatMessage):
                    await rates.check("chat", client)
                    await hub.chat(gid, toks, m.text, m.name)
                elif not sync_queued:  # sync: at most one waiting per connection
                    sync_queued = True
                    await queue.put(_SYNC)
            except ApiError as exc:
                await queue.put({"type": "error", "id": mid, **exc.payload()})
    except (WebSocketDisconnect, RuntimeError) as exc:  # the client closed while we were sending or receiving
        log.debug("websocket of game %s closed: %s", gid, exc)
    finally:
        room.listeners.discard(queue)
        send_task.cancel()
        try:
            with anyio.CancelScope(shield=True):  # a closing connection's task may be cancelled: still count it gone
                await hub.seats_connected(room, present, False)
        except Exception:  # the server is stopping (the database is closed): presence turns stale by itself
            log.debug("presence of game %s not updated on close", gid, exc_info=True)
