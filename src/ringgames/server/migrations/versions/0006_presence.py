"""presence: per-seat WebSocket presence shared by every server process (claims after a disconnection)

Adds the table ``seat_presence`` (game id, seat, open connections over all processes, last seen connected in
milliseconds since the epoch); see ``server/presence.py`` and docs/time-controls.md. Existing games have no rows:
nobody is connected.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seat_presence",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("connections", sa.Integer, nullable=False, server_default="0"),
        sa.Column("seen_ms", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("seat_presence")
