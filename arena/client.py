"""A client of the organizer API (``uno_arena.v1.ArenaService``) and the texts it shows: :class:`ArenaClient`,
:func:`watch` (follow a tournament to its end), :func:`progress_line`, :func:`standings_text` (this tournament's
result first, then the ratings, each named in a legend: :data:`BATCH_NOTE`, :data:`OPENSKILL_NOTE`),
:func:`plain` (a message as JSON-ready data: numbers as numbers, every field present),
:meth:`ArenaClient.get_bot_log` / :func:`follow_bot_log` / :func:`incident_line` (a bot's incident log).
Used by the CLI commands, the demo, the local arena and the load benchmark.

The target is ``$UNO_ARENA_TARGET`` (else ``localhost:50051``); ``authorization: Bearer TOKEN`` is sent with
the token given (the admin token, or a bot's own token for what a bot may read), else ``$UNO_ARENA_ADMIN_TOKEN``,
else the contents of the file ``$UNO_ARENA_ADMIN_TOKEN_FILE`` (e.g. the one ``uno-arena serve
--generate-admin-token FILE`` wrote); with none of them the calls are anonymous.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC
from typing import Any, TypeVar

import grpc

from arena.protocol import arena_pb2, arena_pb2_grpc, game_pb2
from arena.protocol.convert import enum_maps

TARGET_ENV = "UNO_ARENA_TARGET"
ADMIN_TOKEN_ENV = "UNO_ARENA_ADMIN_TOKEN"
ADMIN_TOKEN_FILE_ENV = "UNO_ARENA_ADMIN_TOKEN_FILE"
DEFAULT_TARGET = "localhost:50051"
RPC_TIMEOUT_S = 30.0


def default_target() -> str:
    return os.environ.get(TARGET_ENV) or DEFAULT_TARGET


def write_secret_file(path: str, text: str) -> None:
    """Write ``text`` to ``path``, created or truncated, readable by its owner only (mode 0600 even when the
    file existed with another mode)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def read_token_file(path: str | os.PathLike[str]) -> str:
    """The token in a file (surrounding whitespace removed); ValueError naming the file when it is empty or
    cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read().strip()
    except OSError as error:
        raise ValueError(f"cannot read the token file {os.fspath(path)!r}: {error.strerror or error}") from None
    if not token or any(c.isspace() for c in token):
        raise ValueError(f"the token file {os.fspath(path)!r} must hold one token")
    return token


def token_from(token: str | None = None, token_file: str | None = None, env: str = ADMIN_TOKEN_ENV,
               file_env: str = ADMIN_TOKEN_FILE_ENV) -> str:
    """A token: ``token``, else the contents of ``token_file``, else ``$env``, else the file ``$file_env``
    names; empty when none is set. ValueError for a token file that cannot be read."""
    if token:
        return token
    if token_file:
        return read_token_file(token_file)
    if os.environ.get(env):
        return os.environ[env].strip()
    if os.environ.get(file_env):
        return read_token_file(os.environ[file_env])
    return ""


def _metadata(token: str | None = None) -> list[tuple[str, str]]:
    token = token or token_from()
    return [("authorization", f"Bearer {token}")] if token else []


TLS_ENV = "UNO_ARENA_TLS"
TLS_CA_ENV = "UNO_ARENA_TLS_CA"


def tls_credentials(tls: bool = False, tls_ca: str | os.PathLike[str] | None = None) -> grpc.ChannelCredentials | None:
    """Channel credentials for an arena served with TLS: the system's roots, or ``tls_ca`` (a PEM file of the CA,
    or of the arena's self-signed certificate; it implies TLS). None (plaintext) unless one is given; ValueError
    for a CA file that cannot be read. Shared by the CLI and the Python kit."""
    if not tls and not tls_ca:
        return None
    root = None
    if tls_ca:
        try:
            with open(os.path.expanduser(tls_ca), "rb") as handle:
                root = handle.read()
        except OSError as error:
            raise ValueError(f"cannot read the TLS CA file {os.fspath(tls_ca)!r}: {error.strerror or error}") from None
    return grpc.ssl_channel_credentials(root_certificates=root)


def channel_credentials(tls: bool = False, tls_ca: str | None = None) -> grpc.ChannelCredentials | None:
    """:func:`tls_credentials`, with ``$UNO_ARENA_TLS`` (1/true) and ``$UNO_ARENA_TLS_CA`` when unset."""
    tls_ca = tls_ca or os.environ.get(TLS_CA_ENV, "").strip() or None
    tls = tls or os.environ.get(TLS_ENV, "").strip().lower() in ("1", "true", "yes")
    return tls_credentials(tls, tls_ca)


CREATE_ATTEMPTS = 3
"""How often an idempotent create is tried when its answer does not come (DEADLINE_EXCEEDED, UNAVAILABLE)."""
RETRIED_CODES = frozenset({grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE})

T = TypeVar("T")


class ArenaClient:
    """The typed client of the organizer API: one method per RPC of ``uno_arena.v1.ArenaService``, paging
    iterators for the listed reads, and the idempotent creates retried with their key when the answer does not come.

    ``target`` defaults to :func:`default_target`; ``token`` to the admin token of the environment
    (:func:`token_from`; none: anonymous calls); ``tls``/``tls_ca``: see :func:`channel_credentials`. Failures are
    ``grpc.RpcError`` with the server's status code and message (:func:`rpc_error_line` makes one line of one).
    ``anonymous``: send no token at all, whatever the environment holds (a public reader such as the web front).
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
        self.metadata = [] if anonymous else _metadata(token)
        self.timeout = timeout

    def __enter__(self) -> ArenaClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self.channel.close()

    def _unary(self, method: str, request: Any, timeout: float | None = None) -> Any:
        return getattr(self.stub, method)(request, metadata=self.metadata,
                                          timeout=self.timeout if timeout is None else timeout)

    def _retried(self, method: str, request: Any, timeout: float, attempts: int,
                 on_retry: Callable[[grpc.StatusCode], None] | None) -> Any:
        """An idempotent create (its request carries an idempotency key): tried again when no answer came."""
        for attempt in range(1, attempts + 1):
            try:
                return self._unary(method, request, timeout)
            except grpc.RpcError as error:
                code = error.code() if isinstance(error, grpc.Call) else None
                if code not in RETRIED_CODES or attempt == attempts:
                    raise
                if on_retry is not None and code is not None:
                    on_retry(code)
        raise AssertionError("unreachable")

    # Bots.
    def register_bot(self, name: str, description: str = "") -> arena_pb2.RegisterBotResponse:
        response: arena_pb2.RegisterBotResponse = self._unary(
            "RegisterBot", arena_pb2.RegisterBotRequest(name=name, description=description))
        return response

    def list_bots(self, *, include_deleted: bool = False, page_size: int = 500) -> Iterator[arena_pb2.Bot]:
        def page(token: str) -> tuple[Sequence[arena_pb2.Bot], str]:
            response: arena_pb2.ListBotsResponse = self._unary("ListBots", arena_pb2.ListBotsRequest(
                page_size=page_size, page_token=token, include_deleted=include_deleted))
            return response.bots, response.next_page_token
        return _paged(page)

    def get_bot(self, name: str) -> arena_pb2.Bot:
        response: arena_pb2.GetBotResponse = self._unary("GetBot", arena_pb2.GetBotRequest(name=name))
        return response.bot

    def rotate_bot_token(self, name: str) -> arena_pb2.RotateBotTokenResponse:
        response: arena_pb2.RotateBotTokenResponse = self._unary(
            "RotateBotToken", arena_pb2.RotateBotTokenRequest(name=name))
        return response

    def revoke_bot(self, name: str) -> arena_pb2.Bot:
        response: arena_pb2.RevokeBotResponse = self._unary("RevokeBot", arena_pb2.RevokeBotRequest(name=name))
        return response.bot

    def delete_bot(self, name: str) -> arena_pb2.Bot:
        response: arena_pb2.DeleteBotResponse = self._unary("DeleteBot", arena_pb2.DeleteBotRequest(name=name))
        return response.bot

    def get_bot_log(self, name: str, *, limit: int = 0, after_seq: int = 0) -> arena_pb2.GetBotLogResponse:
        """The incident log of bot ``name`` (the bot's own token, or the admin's): the newest ``limit`` incidents
        (0: the server's default), or those numbered after ``after_seq``, oldest first."""
        request = arena_pb2.GetBotLogRequest(name=name, limit=max(0, limit), after_seq=max(0, after_seq))
        response: arena_pb2.GetBotLogResponse = self._unary("GetBotLog", request)
        return response

    # Tournaments.
    def submit_bot(self, name: str, archive: bytes, *, chunk_bytes: int = 32 * 1024) -> arena_pb2.Submission:
        """Submit ``archive`` (tar.gz, tar or zip with a manifest) as bot ``name``'s next version; the stored
        submission (``checking`` until the bot host's verdict)."""
        def requests() -> Iterator[arena_pb2.SubmitBotRequest]:
            yield arena_pb2.SubmitBotRequest(name=name, chunk=archive[:chunk_bytes])
            for start in range(chunk_bytes, len(archive), chunk_bytes):
                yield arena_pb2.SubmitBotRequest(chunk=archive[start:start + chunk_bytes])

        response: arena_pb2.SubmitBotResponse = self.stub.SubmitBot(requests(), metadata=self.metadata,
                                                                     timeout=max(self.timeout, 60.0))
        return response.submission

    def list_submissions(self, name: str) -> arena_pb2.ListSubmissionsResponse:
        """Bot ``name``'s submitted versions with their verdicts, and its hosted process's state."""
        response: arena_pb2.ListSubmissionsResponse = self._unary(
            "ListSubmissions", arena_pb2.ListSubmissionsRequest(name=name))
        return response

    def get_bot_output(self, name: str) -> bytes:
        """The last output (stdout and stderr, at most 64 KiB) of bot ``name``'s hosted process."""
        response: arena_pb2.GetBotOutputResponse = self._unary(
            "GetBotOutput", arena_pb2.GetBotOutputRequest(name=name))
        return response.output

    def create_tournament(self, spec: arena_pb2.TournamentSpec, *, idempotency_key: str = "",
                          require_connected: bool = False, connect_wait_s: float | None = None,
                          attempts: int = CREATE_ATTEMPTS,
                          on_retry: Callable[[grpc.StatusCode], None] | None = None,
                          deals_of: str = "", seed_secret: str = "",
                          ) -> arena_pb2.CreateTournamentResponse:
        """Create a tournament; with an idempotency key (one is made when none is given) a lost answer is asked
        again up to ``attempts`` times, and the tournament the first try created is returned, never a second.
        ``deals_of`` (an ended tournament) or ``seed_secret`` (with the spec's seed): replay known deals."""
        request = arena_pb2.CreateTournamentRequest(spec=spec, idempotency_key=idempotency_key or new_idempotency_key(),
                                                    require_connected=require_connected, deals_of=deals_of,
                                                    seed_secret=seed_secret)
        timeout = self.timeout
        if require_connected and connect_wait_s is not None:
            request.connect_wait_ms = round(connect_wait_s * 1000)
            timeout += connect_wait_s
        response: arena_pb2.CreateTournamentResponse = self._retried(
            "CreateTournament", request, timeout, attempts, on_retry)
        return response

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
        response: arena_pb2.ListTournamentsResponse = self._unary("ListTournaments", arena_pb2.ListTournamentsRequest(
            states=list(states), page_size=page_size, page_token=page_token))
        return response

    def get_tournament(self, tournament_id: str) -> arena_pb2.Tournament:
        response: arena_pb2.GetTournamentResponse = self._unary(
            "GetTournament", arena_pb2.GetTournamentRequest(tournament_id=tournament_id))
        return response.tournament

    def watch_tournament(self, tournament_id: str, *,
                         timeout: float | None = None) -> Iterator[arena_pb2.WatchTournamentResponse]:
        """The tournament now, then one update per recorded match or state change, until it ends (no deadline
        unless ``timeout``: then DEADLINE_EXCEEDED past it)."""
        request = arena_pb2.WatchTournamentRequest(tournament_id=tournament_id)
        yield from self.stub.WatchTournament(request, metadata=self.metadata, timeout=timeout)

    def get_standings(self, tournament_id: str) -> arena_pb2.GetStandingsResponse:
        response: arena_pb2.GetStandingsResponse = self._unary(
            "GetStandings", arena_pb2.GetStandingsRequest(tournament_id=tournament_id))
        return response

    def list_matches(self, tournament_id: str, *, bot: str = "", reasons: Iterable[game_pb2.EndReason] = (),
                     page_size: int = 0) -> Iterator[arena_pb2.MatchSummary]:
        """A tournament's recorded matches in match id order (optionally one bot's, or some end reasons)."""
        wanted = list(reasons)

        def page(token: str) -> tuple[Sequence[arena_pb2.MatchSummary], str]:
            response: arena_pb2.ListMatchesResponse = self._unary("ListMatches", arena_pb2.ListMatchesRequest(
                tournament_id=tournament_id, bot=bot, reasons=wanted, page_size=page_size, page_token=token))
            return response.matches, response.next_page_token
        return _paged(page)

    def get_replay(self, match_id: str, seat: int | None = None) -> arena_pb2.Replay:
        """A match's replay: omniscient (``seat`` None) or as one seat saw it."""
        request = arena_pb2.GetReplayRequest(match_id=match_id)
        if seat is not None:
            request.seat = seat
        response: arena_pb2.GetReplayResponse = self._unary("GetReplay", request)
        return response.replay

    def export_results(self, tournament_id: str, export_format: arena_pb2.ExportFormat, *,
                       timeout: float | None = None) -> arena_pb2.ExportResultsResponse:
        """A tournament's results as CSV or JSON (``timeout``: for a large one, longer than the client's)."""
        response: arena_pb2.ExportResultsResponse = self._unary("ExportResults", arena_pb2.ExportResultsRequest(
            tournament_id=tournament_id, format=export_format), timeout)
        return response

    def cancel_tournament(self, tournament_id: str, reason: str = "") -> arena_pb2.Tournament:
        response: arena_pb2.CancelTournamentResponse = self._unary(
            "CancelTournament", arena_pb2.CancelTournamentRequest(tournament_id=tournament_id, reason=reason))
        return response.tournament

    # Schedules.
    def schedule_tournament(self, spec: arena_pb2.TournamentSpec, cron: str, *, time_zone: str = "",
                            idempotency_key: str = "", attempts: int = CREATE_ATTEMPTS,
                            on_retry: Callable[[grpc.StatusCode], None] | None = None) -> arena_pb2.Schedule:
        request = arena_pb2.ScheduleTournamentRequest(spec=spec, cron=cron, time_zone=time_zone,
                                                      idempotency_key=idempotency_key or new_idempotency_key())
        response: arena_pb2.ScheduleTournamentResponse = self._retried(
            "ScheduleTournament", request, self.timeout, attempts, on_retry)
        return response.schedule

    def list_schedules(self) -> list[arena_pb2.Schedule]:
        response: arena_pb2.ListSchedulesResponse = self._unary("ListSchedules", arena_pb2.ListSchedulesRequest())
        return list(response.schedules)

    def delete_schedule(self, schedule_id: str) -> arena_pb2.Schedule:
        response: arena_pb2.DeleteScheduleResponse = self._unary(
            "DeleteSchedule", arena_pb2.DeleteScheduleRequest(schedule_id=schedule_id))
        return response.schedule

    # Rating pools.
    def list_rating_pools(self) -> list[arena_pb2.RatingPool]:
        response: arena_pb2.ListRatingPoolsResponse = self._unary("ListRatingPools",
                                                                  arena_pb2.ListRatingPoolsRequest())
        return list(response.pools)

    def get_leaderboard(self, pool_id: str) -> arena_pb2.GetLeaderboardResponse:
        response: arena_pb2.GetLeaderboardResponse = self._unary(
            "GetLeaderboard", arena_pb2.GetLeaderboardRequest(pool_id=pool_id))
        return response

    # Competitions.
    def create_competition(self, request: arena_pb2.CreateCompetitionRequest) -> arena_pb2.Competition:
        response: arena_pb2.CreateCompetitionResponse = self._unary("CreateCompetition", request)
        return response.competition

    def list_competitions(self) -> list[arena_pb2.Competition]:
        response: arena_pb2.ListCompetitionsResponse = self._unary("ListCompetitions",
                                                                   arena_pb2.ListCompetitionsRequest())
        return list(response.competitions)

    def get_competition_standings(self, competition_id: str) -> arena_pb2.GetCompetitionStandingsResponse:
        response: arena_pb2.GetCompetitionStandingsResponse = self._unary(
            "GetCompetitionStandings", arena_pb2.GetCompetitionStandingsRequest(competition_id=competition_id))
        return response

    def set_competition_state(self, competition_id: str, state: arena_pb2.CompetitionState,
                              ) -> arena_pb2.SetCompetitionStateResponse:
        response: arena_pb2.SetCompetitionStateResponse = self._unary(
            "SetCompetitionState", arena_pb2.SetCompetitionStateRequest(
                competition_id=competition_id, state=state))
        return response

    # Gauntlets.
    def start_gauntlet(self, spec: arena_pb2.GauntletSpec, *, gauntlet_id: str = "", idempotency_key: str = "",
                       attempts: int = CREATE_ATTEMPTS,
                       on_retry: Callable[[grpc.StatusCode], None] | None = None) -> arena_pb2.Gauntlet:
        request = arena_pb2.StartGauntletRequest(spec=spec, gauntlet_id=gauntlet_id,
                                                 idempotency_key=idempotency_key or new_idempotency_key())
        response: arena_pb2.StartGauntletResponse = self._retried("StartGauntlet", request, self.timeout, attempts,
                                                                  on_retry)
        return response.gauntlet

    def list_gauntlets(self, limit: int = 0) -> list[arena_pb2.Gauntlet]:
        response: arena_pb2.ListGauntletsResponse = self._unary("ListGauntlets",
                                                                arena_pb2.ListGauntletsRequest(limit=limit))
        return list(response.gauntlets)

    def get_gauntlet(self, gauntlet_id: str, *, after_block: int = 0) -> arena_pb2.GetGauntletResponse:
        response: arena_pb2.GetGauntletResponse = self._unary(
            "GetGauntlet", arena_pb2.GetGauntletRequest(gauntlet_id=gauntlet_id, after_block=after_block))
        return response




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


def incident_line(incident: Any) -> str:
    """One line of a bot's incident log (a ``BotIncident`` message) for people: number, time, kind, where, what."""
    from arena.store.incidents import incident_line as line

    at = float(incident.at.seconds) if incident.HasField("at") else 0.0
    return line(incident.seq, at, incident.kind, incident.match_id, incident.decision_number, incident.request_id,
                incident.strike, incident.detail)


def follow_bot_log(client: ArenaClient, name: str, out: Any, *, limit: int = 0, poll_s: float = 2.0,
                   stop: Any = None) -> int:
    """Print the newest incidents of bot ``name``, then each new one as it comes (polling every ``poll_s``),
    until ``stop`` (a ``threading.Event``-like object) is set or Ctrl-C; returns the last number seen."""
    import time

    response = client.get_bot_log(name, limit=limit)
    last = 0
    for incident in response.incidents:
        print(incident_line(incident), file=out, flush=True)
        last = incident.seq
    last = max(last, response.last_seq)
    while stop is None or not stop.is_set():
        if stop is not None:
            stop.wait(poll_s)
        else:
            time.sleep(poll_s)
        while True:  # a page at a time (the arena's default size) until caught up
            response = client.get_bot_log(name, after_seq=last)
            for incident in response.incidents:
                print(incident_line(incident), file=out, flush=True)
                last = incident.seq
            if not response.incidents or last >= response.last_seq:
                break
    return last


_STATE_WORDS = enum_maps(arena_pb2.TournamentState.DESCRIPTOR, "TOURNAMENT_STATE_")[1]
_ENDED_BADLY = (arena_pb2.TOURNAMENT_STATE_CANCELLED, arena_pb2.TOURNAMENT_STATE_FAILED)


def state_name(value: int) -> str:
    """A tournament state's word (``running``, ...): the same words as
    :class:`arena.tournament.status.TournamentStatus`, by the one rule of :mod:`arena.protocol.statuses` (this module
    does not import the tournament package: a bot's kit loads it); ``unspecified`` for 0 or an unknown number."""
    return _STATE_WORDS.get(value, "unspecified")


def submission_state(value: int) -> str:
    """A submission's state as a word (``checking``, ``admitted``, ``rejected``; ``unspecified`` for 0 or an
    unknown number): the CLI and the web front say it alike."""
    try:
        return str(arena_pb2.SubmissionState.Name(value)).removeprefix("SUBMISSION_STATE_").lower()
    except ValueError:
        return "unspecified"


def progress_line(tournament: Any, width: int = 30) -> str:
    total = max(1, tournament.matches_total)
    done = tournament.matches_done
    filled = min(width, int(width * done / total))
    bar = "#" * filled + "." * (width - filled)
    failed = f", {tournament.matches_failed} aborted" if tournament.matches_failed else ""
    return (
        f"{tournament.tournament_id} [{bar}] {done}/{tournament.matches_total} matches "
        f"({100.0 * done / total:.0f}%{failed}) {state_name(tournament.state)}"
    )


OPENSKILL_NOTE = ("OpenSkill: the online rating, updated match by match (so it depends on "
                  "the order of the matches); shown without an interval (its own uncertainty was measured wider "
                  "than a 95% interval).")
BATCH_NOTE = ("PL: the batch Plackett-Luce rating, fitted on all the matches at once (order-independent; 0 is a "
              "reference bot, +1 = e to 1 odds of finishing ahead); 95% bootstrap interval and rank range over deal "
              "groups. Leaderboards and ladders rank and tier by it.")
# The 8 is arena.tournament.stats.MIN_INTERVAL_MATCHES, written out because the bot kit imports this module and must
# not load the tournament maths (tests/tournament/test_leaderboard_intervals.py holds the two together).
INTERVAL_NOTE = ("Win-rate intervals: 95%, deal groups as clusters within their tables; shown from 8 matches of the "
                 "bot (fewer cannot hold 95%).")
UNCLUSTERED_NOTE = ("*: win-rate interval with the deal groups as the sample size (some of the bot's results were "
                    "counted before the pool kept per-group sums).")
"""What each number is: the legend of every table that shows a rating or an interval (the CLI's and the web's)."""

STANDINGS_HEADER = ("rank", "tier", "bot", "matches", "wins", "win%", "win% 95% CI", "points", "mean pts",
                    "forfeits", "timeouts", "refusals", "PL", "PL 95% CI", "PL ranks", "OpenSkill")
"""The columns of :func:`standings_text`: this tournament's result first, the ratings last."""
STANDINGS_NOTE = (
    "rank and tier: this tournament's batch PL rating (adjusted for who met whom; in a 2-bot field the exact sign "
    "test over the deal groups each won); a tier holds the bots not told apart (95%, Holm's control over all "
    "pairs).\n"
    f"{BATCH_NOTE} Over this tournament's matches.\n"
    f"{OPENSKILL_NOTE} The pool's, carried over from earlier tournaments with this one's matches applied; it only "
    "breaks the ties left in the rank.\n"
    f"{INTERVAL_NOTE}"
)


def ranked_by_text(ranked_by: int) -> str:
    """The rank-and-tier line of a leaderboard or a ladder, naming the rating its ``ranked_by`` names."""
    rating = ("the PL rating (then OpenSkill's)" if ranked_by == arena_pb2.LEADERBOARD_RANKING_BATCH
              else "the OpenSkill rating")
    return f"rank and tier: by {rating}; a tier holds the bots it cannot yet tell apart (95%, over every pair)."


def batch_scope(competition_id: str) -> str:
    """What a pool's batch ratings are fitted on (a competition's: refitted at most every
    :data:`arena.service.pool_batch.COMPETITION_REFIT_S`, written out here as the bot kit must not load the service;
    tests/workers/test_competitions.py holds the two together)."""
    if competition_id:
        return ("Over the blocks in which every seat was a current entry (a new version starts afresh), refitted "
                "at most every 30 s.")
    return "Over every match of the pool."


def batch_cells(batch: Any | None) -> tuple[str, str, str]:
    """A ``BatchRating`` (or none) as the cells rating, 95% interval and rank range."""
    if batch is None:
        return ("-", "-", "-")
    ranks = str(batch.rank) if batch.best_rank == batch.worst_rank else f"{batch.best_rank}-{batch.worst_rank}"
    return (f"{batch.rating:.2f}", f"[{batch.low:.2f}, {batch.high:.2f}]", ranks)


def aligned(rows: list[tuple[str, ...]], left: frozenset[int]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
            .rstrip() for row in rows]


def one_line(text: str) -> str:
    return "".join(c if c.isprintable() else " " for c in text)


VERDICT_PAIRS_SHOWN = 12
"""The most pairs :func:`verdict_lines` names on each of its lines (the rest counted)."""


def verdict_lines(verdicts: Any) -> list[str]:
    """A ``Verdicts`` message as text: its summary sentence, the pairs told apart, and for the rest what more would
    tell them apart (the closest first)."""
    if not verdicts.pairs:
        return [verdicts.summary] if verdicts.summary else []

    def named(pairs: list[Any], text: Callable[[Any], str]) -> str:
        shown = ", ".join(text(p) for p in pairs[:VERDICT_PAIRS_SHOWN])
        return shown + (f" and {len(pairs) - VERDICT_PAIRS_SHOWN} more" if len(pairs) > VERDICT_PAIRS_SHOWN else "")

    apart = [p for p in verdicts.pairs if p.told_apart]
    waiting = sorted((p for p in verdicts.pairs if not p.told_apart),
                     key=lambda p: p.more_matches if p.HasField("more_matches") else float("inf"))
    lines = [verdicts.summary]
    if apart:
        lines.append("told apart (95%): " + named(apart, lambda p: f"{one_line(p.bot_a)} > {one_line(p.bot_b)}"))
    if waiting:
        lines.append("not yet told apart: " + named(waiting, lambda p: (
            f"{one_line(p.bot_a)} = {one_line(p.bot_b)} ("
            + (f"about {p.more_matches:,} more matches" if p.HasField("more_matches") else "even so far") + ")")))
    return lines


def standings_text(response: Any) -> str:
    """The standings table of a GetStandingsResponse: rank, tier, wins, win rate with its 95 % interval, points,
    counters, then the batch rating (interval, rank range) and the pool's OpenSkill rating; a line naming
    the bots not told apart, the head-to-head table of a 2-seat tournament, what the columns mean, and whether
    the standings are final."""
    rows: list[tuple[str, ...]] = [STANDINGS_HEADER]
    for row in response.standings:
        has_rate = row.HasField("win_rate")
        rows.append((
            str(row.rank), str(row.tier or "-"), one_line(row.bot_name), str(row.matches), str(row.wins),
            f"{100.0 * row.win_rate:.1f}" if has_rate else "-",
            f"[{100.0 * row.win_rate_low:.1f}, {100.0 * row.win_rate_high:.1f}]" if row.HasField("win_rate_low")
            else "-",
            str(row.points), f"{row.mean_points:.1f}" if row.HasField("mean_points") else "-",
            str(row.forfeits), str(row.timeouts), str(row.refusals),
            *batch_cells(row.batch if row.HasField("batch") else None),
            f"{row.rating:.2f}",
        ))
    lines = aligned(rows, frozenset({2}))
    lines += verdict_lines(response.verdicts) if response.HasField("verdicts") else []
    if response.head_to_head:
        lines += ["", "head to head (row's wins-losses against column):"]
        names = [one_line(row.bot_name) for row in response.standings]
        cells = {(one_line(c.bot_name), one_line(c.opponent)): f"{c.wins}-{c.losses}" for c in response.head_to_head}
        grid = [("", *names), *((a, *(cells.get((a, b), "") if a != b else "x" for b in names)) for a in names)]
        lines += aligned(grid, frozenset({0}))
    lines += ["", STANDINGS_NOTE, _final_line(response)]
    return "\n".join(lines)


def _final_line(response: Any) -> str:
    if not response.final:
        return "provisional: the tournament is still running"
    if response.state in _ENDED_BADLY:
        return f"final: the tournament was {state_name(response.state)} (no further match starts)"
    return "final"


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


def _plain_value(field: Any, value: Any) -> Any:
    from google.protobuf.descriptor import FieldDescriptor

    if field.type == FieldDescriptor.TYPE_MESSAGE:
        if field.message_type.full_name == "google.protobuf.Timestamp":
            return value.ToDatetime(tzinfo=UTC).isoformat().replace("+00:00", "Z")
        return plain(value)
    if field.type == FieldDescriptor.TYPE_ENUM:
        if field.enum_type.full_name == "uno_arena.v1.TournamentState":
            return state_name(value)
        name = field.enum_type.values_by_number.get(value)
        return name.name if name is not None else value
    if field.type == FieldDescriptor.TYPE_BYTES:
        return value.hex()
    return value


def watch(client: ArenaClient, tournament_id: str, out: Any, *, quiet: bool = False) -> int:
    """Follow a tournament to its end, then print its standings; 0 if it finished."""
    tty = bool(getattr(out, "isatty", lambda: False)())
    last = None
    final_state = arena_pb2.TOURNAMENT_STATE_UNSPECIFIED
    shown = -1
    previous = ""
    for update in client.watch_tournament(tournament_id):
        t = update.tournament
        final_state = t.state
        last = t
        line = progress_line(t)
        if quiet or line == previous:
            continue
        step = max(1, t.matches_total // 20)  # without a terminal, about 20 lines at most
        if tty:
            print("\r" + line, end="", file=out, flush=True)
        elif t.matches_done - shown >= step or t.state != arena_pb2.TOURNAMENT_STATE_RUNNING or shown < 0:
            print(line, file=out, flush=True)
            shown = t.matches_done
        else:
            continue
        previous = line
    if tty and not quiet:
        print(file=out)
    if last is None:
        return 1
    if final_state == arena_pb2.TOURNAMENT_STATE_FINISHED:
        standings = client.get_standings(tournament_id)
        print(standings_text(standings), file=out)
        return 0
    print(f"tournament {tournament_id} ended {state_name(final_state)}: {last.detail}", file=out)
    return 1
