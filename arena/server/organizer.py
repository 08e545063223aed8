"""The organizer API (``uno_arena.v1.ArenaService``): bots, tournaments, schedules, standings, replays.

The servicer is for a ``grpc.aio`` server (the gateway's); every blocking store or broker call
runs in a thread (``asyncio.to_thread``) so the bot streams on the same event loop never wait on
Redis. Add it with::

    from arena.server.organizer import add_organizer
    add_organizer(server, store)            # before server.start()

Tournaments are created here (validated first: nothing is written for a bad request) and started
by a Celery task (``workers.tasks.start_tournament``) sent through the app of
:func:`workers.celery_app.make_celery` on the store's Redis. A retried ``CreateTournament`` with
the same idempotency key returns the first tournament and creates nothing.

Authorization: when ``$UNO_ARENA_ADMIN_TOKEN`` is set (or ``admin_token`` is given), every call
must carry ``authorization: Bearer <admin token>``; a missing or wrong token is
``UNAUTHENTICATED``. Errors use the ordinary status codes: ``INVALID_ARGUMENT`` (a bad request,
unknown participants, a malformed cron expression), ``NOT_FOUND`` (an unknown tournament or match),
``ALREADY_EXISTS`` (a taken bot name, tournament id or schedule id, an idempotency key reused with
another spec), ``FAILED_PRECONDITION`` (cancelling a tournament that already ended), ``UNAVAILABLE``
(Redis unreachable).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar

import grpc
import grpc.aio
from google.protobuf.timestamp_pb2 import Timestamp

from arena.engine import Rules
from arena.protocol import arena_pb2, arena_pb2_grpc, game_pb2
from arena.protocol.convert import (
    action_to_proto,
    end_reason_to_proto,
    events_to_proto,
    rules_from_proto,
    rules_to_proto,
)
from arena.server.auth import AuthError, bearer_token
from arena.service import lifecycle
from arena.service.lifecycle import UnknownParticipants, check_participants, choose_seed
from arena.service.matches import StoredResult, builtin_kind
from arena.service.replays import replay_steps
from arena.service.schedules import spec_for_run
from arena.store import (
    DuplicateBotName,
    DuplicateSchedule,
    DuplicateTournament,
    IdempotencyConflict,
    InvalidName,
    InvalidToken,
    Store,
    StoreUnavailable,
    UnknownTournament,
    new_tournament_id,
)
from arena.store.keys import check_id
from arena.store.runstate import RunState
from arena.tournament import MatchResult, TournamentSpec, count_matches, results_to_csv
from arena.tournament.cron import CronError, parse_cron, with_time_zone

log = logging.getLogger(__name__)

ADMIN_TOKEN_ENV = "UNO_ARENA_ADMIN_TOKEN"
DEFAULT_DEADLINE_MS = 1000
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
MAX_MATCHES = 1_000_000
"""A tournament larger than this is refused (INVALID_ARGUMENT)."""
WATCH_POLL_S = 0.25
UTC_NAMES = ("", "UTC", "Etc/UTC", "Z", "GMT", "Etc/GMT")

_STATES = {
    "pending": arena_pb2.TOURNAMENT_STATE_PENDING,
    "running": arena_pb2.TOURNAMENT_STATE_RUNNING,
    "finished": arena_pb2.TOURNAMENT_STATE_FINISHED,
    "failed": arena_pb2.TOURNAMENT_STATE_FAILED,
    "cancelled": arena_pb2.TOURNAMENT_STATE_CANCELLED,
}
_ENDED = ("finished", "failed", "cancelled")

T = TypeVar("T")


class Role(StrEnum):
    """The kinds of caller of the organizer API, most powerful first."""

    ADMIN = "admin"
    """The organizer (the admin token): everything."""
    BOT = "bot"
    """A registered bot (its own token): its own profile and matches, and public data."""
    ANONYMOUS = "anonymous"
    """No token: public data only."""


_RANK = {Role.ADMIN: 2, Role.BOT: 1, Role.ANONYMOUS: 0}


@dataclass(frozen=True)
class Caller:
    """Who makes a call: a role, and for a bot its name."""

    role: Role
    bot: str = ""

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN

    def may(self, needs: Role) -> bool:
        """Whether this caller has at least the role ``needs``."""
        return _RANK[self.role] >= _RANK[needs]


class OrganizerError(Exception):
    """A refused request: the gRPC status code and a message for the caller."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def _invalid(message: str) -> OrganizerError:
    return OrganizerError(grpc.StatusCode.INVALID_ARGUMENT, message)


def _timestamp(seconds: float | str | None) -> Timestamp | None:
    if seconds is None or seconds == "":
        return None
    ts = Timestamp()
    ts.FromNanoseconds(int(float(seconds) * 1e9))
    return ts


class Organizer:
    """The synchronous core of the API: validates requests, talks to the store and the broker."""

    def __init__(self, store: Store, celery_app: Any = None, *, admin_token: str | None = None) -> None:
        self.store = store
        self._celery = celery_app
        self.admin_token = admin_token if admin_token is not None else os.environ.get(ADMIN_TOKEN_ENV, "")

    # -- plumbing ------------------------------------------------------------------------------
    @property
    def celery(self) -> Any:
        if self._celery is None:
            from workers.celery_app import make_celery  # the Celery app only where tasks are sent

            self._celery = make_celery(self.store.url)
        return self._celery

    def enqueue(self) -> Any:
        from workers.enqueue import CeleryEnqueuer

        return CeleryEnqueuer(self.celery)

    def identify(self, metadata: Any) -> Caller:
        """Who is calling: the admin (the admin token, or anyone when no admin token is set), a bot (its own
        token) or anonymous (no token). A token that is neither is refused, without telling which it is not."""
        if not self.admin_token:
            return Caller(Role.ADMIN)
        try:
            token = bearer_token(metadata)
        except AuthError as error:
            if any(key.lower() == "authorization" for key, _ in (metadata or ())):
                raise OrganizerError(error.code, str(error)) from None
            return Caller(Role.ANONYMOUS)
        if hmac.compare_digest(token.encode(), self.admin_token.encode()):
            return Caller(Role.ADMIN)
        try:
            record = self.store.bots.verify_token(token)
        except InvalidToken:
            raise OrganizerError(grpc.StatusCode.UNAUTHENTICATED, "invalid token") from None
        return Caller(Role.BOT, record.name)

    def authorize(self, metadata: Any, needs: Role = Role.ADMIN) -> Caller:
        """The caller, when its role may make a call that ``needs`` the given role; PERMISSION_DENIED (or
        UNAUTHENTICATED for an anonymous caller) otherwise."""
        caller = self.identify(metadata)
        if not caller.may(needs):
            if caller.role is Role.ANONYMOUS:
                raise OrganizerError(grpc.StatusCode.UNAUTHENTICATED,
                                     f"this call needs the {needs.value} role: send 'authorization: Bearer <token>'")
            raise OrganizerError(grpc.StatusCode.PERMISSION_DENIED,
                                 f"this call needs the {needs.value} role; the token given is a {caller.role.value}'s")
        return caller

    # -- bots ----------------------------------------------------------------------------------
    def bot_message(self, record: Any) -> arena_pb2.Bot:
        msg = arena_pb2.Bot(
            bot_id=record.name,
            name=record.name,
            description=record.owner,
            connected=self.store.sessions.online(record.name),
            bot_version=record.version,
        )
        ts = _timestamp(record.created_at)
        if ts is not None:
            msg.created_at.CopyFrom(ts)
        return msg

    def register_bot(self, request: arena_pb2.RegisterBotRequest) -> arena_pb2.RegisterBotResponse:
        name = request.name
        if builtin_kind(name) is not None:
            raise _invalid(f"the name {name!r} is reserved for the built-in bot; choose another name")
        try:
            record, token = self.store.bots.register(name, owner=request.description)
        except DuplicateBotName as error:
            raise OrganizerError(grpc.StatusCode.ALREADY_EXISTS, str(error)) from None
        return arena_pb2.RegisterBotResponse(bot=self.bot_message(record), token=token)

    def list_bots(self, request: arena_pb2.ListBotsRequest) -> arena_pb2.ListBotsResponse:
        size = request.page_size or DEFAULT_PAGE_SIZE
        size = min(size, MAX_PAGE_SIZE)
        records = self.store.bots.all()
        after = request.page_token.casefold()
        if after:
            records = [r for r in records if r.name.casefold() > after]
        page = records[:size]
        more = len(records) > size
        return arena_pb2.ListBotsResponse(
            bots=[self.bot_message(r) for r in page],
            next_page_token=page[-1].name if more and page else "",
        )

    # -- tournaments ---------------------------------------------------------------------------
    def spec_from_request(self, msg: arena_pb2.TournamentSpec, tournament_id: str, seed_key: str) -> TournamentSpec:
        """A validated TournamentSpec (INVALID_ARGUMENT naming the problem otherwise)."""
        try:
            rules = rules_from_proto(msg.rules)
        except ValueError as error:
            raise _invalid(f"rules: {error}") from None
        options = {k: v for k, v in rules.to_dict().items() if k != "variant"}
        participants = [p.strip() for p in msg.participants]
        if any(not p for p in participants):
            raise _invalid("participants: empty bot name")
        seed = choose_seed(int(msg.seed), seed_key)
        try:
            spec = TournamentSpec(
                tournament_id=tournament_id,
                participants=tuple(participants),
                variant=rules.variant,
                options=options,
                seats=int(msg.seats_per_table or 2),
                deals=int(msg.deals_per_table or 1),
                duplicate=bool(msg.duplicate_deals),
                seed=seed,
                deadline_ms=int(msg.decision_deadline_ms or DEFAULT_DEADLINE_MS),
            )
        except ValueError as error:
            raise _invalid(str(error)) from None
        total = count_matches(spec)
        if total > MAX_MATCHES:
            raise _invalid(f"the tournament would have {total} matches; at most {MAX_MATCHES} are allowed")
        try:
            check_participants(self.store, spec.participants)
        except UnknownParticipants as error:
            raise _invalid(str(error)) from None
        return spec

    def create_tournament(self, request: arena_pb2.CreateTournamentRequest) -> arena_pb2.CreateTournamentResponse:
        if not request.HasField("spec"):
            raise _invalid("spec is required")
        key = request.idempotency_key or None
        if key is not None:
            try:
                check_id(key, "idempotency key")
            except InvalidName as error:
                raise _invalid(str(error)) from None
        tid = request.spec.name or new_tournament_id()
        spec = self.spec_from_request(request.spec, tid, key or "")
        try:
            created = lifecycle.create_tournament(self.store, spec, idempotency_key=key)
        except DuplicateTournament as error:
            raise OrganizerError(grpc.StatusCode.ALREADY_EXISTS, f"{error}; choose another name") from None
        except IdempotencyConflict as error:
            raise OrganizerError(grpc.StatusCode.ALREADY_EXISTS, str(error)) from None
        if created.created or self.store.tournaments.status(created.tournament_id) == "pending":
            # A retry of a request whose start message was lost sends it again (start is idempotent).
            self.enqueue().start(created.tournament_id)
        return arena_pb2.CreateTournamentResponse(tournament=self.tournament_message(created.tournament_id))

    def tournament_message(self, tournament_id: str) -> arena_pb2.Tournament:
        record = self.store.tournaments.get(tournament_id)
        spec = TournamentSpec.from_dict(record.spec)
        progress = self.store.results.progress(tournament_id)
        run = RunState(self.store, tournament_id).fields()
        msg = arena_pb2.Tournament(
            tournament_id=tournament_id,
            spec=self.spec_message(spec),
            state=_STATES.get(record.status, arena_pb2.TOURNAMENT_STATE_UNSPECIFIED),
            matches_total=progress.scheduled or count_matches(spec),
            matches_done=progress.done,
            matches_failed=progress.counters.get("aborted", 0),
            schedule_id=run.get("schedule_id", ""),
            detail=run.get("detail", ""),
        )
        for field, value in (
            ("created_at", record.created_at),
            ("started_at", run.get("started_at")),
            ("finished_at", run.get("finished_at")),
        ):
            ts = _timestamp(value)
            if ts is not None:
                getattr(msg, field).CopyFrom(ts)
        return msg

    @staticmethod
    def spec_message(spec: TournamentSpec) -> arena_pb2.TournamentSpec:
        return arena_pb2.TournamentSpec(
            name=spec.tournament_id,
            participants=list(spec.participants),
            rules=rules_to_proto(Rules.from_dict(spec.rules)),
            seats_per_table=spec.seats,
            deals_per_table=spec.deals,
            duplicate_deals=spec.duplicate,
            seed=spec.seed,
            decision_deadline_ms=spec.deadline_ms,
        )

    # -- schedules -----------------------------------------------------------------------------
    def schedule_tournament(
        self, request: arena_pb2.ScheduleTournamentRequest
    ) -> arena_pb2.ScheduleTournamentResponse:
        if not request.HasField("spec"):
            raise _invalid("spec is required")
        try:
            # A time zone is stored with the expression, as its CRON_TZ= prefix (see arena.tournament.cron).
            zoned = request.cron if request.time_zone in UTC_NAMES else with_time_zone(request.cron, request.time_zone)
            cron = parse_cron(zoned)
        except CronError as error:
            raise _invalid(f"cron: {error}") from None
        key = request.idempotency_key
        if key:
            try:
                check_id(key, "idempotency key")
            except InvalidName as error:
                raise _invalid(str(error)) from None
        if request.spec.name:
            sid = request.spec.name
        elif key:
            sid = "s-" + hashlib.sha256(key.encode()).hexdigest()[:12]
        else:
            sid = f"s-{uuid.uuid4().hex[:12]}"
        try:
            check_id(sid, "schedule id")
        except InvalidName as error:
            raise _invalid(str(error)) from None
        # Validate the template as one run would be (the run's id and seed replace these).
        spec = self.spec_from_request(request.spec, "schedule-template", key or sid)
        template = spec.to_dict()
        template.pop("tournament_id")
        try:
            stored = self.store.schedules.add(sid, cron.expr, template)
        except DuplicateSchedule:
            existing = self.store.schedules.get(sid)
            if not key or existing.cron != cron.expr or existing.spec != template:
                raise OrganizerError(
                    grpc.StatusCode.ALREADY_EXISTS, f"a schedule with id {sid!r} already exists"
                ) from None
            stored = existing
        return arena_pb2.ScheduleTournamentResponse(schedule=self.schedule_message(stored))

    def schedule_message(self, schedule: Any) -> arena_pb2.Schedule:
        cron = parse_cron(schedule.cron)
        now = datetime.now(UTC)
        upcoming = cron.next(now)
        spec = spec_for_run(schedule.spec, schedule.schedule_id, upcoming)
        msg = arena_pb2.Schedule(
            schedule_id=schedule.schedule_id, cron=schedule.cron, time_zone=cron.zone_name,
            spec=self.spec_message(spec),
        )
        msg.spec.name = ""
        msg.spec.seed = int(schedule.spec.get("seed", 0))
        for field, value in (("next_run_at", upcoming.timestamp()), ("created_at", schedule.created_at)):
            ts = _timestamp(value)
            if ts is not None:
                getattr(msg, field).CopyFrom(ts)
        return msg

    # -- progress ------------------------------------------------------------------------------
    def match_summary(self, tournament_id: str, match_id: str) -> arena_pb2.MatchSummary | None:
        result = self.store.results.get(tournament_id, match_id)
        return None if result is None else summary_message(tournament_id, result)

    def feed(self, tournament_id: str, start: int) -> list[str]:
        return RunState(self.store, tournament_id).feed(start)

    def status(self, tournament_id: str) -> str:
        return self.store.tournaments.status(tournament_id)

    # -- standings -----------------------------------------------------------------------------
    def standings_payload(self, tournament_id: str) -> dict[str, Any]:
        return lifecycle.cached_standings(self.store, tournament_id)

    def cancel_tournament(self, request: arena_pb2.CancelTournamentRequest) -> arena_pb2.CancelTournamentResponse:
        """Pending or running -> cancelled (workers start no further match); the reason is kept as detail."""
        tid = request.tournament_id
        reason = "".join(c for c in request.reason if c.isprintable())[:200] or "cancelled by the organizer"
        if not lifecycle.cancel_tournament(self.store, tid, reason):
            raise OrganizerError(grpc.StatusCode.FAILED_PRECONDITION,
                                 f"tournament {tid} is already {self.store.tournaments.status(tid)}: only a "
                                 "pending or running tournament can be cancelled")
        return arena_pb2.CancelTournamentResponse(tournament=self.tournament_message(tid))

    def get_standings(self, request: arena_pb2.GetStandingsRequest) -> arena_pb2.GetStandingsResponse:
        tid = request.tournament_id
        payload = self.standings_payload(tid)
        rows = []
        for row in payload["standings"]["rows"]:
            bot = row["bot"]
            low, high = row["rating_ci"]
            rows.append(
                arena_pb2.Standing(
                    rank=row["rank"],
                    bot_id=bot,
                    bot_name=bot,
                    matches=row["matches"],
                    wins=row["wins"],
                    points=row["points"],
                    rating=row["mu"],
                    rating_sigma=row["sigma"],
                    rating_low=low,
                    rating_high=high,
                    forfeits=row["forfeits"],
                    timeouts=int(payload.get("timeouts", {}).get(bot, 0)),
                    refusals=int(payload.get("refusals", {}).get(bot, 0)),
                )
            )
        return arena_pb2.GetStandingsResponse(tournament_id=tid, standings=rows, final=bool(payload.get("final")))

    # -- replays -------------------------------------------------------------------------------
    def get_replay(self, request: arena_pb2.GetReplayRequest) -> arena_pb2.GetReplayResponse:
        mid = request.match_id
        try:
            check_id(mid, "match id")
        except InvalidName as error:
            raise _invalid(str(error)) from None
        tid = mid.split(":", 1)[0]
        result = self.store.results.get(tid, mid) if self.store.tournaments.exists(tid) else None
        record = self.store.replays.load(mid)
        if record is None:
            why = "" if result is None else f" (the match ended {result.get('end_reason')}: no replay kept)"
            raise OrganizerError(grpc.StatusCode.NOT_FOUND, f"no replay of match {mid!r}{why}")
        viewer = request.seat if request.HasField("seat") else None
        players = int(record.get("players") or record["replay"]["players"])
        if viewer is not None and not 0 <= viewer < players:
            raise _invalid(f"seat {viewer} is not a seat of this {players}-player match (0..{players - 1})")
        return arena_pb2.GetReplayResponse(replay=replay_message(record, result, viewer))

    # -- export --------------------------------------------------------------------------------
    def export(self, request: arena_pb2.ExportResultsRequest) -> arena_pb2.ExportResultsResponse:
        tid = request.tournament_id
        record = self.store.tournaments.get(tid)
        results = self.store.results.all(tid)
        if request.format == arena_pb2.EXPORT_FORMAT_JSON:
            progress = self.store.results.progress(tid)
            document = {
                "tournament": {
                    "tournament_id": tid,
                    "status": record.status,
                    "spec": record.spec,
                    "matches_total": progress.scheduled,
                    "matches_done": progress.done,
                    "matches_failed": progress.counters.get("aborted", 0),
                    "created_at": record.created_at,
                },
                "standings": self.standings_payload(tid),
                "matches": [results[m] for m in sorted(results)],
            }
            data = json.dumps(document, indent=2, sort_keys=True).encode()
            return arena_pb2.ExportResultsResponse(
                content_type="application/json", filename=f"{tid}-results.json", data=data
            )
        if request.format not in (arena_pb2.EXPORT_FORMAT_CSV, arena_pb2.EXPORT_FORMAT_UNSPECIFIED):
            raise _invalid(f"unknown export format {request.format}")
        # Aborted matches are exported too; their end_reason column says so.
        matches = [MatchResult.from_dict(r) for r in results.values()]
        return arena_pb2.ExportResultsResponse(
            content_type="text/csv", filename=f"{tid}-results.csv", data=results_to_csv(matches).encode()
        )


def summary_message(tournament_id: str, data: dict[str, Any]) -> arena_pb2.MatchSummary:
    """A stored result as a MatchSummary message."""
    stored = StoredResult.from_dict(data)
    result = stored.result
    msg = arena_pb2.MatchSummary(
        match_id=result.match_id,
        tournament_id=tournament_id,
        seats=[game_pb2.Seat(seat=i, bot_id=name, bot_name=name) for i, name in enumerate(result.seats)],
        seed=stored.seed,
        result=result_message(stored),
        reason=end_reason_to_proto(result.end_reason),
    )
    ts = _timestamp(stored.finished_at or None)
    if ts is not None:
        msg.finished_at.CopyFrom(ts)
    return msg


def result_message(stored: StoredResult) -> game_pb2.MatchResult:
    result = stored.result
    msg = game_pb2.MatchResult(
        scores=list(result.scores),
        rounds=result.rounds,
        forfeited_seats=list(result.forfeits),
        timeouts=list(stored.timeouts),
        refusals=list(stored.refusals),
    )
    if result.winner is not None:
        msg.winner = result.winner
    return msg


def replay_message(record: dict[str, Any], result: dict[str, Any] | None, viewer: int | None) -> arena_pb2.Replay:
    """A stored match record replayed step by step (:func:`arena.service.replays.replay_steps`), omniscient or
    as seat ``viewer`` saw it."""
    walk = replay_steps(record, viewer)
    seats = list(record.get("seats") or [])
    msg = arena_pb2.Replay(
        match_id=str(record.get("match_id", "")),
        tournament_id=str(record.get("tournament_id", "")),
        rules=rules_to_proto(walk.rules),
        seats=[game_pb2.Seat(seat=i, bot_id=name, bot_name=name) for i, name in enumerate(seats)],
        seed=walk.seed if viewer is None else 0,
    )
    if viewer is not None:
        msg.viewer = viewer
    msg.opening.extend(events_to_proto(walk.opening))
    for item in walk.steps:
        step = arena_pb2.ReplayStep(decision_number=item.number, seat=item.seat, action=action_to_proto(item.action),
                                    events=events_to_proto(item.events))
        if item.latency_ms is not None:
            step.fallback = item.fallback
            step.refusal = item.refusal
            step.latency_ms = max(0, round(item.latency_ms))
        msg.steps.append(step)
    source = StoredResult.from_dict(result or record)
    msg.result.CopyFrom(result_message(source))
    msg.reason = end_reason_to_proto(source.result.end_reason)
    return msg


class ArenaServicer(arena_pb2_grpc.ArenaServiceServicer):
    """``uno_arena.v1.ArenaService`` on a grpc.aio server, over :class:`Organizer`."""

    def __init__(self, organizer: Organizer) -> None:
        self.core = organizer

    async def _call(self, context: grpc.aio.ServicerContext, fn: Callable[..., T], *args: Any) -> T:
        try:
            await asyncio.to_thread(self.core.authorize, context.invocation_metadata())
            return await asyncio.to_thread(fn, *args)
        except OrganizerError as error:
            await context.abort(error.code, str(error))
        except UnknownTournament as error:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(error))
        except InvalidName as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        except StoreUnavailable as error:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the store is unreachable: {error}")
        raise AssertionError("unreachable")  # context.abort raises

    async def RegisterBot(
        self, request: arena_pb2.RegisterBotRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.RegisterBotResponse:
        return await self._call(context, self.core.register_bot, request)

    async def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListBotsResponse:
        return await self._call(context, self.core.list_bots, request)

    async def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.CreateTournamentResponse:
        return await self._call(context, self.core.create_tournament, request)

    async def ScheduleTournament(
        self, request: arena_pb2.ScheduleTournamentRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ScheduleTournamentResponse:
        return await self._call(context, self.core.schedule_tournament, request)

    async def GetStandings(
        self, request: arena_pb2.GetStandingsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetStandingsResponse:
        return await self._call(context, self.core.get_standings, request)

    async def GetReplay(
        self, request: arena_pb2.GetReplayRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetReplayResponse:
        return await self._call(context, self.core.get_replay, request)

    async def ExportResults(
        self, request: arena_pb2.ExportResultsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ExportResultsResponse:
        return await self._call(context, self.core.export, request)

    async def CancelTournament(
        self, request: arena_pb2.CancelTournamentRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.CancelTournamentResponse:
        return await self._call(context, self.core.cancel_tournament, request)

    async def WatchTournament(
        self, request: arena_pb2.WatchTournamentRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[arena_pb2.WatchTournamentResponse]:
        tid = request.tournament_id
        current = await self._call(context, self.core.tournament_message, tid)
        yield arena_pb2.WatchTournamentResponse(tournament=current)
        offset = 0
        last_state = current.state
        last_done = current.matches_done
        while current.state not in (_STATES[s] for s in _ENDED):
            await asyncio.sleep(WATCH_POLL_S)
            new_ids = await self._call(context, self.core.feed, tid, offset)
            offset += len(new_ids)
            current = await self._call(context, self.core.tournament_message, tid)
            for mid in new_ids:
                summary = await self._call(context, self.core.match_summary, tid, mid)
                if summary is not None:
                    yield arena_pb2.WatchTournamentResponse(tournament=current, match=summary)
            if current.state != last_state or (not new_ids and current.matches_done != last_done):
                yield arena_pb2.WatchTournamentResponse(tournament=current)
            last_state, last_done = current.state, current.matches_done


def add_organizer(
    server: grpc.aio.Server,
    store: Store,
    *,
    celery_app: Any = None,
    admin_token: str | None = None,
) -> ArenaServicer:
    """Serve ``ArenaService`` on ``server`` (a ``grpc.aio`` server, before ``start()``).

    ``celery_app``: where tournament starts are sent (default: :func:`workers.celery_app.make_celery`
    on the store's Redis). ``admin_token``: default ``$UNO_ARENA_ADMIN_TOKEN`` (empty: no check).
    """
    servicer = ArenaServicer(Organizer(store, celery_app, admin_token=admin_token))
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(servicer, server)
    return servicer


__all__ = [
    "ADMIN_TOKEN_ENV",
    "ArenaServicer",
    "Organizer",
    "OrganizerError",
    "add_organizer",
    "replay_message",
    "summary_message",
]
