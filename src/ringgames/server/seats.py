"""Seats and their tokens: who may act for a seat.

* A **seat token** (43 URL-safe characters, 32 random bytes) proves that a browser or program holds a seat.
  It is given once (when the seat is created for its player, or when the player joins) and stored only as its
  SHA-256 hash (``token_hash``). A fast hash is right here: the token is 256 random bits, so there is nothing to
  guess or brute-force, unlike a password, which is why no slow, salted password hash is used.
* An **invite token** lets one person take a waiting seat, once: joining with it stores the seat's fresh token
  and forgets the invite (``invite_hash``). Whoever made or saw the invite link cannot act for the seat afterwards.
* An **open seat** has no token until somebody takes it.
* A seat may also belong to an **account** (``"account": id``): a logged-in player who creates or joins a game
  sits as their account, and a guest's seats move to the account on sign-up or login (``accounts.py``). Such a
  seat is held by its token *and* by the account's session (an :class:`AccountKey` among the credentials).
* A **reserved seat** (a rematch) belongs to the player who held it in the previous game (seats rotate by one in a
  rematch): it keeps the hash of that player's old seat token (``reserved_hash``) and their account if any
  (``reserved_account``), and only the rematch request carrying that token, or that account's session, claims it;
  no invite exists for it and it cannot be joined or re-invited.

Seats are the dicts of ``GameRow.seats``; these functions change them in place, the caller saves the row.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import ApiError

#: random bytes in a seat or invite token
TOKEN_BYTES = 32
#: at most this many tokens of one request are looked at (cookie + header), so a request cannot make us hash megabytes
MAX_TOKENS = 16
#: longer strings are not tokens of ours (``token_urlsafe(32)`` is 43 characters)
MAX_TOKEN_LENGTH = 64


def new_token() -> str:
    """A fresh random token (seat or invite)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


@functools.lru_cache(maxsize=4096)
def hash_token(token: str) -> str:
    """The stored form of a token: SHA-256, hex (the last 4,096 remembered: a seat's token is checked at every move)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def split_tokens(value: str | None) -> list[str]:
    """Tokens from a cookie or header value: dot-separated (tokens are URL-safe base64, without dots)."""
    return [t for t in (value or "").split(".") if 0 < len(t) <= MAX_TOKEN_LENGTH][:MAX_TOKENS]


@dataclass(frozen=True)
class AccountKey:
    """The logged-in account of a request, among its credentials: it holds the seats whose ``account`` is ``id``.
    Made only by the server from a valid session (clients send strings; a string is never an account)."""

    id: int


#: what a request presents for seats: seat tokens (strings) and at most one logged-in account
Credential = str | AccountKey


def held(seats: list[dict], tokens: Iterable[Credential]) -> list[int]:
    """The seats that ``tokens`` hold: a seat holds when the hash of one of the tokens is its ``token_hash``, or
    when it belongs to the account of an :class:`AccountKey` among them."""
    creds = list(tokens)
    accounts = {t.id for t in creds if isinstance(t, AccountKey)}
    hashes = {hash_token(t) for t in [t for t in creds if isinstance(t, str)][:MAX_TOKENS] if t and len(t) <= MAX_TOKEN_LENGTH}
    return [i for i, s in enumerate(seats)
            if s.get("token_hash") in hashes or (s.get("account") is not None and s.get("account") in accounts)]


def human_seat(kind: str, name: str, reserved_hash: str | None = None,
               reserved_account: int | None = None) -> tuple[dict, str | None, str | None]:
    """A new human seat of ``kind`` me | invite | open | reserved; returns (seat, its seat token if "me", its invite
    token if "invite"). ``reserved_hash`` (rematches): the hash of the seat token that held this player's seat in the
    previous game; ``reserved_account``: the account that held it; a "reserved" seat waits for that player only."""
    seat: dict[str, object] = {"kind": "human", "name": name, "spec": None, "level": None, "token_hash": None, "invite_hash": None,
            "joined": kind == "me", "invite": kind == "invite", "open": kind == "open"}
    if reserved_hash:
        seat["reserved_hash"] = reserved_hash
    if reserved_account is not None:
        seat["reserved_account"] = reserved_account
    token = invite = None
    if kind == "me":
        token = new_token()
        seat["token_hash"] = hash_token(token)
    elif kind == "invite":
        invite = new_token()
        seat["invite_hash"] = hash_token(invite)
    return seat, token, invite


def reserved(seat: dict) -> bool:
    """The seat is kept for the player who held it in the previous game (a rematch): by seat token or account."""
    return bool(seat.get("reserved_hash")) or seat.get("reserved_account") is not None


def claim(seat: dict, invite: str | None, *, vouched: bool = False) -> str:
    """Take ``seat`` for a new player: with its invite token, or without one if the seat is open (or ``vouched``:
    the server itself hands the seat on, e.g. to the same player's next game). Returns the player's fresh seat token
    and forgets the invite, so the invite link works once. Raises :class:`ApiError` (nothing changed) otherwise."""
    if seat.get("kind") != "human":
        raise ApiError(403, "not_a_human_seat", "that seat is played by the computer" if seat.get("kind") == "computer"
                       else "that seat belongs to a recorded game")
    if seat.get("joined"):
        raise ApiError(409, "seat_taken", "that seat has been taken; an invite link works only once")
    if reserved(seat) and not vouched:
        raise ApiError(403, "seat_reserved", "that seat is kept for the player who held it in the previous game")
    if not vouched:
        if invite:
            if not seat.get("invite_hash") or not secrets.compare_digest(hash_token(invite), seat["invite_hash"]):
                raise ApiError(403, "bad_token", "this invite link is not valid for that seat")
        elif not seat.get("open"):
            raise ApiError(403, "seat_taken", "that seat is not open; you need its invite link")
    token = new_token()
    seat.update(token_hash=hash_token(token), invite_hash=None, joined=True)
    return token


def reinvite(seat: dict) -> str:
    """A new invite token for a seat still waiting for its player; the previous invite link stops working."""
    if seat.get("kind") != "human" or seat.get("joined"):
        raise ApiError(409, "seat_taken", "that seat is not waiting for a player")
    if reserved(seat):
        raise ApiError(409, "seat_reserved", "that seat is kept for the player who held it in the previous game")
    invite = new_token()
    seat.update(invite_hash=hash_token(invite), invite=True)
    return invite


def reclaim(seat: dict, old_hash: str) -> str:
    """A rematch seat for the player whose previous seat token hashes to ``old_hash`` (the seat's ``reserved_hash``):
    a fresh seat token (a new one each time that player asks; the previous one stops working). Raises otherwise."""
    if seat.get("kind") != "human" or not seat.get("reserved_hash") or not secrets.compare_digest(seat["reserved_hash"], old_hash):
        raise ApiError(403, "not_your_seat", "that seat is not yours in the next game")
    token = new_token()
    seat.update(token_hash=hash_token(token), invite_hash=None, joined=True)
    return token
