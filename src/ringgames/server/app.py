"""The ASGI app factory: ``create_app(db_url)``; ``ringgames serve`` runs it with uvicorn."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import (
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from .. import GAMES
from . import api, live
from . import limits as _limits
from .service import ApiError, Hub, short

STATIC = Path(__file__).parent / "static"
#: where /docs gets Swagger UI's script and style: the ``swagger-ui-bundle`` package, so the
#: page works without any CDN (ReDoc, which only exists on a CDN, is switched off).
DOCS_ASSETS = "/static-docs"


def swagger_ui_dir() -> Path:
    try:
        import swagger_ui_bundle
    except ImportError as exc:  # a runtime dependency (pyproject.toml); say which one is missing
        raise RuntimeError("the API docs page needs the swagger-ui-bundle package: pip install 'swagger-ui-bundle>=1.1,<2'") from exc
    return Path(swagger_ui_bundle.swagger_ui_path)


def create_app(db_url: str, *, ai_workers: int = 2, ai_delay: float = 0.3, limits: _limits.Limits | None = None) -> FastAPI:
    """The site; ``limits``: request sizes, uploads, rates (``server/limits.py``; defaults when None)."""
    settings = limits or _limits.Limits()
    hub = Hub(db_url, ai_workers=ai_workers, ai_delay=ai_delay, room_idle_seconds=settings.room_idle_seconds,
              max_rooms=settings.max_rooms)

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

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        return JSONResponse(exc.payload(), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError):
        errs = exc.errors()
        msg = "; ".join(f"{'.'.join(str(x) for x in e.get('loc', ()))}: {e.get('msg')}" for e in errs[:5])
        return JSONResponse({"error": "bad_request", "message": short(msg) or "malformed request"}, status_code=400)

    _limits.install(app, settings)
    app.include_router(api.router)
    app.include_router(live.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount(DOCS_ASSETS, StaticFiles(directory=swagger_ui_dir()), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs():
        return get_swagger_ui_html(openapi_url=app.openapi_url, title=f"{app.title} API",
                                   swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
                                   swagger_favicon_url=f"{DOCS_ASSETS}/favicon-32x32.png",
                                   oauth2_redirect_url="/docs/oauth2-redirect")

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    async def docs_redirect():
        return get_swagger_ui_oauth2_redirect_html()

    def page(name: str):
        return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

    @app.get("/", include_in_schema=False)
    async def lobby():
        return page("index.html")

    @app.get("/game/{gid}", include_in_schema=False)
    async def game_page(gid: str):
        return page("game.html")

    @app.get("/archive", include_in_schema=False)
    async def archive():
        return page("archive.html")

    @app.get("/rules/{game}", include_in_schema=False)
    async def rules(game: str):
        if not re.fullmatch(r"[a-z]+", game) or game not in GAMES:
            raise ApiError(404, "unknown_game", f"no rules page for {game!r}")
        return page(f"rules-{game}.html")

    @app.get("/healthz", include_in_schema=False)
    async def health():
        return {"ok": True}

    return app
