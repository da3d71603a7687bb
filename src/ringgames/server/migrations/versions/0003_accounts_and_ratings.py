"""accounts, sessions, ratings

New tables: ``accounts`` (usernames, Argon2id password hashes), ``sessions`` (hashed session ids of the signed
session cookies), ``site_keys`` (the cookie-signing key, made here: every server process on this database shares
it), ``game_players`` (which account sits in which seat), ``ratings``, ``rating_history`` and ``seeks``. ``games`` gains
``rated`` (false for every existing game), ``rated_at`` and ``to_move`` (the seat to move, for "my games"; empty for
existing games until their next move). Existing games, moves and chat are untouched.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""
import secrets

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("rated_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("to_move", sa.Integer, nullable=True))
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(20), nullable=False),
        sa.Column("username_key", sa.String(20), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("password_changed", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lang", sa.String(8), nullable=True),
    )
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])
    site_keys = op.create_table(
        "site_keys",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )
    op.bulk_insert(site_keys, [{"name": "session", "value": secrets.token_urlsafe(48)}])
    op.create_table(
        "game_players",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    )
    op.create_index("ix_game_players_account_id", "game_players", ["account_id"])
    op.create_table(
        "ratings",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("key", sa.String(32), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_ratings_key_mu", "ratings", ["key", "mu"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("key", sa.String(32), nullable=False),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("account_id", "game_id", name="uq_rating_history_account_game"),
    )
    op.create_index("ix_rating_history_account_id", "rating_history", ["account_id"])
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rating_min", sa.Integer, nullable=True),
        sa.Column("rating_max", sa.Integer, nullable=True),
        sa.Column("joined", sa.JSON, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_seeks_account_id", "seeks", ["account_id"])
    op.create_index("ix_seeks_expires", "seeks", ["expires"])
    op.create_index("ix_rating_history_game_id", "rating_history", ["game_id"])


def downgrade() -> None:
    for table in ("seeks", "rating_history", "ratings", "game_players", "site_keys", "sessions", "accounts"):
        op.drop_table(table)
    with op.batch_alter_table("games") as batch:
        batch.drop_column("to_move")
        batch.drop_column("rated_at")
        batch.drop_column("rated")
