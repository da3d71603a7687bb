"""WebSocket rooms: ``/ws/games/{id}``.

On connect the server sends ``{"type": "hello", "state": ..., "my_seats": [...], "chat": [...]}``;
after every accepted action ``{"type": "state", "state": ...}``. Clients send
``{"type": "action", "action": "e3", "ply": 12}``, ``{"type": "resign"}``,
``{"type": "draw", "what": "offer"}``, ``{"type": "chat", "text": "..."}``; a refused
request is answered ``{"type": "error", "error": code, "message": ..., "id": <echoed>}``.
A client that reconnects simply gets a new ``hello`` with the current state.
"""

from __future__ import annotations

import asyncio
import json

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from .api import COOKIE
from .service import ApiError

router = APIRouter()


@router.websocket("/ws/games/{gid}")
async def game_socket(ws: WebSocket, gid: str):
    hub = ws.app.state.hub
    await ws.accept()
    try:
        room = await hub.room(gid)
    except ApiError as exc:
        await ws.send_json({"type": "error", **exc.payload()})
        await ws.close(code=4404)
        return
    tokens = [t for t in (ws.cookies.get(COOKIE.format(gid)) or "").split(".") if t]
    for t in ws.query_params.getlist("token"):  # one or more seat tokens, repeated or dot-separated
        tokens.extend(x for x in t.split(".") if x)
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
            toks = tokens + ([msg["token"]] if isinstance(msg.get("token"), str) else [])
            try:
                if kind == "action":
                    await hub.act(gid, msg.get("action"), toks, msg.get("ply"))
                elif kind == "resign":
                    await hub.resign(gid, toks, msg.get("seat"))
                elif kind == "draw":
                    await hub.draw(gid, toks, str(msg.get("what")))
                elif kind == "chat":
                    await hub.chat(gid, toks, str(msg.get("text", "")), msg.get("name"))
                elif kind == "sync":
                    await queue.put({"type": "state", "state": hub.snapshot(room)})
                else:
                    raise ApiError(400, "bad_request", f"unknown message type {kind!r}")
            except ApiError as exc:
                await queue.put({"type": "error", "id": msg.get("id"), **exc.payload()})
    except WebSocketDisconnect:
        pass
    finally:
        room.listeners.discard(queue)
        send_task.cancel()
