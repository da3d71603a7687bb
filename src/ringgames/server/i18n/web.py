"""Pages in the request's language: Jinja2 templates (``server/templates``) with ``t``/``tn`` bound to
the language, ``<html lang>`` set, the browser's share of the catalog embedded as JSON, and the
``rg_lang`` cookie set when ``?lang=`` chose the language."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from . import (
    COOKIE,
    ENDONYMS,
    LANGS,
    choose_language,
    client_catalog,
    normalize,
    translate,
    translate_plural,
)

TEMPLATES = Path(__file__).parent.parent / "templates"
#: one year, in seconds
COOKIE_MAX_AGE = 365 * 24 * 3600


@cache
def environment() -> Environment:
    """The Jinja2 environment of the pages (autoescaped: text from catalogs or users is never HTML,
    except catalog paragraphs the templates mark ``|safe`` — our own files)."""
    return Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]),
                       trim_blocks=False, auto_reload=False)


def request_language(request: Request, profile: str | None = None) -> str:
    """The language of a page request: ``?lang=``, the logged-in player's ``profile`` choice, the cookie,
    ``Accept-Language``, English."""
    return choose_language(request.query_params.get("lang"), normalize(profile) or request.cookies.get(COOKIE),
                           request.headers.get("accept-language"))


@cache
def _browser_catalog(lang: str) -> dict[str, Any]:
    cat = client_catalog(lang)
    # the rules paragraphs, the diagrams' captions and the lessons' texts are rendered by the server; the browser
    # needs the rest
    server_only = ("rules.", "diagram.", "learn.yinsh.", "learn.gyges.", "learn.rings.")
    cat["messages"] = {k: v for k, v in cat["messages"].items() if not k.startswith(server_only)}
    return cat


def render_page(request: Request, template: str, profile_lang: str | None = None, **context: Any) -> HTMLResponse:
    """``template`` rendered in the request's language (``profile_lang``: the logged-in player's choice), as a response."""
    lang = request_language(request, profile_lang)
    html = environment().get_template(template).render(
        lang=lang, langs=[(code, ENDONYMS[code]) for code in LANGS], catalog=_browser_catalog(lang),
        t=lambda key, **kw: translate(lang, key, **kw),
        tn=lambda key, n, **kw: translate_plural(lang, key, n, **kw), **context)
    resp = HTMLResponse(html, headers={"Cache-Control": "no-cache", "Content-Language": lang,
                                       "Vary": "Accept-Language, Cookie"})
    chosen = normalize(request.query_params.get("lang"))
    if chosen and chosen != request.cookies.get(COOKIE):
        resp.set_cookie(COOKIE, chosen, max_age=COOKIE_MAX_AGE, samesite="lax", httponly=True)
    return resp
