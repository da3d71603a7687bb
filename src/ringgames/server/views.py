"""The JSON shapes the API answers (response models, so that the OpenAPI description says what comes back),
and the error responses each kind of operation can give."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ErrorResponse(BaseModel):
    """Every 4xx answer: a short machine-readable ``error`` code and a readable ``message``; some errors add
    details (``ply`` for a stale ply, ``legal`` for an illegal action, ``to_move`` for a move out of turn)."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [{"error": "stale_ply", "message": "the game is at ply 3, not 2", "ply": 3}]})

    error: str = Field(..., description="a short code: bad_request, cross_site, unknown_game, not_your_turn, stale_ply, illegal_action, ...")
    message: str = Field(..., description="what went wrong, for people")
    ply: int | None = Field(None, description="stale_ply: the ply the game is at")
    legal: list[str] | None = Field(None, description="illegal_action: the legal actions (at most 300)")
    to_move: str | None = Field(None, description="not_your_turn: the seat to move")


class SeatView(BaseModel):
    seat: int
    name: str
    kind: str = Field(..., description="human, computer or record")
    level: int | None = None
    joined: bool
    open: bool = Field(..., description="anyone may take the seat")
    account: bool = Field(False, description="the seat is an account's (its name is the username)")


class MoveView(BaseModel):
    ply: int
    seat: int
    text: str = Field(..., description="the action in the game's notation (resign / draw for those; time: the seat's clock ran out)")
    spent_ms: int | None = Field(None, description="clocked games: how long the seat's clock ran for this action (ms)")
    left_ms: int | None = Field(None, description="clocked games: the seat's clock after it (ms; increment included at a turn's end)")


class TimeControlView(BaseModel):
    initial: float | None = Field(None, description="real time: seconds per seat")
    increment: float | None = Field(None, description="real time: seconds added when a turn ends")
    days: int | None = Field(None, description="correspondence: days per move")
    label: str = Field(..., description="300+3 (seconds) or 3d (days per move)")


class TakebackView(BaseModel):
    seat: int = Field(..., description="the seat that asks to take back its last turn")
    ply: int
    accepted: list[int] = Field(..., description="the seats that agreed so far")


class LastTurn(BaseModel):
    seat: int = Field(..., description="the seat that made the turn")
    ply: int = Field(..., description="the ply of the turn's first move")
    before: str = Field(..., description="the position before the turn")


class ComputerFailedView(BaseModel):
    seat: int = Field(..., description="the computer seat whose move failed")
    ply: int = Field(..., description="the ply it was to play")
    message: str = Field(..., description="what went wrong (its process died, or its agent failed), in English")


class SeatPresenceView(BaseModel):
    connected: bool = Field(..., description="a WebSocket holding this seat is open (in any server process)")
    away_ms: int | None = Field(..., description="not connected: ms since the seat was last seen connected")


class GameView(BaseModel):
    """A game as one client sees it."""

    id: str
    game: str
    title: str
    variant: str
    players: int
    seat_names: list[str]
    seats: list[SeatView]
    status: str = Field(..., description="open, live, finished, archived or aborted")
    source: str = Field(..., description="play or import")
    setup: str | None = None
    tags: dict[str, Any]
    ply: int
    position: str
    to_move: int | None = Field(..., description="the seat to move, null when the game is over")
    legal: list[str]
    moves: list[MoveView]
    result: str
    reason: str | None = Field(..., description="why the game ended (time: a clock ran out)")
    winners: list[int]
    summary: dict[str, Any]
    active: list[int]
    draw_offers: list[int]
    rated: bool = Field(False, description="a rated game: the ratings change when it ends")
    last_turn: LastTurn | None = Field(..., description="the last turn (the trailing moves of one seat), null before the first move")
    takeback: TakebackView | None = Field(None, description="a takeback asked for at this ply, if any")
    computer_failed: ComputerFailedView | None = Field(None, description="the computer's move failed twice (tried once more "
                                                                         "after a failure): the game waits for POST /api/games/{id}/computer/retry")
    time_control: TimeControlView | None = Field(..., description="the game's clock; null: no clock")
    clocks: list[int] | None = Field(..., description="milliseconds left per seat at the moment of the answer")
    clock_running: int | None = Field(..., description="the seat whose clock runs")
    claim_in: int | None = Field(None, description="games without a clock: ms until the other players may claim the game "
                                                    "against the seat to move (0: now); null where claims do not apply")
    presence: list[SeatPresenceView | None] | None = Field(
        None, description="real-time games in play: per seat, whether its player is connected by WebSocket (null: a "
                          "computer, or never connected); null for other games")
    my_seats: list[int] = Field(..., description="the seats the request's tokens (cookie or X-Seat-Token header) hold")


class CreatedGame(GameView):
    tokens: dict[str, str] = Field(..., description="seat number → seat token, for the seats created for this client (also set in the game's cookie)")
    invites: dict[str, str] = Field(..., description="seat number → invite link (single use; shown only here)")
    creator_token: str | None = Field(None, description="computer-only games: the token that stops the game "
                                                        "(POST /api/games/{id}/resign with it in X-Seat-Token); shown only here")


class JoinedGame(GameView):
    token: str = Field(..., description="the new seat token (also set in the game's cookie)")


class InviteLink(BaseModel):
    seat: int
    invite: str = Field(..., description="the new single-use invite link")


class GameMeta(BaseModel):
    title: str
    variants: list[str]
    players: list[int] = Field(..., description="[least, most]")
    seat_names: dict[str, list[str]] = Field(..., description="number of players → seat names")


class SeatSummary(BaseModel):
    name: str
    kind: str
    open: bool


class GameSummary(BaseModel):
    id: str
    game: str
    variant: str
    players: int
    status: str
    source: str
    result: str
    ply: int
    seats: list[SeatSummary]
    updated: str | None
    time_control: str | None = Field(None, description="300+3 or 3d; null: no clock")
    clock_running: int | None = None
    time_left: int | None = Field(None, description="ms left on the running clock")


class GameList(BaseModel):
    games: list[GameSummary]


class LegalView(BaseModel):
    ply: int
    to_move: int | None
    legal: list[str]


class ChatLine(BaseModel):
    name: str
    text: str


class ChatView(BaseModel):
    chat: list[ChatLine]


class Ok(BaseModel):
    ok: bool


class Positions(BaseModel):
    positions: list[str] = Field(..., description="the position string after each ply; index 0 is the start")
    to_move: list[int | None] = Field(..., description="the seat to move after each ply (null once the game is over)")
    summaries: list[dict[str, Any]] = Field(..., description="the game's summary after each ply (rings removed, scores...)")


class ImportResult(BaseModel):
    file: str | None
    ok: bool
    error: str | None = None
    duplicate: bool = Field(False, description="the same game is already in the archive (``id``: that game); not imported again")
    id: str | None = None
    game: str | None = None
    result: str | None = None
    plies: int | None = None


class ImportReport(BaseModel):
    results: list[ImportResult]
    imported: int
    failed: int = Field(..., description="records that could not be read or replayed")
    duplicates: int = Field(0, description="records already in the archive (not imported again)")


class RatingView(BaseModel):
    rating: float = Field(..., description="the OpenSkill mean (mu), on an Elo-like scale (a newcomer has 1500)")
    deviation: float = Field(..., description="the OpenSkill deviation (sigma): how unsure the rating still is")
    games: int = Field(..., description="rated games played")
    provisional: bool = Field(..., description="few games or a high deviation: the rating may still move a lot")


class AccountView(BaseModel):
    username: str
    created: str
    ratings: dict[str, RatingView] = Field(..., description="per game and variant: yinsh, yinsh-blitz, gyges, "
                                                            "gyges-beginner, rings (only those played)")


class PlayerGame(BaseModel):
    id: str
    game: str
    variant: str
    players: int
    seats: list[int] = Field(..., description="the account's seats in the game")
    status: str
    result: str
    rated: bool
    updated: str | None


class MyGame(PlayerGame):
    names: list[str] = Field(..., description="the players' names, in seat order")
    to_move: int | None = Field(..., description="the seat to move (null when over)")


class MyGames(BaseModel):
    my_turn: list[MyGame] = Field(..., description="live games where it is one of my seats' turn, most recently changed first")
    live: list[MyGame] = Field(..., description="my other games still being played or waiting for players")
    finished: list[MyGame] = Field(..., description="my finished games, most recent first (at most 20)")


class SeekView(BaseModel):
    id: str
    owner: str
    rating: float = Field(..., description="the owner's rating for the seek's game and variant")
    provisional: bool
    game: str
    variant: str
    players: int
    rated: bool
    rating_min: int | None
    rating_max: int | None
    joined: list[str] = Field(..., description="the players who accepted so far (RINGS for 3–6 waits for every seat)")
    expires: str
    game_id: str | None = Field(..., description="the game, once every seat is taken")


class SeekList(BaseModel):
    seeks: list[SeekView]


class SeekAnswer(BaseModel):
    seek: SeekView
    game_id: str | None = Field(..., description="the game that started, if this filled the seek's seats")


class RatingPoint(BaseModel):
    key: str = Field(..., description="yinsh, yinsh-blitz, gyges, gyges-beginner or rings")
    game_id: str
    rating: float
    deviation: float
    before: float = Field(..., description="the rating before this game")
    at: str


class ProfileGame(PlayerGame):
    names: list[str] = Field(..., description="the players' names, in seat order")
    outcome: str = Field(..., description="win, loss or draw for this player; empty while the game is not finished")


class PlayerView(AccountView):
    games: list[ProfileGame] = Field(..., description="the page of the player's games (filtered), most recently changed first")
    page: int
    pages: int
    total: int = Field(..., description="how many games match the filters")
    history: list[RatingPoint] = Field(..., description="the rating after each rated game, oldest first")


class LeaderboardEntry(BaseModel):
    username: str
    rating: float
    deviation: float
    games: int
    provisional: bool


class ComputerRating(BaseModel):
    level: int
    rating: float


class Leaderboard(BaseModel):
    key: str
    players: list[LeaderboardEntry] = Field(..., description="best first")
    computers: list[ComputerRating] = Field(..., description="the computer levels' fixed ratings")
class Alternative(BaseModel):
    move: str = Field(..., description="the action, in the game's notation")
    eval: list[float] = Field(..., description="after it: each seat's win probability (RINGS: expected score), in seat order")
    score: float | None = Field(None, description="alpha-beta: the search's score for the seat to move (points)")
    proven: str | None = Field(None, description="win or loss: proven by the search for the seat to move")
    pv: list[str] = Field(..., description="the line that starts with it, in notation")


class AnalysisView(BaseModel):
    """The analysis of one position."""

    game: str
    variant: str | None
    players: int
    position: str = Field(..., description="the position analysed (a position string)")
    seat_names: list[str]
    to_move: int = Field(..., description="the seat to move")
    search: str = Field(..., description="alphabeta (two players) or mcts (RINGS)")
    depth: int | None = Field(None, description="alphabeta: the depth completed (turns)")
    iterations: int | None = Field(None, description="mcts: the iterations run")
    eval: list[float] = Field(..., description="each seat's win probability (RINGS: expected score, 0–1), in seat order")
    score: float | None = Field(None, description="alphabeta: the score for the seat to move (points; null when proven)")
    proven: str | None = Field(None, description="win or loss for the seat to move, proven by the search")
    pv: list[str] = Field(..., description="the best line (principal variation), one action per entry, in notation")
    pv_seats: list[int] = Field(..., description="the seat playing each action of the line")
    pv_positions: list[str] = Field(..., description="the position after each action of the line")
    alternatives: list[Alternative] = Field(..., description="the best other actions, best first, each with its evaluation")


class Mistake(BaseModel):
    ply: int = Field(..., description="the ply after which the seat that moved lost much of its evaluation")
    seat: int
    drop: float = Field(..., description="how much (win probability or expected score, 0–1)")


class GameAnalysis(BaseModel):
    """"Analyse this game": an evaluation after every ply, filled in the background."""

    status: str = Field(..., description="none (not asked), running, done or failed")
    done: int = Field(..., description="positions evaluated so far")
    total: int = Field(..., description="positions to evaluate (the start and the position after each ply)")
    evals: list[list[float] | None] = Field(..., description="per ply (0: the start): each seat's evaluation, null until done")
    mistakes: list[Mistake] = Field(..., description="the plies where the mover's evaluation fell by 0.2 or more")


#: what each error status means, for the OpenAPI description
ERROR_MEANING = {
    400: "Malformed request: not JSON, or a field of the wrong type, missing, unknown or too long",
    401: "Not logged in, or a wrong username or password (bad_credentials)",
    403: "Refused: a cross-site request (error cross_site), or the request's tokens do not hold the seat it needs",
    404: "No game (or player, rating list or open seek) with that name",
    409: "Conflicts with the game's state: the game is over, the ply is stale, the seat is taken, no draw offer; or the "
         "username is taken",
    413: "The request is too large",
    422: "Well-formed but not acceptable: an illegal action, or a game/seat setup that the game does not allow; a weak "
         "password or a malformed username",
    429: "Too many requests from this client (or failed logins for this username), or the analysis engine is busy "
         "(error analysis_busy); try again later (Retry-After)",
}


def errors(*statuses: int, media_type: str | None = None) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route: the given error statuses, each with :class:`ErrorResponse`. ``media_type``: for
    routes whose success answer is not JSON (FastAPI would file the errors under the route's media type)."""
    if media_type:
        ref = {"$ref": "#/components/schemas/ErrorResponse"}
        return {s: {"description": ERROR_MEANING[s], "content": {media_type: {"schema": ref}}} for s in statuses}
    return {s: {"model": ErrorResponse, "description": ERROR_MEANING[s]} for s in statuses}


def without_default_422(schema: dict) -> dict:
    """Drop FastAPI's generated "422 Validation Error" answers (this API answers malformed requests with 400 and
    :class:`ErrorResponse`; its 422 means an illegal action) and their schemas."""
    for ops in schema.get("paths", {}).values():
        for op in ops.values():
            r = op.get("responses", {}).get("422")
            if r and "HTTPValidationError" in str(r):
                del op["responses"]["422"]
    comps = schema.get("components", {}).get("schemas", {})
    if "HTTPValidationError" not in str(schema.get("paths")):
        comps.pop("HTTPValidationError", None)
        comps.pop("ValidationError", None)
    return schema
