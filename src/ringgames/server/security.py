"""Cross-site request checks (CSRF and WebSocket hijacking) and the seat cookie's flags.

A browser sends the seat cookie (``SameSite=Lax``) with requests that pages of *other origins of the same site*
make, and WebSocket handshakes are not covered by SameSite at all; so every state-changing request and every
WebSocket handshake is checked here:

* ``Sec-Fetch-Site: same-origin`` (or ``none``: typed by the user) is the browser's word that our own page
  asked: allowed.
* Otherwise an ``Origin`` header must name this site: the same host (and port) as the request's ``Host``, or
  one of the configured ``allowed_origins`` (``ringgames serve --allow-origin``).
* A request with neither header comes from a program, not a browser: allowed (it holds no cookie of a victim).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import Request

from .errors import ApiError


@dataclass(frozen=True)
class SecuritySettings:
    """``allowed_origins``: origins (``scheme://host[:port]``) besides the site's own whose pages may use the API;
    ``behind_https``: the site is served over HTTPS (by a proxy), so the seat cookie gets ``Secure``."""

    allowed_origins: tuple[str, ...] = ()
    behind_https: bool = False

    @classmethod
    def make(cls, allowed_origins: Iterable[str] = (), behind_https: bool = False) -> SecuritySettings:
        return cls(tuple(o.strip().rstrip("/").lower() for o in allowed_origins if o.strip()), bool(behind_https))


def cross_site_reason(headers: Mapping[str, str], settings: SecuritySettings) -> str | None:
    """Why a request with ``headers`` is refused as cross-site, or ``None`` if it may go on."""
    fetch_site = (headers.get("sec-fetch-site") or "").lower()
    if fetch_site in ("same-origin", "none"):
        return None
    origin = headers.get("origin")
    if origin is None:  # no browser leaves out both headers on a cross-site request: a program
        return f"cross-site request refused (Sec-Fetch-Site: {fetch_site[:40]})" if fetch_site else None
    o = origin.strip().rstrip("/").lower()
    if o in settings.allowed_origins:
        return None
    host = (headers.get("host") or "").lower()
    parts = urlsplit(o)
    if host and parts.scheme in ("http", "https") and _without_default_port(parts.netloc, parts.scheme) in (
            host, _without_default_port(host, parts.scheme)):
        return None
    return f"cross-site request refused: Origin {origin[:100]!r} is not this site"


def _without_default_port(netloc: str, scheme: str) -> str:
    """``example.org:443`` is ``example.org`` for https (and ``:80`` for http)."""
    default = ":443" if scheme == "https" else ":80"
    return netloc[: -len(default)] if netloc.endswith(default) else netloc


async def same_site_only(request: Request) -> None:
    """FastAPI dependency: state-changing requests (everything but GET/HEAD/OPTIONS) must come from this site."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    reason = cross_site_reason(request.headers, settings_of(request.app))
    if reason:
        raise ApiError(403, "cross_site", reason)


def settings_of(app) -> SecuritySettings:
    return getattr(app.state, "security", None) or SecuritySettings()


def secure_cookie(request: Request) -> bool:
    """Whether the seat cookie gets ``Secure``: ``--behind-https``, or the request came over HTTPS (directly, or
    as a trusted proxy's ``X-Forwarded-Proto`` that uvicorn's proxy headers put into the request's scheme)."""
    return settings_of(request.app).behind_https or request.url.scheme in ("https", "wss")
