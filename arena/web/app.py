"""The web front's ASGI app: :func:`create_app` wires the pages, their JSON twins under ``/api/...``, the live
streams (server-sent events), the static files and the metrics around one :class:`arena.client.ArenaClient`.

Every page reads through the organizer API (the same road as the CLI: :mod:`arena.web.reader`, the typed client's
methods only); the shaping of its answers into what a page shows lives in :mod:`arena.web.views` (the API's facts
as they are, turned into small dataclasses), the HTML in
``arena/web/templates`` (Jinja2, autoescaped: a bot name is always text), the styles and the small scripts in
``arena/web/static`` (no CDN, no external font, no build step). The play pages of :mod:`arena.web.play_routes` are
included when that module exists: they are the one part that runs a service on the store directly (people's own
games, not a reading of the arena's facts); no other module of the web front imports the store or the services.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import grpc
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from arena.client.legends import BATCH_NOTE, INTERVAL_NOTE, OPENSKILL_NOTE, UNCLUSTERED_NOTE, batch_scope
from arena.players import BotFactory
from arena.web.guard import ClientLedger, ClientLimits, Guard, address_of, private_client
from arena.web.metrics_routes import WebMetrics
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
"""How often a live page looks for changes (``uno-arena web --poll``): a match recorded reaches 200 viewers within
about 0.6 s (p99) without slowing the tournament (the web benchmark, docs/benchmarks.md)."""

class WebSettings:
    """What the pages need besides the client: live poll interval, Grafana link, page title."""

    def __init__(self, *, poll_s: float = DEFAULT_POLL_S, grafana_url: str = "", title: str = "UNO Arena") -> None:
        if poll_s <= 0:
            raise ValueError(f"poll_s must be positive, got {poll_s}")
        self.poll_s = poll_s
        self.grafana_url = grafana_url
        self.title = title


def templates() -> Jinja2Templates:
    """The Jinja2 environment of the pages (autoescaping on for .html, as Starlette sets it), with the legend of
    the ratings and intervals the CLI prints (:data:`arena.client.legends.OPENSKILL_NOTE` and its neighbours) and the
    nouns that follow a count (``plural(n, "match", "matches")``, ``counted(n, "tournament")``)."""
    found = Jinja2Templates(directory=str(TEMPLATES_DIR))
    found.env.globals.update(openskill_note=OPENSKILL_NOTE, batch_note=BATCH_NOTE, interval_note=INTERVAL_NOTE,
                             unclustered_note=UNCLUSTERED_NOTE, batch_scope=batch_scope, plural=plural,
                             counted=counted)
    return found


def create_app(client: ArenaClient, *, make_bot: BotFactory, admin_client: ArenaClient | None = None,
               poll_s: float = DEFAULT_POLL_S, grafana_url: str = "", title: str = "UNO Arena",
               metrics: WebMetrics | None = None, limits: ClientLimits | None = None,
               search_workers: int | None = None) -> FastAPI:
    """The web front reading through ``client`` (an :class:`arena.client.ArenaClient`; give it no token: whatever
    it may read is shown to everyone): pages, ``/api/...`` JSON, live streams under ``/events/...``, ``/static``,
    ``/metrics`` (answered only to loopback and private-network clients: a Prometheus beside it, never the public).
    ``admin_client`` (optional, with the admin token) is used only to count each bot's incidents by
    kind and to read the bots' description, version and connected state (arena.web.views.PublicBot);
    ``poll_s`` is how often live streams look for changes, ``grafana_url`` a link on the status page; ``make_bot``
    makes the built-in bots of "play against the bots" (``bots.make_bot``, passed in by the web command);
    ``limits`` what one client may do (:class:`arena.web.guard.ClientLimits`; the defaults when None);
    ``search_workers`` the processes that play the search bots of people's games (:mod:`arena.web.play_routes`; None:
    they
    play in this process, as a test's app does). Every request
    passes :class:`arena.web.guard.Guard` (CSRF, per-client limits, security headers). The API is described by
    ``/openapi.json`` and, for people, by the ``/docs`` page (rendered here: FastAPI's Swagger UI and ReDoc load
    their assets from a CDN, so they are off)."""
    from arena.web import (
        api_docs,
        card_sheet,
        competition_routes,
        gauntlet_routes,
        pages,
        play_routes,
        submission_routes,
    )

    app = FastAPI(title=f"{title} web front", version="1", docs_url=None, redoc_url=None,
                  description="The arena's pages and their JSON twins, read through the organizer API.")
    app.state.client = client
    app.state.admin_client = admin_client
    app.state.make_bot = make_bot
    app.state.reader = ArenaReader(client, admin_client)
    app.state.feeds = {}  # the live feeds being followed (arena.web.pages.feed), by page
    app.state.settings = WebSettings(poll_s=poll_s, grafana_url=grafana_url, title=title)
    app.state.templates = templates()
    app.state.metrics = metrics if metrics is not None else WebMetrics()
    app.state.ledger = ClientLedger(limits if limits is not None else ClientLimits())
    app.state.search_workers = search_workers
    app.add_middleware(Guard, ledger=app.state.ledger)
    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")
    app.include_router(pages.router)
    app.include_router(play_routes.router)
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
        page: HTMLResponse = app.state.templates.TemplateResponse(
            request, "error.html", {"status": status, "code": name, "detail": details, "title": f"{status}"},
            status_code=status)
        return page

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        if request.url.path.startswith(("/api/", "/events/")):
            return JSONResponse({"detail": error.detail}, status_code=error.status_code, headers=error.headers)
        page: HTMLResponse = app.state.templates.TemplateResponse(
            request, "error.html", {"status": error.status_code, "code": "", "detail": error.detail,
                                    "title": f"{error.status_code}"}, status_code=error.status_code,
            headers=error.headers)
        return page

    @app.get("/metrics", include_in_schema=False)
    def metrics_page(request: Request) -> Response:
        if not private_client(address_of(request.scope)):
            raise HTTPException(status_code=404, detail="Not Found")
        return Response(generate_latest(app.state.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    return app
