"""The ASGI app factory: ``create_app(db_url)``; ``ringgames serve`` runs it with uvicorn."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from .. import GAMES
from . import api, live
from .service import ApiError, Hub

STATIC = Path(__file__).parent / "static"


def create_app(db_url: str, *, ai_workers: int = 2, ai_delay: float = 0.3) -> FastAPI:
    hub = Hub(db_url, ai_workers=ai_workers, ai_delay=ai_delay)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()

    app = FastAPI(title="ringgames", version="0.1.0", lifespan=lifespan,
                  description="Play YINSH, Gygès and RINGS: games, seats, actions, draws, records.")
    app.state.hub = hub

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        return JSONResponse(exc.payload(), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError):
        errs = exc.errors()
        msg = "; ".join(f"{'.'.join(str(x) for x in e.get('loc', ()))}: {e.get('msg')}" for e in errs[:5])
        return JSONResponse({"error": "bad_request", "message": msg or "malformed request"}, status_code=400)

    app.include_router(api.router)
    app.include_router(live.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

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
