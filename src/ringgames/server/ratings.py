"""Ratings: one OpenSkill (Weng–Lin Bradley–Terry) rating per account and game variant, updated when a rated game ends.

The model and its parameters, the computer levels' fixed ratings and how they were chosen: ``docs/accounts.md``.

* **Keys**: ``yinsh``, ``yinsh-blitz``, ``gyges``, ``gyges-beginner``, ``rings`` (one RINGS rating whatever the
  player count): :func:`rating_key`.
* **Model**: ``openskill``'s :class:`~openskill.models.BradleyTerryFull` (Weng and Lin's Bradley–Terry model
  with full pairing) for every game: a RINGS game of N players counts as its N(N-1)/2 pairwise results, a tie as
  a draw between the two. With two players it gives exactly the Plackett–Luce update; for RINGS it is chosen over
  openskill's Plackett–Luce, whose tie handling (openskill.py 6.2) gives a player ranked below two tied winners
  the winners' rating (openskill.py issues #155, #176). Parameters on an Elo-like scale: ``mu`` 1500, ``sigma``
  350, ``beta`` = 400 / (ln 10 · √2) so that between two settled players a rating difference means what an Elo
  difference means, ``tau`` = ``sigma`` / 100 (openskill's default proportion).
* **Results → ranks**: winners share rank 1; an agreed draw puts everybody at rank 1; in RINGS the players who
  did not win are ranked by their score (equal scores share a rank) and players who resigned come last (tied).
  Resigning is a loss. A game where a seat never made a move of its own (an abandoned game) is not rated.
* **Computer levels** play with fixed published ratings (:data:`COMPUTER_RATINGS`, sigma :data:`COMPUTER_SIGMA`);
  they take part in the model's update of their opponents but their own rating never moves.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from openskill.models import BradleyTerryFull
from sqlalchemy import select
from sqlalchemy.orm import Session

from .db import GameRow, MoveRow, RatingHistoryRow, RatingRow

MU = 1500.0
SIGMA = 350.0
#: the performance spread: for two settled players (sigma → 0) the model gives the first the expected score
#: 1 / (1 + exp(-(mu1 - mu2) / (beta √2))), which with this beta is Elo's 1 / (1 + 10^(-(mu1 - mu2) / 400))
BETA = 400.0 / (math.log(10) * math.sqrt(2))
#: the deviation added before each game (ratings can move again after a long settled run); openskill's default
#: proportion (tau = sigma / 100)
TAU = SIGMA / 100
#: a rating is provisional while it has fewer games than this, or its deviation is above PROVISIONAL_SIGMA
PROVISIONAL_GAMES = 10
PROVISIONAL_SIGMA = 200.0
#: how sure the model is of a computer level's fixed rating (used in its opponents' updates)
COMPUTER_SIGMA = 50.0

#: fixed ratings of the computer levels 0 (random) to 5 per game, from the strength ledger (docs/ai.md, today's
#: levels): level 0 is anchored at 600, each level adds its Elo against the level below as measured there, and a
#: step the ledger could not measure (100–0, clipped at +920, only "at least about +800") counts as +400. The
#: variants (YINSH blitz, Gygès beginner) use their game's figures (not measured separately). See docs/accounts.md.
COMPUTER_STEPS = {
    "yinsh": (89, 382, None, 315, 139),
    "gyges": (None, None, 372, 200, 200),
    "rings": (28, None, None, 173, 89),
}
ANCHOR = 600
UNMEASURED_STEP = 400


def _levels(steps: Sequence[int | None]) -> tuple[int, ...]:
    out = [ANCHOR]
    for step in steps:
        out.append(out[-1] + (UNMEASURED_STEP if step is None else step))
    return tuple(out)


COMPUTER_RATINGS: dict[str, tuple[int, ...]] = {game: _levels(steps) for game, steps in COMPUTER_STEPS.items()}
KEYS = ("yinsh", "yinsh-blitz", "gyges", "gyges-beginner", "rings")


def model() -> BradleyTerryFull:
    return BradleyTerryFull(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)


def rating_key(game: str, variant: str) -> str:
    """``yinsh``, ``yinsh-blitz``, ``gyges``, ``gyges-beginner`` or ``rings``."""
    return game if game == "rings" or variant in ("standard", "", None) else f"{game}-{variant}"


def computer_rating(key: str, level: int | None) -> float:
    levels = COMPUTER_RATINGS[key.split("-", 1)[0]]
    return float(levels[max(0, min(int(level or 0), len(levels) - 1))])


def provisional(games: int, sigma: float) -> bool:
    return games < PROVISIONAL_GAMES or sigma > PROVISIONAL_SIGMA


def ranks(game: str, winners: Sequence[int], n: int, reason: str | None, summary: dict, resigned: Sequence[int]) -> list[int]:
    """OpenSkill ranks (1 best, ties equal) of the ``n`` seats of a finished game."""
    if reason == "agreement" or not winners:
        return [1] * n
    win = set(winners)
    if game != "rings" or n == 2:
        return [1 if i in win else 2 for i in range(n)]
    scores = summary.get("scores") or [0] * n
    out_resigned = set(resigned) - win

    def order(i: int) -> tuple:
        return (0, 0) if i in win else (2, 0) if i in out_resigned else (1, -scores[i])

    keys = sorted({order(i) for i in range(n)})
    return [keys.index(order(i)) + 1 for i in range(n)]


@dataclass
class Seat:
    account: int | None  # None: a computer level
    mu: float
    sigma: float
    games: int = 0


def played_by_every_seat(row: GameRow, moves: Sequence[MoveRow], setup_plies: int) -> bool:
    """Whether every seat made a move of its own (not counting the setup plies the server played): else the game
    was abandoned and is not rated."""
    movers = {m.seat for m in moves if m.action >= 0 and m.ply >= setup_plies}
    return all(i in movers for i in range(row.players))


def rate_game(s: Session, row: GameRow, ranking: list[int], when: datetime | None = None) -> dict[int, tuple[float, float]]:
    """Update the ratings of the accounts of finished game ``row`` (in the caller's transaction): returns account id →
    (mu, sigma) after the game. Computer seats take part with their fixed rating and do not move."""
    key = rating_key(row.game, row.variant)
    when = when or datetime.now(UTC)
    m = model()
    seats: list[Seat] = []
    for seat in row.seats:
        if seat.get("kind") == "computer":
            seats.append(Seat(None, computer_rating(key, seat.get("level")), COMPUTER_SIGMA))
            continue
        acct = int(seat["account"])
        r = s.scalar(select(RatingRow).where(RatingRow.account_id == acct, RatingRow.key == key).with_for_update())
        seats.append(Seat(acct, MU, SIGMA, 0) if r is None else Seat(acct, r.mu, r.sigma, r.games))
    teams = [[m.rating(mu=x.mu, sigma=x.sigma)] for x in seats]
    new = m.rate(teams, ranks=[float(r) for r in ranking])
    out: dict[int, tuple[float, float]] = {}
    for x, (after,) in zip(seats, new, strict=True):
        if x.account is None:
            continue
        mu, sigma = float(after.mu), float(after.sigma)
        r = s.get(RatingRow, (x.account, key))
        if r is None:
            s.add(RatingRow(account_id=x.account, key=key, mu=mu, sigma=sigma, games=1, updated=when))
        else:
            r.mu, r.sigma, r.games, r.updated = mu, sigma, r.games + 1, when
        s.add(RatingHistoryRow(account_id=x.account, key=key, game_id=row.id, mu_before=x.mu, sigma_before=x.sigma,
                               mu=mu, sigma=sigma, created=when))
        out[x.account] = (mu, sigma)
    return out
