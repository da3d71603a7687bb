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

import numpy as np
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

#: The results the computer levels' fixed ratings are fitted on, per game: ``(A, B, wins, draws, losses)`` of A
#: against B, from the strength ledger and the sequential tests of docs/ai.md (section "Issue #35's targets, where each
#: stands"). ``baseline:N`` is level N before issue #35 (measured against each other at the real budgets on
#: 1–2 December 2026, 100 games each); today's levels 3–5 were measured against those baselines and each other at reduced
#: equal budgets: each sequential test's games up to its verdict (such a test stops early on a good run, so these lean
#: high), with the fixed openings and with the first decisions at random (docs/ai.md, footnote 3). Gygès: the games
#: with South's arrangement at random (``--opening 1``), level 5 against ``baseline:5`` its test's 28 games and a
#: match's 80. RINGS: two players (one RINGS rating whatever the number of players). See docs/accounts.md.
COMPUTER_RESULTS: dict[str, tuple[tuple[str, str, int, int, int], ...]] = {
    "yinsh": (
        ("level:1", "random", 40, 45, 15), ("level:2", "level:1", 87, 6, 7), ("baseline:3", "level:2", 100, 0, 0),
        ("baseline:4", "baseline:3", 86, 0, 14), ("baseline:5", "baseline:4", 69, 0, 31),
        ("level:3", "level:2", 17, 0, 0), ("level:3", "baseline:4", 14, 0, 2), ("level:3", "baseline:4", 12, 0, 0),
        ("level:4", "level:3", 27, 0, 8), ("level:4", "level:3", 39, 0, 18),
        ("level:5", "level:4", 25, 0, 7), ("level:5", "level:4", 31, 0, 12),
        ("level:5", "baseline:5", 95, 0, 5), ("level:5", "baseline:5", 22, 0, 2),
    ),
    "gyges": (
        ("level:1", "random", 100, 0, 0), ("level:2", "level:1", 100, 0, 0), ("baseline:3", "level:2", 88, 3, 9),
        ("baseline:4", "baseline:3", 76, 0, 24), ("baseline:5", "baseline:4", 76, 0, 24),
        ("level:3", "level:2", 20, 0, 3), ("level:3", "baseline:4", 35, 3, 17), ("level:4", "level:3", 20, 1, 3),
        ("level:5", "level:4", 24, 1, 6), ("level:5", "baseline:5", 85, 0, 23),
    ),
    "rings": (
        ("level:1", "random", 54, 0, 46), ("level:2", "level:1", 100, 0, 0), ("baseline:3", "level:2", 100, 0, 0),
        ("baseline:4", "baseline:3", 72, 2, 26), ("baseline:5", "baseline:4", 61, 3, 36),
        ("level:3", "level:2", 18, 0, 1), ("level:3", "baseline:4", 22, 2, 8), ("level:4", "level:3", 33, 2, 14),
        ("level:5", "level:4", 42, 1, 21), ("level:5", "baseline:5", 16, 0, 0), ("level:5", "baseline:5", 19, 0, 1),
    ),
}
#: ``random``'s fixed rating, the anchor of the fit
ANCHOR = 600
#: the Elo a result of every game won (or lost) stands for: such a result only says "at least about +800" (its 95 %
#: interval), and stacking such figures would put a one-ply greedy player far above strong humans
UNMEASURED_STEP = 400


def result_elo(wins: int, draws: int, losses: int) -> float:
    """The Elo difference a result stands for (A's score s: 400 log10(s / (1 - s))); ±:data:`UNMEASURED_STEP` for
    every game won or lost.

    >>> round(result_elo(76, 0, 24), 1), result_elo(17, 0, 0), round(result_elo(5, 10, 5), 1)
    (200.2, 400, 0.0)
    """
    n = wins + draws + losses
    if n <= 0:
        raise ValueError("a result needs at least one game")
    s = (wins + draws / 2) / n
    if s >= 1 or s <= 0:
        return UNMEASURED_STEP if s >= 1 else -UNMEASURED_STEP
    return 400 * math.log10(s / (1 - s))


def fit_ratings(results: Sequence[tuple[str, str, int, int, int]], anchor: str = "random",
                at: float = ANCHOR) -> dict[str, float]:
    """Ratings of the players in ``results`` (``(A, B, wins, draws, losses)`` of A against B) that best fit each
    result's Elo difference (:func:`result_elo`), by least squares with each result weighted by its number of
    games, ``anchor`` fixed at ``at``. Every player must be connected to the anchor through the results.

    >>> fit_ratings([("a", "random", 76, 0, 24), ("b", "a", 17, 0, 0)])
    {'random': 600.0, 'a': 800.2, 'b': 1200.2}
    >>> fit_ratings([("a", "random", 3, 0, 1), ("b", "random", 1, 0, 3)])["b"]  # not connected to each other: fine
    409.2
    >>> fit_ratings([("a", "b", 3, 0, 1)])
    Traceback (most recent call last):
    ...
    ValueError: every player must be connected to the anchor through the results
    """
    names = [anchor] + sorted({p for r in results for p in r[:2]} - {anchor})
    idx = {p: i for i, p in enumerate(names)}
    rows = np.zeros((len(results), len(names)))
    rhs = np.zeros(len(results))
    for k, (a, b, w, d, lo) in enumerate(results):
        weight = math.sqrt(w + d + lo)
        rows[k, idx[a]] += weight
        rows[k, idx[b]] -= weight
        rhs[k] = weight * result_elo(w, d, lo)
    sol, _, rank, _ = np.linalg.lstsq(rows[:, 1:], rhs, rcond=None)
    if rank < len(names) - 1:
        raise ValueError("every player must be connected to the anchor through the results")
    return {p: round(at + (float(sol[i - 1]) if i else 0.0), 1) for p, i in idx.items()}


def _levels(results: Sequence[tuple[str, str, int, int, int]]) -> tuple[int, ...]:
    fit = fit_ratings(results)
    return (ANCHOR, *(round(fit[f"level:{n}"]) for n in range(1, 6)))


#: fixed ratings of the computer levels 0 (random) to 5 per game: :func:`fit_ratings` of :data:`COMPUTER_RESULTS`.
#: The variants (YINSH blitz, Gygès beginner) use their game's figures (not measured separately).
COMPUTER_RATINGS: dict[str, tuple[int, ...]] = {game: _levels(res) for game, res in COMPUTER_RESULTS.items()}
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
