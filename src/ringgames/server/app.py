"""The ASGI app factory: ``create_app(db_url)``; ``ringgames serve`` runs it with uvicorn."""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import json
import os
import re
from collections.abc import Iterable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import GAMES, game_class, load_game
from . import api, learn, live, tv
from . import limits as _limits
from . import lobby as lobby_ws
from . import puzzles as puzzle_api
from .errors import ApiError, describe_validation_errors
from .headers import SecurityHeaders
from .i18n import normalize
from .i18n.web import render_page
from .security import SecuritySettings
from .service import Hub
from .views import without_default_422

STATIC = Path(__file__).parent / "static"
#: where /docs gets Swagger UI's script and style: the ``swagger-ui-py`` package (Swagger UI 5, which reads
#: the OpenAPI 3.1 that FastAPI writes; swagger-ui-bundle's 4.15 could not), so the page works without any
#: CDN (ReDoc, which only exists on a CDN, is switched off).
DOCS_ASSETS = "/static-docs"


def swagger_ui_dir() -> Path:
    """The Swagger UI distribution's folder (found without importing the package's web-framework glue)."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:  # a runtime dependency (pyproject.toml); say which
        raise RuntimeError("the API docs page needs the swagger-ui-py package: pip install 'swagger-ui-py>=25,<26'")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


#: the paths whose errors are JSON (the API, its description, the WebSockets, files); every other path is a page
API_PATHS = ("/api", "/openapi.json", "/healthz")
API_PREFIXES = ("/api/", "/ws/", "/static/", "/static-docs/")
GAME_ID = re.compile(r"[0-9A-Za-z_-]{1,32}")


def is_page_request(request: Request) -> bool:
    """A browser asking for a page (GET or HEAD of a path that is not the API's): its errors are HTML pages."""
    path = request.url.path
    return request.method in ("GET", "HEAD") and path not in API_PATHS and not path.startswith(API_PREFIXES)


def not_found_page(request: Request, what: str = "page") -> HTMLResponse:
    """The 404 page in the request's language: ``what`` is ``page`` (no such address) or ``game`` (no such game)."""
    resp = render_page(request, "404.html", what=what)
    resp.status_code = 404
    return resp


@functools.cache
def start_positions() -> dict[str, dict[str, dict[int, str]]]:
    """The start position of every game, variant and player count (the analysis board's empty position field)."""
    out: dict[str, dict[str, dict[int, str]]] = {}
    for name in GAMES:
        cls = game_class(name)
        lo, hi = cls.player_range
        out[name] = {v: {n: load_game(name, v, n).new_initial_state().position() for n in range(lo, hi + 1)}
                     for v in cls.variants}
    return out


@functools.cache
def lobby_cards() -> list[dict[str, str]]:
    """The lobby's game cards: each game's name, title and start position (standard variant, fewest players)."""
    out = []
    for name in GAMES:
        cls = game_class(name)
        out.append({"game": name, "title": cls.title,
                    "position": start_positions()[name][cls.variants[0]][cls.player_range[0]]})
    return out


#: the environment variable that carries ``ringgames serve --workers N``'s settings (JSON) to its worker processes
SERVE_ENV = "RINGGAMES_SERVE"


def app_from_env() -> FastAPI:
    """The app of one worker process of ``ringgames serve --workers N`` (uvicorn's app factory): the settings are the
    JSON object in ``$RINGGAMES_SERVE`` (``db_url``, ``limit_options``, and :func:`create_app`'s keyword arguments)."""
    cfg = json.loads(os.environ[SERVE_ENV])
    limits = _limits.Limits.from_options(cfg.pop("limit_options", []))
    return create_app(cfg.pop("db_url"), limits=limits, **cfg)


def create_app(db_url: str, *, ai_workers: int = 2, ai_delay: float = 0.3, allowed_origins: Iterable[str] = (),
               behind_https: bool = False, limits: _limits.Limits | None = None, password_hasher=None,
               deep_workers: int | None = None, redis_url: str | None = None, computer_queue: bool = False,
               prestart_computers: bool = False) -> FastAPI:
    """The site. ``allowed_origins``: other origins whose pages may use the API and WebSockets (the site's own
    host always may); ``behind_https``: served over HTTPS by a proxy, so the seat and session cookies are ``Secure``;
    ``limits``: request sizes, uploads, rates (``server/limits.py``; defaults when None); ``password_hasher``: an
    ``argon2.PasswordHasher`` (default: argon2-cffi's, RFC 9106's profile; tests pass a cheap one); ``deep_workers``:
    the computer players' processes for levels 4–5 (``server/computer.py``); ``redis_url``: one of several server
    processes on the same database, their changes fanned out through Redis (``docs/deploy.md``); ``computer_queue``:
    computer moves are jobs in that Redis, run by ``ringgames worker`` processes (``server/jobs.py``);
    ``prestart_computers``: the computer players' quick processes start with the site, not with their first moves."""
    settings = limits or _limits.Limits()
    hub = Hub(db_url, ai_workers=ai_workers, ai_delay=ai_delay, room_idle_seconds=settings.room_idle_seconds,
              max_rooms=settings.max_rooms, computer_games_per_client=settings.computer_games_per_client,
              computer_games_total=settings.computer_games_total, computer_game_actions=settings.computer_game_actions,
              clock_heartbeat=settings.clock_heartbeat_seconds, abort_seconds=settings.abort_first_move_seconds,
              claim_seconds=settings.claim_after_seconds, disconnect_claim_seconds=settings.disconnect_claim_seconds,
              presence_heartbeat=settings.presence_heartbeat_seconds, computer_max_seconds=settings.computer_game_max_seconds, password_hasher=password_hasher,
              deep_workers=deep_workers, redis_url=redis_url, computer_queue=computer_queue,
              prestart_computers=prestart_computers)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()

    app = FastAPI(title="ringgames", version="0.1.0", lifespan=lifespan,
                  docs_url=None, redoc_url=None,
                  description="Play YINSH, Gygès and RINGS: games, seats, actions, draws, records.")
    app.state.hub = hub
    app.state.security = SecuritySettings.make(allowed_origins, behind_https)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        if exc.status == 404 and is_page_request(request):
            return not_found_page(request)
        return JSONResponse(exc.payload(), status_code=exc.status)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):  # FastAPI's own: unparsable body, 404, 405
        if exc.status_code == 404 and is_page_request(request):
            return not_found_page(request)
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(exc.status_code, "error")
        return JSONResponse({"error": code, "message": str(exc.detail)[:300]}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError):
        return JSONResponse({"error": "bad_request", "message": describe_validation_errors(exc.errors())}, status_code=400)

    _limits.install(app, settings)
    app.add_middleware(SecurityHeaders)  # outermost: refusals by the limits (413, 429) carry the headers too
    app.include_router(api.router)
    app.include_router(learn.router)
    app.include_router(tv.router)
    default_openapi = app.openapi

    def openapi() -> dict:  # malformed requests are answered 400 (above), never FastAPI's default 422
        if app.openapi_schema is None:
            app.openapi_schema = without_default_422(default_openapi())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.include_router(live.router)
    app.include_router(lobby_ws.router)
    app.include_router(puzzle_api.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount(DOCS_ASSETS, StaticFiles(directory=swagger_ui_dir()), name="docs-assets")

    async def page(request: Request, template: str, **context):
        """A page, with the logged-in player's name (``me``) for the header's account links."""
        account = await api.account_of(request)
        my_turn = await asyncio.to_thread(api.my_turn_count, hub, account) if account else 0
        profile_lang = account.lang if account else None
        chosen = normalize(request.query_params.get("lang"))
        if account and chosen and chosen != account.lang:  # the profile keeps the player's choice, for every browser
            await asyncio.to_thread(hub.accounts.set_language, account, chosen)
            profile_lang = chosen
        return render_page(request, template, me=account.username if account else None, my_turn=my_turn,
                           profile_lang=profile_lang, **context)

    @app.get("/docs", include_in_schema=False)
    async def docs(request: Request):
        # our own page: Swagger UI started by /static/docs.js, so the page passes the CSP without inline
        # script (the API has no OAuth2, so there is no oauth2-redirect page)
        return await page(request, "docs.html", title=f"{app.title} API", assets=DOCS_ASSETS, openapi_url=app.openapi_url)

    @app.get("/", include_in_schema=False)
    async def lobby(request: Request):
        return await page(request, "index.html", cards=lobby_cards())

    @app.get("/game/{gid}", include_in_schema=False)
    async def game_page(request: Request, gid: str):
        if not GAME_ID.fullmatch(gid):
            return not_found_page(request, "game")
        try:
            await hub.room(gid)
        except ApiError as exc:
            if exc.status == 404:
                return not_found_page(request, "game")
            raise
        return await page(request, "game.html")

    @app.get("/archive", include_in_schema=False)
    async def archive(request: Request):
        return await page(request, "archive.html")

    @app.get("/my-games", include_in_schema=False)
    async def my_games_page(request: Request):
        return await page(request, "mygames.html")

    @app.get("/leaderboard/{key}", include_in_schema=False)
    async def leaderboard_page(request: Request, key: str):
        return await page(request, "leaderboard.html")

    @app.get("/login", include_in_schema=False)
    async def login_page(request: Request):
        return await page(request, "login.html")

    @app.get("/player/{name}", include_in_schema=False)
    async def player_page(request: Request, name: str):
        return await page(request, "player.html")

    @app.get("/analysis", include_in_schema=False)
    async def analysis(request: Request):
        return render_page(request, "analysis.html", starts=start_positions())

    @app.get("/puzzles", include_in_schema=False)
    async def puzzles_page(request: Request):
        return await page(request, "puzzles.html")

    @app.get("/rules/{game}", include_in_schema=False)
    async def rules(request: Request, game: str):
        if not re.fullmatch(r"[a-z]+", game) or game not in GAMES:
            raise ApiError(404, "unknown_game", f"no rules page for {game!r}")
        return await page(request, f"rules-{game}.html", diagrams={d["name"]: d for d in learn.drawn(game)})

    @app.get("/learn", include_in_schema=False)
    async def learn_index(request: Request):
        games = [{"name": g, "title": game_class(g).title, "lessons": ls} for g, ls in learn.LESSONS.items()]
        return await page(request, "learn.html", games=games)

    @app.get("/learn/{game}/{n}", include_in_schema=False)
    async def lesson_page(request: Request, game: str, n: str):
        if not re.fullmatch(r"[a-z]{1,16}", game) or not re.fullmatch(r"[0-9]{1,2}", n):
            return not_found_page(request)
        les = learn.lesson(game, int(n))  # ApiError 404: the 404 page
        count = len(learn.LESSONS[game])
        state = learn.start_state(les)
        data = {"game": game, "n": les.n, "position": les.position, "seat": state.current_player(),
                "legal": [state.action_to_string(a) for a in state.legal_actions()]}
        return await page(request, "lesson.html", lesson=data, les=les, count=count,
                          next=f"/learn/{game}/{les.n + 1}" if les.n < count else "/learn")

    @app.get("/healthz", include_in_schema=False)
    async def health():
        return {"ok": True}

    return app
