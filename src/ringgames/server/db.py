"""Storage: SQLAlchemy 2 models and the engine; the schema is managed by Alembic (``migrations/``).

A game row holds its parameters, seats (names, kinds, agent specs, secret
tokens) and status; its history lives in ``moves``, one row per accepted
action, unique by ``(game_id, ply)`` so that a move can never be stored twice.
A server restart replays ``moves`` through the game protocol.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    false,
    text,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

__all__ = ["Base", "GameRow", "MoveRow", "ChatRow", "ClockSite", "AccountRow", "SessionRow", "SiteKeyRow", "GamePlayerRow",
           "RatingRow", "RatingHistoryRow", "SeekRow", "PuzzleRatingRow", "PuzzlePlayerRow", "PuzzleAttemptRow", "PresenceRow", "make_engine", "migrate", "default_sqlite_url"]


def _now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    variant: Mapped[str] = mapped_column(String(32))
    players: Mapped[int] = mapped_column(Integer)
    #: list of {"kind": "human"|"computer"|"record", "name", "spec", "level", "token_hash", "invite_hash", "invite",
    #: "open", "joined", "account"}: tokens only as SHA-256 hashes (see ``seats.py``); "account": the id of the
    #: account sitting there (also in ``game_players``), absent or None for a guest
    seats: Mapped[list] = mapped_column(JSON)
    #: "open" (a seat is waiting for its player), "live", "finished"
    status: Mapped[str] = mapped_column(String(16), index=True)
    source: Mapped[str] = mapped_column(String(16), default="play")  # play | import
    start: Mapped[str | None] = mapped_column(Text, nullable=True)  # start position string, None = standard
    tags: Mapped[dict] = mapped_column(JSON, default=dict)
    draw_offers: Mapped[list] = mapped_column(JSON, default=list)
    result: Mapped[str] = mapped_column(String(64), default="none")
    ply: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, onupdate=_now)
    #: the creator asked for a rated game (every seat an account or a computer level: ``ratings.py``)
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: the seat to move (None when the game is over, or for games from before migration 0003 until their next move):
    #: "my games" finds the games awaiting an account's move without replaying them
    to_move: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    #: when the ratings were updated for this game's result (None: not yet, or not rated)
    rated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, default=None)
    # -- clocks (migration 0004; ``server/clocks.py``, docs/time-controls.md). Times are milliseconds since the epoch.
    #: ``{"initial": s, "increment": s}`` (real time, Fischer) or ``{"days": n}`` (correspondence); None: no clock
    time_control: Mapped[dict | None] = mapped_column(JSON, nullable=True, default=None)
    #: milliseconds left per seat, as of ``clock_at`` (the running seat's clock is charged from then on)
    clocks: Mapped[list | None] = mapped_column(JSON, nullable=True, default=None)
    #: the seat whose clock runs (None: no clock runs: no time control, not started, or the game is over)
    clock_seat: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    clock_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True, default=None)
    #: when the running clock reaches zero (``clock_at + clocks[clock_seat]``): every process polls this column
    deadline: Mapped[int | None] = mapped_column(BigInteger, nullable=True, default=None, index=True)


class MoveRow(Base):
    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "ply", name="uq_moves_game_ply"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    ply: Mapped[int] = mapped_column(Integer)
    #: action id, or -1 resign / -2 agreed draw (as in the protocol)
    action: Mapped[int] = mapped_column(Integer)
    #: the action in notation (``resign`` / ``draw`` for the pseudo-actions)
    text: Mapped[str] = mapped_column(String(64))
    seat: Mapped[int] = mapped_column(Integer)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    #: clocked games: milliseconds the seat's clock ran for this action, and what it had left after it
    #: (increment included when the action ended the seat's turn); None without a clock
    spent_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True, default=None)
    left_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True, default=None)


class ChatRow(Base):
    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ClockSite(Base):
    """One row (id 1): the last time any server process was alive (``alive_ms``, beaten every second or so).
    A process that starts and finds it stale knows the whole site was down since then, and does not charge
    that time to the running clocks (``clocks.py``)."""

    __tablename__ = "clock_site"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    alive_ms: Mapped[int] = mapped_column(BigInteger)


class AccountRow(Base):
    """A player's account: the username as typed, its lower-case key (unique: names are unique ignoring case) and
    the Argon2id hash of the password (``accounts.py``; the password itself is never stored)."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(20))
    username_key: Mapped[str] = mapped_column(String(20), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    password_changed: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    #: the site language the player last chose (``?lang=``), ahead of the cookie and ``Accept-Language``
    lang: Mapped[str | None] = mapped_column(String(8), nullable=True, default=None)


class SessionRow(Base):
    """A logged-in browser: the SHA-256 of the session id its signed cookie carries, until ``expires``."""

    __tablename__ = "sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    expires: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SiteKeyRow(Base):
    """Secrets of the site shared by every server process: ``session`` signs the session cookies."""

    __tablename__ = "site_keys"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class GamePlayerRow(Base):
    """Which account sits in which seat of which game (the seats' ``account`` field, indexed for profiles)."""

    __tablename__ = "game_players"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), index=True)


class RatingRow(Base):
    """One rating per account and rating key (``yinsh``, ``yinsh-blitz``, ``gyges``, ``gyges-beginner``, ``rings``):
    the OpenSkill model's mean ``mu`` and deviation ``sigma`` (``ratings.py``)."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_key_mu", "key", "mu"),)

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class RatingHistoryRow(Base):
    """A rating after one rated game (unique per account and game: a game is counted once)."""

    __tablename__ = "rating_history"
    __table_args__ = (UniqueConstraint("account_id", "game_id", name="uq_rating_history_account_game"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(32))
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class SeekRow(Base):
    """A player looking for a game (``seeks.py``): open until its seats are filled (``game_id`` set), it is
    withdrawn, or ``expires`` passes (the lobby keeps its owner's seek alive while the page is open)."""

    __tablename__ = "seeks"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    game: Mapped[str] = mapped_column(String(32))
    variant: Mapped[str] = mapped_column(String(32))
    players: Mapped[int] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    rating_min: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rating_max: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: the accounts that accepted so far (RINGS for 3–6 waits until every seat is taken), in seat order after the owner
    joined: Mapped[list] = mapped_column(JSON, default=list)
    #: bumped by every change, so that two processes accepting at once cannot both take the last seat
    version: Mapped[int] = mapped_column(Integer, default=0)
    game_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    expires: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class PuzzleRatingRow(Base):
    """A puzzle's rating (``server/puzzles.py``), once some account has tried it; before that the puzzle's initial
    rating from the shipped set counts."""

    __tablename__ = "puzzle_ratings"

    puzzle_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    solved: Mapped[int] = mapped_column(Integer, default=0)


class PuzzlePlayerRow(Base):
    """An account's puzzle rating per game (``yinsh``, ``gyges``, ``rings``)."""

    __tablename__ = "puzzle_players"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=0)


class PuzzleAttemptRow(Base):
    """An account's first attempt at a puzzle (the one that is rated; later tries are not)."""

    __tablename__ = "puzzle_attempts"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    puzzle_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    correct: Mapped[bool] = mapped_column(Boolean)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class PresenceRow(Base):
    """A seat's WebSocket presence, shared by every server process (``presence.py``, migration 0006): its open
    connections over all processes and when it was last seen connected (ms since the epoch; beaten while connected)."""

    __tablename__ = "seat_presence"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    connections: Mapped[int] = mapped_column(Integer, default=0)
    seen_ms: Mapped[int] = mapped_column(BigInteger)


def default_sqlite_url() -> str:
    """``sqlite:///<data dir>/ringgames.sqlite3`` (``$RINGGAMES_DATA`` or ``~/.local/share/ringgames``)."""
    base = Path(os.environ.get("RINGGAMES_DATA") or Path.home() / ".local" / "share" / "ringgames")
    base.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{base / 'ringgames.sqlite3'}"


def normalize_url(url: str) -> str:
    """``postgresql://`` means psycopg 3 here (the ``postgres`` extra) unless psycopg2 is installed."""
    if url.startswith(("postgresql://", "postgres://")):
        try:
            import psycopg2  # noqa: F401
        except ImportError:
            return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL mode, a busy timeout and foreign keys."""
    url = normalize_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=8, max_overflow=8)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):  # pragma: no cover - trivial
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")  # durable across process crashes
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    engine = create_engine(url, pool_size=10, max_overflow=10, pool_recycle=1800)
    _ping_when_idle(engine)
    return engine


#: a pooled connection unused for longer than this is checked with a round trip before it is handed out
IDLE_PING_SECONDS = 5.0


def _ping_when_idle(engine: Engine) -> None:
    """SQLAlchemy's ``pool_pre_ping``, but only for connections that sat idle in the pool for ``IDLE_PING_SECONDS``.

    A pre-ping on every checkout was one extra round trip per query: 13 % of a server process's CPU while tables
    arrived (docs/performance.md). A connection that came back to the pool moments ago is alive; one that sat idle
    may have been closed by a restart of PostgreSQL or a proxy's timeout, and is checked as before: a dead one is
    replaced by a fresh connection (``DisconnectionError`` makes the pool retry) and the request never sees it. A
    restart while connections are in constant use fails the queries in flight once (the pool is then invalidated as
    a whole and reconnects), as with ``pool_pre_ping``."""

    @event.listens_for(engine, "checkin")
    def _checked_in(_dbapi_conn, record) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_conn, record, _proxy) -> None:
        since = record.info.pop("idle_since", None)
        if since is None or time.monotonic() - since <= IDLE_PING_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
        except Exception as exc:  # noqa: BLE001 (any failure: this connection is not to be used)
            raise DisconnectionError(f"pooled connection idle {time.monotonic() - since:.0f} s is gone: {exc}") from exc


#: the PostgreSQL advisory lock key held while migrating
MIGRATION_LOCK = 0x52696E67


def migrate(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to the newest schema (Alembic ``upgrade head``), or to ``revision``."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    cfg.set_main_option("sqlalchemy.url", normalize_url(url).replace("%", "%%"))
    if not normalize_url(url).startswith("postgresql"):
        command.upgrade(cfg, revision)
        return
    # PostgreSQL: several server processes may start at once; they migrate one after another (a session lock)
    engine = create_engine(normalize_url(url))
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK})
            conn.commit()
            try:
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, revision)
                conn.commit()
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK})
                conn.commit()
    finally:
        engine.dispose()


def sessions(engine: Engine) -> sessionmaker:
    return sessionmaker(engine, expire_on_commit=False)
