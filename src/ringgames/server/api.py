"""The JSON HTTP API (OpenAPI at ``/docs`` and ``/openapi.json``).

Seat tokens travel in the game's cookie (``rg_<game id>``, set by the answers that give a seat) or in the
``X-Seat-Token`` header (several tokens dot-separated), never in a URL. Every state-changing request is refused
when it comes from another site (:mod:`.security`). Request bodies are strict: no unknown fields, no ``true``
for a number, bounded lengths.
"""

from __future__ import annotations

import asyncio
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
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from . import seats as seat_tokens
from .errors import ApiError, clip
from .limits import MAX_SEATS, read_uploads
from .security import same_site_only, secure_cookie
from .service import Hub
from .views import (
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
    LegalView,
    Ok,
    Positions,
    errors,
)


def operation_id(route: APIRoute) -> str:
    """OpenAPI operation ids are the route functions' names (create_game, play_action, ...)."""
    return route.name


router = APIRouter(prefix="/api", dependencies=[Depends(same_site_only)], generate_unique_id_function=operation_id)

COOKIE = "rg_{}"
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
    model_config = STRICT

    kind: Literal["me", "invite", "open", "computer"] = Field("me", description="who plays the seat: me (this client), "
                                                              "invite (whoever gets the single-use invite link), open (anyone), computer")
    name: str | None = Field(None, max_length=200, description="player name (for 'me')")
    level: Level | None = Field(None, description="computer level: 0 random, 1 (beginner) to 5 (strongest)")


class CreateGame(BaseModel):
    model_config = STRICT

    game: str = Field(..., max_length=32, description="yinsh, gyges or rings")
    variant: str | None = Field(None, max_length=32, description="YINSH: standard|blitz; Gygès: standard|beginner")
    players: PlayerCount | None = Field(None, description="RINGS: 2–6")
    seats: list[SeatSpec] = Field(..., min_length=1, max_length=MAX_SEATS,
                                  description=f"one per player, in seat order (at most {MAX_SEATS})")
    setup: Literal["free", "preset", "random"] | None = Field(None, description="Gygès setup mode")

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
MAX_ANALYSIS_ITERATIONS = 20_000


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


class ChatIn(BaseModel):
    model_config = STRICT

    text: str = Field(..., max_length=2000)
    name: str | None = Field(None, max_length=200, description="a spectator's name (players speak as their seat)")


def hub_of(request: Request) -> Hub:
    return request.app.state.hub


def tokens_of(request: Request, gid: str) -> list[str]:
    """The seat tokens a request carries: the ``X-Seat-Token`` header and the game's cookie (never the URL)."""
    toks = seat_tokens.split_tokens(request.headers.get("x-seat-token"))
    toks += seat_tokens.split_tokens(request.cookies.get(COOKIE.format(gid)))
    return toks[:seat_tokens.MAX_TOKENS]


def remember(response: Response, request: Request, gid: str, new: list[str]) -> None:
    """Add seat tokens to the game's cookie (the browser keeps the seats it holds): HttpOnly, SameSite=Lax, and
    Secure when the site is served over HTTPS."""
    old = seat_tokens.split_tokens(request.cookies.get(COOKIE.format(gid)))
    toks = list(dict.fromkeys([t for t in new if t] + old))[:seat_tokens.MAX_TOKENS]
    response.set_cookie(COOKIE.format(gid), ".".join(toks), max_age=60 * 60 * 24 * 365, httponly=True, samesite="lax",
                        secure=secure_cookie(request), path="/")


def view(hub: Hub, room, tokens: list[str]) -> dict:
    snap = hub.snapshot(room)
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


@router.get("/games", summary="List games, most recently changed first", description="status: open (a seat anyone may take; games waiting for an invited friend are not listed), live, finished, archived",
            response_model=GameList, responses=errors(400))
async def list_games(request: Request, status: Literal["open", "live", "finished", "archived"] | None = None,
                     limit: Annotated[int, Query(ge=1, le=500)] = 100):
    return {"games": await asyncio.to_thread(hub_of(request).list_games, status, limit)}


@router.post("/games", status_code=201, summary="Create a game", response_model=CreatedGame,
             description="Answers the seat tokens of the 'me' seats (and sets them in the game's cookie) and one single-use "
                         "invite link per 'invite' seat.",
             responses=errors(*POST, 422, 429))
async def create_game(body: CreateGame, request: Request, response: Response):
    hub = hub_of(request)
    room, mine, invites = await hub.create(body.game, body.variant, body.players, [s.model_dump() for s in body.seats], body.setup)
    remember(response, request, room.id, list(mine.values()))
    out = view(hub, room, list(mine.values()))
    out["tokens"] = {str(k): v for k, v in mine.items()}
    out["invites"] = invite_links(request, room, invites)
    return out


@router.get("/games/{gid}", summary="Game state, legal actions and moves", response_model=GameView, responses=errors(*GAME))
async def get_game(gid: GameId, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    room = await hub.room(gid)
    return view(hub, room, tokens_of(request, gid))


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
    toks = tokens_of(request, gid)
    room = await hub.act(gid, body.action, toks, body.ply)
    return view(hub, room, toks)


@router.post("/games/{gid}/join", summary="Take a seat (with its single-use invite token, or an open seat)", response_model=JoinedGame,
             description="The answer holds a fresh seat token (also set in the game's cookie); the invite token is used up.",
             responses=errors(*GAME, *POST, 409, 422))
async def join_game(gid: GameId, body: JoinIn, request: Request, response: Response):
    hub = hub_of(request)
    room, tok = await hub.join(gid, body.seat, body.name, body.token)
    remember(response, request, gid, [tok])
    out = view(hub, room, tokens_of(request, gid) + [tok])
    out["token"] = tok
    return out


@router.post("/games/{gid}/invite", summary="A new invite link for a seat still waiting (the old link stops working)",
             response_model=InviteLink, description="For players of the game: invite links are shown once (only their hash is "
                                                     "kept), so a lost one is replaced, not shown again.",
             responses=errors(*GAME, *POST, 409, 422))
async def new_invite(gid: GameId, body: InviteIn, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    invite = await hub.reinvite(gid, body.seat, tokens_of(request, gid))
    return {"seat": body.seat, "invite": invite_links(request, await hub.room(gid), {body.seat: invite})[str(body.seat)]}


@router.post("/games/{gid}/resign", summary="Resign (the seat to move if you hold it, else your seat)", response_model=GameView,
             responses=errors(*GAME, *POST, 409))
async def resign(gid: GameId, body: ResignIn, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    toks = tokens_of(request, gid)
    return view(hub, await hub.resign(gid, toks, body.seat), toks)


@router.post("/games/{gid}/draw", summary="Offer, accept or decline a draw", response_model=GameView, responses=errors(*GAME, *POST, 409))
async def draw(gid: GameId, body: DrawIn, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    toks = tokens_of(request, gid)
    return view(hub, await hub.draw(gid, toks, body.what), toks)


@router.post("/games/{gid}/chat", summary="Say something in the game's chat", response_model=Ok, responses=errors(*GAME, *POST, 422, 429))
async def post_chat(gid: GameId, body: ChatIn, request: Request, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    await hub.chat(gid, tokens_of(request, gid), body.text, body.name)
    return {"ok": True}


@router.get("/games/{gid}/chat", summary="The game's chat", response_model=ChatView, responses=errors(*GAME))
async def get_chat(gid: GameId, request: Request):
    return {"chat": (await hub_of(request).room(gid)).chat}


@router.post("/games/{gid}/rematch", status_code=201, summary="Play again: same game and seats, your seats stay yours",
             description="Only players may ask, once the game is over (409 game_not_over before).",
             response_model=CreatedGame, responses=errors(*GAME, *POST, 409, 429))
async def rematch(gid: GameId, request: Request, response: Response, x_seat_token: SeatTokenHeader = None):
    hub = hub_of(request)
    old = await hub.room(gid)
    mine = hub.seats_for(old, tokens_of(request, gid))
    if not mine:
        raise ApiError(403, "not_your_seat", "only players can ask for another game")
    if not old.state.is_terminal():
        raise ApiError(409, "game_not_over", "the game is still being played")
    invites: dict[int, str] = {}
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
            room, toks, invites = await hub.create(old.row.game, old.row.variant, old.row.players, seats, old.row.tags.get("setup"))
            old.row.tags = {**old.row.tags, "rematch": room.id}
            await asyncio.to_thread(hub._save_row, old.row)
        else:
            room, toks = await hub.room(nxt), {}
    if nxt is None:
        await hub.broadcast(old)  # the other players' pages offer to join the new game
    else:  # the seats this browser held in the old game are its seats in the new one, if still free
        for i in mine:
            s = room.row.seats[i]
            if s["kind"] == "human" and not s.get("joined"):
                room, toks[i] = await hub.join(room.id, i, old.row.seats[i]["name"], None, vouched=True)
    remember(response, request, room.id, list(toks.values()))
    out = view(hub, room, list(toks.values()) + tokens_of(request, room.id))
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

    room = await hub_of(request).room(gid)
    tags = {room.state.game.seat_names[i].capitalize(): s["name"] for i, s in enumerate(room.row.seats)}
    return Record.from_state(room.state, tags).dumps()


@router.post("/import", summary="Import game records (boardspace YINSH, .rgn); each file is reported separately",
             response_model=ImportReport, responses=errors(*POST, 429))
async def import_files(request: Request, files: Annotated[list[UploadFile], File(description="record files")] = []):  # noqa: B006
    settings = request.app.state.limits  # size, files and games per upload: over any of them, nothing is imported (413)
    results = await hub_of(request).import_upload(await read_uploads(files, settings), settings.upload_games)
    dup = sum(bool(r.get("duplicate")) for r in results)
    return {"results": results, "imported": sum(r["ok"] for r in results), "failed": sum(not r["ok"] for r in results) - dup,
            "duplicates": dup}


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
