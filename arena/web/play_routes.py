"""The web pages and API of "Play against the bots" (:mod:`arena.service.human_play` underneath; the routes and
their rules are in docs/web.md). Every game request needs the game's token (the ``X-Play-Token`` header or the
cookie set at the start: an unknown game is 404, a wrong token 403); one client's games at once are capped by
:class:`arena.web.guard.ClientLimits`. The messages are what the seat's observation holds and nothing else, encoded
by :mod:`arena.web.seat_view`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse

from arena.engine import Observation
from arena.engine.cards import (
    CLASSIC_ACTION_KINDS,
    DARK_ACTION_KINDS,
    LIGHT_ACTION_KINDS,
    NUMBER_KINDS,
    WILD_KINDS,
    Face,
)
from arena.players import BotFactory
from arena.service.human_play import (
    MAX_SEATS,
    MAX_TARGET,
    MIN_SEATS,
    BadAnswer,
    BadSetup,
    BotBusy,
    BotProcesses,
    GameSetup,
    HumanPlayService,
    HumanSession,
    Opponent,
    PlayError,
    TooManyGames,
    UnknownSession,
    WrongToken,
)
from arena.store import Store
from arena.web.guard import TooMany, client_ledger, client_of
from arena.web.pages import error_page, render
from arena.web.seat_view import action_data, observation_data

router = APIRouter()

TOKEN_HEADER = "X-Play-Token"
COOKIE_PREFIX = "uno_play_"
STREAM_WAIT_S = 15.0
"""How long the stream waits for a message before it sends a keep-alive comment."""
REPLAY_PAGE = "/matches/"
TARGETS = (50, 100, 250, 500)
"""The targets the form offers (the API takes any from 1 to :data:`arena.service.human_play.MAX_TARGET`)."""

_STATUS: dict[type[Exception], int] = {BadSetup: 400, BadAnswer: 400, UnknownSession: 404, WrongToken: 403,
                                       TooManyGames: 503, BotBusy: 503}


def message_data(message: dict[str, Any]) -> dict[str, Any]:
    """A message of the session as the page gets it: its observation and legal actions as :mod:`arena.web.seat_view`
    encodes them."""
    data = dict(message)
    if isinstance(data.get("observation"), Observation):
        data["observation"] = observation_data(data["observation"])
    if "legal" in data:
        data["legal"] = [action_data(action, index) for index, action in enumerate(data["legal"])]
    return data


def card_values() -> dict[str, dict[str, int]]:
    """The points of every face kind per variant, as the engine counts them: the game page sends them to its
    script, which copies no rule."""
    flip_kinds = (*NUMBER_KINDS, *LIGHT_ACTION_KINDS, *DARK_ACTION_KINDS, *WILD_KINDS)
    classic_kinds = (*NUMBER_KINDS, *CLASSIC_ACTION_KINDS, *WILD_KINDS)
    values: dict[str, dict[str, int]] = {}
    for variant, kinds in (("flip", flip_kinds), ("classic", classic_kinds)):
        values[variant] = {}
        for kind in kinds:
            with contextlib.suppress(KeyError):  # a wild of the other variant: no such face here
                values[variant][kind] = Face(None, kind).value(variant)
    return values


def human_play_service(request: Request) -> HumanPlayService:
    """The app's :class:`HumanPlayService` (``app.state.human_play``), made on first use when the app set none
    (with the app's built-in bots, ``app.state.make_bot``; the search bots in ``app.state.search_workers``
    processes of their own, :mod:`arena.service.bot_processes`, when the app names some)."""
    state = request.app.state
    service: HumanPlayService | None = getattr(state, "human_play", None)
    if service is None:
        store = Store.from_url() if os.environ.get("REDIS_URL") else None
        make_bot: BotFactory = state.make_bot
        workers: int | None = getattr(state, "search_workers", None)
        processes = state.bot_processes = BotProcesses(workers) if workers else None
        service = state.human_play = HumanPlayService(store, make_bot=make_bot, bot_processes=processes)
    return service


def close_bot_processes(state: Any) -> None:
    """Stop the processes of the search bots the app started (the web command's shutdown)."""
    processes: BotProcesses | None = getattr(state, "bot_processes", None)
    if processes is not None:
        processes.close()


def install(app: FastAPI) -> None:
    """Add the play pages to ``app``, with their answer to a game request refused (:func:`play_error`)."""
    app.include_router(router)
    for refused in (PlayError, TooMany):
        app.add_exception_handler(refused, play_error)


def play_error(request: Request, error: Exception) -> Response:
    """The app's answer to a :class:`PlayError` or a client past its caps of games (:class:`TooMany`): JSON naming
    the problem under ``/api/``, else the error page."""
    if isinstance(error, TooMany):
        status, name, headers = 429, "TooManyRequests", {"Retry-After": error.retry_after}
    else:
        status, name, headers = _STATUS.get(type(error), 400), type(error).__name__, None
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": name, "detail": str(error)}, status_code=status, headers=headers)
    return error_page(request, status, name, str(error), headers)


def _session(request: Request, session_id: str) -> HumanSession:
    token = request.headers.get(TOKEN_HEADER) or request.cookies.get(COOKIE_PREFIX + session_id)
    return human_play_service(request).get(session_id, token)


def _with_cookie(response: Response, session: HumanSession) -> Response:
    response.set_cookie(COOKIE_PREFIX + session.id, session.token, httponly=True, samesite="strict",
                        max_age=24 * 3600, path="/")
    return response


async def _start(request: Request, data: Any) -> HumanSession:
    """Start a game for the request's client, within its caps of games at once (:class:`TooMany` past one)."""
    setup = GameSetup.from_json(data)
    ledger = client_ledger(request)
    client = client_of(request.scope)
    ledger.check_games(client, setup.remote)
    session = await human_play_service(request).start(setup)
    ledger.games(client, lambda: session.finished, setup.remote)
    return session


def _choose_context(request: Request, error: str = "") -> dict[str, Any]:
    service = human_play_service(request)
    return {"title": "Play", "mode": "choose", "opponents": service.opponents(), "error": error,
            "min_seats": MIN_SEATS, "max_seats": MAX_SEATS, "targets": TARGETS, "max_target": MAX_TARGET,
            "deadline_s": service.human_deadline_s}


@router.get("/play", response_class=HTMLResponse, summary="Pick a game against the bots")
def choose_page(request: Request) -> HTMLResponse:
    return render(request, "play.html", _choose_context(request))


@router.post("/play", response_class=HTMLResponse, summary="Start a game from the form (no JavaScript needed)")
async def start_from_form(request: Request) -> Response:
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    try:
        seats = int(form.get("seats", ["2"])[0])
        target = int(form.get("target", ["500"])[0])
    except ValueError:
        return render(request, "play.html", _choose_context(request, "seats and target must be whole numbers"), 400)
    opponents = [form.get(f"opponent{seat}", ["heuristic"])[0] for seat in range(1, max(1, seats))]
    data = {"variant": form.get("variant", ["flip"])[0], "opponents": opponents, "target": target,
            "uno_penalty": form.get("uno_penalty", ["auto"])[0]}
    try:
        session = await _start(request, data)
    except (PlayError, TooMany) as error:
        status = 429 if isinstance(error, TooMany) else _STATUS.get(type(error), 400)
        return render(request, "play.html", _choose_context(request, str(error)), status)
    return _with_cookie(RedirectResponse(f"/play/{session.id}", status_code=303), session)


@dataclass(frozen=True)
class PlayOptions:
    """What a game may be set up with: the variants, the seats, the opponents to pick now, the UNO penalties, the
    highest target score and the person's time per decision."""

    variants: list[str]
    min_seats: int
    max_seats: int
    opponents: list[Opponent]
    uno_penalty: list[str]
    max_target: int
    human_deadline_s: float


@dataclass(frozen=True)
class GameStarted:
    """A game started: its session id, the token that answers for the person's seat, its match and its page."""

    id: str
    token: str
    match_id: str
    url: str


@dataclass(frozen=True)
class Answered:
    """The person's answer, accepted: the action it named."""

    ok: bool
    action: str


@router.get("/api/play", summary="What a game may be set up with")
def play_options(request: Request) -> PlayOptions:
    service = human_play_service(request)
    return PlayOptions(["flip", "classic"], MIN_SEATS, MAX_SEATS, service.opponents(), ["auto", "catch"], MAX_TARGET,
                       service.human_deadline_s)


@router.post("/api/play", summary="Start a game against the bots", response_model=GameStarted, status_code=201)
async def start_game(request: Request) -> Response:
    try:
        data = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise BadSetup("the body must be a JSON object") from None
    session = await _start(request, data)
    started = GameStarted(session.id, session.token, session.match_id, f"/play/{session.id}")
    return _with_cookie(JSONResponse(asdict(started), status_code=201), session)


@router.get("/api/play/{session_id}/messages", summary="The seat's messages from number `after` on")
async def messages(request: Request, session_id: str, after: int = 0, wait: float = 0.0) -> Response:
    session = _session(request, session_id)
    found = await session.messages_after(after, min(max(wait, 0.0), 30.0))
    return JSONResponse({"messages": [message_data(m) for m in found], "finished": session.finished})


@router.get("/api/play/{session_id}/stream", summary="The seat's messages as server-sent events")
async def stream(request: Request, session_id: str, after: int = 0) -> Response:
    session = _session(request, session_id)
    last = request.headers.get("Last-Event-ID", "")
    after = int(last) + 1 if last.isdigit() else max(0, after)

    async def events() -> AsyncIterator[str]:
        nonlocal after
        yield "retry: 1000\n\n"
        while True:
            found = await session.messages_after(after, STREAM_WAIT_S)
            for message in found:
                after = message["n"] + 1
                yield f"id: {message['n']}\ndata: {json.dumps(message_data(message), separators=(',', ':'))}\n\n"
            if session.finished and after >= len(session.messages):
                return
            if not found:
                if await request.is_disconnected():
                    return
                yield ": still here\n\n"
            await asyncio.sleep(0)

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@router.post("/api/play/{session_id}/action", summary="Answer the waiting decision with a legal action's index",
             response_model=Answered)
async def action(request: Request, session_id: str) -> Response:
    session = _session(request, session_id)
    try:
        data = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise BadAnswer("the body must be JSON: {\"index\": N}") from None
    if not isinstance(data, dict) or "index" not in data:
        raise BadAnswer("the body must name the action: {\"index\": N}")
    chosen = session.answer(data["index"], data.get("decision"))
    return JSONResponse(asdict(Answered(True, chosen.text)))


@router.get("/api/play/{session_id}/record", summary="The finished match's record (its stored replay form)")
def record(request: Request, session_id: str) -> Response:
    session = _session(request, session_id)
    if session.replay is None:
        return JSONResponse({"error": "NotOver", "detail": "the match is not over: its record comes at its end"},
                            status_code=409)
    return JSONResponse(session.replay.to_dict())


@router.get("/play/{session_id}", response_class=HTMLResponse, summary="The game page")
def game_page(request: Request, session_id: str) -> HTMLResponse:
    session = _session(request, session_id)
    return render(request, "play.html", {"title": "Your game", "mode": "game", "session_id": session.id,
                                        "match_id": session.match_id, "setup": session.setup,
                                        "replay_page": REPLAY_PAGE, "card_values": card_values()})
