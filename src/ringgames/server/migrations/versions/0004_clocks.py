"""clocks: time controls, per-seat clocks, a deadline any process can poll, time per move, the site's heartbeat

Adds to ``games``: ``time_control`` (JSON), ``clocks`` (JSON, milliseconds left per seat), ``clock_seat``,
``clock_at`` and ``deadline`` (milliseconds since the epoch; ``deadline`` indexed); to ``moves``: ``spent_ms``
and ``left_ms``; and the one-row table ``clock_site`` (the last time a server process was alive). Existing
games have no clock (all NULL). Independent of the accounts migration: it only adds columns and a table.

Revision ID: 0004
Revises: 0002
Create Date: 2026-12-03
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"  # after the accounts (both were written on 0002; chained when merged)
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as b:
        b.add_column(sa.Column("time_control", sa.JSON, nullable=True))
        b.add_column(sa.Column("clocks", sa.JSON, nullable=True))
        b.add_column(sa.Column("clock_seat", sa.Integer, nullable=True))
        b.add_column(sa.Column("clock_at", sa.BigInteger, nullable=True))
        b.add_column(sa.Column("deadline", sa.BigInteger, nullable=True))
    op.create_index("ix_games_deadline", "games", ["deadline"])
    with op.batch_alter_table("moves") as b:
        b.add_column(sa.Column("spent_ms", sa.BigInteger, nullable=True))
        b.add_column(sa.Column("left_ms", sa.BigInteger, nullable=True))
    op.create_table(
        "clock_site",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("alive_ms", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("clock_site")
    with op.batch_alter_table("moves") as b:
        b.drop_column("left_ms")
        b.drop_column("spent_ms")
    op.drop_index("ix_games_deadline", "games")
    with op.batch_alter_table("games") as b:
        for c in ("deadline", "clock_at", "clock_seat", "clocks", "time_control"):
            b.drop_column(c)
