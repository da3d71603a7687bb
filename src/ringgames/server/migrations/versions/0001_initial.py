"""initial schema: games, moves, chat

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("start", sa.Text, nullable=True),
        sa.Column("tags", sa.JSON, nullable=False),
        sa.Column("draw_offers", sa.JSON, nullable=False),
        sa.Column("result", sa.String(64), nullable=False),
        sa.Column("ply", sa.Integer, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_games_status", "games", ["status"])
    op.create_table(
        "moves",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("ply", sa.Integer, nullable=False),
        sa.Column("action", sa.Integer, nullable=False),
        sa.Column("text", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game_id", "ply", name="uq_moves_game_ply"),
    )
    op.create_index("ix_moves_game_id", "moves", ["game_id"])
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_chat_game_id", "chat", ["game_id"])


def downgrade() -> None:
    op.drop_table("chat")
    op.drop_table("moves")
    op.drop_table("games")
