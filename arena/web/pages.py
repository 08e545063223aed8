"""The pages of the web front and their JSON twins (``/api/...``) and live streams (``/events/...``).

Every route reads through :class:`arena.web.reader.ArenaReader` (the organizer API's typed client) and shapes
with :mod:`arena.web.views` (the API's facts as they are: no rating, tier or interval is computed here); HTML
comes from the Jinja2 templates (autoescaped). Bad input (an unknown status filter, a step or page out of range,
a seat that is not one) answers 400 naming the problem; the API's refusals keep their meaning (404 for an unknown
tournament or match, 403 for a replay of a running tournament, ...).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields, replace
from enum import Enum
from typing import Any, ParamSpec, TypeVar
from urllib.parse import parse_qs, quote, urlencode

import grpc
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from arena.client import plain, state_name
from arena.protocol import arena_pb2
from arena.protocol.statuses import ENDED_TOURNAMENT_STATES
from arena.tournament.status import GauntletStatus, TournamentStatus
from arena.web import views
from arena.web.bot_pages import BotSummary, UnknownBot, bot_summary
from arena.web.gauntlet_views import GauntletRow
from arena.web.guard import Kind, TooMany, client_ledger, client_of
from arena.web.live import LiveFeed
from arena.web.reader import ArenaReader
from arena.web.replay_frames import PAGE_FRAMES, Frames, ReplayHeader

router = APIRouter()
P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
MATCHES_PER_PAGE = 50
TABLES_SHOWN = 100
TOURNAMENTS_PER_PAGE = 25
SCAN_PAGES = 8
"""Pages of ``ListTournaments`` one page of the tournaments list reads at most while it leaves competition blocks
out (so a flood of blocks costs a bounded read)."""
STANDINGS_EVERY_S = 1.0
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
ENDED_STATE_NAMES = frozenset(state_name(state) for state in ENDED_TOURNAMENT_STATES)
STATE_FILTERS = tuple(status.value for status in TournamentStatus)


def reader(request: Request) -> ArenaReader:
    arena: ArenaReader = request.app.state.reader
    return arena


def render(request: Request, template: str, context: dict[str, Any], status_code: int = 200,
           headers: Mapping[str, str] | None = None) -> HTMLResponse:
    response: HTMLResponse = request.app.state.templates.TemplateResponse(request, template, context,
                                                                          status_code=status_code, headers=headers)
    return response


def error_page(request: Request, status: int, code: str, detail: object,
               headers: Mapping[str, str] | None = None) -> HTMLResponse:
    """The error page: the status, the error's name (``code``) and the line naming the problem."""
    return render(request, "error.html", {"status": status, "code": code, "detail": detail, "title": f"{status}"},
                  status, headers)


def bad_request(detail: str) -> HTTPException:
    return HTTPException(status_code=400, detail=detail)


@contextmanager
def bad_input() -> Iterator[None]:
    """A ValueError naming bad input (a page, step or seat out of range) becomes a 400 with its line."""
    try:
        yield
    except ValueError as error:
        raise bad_request(str(error)) from None


def paged(items: Sequence[T], page: int, size: int) -> tuple[list[T], int]:
    """:func:`arena.web.views.page_of`, a page out of range a 400."""
    with bad_input():
        return views.page_of(items, page, size)


TOKEN_REFUSED = frozenset({grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED})
"""The API's answers to a token that is not the bot's."""


TOKEN_FORM_BYTES = 4096
"""The largest body of the incident details' form read (a token and its field name fit many times over)."""


async def read_capped(request: Request, limit: int, what: str, fix: str) -> bytes:
    """The request's body, at most ``limit`` bytes: a 413 ("the {what} is too large: {fix}") from a larger
    ``Content-Length``, or as soon as more came (the rest is never read)."""

    def too_large(told: str) -> HTTPException:
        return HTTPException(status_code=413, detail=f"the {what} is too large{told}: {fix}")

    declared = request.headers.get("content-length", "")
    if declared.strip().isdigit() and int(declared) > limit:
        raise too_large(f" ({int(declared)} bytes)")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_large("")
    return bytes(body)


def admit_author_form(request: Request) -> None:
    """Before the body of a bot's form (its token inside) is read: 429 with a ``Retry-After`` when the client had
    too many tokens refused lately or posts these forms too often (a flood of bodies or guessed tokens costs
    nothing)."""
    ledger, client = client_ledger(request), client_of(request.scope)
    try:
        ledger.check(client, Kind.REFUSED_TOKEN)
        ledger.spend(client, Kind.AUTHOR_FORM)
    except TooMany as error:
        raise HTTPException(status_code=429, detail=str(error), headers={"Retry-After": error.retry_after}) from None


async def as_author(request: Request, call: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``call`` (an API call with the token the author gave) in the thread pool; a token the API refuses is
    counted against the request's client (:data:`TOKEN_REFUSED`: its refused tokens), and the error goes on."""
    try:
        return await run_in_threadpool(call, *args, **kwargs)
    except grpc.RpcError as error:
        if isinstance(error, grpc.Call) and error.code() in TOKEN_REFUSED:
            client_ledger(request).charge(client_of(request.scope), Kind.REFUSED_TOKEN)
        raise


async def live_stream(request: Request, key: str, read: Callable[[], Any], check: Callable[[], object],
                      done: Callable[[Any], bool] = lambda value: False) -> StreamingResponse:
    """The server-sent events of the shared live feed ``key``, made on first use once ``check()`` raised nothing (an
    unknown tournament or pool answers 404 before any feed polls for it), forgotten when idle."""
    feeds: dict[str, LiveFeed] = request.app.state.feeds
    if key not in feeds:
        await run_in_threadpool(check)
    live = feeds.setdefault(key, LiveFeed(read, request.app.state.settings.poll_s, done,
                                          on_idle=lambda: feeds.pop(key, None)))
    return StreamingResponse(live.follow(), media_type="text/event-stream", headers=SSE_HEADERS)


@router.get("/", include_in_schema=False)
def index() -> RedirectResponse:
    return RedirectResponse("/leaderboard")


# -- leaderboard ---------------------------------------------------------------------------------------------


LEADERBOARD_ROWS = 100


@dataclass(frozen=True)
class Leaderboards:
    """A page of one pool's leaderboard, or every pool's first, and the notes that explain their columns."""

    pools: list[views.PoolBoard]
    pool: str
    page: int
    tier_note: str = views.TIER_NOTE
    order_note: str = views.ORDER_NOTE
    reliability_note: str = views.RELIABILITY_NOTE


def leaderboard_data(arena: ArenaReader, pool: str = "", page: int = 1) -> Leaderboards:
    """Page ``page`` of pool ``pool``, or (no pool) the first page of every pool."""
    boards = arena.leaderboards()
    if pool:
        boards = [board for board in boards if board.key == pool]
        if not boards:
            raise HTTPException(status_code=404, detail=f"no rating pool {pool!r} has results")
    shown = []
    for board in boards:
        rows, pages = paged(board.rows, page if pool else 1, LEADERBOARD_ROWS)
        shown.append(replace(board, rows=rows, page=page if pool else 1, pages=pages))
    return Leaderboards(shown, pool, page)


@router.get("/api/leaderboard", tags=["leaderboard"])
def api_leaderboard(request: Request, pool: str = Query("", description="one rating pool's key; unset: every pool"),
                    page: int = Query(1, ge=1, description=f"with pool: the page ({LEADERBOARD_ROWS} rows each)")
                    ) -> Leaderboards:
    """One leaderboard per rating pool (variant and rule options, or a competition), as the organizer API's
    GetLeaderboard gives it: rank, tier, bot, rating with its 95% interval, matches, win rate with its 95% interval,
    reliability counters; and the bot's connected state and version now; paginated."""
    return leaderboard_data(reader(request), pool, page)


def live_hash(html: str) -> str:
    """A short digest of a live region's HTML: the page's script skips an update that changes nothing."""
    return hashlib.sha256(html.encode()).hexdigest()[:16]


@router.get("/leaderboard", response_class=HTMLResponse, include_in_schema=False)
def leaderboard_page(request: Request, pool: str = "", page: int = Query(1, ge=1)) -> HTMLResponse:
    data = vars(leaderboard_data(reader(request), pool, page))
    pools_html = request.app.state.templates.get_template("leaderboard_pools.html").render(data)
    live = "/events/leaderboard" + (f"?{urlencode({'pool': pool, 'page': page})}" if pool else "")
    return render(request, "leaderboard.html", {"title": "Leaderboard", **data, "pools_html": pools_html,
                                                "live_hash": live_hash(pools_html), "live_url": live})


@router.get("/events/leaderboard", tags=["live"])
async def leaderboard_events(request: Request, pool: str = "", page: int = Query(1, ge=1)) -> StreamingResponse:
    """Server-sent events: ``update`` with the leaderboard's tables rendered (``html``) whenever they change
    (``pool`` and ``page`` as in /api/leaderboard)."""
    arena = reader(request)

    def read() -> dict[str, Any]:
        data = leaderboard_data(arena, pool, page)
        html = request.app.state.templates.get_template("leaderboard_pools.html").render(vars(data))
        return {"html": html, "hash": live_hash(html), "pools": len(data.pools)}

    return await live_stream(request, f"leaderboard:{pool}:{page}", read, lambda: leaderboard_data(arena, pool, page))


# -- tournaments -------------------------------------------------------------------------------------------


def _statuses(status: str) -> list[TournamentStatus]:
    names = [name.strip() for name in status.split(",") if name.strip()]
    unknown = [name for name in names if name not in STATE_FILTERS]
    if unknown:
        raise bad_request(f"unknown status {', '.join(unknown)}: use {', '.join(STATE_FILTERS)}")
    return [TournamentStatus(name) for name in names]


@dataclass(frozen=True)
class BlockCount:
    """How many blocks of a competition a list of tournaments left out."""

    competition: str
    count: int


@dataclass(frozen=True)
class TournamentList:
    """A page of tournaments (each as plain data, with its pool and progress), the next page's token, and the
    competition blocks left out."""

    tournaments: list[dict[str, Any]]
    next_page_token: str
    blocks: list[BlockCount]


@router.get("/api/tournaments", tags=["tournaments"])
def api_tournaments(request: Request,
                    status: str = Query("", description="comma-separated: " + ", ".join(STATE_FILTERS)),
                    page_size: int = Query(TOURNAMENTS_PER_PAGE, ge=1, le=1000),
                    page_token: str = Query("", description="next_page_token of the previous page"),
                    competition: str = Query("", description="only the blocks of this competition")
                    ) -> TournamentList:
    """Tournaments, newest first, optionally only some statuses or only one competition's blocks; paginated by
    ``next_page_token``. Each names its rating pool by the API's label (``pool.label``) and, for a competition's
    block, the competition (``pool.competition``)."""
    shown = BlockFilter.ONLY if competition else BlockFilter.ALL
    return tournaments_data(reader(request), _statuses(status), page_size, page_token, shown, competition)


class BlockFilter(Enum):
    """Which competition blocks a list of tournaments shows: all, none (grouped by competition), or one's."""

    ALL = "all"
    GROUPED = "grouped"
    ONLY = "only"


def _block_shown(tournament: arena_pb2.Tournament, shown: BlockFilter, competition: str) -> bool:
    of = views.competition_of(tournament.rating_pool)
    if shown is BlockFilter.ONLY:
        return of == competition
    return shown is BlockFilter.ALL or of is None


def tournaments_data(arena: ArenaReader, states: list[TournamentStatus], page_size: int, page_token: str,
                     shown: BlockFilter = BlockFilter.ALL, competition: str = "") -> TournamentList:
    """A page of tournaments; unless every tournament is shown, pages of the API are read (at most
    :data:`SCAN_PAGES`) until ``page_size`` are found."""
    now = time.time()
    found: list[arena_pb2.Tournament] = []
    blocks: Counter[str] = Counter()
    token = page_token
    for _ in range(1 if shown is BlockFilter.ALL else SCAN_PAGES):
        page = arena.tournaments_page(states, page_size, token)
        for tournament in page.tournaments:
            if _block_shown(tournament, shown, competition):
                found.append(tournament)
            elif shown is BlockFilter.GROUPED:
                blocks[views.competition_of(tournament.rating_pool) or ""] += 1
        token = page.next_page_token
        if not token or len(found) >= page_size:
            break
    rows = [views.tournament_data(t, arena.pool_label(t)) | {"progress": asdict(views.tournament_progress(t, now))}
            for t in found]
    return TournamentList(rows, token, [BlockCount(name, count) for name, count in sorted(blocks.items())])


@router.get("/tournaments", response_class=HTMLResponse, include_in_schema=False)
def tournaments_page(request: Request, status: str = "", page_token: str = "", competition: str = "",
                     blocks: str = "") -> HTMLResponse:
    if not competition and blocks not in ("", BlockFilter.GROUPED.value, BlockFilter.ALL.value):
        raise bad_request(f"unknown blocks={blocks}: use blocks=all to list competition blocks among the rest")
    shown = BlockFilter.ONLY if competition else BlockFilter(blocks or BlockFilter.GROUPED.value)
    page = tournaments_data(reader(request), _statuses(status), TOURNAMENTS_PER_PAGE, page_token, shown, competition)
    return render(request, "tournaments.html", {"title": "Tournaments", "status": status, "filters": STATE_FILTERS,
                                                "page_token": page_token, "competition": competition,
                                                "all_blocks": shown is BlockFilter.ALL, **vars(page)})


@dataclass(frozen=True)
class TournamentPage:
    """A tournament and its standings (as plain data), its progress, a page of its matches and its first tables."""

    tournament: dict[str, Any]
    progress: views.Progress
    standings: dict[str, Any]
    matches: list[views.MatchRow]
    matches_count: int
    page: int
    pages: int
    ended: bool
    tables: list[views.TableRow]
    tables_count: int


def tournament_data(arena: ArenaReader, tournament_id: str, page: int = 1) -> TournamentPage:
    tournament = arena.client.get_tournament(tournament_id)
    matches = arena.matches(tournament)
    shown, pages = paged(matches, page, MATCHES_PER_PAGE)
    tables = views.tables_of(matches)
    return TournamentPage(views.tournament_data(tournament, arena.pool_label(tournament)),
                          views.tournament_progress(tournament, time.time()), plain(arena.standings(tournament)),
                          shown, len(matches), page, pages, views.ended(tournament), tables[:TABLES_SHOWN], len(tables))


@router.get("/api/tournaments/{tournament_id}", tags=["tournaments"])
def api_tournament(request: Request, tournament_id: str, page: int = Query(1, ge=1)) -> TournamentPage:
    """A tournament: its state, progress (done/total, matches/s, time left), standings (provisional while it runs;
    head-to-head for 2-seat fields), seed commitment and revealed seed, its tables as the recorded matches show them
    (the first 100), and a page of its matches."""
    return tournament_data(reader(request), tournament_id, page)


@router.get("/tournaments/{tournament_id}", response_class=HTMLResponse, include_in_schema=False)
def tournament_page(request: Request, tournament_id: str, page: int = 1) -> HTMLResponse:
    data = tournament_data(reader(request), tournament_id, page)
    return render(request, "tournament.html", {"title": f"Tournament {tournament_id}", **vars(data),
                                               "duration": views.duration_text})


@router.get("/tournaments/{tournament_id}/results.{fmt}", tags=["tournaments"])
def tournament_export(request: Request, tournament_id: str, fmt: str) -> Response:
    """The tournament's results as CSV (one line per match and seat) or JSON (tournament, standings, matches)."""
    if fmt not in ("csv", "json"):
        raise HTTPException(status_code=404, detail=f"no export format {fmt!r}: results.csv or results.json")
    number = arena_pb2.EXPORT_FORMAT_JSON if fmt == "json" else arena_pb2.EXPORT_FORMAT_CSV
    export = reader(request).client.export_results(tournament_id, number)
    disposition = f'attachment; filename="{export.filename}"'
    return Response(bytes(export.data), media_type=export.content_type, headers={"Content-Disposition": disposition})


@router.get("/events/tournaments/{tournament_id}", tags=["live"])
async def tournament_events(request: Request, tournament_id: str) -> StreamingResponse:
    """Server-sent events: ``update`` with the progress and the rendered progress and standings (``html``)
    whenever they change; ``end`` once the tournament ended."""
    arena = reader(request)
    templates = request.app.state.templates

    last: dict[str, Any] = {}

    def read() -> dict[str, Any]:
        tournament = arena.client.get_tournament(tournament_id)
        # The standings cost the organizer a computation over every result: read them again only when a match
        # was recorded and at most every STANDINGS_EVERY_S (and always once the tournament ended).
        key = (tournament.matches_done, tournament.state)
        due = time.monotonic() - last.get("at", -STANDINGS_EVERY_S) >= STANDINGS_EVERY_S
        if "standings" not in last or (key != last["key"] and (due or views.ended(tournament))):
            last.update(standings=plain(arena.standings(tournament)), key=key, at=time.monotonic())
        progress = views.tournament_progress(tournament, time.time())
        context = {"tournament": views.tournament_data(tournament, arena.pool_label(tournament)),
                   "progress": progress, "standings": last["standings"], "duration": views.duration_text}
        return {"progress": asdict(progress), "state": state_name(tournament.state),
                "html": {"progress": templates.get_template("tournament_progress.html").render(context),
                         "standings": templates.get_template("standings_table.html").render(context)}}

    return await live_stream(request, f"tournament:{tournament_id}", read,
                             lambda: arena.client.get_tournament(tournament_id),
                             lambda value: value.get("state") in ENDED_STATE_NAMES)


# -- replays -------------------------------------------------------------------------------------------------


MAX_REPLAY_FRAMES = 100
"""The most frames one answer of ``/api/matches/{id}/replay`` holds (``count``); page on with ``next``."""
MAX_REPLAY_BYTES = 2**20
"""The most bytes of frames one answer of ``/api/matches/{id}/replay`` holds (at least one frame): fewer frames
than ``count`` when they would pass it."""


def _frames(arena: ArenaReader, match_id: str, seat: int | None) -> Frames:
    with bad_input():
        return arena.frames(match_id, seat)


@dataclass(frozen=True)
class ReplayPage(ReplayHeader):
    """A page of a match's replay frames: the match's header, how many frames it has, the first frame of this page
    and the one of the next (None after the last), the frames."""

    frames_total: int
    start: int
    next: int | None
    frames: list[dict[str, Any]]


@router.get("/api/matches/{match_id}/replay", tags=["replays"])
def api_replay(request: Request, match_id: str,
               seat: int | None = Query(None, description="as this seat saw it; unset: omniscient"),
               start: int = Query(0, ge=0, description="the first frame (step) of this answer"),
               count: int = Query(PAGE_FRAMES, ge=1, le=MAX_REPLAY_FRAMES,
                                  description=f"frames wanted (at most {MAX_REPLAY_FRAMES})")) -> ReplayPage:
    """A page of a match's replay frames (the table after each decision, with the decision: bot, action, latency,
    legal actions, refusal, fallback; and the events as the viewer saw them), from frame ``start``: at most
    ``count`` frames and about 1 MiB; ``next`` is the ``start`` of the next page (null after the last frame),
    ``frames_total`` how many frames the match has. Open to everyone once the match's tournament ended."""
    arena = reader(request)
    frames = _frames(arena, match_id, seat)
    with bad_input():
        frames.check_step(start)
    shown: list[dict[str, Any]] = []
    size = 0
    for number in range(start, min(start + count, frames.count)):
        page = arena.frame_page(frames, number // PAGE_FRAMES)
        size += page.sizes[number - page.first]
        if shown and size > MAX_REPLAY_BYTES:
            break
        shown.append(page.frame(number))
    after = start + len(shown)
    header = {f.name: getattr(frames, f.name) for f in fields(ReplayHeader)}
    return ReplayPage(**header, frames_total=frames.count, start=start,
                      next=after if after < frames.count else None, frames=shown)


def replay_context(arena: ArenaReader, frames: Frames, step: int, seat: int | None) -> dict[str, Any]:
    with bad_input():
        frame = arena.frame(frames, step)
    return {"frames": frames, "frame": frame, "step": step, "seat": seat, "last": frames.last,
            "table": frame["table"]}


@router.get("/matches/{match_id}", response_class=HTMLResponse, include_in_schema=False)
def replay_page(request: Request, match_id: str, step: int = 0, seat: int | None = None,
                decision: int | None = None) -> Response:
    """The replay viewer at ``step``; ``?decision=N`` (an incident's link) redirects to the step of decision N.
    Only the page of frames around ``step`` is built; the script fetches each further step."""
    arena = reader(request)
    frames = _frames(arena, match_id, seat)
    if decision is not None:
        with bad_input():
            found = frames.step_of(decision)
        where = {"step": found} | ({"seat": seat} if seat is not None else {})
        return RedirectResponse(f"/matches/{quote(match_id, safe='')}?{urlencode(where)}", status_code=303)
    return render(request, "replay.html", {"title": f"Match {match_id}",
                                           **replay_context(arena, frames, step, seat)})


@router.get("/matches/{match_id}/frame", response_class=HTMLResponse, include_in_schema=False)
def replay_frame(request: Request, match_id: str, step: int = 0, seat: int | None = None) -> HTMLResponse:
    """One frame of the viewer, rendered (what the page's script swaps in when stepping)."""
    arena = reader(request)
    return render(request, "replay_frame.html", replay_context(arena, _frames(arena, match_id, seat), step, seat))


# -- bots ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BotList:
    """The registered bots."""

    bots: list[views.PublicBot]


@router.get("/api/bots", tags=["bots"])
def api_bots(request: Request) -> BotList:
    """The registered bots (public fields) and whether each is connected now."""
    return BotList(reader(request).bots())


@router.get("/bots", response_class=HTMLResponse, include_in_schema=False)
def bots_page(request: Request, page: int = 1) -> HTMLResponse:
    shown, pages = paged(reader(request).bots(), page, 100)
    return render(request, "bots.html", {"title": "Bots", "bots": shown, "page": page, "pages": pages})


def bot_data(arena: ArenaReader, name: str) -> BotSummary:
    try:
        return bot_summary(arena, name)
    except UnknownBot as error:
        raise HTTPException(status_code=404, detail=str(error)) from None


@router.get("/api/bots/{name}", tags=["bots"])
def api_bot(request: Request, name: str) -> BotSummary:
    """A bot: description, versions seen (first and last), rating history per pool, recent matches, incident
    counts by kind (when the web front has the admin token)."""
    return bot_data(reader(request), name)


@router.get("/bots/{name}", response_class=HTMLResponse, include_in_schema=False)
def bot_page(request: Request, name: str) -> HTMLResponse:
    return render(request, "bot.html", {"title": f"Bot {name}", **vars(bot_data(reader(request), name))})


@router.post("/bots/{name}/incidents", response_class=HTMLResponse, include_in_schema=False)
async def bot_incidents(request: Request, name: str) -> HTMLResponse:
    """The incident details, for the bot's author: the form posts the bot's token (never put in a URL)."""
    admit_author_form(request)
    body = await read_capped(request, TOKEN_FORM_BYTES, "form", f"it holds a bot's token, at most "
                             f"{TOKEN_FORM_BYTES} bytes; send the bot page's form")
    form = parse_qs(body.decode("utf-8", "replace"))  # application/x-www-form-urlencoded
    token = (form.get("token") or [""])[0].strip()
    if not token:
        raise bad_request("give the bot's token to see its incident details")
    arena = reader(request)
    incidents = await as_author(request, arena.incidents, name, token)
    data = await run_in_threadpool(bot_data, arena, name)
    return render(request, "bot.html", {"title": f"Bot {name}", **vars(data), "incidents": incidents})


# -- status --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunningTournament(views.Progress):
    """A running tournament's progress and its id."""

    tournament_id: str = ""


@dataclass(frozen=True)
class Status:
    """The arena's status: connected bots, running tournaments and gauntlets, matches waiting, total matches/s."""

    connected_bots: list[str]
    registered_bots: int
    running: list[RunningTournament]
    pending: int
    matches_left: int
    matches_per_s: float
    gauntlets: list[GauntletRow]
    grafana_url: str


def status_data(request: Request) -> Status:
    arena = reader(request)
    bots = arena.bots()
    running = list(arena.tournaments_page([TournamentStatus.RUNNING], 1000, "").tournaments)
    pending = list(arena.tournaments_page([TournamentStatus.PENDING], 1000, "").tournaments)
    now = time.time()
    progress = [views.tournament_progress(t, now) for t in running]
    return Status(
        connected_bots=sorted(bot.name for bot in bots if bot.connected),
        registered_bots=len(bots),
        running=[RunningTournament(**asdict(p), tournament_id=t.tournament_id)
                 for t, p in zip(running, progress, strict=True)],
        pending=len(pending),
        matches_left=sum(p.total - p.done for p in progress) + sum(t.matches_total for t in pending),
        matches_per_s=round(sum(p.matches_per_s or 0.0 for p in progress), 2),
        gauntlets=[g for g in arena.gauntlets() if g.state == GauntletStatus.RUNNING.value],
        grafana_url=request.app.state.settings.grafana_url,
    )


@router.get("/api/status", tags=["status"])
def api_status(request: Request) -> Status:
    """Arena status: connected bots, running tournaments with their pace, matches waiting to be played (the
    queue), total matches/s, running gauntlets (among the newest 100) with their blocks and LLR, and the Grafana
    link when configured."""
    return status_data(request)


@router.get("/status", response_class=HTMLResponse, include_in_schema=False)
def status_page(request: Request) -> HTMLResponse:
    return render(request, "status.html", {"title": "Arena status", **vars(status_data(request))})


@router.get("/healthz", include_in_schema=False)
def healthz() -> JSONResponse:
    return JSONResponse({"ok": True})
