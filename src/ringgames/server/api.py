"""The JSON HTTP API (OpenAPI at ``/docs`` and ``/openapi.json``)."""

from __future__ import annotations

import asyncio
from typing import Literal

from fastapi import APIRouter, File, Request, Response, UploadFile
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, Field, field_validator

from .limits import MAX_SEATS, read_uploads
from .service import ApiError, Hub

router = APIRouter(prefix="/api")

COOKIE = "rg_{}"


class SeatSpec(BaseModel):
    kind: Literal["me", "invite", "open", "computer"] = Field("me", description="who plays the seat")
    name: str | None = Field(None, max_length=200, description="player name (for 'me')")
    level: int | None = Field(None, ge=0, le=5, description="computer level: 0 random, 1 (beginner) to 5 (strongest)")


class CreateGame(BaseModel):
    game: str = Field(..., description="yinsh, gyges or rings")
    variant: str | None = Field(None, description="YINSH: standard|blitz; Gygès: standard|beginner")
    players: int | None = Field(None, description="RINGS: 2–6")
    seats: list[SeatSpec] = Field(..., max_length=MAX_SEATS, description=f"one per seat (at most {MAX_SEATS})")
    setup: Literal["free", "preset", "random"] | None = Field(None, description="Gygès setup mode")

    @field_validator("seats", mode="before")
    @classmethod
    def _bounded_seats(cls, v: object) -> object:
        """Count the seats before validating each one (a 1 MiB body holds 340,000 empty seats)."""
        if isinstance(v, list) and len(v) > MAX_SEATS:
            raise ValueError(f"at most {MAX_SEATS} seats, not {len(v):,}")
        return v


class ActionIn(BaseModel):
    action: str | int = Field(..., description="an action in the game's notation (or its id)")
    ply: int | None = Field(None, description="the ply the client believes the game is at; a mismatch is refused (no duplicated moves)")
    token: str | None = Field(None, description="seat token (else the X-Seat-Token header or the game's cookie)")


class JoinIn(BaseModel):
    seat: int
    name: str | None = Field(None, max_length=200)
    token: str | None = None


class ResignIn(BaseModel):
    seat: int | None = None
    token: str | None = None


class DrawIn(BaseModel):
    what: Literal["offer", "accept", "decline"]
    token: str | None = None


class ChatIn(BaseModel):
    text: str = Field(..., max_length=2000)
    name: str | None = Field(None, max_length=200)
    token: str | None = None


def hub_of(request: Request) -> Hub:
    return request.app.state.hub


def tokens_of(request: Request, gid: str, body_token: str | None = None) -> list[str]:
    toks = []
    if body_token:
        toks.append(body_token)
    if request.headers.get("x-seat-token"):
        toks.append(request.headers["x-seat-token"])
    toks.extend(t for t in (request.cookies.get(COOKIE.format(gid)) or "").split(".") if t)
    return toks


def remember(response: Response, request: Request, gid: str, new: list[str]) -> None:
    """Add seat tokens to the game's cookie (the browser keeps the seats it holds)."""
    old = [t for t in (request.cookies.get(COOKIE.format(gid)) or "").split(".") if t]
    toks = list(dict.fromkeys(old + [t for t in new if t]))
    response.set_cookie(COOKIE.format(gid), ".".join(toks), max_age=60 * 60 * 24 * 365, httponly=True, samesite="lax", path="/")


def view(hub: Hub, room, tokens: list[str]) -> dict:
    snap = hub.snapshot(room)
    snap["my_seats"] = hub.seats_for(room, tokens)
    return snap


def invite_links(request: Request, room) -> dict:
    base = str(request.base_url).rstrip("/")
    return {str(i): f"{base}/game/{room.id}?seat={i}&token={s['token']}"
            for i, s in enumerate(room.row.seats) if s["kind"] == "human" and s.get("invite") and not s.get("joined")}


@router.get("/meta", summary="The games: variants, player counts, seat names")
async def meta():
    from .. import GAMES, load_game

    out = {}
    for name in GAMES:
        try:
            cls = __import__("ringgames", fromlist=["game_class"]).game_class(name)
        except ImportError:
            continue
        lo, hi = cls.player_range
        seats = {n: list(load_game(name, None, n).seat_names) for n in range(lo, hi + 1)}
        out[name] = {"title": cls.title, "variants": list(cls.variants), "players": [lo, hi], "seat_names": seats}
    return out


@router.get("/games", summary="List games", description="status: open (waiting for players), live, finished, archived")
async def list_games(request: Request, status: str | None = None, limit: int = 100):
    import asyncio

    return {"games": await asyncio.to_thread(hub_of(request).list_games, status, max(1, min(limit, 500)))}


@router.post("/games", status_code=201, summary="Create a game")
async def create_game(body: CreateGame, request: Request, response: Response):
    hub = hub_of(request)
    room, mine = await hub.create(body.game, body.variant, body.players, [s.model_dump() for s in body.seats], body.setup)
    remember(response, request, room.id, list(mine.values()))
    out = view(hub, room, list(mine.values()))
    out["tokens"] = {str(k): v for k, v in mine.items()}
    out["invites"] = invite_links(request, room)
    return out


@router.get("/games/{gid}", summary="Game state, legal actions and moves")
async def get_game(gid: str, request: Request, token: str | None = None):
    hub = hub_of(request)
    room = await hub.room(gid)
    out = view(hub, room, tokens_of(request, gid, token))
    if out["my_seats"]:  # players may pass on the invite links of seats still waiting
        out["invites"] = invite_links(request, room)
    return out


@router.get("/games/{gid}/legal", summary="Legal actions for the player to move")
async def get_legal(gid: str, request: Request):
    snap = hub_of(request).snapshot(await hub_of(request).room(gid))
    return {"ply": snap["ply"], "to_move": snap["to_move"], "legal": snap["legal"]}


@router.post("/games/{gid}/actions", summary="Submit an action for the seat to move")
async def post_action(gid: str, body: ActionIn, request: Request):
    hub = hub_of(request)
    toks = tokens_of(request, gid, body.token)
    room = await hub.act(gid, body.action, toks, body.ply)
    return view(hub, room, toks)


@router.post("/games/{gid}/join", summary="Take a seat (invite token, or an open seat)")
async def join(gid: str, body: JoinIn, request: Request, response: Response):
    hub = hub_of(request)
    room, tok = await hub.join(gid, body.seat, body.name, body.token)
    remember(response, request, gid, [tok])
    out = view(hub, room, tokens_of(request, gid) + [tok])
    out["token"] = tok
    return out


@router.post("/games/{gid}/resign", summary="Resign (the seat to move if you hold it, else your seat)")
async def resign(gid: str, body: ResignIn, request: Request):
    hub = hub_of(request)
    toks = tokens_of(request, gid, body.token)
    return view(hub, await hub.resign(gid, toks, body.seat), toks)


@router.post("/games/{gid}/draw", summary="Offer, accept or decline a draw")
async def draw(gid: str, body: DrawIn, request: Request):
    hub = hub_of(request)
    toks = tokens_of(request, gid, body.token)
    return view(hub, await hub.draw(gid, toks, body.what), toks)


@router.post("/games/{gid}/chat", summary="Say something in the game's chat")
async def chat(gid: str, body: ChatIn, request: Request):
    hub = hub_of(request)
    await hub.chat(gid, tokens_of(request, gid, body.token), body.text, body.name)
    return {"ok": True}


@router.get("/games/{gid}/chat", summary="The game's chat")
async def get_chat(gid: str, request: Request):
    return {"chat": (await hub_of(request).room(gid)).chat}


@router.post("/games/{gid}/rematch", status_code=201, summary="Play again: same game and seats, your seats stay yours")
async def rematch(gid: str, request: Request, response: Response):
    hub = hub_of(request)
    old = await hub.room(gid)
    mine = hub.seats_for(old, tokens_of(request, gid))
    if not mine:
        raise ApiError(403, "not_your_seat", "only players can ask for another game")
    async with old.lock:  # one new game per finished game: whoever asks second joins the first one's game
        nxt = old.row.tags.get("rematch")
        if nxt is None:
            seats = []
            for i, s in enumerate(old.row.seats):
                if s["kind"] == "computer":
                    seats.append({"kind": "computer", "level": s.get("level")})
                elif i in mine:
                    seats.append({"kind": "me", "name": s["name"]})
                else:
                    seats.append({"kind": "invite"})
            room, toks = await hub.create(old.row.game, old.row.variant, old.row.players, seats, old.row.tags.get("setup"))
            old.row.tags = {**old.row.tags, "rematch": room.id}
            await asyncio.to_thread(hub._save_row, old.row)
        else:
            room, toks = await hub.room(nxt), {}
    if nxt is None:
        await hub.broadcast(old)  # the other players' pages offer to join the new game
    else:  # the seats this browser held in the old game are its seats in the new one
        for i in mine:
            s = room.row.seats[i]
            if s["kind"] == "human" and s.get("token"):
                if not s.get("joined"):
                    room, _ = await hub.join(room.id, i, old.row.seats[i]["name"], s["token"])
                toks[i] = s["token"]
    remember(response, request, room.id, list(toks.values()))
    out = view(hub, room, list(toks.values()))
    out["tokens"] = {str(k): v for k, v in toks.items()}
    out["invites"] = invite_links(request, room)
    return out


@router.get("/games/{gid}/positions", summary="Position string after every ply (for replay)")
async def positions(gid: str, request: Request):
    return {"positions": await hub_of(request).positions(gid)}


@router.get("/games/{gid}/record", response_class=PlainTextResponse, summary="The game as an .rgn record")
async def record(gid: str, request: Request):
    from ..records import Record

    room = await hub_of(request).room(gid)
    tags = {room.state.game.seat_names[i].capitalize(): s["name"] for i, s in enumerate(room.row.seats)}
    return Record.from_state(room.state, tags).dumps()


@router.post("/import", summary="Import game records (boardspace YINSH, .rgn); each file is reported separately")
async def import_files(request: Request, files: list[UploadFile] = File(...)):
    settings = request.app.state.limits  # size, files and games per upload: over any of them, nothing is imported (413)
    results = await hub_of(request).import_upload(await read_uploads(files, settings), settings.upload_games)
    return {"results": results, "imported": sum(r["ok"] for r in results), "failed": sum(not r["ok"] for r in results)}
