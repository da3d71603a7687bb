"""seat tokens stored hashed; invite tokens single use

Every clear ``token`` in ``games.seats`` becomes ``token_hash`` (SHA-256, hex), so existing games stay
playable with the tokens their players hold. A seat still waiting behind an invite link keeps the link
working once (``invite_hash``): joining with it gives a fresh seat token. An open seat that nobody has
taken loses its unused token. Irreversible: the clear tokens are gone.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03
"""
import hashlib
import json

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def hashed(seats: list[dict]) -> list[dict]:
    """The seats of one game with their clear tokens replaced by hashes."""
    out = []
    for seat in seats:
        s = dict(seat)
        tok = s.pop("token", None)
        s.setdefault("token_hash", None)
        s.setdefault("invite_hash", None)
        if tok and s.get("kind") == "human":
            if s.get("joined"):
                s["token_hash"] = _hash(tok)
            elif s.get("invite"):
                s["invite_hash"] = _hash(tok)
        out.append(s)
    return out


def upgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name == "sqlite":  # overwrite the old rows' bytes instead of leaving them in free pages
        conn.exec_driver_sql("PRAGMA secure_delete = ON")
    games = sa.table("games", sa.column("id", sa.String), sa.column("seats", sa.JSON))
    changed = []  # only games with a clear token (imported games have none): collected first, then written
    for gid, seats in conn.execute(sa.select(games.c.id, games.c.seats)):
        if isinstance(seats, str):
            seats = json.loads(seats)
        if any(s.get("token") for s in seats or []):
            changed.append((gid, hashed(seats)))
    for gid, seats in changed:
        conn.execute(games.update().where(games.c.id == gid).values(seats=seats))


def downgrade() -> None:
    raise RuntimeError("0002 cannot be undone: the seat tokens are stored only as hashes")
