"""The JSON HTTP API (OpenAPI at ``/docs`` and ``/openapi.json``).

Seat tokens travel in the game's cookie (``rg_<game id>``, set by the answers that give a seat) or in the
``X-Seat-Token`` header (several tokens dot-separated), never in a URL. Every state-changing request is refused
when it comes from another site (:mod:`.security`). Request bodies are strict: no unknown fields, no ``true``
for a number, bounded lengths.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Annotated, Literal

from fastapi import (
    APIRouter,
    Depends,
    File,
    Header,
    Path,
    Query,
    Request,
    Response,
    UploadFile,
)
from fastapi.responses import PlainTextResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator
from sqlalchemy import func, select

from . import clocks as clk
from . import ratings
from . import seats as seat_tokens
from .accounts import MAX_PASSWORD, SESSION_COOKIE, SESSION_DAYS, Account
from .db import AccountRow, GamePlayerRow, GameRow, RatingHistoryRow, RatingRow
from .errors import ApiError, clip
from .limits import MAX_SEATS, client_of, read_uploads
from .security import same_site_only, secure_cookie
from .service import Hub
from .views import (
    AccountView,
    AnalysisView,
    ChatView,
    CreatedGame,
    GameAnalysis,
    GameList,
    GameMeta,
    GameView,
    ImportReport,
    InviteLink,
    JoinedGame,
    Leaderboard,
    LegalView,
    MyGames,
    Ok,
    PlayerView,
    Positions,
    SeekAnswer,
    SeekList,
    SeekView,
    errors,
)


def operation_id(route: APIRoute) -> str:
    """OpenAPI operation ids are the route functions' names (create_game, play_action, ...)."""
    return route.name


router = APIRouter(prefix="/api", dependencies=[Depends(same_site_only)], generate_unique_id_function=operation_id)

COOKIE = "rg_{}"
#: game tags the site keeps for itself: never written into an exported record
INTERNAL_TAGS = frozenset({"setup", "file", "rematch", "creator_hash", "ended", "takeback", "stopped", "Result", "Termination",
                           "Position", "TimeControl"})
#: game ids: ``secrets.token_hex(6)`` today; anything else of this shape is simply not found
GameId = Annotated[str, Path(pattern=r"^[0-9A-Za-z_-]{1,32}$", description="the game's id")]
SeatTokenHeader = Annotated[str | None, Header(alias="X-Seat-Token", max_length=1100,
                                               description="seat token(s), dot-separated (browsers use the game's cookie instead)")]
STRICT = ConfigDict(extra="forbid", strict=True)


def _whole(value: object) -> object:
    """JSON has one number type: ``3.0`` is the integer 3 (as JSON Schema says), but ``true`` and ``"3"`` are not."""
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) < 2**53 else value


# integer fields: no bool, no string, no fraction (strict), but 3.0 is 3 (the bounds come before the validator, so
# that they appear in the OpenAPI description as minimum/maximum)
SeatNumber = Annotated[int, Field(ge=0, le=63), BeforeValidator(_whole)]
Level = Annotated[int, Field(ge=0, le=5), BeforeValidator(_whole)]
PlayerCount = Annotated[int, Field(ge=1, le=64), BeforeValidator(_whole)]
Ply = Annotated[int, Field(ge=0, le=10**6), BeforeValidator(_whole)]
ActionId = Annotated[int, Field(ge=0, le=2**31 - 1), BeforeValidator(_whole)]


class SeatSpec(BaseModel):
    """A seat played by a person (no ``level``: only computer seats have one)."""

    model_config = STRICT

    kind: Literal["me", "invite", "open"] = Field("me", description="who plays the seat: me (this client), "
                                                  "invite (whoever gets the single-use invite link), open (anyone)")
    name: str | None = Field(None, max_length=200, description="player name (for 'me')")


class ComputerSeatSpec(BaseModel):
    """A seat played by the computer, at a ``level`` (required)."""

    model_config = STRICT

    kind: Literal["computer"]
    level: Level = Field(..., description="computer level: 0 random, 1 (beginner) to 5 (strongest)")
    name: str | None = Field(None, max_length=200, description="ignored (the seat is named after the computer)")


def _seat_kind(v: object) -> str:
    kind = v.get("kind") if isinstance(v, dict) else getattr(v, "kind", None)
    return "computer" if kind == "computer" else "human"


#: a seat: a person's (kind me|invite|open, the default) or the computer's (kind computer, with its level)
AnySeat = Annotated[Annotated[SeatSpec, Tag("human")] | Annotated[ComputerSeatSpec, Tag("computer")], Discriminator(_seat_kind)]


class ClockIn(BaseModel):
    """A real-time clock (Fischer): ``initial`` seconds per seat, ``increment`` seconds added when a turn ends."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": [{"initial": 300, "increment": 3}]})

    initial: Annotated[float, Field(ge=1, le=clk.MAX_INITIAL, allow_inf_nan=False)] = Field(
        ..., description=f"seconds per seat, 1 to {clk.MAX_INITIAL:,} (a day)")
    increment: Annotated[float, Field(ge=0, le=clk.MAX_INCREMENT, allow_inf_nan=False)] = Field(
        0, description=f"seconds added at the end of each turn, 0 to {clk.MAX_INCREMENT:,}")


class CorrespondenceIn(BaseModel):
    """Correspondence: ``days`` per move (the clock is set back to that when a turn ends)."""

    model_config = STRICT

    days: Annotated[int, Field(ge=1, le=clk.MAX_DAYS), BeforeValidator(_whole)] = Field(
        ..., description=f"days per move, 1 to {clk.MAX_DAYS} (the lobby offers {', '.join(map(str, clk.CORRESPONDENCE_DAYS))})")


class CreateGame(BaseModel):
    # a clock or days per move, not both (said in the OpenAPI description too)
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"not": {
        "required": ["clock", "correspondence"],
        "properties": {"clock": {"type": "object"}, "correspondence": {"type": "object"}}}})

    game: str = Field(..., max_length=32, description="yinsh, gyges or rings")
    variant: str | None = Field(None, max_length=32, description="YINSH: standard|blitz; Gygès: standard|beginner")
    players: PlayerCount | None = Field(None, description="RINGS: 2–6")
    seats: list[AnySeat] = Field(..., min_length=1, max_length=MAX_SEATS,
                                  description=f"one per player, in seat order (at most {MAX_SEATS})")
    setup: Literal["free", "preset", "random"] | None = Field(None, description="Gygès setup mode (other games have no "
                                                                             "setup: leave it out or free, else 400 bad_setup)")
    rated: bool = Field(False, description="a rated game: needs a logged-in creator (sitting in the one 'me' seat); "
                                           "the other seats are computer levels or taken by logged-in players")
    clock: ClockIn | None = Field(None, description="a real-time clock; without clock or correspondence, no clock")
    correspondence: CorrespondenceIn | None = Field(None, description="days per move (not with clock)")

    @model_validator(mode="after")
    def _one_time_control(self) -> CreateGame:
        if self.clock is not None and self.correspondence is not None:
            raise ValueError("a game has a real-time clock or days per move, not both")
        return self

    def time_control(self) -> dict | None:
        if self.clock is not None:
            return {"initial": self.clock.initial, "increment": self.clock.increment}
        if self.correspondence is not None:
            return {"days": self.correspondence.days}
        return None

    @field_validator("seats", mode="before")
    @classmethod
    def _bounded_seats(cls, v: object) -> object:
        """Count the seats before validating each one (a 1 MiB body holds 340,000 empty seats)."""
        if isinstance(v, list) and len(v) > MAX_SEATS:
            raise ValueError(f"at most {MAX_SEATS} seats, not {len(v):,}")
        return v


class ActionIn(BaseModel):
    model_config = STRICT

    action: Annotated[str, Field(max_length=100)] | ActionId = Field(
        ..., description="an action in the game's notation (or its id)")
    ply: Ply = Field(..., description="the ply the client believes the game is at; a mismatch is refused, "
                                                      "so a repeated submission never plays for the next seat")


class JoinIn(BaseModel):
    model_config = STRICT

    seat: SeatNumber = Field(...)
    name: str | None = Field(None, max_length=200)
    token: str | None = Field(None, max_length=100, description="the invite token from the invite link (not needed for an open seat)")


#: longest analysis a client may ask for (seconds); the search stops there whatever else it was told
MAX_ANALYSIS_SECONDS = 5.0
#: deepest alpha-beta search a client may ask for (turns), and most MCTS iterations
MAX_ANALYSIS_DEPTH = 4
MAX_ANALYSIS_ITERATIONS = 2_000_000


class AnalysisIn(BaseModel):
    model_config = STRICT

    game: str = Field(..., max_length=32, description="yinsh, gyges or rings")
    variant: str | None = Field(None, max_length=32, description="YINSH: standard|blitz; Gygès: standard|beginner")
    players: PlayerCount | None = Field(None, description="RINGS: 2–6")
    position: str | None = Field(None, max_length=2000, description="a position string (see docs/records.md); "
                                                                    "default: the start")
    moves: list[Annotated[str, Field(max_length=100)]] = Field(
        [], max_length=2000, description="actions in notation, played from the position (or the start) first")
    seconds: float = Field(1.0, gt=0, le=MAX_ANALYSIS_SECONDS, allow_inf_nan=False,
                           description=f"time budget in seconds (at most {MAX_ANALYSIS_SECONDS:g})")
    depth: Annotated[int, Field(ge=1, le=MAX_ANALYSIS_DEPTH), BeforeValidator(_whole)] | None = Field(
        None, description="two-player games: search exactly this many turns deep (repeatable answers); "
                          "still stopped by `seconds`")
    iterations: Annotated[int, Field(ge=1, le=MAX_ANALYSIS_ITERATIONS), BeforeValidator(_whole)] | None = Field(
        None, description="RINGS: this many search iterations (repeatable answers); still stopped by `seconds`")

    @field_validator("seconds", mode="before")
    @classmethod
    def _number(cls, v: object) -> object:
        """``seconds`` is a JSON number: 1 and 0.5, not ``true`` or ``"1"`` (strict mode takes no int for a float)."""
        return float(v) if isinstance(v, int) and not isinstance(v, bool) else v


class InviteIn(BaseModel):
    model_config = STRICT

    seat: SeatNumber


class ResignIn(BaseModel):
    model_config = STRICT

    seat: SeatNumber | None = Field(None, description="the seat that resigns (default: the seat to move if you hold it)")


class DrawIn(BaseModel):
    model_config = STRICT

    what: Literal["offer", "accept", "decline"]


class TakebackIn(BaseModel):
    model_config = STRICT

    what: Literal["ask", "accept", "decline"] = Field(..., description="ask to take back your last turn, or answer the "
                                                                        "opponent's request (decline also withdraws your own)")


class ChatIn(BaseModel):
    model_config = STRICT

    text: str = Field(..., max_length=2000)
    name: str | None = Field(None, max_length=200, description="a spectator's name (players speak as their seat)")


class Credentials(BaseModel):
    model_config = STRICT

    username: str = Field(..., min_length=1, max_length=64, description="3–20 letters, digits, '_' or '-'")
    password: str = Field(..., min_length=1, max_length=MAX_PASSWORD, description="at least 8 characters")


class NewPassword(BaseModel):
    model_config = STRICT

    password: str = Field(..., min_length=1, max_length=MAX_PASSWORD, description="the current password")
    new_password: str = Field(..., min_length=1, max_length=MAX_PASSWORD, description="at least 8 characters")


def hub_of(request: Request) -> Hub:
    return request.app.state.hub


def tokens_of(request: Request, gid: str) -> list[str]:
    """The seat tokens a request carries: the ``X-Seat-Token`` header and the game's cookie (never the URL)."""
    toks = seat_tokens.split_tokens(request.headers.get("x-seat-token"))
    toks += seat_tokens.split_tokens(request.cookies.get(COOKIE.format(gid)))
    return toks[:seat_tokens.MAX_TOKENS]


_UNKNOWN = object()


async def account_of(request: Request) -> Account | None:
    """The logged-in account of the request (its ``rg_session`` cookie), or None; looked up once per request."""
    known = getattr(request.state, "account", _UNKNOWN)
    if known is None or isinstance(known, Account):
        return known
    cookie = request.cookies.get(SESSION_COOKIE)
    account = await asyncio.to_thread(hub_of(request).accounts.from_cookie, cookie) if cookie else None
    request.state.account = account
    return account


async def credentials(request: Request, gid: str) -> list[seat_tokens.Credential]:
    """Seat tokens (header, the game's cookie) and the logged-in account: what holds seats of game ``gid``."""
    account = await account_of(request)
    toks: list[seat_tokens.Credential] = list(tokens_of(request, gid))
    return ([seat_tokens.AccountKey(account.id)] if account else []) + toks


def remember(response: Response, request: Request, gid: str, new: list[str]) -> None:
    """Add seat tokens to the game's cookie (the browser keeps the seats it holds): HttpOnly, SameSite=Lax, and
    Secure when the site is served over HTTPS."""
    old = seat_tokens.split_tokens(request.cookies.get(COOKIE.format(gid)))
    toks = list(dict.fromkeys([t for t in new if t] + old))[:seat_tokens.MAX_TOKENS]
    response.set_cookie(COOKIE.format(gid), ".".join(toks), max_age=60 * 60 * 24 * 365, httponly=True, samesite="lax",
                        secure=secure_cookie(request), path="/")


def view(hub: Hub, room, tokens: Sequence[seat_tokens.Credential]) -> dict:
    snap = {**hub.snapshot(room), **hub.clock_view(room)}
    snap["my_seats"] = hub.seats_for(room, tokens)
    return snap


def invite_links(request: Request, room, invites: dict[int, str]) -> dict[str, str]:
    """Invite links carry the token in the URL's fragment: browsers never send it to a server (no logs, no Referer)."""
    base = str(request.base_url).rstrip("/")
    return {str(i): f"{base}/game/{room.id}#seat={i}&token={tok}" for i, tok in invites.items()}


GAME = (400, 404)          # any request about one game: a malformed id, or no such game
POST = (400, 403, 413)     # any state-changing request: malformed or too large body, cross-site


@router.get("/meta", summary="The games: variants, player counts, seat names", response_model=dict[str, GameMeta])
async def get_meta():
    from .. import GAMES, load_game

    out = {}
    for name in GAMES:
        try:
            cls = __import__("ringgames", fromlist=["game_class"]).game_class(name)
        except ImportError:
            continue
        lo, hi = cls.player_range
        seats = {str(n): list(load_game(name, None, n).seat_names) for n in range(lo, hi + 1)}
        out[name] = {"title": cls.title, "variants": list(cls.variants), "players": [lo, hi], "seat_names": seats}
    return out


@router.get("/games", summary="List games, most recently changed first", description="status: open (a seat anyone may take; games waiting for an invited friend are not listed), live, finished, archived, aborted (a first move did not come in time)",
            response_model=GameList, responses=errors(400))
async def list_games(request: Request, status: Literal["open", "live", "finished", "archived", "aborted"] | None = None,
                     limit: Annotated[int, Query(ge=1, le=500)] = 100):
    return {"games": await asyncio.to_thread(hub_of(request).list_games, status, limit)}


@router.post("/games", status_code=201, summary="Create a game", response_model=CreatedGame,
             description="Answers the seat tokens of the 'me' seats (and sets them in the game's cookie) and one single-use "
                         "invite link per 'invite' seat. A computer-only game (every seat a computer) answers a `creator_token` "
                         "instead, which stops it (`POST /api/games/{id}/resign` with it in `X-Seat-Token`: a draw, reason "
                         "`stopped`); 429 too_many_computer_games over the limits of such games.",
             responses=errors(*POST, 401, 422, 429))
async def create_game(body: CreateGame, request: Request, response: Response):
    hub = hub_of(request)
    creator = seat_tokens.new_token() if all(s.kind == "computer" for s in body.seats) else None
    room, mine, invites = await hub.create(body.game, body.variant, body.players, [s.model_dump() for s in body.seats],
                                           body.setup, body.time_control(), client=client_of(request.scope), creator=creator,
                                           account=await account_of(request), rated=body.rated)
    remember(response, request, room.id, list(mine.values()) + ([creator] if creator else []))
    out = view(hub, room, list(mine.values()))
    out["tokens"] = {str(k): v for k, v in mine.items()}
    out["invites"] = invite_links(request, room, invites)
    out["creator_token"] = creator
    return out


@router.get("/games/{gid}", summary="Game state, legal actions and moves", response_model=GameView, responses=errors(*GAME))
async def get_game(gid: GameId, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    room = await hub.fresh_room(gid)  # several processes: with every committed move, whichever process made it
    return view(hub, room, await credentials(request, gid))


@router.get("/games/{gid}/legal", summary="Legal actions for the player to move", response_model=LegalView, responses=errors(*GAME))
async def get_legal(gid: GameId, request: Request):
    snap = hub_of(request).snapshot(await hub_of(request).room(gid))
    return {"ply": snap["ply"], "to_move": snap["to_move"], "legal": snap["legal"]}


@router.post("/games/{gid}/actions", summary="Play an action for the seat to move", response_model=GameView,
             description="403 not_your_turn: the request's tokens do not hold the seat to move; 409 stale_ply: the game is "
                         "not at `ply` (the answer says where it is), game_over; 422 illegal_action (with the legal actions).",
             responses=errors(*GAME, *POST, 409, 422, 429))
async def play_action(gid: GameId, body: ActionIn, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    toks = await credentials(request, gid)
    room = await hub.act(gid, body.action, toks, body.ply)
    return view(hub, room, toks)


@router.post("/games/{gid}/join", summary="Take a seat (with its single-use invite token, or an open seat)", response_model=JoinedGame,
             description="The answer holds a fresh seat token (also set in the game's cookie); the invite token is used up. "
                         "A logged-in player sits as their account (a rated game needs one: 401 login_required).",
             responses=errors(*GAME, *POST, 401, 409, 422))
async def join_game(gid: GameId, body: JoinIn, request: Request, response: Response):
    hub = hub_of(request)
    room, tok = await hub.join(gid, body.seat, body.name, body.token, account=await account_of(request))
    remember(response, request, gid, [tok])
    out = view(hub, room, await credentials(request, gid) + [tok])
    out["token"] = tok
    return out


@router.post("/games/{gid}/invite", summary="A new invite link for a seat still waiting (the old link stops working)",
             response_model=InviteLink, description="For players of the game: invite links are shown once (only their hash is "
                                                     "kept), so a lost one is replaced, not shown again.",
             responses=errors(*GAME, *POST, 409, 422))
async def new_invite(gid: GameId, body: InviteIn, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    invite = await hub.reinvite(gid, body.seat, await credentials(request, gid))
    return {"seat": body.seat, "invite": invite_links(request, await hub.room(gid), {body.seat: invite})[str(body.seat)]}


@router.post("/games/{gid}/resign", summary="Resign (the seat to move if you hold it, else your seat)", response_model=GameView,
             description="With a computer-only game's creator token: stops that game (a draw, reason `stopped`).",
             responses=errors(*GAME, *POST, 409))
async def resign(gid: GameId, body: ResignIn, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    toks = await credentials(request, gid)
    return view(hub, await hub.resign(gid, toks, body.seat), toks)


@router.post("/games/{gid}/computer/retry", summary="Ask the computer to try its failed move again", response_model=GameView,
             description="After `computer_failed` (the computer's move failed twice: its process died or its agent failed), "
                         "for the game's players (and a computer-only game's creator token). 409 no_computer_failure: "
                         "no computer move of this game failed.",
             responses=errors(*GAME, *POST, 409))
async def retry_computer(gid: GameId, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    toks = await credentials(request, gid)
    return view(hub, await hub.retry_computer(gid, toks), toks)


@router.post("/games/{gid}/draw", summary="Offer, accept or decline a draw", response_model=GameView, responses=errors(*GAME, *POST, 409))
async def draw(gid: GameId, body: DrawIn, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    toks = await credentials(request, gid)
    return view(hub, await hub.draw(gid, toks, body.what), toks)


@router.post("/games/{gid}/takeback", summary="Ask for, accept or decline a takeback of the asker's last turn", response_model=GameView,
             description="The last turn of the asking seat, and whatever was played after it, is undone once every other human "
                         "seat still playing accepts (at once against the computer, except in a rated game: 409 takeback_rated); clocks are "
                         "restored from the stored times. "
                         "409 no_takeback: nothing to take back (or no request to answer); takeback_pending: one is asked for already.",
             responses=errors(*GAME, *POST, 409))
async def takeback(gid: GameId, body: TakebackIn, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    toks = await credentials(request, gid)
    return view(hub, await hub.takeback(gid, toks, body.what), toks)


@router.post("/games/{gid}/claim", summary="Claim the game against the seat to move, which stays away", response_model=GameView,
             description="In a game without a clock, once the seat to move has made no move for `claim_after_seconds` (a day; "
                         "`claim_in` in the state says how long is left), another player may end the game: the absent seat "
                         "is treated as resigned (reason abandoned). 409 not_claimable: too early, or a clock decides.",
             responses=errors(*GAME, *POST, 409))
async def claim(gid: GameId, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    toks = await credentials(request, gid)
    return view(hub, await hub.claim(gid, toks), toks)


@router.post("/games/{gid}/chat", summary="Say something in the game's chat", response_model=Ok, responses=errors(*GAME, *POST, 422, 429))
async def post_chat(gid: GameId, body: ChatIn, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    await hub.chat(gid, await credentials(request, gid), body.text, body.name)
    return {"ok": True}


@router.get("/games/{gid}/chat", summary="The game's chat", response_model=ChatView, responses=errors(*GAME))
async def get_chat(gid: GameId, request: Request):
    return {"chat": (await hub_of(request).room(gid)).chat}


@router.post("/games/{gid}/rematch", status_code=201, summary="Play again: same game, players and time control; colours swap",
             description="Only players may ask, once the game is over (409 game_not_over before). The new game has the "
                         "same game, variant, players, time control and rated flag; the seats rotate by one: whoever held "
                         "seat i now plays seat i+1 (the last seat's player plays seat 0), computers too, so in a "
                         "two-player game the colours swap. The first asker gets their seats, the others' seats wait "
                         "for them (no invite link), and each of them gets their seats by asking here with their seat "
                         "token of the old game (or as the account that held it).",
             response_model=CreatedGame, responses=errors(*GAME, *POST, 409, 429))
async def rematch(gid: GameId, request: Request, response: Response, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    old = await hub.room(gid)
    mine = hub.seats_for(old, await credentials(request, gid))
    if not mine:
        raise ApiError(403, "not_your_seat", "only players can ask for another game")
    if not old.over:
        raise ApiError(409, "game_not_over", "the game is still being played")
    invites: dict[int, str] = {}
    account = await account_of(request)
    async with old.lock:  # one new game per finished game: whoever asks second gets their seats in the first one's game
        nxt = old.row.tags.get("rematch")
        if nxt is None:
            # the player of old seat i plays seat (i + 1) mod n: the asker's seats are theirs now, the other players'
            # seats wait for them (kept by the hash of their seat token in this game or their account, no invite link)
            n = len(old.row.seats)
            seats: list[dict] = [{} for _ in range(n)]
            for i, s in enumerate(old.row.seats):
                if s["kind"] == "computer":  # (a computer-only game has no players, so no rematch)
                    spec: dict = {"kind": "computer", "level": s.get("level") or 0}
                elif i in mine:
                    spec = {"kind": "me", "name": s["name"], "reserved_hash": s.get("token_hash")}
                elif s.get("token_hash") or s.get("account") is not None:
                    spec = {"kind": "reserved", "name": s["name"], "reserved_hash": s.get("token_hash"),
                            "reserved_account": s.get("account")}
                else:  # nobody ever took it: waiting for a player as before
                    spec = {"kind": "open" if s.get("open") else "invite"}
                seats[(i + 1) % n] = spec
            room, toks, invites = await hub.create(old.row.game, old.row.variant, old.row.players, seats, old.row.tags.get("setup"),
                                                   old.row.time_control, account=account, rated=old.row.rated and account is not None)
            old.row.tags = {**old.row.tags, "rematch": room.id}
            await asyncio.to_thread(hub._save_row, old.row)
        else:
            room, toks = await hub.room(nxt), {}
    if nxt is None:
        await hub.broadcast(old)  # the other players' pages offer to join the new game
    else:  # the seats this player held in the old game are theirs in the new one (proved by the old seat tokens)
        room, toks = await hub.reclaim(room.id, {i: old.row.seats[i].get("token_hash") for i in mine}, account)
    remember(response, request, room.id, list(toks.values()))
    out = view(hub, room, list(toks.values()) + await credentials(request, room.id))
    out["tokens"] = {str(k): v for k, v in toks.items()}
    out["invites"] = invite_links(request, room, invites)
    return out


@router.get("/games/{gid}/positions", summary="Position, seat to move and summary after every ply (for replay)", response_model=Positions,
            responses=errors(*GAME))
async def get_positions(gid: GameId, request: Request):
    return await hub_of(request).positions(gid)


@router.get("/games/{gid}/record", response_class=PlainTextResponse, summary="The game as an .rgn record",
            responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}, "description": "the .rgn record"},
                       **errors(*GAME, media_type="application/json")})
async def get_record(gid: GameId, request: Request):
    from ..records import Record

    hub = hub_of(request)
    room = await hub.room(gid)
    tags = {room.state.game.seat_names[i].capitalize(): s["name"] for i, s in enumerate(room.row.seats)}
    # an imported record's own tags (Event, Site, Round, custom ones; its seat names as written) go back out;
    # the site's internal tags do not
    tags.update({k: str(v) for k, v in room.row.tags.items() if k not in INTERNAL_TAGS})
    tc = clk.TimeControl.from_json(room.row.time_control)
    if tc is not None:
        tags["TimeControl"] = tc.label
    rec = Record.from_state(room.state, tags, room.times if tc is not None else None)
    reason = hub.snapshot(room)["reason"]
    if reason in ("time", "aborted", "abandoned", "disconnected"):  # the protocol knows these as a resignation / an unfinished game
        rec.tags["Termination"] = reason
    return rec.dumps()


@router.post("/import", summary="Import game records (boardspace YINSH, .rgn); each file is reported separately",
             response_model=ImportReport, responses=errors(*POST, 429))
async def import_files(request: Request, files: Annotated[list[UploadFile], File(description="record files")] = []):  # noqa: B006
    settings = request.app.state.limits  # size, files and games per upload: over any of them, nothing is imported (413)
    results = await hub_of(request).import_upload(await read_uploads(files, settings), settings.upload_games)
    dup = sum(bool(r.get("duplicate")) for r in results)
    return {"results": results, "imported": sum(r["ok"] for r in results), "failed": sum(not r["ok"] for r in results) - dup,
            "duplicates": dup}


# -- accounts ------------------------------------------------------------------------------------------------------

GAME_COOKIE = re.compile(r"rg_([0-9A-Za-z_-]{1,32})")


def start_session(response: Response, request: Request, cookie: str) -> None:
    """The session cookie: signed, HttpOnly, SameSite=Lax, Secure over HTTPS (as the seat cookies)."""
    response.set_cookie(SESSION_COOKIE, cookie, max_age=60 * 60 * 24 * SESSION_DAYS, httponly=True, samesite="lax",
                        secure=secure_cookie(request), path="/")


async def start_account_session(request: Request, response: Response, account: Account) -> dict:
    """A new session for ``account``, the guest's seats carried over to it; the account's view."""
    hub = hub_of(request)
    old = request.cookies.get(SESSION_COOKIE)
    if old:  # a browser has one session: the one it had (maybe another account's) ends
        await asyncio.to_thread(hub.accounts.end_session, old)
    cookie = await asyncio.to_thread(hub.accounts.new_session, account)
    start_session(response, request, cookie)
    guest = {m.group(1): seat_tokens.split_tokens(v) for k, v in request.cookies.items()
             if k != SESSION_COOKIE and (m := GAME_COOKIE.fullmatch(k))}
    await hub.carry_over(account, {g: t for g, t in guest.items() if t})
    request.state.account = account
    return await asyncio.to_thread(account_view, hub, account)


def rating_view(r: RatingRow) -> dict:
    return {"rating": r.mu, "deviation": r.sigma, "games": r.games, "provisional": ratings.provisional(r.games, r.sigma)}


def account_view(hub: Hub, account: Account) -> dict:
    with hub.Session() as s:
        rows = list(s.scalars(select(RatingRow).where(RatingRow.account_id == account.id)))
    return {"username": account.username, "created": account.created.isoformat(),
            "ratings": {r.key: rating_view(r) for r in sorted(rows, key=lambda r: ratings.KEYS.index(r.key))}}


#: the player page's game list looks at the account's most recent games, at most this many
MAX_PROFILE_GAMES = 2000
PER_PAGE = 20


def outcome_for(game: str, variant: str, players: int, result: str, status: str, seats: list[int]) -> str:
    """``win``, ``loss``, ``draw`` (for the account holding ``seats``), or ``""`` while the game is not finished."""
    if status != "finished":
        return ""
    if result == "draw":
        return "draw"
    from .. import load_game

    names = load_game(game, variant, players).seat_names
    won = set(result.split("+"))
    return "win" if any(names[i] in won for i in seats if i < len(names)) else "loss"


def player_view(hub: Hub, account: Account, game: str | None = None, result: str | None = None, opponent: str | None = None,
                page: int = 1) -> dict:
    """The profile, with the game list filtered (game key, the account's result, an opponent's name) and paged."""
    out = account_view(hub, account)
    with hub.Session() as s:
        games = s.execute(select(GameRow, GamePlayerRow.seat).join(GamePlayerRow, GamePlayerRow.game_id == GameRow.id)
                          .where(GamePlayerRow.account_id == account.id).order_by(GameRow.updated.desc(), GamePlayerRow.seat)
                          .limit(MAX_PROFILE_GAMES)).all()
        history = list(s.scalars(select(RatingHistoryRow).where(RatingHistoryRow.account_id == account.id)
                                 .order_by(RatingHistoryRow.id.desc()).limit(500)))
    listed: dict[str, dict] = {}  # a game once, with every seat the account has in it (hot-seat games: several)
    for g, seat in games:
        if g.id in listed:
            listed[g.id]["seats"].append(seat)
            continue
        listed[g.id] = {"id": g.id, "game": g.game, "variant": g.variant, "players": g.players, "seats": [seat],
                        "status": g.status, "result": g.result, "rated": bool(g.rated),
                        "updated": g.updated.isoformat() if g.updated else None, "names": [x.get("name", "") for x in g.seats]}
    chosen = []
    for item in listed.values():
        item["outcome"] = outcome_for(item["game"], item["variant"], item["players"], item["result"], item["status"], item["seats"])
        if game and ratings.rating_key(item["game"], item["variant"]) != game:
            continue
        if result and item["outcome"] != result:
            continue
        if opponent and not any(opponent.lower() in n.lower() for i, n in enumerate(item["names"])
                                if i not in item["seats"]):
            continue
        chosen.append(item)
    pages = max(1, -(-len(chosen) // PER_PAGE))
    out["games"] = chosen[(page - 1) * PER_PAGE: page * PER_PAGE]
    out["page"], out["pages"], out["total"] = page, pages, len(chosen)
    out["history"] = [{"key": h.key, "game_id": h.game_id, "rating": h.mu, "deviation": h.sigma, "before": h.mu_before,
                       "at": h.created.isoformat()} for h in reversed(history)]
    return out


@router.post("/account", status_code=201, summary="Sign up: a new account, logged in at once", response_model=AccountView,
             description="Usernames: 3–20 letters, digits, '_' or '-', unique ignoring case (409 username_taken; 422 "
                         "bad_username). Passwords: at least 8 characters, not the username, not a most common one (422 "
                         "weak_password). Sets the session cookie; the seats this browser holds as a guest become the account's.",
             responses=errors(*POST, 409, 422, 429))
async def sign_up(body: Credentials, request: Request, response: Response):
    account = await asyncio.to_thread(hub_of(request).accounts.sign_up, body.username, body.password)
    return await start_account_session(request, response, account)


@router.post("/session", summary="Log in (sets the session cookie)", response_model=AccountView,
             description="401 bad_credentials for a wrong username or password (the same answer for both). Repeated "
                         "failures for one username or from one address are answered 429 with Retry-After for a while, "
                         "whatever the password. The seats this browser holds as a guest become the account's.",
             responses=errors(*POST, 401, 429))
async def log_in(body: Credentials, request: Request, response: Response):
    rates = request.app.state.rates
    user, address = body.username.lower(), client_of(request.scope)
    await rates.refuse_if_full("login_user", user)
    await rates.refuse_if_full("login_address", address)
    account = await asyncio.to_thread(hub_of(request).accounts.authenticate, body.username, body.password)
    if account is None:
        await rates.strike("login_user", user)
        await rates.strike("login_address", address)
        raise ApiError(401, "bad_credentials", "wrong username or password")
    return await start_account_session(request, response, account)


@router.delete("/session", summary="Log out (ends the session, removes the cookie)", response_model=Ok, responses=errors(403))
async def log_out(request: Request, response: Response):
    await asyncio.to_thread(hub_of(request).accounts.end_session, request.cookies.get(SESSION_COOKIE))
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=secure_cookie(request))
    return {"ok": True}


@router.get("/me", summary="The logged-in account and its ratings", response_model=AccountView, responses=errors(401))
async def get_me(request: Request):
    account = await account_of(request)
    if account is None:
        raise ApiError(401, "not_logged_in", "not logged in")
    return await asyncio.to_thread(account_view, hub_of(request), account)


def my_games(hub: Hub, account: Account, limit: int = 300) -> dict:
    """The account's games: awaiting its move first, then its other live games, then recent finished ones."""
    with hub.Session() as s:
        rows = s.execute(select(GameRow, GamePlayerRow.seat).join(GamePlayerRow, GamePlayerRow.game_id == GameRow.id)
                         .where(GamePlayerRow.account_id == account.id).order_by(GameRow.updated.desc(), GamePlayerRow.seat)
                         .limit(limit)).all()
    games: dict[str, dict] = {}
    for g, seat in rows:
        if g.id in games:
            games[g.id]["seats"].append(seat)
            continue
        games[g.id] = {"id": g.id, "game": g.game, "variant": g.variant, "players": g.players, "seats": [seat], "status": g.status,
                       "result": g.result, "rated": bool(g.rated), "updated": g.updated.isoformat() if g.updated else None,
                       "names": [x.get("name", "") for x in g.seats], "to_move": g.to_move}
    out: dict[str, list] = {"my_turn": [], "live": [], "finished": []}
    for item in games.values():
        if item["status"] == "live" and item["to_move"] in item["seats"]:
            out["my_turn"].append(item)
        elif item["status"] in ("live", "open"):
            out["live"].append(item)
        elif len(out["finished"]) < 20:
            out["finished"].append(item)
    return out


def my_turn_count(hub: Hub, account: Account) -> int:
    """How many live games await a move of the account (for every page's header)."""
    with hub.Session() as s:
        return s.scalar(select(func.count()).select_from(GamePlayerRow).join(GameRow, GameRow.id == GamePlayerRow.game_id)
                        .where(GamePlayerRow.account_id == account.id, GameRow.status == "live",
                               GameRow.to_move == GamePlayerRow.seat)) or 0


@router.get("/me/games", summary="My games: awaiting my move, my other live games, recent finished ones", response_model=MyGames,
            responses=errors(401))
async def get_my_games(request: Request):
    account = await account_of(request)
    if account is None:
        raise ApiError(401, "not_logged_in", "not logged in")
    return await asyncio.to_thread(my_games, hub_of(request), account)


@router.post("/me/password", summary="Change the password (the account's other sessions end)", response_model=Ok,
             description="401 not_logged_in, or bad_credentials when `password` is not the current one (counted like a "
                         "failed login: 429 after too many); 422 weak_password.",
             responses=errors(*POST, 401, 422, 429))
async def change_password(body: NewPassword, request: Request):
    account = await account_of(request)
    if account is None:
        raise ApiError(401, "not_logged_in", "not logged in")
    rates = request.app.state.rates
    user = account.username.lower()
    await rates.refuse_if_full("login_user", user)
    try:
        await asyncio.to_thread(hub_of(request).accounts.change_password, account, body.password, body.new_password,
                                request.cookies.get(SESSION_COOKIE))
    except ApiError as exc:
        if exc.code == "bad_credentials":
            await rates.strike("login_user", user)
        raise
    return {"ok": True}


Username = Annotated[str, Path(max_length=64, description="the player's username (any case)")]
RatingKey = Annotated[str, Path(max_length=32, description="yinsh, yinsh-blitz, gyges, gyges-beginner or rings")]


@router.get("/players/{username}", summary="A player's profile: ratings, rating history, recent games", response_model=PlayerView,
            responses=errors(400, 404))
async def get_player(username: Username, request: Request,
                     game: Annotated[Literal["yinsh", "yinsh-blitz", "gyges", "gyges-beginner", "rings"] | None,
                                     Query(description="only games of this game and variant")] = None,
                     result: Annotated[Literal["win", "loss", "draw"] | None, Query(description="only the player's wins, losses or draws")] = None,
                     opponent: Annotated[str | None, Query(max_length=40, description="only games with a player whose name contains this")] = None,
                     page: Annotated[int, Query(ge=1, le=1000, description=f"the page of the game list ({PER_PAGE} games a page)")] = 1):
    hub = hub_of(request)
    account = await asyncio.to_thread(hub.accounts.by_name, username)
    if account is None:
        raise ApiError(404, "unknown_player", "there is no player of that name")
    return await asyncio.to_thread(player_view, hub, account, game, result, opponent, page)


@router.get("/leaderboard/{game}", summary="The best-rated players of a game and variant", response_model=Leaderboard,
            description="`game`: yinsh, yinsh-blitz, gyges, gyges-beginner or rings. Also the computer levels' fixed ratings.",
            responses=errors(400, 404))
async def get_leaderboard(game: RatingKey, request: Request, limit: Annotated[int, Query(ge=1, le=200)] = 50):
    if game not in ratings.KEYS:
        raise ApiError(404, "unknown_game", f"no rating list {clip(game)}: use one of {', '.join(ratings.KEYS)}")

    def top() -> list[dict]:
        with hub_of(request).Session() as s:
            rows = s.execute(select(RatingRow, AccountRow.username).join(AccountRow, AccountRow.id == RatingRow.account_id)
                             .where(RatingRow.key == game).order_by(RatingRow.mu.desc()).limit(limit)).all()
        return [{"username": name, **rating_view(r)} for r, name in rows]

    computers = [{"level": i, "rating": ratings.computer_rating(game, i)} for i in range(len(ratings.COMPUTER_RATINGS[game.split("-")[0]]))]
    return {"key": game, "players": await asyncio.to_thread(top), "computers": computers}


# -- seeks -------------------------------------------------------------------------------------------------------------

Rating = Annotated[int, Field(ge=0, le=5000), BeforeValidator(_whole)]
SeekId = Annotated[str, Path(pattern=r"^[0-9A-Za-z_-]{1,32}$", description="the seek's id")]


class SeekIn(BaseModel):
    model_config = STRICT

    game: str = Field(..., max_length=32, description="yinsh, gyges or rings")
    variant: str | None = Field(None, max_length=32)
    players: PlayerCount | None = Field(None, description="RINGS: 2–6")
    rated: bool = False
    rating_min: Rating | None = Field(None, description="only players rated at least this may accept")
    rating_max: Rating | None = Field(None, description="only players rated at most this may accept")
    quick: bool = Field(False, description="quick pairing: accept the oldest compatible seek if there is one, else post this one")


async def logged_in(request: Request) -> Account:
    account = await account_of(request)
    if account is None:
        raise ApiError(401, "login_required", "log in to post or accept a seek")
    return account


async def start_if_filled(request: Request, seek: dict, filled) -> dict:
    """When a seek's seats are all taken: the game starts, each seat held by its account. The lobbies are told
    (``lobby.py``): a seat taken, or the game started (its players' lobby pages open it)."""
    hub = hub_of(request)
    if filled is None:
        await hub.lobby.changed()
        return {"seek": seek, "game_id": None}
    accounts = await asyncio.to_thread(hub.seeks.accounts_of, filled.accounts)
    room, _, _ = await hub.create(filled.game, filled.variant, filled.players, [{"kind": "account", "account": a} for a in accounts],
                                  None, account=accounts[0], rated=filled.rated)
    started = await asyncio.to_thread(hub.seeks.started, filled.seek_id, room.id)
    await hub.lobby.changed({"seek": filled.seek_id, "game_id": room.id, "accounts": filled.accounts})
    return {"seek": started, "game_id": room.id}


@router.post("/seeks", status_code=201, summary="Post a seek (or, with quick, pair with a compatible one)", response_model=SeekAnswer,
             description="Up to 3 open seeks per player (409 too_many_seeks beyond), of different kinds: a seek of the "
                         "same game, variant, players and rated/casual as one of the player's open seeks replaces it. It "
                         "lasts 90 s unless the owner keeps it alive (POST /api/seeks/{sid}/keep, as the lobby does "
                         "every 30 s).",
             responses=errors(*POST, 401, 409, 422, 429))
async def post_seek(body: SeekIn, request: Request):
    account = await logged_in(request)
    hub = hub_of(request)
    args = (account, body.game, body.variant, body.players, body.rated, body.rating_min, body.rating_max)
    if body.quick:
        found = await asyncio.to_thread(hub.seeks.quick, *args)
        if found is not None:
            try:
                seek, filled = await asyncio.to_thread(hub.seeks.accept, account, found)
                return await start_if_filled(request, seek, filled)
            except ApiError:  # taken at the same moment: post ours instead
                pass
    seek = await asyncio.to_thread(hub.seeks.post, *args)
    await hub.lobby.changed()  # pushed to the lobby sockets of every process
    return {"seek": seek, "game_id": None}


@router.get("/seeks", summary="The open seeks, oldest first", response_model=SeekList)
async def list_seeks(request: Request):
    return {"seeks": await asyncio.to_thread(hub_of(request).seeks.listed)}


@router.post("/seeks/{sid}/accept", summary="Accept a seek (take a seat; the game starts when all are taken)",
             response_model=SeekAnswer, responses=errors(*POST, 401, 404, 409, 429))
async def accept_seek(sid: SeekId, request: Request):
    account = await logged_in(request)
    seek, filled = await asyncio.to_thread(hub_of(request).seeks.accept, account, sid)
    return await start_if_filled(request, seek, filled)


@router.get("/seeks/{sid}", summary="A seek (with the game id once its seats are taken)", response_model=SeekView,
            responses=errors(400, 404))
async def get_seek(sid: SeekId, request: Request):
    return await asyncio.to_thread(hub_of(request).seeks.get, sid)


@router.post("/seeks/{sid}/keep", summary="Keep my seek alive (the lobby asks every 30 s)", response_model=SeekView,
             responses=errors(*POST, 401, 404))
async def keep_seek(sid: SeekId, request: Request):
    return await asyncio.to_thread(hub_of(request).seeks.keep, await logged_in(request), sid)


@router.delete("/seeks/{sid}", summary="Withdraw my seek", response_model=Ok, responses=errors(400, 401, 403, 404))
async def withdraw_seek(sid: SeekId, request: Request):
    await asyncio.to_thread(hub_of(request).seeks.withdraw, await logged_in(request), sid)
    await hub_of(request).lobby.changed()
    return {"ok": True}
@router.post("/games/{gid}/analysis", summary="Analyse this game: an evaluation after every ply, in the background",
             response_model=GameAnalysis, description="Starts the analysis (unless it runs or is done for the game as it "
                                                      "stands) and answers its state; poll the GET. 429 analysis_busy: "
                                                      "other games are being analysed.",
             responses=errors(*GAME, *POST, 429))
async def start_game_analysis(gid: GameId, request: Request):
    return await hub_of(request).start_game_analysis(gid)


@router.get("/games/{gid}/analysis", summary="The state of the game's analysis (evaluations so far, mistakes)",
            response_model=GameAnalysis, responses=errors(*GAME))
async def get_game_analysis(gid: GameId, request: Request):
    hub = hub_of(request)
    await hub.room(gid)  # 404 for an unknown game
    return hub.game_analysis(gid)


@router.post("/analysis", summary="Analyse a position: evaluation per seat, best line, alternatives", response_model=AnalysisView,
             description=f"The position is `position` (default: the start) after `moves`. Two-player games are searched "
                         f"with alpha-beta (`depth`), RINGS with MCTS (`iterations`); at most {MAX_ANALYSIS_SECONDS:g} s. "
                         "Analyses run one at a time in their own worker, never ahead of live games' computer moves. "
                         "422 bad_position / illegal_action / game_over / unknown_game: what is wrong with the position "
                         "or which move; 429 analysis_busy: other analyses are waiting.",
             responses=errors(*POST, 422, 429))
async def analyse_position(body: AnalysisIn, request: Request):
    from .. import load_game
    from ..protocol import RingGamesError

    try:
        g = load_game(body.game.lower(), body.variant, body.players)
    except (ValueError, ImportError) as exc:
        raise ApiError(422, "unknown_game", str(exc)) from None
    try:
        state = g.state_from_position(body.position) if body.position else g.new_initial_state()
    except (RingGamesError, ValueError) as exc:
        raise ApiError(422, "bad_position", f"position: {exc}") from None
    for i, m in enumerate(body.moves):
        try:
            state.play(m)
        except (RingGamesError, ValueError) as exc:
            raise ApiError(422, "illegal_action", f"moves[{i}] ({clip(m, 20)}): {exc}") from None
    if state.is_terminal():
        raise ApiError(422, "game_over", "the game is over in this position: nothing to analyse")
    out = await hub_of(request).analyse(state.serialize(), body.seconds, body.depth, body.iterations)
    return {"game": g.name, "variant": getattr(g, "variant", None), "players": g.num_players, "position": state.position(),
            "seat_names": list(g.seat_names), **out}
