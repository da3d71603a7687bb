"""The error every API answer uses: an HTTP status, a short machine-readable code and a readable message."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: error messages are cut to this many characters (they never echo a client's input whole)
MAX_MESSAGE_CHARS = 300


def short(message: str, n: int = MAX_MESSAGE_CHARS) -> str:
    """``message`` cut to at most ``n`` characters."""
    return message if len(message) <= n else message[:n - 1] + "…"


def clip(value: Any, n: int = 60) -> str:
    """A value for an error message, ``repr``-like and at most about ``n`` characters (input is never echoed whole)."""
    text = value if isinstance(value, str) else f"<{type(value).__name__}>"
    if len(text) > n:
        return repr(text[:n]) + f"… ({len(text):,} characters)"
    return repr(text)


class ApiError(Exception):
    """An error for the client: HTTP status, a short code and a readable message (at most MAX_MESSAGE_CHARS)."""

    def __init__(self, status: int, code: str, message: str, **extra: Any):
        message = short(message)
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra

    def payload(self) -> dict:
        return {"error": self.code, "message": self.message, **self.extra}


def describe_validation_errors(errors: Sequence[Mapping[str, Any]], limit: int = 5) -> str:
    """A short, bounded message for pydantic validation errors: ``where: what`` for the first few.

    The offending input is never echoed (it may be megabytes); only its location and the rule it broke.
    """
    parts: list[str] = []
    for e in errors[:limit]:
        # field names and list positions; not pydantic's names for the branches of a union ("constrained-str")
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body" and (isinstance(x, int) or str(x).isidentifier()))
        part = f"{(loc or 'body')[:100]}: {str(e.get('msg', 'invalid'))[:200]}"
        if part not in parts:
            parts.append(part)
    more = len(errors) - limit
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "") if parts else "malformed request"
