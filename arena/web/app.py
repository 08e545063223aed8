"""The web front's ASGI app: :func:`create_app` wires the pages, their JSON twins under ``/api/...``, the live
streams (server-sent events), the static files and the metrics around one :class:`arena.client.ArenaClient`.
Templates are Jinja2, autoescaped (a bot name is always text); the scripts and styles are static files (no CDN, no
build step).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import grpc
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from arena.client.legends import BATCH_NOTE, INTERVAL_NOTE, OPENSKILL_NOTE, batch_scope
from arena.players import BotFactory
from arena.web.guard import ClientLedger, ClientLimits, Guard, address_of, private_client
from arena.web.metrics_routes import WebMetrics
from arena.web.pages import error_page
from arena.web.reader import ArenaReader
from arena.web.views import counted, plural

if TYPE_CHECKING:
    from arena.client import ArenaClient

HERE = Path(__file__).parent
TEMPLATES_DIR = HERE / "templates"
STATIC_DIR = HERE / "static"

_HTTP_STATUS = {
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}


DEFAULT_POLL_S = 0.5
"""How often a live page looks for changes (``uno-arena web --poll``; the web benchmark, docs/benchmarks.md)."""


@dataclass(frozen=True)
class WebSettings:
    """What the pages need besides the client: live poll interval, Grafana link."""

    poll_s: float = DEFAULT_POLL_S
    grafana_url: str = ""

    def __post_init__(self) -> None:
        if self.poll_s <= 0:
            raise ValueError(f"poll_s must be positive, got {self.poll_s}")


def templates() -> Jinja2Templates:
    """The Jinja2 environment of the pages, with the legends of the ratings the CLI prints too and the nouns that
    follow a count (``plural(n, "match", "matches")``, ``counted(n, "tournament")``)."""
    found = Jinja2Templates(directory=str(TEMPLATES_DIR))
    found.env.globals.update(openskill_note=OPENSKILL_NOTE, batch_note=BATCH_NOTE, interval_note=INTERVAL_NOTE,
                             batch_scope=batch_scope, plural=plural, counted=counted)
    return found


def create_app(client: ArenaClient, *, make_bot: BotFactory, admin_client: ArenaClient | None = None,
               poll_s: float = DEFAULT_POLL_S, grafana_url: str = "", limits: ClientLimits | None = None,
               search_workers: int | None = None) -> FastAPI:
    """The web front reading through ``client`` (give it no token: whatever it may read is shown to everyone).
    ``admin_client`` (optional) only counts each bot's incidents and reads the bots' :class:`arena.web.views.PublicBot`
    fields; ``make_bot`` makes the built-in bots of "play against the bots"; ``limits`` what one client may do;
    ``search_workers`` the processes that play the search bots of people's games (None: in this process).
    ``/metrics`` answers only loopback and private-network clients; FastAPI's Swagger UI and ReDoc load their assets
    from a CDN, so they are off (``/docs`` is rendered here)."""
    from arena.web import (
        api_docs,
        card_sheet,
        competition_routes,
        gauntlet_routes,
        pages,
        play_routes,
        submission_routes,
    )

    app = FastAPI(title="UNO Arena web front", version="1", docs_url=None, redoc_url=None,
                  description="The arena's pages and their JSON twins, read through the organizer API.")
    app.state.make_bot = make_bot
    app.state.reader = ArenaReader(client, admin_client)
    app.state.feeds = {}  # the live feeds being followed (arena.web.pages.live_stream), by page
    app.state.settings = WebSettings(poll_s, grafana_url)
    app.state.templates = templates()
    app.state.metrics = WebMetrics()
    app.state.ledger = ClientLedger(limits if limits is not None else ClientLimits())
    app.state.search_workers = search_workers
    app.add_middleware(Guard, ledger=app.state.ledger)
    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")
    app.include_router(pages.router)
    play_routes.install(app)
    app.include_router(competition_routes.router)
    app.include_router(gauntlet_routes.router)
    app.include_router(submission_routes.router)
    app.include_router(api_docs.router)
    app.include_router(card_sheet.router)

    @app.middleware("http")
    async def measure(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        started = time.perf_counter()
        response = await call_next(request)
        route = request.scope.get("route")
        path = getattr(route, "path", None) or ("/static" if request.url.path.startswith("/static/") else "other")
        app.state.metrics.observe(path, request.method, response.status_code, time.perf_counter() - started)
        return response

    @app.exception_handler(grpc.RpcError)
    async def rpc_error(request: Request, error: grpc.RpcError) -> Response:
        code = error.code() if hasattr(error, "code") else None
        details = error.details() if hasattr(error, "details") else str(error)
        status = _HTTP_STATUS.get(code, 502) if code is not None else 502
        name = code.name if code is not None else "ERROR"
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": name, "detail": details}, status_code=status)
        return error_page(request, status, name, details)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        if request.url.path.startswith(("/api/", "/events/")):
            return JSONResponse({"detail": error.detail}, status_code=error.status_code, headers=error.headers)
        return error_page(request, error.status_code, "", error.detail, error.headers)

    @app.get("/metrics", include_in_schema=False)
    def metrics_page(request: Request) -> Response:
        if not private_client(address_of(request.scope)):
            raise HTTPException(status_code=404, detail="Not Found")
        return Response(generate_latest(app.state.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    return app
