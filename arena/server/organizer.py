"""The organizer API's synchronous core (:class:`Organizer`): requests checked once, the store and the services asked.

Roles are :mod:`arena.server.auth`'s, who sees what (seeds until a tournament ends, replay views)
:mod:`arena.service.visibility`'s, messages :mod:`arena.server.api_messages`'s; competitions and pools are
:class:`arena.server.ladders.Ladders`, gauntlets :class:`arena.server.gauntlet_servicer.Gauntlets`, and the gRPC glue
:mod:`arena.server.servicer`. Work goes to the workers through the :class:`arena.service.enqueuer.Enqueuer` its
builder gives (the API imports neither Celery nor the workers). Each RPC's status codes are stated in arena.proto;
error messages quote at most 100 characters of an input.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import itertools
import logging
import os
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import grpc

from arena.protocol import arena_pb2, game_pb2
from arena.protocol.convert import end_reason_to_proto, rules_from_proto
from arena.protocol.specs import spec_numbers, tournament_spec_from_proto
from arena.protocol.statuses import TOURNAMENT_STATE_OF, tournament_status
from arena.relay.envelope import drop_message
from arena.service import lifecycle
from arena.service.enqueuer import Enqueuer, NoWorkers
from arena.service.exports import ExportFormat, export_results
from arena.service.lifecycle import UnknownParticipants, check_participants
from arena.service.matches import builtin_kind
from arena.service.schedules import delete_schedule, spec_for_run
from arena.service.tournaments import DealsStillSecret, KnownDeals, known_deals
from arena.service.tournaments import deals_of as tournament_deals_of
from arena.service.visibility import ADMIN, Caller, ReplayRefusal, replay_refusal, sees_profile, sees_secrets
from arena.store import (
    BotRecord,
    DuplicateSchedule,
    DuplicateTournament,
    IdempotencyConflict,
    InvalidName,
    Store,
    TournamentStandings,
    UnknownSchedule,
    UnknownTournament,
    new_tournament_id,
)
from arena.store.bots import MAX_OWNER
from arena.store.incident_store import MAX_READ
from arena.store.keys import BOT_NAME_RE, check_id, check_name
from arena.store.runstate import RunState
from arena.store.schedule_store import Schedule
from arena.tournament import TournamentSpec, count_matches, limits
from arena.tournament.cron import CronError, parse_cron, time_zone, with_time_zone
from arena.tournament.stats.verdicts import Verdicts
from arena.tournament.status import TournamentStatus

from .api_messages import (
    bot_message,
    head_to_head_messages,
    incident_message,
    replay_message,
    schedule_message,
    set_time,
    standing_message,
    summary_message,
    tournament_message,
    verdicts_message,
)
from .auth import AdminAuth
from .gauntlet_servicer import Gauntlets
from .ladders import Ladders
from .refusals import OrganizerError, invalid, not_found

log = logging.getLogger(__name__)

ADMIN_TOKEN_ENV = "UNO_ARENA_ADMIN_TOKEN"
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
DEFAULT_BOT_LOG_LIMIT = 100
"""Incidents GetBotLog returns when the request gives no limit (at most ``arena.store.incident_store.MAX_READ``)."""
MAX_NAME_LENGTH = 100
"""Tournament names, schedule ids and idempotency keys a user chooses: at most this many characters (no ':')."""
MAX_CRON_LENGTH = 100
"""Cron expressions (with a ``CRON_TZ=`` prefix) and time zone names: at most this many characters."""
DEFAULT_CONNECT_WAIT_MS = 10_000
"""How long a ``require_connected`` create waits for its registered participants to connect, unless told."""
MAX_CONNECT_WAIT_MS = 60_000
UTC_NAMES = ("", "UTC", "Etc/UTC", "Z", "GMT", "Etc/GMT")
_EXPORT_FORMATS = {arena_pb2.EXPORT_FORMAT_UNSPECIFIED: ExportFormat.CSV, arena_pb2.EXPORT_FORMAT_CSV: ExportFormat.CSV,
                   arena_pb2.EXPORT_FORMAT_JSON: ExportFormat.JSON}


def page_token(tournament_id: str, match_id: str) -> str:
    """The opaque token of the page after ``match_id`` of a tournament's matches."""
    return base64.urlsafe_b64encode(f"{tournament_id}\n{match_id}".encode()).decode().rstrip("=")


def after_match(tournament_id: str, token: str) -> str:
    """The last match id of the page a token continues (INVALID_ARGUMENT for a token this call did not give)."""
    try:
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = ""
    tid, _, match_id = text.partition("\n")
    if tid != tournament_id or not match_id:
        raise invalid(f"page_token {limits.quoted(token)} is not one ListMatches gave for tournament "
                      f"{limits.quoted(tournament_id)}")
    return match_id


@dataclass(frozen=True)
class CheckedCreate:
    """A create request as :meth:`Organizer.check_create` validated it, carried to its creation."""

    request: arena_pb2.CreateTournamentRequest
    spec: TournamentSpec
    matches: int
    wait_s: float
    """How long the call may wait for the registered participants to connect."""


class Organizer:
    """The synchronous core of the API: validates requests, talks to the store and sends work to the workers."""

    def __init__(self, store: Store, enqueuer: Enqueuer | None = None, *, admin_token: str | None = None) -> None:
        self.store = store
        self.enqueue: Enqueuer = enqueuer if enqueuer is not None else NoWorkers()
        self.admin_token = admin_token if admin_token is not None else os.environ.get(ADMIN_TOKEN_ENV, "")
        self.auth = AdminAuth(store, self.admin_token)
        self.ladders = Ladders(store)
        self.gauntlets = Gauntlets(store, self.enqueue)

    def bot_message(self, record: BotRecord, caller: Caller = ADMIN) -> arena_pb2.Bot:
        """A bot as ``caller`` may see it: every field for the admin and the bot itself, the public ones else."""
        private = sees_profile(caller, record.name)
        return bot_message(record, private, private and self.store.sessions.online(record.name))

    def register_bot(self, request: arena_pb2.RegisterBotRequest) -> arena_pb2.RegisterBotResponse:
        name = request.name
        if builtin_kind(name) is not None:
            raise invalid(f"the name {name!r} is reserved for the built-in bot (names are compared without "
                           "case); choose another name")
        description = request.description
        if len(description) > MAX_OWNER or any(ord(c) < 32 for c in description):
            raise invalid(f"the description must be at most {MAX_OWNER} printable characters (no control "
                          f"characters), got {len(description)} characters; shorten it")
        record, token = self.store.bots.register(name, owner=description)  # a name taken: ALREADY_EXISTS
        return arena_pb2.RegisterBotResponse(bot=self.bot_message(record), token=token)

    def get_bot(self, request: arena_pb2.GetBotRequest, caller: Caller = ADMIN) -> arena_pb2.GetBotResponse:
        record = self.store.bots.get(request.name)
        msg = self.bot_message(record, caller)
        if caller.is_admin or caller.is_bot(record.name):
            for seen in self.store.bots.versions(record.name):
                version = msg.versions.add(version=seen.version, matches=seen.matches)
                set_time(version.first_seen, seen.first_seen)
                set_time(version.last_seen, seen.last_seen)
        return arena_pb2.GetBotResponse(bot=msg)

    def _drop_streams(self, name: str, why: str) -> None:
        """Close the bot's live streams on every gateway holding one (through the relay)."""
        try:
            self.store.sessions.notify_gateways(name, lambda sessions: drop_message(name, sessions, why))
        except Exception:  # the token is already refused: a stream left open ends at its next reconnect
            log.warning("could not tell the gateways to close the streams of bot %s", name, exc_info=True)

    def rotate_bot_token(self, request: arena_pb2.RotateBotTokenRequest) -> arena_pb2.RotateBotTokenResponse:
        token = self.store.bots.rotate_token(request.name)  # a deleted bot: FAILED_PRECONDITION
        record = self.store.bots.get(request.name)
        self._drop_streams(record.name, "invalid token: the bot's token was rotated; reconnect with the new one")
        return arena_pb2.RotateBotTokenResponse(bot=self.bot_message(record), token=token)

    def revoke_bot(self, request: arena_pb2.RevokeBotRequest) -> arena_pb2.RevokeBotResponse:
        record = self.store.bots.revoke(request.name)
        self._drop_streams(record.name, "invalid token: the bot's token was revoked")
        return arena_pb2.RevokeBotResponse(bot=self.bot_message(record))

    def delete_bot(self, request: arena_pb2.DeleteBotRequest) -> arena_pb2.DeleteBotResponse:
        record = self.store.bots.delete(request.name)
        self.store.submissions.delete_all(record.name)  # its archives and quota go with it
        self._drop_streams(record.name, "invalid token: the bot was deleted")
        return arena_pb2.DeleteBotResponse(bot=self.bot_message(record))

    def list_bots(self, request: arena_pb2.ListBotsRequest, caller: Caller = ADMIN) -> arena_pb2.ListBotsResponse:
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
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
        """The bot's incident log (:mod:`arena.store.incident_store`), to the bot itself or the admin."""
        if not (caller.is_admin or caller.is_bot(request.name)):
            raise OrganizerError(grpc.StatusCode.PERMISSION_DENIED,
                                 "a bot may read its own incident log only (the admin may read any)")
        record = self.store.bots.get(request.name)
        limit = min(request.limit or DEFAULT_BOT_LOG_LIMIT, MAX_READ)
        incidents = (self.store.incidents.since(record.name, request.after_seq, limit) if request.after_seq
                     else self.store.incidents.recent(record.name, limit))
        return arena_pb2.GetBotLogResponse(incidents=[incident_message(i) for i in incidents],
                                           last_seq=self.store.incidents.last_seq(record.name))

    def spec_from_request(self, msg: arena_pb2.TournamentSpec, tournament_id: str) -> tuple[TournamentSpec, int]:
        """A validated TournamentSpec and its number of matches (INVALID_ARGUMENT naming the problem otherwise); every
        number is bounded (:mod:`arena.tournament.limits`) before the design is computed, so a valid one is cheap."""
        try:
            rules = rules_from_proto(msg.rules)
        except ValueError as error:
            raise invalid(f"rules: {error}") from None
        if len(msg.participants) > limits.MAX_PARTICIPANTS:
            raise invalid(f"participants: at most {limits.MAX_PARTICIPANTS}, got {len(msg.participants)}")
        participants = [p.strip() for p in msg.participants]
        for name in participants:
            if not name:
                raise invalid("participants: empty bot name")
            if builtin_kind(name) is None and not BOT_NAME_RE.match(name):
                raise invalid(f"participants: {limits.quoted(name)} is not a bot name (1-32 letters, digits, "
                               "'_' or '-') nor a built-in bot")
        # Unset: the defaults; an explicit 0 is refused by the bounds below (never silently one deal).
        numbers = spec_numbers(msg)
        try:
            limits.check_numbers(participants=len(participants), seats=numbers.seats, deals=numbers.deals,
                                 decision_deadline_ms=numbers.decision_deadline_ms, rules=rules.to_dict())
            spec = tournament_spec_from_proto(msg, tournament_id, lifecycle.duplicate_orders_for(participants))
            limits.check_size(len(spec.participants), spec.seats, spec.deals, spec.matches_per_deal, spec.max_tables,
                              spec.pair_meetings)
        except ValueError as error:
            raise invalid(str(error)) from None
        total = count_matches(spec)  # bounded above: under a second for the largest valid field
        if total > limits.MAX_MATCHES:
            raise invalid(f"the tournament would have {total} matches; at most {limits.MAX_MATCHES} are allowed")
        try:
            check_participants(self.store, spec.participants)
        except UnknownParticipants as error:
            raise invalid(str(error)) from None
        return spec, total

    def check_create(self, request: arena_pb2.CreateTournamentRequest) -> CheckedCreate:
        """A create request validated, once (INVALID_ARGUMENT otherwise); it waits for its participants to connect
        only when it requires them connected and is no retry of a tournament already created."""
        if not request.HasField("spec"):
            raise invalid("spec is required")
        key = request.idempotency_key or None
        if key is not None:
            check_name(key, "idempotency key", MAX_NAME_LENGTH)
        if request.spec.name:
            check_name(request.spec.name, "tournament name", MAX_NAME_LENGTH)
        if request.HasField("connect_wait_ms") and request.connect_wait_ms > MAX_CONNECT_WAIT_MS:
            raise invalid(f"connect_wait_ms: at most {MAX_CONNECT_WAIT_MS}, got {request.connect_wait_ms}")
        spec, total = self.spec_from_request(request.spec, request.spec.name or new_tournament_id())
        retry = key is not None and self.store.tournaments.idempotent_id(key) is not None
        wait_ms = request.connect_wait_ms if request.HasField("connect_wait_ms") else DEFAULT_CONNECT_WAIT_MS
        wait_s = wait_ms / 1000.0 if request.require_connected and not retry else 0.0
        return CheckedCreate(request, spec, total, wait_s)

    def not_connected(self, participants: Iterable[str]) -> list[str]:
        """The registered participants (not the built-in bots) without a live session, sorted."""
        online = self.store.sessions.online
        return sorted(name for name in participants if builtin_kind(name) is None and not online(name))

    def create_tournament(self, checked: CheckedCreate) -> arena_pb2.CreateTournamentResponse:
        """Create a tournament (checked by :meth:`check_create`) and send its start; FAILED_PRECONDITION naming the
        participants not connected when it requires them (the wait is :meth:`ArenaServicer.CreateTournament`'s)."""
        request, spec = checked.request, checked.spec
        key = request.idempotency_key or None
        missing = self.not_connected(spec.participants)
        retry = key is not None and self.store.tournaments.idempotent_id(key) is not None  # (perhaps while we waited)
        if missing and request.require_connected and not retry:
            raise OrganizerError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"participants not connected: {', '.join(missing)}; they would forfeit every match. Start them "
                "(`uno-arena bots list` shows who is connected) or create the tournament without requiring them "
                "connected")
        known = self._known_deals(request)
        try:
            created = lifecycle.create_tournament(self.store, spec, idempotency_key=key,
                                                  matches_total=checked.matches, known=known)
        except DuplicateTournament as error:
            raise OrganizerError(grpc.StatusCode.ALREADY_EXISTS, f"{error}; choose another name") from None
        except IdempotencyConflict as error:
            raise OrganizerError(grpc.StatusCode.ALREADY_EXISTS, str(error)) from None
        except (UnknownParticipants, ValueError) as error:  # deleted while waiting; a seed not the replayed deals'
            raise invalid(str(error)) from None
        if created.created or self.store.tournaments.status(created.tournament_id) is TournamentStatus.PENDING:
            # A retry of a request whose start message was lost sends it again (start is idempotent).
            self.enqueue.start(created.tournament_id)
        return arena_pb2.CreateTournamentResponse(tournament=self.tournament_message(created.tournament_id),
                                                  not_connected=missing)

    def _known_deals(self, request: arena_pb2.CreateTournamentRequest) -> KnownDeals | None:
        """The known deals a create request replays (``deals_of`` an ended tournament, or ``seed_secret`` with the
        spec's seed), ``None`` for fresh ones; FAILED_PRECONDITION while they are still secret."""
        if request.deals_of and request.seed_secret:
            raise invalid("give deals_of or seed_secret, not both")
        try:
            if request.deals_of:
                return tournament_deals_of(self.store, self.check_tournament(request.deals_of))
            if request.seed_secret:
                return known_deals(request.spec.seed, request.seed_secret)
        except UnknownTournament:
            raise  # NOT_FOUND
        except DealsStillSecret as error:
            raise OrganizerError(grpc.StatusCode.FAILED_PRECONDITION, str(error)) from None
        except ValueError as error:
            raise invalid(str(error)) from None
        return None

    def list_tournaments(self, request: arena_pb2.ListTournamentsRequest,
                         caller: Caller = ADMIN) -> arena_pb2.ListTournamentsResponse:
        """Tournaments newest first, filtered by state, a page at a time (the seed as :meth:`tournament_message`
        shows it to ``caller``)."""
        statuses = []
        for state in request.states:
            status = tournament_status(state)
            if status is None:
                raise invalid(f"states: {state} is not a tournament state ({', '.join(TournamentStatus)})")
            statuses.append(status)
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        try:
            after = check_id(request.page_token, "page token") if request.page_token else None
            ids, more = self.store.tournaments.page(after=after, statuses=statuses or None, limit=size)
        except (InvalidName, UnknownTournament):
            raise invalid(f"page_token {limits.quoted(request.page_token)} is not one this call gave") from None
        return arena_pb2.ListTournamentsResponse(
            tournaments=[self.tournament_message(tid, caller) for tid in ids],
            next_page_token=ids[-1] if more and ids else "",
        )

    def tournament_message(self, tournament_id: str, caller: Caller = ADMIN) -> arena_pb2.Tournament:
        """A tournament as ``caller`` may see it: its seed only for the admin until it ended, then for everyone
        (with the salt of its commitment)."""
        record = self.store.tournaments.get(tournament_id)
        reveal = lifecycle.seed_reveal(record)
        return tournament_message(record, self.store.results.progress(tournament_id),
                                  RunState(self.store, tournament_id).fields(), reveal,
                                  sees_secrets(caller, reveal.revealed))

    def check_tournament(self, tournament_id: str) -> str:
        """A tournament id that names a tournament (INVALID_ARGUMENT for no id or a malformed one, NOT_FOUND for an
        unknown one); ``WatchTournament`` checks it before its stream starts."""
        if not tournament_id:
            raise invalid("tournament_id is required (ListTournaments lists them)")
        check_id(tournament_id, "tournament id")
        self.store.tournaments.get(tournament_id)
        return tournament_id

    def get_tournament(self, request: arena_pb2.GetTournamentRequest,
                       caller: Caller = ADMIN) -> arena_pb2.GetTournamentResponse:
        tid = self.check_tournament(request.tournament_id)
        return arena_pb2.GetTournamentResponse(tournament=self.tournament_message(tid, caller))

    def list_matches(self, request: arena_pb2.ListMatchesRequest,
                     caller: Caller = ADMIN) -> arena_pb2.ListMatchesResponse:
        """A tournament's recorded matches in match id order (string order), a page at a time, filtered by bot
        (without case) and end reasons; deal seeds as :meth:`match_summary` shows them."""
        tid = self.check_tournament(request.tournament_id)
        known = set(game_pb2.EndReason.values()) - {game_pb2.END_REASON_UNSPECIFIED}
        for reason in request.reasons:
            if reason not in known:
                raise invalid(f"reasons: {reason} is not an end reason")
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        after = after_match(tid, request.page_token) if request.page_token else ""
        results = self.store.results.all(tid)
        bot = request.bot.strip().casefold()
        reasons = set(request.reasons)
        wanted = (mid for mid in sorted(m for m in results if m > after)
                  if (not bot or bot in {name.casefold() for name in results[mid].seats})
                  and (not reasons or end_reason_to_proto(results[mid].end_reason) in reasons))
        chosen = list(itertools.islice(wanted, size + 1))
        page, more = chosen[:size], len(chosen) > size
        shown = sees_secrets(caller, self.store.tournaments.status(tid).ended)
        return arena_pb2.ListMatchesResponse(
            matches=[summary_message(tid, results[mid], shown) for mid in page],
            next_page_token=page_token(tid, page[-1]) if more and page else "")

    def schedule_tournament(
        self, request: arena_pb2.ScheduleTournamentRequest
    ) -> arena_pb2.ScheduleTournamentResponse:
        if not request.HasField("spec"):
            raise invalid("spec is required")
        if len(request.cron) > MAX_CRON_LENGTH or len(request.time_zone) > MAX_CRON_LENGTH:
            raise invalid(f"cron and time_zone: at most {MAX_CRON_LENGTH} characters each")
        if request.time_zone not in UTC_NAMES:
            try:
                time_zone(request.time_zone)
            except CronError as error:
                raise invalid(f"time_zone: {error}") from None
        try:
            # A time zone is stored with the expression, as its CRON_TZ= prefix (see arena.tournament.cron).
            zoned = request.cron if request.time_zone in UTC_NAMES else with_time_zone(request.cron, request.time_zone)
            cron = parse_cron(zoned)
        except CronError as error:
            message = str(error)  # most CronErrors name the cron expression themselves: name it once
            raise invalid(message if "cron" in message.split(":")[0] else f"cron: {message}") from None
        key = request.idempotency_key
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

    def list_schedules(self, request: arena_pb2.ListSchedulesRequest) -> arena_pb2.ListSchedulesResponse:
        return arena_pb2.ListSchedulesResponse(schedules=[self.schedule_message(s) for s in self.store.schedules.all()])

    def delete_schedule(self, request: arena_pb2.DeleteScheduleRequest) -> arena_pb2.DeleteScheduleResponse:
        """Remove a schedule (no further firing); NOT_FOUND for an unknown id."""
        sid = request.schedule_id
        try:
            check_name(sid, "schedule id", MAX_NAME_LENGTH)
            removed = delete_schedule(self.store, sid)
        except UnknownSchedule:
            raise OrganizerError(grpc.StatusCode.NOT_FOUND, f"no schedule {limits.quoted(sid)} (`uno-arena schedule "
                                 "list` shows them)") from None
        return arena_pb2.DeleteScheduleResponse(schedule=self.schedule_message(removed))

    @staticmethod
    def schedule_message(schedule: Schedule) -> arena_pb2.Schedule:
        """A schedule with its next run; one that no longer reads (its cron expression or template) with its id and
        expression only, so that it can still be found and deleted (it cannot fire)."""
        try:
            upcoming = parse_cron(schedule.cron).next(datetime.now(UTC))
            return schedule_message(schedule, spec_for_run(schedule.spec, schedule.schedule_id, upcoming), upcoming)
        except (CronError, ValueError, TypeError):
            log.warning("schedule %s does not read (cron %r)", schedule.schedule_id, schedule.cron, exc_info=True)
            return arena_pb2.Schedule(schedule_id=schedule.schedule_id, cron=schedule.cron)

    def match_summary(self, tournament_id: str, match_id: str, caller: Caller = ADMIN) -> arena_pb2.MatchSummary | None:
        """A recorded match; its deal seed only for the admin until the tournament ended."""
        result = self.store.results.get(tournament_id, match_id)
        if result is None:
            return None
        ended = self.store.tournaments.status(tournament_id).ended
        return summary_message(tournament_id, result, sees_secrets(caller, ended))

    def current_standings(self, tournament_id: str) -> tuple[TournamentStandings, TournamentStatus]:
        """The cached standings and the tournament's status; final once it ended, whichever way (a cancelled or failed
        tournament starts no further match either)."""
        standings = lifecycle.cached_standings(self.store, tournament_id)
        status = self.store.tournaments.status(tournament_id)
        return replace(standings, final=standings.final or status.ended), status

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
        standings, status = self.current_standings(tid)
        return arena_pb2.GetStandingsResponse(
            tournament_id=tid, standings=[standing_message(row, standings) for row in standings.rows],
            final=standings.final, state=TOURNAMENT_STATE_OF[status],
            head_to_head=head_to_head_messages(standings.head_to_head),
            verdicts=verdicts_message(Verdicts.from_dict(standings.table.get("verdicts"))),
        )

    def get_replay(self, request: arena_pb2.GetReplayRequest, caller: Caller = ADMIN) -> arena_pb2.GetReplayResponse:
        """A match's replay: any view for the admin; for a bot, only its own seat's view of its own match
        (:func:`arena.service.visibility.replay_refusal`); every view once the tournament ended."""
        mid = request.match_id
        check_id(mid, "match id")
        tid = mid.split(":", 1)[0]
        result = self.store.results.get(tid, mid) if self.store.tournaments.exists(tid) else None
        record = self.store.replays.load(mid)
        if record is None:
            why = "" if result is None else f" (the match ended {result.end_reason}: no replay kept)"
            raise not_found(f"no replay of match {mid!r}{why}")
        viewer = request.seat if request.HasField("seat") else None
        players = record.players
        ended = self.store.tournaments.exists(tid) and self.store.tournaments.status(tid).ended
        ended = ended or (record.group == "human" and not record.tournament_id)  # a human game, over
        refused = replay_refusal(caller, mid, ended, list(record.seats), viewer)
        if refused is not None:
            code = (grpc.StatusCode.UNAUTHENTICATED if refused.kind is ReplayRefusal.UNAUTHENTICATED
                    else grpc.StatusCode.PERMISSION_DENIED)
            raise OrganizerError(code, refused.message)
        if viewer is not None and not 0 <= viewer < players:
            raise invalid(f"seat {viewer} is not a seat of this {players}-player match (0..{players - 1})")
        try:
            return arena_pb2.GetReplayResponse(replay=replay_message(record, result, viewer))
        except (ValueError, KeyError, TypeError) as error:  # an action the engine refuses: a corrupt record
            why = limits.quoted(str(error))
            raise OrganizerError(grpc.StatusCode.DATA_LOSS,
                                 f"the stored replay of match {mid!r} does not replay: {why}") from None

    def export(self, request: arena_pb2.ExportResultsRequest,
               caller: Caller = ADMIN) -> arena_pb2.ExportResultsResponse:
        """The tournament's results as CSV or JSON (:func:`arena.service.exports.export_results`)."""
        fmt = _EXPORT_FORMATS.get(request.format)
        if fmt is None:
            raise invalid(f"unknown export format {request.format}")
        tid = request.tournament_id
        record = self.store.tournaments.get(tid)
        reveal = lifecycle.seed_reveal(record)
        standings: dict[str, Any] = {}
        if fmt is ExportFormat.JSON:  # their JSON with the tournament's status
            table, status = self.current_standings(tid)
            standings = dict(table.to_dict(), status=status)
        exported = export_results(fmt, record, self.store.results.all(tid), self.store.results.progress(tid), reveal,
                                  standings, sees_secrets(caller, reveal.revealed))
        return arena_pb2.ExportResultsResponse(content_type=exported.content_type, filename=exported.filename,
                                               data=exported.data)
