"""WebSocket rooms: ``/ws/games/{id}``.

On connect the server sends ``{"type": "hello", "state": ..., "my_seats": [...], "chat": [...]}``;
after every accepted action ``{"type": "state", "state": ...}``. Clients send
``{"type": "action", "action": "e3", "ply": 12}``, ``{"type": "resign"}``,
``{"type": "draw", "what": "offer"}``, ``{"type": "chat", "text": "..."}``; a refused
request is answered ``{"type": "error", "error": code, "message": ..., "id": <echoed>}``.
A client that reconnects simply gets a new ``hello`` with the current state.

``ply`` is required for actions (a repeated message never plays for the next seat) and the fields are
checked with the HTTP API's strict request models. Seat tokens come from the game's cookie or an
``X-Seat-Token`` handshake header, never from the URL. A handshake whose ``Origin`` is another site is
refused (close code 1008) before anything is sent.
"""

from __future__ import annotations

import asyncio
import json
from typing import TypeVar

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ValidationError

from . import seats as seat_tokens
from .api import COOKIE, ActionIn, ChatIn, DrawIn, ResignIn
from .errors import ApiError, describe_validation_errors
from .security import cross_site_reason, settings_of

router = APIRouter()


@router.websocket("/ws/games/{gid}")
async def game_socket(ws: WebSocket, gid: str):
    hub = ws.app.state.hub
    reason = cross_site_reason(ws.headers, settings_of(ws.app))
    if reason:  # before accepting: a page of another site never gets to talk with the player's cookie
        await ws.close(code=1008, reason=reason[:120])
        return
    await ws.accept()
    try:
        room = await hub.room(gid)
    except ApiError as exc:
        await ws.send_json({"type": "error", **exc.payload()})
        await ws.close(code=4404)
        return
    tokens = seat_tokens.split_tokens(ws.headers.get("x-seat-token")) + seat_tokens.split_tokens(ws.cookies.get(COOKIE.format(gid)))
    queue: asyncio.Queue = asyncio.Queue(maxsize=1000)
    room.listeners.add(queue)
    await ws.send_json({"type": "hello", "state": hub.snapshot(room), "my_seats": hub.seats_for(room, tokens), "chat": room.chat[-50:]})

    async def sender():
        while True:
            msg = await queue.get()
            if isinstance(msg, str):  # a broadcast, already encoded once for everybody
                await ws.send_text(msg)
            else:
                await ws.send_json(msg)

    send_task = asyncio.create_task(sender())
    try:
        while True:
            raw = await ws.receive_text()
            try:
                msg = json.loads(raw)
                if not isinstance(msg, dict):
                    raise ValueError
            except ValueError:
                await queue.put({"type": "error", "error": "bad_json", "message": "messages must be JSON objects"})
                continue
            kind = msg.get("type")
            try:
                if kind == "action":
                    a = typed(ActionIn, msg)
                    await hub.act(gid, a.action, tokens, a.ply)
                elif kind == "resign":
                    await hub.resign(gid, tokens, typed(ResignIn, msg).seat)
                elif kind == "draw":
                    await hub.draw(gid, tokens, typed(DrawIn, msg).what)
                elif kind == "chat":
                    c = typed(ChatIn, msg)
                    await hub.chat(gid, tokens, c.text, c.name)
                elif kind == "sync":
                    await queue.put({"type": "state", "state": hub.snapshot(room)})
                else:
                    raise ApiError(400, "bad_request", f"unknown message type {str(kind)[:40]!r}")
            except ApiError as exc:
                await queue.put({"type": "error", "id": msg.get("id"), **exc.payload()})
    except WebSocketDisconnect:
        pass
    finally:
        room.listeners.discard(queue)
        send_task.cancel()


M = TypeVar("M", bound=BaseModel)


def typed(model: type[M], msg: dict) -> M:
    """The fields of ``msg`` that ``model`` knows (``type``, ``id`` and others are the envelope), checked strictly."""
    try:
        return model.model_validate({k: msg[k] for k in model.model_fields if k in msg})
    except ValidationError as exc:
        raise ApiError(400, "bad_request", describe_validation_errors(exc.errors())) from None
