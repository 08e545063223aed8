"""The web pages and API of "Play against the bots" (:mod:`arena.service.human_play` underneath).

- ``GET /play``: pick a variant, 2 to 4 seats, the opponents (built-in bots, connected remote bots), the target
  and the UNO penalty rule; the form posts to ``POST /play`` (works without JavaScript) and lands on the game;
- ``POST /api/play`` (JSON ``{"variant", "opponents", "target", "uno_penalty"}``): start a game; answers
  ``{"id", "token", "match_id", "url"}`` and sets the token as an HttpOnly cookie for that browser;
- ``GET /api/play/{id}/stream?after=N``: the seat's messages from number N on as server-sent events (``id`` = the
  message number, so a browser that reconnects resumes with ``Last-Event-ID``); ``GET /api/play/{id}/messages?
  after=N``: the same as JSON (the page reads what came before it was opened this way, then follows the stream);
- ``POST /api/play/{id}/action`` (JSON ``{"index", "decision"}``): answer the waiting decision with the index of a
  legal action (a bad index, no decision waiting or another decision: 400 naming the problem);
- ``GET /api/play/{id}/record``: the finished match's record (seed, actions, hands: :mod:`arena.service.replays`'
  stored form), also when the web front has no store and so no replay page for it (409 before the end);
- ``GET /play/{id}``: the game page (``templates/play.html``, ``static/play.js``).

One client (network prefix: IPv4 /24, IPv6 /64) runs at most a few games at once, and fewer with a connected bot at
the table (:class:`arena.web.guard.ClientLimits`: 429 past them; the starts themselves are rate-limited by
:class:`arena.web.guard.Guard`). A connected bot plays people only with a slot free now and at most half of its
slots, and leaves such a game when a tournament, ladder or gauntlet match needs the slot
(:mod:`arena.service.human_play`): a game it cannot play now is refused with 503 naming the bot. Every game
request needs the game's token: the ``X-Play-Token`` header or the cookie set at the start (an
unknown game: 404; a wrong token: 403). The messages are what the seat's observation holds and nothing else
(:func:`arena.service.human_play.observation_json`). The game's service is ``app.state.human_play`` when the app
sets one, else one made on first use (on ``$REDIS_URL``'s store when that is set, in memory otherwise).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse

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

router = APIRouter()

TOKEN_HEADER = "X-Play-Token"
COOKIE_PREFIX = "uno_play_"
STREAM_WAIT_S = 15.0
"""How long the stream waits for a message before it sends a keep-alive comment."""
REPLAY_PAGE = "/matches/"
"""Where the web front's replay viewer shows a match (``/matches/{match_id}``): the end of a game links there."""
TARGETS = (50, 100, 250, 500)
"""The targets the form offers (the API takes any from 1 to :data:`arena.service.human_play.MAX_TARGET`)."""

_STATUS = {BadSetup: 400, BadAnswer: 400, UnknownSession: 404, WrongToken: 403, TooManyGames: 503, BotBusy: 503}


def card_values() -> dict[str, dict[str, int]]:
    """The points of every face kind in a hand at the end of a round, per variant, as the engine counts them
    (:meth:`arena.engine.cards.Face.value`): the game page sends them to its script, which copies no rule."""
    flip_kinds = (*NUMBER_KINDS, *LIGHT_ACTION_KINDS, *DARK_ACTION_KINDS, *WILD_KINDS)
    classic_kinds = (*NUMBER_KINDS, *CLASSIC_ACTION_KINDS, *WILD_KINDS)
    values: dict[str, dict[str, int]] = {}
    for variant, kinds in (("flip", flip_kinds), ("classic", classic_kinds)):
        values[variant] = {}
        for kind in kinds:
            try:
                values[variant][kind] = Face(None, kind).value(variant)
            except KeyError:  # a wild of the other variant: no such face here
                continue
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


def _error(error: PlayError) -> JSONResponse:
    return JSONResponse({"error": type(error).__name__, "detail": str(error)},
                        status_code=_STATUS.get(type(error), 400))


def _token(request: Request, session_id: str) -> str | None:
    return request.headers.get(TOKEN_HEADER) or request.cookies.get(COOKIE_PREFIX + session_id)


def _session(request: Request, session_id: str) -> HumanSession:
    return human_play_service(request).get(session_id, _token(request, session_id))


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


def _too_many(error: TooMany) -> JSONResponse:
    return JSONResponse({"error": "TooManyRequests", "detail": str(error)}, status_code=429,
                        headers={"Retry-After": error.retry_after})


def _page(request: Request, name: str, context: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    page: HTMLResponse = request.app.state.templates.TemplateResponse(request, name, context,
                                                                      status_code=status_code)
    return page


def _choose_context(request: Request, error: str = "") -> dict[str, Any]:
    service = human_play_service(request)
    return {"title": "Play", "mode": "choose", "opponents": service.opponents(), "error": error,
            "min_seats": MIN_SEATS, "max_seats": MAX_SEATS, "targets": TARGETS, "max_target": MAX_TARGET,
            "deadline_s": service.human_deadline_s}


@router.get("/play", response_class=HTMLResponse, summary="Pick a game against the bots")
def choose_page(request: Request) -> HTMLResponse:
    return _page(request, "play.html", _choose_context(request))


@router.post("/play", response_class=HTMLResponse, summary="Start a game from the form (no JavaScript needed)")
async def start_from_form(request: Request) -> Response:
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    try:
        seats = int(form.get("seats", ["2"])[0])
        target = int(form.get("target", ["500"])[0])
    except ValueError:
        return _page(request, "play.html", _choose_context(request, "seats and target must be whole numbers"), 400)
    opponents = [form.get(f"opponent{seat}", ["heuristic"])[0] for seat in range(1, max(1, seats))]
    data = {"variant": form.get("variant", ["flip"])[0], "opponents": opponents, "target": target,
            "uno_penalty": form.get("uno_penalty", ["auto"])[0]}
    try:
        session = await _start(request, data)
    except PlayError as error:
        return _page(request, "play.html", _choose_context(request, str(error)), _STATUS.get(type(error), 400))
    except TooMany as error:
        return _page(request, "play.html", _choose_context(request, str(error)), 429)
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
        return JSONResponse({"error": "BadSetup", "detail": "the body must be a JSON object"}, status_code=400)
    try:
        session = await _start(request, data)
    except PlayError as error:
        return _error(error)
    except TooMany as error:
        return _too_many(error)
    started = GameStarted(session.id, session.token, session.match_id, f"/play/{session.id}")
    return _with_cookie(JSONResponse(asdict(started), status_code=201), session)


@router.get("/api/play/{session_id}/messages", summary="The seat's messages from number `after` on")
async def messages(request: Request, session_id: str, after: int = 0, wait: float = 0.0) -> Response:
    try:
        session = _session(request, session_id)
    except PlayError as error:
        return _error(error)
    found = await session.messages_after(after, min(max(wait, 0.0), 30.0))
    return JSONResponse({"messages": found, "finished": session.finished})


@router.get("/api/play/{session_id}/stream", summary="The seat's messages as server-sent events")
async def stream(request: Request, session_id: str, after: int = 0) -> Response:
    try:
        session = _session(request, session_id)
    except PlayError as error:
        return _error(error)
    last = request.headers.get("Last-Event-ID", "")
    after = int(last) + 1 if last.isdigit() else max(0, after)

    async def events() -> AsyncIterator[str]:
        nonlocal after
        yield "retry: 1000\n\n"
        while True:
            found = await session.messages_after(after, STREAM_WAIT_S)
            for message in found:
                after = message["n"] + 1
                yield f"id: {message['n']}\ndata: {json.dumps(message, separators=(',', ':'))}\n\n"
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
    try:
        session = _session(request, session_id)
    except PlayError as error:
        return _error(error)
    try:
        data = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return JSONResponse({"error": "BadAnswer", "detail": "the body must be JSON: {\"index\": N}"},
                            status_code=400)
    if not isinstance(data, dict) or "index" not in data:
        return JSONResponse({"error": "BadAnswer", "detail": "the body must name the action: {\"index\": N}"},
                            status_code=400)
    try:
        chosen = session.answer(data["index"], data.get("decision"))
    except PlayError as error:
        return _error(error)
    return JSONResponse(asdict(Answered(True, chosen.text)))


@router.get("/api/play/{session_id}/record", summary="The finished match's record (its stored replay form)")
def record(request: Request, session_id: str) -> Response:
    try:
        session = _session(request, session_id)
    except PlayError as error:
        return _error(error)
    if session.replay is None:
        return JSONResponse({"error": "NotOver", "detail": "the match is not over: its record comes at its end"},
                            status_code=409)
    return JSONResponse(session.replay.to_dict())


@router.get("/play/{session_id}", response_class=HTMLResponse, summary="The game page")
def game_page(request: Request, session_id: str) -> HTMLResponse:
    try:
        session = _session(request, session_id)
    except PlayError as error:
        status = _STATUS.get(type(error), 400)
        return _page(request, "error.html", {"status": status, "code": type(error).__name__, "detail": str(error),
                                             "title": f"{status}"}, status)
    return _page(request, "play.html", {"title": "Your game", "mode": "game", "session_id": session.id,
                                        "match_id": session.match_id, "setup": session.setup,
                                        "replay_page": REPLAY_PAGE, "card_values": card_values()})
