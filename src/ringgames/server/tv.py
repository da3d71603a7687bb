"""``GET /api/tv``: the lobby's TV game, one live game shown as a small board that moves (as lichess shows its TV).

The pick, among the most recently changed live games: first a game that moved in the last ``RECENT_SECONDS``,
then one with a human player (a game between computers only is the fallback), then one past its first move, then
the most recently changed. The answer carries what a board needs to draw the position and mark the last turn.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import orjson
from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from .api import hub_of, operation_id
from .errors import ApiError
from .security import same_site_only
from .service import Hub

#: a game changed this recently counts as moving
RECENT_SECONDS = 600
#: how many of the most recently changed live games are looked at
CANDIDATES = 50

router = APIRouter(prefix="/api", dependencies=[Depends(same_site_only)], generate_unique_id_function=operation_id)


class TvSeat(BaseModel):
    name: str
    kind: str = Field(..., description="human, computer or record")
    level: int | None = Field(None, description="a computer seat's level")


class TvLastTurn(BaseModel):
    seat: int = Field(..., description="the seat that made the turn")
    ply: int = Field(..., description="the ply of the turn's first move")
    before: str = Field(..., description="the position before the turn")
    texts: list[str] = Field(..., description="the turn's moves in the game's notation")


class TvGame(BaseModel):
    id: str = Field(..., description="the game's id (its page is /game/{id})")
    game: str
    title: str
    variant: str
    players: int
    seat_names: list[str]
    seats: list[TvSeat]
    status: str = Field(..., description="live")
    ply: int
    position: str = Field(..., description="the position in the game's notation (what the board draws)")
    to_move: int | None
    last_turn: TvLastTurn | None = Field(..., description="the last turn, for the board's last-move marks; null before the first move")
    updated: str | None = Field(None, description="when the game last changed (ISO 8601)")


class TvAnswer(BaseModel):
    game: TvGame | None = Field(..., description="the TV game; null when no game is live")


def _age(updated: str | None, now: datetime) -> float:
    if not updated:
        return float("inf")
    t = datetime.fromisoformat(updated)
    if t.tzinfo is None:  # SQLite gives the stored UTC time back without its zone
        t = t.replace(tzinfo=UTC)
    return (now - t).total_seconds()


def pick(games: list[dict], now: datetime | None = None) -> dict | None:
    """The TV game among ``games`` (``Hub.list_games`` rows, most recently changed first), or None."""
    now = now or datetime.now(UTC)

    def rank(item: tuple[int, dict]) -> tuple:
        i, g = item
        human = any(s["kind"] == "human" for s in g["seats"])
        return (_age(g["updated"], now) <= RECENT_SECONDS, human, g["ply"] > 0, -i)

    live = [(i, g) for i, g in enumerate(games) if g["status"] == "live"]
    return max(live, key=rank)[1] if live else None


def tv_view(snap: dict) -> dict:
    """The TV's answer for a game's ``Hub.snapshot``."""
    last = snap.get("last_turn")
    if last is not None:
        texts = [m["text"] for m in snap["moves"][last["ply"]:] if m["text"] not in ("resign", "draw")]
        last = {**last, "texts": texts}
    return {"id": snap["id"], "game": snap["game"], "title": snap["title"], "variant": snap["variant"],
            "players": snap["players"], "seat_names": snap["seat_names"],
            "seats": [{"name": s["name"], "kind": s["kind"], "level": s.get("level")} for s in snap["seats"]],
            "status": snap["status"], "ply": snap["ply"], "position": snap["position"], "to_move": snap["to_move"],
            "last_turn": last}


async def tv_game(hub: Hub) -> dict | None:
    """The TV game's view, or None when no game is live."""
    games = await asyncio.to_thread(hub.list_games, "live", CANDIDATES)
    while games:
        chosen = pick(games)
        if chosen is None:
            return None
        try:
            room = await hub.room(chosen["id"])
        except ApiError:  # gone between the listing and now: the next one
            games = [g for g in games if g["id"] != chosen["id"]]
            continue
        out = tv_view(orjson.loads(hub.state_json(room)))  # the room's cached encoding of its state
        out["updated"] = chosen["updated"]
        return out
    return None


@router.get("/tv", summary="The TV game: a live game to watch, with its position", response_model=TvAnswer,
            description="The live game that moved most recently, a game with a human player before one between computers "
                        "only; its position and last turn, to draw it. `game` is null when no game is live.")
async def get_tv(request: Request):
    return {"game": await tv_game(hub_of(request))}
