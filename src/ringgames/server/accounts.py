"""Accounts: usernames, Argon2id password hashes, sessions behind a signed cookie, guest seats carried over.

* **Passwords** are hashed with Argon2id by ``argon2-cffi`` (:class:`argon2.PasswordHasher`; its defaults are
  RFC 9106's second recommended profile: 3 passes, 64 MiB, 4 lanes, 16-byte salt, 32-byte hash). Only the encoded
  hash (``$argon2id$v=19$m=...``) is stored; the password is never stored, logged or echoed. A login for an unknown
  name verifies against a dummy hash, so that the answer takes as long as for a known one. A hash made with weaker
  parameters than today's is replaced at the next successful login.
* **Sessions**: a login makes a random session id (32 bytes); the database keeps its SHA-256 (``sessions``) with
  the account and an expiry, and the browser gets it in the ``rg_session`` cookie, signed with ``itsdangerous``
  under the site's key (``site_keys``, made by migration 0003, shared by every server process on the database).
  A forged or altered cookie fails the signature check before the database is asked; a copied database holds no
  session id that works. Logout deletes the row; a password change deletes the account's other sessions.
* **Guest seats**: on sign-up and login, the seats that the browser's game cookies (``rg_<game id>``) hold
  become the account's (``seat["account"]``, and a ``game_players`` row): the account then holds them from any
  browser, and the seat shows the username.

Everything is in the database: several server processes can share it (no session lives in one process's memory).
The slow-down of repeated failed logins (per username and per address) is in :mod:`.limits` (``login_*_rate``).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from .db import AccountRow, SessionRow, SiteKeyRow
from .errors import ApiError

#: usernames: 3–20 letters, digits, ``_`` and ``-`` (ASCII); unique ignoring case
USERNAME = re.compile(r"[A-Za-z0-9_-]{3,20}")
MIN_PASSWORD = 8
#: longer passwords are refused as malformed (400) by the request models
MAX_PASSWORD = 256
#: the session cookie's name and lifetime
SESSION_COOKIE = "rg_session"
SESSION_DAYS = 30
#: a few of the most common passwords of at least 8 characters (the full lists are for attackers' dictionaries;
#: the login slow-down is what stops online guessing)
COMMON_PASSWORDS = frozenset({
    "password", "password1", "password123", "12345678", "123456789", "1234567890", "87654321", "11111111",
    "00000000", "qwertyui", "qwertyuiop", "iloveyou", "sunshine", "princess", "football", "baseball",
    "welcome1", "abcdefgh", "abc12345", "passw0rd", "trustno1", "letmein1", "superman", "starwars",
})


def cheap_hasher() -> PasswordHasher:
    """An Argon2id hasher with tiny costs, for tests only (the site uses argon2-cffi's defaults)."""
    return PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


@dataclass(frozen=True)
class Account:
    id: int
    username: str
    created: datetime
    #: the site language the player chose last (None: not chosen while logged in)
    lang: str | None = None


def username_key(username: str) -> str:
    return username.lower()


def check_username(username: str) -> None:
    if not USERNAME.fullmatch(username):
        raise ApiError(422, "bad_username", "a username is 3 to 20 letters (a–z, A–Z), digits, '_' or '-'")


def check_password(username: str, password: str) -> None:
    """Refuse weak passwords (422 ``weak_password`` with the reason); the message never quotes the password."""
    reason = None
    if len(password) < MIN_PASSWORD:
        reason = f"a password needs at least {MIN_PASSWORD} characters"
    elif username and username.lower() in password.lower():
        reason = "the password must not contain the username"
    elif len(set(password)) < 4:
        reason = "the password needs at least 4 different characters"
    elif password.lower() in COMMON_PASSWORDS:
        reason = "that password is one of the most common ones"
    if reason:
        raise ApiError(422, "weak_password", reason)


def _session_hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()


def _aware(t: datetime) -> datetime:
    """SQLite gives naive datetimes back: they are UTC."""
    return t if t.tzinfo else t.replace(tzinfo=UTC)


class Accounts:
    """Account operations on the database (blocking: the API runs them in threads)."""

    def __init__(self, maker: sessionmaker[Session], hasher: PasswordHasher | None = None, *, max_hashing: int = 2):
        self.Session = maker
        self.hasher = hasher or PasswordHasher()
        #: at most this many Argon2 computations at once in this process (each takes 64 MiB and ~0.1–0.5 s)
        self._hashing = threading.BoundedSemaphore(max_hashing)
        self._dummy: str | None = None
        self._signer: URLSafeSerializer | None = None

    # -- keys and hashing -------------------------------------------------
    @property
    def signer(self) -> URLSafeSerializer:
        if self._signer is None:
            with self.Session.begin() as s:
                row = s.get(SiteKeyRow, "session")
                if row is None:  # a database made by create_all rather than the migrations
                    row = SiteKeyRow(name="session", value=secrets.token_urlsafe(48))
                    s.add(row)
                key = row.value
            self._signer = URLSafeSerializer(key, salt="ringgames-session")
        return self._signer

    def _hash(self, password: str) -> str:
        with self._hashing:
            return self.hasher.hash(password)

    def _verify(self, stored: str, password: str) -> bool:
        with self._hashing:
            try:
                return self.hasher.verify(stored, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

    # -- accounts ---------------------------------------------------------
    def sign_up(self, username: str, password: str) -> Account:
        """A new account; 422 bad_username / weak_password, 409 username_taken."""
        check_username(username)
        check_password(username, password)
        key = username_key(username)
        with self.Session() as s:
            if s.scalar(select(AccountRow.id).where(AccountRow.username_key == key)) is not None:
                raise ApiError(409, "username_taken", "that username is taken (names are the same ignoring case)")
        digest = self._hash(password)
        row = AccountRow(username=username, username_key=key, password_hash=digest)
        try:
            with self.Session.begin() as s:
                s.add(row)
        except IntegrityError:  # taken between the check and the insert
            raise ApiError(409, "username_taken", "that username is taken (names are the same ignoring case)") from None
        return Account(row.id, row.username, _aware(row.created))

    def authenticate(self, username: str, password: str) -> Account | None:
        """The account if ``password`` is its password, else None (same work whether the name exists or not)."""
        with self.Session() as s:
            row = s.scalar(select(AccountRow).where(AccountRow.username_key == username_key(username[:64])))
        if row is None:
            if self._dummy is None:
                self._dummy = self._hash(secrets.token_urlsafe(16))
            self._verify(self._dummy, password)
            return None
        if not self._verify(row.password_hash, password):
            return None
        if self.hasher.check_needs_rehash(row.password_hash):
            self._set_password(row.id, password)
        return Account(row.id, row.username, _aware(row.created))

    def _set_password(self, account_id: int, password: str) -> None:
        digest = self._hash(password)
        with self.Session.begin() as s:
            row = s.get(AccountRow, account_id)
            if row is not None:
                row.password_hash = digest
                row.password_changed = datetime.now(UTC)

    def change_password(self, account: Account, old: str, new: str, keep_cookie: str | None) -> None:
        """401 bad_credentials if ``old`` is wrong; 422 weak_password. Other sessions of the account end."""
        if self.authenticate(account.username, old) is None:
            raise ApiError(401, "bad_credentials", "the current password is not right")
        check_password(account.username, new)
        self._set_password(account.id, new)
        keep = self._session_id(keep_cookie)
        with self.Session.begin() as s:
            q = delete(SessionRow).where(SessionRow.account_id == account.id)
            if keep:
                q = q.where(SessionRow.id_hash != _session_hash(keep))
            s.execute(q)

    def by_name(self, username: str) -> Account | None:
        with self.Session() as s:
            row = s.scalar(select(AccountRow).where(AccountRow.username_key == username_key(username[:64])))
        return None if row is None else Account(row.id, row.username, _aware(row.created))

    # -- sessions ---------------------------------------------------------
    def new_session(self, account: Account) -> str:
        """A new session for ``account``; returns the signed cookie value."""
        session_id = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        with self.Session.begin() as s:
            s.add(SessionRow(id_hash=_session_hash(session_id), account_id=account.id, created=now,
                             expires=now + timedelta(days=SESSION_DAYS)))
            # expired sessions of this account go now (no sweeper process is needed)
            s.execute(delete(SessionRow).where(SessionRow.account_id == account.id, SessionRow.expires < now))
        return self.signer.dumps(session_id)

    def _session_id(self, cookie: str | None) -> str | None:
        if not cookie or len(cookie) > 200:
            return None
        try:
            value = self.signer.loads(cookie)
        except BadSignature:
            return None
        return value if isinstance(value, str) else None

    def from_cookie(self, cookie: str | None) -> Account | None:
        """The account of a session cookie, or None (unsigned, altered, unknown, expired or logged out)."""
        session_id = self._session_id(cookie)
        if session_id is None:
            return None
        with self.Session() as s:
            found = s.execute(select(SessionRow.expires, AccountRow.id, AccountRow.username, AccountRow.created, AccountRow.lang)
                              .join(AccountRow, AccountRow.id == SessionRow.account_id)
                              .where(SessionRow.id_hash == _session_hash(session_id))).first()
        if found is None or _aware(found[0]) < datetime.now(UTC):
            return None
        return Account(found[1], found[2], _aware(found[3]), found[4])

    def set_language(self, account: Account, lang: str) -> None:
        with self.Session.begin() as s:
            row = s.get(AccountRow, account.id)
            if row is not None:
                row.lang = lang

    def end_session(self, cookie: str | None) -> None:
        session_id = self._session_id(cookie)
        if session_id:
            with self.Session.begin() as s:
                s.execute(delete(SessionRow).where(SessionRow.id_hash == _session_hash(session_id)))
