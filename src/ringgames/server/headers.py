"""Security headers on every HTTP response (pages, API, static files, errors).

A pure ASGI middleware (it wraps ``http.response.start``; WebSocket traffic passes through untouched):

* ``Content-Security-Policy``: everything from our own origin only — no inline script, no inline
  style attributes, no ``eval``, no plugins, no ``<base>``, forms post to us only, and no framing
  (``frame-ancestors 'none'``). ``img-src`` also allows ``data:`` (the pages' empty favicon and
  Swagger UI's icons). ``connect-src 'self'`` covers the game WebSocket on the same host.
* ``X-Frame-Options: DENY`` for browsers without ``frame-ancestors``.
* ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: same-origin``,
  ``Cross-Origin-Opener-Policy: same-origin``.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")

HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


class SecurityHeaders:
    """Adds :data:`HEADERS` to every HTTP response (a header the app already set is kept)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                headers.extend((k, v) for k, v in HEADERS if k not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
