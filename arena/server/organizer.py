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

Seeds: a tournament's seed (a secret random one when the request gives 0) and everything derived from it
(``TournamentSpec.seed``, ``MatchSummary.seed``, the seeds in exports, omniscient replays) go to the admin
only until the tournament ends; everyone sees its ``seed_commitment``, and after the end its
``revealed_seed`` and ``seed_salt`` (:mod:`arena.tournament.commitment`). Ids a user chooses are single key
parts (no ``:``, :func:`arena.store.keys.check_name`) and every number is bounded before the design is
computed (:mod:`arena.tournament.limits`); error messages quote at most 100 characters of an input.

Authorization: when ``$UNO_ARENA_ADMIN_TOKEN`` is set (or ``admin_token`` is given), each call is made
by the admin (``authorization: Bearer <admin token>``), a bot (its own token) or an anonymous caller (no
``authorization`` metadata), and each RPC needs a role (:data:`RPC_ROLES`, also stated in arena.proto): a
token that is neither is ``UNAUTHENTICATED "invalid token"``; a call above the caller's role is
``UNAUTHENTICATED`` for an anonymous caller, ``PERMISSION_DENIED`` for a bot. The functions that answer
differently per caller (bots' profiles, replays, tournaments, exports) take the :class:`Caller`. Without an
admin token everyone is the admin (``uno-arena serve`` refuses to start so unless told
``--insecure-no-admin-token``). Errors use the ordinary status codes: ``INVALID_ARGUMENT`` (a bad request,
unknown participants, a malformed cron expression), ``NOT_FOUND`` (an unknown tournament or match),
``ALREADY_EXISTS`` (a taken bot name, tournament id or schedule id, an idempotency key reused with
another spec), ``FAILED_PRECONDITION`` (cancelling a tournament that already ended, a token for a deleted
bot, a participant not connected when the request requires them all connected), ``UNAVAILABLE``
(Redis unreachable).

Connected participants: ``CreateTournament`` names the registered participants with no live session in its
answer (``not_connected``; they forfeit every match they are not connected for). With ``require_connected``
the call waits up to ``connect_wait_ms`` (default :data:`DEFAULT_CONNECT_WAIT_MS`, at most
:data:`MAX_CONNECT_WAIT_MS`) for them, polling every :data:`CONNECT_POLL_S`, and refuses with
``FAILED_PRECONDITION`` naming those still missing; a retry of a tournament already created is never refused.

Standings are final once the tournament ended (finished, cancelled or failed): no further match starts.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterable
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
from arena.relay.messages import drop_message
from arena.server.auth import AuthError, bearer_token
from arena.service import lifecycle
from arena.service.competitions import competition_standings
from arena.service.lifecycle import UnknownParticipants, check_participants
from arena.service.matches import StoredResult, builtin_kind
from arena.service.replays import replay_steps
from arena.service.schedules import delete_schedule, spec_for_run
from arena.store import (
    DeletedBot,
    DuplicateBotName,
    DuplicateSchedule,
    DuplicateTournament,
    IdempotencyConflict,
    Incident,
    InvalidName,
    InvalidToken,
    Replay,
    Store,
    StoreUnavailable,
    UnknownBot,
    UnknownCompetition,
    UnknownSchedule,
    UnknownTournament,
    new_tournament_id,
)
from arena.store.incidents import MAX_READ
from arena.store.keys import BOT_NAME_RE, check_id, check_name
from arena.store.runstate import RunState
from arena.tournament import TournamentSpec, count_matches, limits, results_to_csv
from arena.tournament.competition import CompetitionSpec
from arena.tournament.cron import CronError, parse_cron, time_zone, with_time_zone
from arena.tournament.spec import DEFAULT_LAG_CAP_MS

log = logging.getLogger(__name__)

ADMIN_TOKEN_ENV = "UNO_ARENA_ADMIN_TOKEN"
DEFAULT_DEADLINE_MS = 1000
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
DEFAULT_BOT_LOG_LIMIT = 100
"""Incidents GetBotLog returns when the request gives no limit (at most ``arena.store.incidents.MAX_READ``)."""
MAX_MATCHES = limits.MAX_MATCHES
"""A tournament larger than this is refused (INVALID_ARGUMENT); every bound is in :mod:`arena.tournament.limits`."""
MAX_NAME_LENGTH = 100
"""Tournament names, schedule ids and idempotency keys a user chooses: at most this many characters (no ':')."""
MAX_CRON_LENGTH = 100
"""Cron expressions (with a ``CRON_TZ=`` prefix) and time zone names: at most this many characters."""
MAX_ERROR_LENGTH = 1000
"""An error message is cut to this many characters (inputs in it are quoted to 100 characters at most)."""
WATCH_POLL_S = 0.25
DEFAULT_CONNECT_WAIT_MS = 10_000
"""How long a ``require_connected`` create waits for its registered participants to connect, unless told."""
MAX_CONNECT_WAIT_MS = 60_000
CONNECT_POLL_S = 0.25
UTC_NAMES = ("", "UTC", "Etc/UTC", "Z", "GMT", "Etc/GMT")

_STATES = {
    "pending": arena_pb2.TOURNAMENT_STATE_PENDING,
    "running": arena_pb2.TOURNAMENT_STATE_RUNNING,
    "finished": arena_pb2.TOURNAMENT_STATE_FINISHED,
    "failed": arena_pb2.TOURNAMENT_STATE_FAILED,
    "cancelled": arena_pb2.TOURNAMENT_STATE_CANCELLED,
}
_ENDED = ("finished", "failed", "cancelled")
_STATUS_OF_STATE = {state: status for status, state in _STATES.items()}

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

    def is_bot(self, name: str) -> bool:
        """Whether this caller is the bot ``name`` (compared without case)."""
        return self.role is Role.BOT and self.bot.casefold() == name.casefold()


ADMIN = Caller(Role.ADMIN)
"""The admin caller (the default of the core functions, for in-process callers)."""

RPC_ROLES: dict[str, Role] = {
    "RegisterBot": Role.ADMIN,
    "ListBots": Role.ANONYMOUS,
    "GetBot": Role.ANONYMOUS,
    "RotateBotToken": Role.ADMIN,
    "RevokeBot": Role.ADMIN,
    "DeleteBot": Role.ADMIN,
    "GetBotLog": Role.BOT,  # the bot's own log only (get_bot_log): another bot gets PERMISSION_DENIED
    "CreateTournament": Role.ADMIN,
    "ListTournaments": Role.ANONYMOUS,  # seeds of tournaments not ended only to the admin (tournament_message)
    "ListCompetitions": Role.ANONYMOUS,
    "GetCompetitionStandings": Role.ANONYMOUS,
    "ScheduleTournament": Role.ADMIN,
    "ListSchedules": Role.ADMIN,
    "DeleteSchedule": Role.ADMIN,
    "WatchTournament": Role.ANONYMOUS,
    "GetStandings": Role.ANONYMOUS,
    "GetReplay": Role.ANONYMOUS,  # before the end a bot's own seat only (get_replay); after it, public
    "ExportResults": Role.ANONYMOUS,
    "CancelTournament": Role.ADMIN,
}
"""The least role each RPC of ArenaService needs (arena.proto states the same in each RPC's comment)."""


class OrganizerError(Exception):
    """A refused request: the gRPC status code and a message for the caller."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def _short(message: str) -> str:
    """An error message of at most :data:`MAX_ERROR_LENGTH` characters (gRPC trailers are small)."""
    return message if len(message) <= MAX_ERROR_LENGTH else message[: MAX_ERROR_LENGTH - 3] + "..."


def _invalid(message: str) -> OrganizerError:
    return OrganizerError(grpc.StatusCode.INVALID_ARGUMENT, message)


def _timestamp(seconds: float | str | None) -> Timestamp | None:
    if seconds is None or seconds == "":
        return None
    ts = Timestamp()
    ts.FromNanoseconds(int(float(seconds) * 1e9))
    return ts


def _set_time(field: Timestamp, seconds: float) -> None:
    """Set a Timestamp field from Unix seconds (left unset for 0)."""
    if seconds:
        field.FromNanoseconds(int(seconds * 1e9))


_COMPETITION_STATES = {"active": arena_pb2.COMPETITION_STATE_ACTIVE, "paused": arena_pb2.COMPETITION_STATE_PAUSED,
                       "closed": arena_pb2.COMPETITION_STATE_CLOSED}


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
    def bot_message(self, record: Any, caller: Caller = ADMIN) -> arena_pb2.Bot:
        """A bot as ``caller`` may see it: every field for the admin and for the bot itself, the public ones
        (id, name, registration time, deleted) for anyone else."""
        msg = arena_pb2.Bot(bot_id=record.name, name=record.name, deleted=record.deleted)
        ts = _timestamp(record.created_at)
        if ts is not None:
            msg.created_at.CopyFrom(ts)
        if caller.is_admin or caller.is_bot(record.name):
            msg.description = record.owner
            msg.connected = self.store.sessions.online(record.name)
            msg.bot_version = record.version
            msg.revoked = record.revoked
        return msg

    def register_bot(self, request: arena_pb2.RegisterBotRequest) -> arena_pb2.RegisterBotResponse:
        name = request.name
        if builtin_kind(name) is not None:
            raise _invalid(f"the name {name!r} is reserved for the built-in bot (names are compared without "
                           "case); choose another name")
        try:
            record, token = self.store.bots.register(name, owner=request.description)
        except DuplicateBotName as error:
            raise OrganizerError(grpc.StatusCode.ALREADY_EXISTS, str(error)) from None
        return arena_pb2.RegisterBotResponse(bot=self.bot_message(record), token=token)

    def get_bot(self, request: arena_pb2.GetBotRequest, caller: Caller = ADMIN) -> arena_pb2.GetBotResponse:
        record = self.store.bots.get(request.name)
        msg = self.bot_message(record, caller)
        if caller.is_admin or caller.is_bot(record.name):
            for seen in self.store.bots.versions(record.name):
                version = msg.versions.add(version=seen.version)
                for field, stamp in (("first_seen", seen.first_seen), ("last_seen", seen.last_seen)):
                    ts = _timestamp(stamp)
                    if ts is not None:
                        getattr(version, field).CopyFrom(ts)
        return arena_pb2.GetBotResponse(bot=msg)

    def _drop_streams(self, name: str, why: str) -> None:
        """Close the bot's live streams on every gateway holding one (through the relay)."""
        try:
            self.store.sessions.notify_gateways(name, lambda sessions: drop_message(name, sessions, why))
        except Exception:  # the token is already refused: a stream left open ends at its next reconnect
            log.warning("could not tell the gateways to close the streams of bot %s", name, exc_info=True)

    def rotate_bot_token(self, request: arena_pb2.RotateBotTokenRequest) -> arena_pb2.RotateBotTokenResponse:
        try:
            token = self.store.bots.rotate_token(request.name)
        except DeletedBot as error:
            raise OrganizerError(grpc.StatusCode.FAILED_PRECONDITION, str(error)) from None
        record = self.store.bots.get(request.name)
        self._drop_streams(record.name, "invalid token: the bot's token was rotated; reconnect with the new one")
        return arena_pb2.RotateBotTokenResponse(bot=self.bot_message(record), token=token)

    def revoke_bot(self, request: arena_pb2.RevokeBotRequest) -> arena_pb2.RevokeBotResponse:
        record = self.store.bots.revoke(request.name)
        self._drop_streams(record.name, "invalid token: the bot's token was revoked")
        return arena_pb2.RevokeBotResponse(bot=self.bot_message(record))

    def delete_bot(self, request: arena_pb2.DeleteBotRequest) -> arena_pb2.DeleteBotResponse:
        record = self.store.bots.delete(request.name)
        self._drop_streams(record.name, "invalid token: the bot was deleted")
        return arena_pb2.DeleteBotResponse(bot=self.bot_message(record))

    def list_bots(self, request: arena_pb2.ListBotsRequest, caller: Caller = ADMIN) -> arena_pb2.ListBotsResponse:
        size = request.page_size or DEFAULT_PAGE_SIZE
        size = min(size, MAX_PAGE_SIZE)
        records = self.store.bots.all()
        if not (caller.is_admin and request.include_deleted):
            records = [r for r in records if not r.deleted]
        after = request.page_token.casefold()
        if after:
            records = [r for r in records if r.name.casefold() > after]
        page = records[:size]
        more = len(records) > size
        return arena_pb2.ListBotsResponse(
            bots=[self.bot_message(r, caller) for r in page],
            next_page_token=page[-1].name if more and page else "",
        )

    def get_bot_log(self, request: arena_pb2.GetBotLogRequest, caller: Caller = ADMIN) -> arena_pb2.GetBotLogResponse:
        """The bot's incident log (:mod:`arena.store.incidents`), to the bot itself or the admin."""
        if not (caller.is_admin or caller.is_bot(request.name)):
            raise OrganizerError(grpc.StatusCode.PERMISSION_DENIED,
                                 "a bot may read its own incident log only (the admin may read any)")
        record = self.store.bots.get(request.name)
        limit = min(request.limit or DEFAULT_BOT_LOG_LIMIT, MAX_READ)
        incidents = (self.store.incidents.since(record.name, request.after_seq, limit) if request.after_seq
                     else self.store.incidents.recent(record.name, limit))
        return arena_pb2.GetBotLogResponse(incidents=[incident_message(i) for i in incidents],
                                           last_seq=self.store.incidents.last_seq(record.name))

    # -- tournaments ---------------------------------------------------------------------------
    def spec_from_request(self, msg: arena_pb2.TournamentSpec, tournament_id: str) -> tuple[TournamentSpec, int]:
        """A validated TournamentSpec and its number of matches (INVALID_ARGUMENT naming the problem otherwise).

        Every number is bounded (:mod:`arena.tournament.limits`) before the design is computed, so a valid
        request is cheap; the seed is the request's (0: the arena draws one when it creates the tournament)."""
        try:
            rules = rules_from_proto(msg.rules)
        except ValueError as error:
            raise _invalid(f"rules: {error}") from None
        options = {k: v for k, v in rules.to_dict().items() if k != "variant"}
        if len(msg.participants) > limits.MAX_PARTICIPANTS:
            raise _invalid(f"participants: at most {limits.MAX_PARTICIPANTS}, got {len(msg.participants)}")
        participants = [p.strip() for p in msg.participants]
        for name in participants:
            if not name:
                raise _invalid("participants: empty bot name")
            if builtin_kind(name) is None and not BOT_NAME_RE.match(name):
                raise _invalid(f"participants: {limits.quoted(name)} is not a bot name (1-32 letters, digits, "
                               "'_' or '-') nor a built-in bot")
        # Unset: the defaults; an explicit 0 is refused by the bounds below (never silently one deal).
        seats = int(msg.seats_per_table) if msg.HasField("seats_per_table") else 2
        deals = int(msg.deals_per_table) if msg.HasField("deals_per_table") else 1
        deadline_ms = int(msg.decision_deadline_ms or DEFAULT_DEADLINE_MS)
        try:
            limits.check_numbers(participants=len(participants), seats=seats, deals=deals, deadline_ms=deadline_ms,
                                 rules=rules.to_dict())
            spec = TournamentSpec(
                tournament_id=tournament_id,
                participants=tuple(participants),
                variant=rules.variant,
                options=options,
                seats=seats,
                deals=deals,
                duplicate=bool(msg.duplicate_deals),
                seed=int(msg.seed),
                deadline_ms=deadline_ms,
                time_bank_ms=int(msg.time_bank_ms),
                lag_cap_ms=(int(msg.lag_compensation_cap_ms) if msg.HasField("lag_compensation_cap_ms")
                            else DEFAULT_LAG_CAP_MS),
            )
            limits.check_size(len(spec.participants), spec.seats, spec.deals, spec.matches_per_deal, spec.max_tables,
                              spec.pair_meetings)
        except ValueError as error:
            raise _invalid(str(error)) from None
        total = count_matches(spec)  # bounded above: under a second for the largest valid field
        if total > limits.MAX_MATCHES:
            raise _invalid(f"the tournament would have {total} matches; at most {limits.MAX_MATCHES} are allowed")
        try:
            check_participants(self.store, spec.participants)
        except UnknownParticipants as error:
            raise _invalid(str(error)) from None
        return spec, total

    def _checked_create(self, request: arena_pb2.CreateTournamentRequest) -> tuple[TournamentSpec, int]:
        """The validated spec of a create request and its number of matches (INVALID_ARGUMENT otherwise)."""
        if not request.HasField("spec"):
            raise _invalid("spec is required")
        key = request.idempotency_key or None
        try:
            if key is not None:
                check_name(key, "idempotency key", MAX_NAME_LENGTH)
            if request.spec.name:
                check_name(request.spec.name, "tournament name", MAX_NAME_LENGTH)
        except InvalidName as error:
            raise _invalid(str(error)) from None
        if request.HasField("connect_wait_ms") and request.connect_wait_ms > MAX_CONNECT_WAIT_MS:
            raise _invalid(f"connect_wait_ms: at most {MAX_CONNECT_WAIT_MS}, got {request.connect_wait_ms}")
        return self.spec_from_request(request.spec, request.spec.name or new_tournament_id())

    def not_connected(self, participants: Iterable[str]) -> list[str]:
        """The registered participants (not the built-in bots) without a live session, sorted."""
        online = self.store.sessions.online
        return sorted(name for name in participants if builtin_kind(name) is None and not online(name))

    def connect_wait_s(self, request: arena_pb2.CreateTournamentRequest) -> float:
        """Seconds a create request may wait for its participants to connect: 0 unless it requires them
        connected (and is no retry of a tournament already created). Validates the request first."""
        self._checked_create(request)
        if not request.require_connected:
            return 0.0
        if request.idempotency_key and self.store.tournaments.idempotent_id(request.idempotency_key):
            return 0.0
        wait_ms = request.connect_wait_ms if request.HasField("connect_wait_ms") else DEFAULT_CONNECT_WAIT_MS
        return wait_ms / 1000.0

    def participants_not_connected(self, request: arena_pb2.CreateTournamentRequest) -> list[str]:
        return self.not_connected(p.strip() for p in request.spec.participants)

    def create_tournament(self, request: arena_pb2.CreateTournamentRequest) -> arena_pb2.CreateTournamentResponse:
        """Validate and create a tournament, and send its start. See the module docstring for connected
        participants (the wait itself is the servicer's: :meth:`ArenaServicer.CreateTournament`)."""
        spec, total = self._checked_create(request)
        key = request.idempotency_key or None
        missing = self.not_connected(spec.participants)
        retry = key is not None and self.store.tournaments.idempotent_id(key) is not None
        if missing and request.require_connected and not retry:
            raise OrganizerError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"participants not connected: {', '.join(missing)}; they would forfeit every match. Start them "
                "(`uno-arena bots list` shows who is connected) or create the tournament without requiring them "
                "connected")
        try:
            created = lifecycle.create_tournament(self.store, spec, idempotency_key=key, matches_total=total)
        except DuplicateTournament as error:
            raise OrganizerError(grpc.StatusCode.ALREADY_EXISTS, f"{error}; choose another name") from None
        except IdempotencyConflict as error:
            raise OrganizerError(grpc.StatusCode.ALREADY_EXISTS, str(error)) from None
        if created.created or self.store.tournaments.status(created.tournament_id) == "pending":
            # A retry of a request whose start message was lost sends it again (start is idempotent).
            self.enqueue().start(created.tournament_id)
        return arena_pb2.CreateTournamentResponse(tournament=self.tournament_message(created.tournament_id),
                                                  not_connected=missing)

    def list_tournaments(self, request: arena_pb2.ListTournamentsRequest,
                         caller: Caller = ADMIN) -> arena_pb2.ListTournamentsResponse:
        """Tournaments newest first, filtered by state, a page at a time (the seed as :meth:`tournament_message`
        shows it to ``caller``)."""
        statuses = []
        for state in request.states:
            if state not in _STATUS_OF_STATE:
                raise _invalid(f"states: {state} is not a tournament state (pending, running, finished, failed, "
                               "cancelled)")
            statuses.append(_STATUS_OF_STATE[state])
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        try:
            after = check_id(request.page_token, "page token") if request.page_token else None
            ids, more = self.store.tournaments.page(after=after, statuses=statuses or None, limit=size)
        except (InvalidName, UnknownTournament):
            raise _invalid(f"page_token {limits.quoted(request.page_token)} is not one this call gave") from None
        return arena_pb2.ListTournamentsResponse(
            tournaments=[self.tournament_message(tid, caller) for tid in ids],
            next_page_token=ids[-1] if more and ids else "",
        )

    def tournament_message(self, tournament_id: str, caller: Caller = ADMIN) -> arena_pb2.Tournament:
        """A tournament as ``caller`` may see it: its seed only for the admin until it ended, then for everyone
        (with the salt of its commitment). Never recomputes the design: the number of matches was stored at
        creation."""
        record = self.store.tournaments.get(tournament_id)
        spec = TournamentSpec.from_dict(record.spec)
        progress = self.store.results.progress(tournament_id)
        run = RunState(self.store, tournament_id).fields()
        reveal = lifecycle.seed_reveal(record)
        msg = arena_pb2.Tournament(
            tournament_id=tournament_id,
            spec=self.spec_message(spec),
            state=_STATES.get(record.status, arena_pb2.TOURNAMENT_STATE_UNSPECIFIED),
            matches_total=int(record.extra.get("matches_total") or 0) or progress.scheduled,
            matches_done=progress.done,
            matches_failed=progress.counters.get("aborted", 0),
            schedule_id=run.get("schedule_id", ""),
            detail=run.get("detail", ""),
            seed_commitment=reveal.commitment,
            revealed_seed=reveal.seed,
            seed_salt=reveal.salt,
            rating_pool=spec.rating_pool,
        )
        if not (caller.is_admin or reveal.revealed):
            msg.spec.seed = 0
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
            time_bank_ms=spec.time_bank_ms,
            lag_compensation_cap_ms=spec.lag_cap_ms,
        )

    # -- schedules -----------------------------------------------------------------------------
    def schedule_tournament(
        self, request: arena_pb2.ScheduleTournamentRequest
    ) -> arena_pb2.ScheduleTournamentResponse:
        if not request.HasField("spec"):
            raise _invalid("spec is required")
        if len(request.cron) > MAX_CRON_LENGTH or len(request.time_zone) > MAX_CRON_LENGTH:
            raise _invalid(f"cron and time_zone: at most {MAX_CRON_LENGTH} characters each")
        if request.time_zone not in UTC_NAMES:
            try:
                time_zone(request.time_zone)
            except CronError as error:
                raise _invalid(f"time_zone: {error}") from None
        try:
            # A time zone is stored with the expression, as its CRON_TZ= prefix (see arena.tournament.cron).
            zoned = request.cron if request.time_zone in UTC_NAMES else with_time_zone(request.cron, request.time_zone)
            cron = parse_cron(zoned)
        except CronError as error:
            raise _invalid(f"cron: {error}") from None
        key = request.idempotency_key
        try:
            # Schedule ids and keys are single key parts (no ':'): a schedule 'NAME:fired:DUE' or a key
            # 'schedule:NAME:DUE' would name the scheduler's own keys.
            if key:
                check_name(key, "idempotency key", MAX_NAME_LENGTH)
            if request.spec.name:
                sid = check_name(request.spec.name, "schedule id", MAX_NAME_LENGTH)
            elif key:
                sid = "s-" + hashlib.sha256(key.encode()).hexdigest()[:12]
            else:
                sid = f"s-{uuid.uuid4().hex[:12]}"
        except InvalidName as error:
            raise _invalid(str(error)) from None
        # Validate the template as one run would be (the run's id replaces this one; a seed of 0 stays 0: each
        # run then gets a fresh secret seed).
        spec, _ = self.spec_from_request(request.spec, "schedule-template")
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

    # -- competitions ------------------------------------------------------------------------------
    def competition_message(self, record: Any) -> arena_pb2.Competition:
        spec = CompetitionSpec.from_dict(record.spec)
        msg = arena_pb2.Competition(
            competition_id=record.competition_id,
            state=_COMPETITION_STATES.get(record.status, arena_pb2.COMPETITION_STATE_UNSPECIFIED),
            rules=rules_to_proto(Rules.from_dict(spec.rules)), seats_per_table=spec.seats,
            entrants=list(spec.entrants), blocks=record.blocks, matches_per_minute=spec.matches_per_minute,
            rating_pool=spec.pool)
        ts = _timestamp(record.created_at)
        if ts is not None:
            msg.created_at.CopyFrom(ts)
        return msg

    def list_competitions(self, request: arena_pb2.ListCompetitionsRequest) -> arena_pb2.ListCompetitionsResponse:
        records = [self.store.competitions.get(cid) for cid in self.store.competitions.ids()]
        return arena_pb2.ListCompetitionsResponse(competitions=[self.competition_message(r) for r in records])

    def get_competition_standings(
        self, request: arena_pb2.GetCompetitionStandingsRequest
    ) -> arena_pb2.GetCompetitionStandingsResponse:
        try:
            record = self.store.competitions.get(check_name(request.competition_id, "competition id", 48))
        except UnknownCompetition as error:
            raise OrganizerError(grpc.StatusCode.NOT_FOUND, str(error)) from None
        rows, retired = competition_standings(self.store, record.competition_id)
        response = arena_pb2.GetCompetitionStandingsResponse(competition=self.competition_message(record))
        for row in rows:
            entry = response.entries.add(rank=row.rank, bot=row.bot, version=row.version, rating=row.ordinal,
                                         mu=row.mu, sigma=row.sigma, rating_low=row.low, rating_high=row.high,
                                         matches=row.matches, connected=row.connected)
            _set_time(entry.since, row.since)
        for old in retired:
            mu, sigma = float(old.get("mu") or 0.0), float(old.get("sigma") or 0.0)
            entry = response.retired.add(bot=str(old["bot"]), version=str(old["version"]), rating=mu - 3 * sigma,
                                         mu=mu, sigma=sigma, rating_low=mu - 1.96 * sigma,
                                         rating_high=mu + 1.96 * sigma, matches=int(old.get("matches") or 0))
            _set_time(entry.since, float(old["started_at"]))
            _set_time(entry.retired_at, float(old.get("retired_at") or 0.0))
        return response

    def list_schedules(self, request: arena_pb2.ListSchedulesRequest) -> arena_pb2.ListSchedulesResponse:
        """Every schedule, by id (one whose stored cron expression or template no longer reads is listed with its
        id and expression only, so that it can still be found and deleted)."""
        schedules = []
        for schedule in self.store.schedules.all():
            try:
                schedules.append(self.schedule_message(schedule))
            except (CronError, ValueError, TypeError):
                log.warning("schedule %s does not read (cron %r)", schedule.schedule_id, schedule.cron, exc_info=True)
                schedules.append(arena_pb2.Schedule(schedule_id=schedule.schedule_id, cron=schedule.cron))
        return arena_pb2.ListSchedulesResponse(schedules=schedules)

    def delete_schedule(self, request: arena_pb2.DeleteScheduleRequest) -> arena_pb2.DeleteScheduleResponse:
        """Remove a schedule (no further firing); NOT_FOUND for an unknown id."""
        sid = request.schedule_id
        try:
            check_name(sid, "schedule id", MAX_NAME_LENGTH)
            removed = delete_schedule(self.store, sid)
        except InvalidName as error:
            raise _invalid(str(error)) from None
        except UnknownSchedule:
            raise OrganizerError(grpc.StatusCode.NOT_FOUND, f"no schedule {limits.quoted(sid)} (`uno-arena schedule "
                                 "list` shows them)") from None
        try:
            shown = self.schedule_message(removed)
        except (CronError, ValueError, TypeError):  # removed all the same: it could not have fired
            shown = arena_pb2.Schedule(schedule_id=removed.schedule_id, cron=removed.cron)
        return arena_pb2.DeleteScheduleResponse(schedule=shown)

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
    def match_summary(self, tournament_id: str, match_id: str, caller: Caller = ADMIN) -> arena_pb2.MatchSummary | None:
        """A recorded match; its deal seed only for the admin until the tournament ended."""
        result = self.store.results.get(tournament_id, match_id)
        if result is None:
            return None
        msg = summary_message(tournament_id, result)
        if not caller.is_admin and self.store.tournaments.status(tournament_id) not in _ENDED:
            msg.seed = 0
        return msg

    def feed(self, tournament_id: str, start: int) -> list[str]:
        return RunState(self.store, tournament_id).feed(start)

    def status(self, tournament_id: str) -> str:
        return self.store.tournaments.status(tournament_id)

    # -- standings -----------------------------------------------------------------------------
    def standings_payload(self, tournament_id: str) -> dict[str, Any]:
        """The standings payload (:func:`arena.service.lifecycle.cached_standings`), final once the tournament
        ended, whichever way: a cancelled or failed tournament starts no further match either."""
        payload = lifecycle.cached_standings(self.store, tournament_id).to_dict()
        status = self.store.tournaments.status(tournament_id)
        return dict(payload, final=bool(payload.get("final")) or status in _ENDED, status=status)

    def cancel_tournament(self, request: arena_pb2.CancelTournamentRequest) -> arena_pb2.CancelTournamentResponse:
        """Pending or running -> cancelled (workers start no further match); the reason is kept as detail."""
        tid = request.tournament_id
        reason = "".join(c for c in request.reason if c.isprintable())[:200] or "cancelled by the organizer"
        if not lifecycle.cancel_tournament(self.store, tid, reason):
            raise OrganizerError(grpc.StatusCode.FAILED_PRECONDITION,
                                 f"tournament {tid} is already {self.store.tournaments.status(tid)}: only a "
                                 "pending or running tournament can be cancelled")
        return arena_pb2.CancelTournamentResponse(tournament=self.tournament_message(tid))

    def get_standings(self, request: arena_pb2.GetStandingsRequest,
                      caller: Caller = ADMIN) -> arena_pb2.GetStandingsResponse:
        tid = request.tournament_id
        payload = self.standings_payload(tid)
        rows = []
        for row in payload["standings"]["rows"]:
            bot = row["bot"]
            low, high = row["rating_ci"]
            msg = arena_pb2.Standing(
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
                decisions=int(payload.get("decisions", {}).get(bot, 0)),
                tier=int(row.get("tier") or 0),
                indistinguishable=list(row.get("indistinguishable") or ()),
            )
            if row.get("win_rate") is not None:
                msg.win_rate = row["win_rate"]
            if row.get("win_rate_ci"):
                msg.win_rate_low, msg.win_rate_high = row["win_rate_ci"]
            if row.get("mean_points") is not None:
                msg.mean_points = row["mean_points"]
            rows.append(msg)
        pairs = [
            arena_pb2.HeadToHead(bot_name=cell["bot"], opponent=cell["opponent"], matches=cell["matches"],
                                 wins=cell["wins"], losses=cell["losses"], points_for=cell["points_for"],
                                 points_against=cell["points_against"])
            for by_opponent in (payload["standings"].get("head_to_head") or {}).values()
            for cell in by_opponent.values()
        ]
        return arena_pb2.GetStandingsResponse(
            tournament_id=tid, standings=rows, final=bool(payload.get("final")),
            state=_STATES.get(str(payload.get("status")), arena_pb2.TOURNAMENT_STATE_UNSPECIFIED), head_to_head=pairs,
        )

    # -- replays -------------------------------------------------------------------------------
    def get_replay(self, request: arena_pb2.GetReplayRequest, caller: Caller = ADMIN) -> arena_pb2.GetReplayResponse:
        """A match's replay: any view for the admin; for a bot, only its own seat's view of its own match."""
        mid = request.match_id
        try:
            check_id(mid, "match id")
        except InvalidName as error:
            raise _invalid(str(error)) from None
        tid = mid.split(":", 1)[0]
        result = self.store.results.get(tid, mid) if self.store.tournaments.exists(tid) else None
        record = self.store.replays.load(mid)
        if record is None:
            why = "" if result is None else f" (the match ended {result.end_reason}: no replay kept)"
            raise OrganizerError(grpc.StatusCode.NOT_FOUND, f"no replay of match {mid!r}{why}")
        viewer = request.seat if request.HasField("seat") else None
        players = record.players
        ended = self.store.tournaments.exists(tid) and self.store.tournaments.status(tid) in _ENDED
        ended = ended or (record.group == "human" and not record.tournament_id)  # a human game, over
        if not caller.is_admin and not ended and viewer is None:
            # An omniscient replay shows the deal seed and every hand: with duplicate deals, the hands of the
            # rotations still to play. Once the tournament ended, its seed is public and so are its replays.
            raise OrganizerError(grpc.StatusCode.PERMISSION_DENIED,
                                 f"the omniscient replay of match {mid!r} is only for the admin until its "
                                 "tournament ends; ask for a seat's view (set seat)")
        if caller.role is Role.ANONYMOUS and not ended:
            raise OrganizerError(grpc.StatusCode.UNAUTHENTICATED,
                                 "until its tournament ends, a match's replay needs a bot's token (its own seat's "
                                 "view) or the admin's: send 'authorization: Bearer <token>'")
        if not caller.is_admin and not ended:
            seats = list(record.seats)
            own = [i for i, name in enumerate(seats) if caller.is_bot(name)]
            if not own:
                raise OrganizerError(grpc.StatusCode.PERMISSION_DENIED,
                                     f"bot {caller.bot!r} did not play match {mid!r}: a bot may read only its own "
                                     "seat's view of its own matches")
            if viewer not in own:
                raise OrganizerError(grpc.StatusCode.PERMISSION_DENIED,
                                     f"a bot may read only its own seat's view: ask for seat {own[0]} (set seat)")
        if viewer is not None and not 0 <= viewer < players:
            raise _invalid(f"seat {viewer} is not a seat of this {players}-player match (0..{players - 1})")
        try:
            return arena_pb2.GetReplayResponse(replay=replay_message(record, result, viewer))
        except (ValueError, KeyError, TypeError) as error:  # an action the engine refuses: a corrupt record
            why = limits.quoted(str(error))
            raise OrganizerError(grpc.StatusCode.DATA_LOSS,
                                 f"the stored replay of match {mid!r} does not replay: {why}") from None

    # -- export --------------------------------------------------------------------------------
    def export(self, request: arena_pb2.ExportResultsRequest,
               caller: Caller = ADMIN) -> arena_pb2.ExportResultsResponse:
        tid = request.tournament_id
        record = self.store.tournaments.get(tid)
        results = self.store.results.all(tid)
        if request.format == arena_pb2.EXPORT_FORMAT_JSON:
            progress = self.store.results.progress(tid)
            reveal = lifecycle.seed_reveal(record)
            secret = not (caller.is_admin or reveal.revealed)
            # Until the end, the seed and the deal seeds are for the admin only (0 for anyone else).
            recorded = [dict(results[m].to_dict(), seed=0 if secret else results[m].seed) for m in sorted(results)]
            document = {
                "tournament": {
                    "tournament_id": tid,
                    "status": record.status,
                    "spec": dict(record.spec, seed=0) if secret else record.spec,
                    "matches_total": int(record.extra.get("matches_total") or 0) or progress.scheduled,
                    "matches_done": progress.done,
                    "matches_failed": progress.counters.get("aborted", 0),
                    "created_at": record.created_at,
                    "seed_commitment": reveal.commitment,
                    "revealed_seed": reveal.seed,
                    "seed_salt": reveal.salt,
                },
                "standings": self.standings_payload(tid),
                "matches": recorded,
            }
            data = json.dumps(document, indent=2, sort_keys=True).encode()
            return arena_pb2.ExportResultsResponse(
                content_type="application/json", filename=f"{tid}-results.json", data=data
            )
        if request.format not in (arena_pb2.EXPORT_FORMAT_CSV, arena_pb2.EXPORT_FORMAT_UNSPECIFIED):
            raise _invalid(f"unknown export format {request.format}")
        # Aborted matches are exported too; their end_reason column says so.
        matches = [r.result for r in results.values()]
        return arena_pb2.ExportResultsResponse(
            content_type="text/csv", filename=f"{tid}-results.csv", data=results_to_csv(matches).encode()
        )


def incident_message(incident: Incident) -> arena_pb2.BotIncident:
    msg = arena_pb2.BotIncident(seq=incident.seq, kind=incident.kind, match_id=incident.match_id,
                                decision_number=max(0, incident.decision), request_id=incident.request_id,
                                detail=incident.detail, strike=max(0, incident.strike))
    ts = _timestamp(incident.at)
    if ts is not None:
        msg.at.CopyFrom(ts)
    return msg


def summary_message(tournament_id: str, stored: StoredResult) -> arena_pb2.MatchSummary:
    """A stored result as a MatchSummary message."""
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


def replay_message(record: Replay, result: StoredResult | None, viewer: int | None) -> arena_pb2.Replay:
    """A stored match record replayed step by step (:func:`arena.service.replays.replay_steps`), omniscient or
    as seat ``viewer`` saw it."""
    walk = replay_steps(record, viewer)
    seats = list(record.seats)
    msg = arena_pb2.Replay(
        match_id=record.match_id,
        tournament_id=record.tournament_id,
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
    source = result or StoredResult.from_replay(record)
    msg.result.CopyFrom(result_message(source))
    msg.reason = end_reason_to_proto(source.result.end_reason)
    return msg


_REFUSED: tuple[type[Exception], ...] = (OrganizerError, UnknownTournament, UnknownBot, InvalidName, *StoreUnavailable)


class ArenaServicer(arena_pb2_grpc.ArenaServiceServicer):
    """``uno_arena.v1.ArenaService`` on a grpc.aio server, over :class:`Organizer`."""

    def __init__(self, organizer: Organizer) -> None:
        self.core = organizer

    async def _abort(self, context: grpc.aio.ServicerContext, error: Exception) -> None:
        """End the call with the status of a refused request (re-raises anything else)."""
        if isinstance(error, OrganizerError):
            await context.abort(error.code, _short(str(error)))
        if isinstance(error, (UnknownTournament, UnknownBot)):
            await context.abort(grpc.StatusCode.NOT_FOUND, _short(str(error)))
        if isinstance(error, InvalidName):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, _short(str(error)))
        if isinstance(error, StoreUnavailable):
            await context.abort(grpc.StatusCode.UNAVAILABLE, _short(f"the store is unreachable: {error}"))
        raise error

    async def _run(self, context: grpc.aio.ServicerContext, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a thread; a refused request ends the call with its status."""
        try:
            return await asyncio.to_thread(fn, *args, **kwargs)
        except _REFUSED as error:
            await self._abort(context, error)
        raise AssertionError("unreachable")  # context.abort raises

    async def _caller(self, context: grpc.aio.ServicerContext, rpc: str) -> Caller:
        """The caller, when its role may call ``rpc`` (:data:`RPC_ROLES`); the call ends otherwise."""
        return await self._run(context, self.core.authorize, context.invocation_metadata(), RPC_ROLES[rpc])

    async def _call(self, context: grpc.aio.ServicerContext, rpc: str, fn: Callable[..., T], *args: Any,
                    with_caller: bool = False) -> T:
        """Authorize the caller of ``rpc``, then run ``fn(*args)`` (with ``caller=`` when ``with_caller``)."""
        caller = await self._caller(context, rpc)
        return await self._run(context, fn, *args, **({"caller": caller} if with_caller else {}))

    async def RegisterBot(
        self, request: arena_pb2.RegisterBotRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.RegisterBotResponse:
        return await self._call(context, "RegisterBot", self.core.register_bot, request)

    async def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListBotsResponse:
        return await self._call(context, "ListBots", self.core.list_bots, request, with_caller=True)

    async def GetBot(
        self, request: arena_pb2.GetBotRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetBotResponse:
        return await self._call(context, "GetBot", self.core.get_bot, request, with_caller=True)

    async def RotateBotToken(
        self, request: arena_pb2.RotateBotTokenRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.RotateBotTokenResponse:
        return await self._call(context, "RotateBotToken", self.core.rotate_bot_token, request)

    async def RevokeBot(
        self, request: arena_pb2.RevokeBotRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.RevokeBotResponse:
        return await self._call(context, "RevokeBot", self.core.revoke_bot, request)

    async def DeleteBot(
        self, request: arena_pb2.DeleteBotRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.DeleteBotResponse:
        return await self._call(context, "DeleteBot", self.core.delete_bot, request)

    async def GetBotLog(
        self, request: arena_pb2.GetBotLogRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetBotLogResponse:
        return await self._call(context, "GetBotLog", self.core.get_bot_log, request, with_caller=True)

    async def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.CreateTournamentResponse:
        """Create a tournament; with ``require_connected``, first wait (on the event loop, no thread held) up to
        the request's wait for its registered participants to connect."""
        await self._caller(context, "CreateTournament")
        wait_s = await self._run(context, self.core.connect_wait_s, request)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while wait_s > 0 and loop.time() < deadline:
            missing = await self._run(context, self.core.participants_not_connected, request)
            if not missing:
                break
            await asyncio.sleep(min(CONNECT_POLL_S, max(0.0, deadline - loop.time())))
        return await self._run(context, self.core.create_tournament, request)

    async def ListTournaments(
        self, request: arena_pb2.ListTournamentsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListTournamentsResponse:
        return await self._call(context, "ListTournaments", self.core.list_tournaments, request, with_caller=True)

    async def ListCompetitions(
        self, request: arena_pb2.ListCompetitionsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListCompetitionsResponse:
        return await self._call(context, "ListCompetitions", self.core.list_competitions, request)

    async def GetCompetitionStandings(
        self, request: arena_pb2.GetCompetitionStandingsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetCompetitionStandingsResponse:
        return await self._call(context, "GetCompetitionStandings", self.core.get_competition_standings, request)

    async def ListSchedules(
        self, request: arena_pb2.ListSchedulesRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListSchedulesResponse:
        return await self._call(context, "ListSchedules", self.core.list_schedules, request)

    async def DeleteSchedule(
        self, request: arena_pb2.DeleteScheduleRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.DeleteScheduleResponse:
        return await self._call(context, "DeleteSchedule", self.core.delete_schedule, request)

    async def ScheduleTournament(
        self, request: arena_pb2.ScheduleTournamentRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ScheduleTournamentResponse:
        return await self._call(context, "ScheduleTournament", self.core.schedule_tournament, request)

    async def GetStandings(
        self, request: arena_pb2.GetStandingsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetStandingsResponse:
        return await self._call(context, "GetStandings", self.core.get_standings, request, with_caller=True)

    async def GetReplay(
        self, request: arena_pb2.GetReplayRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetReplayResponse:
        return await self._call(context, "GetReplay", self.core.get_replay, request, with_caller=True)

    async def ExportResults(
        self, request: arena_pb2.ExportResultsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ExportResultsResponse:
        return await self._call(context, "ExportResults", self.core.export, request, with_caller=True)

    async def CancelTournament(
        self, request: arena_pb2.CancelTournamentRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.CancelTournamentResponse:
        return await self._call(context, "CancelTournament", self.core.cancel_tournament, request)

    async def WatchTournament(
        self, request: arena_pb2.WatchTournamentRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[arena_pb2.WatchTournamentResponse]:
        tid = request.tournament_id
        caller = await self._caller(context, "WatchTournament")
        current = await self._run(context, self.core.tournament_message, tid, caller=caller)
        yield arena_pb2.WatchTournamentResponse(tournament=current)
        offset = 0
        last_state = current.state
        last_done = current.matches_done
        while current.state not in (_STATES[s] for s in _ENDED):
            await asyncio.sleep(WATCH_POLL_S)
            new_ids = await self._run(context, self.core.feed, tid, offset)
            offset += len(new_ids)
            current = await self._run(context, self.core.tournament_message, tid, caller=caller)
            for mid in new_ids:
                summary = await self._run(context, self.core.match_summary, tid, mid, caller=caller)
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
    "ADMIN",
    "ADMIN_TOKEN_ENV",
    "RPC_ROLES",
    "ArenaServicer",
    "Caller",
    "Organizer",
    "OrganizerError",
    "Role",
    "add_organizer",
    "replay_message",
    "summary_message",
]
