"""Puzzles on the site: ``GET /api/puzzles/next`` and ``POST /api/puzzles/{id}/attempt`` (the page is ``/puzzles``).

The puzzles are the shipped set (``ringgames/data/puzzles.json``, built by ``ringgames puzzles build``, see
:mod:`ringgames.puzzles`). Ratings live in three small tables (migration 0005): ``puzzle_ratings`` (a puzzle's
rating once someone tried it; before that its initial rating from the set), ``puzzle_players`` (an account's puzzle
rating per game) and ``puzzle_attempts`` (an account's first attempt per puzzle). An attempt is a game between the
player and the puzzle, won by the player when solved: both ratings move by the site's OpenSkill model
(:func:`ringgames.server.ratings.model`, the Elo-like scale of the game ratings). Only an account's first decided
attempt at a puzzle is rated; guests play unrated and are served puzzles near 1500.
"""

from __future__ import annotations

import asyncio
import functools
import random
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from .. import load_game
from .. import puzzles as pz
from . import ratings
from .api import STRICT, account_of, hub_of, operation_id
from .db import PuzzleAttemptRow, PuzzlePlayerRow, PuzzleRatingRow
from .errors import ApiError
from .security import same_site_only
from .views import errors

router = APIRouter(prefix="/api/puzzles", dependencies=[Depends(same_site_only)], generate_unique_id_function=operation_id)

#: a new puzzle's deviation: its initial rating is an estimate from the search (legal moves per answer, depth)
PUZZLE_SIGMA = 250.0
#: the next puzzle is drawn at random among this many of the player's untried puzzles nearest their rating
NEAREST = 5
#: a guest (no rating, nothing remembered) gets any puzzle within this of 1500, so that *Next puzzle* goes round
#: the whole set instead of the same few nearest ones
GUEST_WINDOW = 300.0
#: the most decisions an attempt may carry (a two-move Gygès puzzle needs 2)
MAX_MOVES = 4

PuzzleId = Annotated[str, Path(pattern=r"^[a-z0-9]{1,16}$", description="the puzzle's id")]


@functools.cache
def shipped() -> dict[str, pz.Puzzle]:
    return {p.id: p for p in pz.load()}


class AttemptIn(BaseModel):
    model_config = STRICT

    actions: list[Annotated[str, Field(min_length=1, max_length=100)]] = Field(  # the action length of docs/security.md
        ..., min_length=1, max_length=MAX_MOVES,
        description="the player's decisions in notation, from the puzzle's position (a two-move Gygès puzzle: the "
                    "first move, then both moves; the defence in between is the server's and not sent)")


class PuzzleRatingView(BaseModel):
    rating: float
    sigma: float
    attempts: int


class PuzzleView(BaseModel):
    id: str
    game: str
    variant: str
    players: int
    seat_names: list[str]
    position: str
    to_move: int
    theme: str
    moves: int = Field(description="the player's decisions the puzzle asks for (2 for a two-move win, else 1)")
    legal: list[str] = Field(description="the legal actions in the position")
    rating: float
    attempts: int
    solved: int
    source: str
    player_rating: PuzzleRatingView | None = Field(None, description="the logged-in account's puzzle rating in this game")


class AttemptView(BaseModel):
    done: bool = Field(description="false: the server played the defence (reply); the player moves again")
    correct: bool | None
    reply: list[str]
    position: str
    to_move: int | None
    legal: list[str]
    solution: list[str] | None = Field(None, description="when done: the solution (the defence included)")
    solution_positions: list[str] | None = Field(None, description="the position after each action of the solution")
    rated: bool = False
    rating: float | None = Field(None, description="when done: the puzzle's rating (after the update when rated)")
    rating_before: float | None = None
    player_rating: float | None = None
    player_rating_before: float | None = None


def _puzzle_rating(s, p: pz.Puzzle) -> tuple[float, float, int, int]:
    r = s.get(PuzzleRatingRow, p.id)
    return (p.rating, PUZZLE_SIGMA, 0, 0) if r is None else (r.mu, r.sigma, r.attempts, r.solved)


def _pick(request: Request, game: str, account_id: int | None, skip: str | None) -> dict[str, Any]:
    with hub_of(request).Session() as s:
        me = None if account_id is None else s.get(PuzzlePlayerRow, (account_id, game))
        mine = ratings.MU if me is None else me.mu
        tried: set[str] = set()
        if account_id is not None:
            tried = set(s.scalars(select(PuzzleAttemptRow.puzzle_id).where(PuzzleAttemptRow.account_id == account_id)))
        rated = {r.puzzle_id: r for r in s.scalars(select(PuzzleRatingRow))}
    pool = [p for p in shipped().values() if p.game == game]
    fresh = [p for p in pool if p.id not in tried and p.id != skip] or [p for p in pool if p.id != skip] or pool
    if not fresh:
        raise ApiError(404, "no_puzzles", f"there are no {game} puzzles")

    def rating_of(p: pz.Puzzle) -> float:
        r = rated.get(p.id)
        return p.rating if r is None else r.mu

    near = sorted(fresh, key=lambda p: (abs(rating_of(p) - mine), p.id))[:NEAREST]
    if account_id is None:
        near = [p for p in fresh if abs(rating_of(p) - mine) <= GUEST_WINDOW] or near
    p = random.choice(near)
    r = rated.get(p.id)
    state = p.state()
    return {**_public(p, state), "rating": round(rating_of(p), 1), "attempts": r.attempts if r else 0,
            "solved": r.solved if r else 0,
            "player_rating": None if account_id is None else
            {"rating": round(mine, 1), "sigma": round(me.sigma if me else ratings.SIGMA, 1), "attempts": me.attempts if me else 0}}


def _public(p: pz.Puzzle, state) -> dict[str, Any]:
    g = load_game(p.game, p.variant, p.players)
    return {"id": p.id, "game": p.game, "variant": p.variant, "players": p.players, "seat_names": list(g.seat_names),
            "position": p.position, "to_move": p.to_move, "theme": p.theme, "moves": 2 if p.theme == "goal2" else 1,
            "legal": [state.action_to_string(a) for a in state.legal_actions()], "source": p.source}


@router.get("/next", summary="A puzzle near the player's puzzle rating (guests: near 1500)", response_model=PuzzleView,
            description="`skip`: a puzzle id not to serve (the one just played). Logged-in players get puzzles they "
                        "have not tried while there are any.", responses=errors(400, 404))
async def next_puzzle(request: Request, game: Literal["yinsh", "gyges", "rings"] = "yinsh",
                      skip: Annotated[str | None, Query(pattern=r"^[a-z0-9]{1,16}$")] = None):
    account = await account_of(request)
    return await asyncio.to_thread(_pick, request, game, account.id if account else None, skip)


def _rate(request: Request, p: pz.Puzzle, account_id: int, correct: bool) -> dict[str, Any] | None:
    """Rate an account's first attempt at ``p`` (both ratings move); None when it is not the first."""
    for attempt in range(3):  # two first attempts at once, or the first rating rows made at once: the loser retries
        try:
            return _rate_once(request, p, account_id, correct)
        except IntegrityError:
            if attempt == 2:
                raise
    return None


def _rate_once(request: Request, p: pz.Puzzle, account_id: int, correct: bool) -> dict[str, Any] | None:
    m = ratings.model()
    with hub_of(request).Session.begin() as s:
        if s.get(PuzzleAttemptRow, (account_id, p.id)) is not None:
            return None
        s.add(PuzzleAttemptRow(account_id=account_id, puzzle_id=p.id, correct=correct, created=datetime.now(UTC)))
        pr = s.scalar(select(PuzzleRatingRow).where(PuzzleRatingRow.puzzle_id == p.id).with_for_update())
        me = s.scalar(select(PuzzlePlayerRow).where(PuzzlePlayerRow.account_id == account_id,
                                                    PuzzlePlayerRow.game == p.game).with_for_update())
        if pr is None:
            pr = PuzzleRatingRow(puzzle_id=p.id, mu=p.rating, sigma=PUZZLE_SIGMA, attempts=0, solved=0)
            s.add(pr)
        if me is None:
            me = PuzzlePlayerRow(account_id=account_id, game=p.game, mu=ratings.MU, sigma=ratings.SIGMA, attempts=0)
            s.add(me)
        before = {"rating_before": round(pr.mu, 1), "player_rating_before": round(me.mu, 1)}
        (a,), (b,) = m.rate([[m.rating(mu=me.mu, sigma=me.sigma)], [m.rating(mu=pr.mu, sigma=pr.sigma)]],
                            ranks=[1.0, 2.0] if correct else [2.0, 1.0])
        me.mu, me.sigma, me.attempts = float(a.mu), float(a.sigma), me.attempts + 1
        pr.mu, pr.sigma, pr.attempts, pr.solved = float(b.mu), float(b.sigma), pr.attempts + 1, pr.solved + int(correct)
        return {**before, "rating": round(pr.mu, 1), "player_rating": round(me.mu, 1), "rated": True}


def _current_rating(request: Request, p: pz.Puzzle) -> float:
    with hub_of(request).Session() as s:
        return round(_puzzle_rating(s, p)[0], 1)


@router.post("/{pid}/attempt", summary="Try a puzzle: the engine judges the player's decisions", response_model=AttemptView,
             description="Answers `done: false` with the server's defence while a two-move puzzle goes on; when done, "
                         "`correct`, the solution, and the ratings (moved for an account's first attempt).",
             responses=errors(400, 403, 404, 413))
async def attempt_puzzle(pid: PuzzleId, body: AttemptIn, request: Request):
    p = shipped().get(pid)
    if p is None:
        raise ApiError(404, "unknown_puzzle", "there is no puzzle with this id")
    try:
        j = pz.judge(p, body.actions)
    except pz.PuzzleError as exc:
        raise ApiError(400, "bad_move", str(exc)) from None
    out: dict[str, Any] = {"done": j.done, "correct": j.correct, "reply": j.reply, "position": j.position,
                           "to_move": j.to_move, "legal": j.legal}
    if not j.done:
        return out
    out["solution"] = p.solution
    out["solution_positions"] = pz.solution_positions(p)
    account = await account_of(request)
    rated = await asyncio.to_thread(_rate, request, p, account.id, bool(j.correct)) if account else None
    if rated is None:
        rated = {"rated": False, "rating": await asyncio.to_thread(_current_rating, request, p)}
    return {**out, **rated}
