"""Seeks: a logged-in player asks for a game (game, variant, players, rated or casual, an optional rating range);
others see it in the lobby and accept it; when every seat is taken the game starts, with the seats in random order.
Quick pairing accepts the oldest compatible seek (each player's rating inside the other's range) or posts one.

Everything is in the database (the ``seeks`` table), so several server processes can share them: taking the last
seat is a compare-and-set on the seek's ``version``, so two players cannot both take it. A seek lasts
:data:`SEEK_SECONDS` unless its owner's lobby page keeps it alive; it vanishes when the owner leaves (the page stops
asking) or withdraws it. A player may keep :data:`MAX_SEEKS` open seeks at once (of different kinds: posting a
seek of the same game, variant, player count and rated/casual as an open one replaces that one).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from .. import load_game
from . import ratings
from .accounts import Account
from .db import AccountRow, RatingRow, SeekRow
from .errors import ApiError

#: a seek lives this long after it was posted or last kept alive (the lobby asks every 30 s)
SEEK_SECONDS = 90
#: at most this many open seeks are listed
MAX_LISTED = 200
#: open seeks per player
MAX_SEEKS = 3


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo else t.replace(tzinfo=UTC)


@dataclass
class Filled:
    """A seek whose seats are all taken: the accounts, in the seat order of the game to create."""

    seek_id: str
    game: str
    variant: str
    players: int
    rated: bool
    accounts: list[int]


class Seeks:
    def __init__(self, maker: sessionmaker[Session]):
        self.Session = maker

    @staticmethod
    def _rating(s: Session, account_id: int, key: str) -> RatingRow | None:
        return s.get(RatingRow, (account_id, key))

    def view(self, s: Session, row: SeekRow) -> dict:
        owner = s.get(AccountRow, row.account_id)
        r = self._rating(s, row.account_id, ratings.rating_key(row.game, row.variant))
        names = {a.id: a.username for a in s.scalars(select(AccountRow).where(AccountRow.id.in_(row.joined or [])))}
        return {"id": row.id, "owner": owner.username if owner else "?", "rating": r.mu if r else ratings.MU,
                "provisional": ratings.provisional(r.games, r.sigma) if r else True, "game": row.game, "variant": row.variant,
                "players": row.players, "rated": row.rated, "rating_min": row.rating_min, "rating_max": row.rating_max,
                "joined": [names.get(a, "?") for a in row.joined or []], "expires": _aware(row.expires).isoformat(),
                "game_id": row.game_id}

    def post(self, account: Account, game: str, variant: str | None, players: int | None, rated: bool,
             rating_min: int | None, rating_max: int | None) -> dict:
        """A new seek of ``account``: it replaces the account's open seek of the same kind (game, variant, players,
        rated) if any; otherwise 409 ``too_many_seeks`` when the account already has :data:`MAX_SEEKS` open."""
        try:
            g = load_game(game, variant, players)
        except ValueError as exc:
            raise ApiError(422, "bad_game", str(exc)) from None
        if rating_min is not None and rating_max is not None and rating_min > rating_max:
            raise ApiError(422, "bad_range", "rating_min is above rating_max")
        now = datetime.now(UTC)
        row = SeekRow(id=secrets.token_hex(6), account_id=account.id, game=g.name, variant=g.variant, players=g.num_players,
                      rated=rated, rating_min=rating_min, rating_max=rating_max, joined=[], version=0, created=now,
                      expires=now + timedelta(seconds=SEEK_SECONDS))
        with self.Session.begin() as s:
            # one post at a time per account (PostgreSQL: the account's row is locked; SQLite: the write lock below)
            s.execute(select(AccountRow.id).where(AccountRow.id == account.id).with_for_update())
            mine = SeekRow.account_id == account.id
            s.execute(delete(SeekRow).where(mine, SeekRow.game_id.is_(None)).where(
                (SeekRow.expires < now) | ((SeekRow.game == g.name) & (SeekRow.variant == g.variant)
                                           & (SeekRow.players == g.num_players) & (SeekRow.rated.is_(rated)))))
            n = s.scalar(select(func.count()).select_from(SeekRow).where(mine, SeekRow.game_id.is_(None)))
            if n and n >= MAX_SEEKS:
                raise ApiError(409, "too_many_seeks", f"you already have {n} open seeks, at most {MAX_SEEKS}: withdraw one first")
            s.add(row)
            s.flush()
            return self.view(s, row)

    def listed(self) -> list[dict]:
        now = datetime.now(UTC)
        with self.Session.begin() as s:
            s.execute(delete(SeekRow).where(SeekRow.expires < now - timedelta(hours=1)))  # old ones go (no sweeper needed)
            rows = s.scalars(select(SeekRow).where(SeekRow.game_id.is_(None), SeekRow.expires >= now)
                             .order_by(SeekRow.created).limit(MAX_LISTED))
            return [self.view(s, r) for r in rows]

    def _open(self, s: Session, sid: str) -> SeekRow:
        row = s.get(SeekRow, sid[:32])
        if row is None or row.game_id is not None or _aware(row.expires) < datetime.now(UTC):
            raise ApiError(404, "unknown_seek", "that seek is gone (taken, withdrawn or expired)")
        return row

    def get(self, sid: str) -> dict:
        """A seek, also once its game has started (its owner's lobby learns the game from it)."""
        with self.Session() as s:
            row = s.get(SeekRow, sid[:32])
            if row is None:
                raise ApiError(404, "unknown_seek", "that seek is gone (withdrawn or expired)")
            return self.view(s, row)

    def keep(self, account: Account, sid: str) -> dict:
        """The owner's lobby keeps its seek alive."""
        with self.Session.begin() as s:
            row = self._open(s, sid)
            if row.account_id != account.id:
                raise ApiError(403, "not_your_seek", "only the player who posted a seek can keep or withdraw it")
            row.expires = datetime.now(UTC) + timedelta(seconds=SEEK_SECONDS)
            return self.view(s, row)

    def withdraw(self, account: Account, sid: str) -> None:
        with self.Session.begin() as s:
            row = self._open(s, sid)
            if row.account_id != account.id:
                raise ApiError(403, "not_your_seek", "only the player who posted a seek can keep or withdraw it")
            s.delete(row)

    @staticmethod
    def _fits(rating: float, low: int | None, high: int | None) -> bool:
        return (low is None or rating >= low) and (high is None or rating <= high)

    def accept(self, account: Account, sid: str) -> tuple[dict, Filled | None]:
        """Take a seat of seek ``sid``; returns the seek and, when its seats are now all taken, the game to create."""
        with self.Session.begin() as s:
            row = self._open(s, sid)
            if row.account_id == account.id or account.id in (row.joined or []):
                raise ApiError(409, "already_seated", "you are already in this seek")
            r = self._rating(s, account.id, ratings.rating_key(row.game, row.variant))
            if not self._fits(r.mu if r else ratings.MU, row.rating_min, row.rating_max):
                raise ApiError(409, "out_of_range", "your rating is outside the range this seek asks for")
            joined = [*(row.joined or []), account.id]
            done = s.execute(update(SeekRow).where(SeekRow.id == row.id, SeekRow.version == row.version)
                             .values(joined=joined, version=row.version + 1))
            if not done.rowcount:  # type: ignore[attr-defined]
                raise ApiError(409, "seek_changed", "somebody else took a seat of this seek at the same moment; try again")
            s.refresh(row)
            filled = None
            if len(joined) + 1 == row.players:
                order = [row.account_id, *joined]
                secrets.SystemRandom().shuffle(order)
                filled = Filled(row.id, row.game, row.variant, row.players, row.rated, order)
            return self.view(s, row), filled

    def started(self, sid: str, game_id: str) -> dict:
        with self.Session.begin() as s:
            row = s.get(SeekRow, sid)
            assert row is not None
            row.game_id = game_id
            return self.view(s, row)

    def quick(self, account: Account, game: str, variant: str | None, players: int | None, rated: bool,
              rating_min: int | None, rating_max: int | None) -> str | None:
        """The oldest open seek that pairs with this one (same game, variant, players, rated; each rating inside the
        other's range), or None."""
        try:
            g = load_game(game, variant, players)
        except ValueError as exc:
            raise ApiError(422, "bad_game", str(exc)) from None
        key = ratings.rating_key(g.name, g.variant)
        now = datetime.now(UTC)
        with self.Session() as s:
            mine = self._rating(s, account.id, key)
            my_rating = mine.mu if mine else ratings.MU
            rows = s.scalars(select(SeekRow).where(SeekRow.game_id.is_(None), SeekRow.expires >= now, SeekRow.game == g.name,
                                                   SeekRow.variant == g.variant, SeekRow.players == g.num_players,
                                                   SeekRow.rated.is_(rated), SeekRow.account_id != account.id)
                             .order_by(SeekRow.created).limit(MAX_LISTED))
            for row in rows:
                if account.id in (row.joined or []):
                    continue
                theirs = self._rating(s, row.account_id, key)
                if self._fits(my_rating, row.rating_min, row.rating_max) and self._fits(
                        theirs.mu if theirs else ratings.MU, rating_min, rating_max):
                    return row.id
        return None

    def accounts_of(self, ids: list[int]) -> list[Account]:
        with self.Session() as s:
            rows = {a.id: a for a in s.scalars(select(AccountRow).where(AccountRow.id.in_(ids)))}
        return [Account(rows[i].id, rows[i].username, _aware(rows[i].created)) for i in ids]
