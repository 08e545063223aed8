"""The client of the organizer API (``uno_arena.v1.ArenaService``): :class:`ArenaClient`, one typed method per RPC;
:func:`plain` (a message as JSON-ready data: numbers as numbers, every field present), the words of the API's
states (:func:`state_name`, :func:`submission_state`) and :func:`rpc_error_line` (a failed call in one line). The
target and the token come from :mod:`arena.client.connection` (docs/operations.md).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC
from typing import Any, TypeVar

import grpc

from arena.protocol import arena_pb2, arena_pb2_grpc
from arena.protocol.convert import enum_maps

from .connection import (
    ADMIN_TOKEN_ENV,
    ADMIN_TOKEN_FILE_ENV,
    TARGET_ENV,
    channel_credentials,
    default_target,
    token_from,
)

RPC_TIMEOUT_S = 30.0


CREATE_ATTEMPTS = 3
"""How often an idempotent create is tried when its answer does not come (DEADLINE_EXCEEDED, UNAVAILABLE)."""
RETRIED_CODES = frozenset({grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE})
SUBMIT_CHUNK_BYTES = 32 * 1024

T = TypeVar("T")
M = TypeVar("M")


class ArenaClient:
    """The typed client of the organizer API: one method per RPC of ``uno_arena.v1.ArenaService``, paging
    iterators for the listed reads, and the idempotent creates retried with their key when the answer does not come.

    ``token`` defaults to the admin token of the environment (:func:`token_from`; none: anonymous calls);
    ``anonymous`` sends no token whatever the environment holds (a public reader such as the web front). Failures
    are ``grpc.RpcError`` with the server's status code and message.
    """

    def __init__(self, target: str | None = None, token: str | None = None, *, tls: bool = False,
                 tls_ca: str | None = None, timeout: float = RPC_TIMEOUT_S, anonymous: bool = False) -> None:
        self.target = target or default_target()
        # Exports of large tournaments exceed gRPC's default 4 MiB receive limit.
        options = [("grpc.max_receive_message_length", 256 * 1024 * 1024)]
        credentials = channel_credentials(tls, tls_ca)
        self.channel = (grpc.insecure_channel(self.target, options=options) if credentials is None
                        else grpc.secure_channel(self.target, credentials, options=options))
        self.stub = arena_pb2_grpc.ArenaServiceStub(self.channel)
        token = None if anonymous else token or token_from()
        self.metadata = [("authorization", f"Bearer {token}")] if token else []
        self.timeout = timeout

    def __enter__(self) -> ArenaClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self.channel.close()

    def _unary(self, request: Any, answer: type[M], timeout: float | None = None) -> M:
        """Call the RPC its request names (``GetBotRequest``: ``GetBot``); ``answer`` is its response's type."""
        method = getattr(self.stub, type(request).__name__.removesuffix("Request"))
        response: M = method(request, metadata=self.metadata, timeout=self.timeout if timeout is None else timeout)
        return response

    def _retried(self, request: Any, answer: type[M], timeout: float,
                 on_retry: Callable[[grpc.StatusCode], None] | None = None) -> M:
        """An idempotent create (its request carries an idempotency key): tried again when no answer came."""
        for attempt in range(1, CREATE_ATTEMPTS + 1):
            try:
                return self._unary(request, answer, timeout)
            except grpc.RpcError as error:
                code = error.code() if isinstance(error, grpc.Call) else None
                if code not in RETRIED_CODES or attempt == CREATE_ATTEMPTS:
                    raise
                if on_retry is not None and code is not None:
                    on_retry(code)
        raise AssertionError("unreachable")

    # Bots.
    def register_bot(self, name: str, description: str = "") -> arena_pb2.RegisterBotResponse:
        return self._unary(arena_pb2.RegisterBotRequest(name=name, description=description),
                           arena_pb2.RegisterBotResponse)

    def list_bots(self, *, include_deleted: bool = False, page_size: int = 500) -> Iterator[arena_pb2.Bot]:
        def page(token: str) -> tuple[Sequence[arena_pb2.Bot], str]:
            request = arena_pb2.ListBotsRequest(page_size=page_size, page_token=token, include_deleted=include_deleted)
            response = self._unary(request, arena_pb2.ListBotsResponse)
            return response.bots, response.next_page_token
        return _paged(page)

    def get_bot(self, name: str) -> arena_pb2.Bot:
        return self._unary(arena_pb2.GetBotRequest(name=name), arena_pb2.GetBotResponse).bot

    def rotate_bot_token(self, name: str) -> arena_pb2.RotateBotTokenResponse:
        return self._unary(arena_pb2.RotateBotTokenRequest(name=name), arena_pb2.RotateBotTokenResponse)

    def revoke_bot(self, name: str) -> arena_pb2.Bot:
        return self._unary(arena_pb2.RevokeBotRequest(name=name), arena_pb2.RevokeBotResponse).bot

    def delete_bot(self, name: str) -> arena_pb2.Bot:
        return self._unary(arena_pb2.DeleteBotRequest(name=name), arena_pb2.DeleteBotResponse).bot

    def get_bot_log(self, name: str, *, limit: int = 0, after_seq: int = 0) -> arena_pb2.GetBotLogResponse:
        """The incident log of bot ``name`` (the bot's own token, or the admin's): the newest ``limit`` incidents
        (0: the server's default), or those numbered after ``after_seq``, oldest first."""
        request = arena_pb2.GetBotLogRequest(name=name, limit=max(0, limit), after_seq=max(0, after_seq))
        return self._unary(request, arena_pb2.GetBotLogResponse)

    # Tournaments.
    def submit_bot(self, name: str, archive: bytes) -> arena_pb2.Submission:
        """Submit ``archive`` (tar.gz, tar or zip with a manifest) as bot ``name``'s next version; the stored
        submission (``checking`` until the bot host's verdict)."""
        def requests() -> Iterator[arena_pb2.SubmitBotRequest]:
            yield arena_pb2.SubmitBotRequest(name=name, chunk=archive[:SUBMIT_CHUNK_BYTES])
            for start in range(SUBMIT_CHUNK_BYTES, len(archive), SUBMIT_CHUNK_BYTES):
                yield arena_pb2.SubmitBotRequest(chunk=archive[start:start + SUBMIT_CHUNK_BYTES])

        response: arena_pb2.SubmitBotResponse = self.stub.SubmitBot(requests(), metadata=self.metadata,
                                                                     timeout=max(self.timeout, 60.0))
        return response.submission

    def list_submissions(self, name: str) -> arena_pb2.ListSubmissionsResponse:
        """Bot ``name``'s submitted versions with their verdicts, and its hosted process's state."""
        return self._unary(arena_pb2.ListSubmissionsRequest(name=name), arena_pb2.ListSubmissionsResponse)

    def get_bot_output(self, name: str) -> bytes:
        """The last output (stdout and stderr, at most 64 KiB) of bot ``name``'s hosted process."""
        return self._unary(arena_pb2.GetBotOutputRequest(name=name), arena_pb2.GetBotOutputResponse).output

    def create_tournament(self, spec: arena_pb2.TournamentSpec, *, idempotency_key: str = "",
                          require_connected: bool = False, connect_wait_s: float | None = None,
                          on_retry: Callable[[grpc.StatusCode], None] | None = None, deals_of: str = "",
                          seed_secret: str = "") -> arena_pb2.CreateTournamentResponse:
        """Create a tournament; with an idempotency key (one is made when none is given) a lost answer is asked
        again up to :data:`CREATE_ATTEMPTS` times, and the tournament the first try created is returned, never a second.
        ``deals_of`` (an ended tournament) or ``seed_secret`` (with the spec's seed): replay known deals."""
        request = arena_pb2.CreateTournamentRequest(spec=spec, idempotency_key=idempotency_key or new_idempotency_key(),
                                                    require_connected=require_connected, deals_of=deals_of,
                                                    seed_secret=seed_secret)
        timeout = self.timeout
        if require_connected and connect_wait_s is not None:
            request.connect_wait_ms = round(connect_wait_s * 1000)
            timeout += connect_wait_s
        return self._retried(request, arena_pb2.CreateTournamentResponse, timeout, on_retry)

    def list_tournaments(self, states: Iterable[arena_pb2.TournamentState] = (), *,
                         page_size: int = 100) -> Iterator[arena_pb2.Tournament]:
        """Every tournament (optionally only some states), newest first, a page at a time."""
        wanted = list(states)

        def page(token: str) -> tuple[Sequence[arena_pb2.Tournament], str]:
            response = self.tournaments_page(wanted, page_size=page_size, page_token=token)
            return response.tournaments, response.next_page_token
        return _paged(page)

    def tournaments_page(self, states: Iterable[arena_pb2.TournamentState] = (), *, page_size: int = 0,
                         page_token: str = "") -> arena_pb2.ListTournamentsResponse:
        """One page of :meth:`list_tournaments` (for readers that page themselves, e.g. the web)."""
        return self._unary(arena_pb2.ListTournamentsRequest(states=list(states), page_size=page_size,
                                                            page_token=page_token), arena_pb2.ListTournamentsResponse)

    def get_tournament(self, tournament_id: str) -> arena_pb2.Tournament:
        return self._unary(arena_pb2.GetTournamentRequest(tournament_id=tournament_id),
                           arena_pb2.GetTournamentResponse).tournament

    def watch_tournament(self, tournament_id: str, *,
                         timeout: float | None = None) -> Iterator[arena_pb2.WatchTournamentResponse]:
        """The tournament now, then one update per recorded match or state change, until it ends (no deadline
        unless ``timeout``: then DEADLINE_EXCEEDED past it)."""
        request = arena_pb2.WatchTournamentRequest(tournament_id=tournament_id)
        yield from self.stub.WatchTournament(request, metadata=self.metadata, timeout=timeout)

    def get_standings(self, tournament_id: str) -> arena_pb2.GetStandingsResponse:
        return self._unary(arena_pb2.GetStandingsRequest(tournament_id=tournament_id), arena_pb2.GetStandingsResponse)

    def list_matches(self, tournament_id: str, *, bot: str = "",
                     page_size: int = 0) -> Iterator[arena_pb2.MatchSummary]:
        """A tournament's recorded matches in match id order (optionally one bot's)."""

        def page(token: str) -> tuple[Sequence[arena_pb2.MatchSummary], str]:
            response = self._unary(arena_pb2.ListMatchesRequest(tournament_id=tournament_id, bot=bot,
                                                                page_size=page_size, page_token=token),
                                   arena_pb2.ListMatchesResponse)
            return response.matches, response.next_page_token
        return _paged(page)

    def get_replay(self, match_id: str, seat: int | None = None) -> arena_pb2.Replay:
        """A match's replay: omniscient (``seat`` None) or as one seat saw it."""
        return self._unary(arena_pb2.GetReplayRequest(match_id=match_id, seat=seat), arena_pb2.GetReplayResponse).replay

    def export_results(self, tournament_id: str, export_format: arena_pb2.ExportFormat, *,
                       timeout: float | None = None) -> arena_pb2.ExportResultsResponse:
        """A tournament's results as CSV or JSON (``timeout``: for a large one, longer than the client's)."""
        return self._unary(arena_pb2.ExportResultsRequest(tournament_id=tournament_id, format=export_format),
                           arena_pb2.ExportResultsResponse, timeout)

    def cancel_tournament(self, tournament_id: str, reason: str = "") -> arena_pb2.Tournament:
        return self._unary(arena_pb2.CancelTournamentRequest(tournament_id=tournament_id, reason=reason),
                           arena_pb2.CancelTournamentResponse).tournament

    # Schedules.
    def schedule_tournament(self, spec: arena_pb2.TournamentSpec, cron: str, *, time_zone: str = "",
                            idempotency_key: str = "") -> arena_pb2.Schedule:
        request = arena_pb2.ScheduleTournamentRequest(spec=spec, cron=cron, time_zone=time_zone,
                                                      idempotency_key=idempotency_key or new_idempotency_key())
        return self._retried(request, arena_pb2.ScheduleTournamentResponse, self.timeout).schedule

    def list_schedules(self) -> list[arena_pb2.Schedule]:
        return list(self._unary(arena_pb2.ListSchedulesRequest(), arena_pb2.ListSchedulesResponse).schedules)

    def delete_schedule(self, schedule_id: str) -> arena_pb2.Schedule:
        return self._unary(arena_pb2.DeleteScheduleRequest(schedule_id=schedule_id),
                           arena_pb2.DeleteScheduleResponse).schedule

    # Rating pools.
    def list_rating_pools(self) -> list[arena_pb2.RatingPool]:
        return list(self._unary(arena_pb2.ListRatingPoolsRequest(), arena_pb2.ListRatingPoolsResponse).pools)

    def get_leaderboard(self, pool_id: str) -> arena_pb2.GetLeaderboardResponse:
        return self._unary(arena_pb2.GetLeaderboardRequest(pool_id=pool_id), arena_pb2.GetLeaderboardResponse)

    # Competitions.
    def create_competition(self, request: arena_pb2.CreateCompetitionRequest) -> arena_pb2.Competition:
        return self._unary(request, arena_pb2.CreateCompetitionResponse).competition

    def list_competitions(self) -> list[arena_pb2.Competition]:
        return list(self._unary(arena_pb2.ListCompetitionsRequest(), arena_pb2.ListCompetitionsResponse).competitions)

    def get_competition_standings(self, competition_id: str) -> arena_pb2.GetCompetitionStandingsResponse:
        return self._unary(arena_pb2.GetCompetitionStandingsRequest(competition_id=competition_id),
                           arena_pb2.GetCompetitionStandingsResponse)

    def set_competition_state(self, competition_id: str, state: arena_pb2.CompetitionState,
                              ) -> arena_pb2.SetCompetitionStateResponse:
        return self._unary(arena_pb2.SetCompetitionStateRequest(competition_id=competition_id, state=state),
                           arena_pb2.SetCompetitionStateResponse)

    # Gauntlets.
    def start_gauntlet(self, spec: arena_pb2.GauntletSpec, *, gauntlet_id: str = "",
                       idempotency_key: str = "") -> arena_pb2.Gauntlet:
        request = arena_pb2.StartGauntletRequest(spec=spec, gauntlet_id=gauntlet_id,
                                                 idempotency_key=idempotency_key or new_idempotency_key())
        return self._retried(request, arena_pb2.StartGauntletResponse, self.timeout).gauntlet

    def list_gauntlets(self, limit: int = 0) -> list[arena_pb2.Gauntlet]:
        return list(self._unary(arena_pb2.ListGauntletsRequest(limit=limit), arena_pb2.ListGauntletsResponse).gauntlets)

    def get_gauntlet(self, gauntlet_id: str, *, after_block: int = 0) -> arena_pb2.GetGauntletResponse:
        return self._unary(arena_pb2.GetGauntletRequest(gauntlet_id=gauntlet_id, after_block=after_block),
                           arena_pb2.GetGauntletResponse)


def new_idempotency_key() -> str:
    return f"client-{uuid.uuid4().hex}"


def _paged(page: Callable[[str], tuple[Sequence[T], str]]) -> Iterator[T]:
    """Every item of a paged listing: ``page(token)`` answers one page and the next token (empty on the last)."""
    token = ""
    while True:
        items, token = page(token)
        yield from items
        if not token:
            return


def one_line(text: str) -> str:
    """``text`` with its unprintable characters (newlines, escapes) as spaces: safe on one line of a terminal."""
    return "".join(c if c.isprintable() else " " for c in text)


def rpc_error_line(error: grpc.RpcError, target: str) -> str:
    """One line for people naming what failed and what to do about it."""
    code = error.code() if isinstance(error, grpc.Call) else None
    detail = (error.details() if isinstance(error, grpc.Call) else "") or str(error)
    if code == grpc.StatusCode.UNAVAILABLE:
        return (f"UNAVAILABLE: cannot reach the arena at {target} ({one_line(detail)}): is `uno-arena serve` "
                f"running there, and with TLS (then give --tls or --tls-ca)? (set --server or ${TARGET_ENV})")
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return (f"{detail}: give the admin token with --token-file or ${ADMIN_TOKEN_ENV} / ${ADMIN_TOKEN_FILE_ENV} "
                "(or the bot's own token for its own data)")
    name = code.name if code is not None else "error"
    return f"{name}: {detail}"


_STATE_WORDS = enum_maps(arena_pb2.TournamentState.DESCRIPTOR, "TOURNAMENT_STATE_")[1]
_SUBMISSION_WORDS = enum_maps(arena_pb2.SubmissionState.DESCRIPTOR, "SUBMISSION_STATE_")[1]


def state_name(value: int) -> str:
    """A tournament state's word (``running``, ...): the same words as
    :class:`arena.tournament.status.TournamentStatus`, by the one rule of :mod:`arena.protocol.statuses` (this module
    does not import the tournament package: a bot's kit loads it); ``unspecified`` for 0 or an unknown number."""
    return _STATE_WORDS.get(value, "unspecified")


def submission_state(value: int) -> str:
    """A submission's state as a word (``checking``, ``admitted``, ``rejected``; ``unspecified`` for 0 or an
    unknown number): the CLI and the web front say it alike."""
    return _SUBMISSION_WORDS.get(value, "unspecified")


def plain(message: Any) -> dict[str, Any]:
    """A protobuf message as JSON-ready data with every field present: numbers as numbers (64-bit ones too),
    an unset optional field or message as ``None``, enums by name (tournament states as ``finished`` etc.),
    timestamps as ISO 8601 UTC strings."""
    out: dict[str, Any] = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        if field.is_repeated:
            out[field.name] = [_plain_value(field, item) for item in value]
        elif field.has_presence and not message.HasField(field.name):
            out[field.name] = None
        else:
            out[field.name] = _plain_value(field, value)
    return out


def iso(value: Any) -> str:
    """A ``google.protobuf.Timestamp`` as ISO 8601 UTC (``...Z``)."""
    return str(value.ToDatetime(tzinfo=UTC).isoformat().replace("+00:00", "Z"))


def _plain_value(field: Any, value: Any) -> Any:
    from google.protobuf.descriptor import FieldDescriptor

    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return iso(value) if field.message_type.full_name == "google.protobuf.Timestamp" else plain(value)
    if field.type == FieldDescriptor.TYPE_ENUM:
        if field.enum_type.full_name == "uno_arena.v1.TournamentState":
            return state_name(value)
        name = field.enum_type.values_by_number.get(value)
        return name.name if name is not None else value
    if field.type == FieldDescriptor.TYPE_BYTES:
        return value.hex()
    return value
