import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from arena.protocol._gen import cards_pb2 as _cards_pb2
from arena.protocol._gen import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CompetitionState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMPETITION_STATE_UNSPECIFIED: _ClassVar[CompetitionState]
    COMPETITION_STATE_ACTIVE: _ClassVar[CompetitionState]
    COMPETITION_STATE_PAUSED: _ClassVar[CompetitionState]
    COMPETITION_STATE_CLOSED: _ClassVar[CompetitionState]

class Seating(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEATING_UNSPECIFIED: _ClassVar[Seating]
    SEATING_BALANCED: _ClassVar[Seating]
    SEATING_CIRCULAR: _ClassVar[Seating]

class TournamentState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATE_UNSPECIFIED: _ClassVar[TournamentState]
    TOURNAMENT_STATE_PENDING: _ClassVar[TournamentState]
    TOURNAMENT_STATE_RUNNING: _ClassVar[TournamentState]
    TOURNAMENT_STATE_FINISHED: _ClassVar[TournamentState]
    TOURNAMENT_STATE_FAILED: _ClassVar[TournamentState]
    TOURNAMENT_STATE_CANCELLED: _ClassVar[TournamentState]

class ExportFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXPORT_FORMAT_UNSPECIFIED: _ClassVar[ExportFormat]
    EXPORT_FORMAT_CSV: _ClassVar[ExportFormat]
    EXPORT_FORMAT_JSON: _ClassVar[ExportFormat]

class LeaderboardRanking(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEADERBOARD_RANKING_UNSPECIFIED: _ClassVar[LeaderboardRanking]
    LEADERBOARD_RANKING_BATCH: _ClassVar[LeaderboardRanking]
    LEADERBOARD_RANKING_OPENSKILL: _ClassVar[LeaderboardRanking]

class GauntletState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAUNTLET_STATE_UNSPECIFIED: _ClassVar[GauntletState]
    GAUNTLET_STATE_RUNNING: _ClassVar[GauntletState]
    GAUNTLET_STATE_ACCEPTED: _ClassVar[GauntletState]
    GAUNTLET_STATE_REJECTED: _ClassVar[GauntletState]
    GAUNTLET_STATE_INCONCLUSIVE: _ClassVar[GauntletState]
    GAUNTLET_STATE_FAILED: _ClassVar[GauntletState]

class SubmissionState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUBMISSION_STATE_UNSPECIFIED: _ClassVar[SubmissionState]
    SUBMISSION_STATE_CHECKING: _ClassVar[SubmissionState]
    SUBMISSION_STATE_ADMITTED: _ClassVar[SubmissionState]
    SUBMISSION_STATE_REJECTED: _ClassVar[SubmissionState]
    SUBMISSION_STATE_STOPPED: _ClassVar[SubmissionState]
COMPETITION_STATE_UNSPECIFIED: CompetitionState
COMPETITION_STATE_ACTIVE: CompetitionState
COMPETITION_STATE_PAUSED: CompetitionState
COMPETITION_STATE_CLOSED: CompetitionState
SEATING_UNSPECIFIED: Seating
SEATING_BALANCED: Seating
SEATING_CIRCULAR: Seating
TOURNAMENT_STATE_UNSPECIFIED: TournamentState
TOURNAMENT_STATE_PENDING: TournamentState
TOURNAMENT_STATE_RUNNING: TournamentState
TOURNAMENT_STATE_FINISHED: TournamentState
TOURNAMENT_STATE_FAILED: TournamentState
TOURNAMENT_STATE_CANCELLED: TournamentState
EXPORT_FORMAT_UNSPECIFIED: ExportFormat
EXPORT_FORMAT_CSV: ExportFormat
EXPORT_FORMAT_JSON: ExportFormat
LEADERBOARD_RANKING_UNSPECIFIED: LeaderboardRanking
LEADERBOARD_RANKING_BATCH: LeaderboardRanking
LEADERBOARD_RANKING_OPENSKILL: LeaderboardRanking
GAUNTLET_STATE_UNSPECIFIED: GauntletState
GAUNTLET_STATE_RUNNING: GauntletState
GAUNTLET_STATE_ACCEPTED: GauntletState
GAUNTLET_STATE_REJECTED: GauntletState
GAUNTLET_STATE_INCONCLUSIVE: GauntletState
GAUNTLET_STATE_FAILED: GauntletState
SUBMISSION_STATE_UNSPECIFIED: SubmissionState
SUBMISSION_STATE_CHECKING: SubmissionState
SUBMISSION_STATE_ADMITTED: SubmissionState
SUBMISSION_STATE_REJECTED: SubmissionState
SUBMISSION_STATE_STOPPED: SubmissionState

class Competition(_message.Message):
    __slots__ = ("competition_id", "state", "rules", "seats_per_table", "entrants", "blocks", "created_at", "matches_per_minute", "rating_pool", "bots_without_memory")
    COMPETITION_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEATS_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    BLOCKS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    MATCHES_PER_MINUTE_FIELD_NUMBER: _ClassVar[int]
    RATING_POOL_FIELD_NUMBER: _ClassVar[int]
    BOTS_WITHOUT_MEMORY_FIELD_NUMBER: _ClassVar[int]
    competition_id: str
    state: CompetitionState
    rules: _game_pb2.Rules
    seats_per_table: int
    entrants: _containers.RepeatedScalarFieldContainer[str]
    blocks: int
    created_at: _timestamp_pb2.Timestamp
    matches_per_minute: float
    rating_pool: str
    bots_without_memory: bool
    def __init__(self, competition_id: _Optional[str] = ..., state: _Optional[_Union[CompetitionState, str]] = ..., rules: _Optional[_Union[_game_pb2.Rules, _Mapping]] = ..., seats_per_table: _Optional[int] = ..., entrants: _Optional[_Iterable[str]] = ..., blocks: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., matches_per_minute: _Optional[float] = ..., rating_pool: _Optional[str] = ..., bots_without_memory: _Optional[bool] = ...) -> None: ...

class ListCompetitionsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListCompetitionsResponse(_message.Message):
    __slots__ = ("competitions",)
    COMPETITIONS_FIELD_NUMBER: _ClassVar[int]
    competitions: _containers.RepeatedCompositeFieldContainer[Competition]
    def __init__(self, competitions: _Optional[_Iterable[_Union[Competition, _Mapping]]] = ...) -> None: ...

class GetCompetitionStandingsRequest(_message.Message):
    __slots__ = ("competition_id",)
    COMPETITION_ID_FIELD_NUMBER: _ClassVar[int]
    competition_id: str
    def __init__(self, competition_id: _Optional[str] = ...) -> None: ...

class LadderEntry(_message.Message):
    __slots__ = ("rank", "bot", "version", "rating", "mu", "sigma", "rating_low", "rating_high", "matches", "connected", "since", "retired_at", "batch", "tier", "indistinguishable")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    RATING_LOW_FIELD_NUMBER: _ClassVar[int]
    RATING_HIGH_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    RETIRED_AT_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    INDISTINGUISHABLE_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    version: str
    rating: float
    mu: float
    sigma: float
    rating_low: float
    rating_high: float
    matches: int
    connected: bool
    since: _timestamp_pb2.Timestamp
    retired_at: _timestamp_pb2.Timestamp
    batch: BatchRating
    tier: int
    indistinguishable: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., version: _Optional[str] = ..., rating: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., rating_low: _Optional[float] = ..., rating_high: _Optional[float] = ..., matches: _Optional[int] = ..., connected: _Optional[bool] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., retired_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., batch: _Optional[_Union[BatchRating, _Mapping]] = ..., tier: _Optional[int] = ..., indistinguishable: _Optional[_Iterable[str]] = ...) -> None: ...

class GetCompetitionStandingsResponse(_message.Message):
    __slots__ = ("competition", "entries", "retired", "ranked_by", "verdicts")
    COMPETITION_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    RANKED_BY_FIELD_NUMBER: _ClassVar[int]
    VERDICTS_FIELD_NUMBER: _ClassVar[int]
    competition: Competition
    entries: _containers.RepeatedCompositeFieldContainer[LadderEntry]
    retired: _containers.RepeatedCompositeFieldContainer[LadderEntry]
    ranked_by: LeaderboardRanking
    verdicts: Verdicts
    def __init__(self, competition: _Optional[_Union[Competition, _Mapping]] = ..., entries: _Optional[_Iterable[_Union[LadderEntry, _Mapping]]] = ..., retired: _Optional[_Iterable[_Union[LadderEntry, _Mapping]]] = ..., ranked_by: _Optional[_Union[LeaderboardRanking, str]] = ..., verdicts: _Optional[_Union[Verdicts, _Mapping]] = ...) -> None: ...

class Bot(_message.Message):
    __slots__ = ("bot_id", "name", "description", "created_at", "connected", "bot_version", "revoked", "deleted", "versions")
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    REVOKED_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    bot_id: str
    name: str
    description: str
    created_at: _timestamp_pb2.Timestamp
    connected: bool
    bot_version: str
    revoked: bool
    deleted: bool
    versions: _containers.RepeatedCompositeFieldContainer[BotVersion]
    def __init__(self, bot_id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., connected: _Optional[bool] = ..., bot_version: _Optional[str] = ..., revoked: _Optional[bool] = ..., deleted: _Optional[bool] = ..., versions: _Optional[_Iterable[_Union[BotVersion, _Mapping]]] = ...) -> None: ...

class BotVersion(_message.Message):
    __slots__ = ("version", "first_seen", "last_seen", "matches")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEEN_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    version: str
    first_seen: _timestamp_pb2.Timestamp
    last_seen: _timestamp_pb2.Timestamp
    matches: int
    def __init__(self, version: _Optional[str] = ..., first_seen: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_seen: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., matches: _Optional[int] = ...) -> None: ...

class RegisterBotRequest(_message.Message):
    __slots__ = ("name", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class RegisterBotResponse(_message.Message):
    __slots__ = ("bot", "token")
    BOT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    bot: Bot
    token: str
    def __init__(self, bot: _Optional[_Union[Bot, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "include_deleted")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_DELETED_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    include_deleted: bool
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., include_deleted: _Optional[bool] = ...) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots", "next_page_token")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[Bot]
    next_page_token: str
    def __init__(self, bots: _Optional[_Iterable[_Union[Bot, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetBotRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetBotResponse(_message.Message):
    __slots__ = ("bot",)
    BOT_FIELD_NUMBER: _ClassVar[int]
    bot: Bot
    def __init__(self, bot: _Optional[_Union[Bot, _Mapping]] = ...) -> None: ...

class RotateBotTokenRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RotateBotTokenResponse(_message.Message):
    __slots__ = ("bot", "token")
    BOT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    bot: Bot
    token: str
    def __init__(self, bot: _Optional[_Union[Bot, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class RevokeBotRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RevokeBotResponse(_message.Message):
    __slots__ = ("bot",)
    BOT_FIELD_NUMBER: _ClassVar[int]
    bot: Bot
    def __init__(self, bot: _Optional[_Union[Bot, _Mapping]] = ...) -> None: ...

class DeleteBotRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class DeleteBotResponse(_message.Message):
    __slots__ = ("bot",)
    BOT_FIELD_NUMBER: _ClassVar[int]
    bot: Bot
    def __init__(self, bot: _Optional[_Union[Bot, _Mapping]] = ...) -> None: ...

class GetBotLogRequest(_message.Message):
    __slots__ = ("name", "limit", "after_seq")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    name: str
    limit: int
    after_seq: int
    def __init__(self, name: _Optional[str] = ..., limit: _Optional[int] = ..., after_seq: _Optional[int] = ...) -> None: ...

class BotIncident(_message.Message):
    __slots__ = ("seq", "kind", "at", "match_id", "decision_number", "request_id", "detail", "strike")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    STRIKE_FIELD_NUMBER: _ClassVar[int]
    seq: int
    kind: str
    at: _timestamp_pb2.Timestamp
    match_id: str
    decision_number: int
    request_id: str
    detail: str
    strike: int
    def __init__(self, seq: _Optional[int] = ..., kind: _Optional[str] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., match_id: _Optional[str] = ..., decision_number: _Optional[int] = ..., request_id: _Optional[str] = ..., detail: _Optional[str] = ..., strike: _Optional[int] = ...) -> None: ...

class GetBotLogResponse(_message.Message):
    __slots__ = ("incidents", "last_seq")
    INCIDENTS_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    incidents: _containers.RepeatedCompositeFieldContainer[BotIncident]
    last_seq: int
    def __init__(self, incidents: _Optional[_Iterable[_Union[BotIncident, _Mapping]]] = ..., last_seq: _Optional[int] = ...) -> None: ...

class TournamentSpec(_message.Message):
    __slots__ = ("name", "participants", "rules", "seats_per_table", "deals_per_table", "duplicate_deals", "seed", "decision_deadline_ms", "time_bank_ms", "lag_compensation_cap_ms", "duplicate_orders", "seating")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARTICIPANTS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEATS_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    DEALS_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_DEALS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    DECISION_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    LAG_COMPENSATION_CAP_MS_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_ORDERS_FIELD_NUMBER: _ClassVar[int]
    SEATING_FIELD_NUMBER: _ClassVar[int]
    name: str
    participants: _containers.RepeatedScalarFieldContainer[str]
    rules: _game_pb2.Rules
    seats_per_table: int
    deals_per_table: int
    duplicate_deals: bool
    seed: int
    decision_deadline_ms: int
    time_bank_ms: int
    lag_compensation_cap_ms: int
    duplicate_orders: str
    seating: Seating
    def __init__(self, name: _Optional[str] = ..., participants: _Optional[_Iterable[str]] = ..., rules: _Optional[_Union[_game_pb2.Rules, _Mapping]] = ..., seats_per_table: _Optional[int] = ..., deals_per_table: _Optional[int] = ..., duplicate_deals: _Optional[bool] = ..., seed: _Optional[int] = ..., decision_deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., lag_compensation_cap_ms: _Optional[int] = ..., duplicate_orders: _Optional[str] = ..., seating: _Optional[_Union[Seating, str]] = ...) -> None: ...

class Tournament(_message.Message):
    __slots__ = ("tournament_id", "spec", "state", "matches_total", "matches_done", "matches_failed", "created_at", "started_at", "finished_at", "schedule_id", "detail", "seed_commitment", "revealed_seed", "seed_salt", "seed_secret", "rating_pool", "deals_known", "deals_of")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    MATCHES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    MATCHES_DONE_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FAILED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_ID_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    REVEALED_SEED_FIELD_NUMBER: _ClassVar[int]
    SEED_SALT_FIELD_NUMBER: _ClassVar[int]
    SEED_SECRET_FIELD_NUMBER: _ClassVar[int]
    RATING_POOL_FIELD_NUMBER: _ClassVar[int]
    DEALS_KNOWN_FIELD_NUMBER: _ClassVar[int]
    DEALS_OF_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    spec: TournamentSpec
    state: TournamentState
    matches_total: int
    matches_done: int
    matches_failed: int
    created_at: _timestamp_pb2.Timestamp
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    schedule_id: str
    detail: str
    seed_commitment: str
    revealed_seed: int
    seed_salt: str
    seed_secret: str
    rating_pool: str
    deals_known: bool
    deals_of: str
    def __init__(self, tournament_id: _Optional[str] = ..., spec: _Optional[_Union[TournamentSpec, _Mapping]] = ..., state: _Optional[_Union[TournamentState, str]] = ..., matches_total: _Optional[int] = ..., matches_done: _Optional[int] = ..., matches_failed: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., schedule_id: _Optional[str] = ..., detail: _Optional[str] = ..., seed_commitment: _Optional[str] = ..., revealed_seed: _Optional[int] = ..., seed_salt: _Optional[str] = ..., seed_secret: _Optional[str] = ..., rating_pool: _Optional[str] = ..., deals_known: _Optional[bool] = ..., deals_of: _Optional[str] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("spec", "idempotency_key", "require_connected", "connect_wait_ms", "deals_of", "seed_secret")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    REQUIRE_CONNECTED_FIELD_NUMBER: _ClassVar[int]
    CONNECT_WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    DEALS_OF_FIELD_NUMBER: _ClassVar[int]
    SEED_SECRET_FIELD_NUMBER: _ClassVar[int]
    spec: TournamentSpec
    idempotency_key: str
    require_connected: bool
    connect_wait_ms: int
    deals_of: str
    seed_secret: str
    def __init__(self, spec: _Optional[_Union[TournamentSpec, _Mapping]] = ..., idempotency_key: _Optional[str] = ..., require_connected: _Optional[bool] = ..., connect_wait_ms: _Optional[int] = ..., deals_of: _Optional[str] = ..., seed_secret: _Optional[str] = ...) -> None: ...

class CreateTournamentResponse(_message.Message):
    __slots__ = ("tournament", "not_connected")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    NOT_CONNECTED_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    not_connected: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ..., not_connected: _Optional[_Iterable[str]] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ("states", "page_size", "page_token")
    STATES_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    states: _containers.RepeatedScalarFieldContainer[TournamentState]
    page_size: int
    page_token: str
    def __init__(self, states: _Optional[_Iterable[_Union[TournamentState, str]]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments", "next_page_token")
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[Tournament]
    next_page_token: str
    def __init__(self, tournaments: _Optional[_Iterable[_Union[Tournament, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class Schedule(_message.Message):
    __slots__ = ("schedule_id", "spec", "cron", "time_zone", "next_run_at", "created_at")
    SCHEDULE_ID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    CRON_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    NEXT_RUN_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    schedule_id: str
    spec: TournamentSpec
    cron: str
    time_zone: str
    next_run_at: _timestamp_pb2.Timestamp
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, schedule_id: _Optional[str] = ..., spec: _Optional[_Union[TournamentSpec, _Mapping]] = ..., cron: _Optional[str] = ..., time_zone: _Optional[str] = ..., next_run_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ScheduleTournamentRequest(_message.Message):
    __slots__ = ("spec", "cron", "time_zone", "idempotency_key")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    CRON_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    spec: TournamentSpec
    cron: str
    time_zone: str
    idempotency_key: str
    def __init__(self, spec: _Optional[_Union[TournamentSpec, _Mapping]] = ..., cron: _Optional[str] = ..., time_zone: _Optional[str] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class ScheduleTournamentResponse(_message.Message):
    __slots__ = ("schedule",)
    SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    schedule: Schedule
    def __init__(self, schedule: _Optional[_Union[Schedule, _Mapping]] = ...) -> None: ...

class ListSchedulesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListSchedulesResponse(_message.Message):
    __slots__ = ("schedules",)
    SCHEDULES_FIELD_NUMBER: _ClassVar[int]
    schedules: _containers.RepeatedCompositeFieldContainer[Schedule]
    def __init__(self, schedules: _Optional[_Iterable[_Union[Schedule, _Mapping]]] = ...) -> None: ...

class DeleteScheduleRequest(_message.Message):
    __slots__ = ("schedule_id",)
    SCHEDULE_ID_FIELD_NUMBER: _ClassVar[int]
    schedule_id: str
    def __init__(self, schedule_id: _Optional[str] = ...) -> None: ...

class DeleteScheduleResponse(_message.Message):
    __slots__ = ("schedule",)
    SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    schedule: Schedule
    def __init__(self, schedule: _Optional[_Union[Schedule, _Mapping]] = ...) -> None: ...

class WatchTournamentRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class WatchTournamentResponse(_message.Message):
    __slots__ = ("tournament", "match")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    match: MatchSummary
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ..., match: _Optional[_Union[MatchSummary, _Mapping]] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("match_id", "tournament_id", "seats", "seed", "result", "reason", "finished_at")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    tournament_id: str
    seats: _containers.RepeatedCompositeFieldContainer[_game_pb2.Seat]
    seed: int
    result: _game_pb2.MatchResult
    reason: _game_pb2.EndReason
    finished_at: _timestamp_pb2.Timestamp
    def __init__(self, match_id: _Optional[str] = ..., tournament_id: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[_game_pb2.Seat, _Mapping]]] = ..., seed: _Optional[int] = ..., result: _Optional[_Union[_game_pb2.MatchResult, _Mapping]] = ..., reason: _Optional[_Union[_game_pb2.EndReason, str]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetStandingsRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class CancelTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class CancelTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("rank", "bot_id", "bot_name", "matches", "wins", "points", "rating", "rating_sigma", "rating_low", "rating_high", "forfeits", "timeouts", "refusals", "tier", "win_rate", "win_rate_low", "win_rate_high", "mean_points", "indistinguishable", "decisions", "batch")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    RATING_SIGMA_FIELD_NUMBER: _ClassVar[int]
    RATING_LOW_FIELD_NUMBER: _ClassVar[int]
    RATING_HIGH_FIELD_NUMBER: _ClassVar[int]
    FORFEITS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    REFUSALS_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    WIN_RATE_FIELD_NUMBER: _ClassVar[int]
    WIN_RATE_LOW_FIELD_NUMBER: _ClassVar[int]
    WIN_RATE_HIGH_FIELD_NUMBER: _ClassVar[int]
    MEAN_POINTS_FIELD_NUMBER: _ClassVar[int]
    INDISTINGUISHABLE_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot_id: str
    bot_name: str
    matches: int
    wins: int
    points: int
    rating: float
    rating_sigma: float
    rating_low: float
    rating_high: float
    forfeits: int
    timeouts: int
    refusals: int
    tier: int
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    mean_points: float
    indistinguishable: _containers.RepeatedScalarFieldContainer[str]
    decisions: int
    batch: BatchRating
    def __init__(self, rank: _Optional[int] = ..., bot_id: _Optional[str] = ..., bot_name: _Optional[str] = ..., matches: _Optional[int] = ..., wins: _Optional[int] = ..., points: _Optional[int] = ..., rating: _Optional[float] = ..., rating_sigma: _Optional[float] = ..., rating_low: _Optional[float] = ..., rating_high: _Optional[float] = ..., forfeits: _Optional[int] = ..., timeouts: _Optional[int] = ..., refusals: _Optional[int] = ..., tier: _Optional[int] = ..., win_rate: _Optional[float] = ..., win_rate_low: _Optional[float] = ..., win_rate_high: _Optional[float] = ..., mean_points: _Optional[float] = ..., indistinguishable: _Optional[_Iterable[str]] = ..., decisions: _Optional[int] = ..., batch: _Optional[_Union[BatchRating, _Mapping]] = ...) -> None: ...

class BatchRating(_message.Message):
    __slots__ = ("rating", "low", "high", "rank", "best_rank", "worst_rank", "matches")
    RATING_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    BEST_RANK_FIELD_NUMBER: _ClassVar[int]
    WORST_RANK_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    rating: float
    low: float
    high: float
    rank: int
    best_rank: int
    worst_rank: int
    matches: int
    def __init__(self, rating: _Optional[float] = ..., low: _Optional[float] = ..., high: _Optional[float] = ..., rank: _Optional[int] = ..., best_rank: _Optional[int] = ..., worst_rank: _Optional[int] = ..., matches: _Optional[int] = ...) -> None: ...

class HeadToHead(_message.Message):
    __slots__ = ("bot_name", "opponent", "matches", "wins", "losses", "points_for", "points_against")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    POINTS_FOR_FIELD_NUMBER: _ClassVar[int]
    POINTS_AGAINST_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    opponent: str
    matches: int
    wins: int
    losses: int
    points_for: int
    points_against: int
    def __init__(self, bot_name: _Optional[str] = ..., opponent: _Optional[str] = ..., matches: _Optional[int] = ..., wins: _Optional[int] = ..., losses: _Optional[int] = ..., points_for: _Optional[int] = ..., points_against: _Optional[int] = ...) -> None: ...

class GetStandingsResponse(_message.Message):
    __slots__ = ("tournament_id", "standings", "final", "state", "head_to_head", "verdicts")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    HEAD_TO_HEAD_FIELD_NUMBER: _ClassVar[int]
    VERDICTS_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    final: bool
    state: TournamentState
    head_to_head: _containers.RepeatedCompositeFieldContainer[HeadToHead]
    verdicts: Verdicts
    def __init__(self, tournament_id: _Optional[str] = ..., standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., final: _Optional[bool] = ..., state: _Optional[_Union[TournamentState, str]] = ..., head_to_head: _Optional[_Iterable[_Union[HeadToHead, _Mapping]]] = ..., verdicts: _Optional[_Union[Verdicts, _Mapping]] = ...) -> None: ...

class PairVerdict(_message.Message):
    __slots__ = ("bot_a", "bot_b", "told_apart", "p_value", "more_matches", "test")
    BOT_A_FIELD_NUMBER: _ClassVar[int]
    BOT_B_FIELD_NUMBER: _ClassVar[int]
    TOLD_APART_FIELD_NUMBER: _ClassVar[int]
    P_VALUE_FIELD_NUMBER: _ClassVar[int]
    MORE_MATCHES_FIELD_NUMBER: _ClassVar[int]
    TEST_FIELD_NUMBER: _ClassVar[int]
    bot_a: str
    bot_b: str
    told_apart: bool
    p_value: float
    more_matches: int
    test: str
    def __init__(self, bot_a: _Optional[str] = ..., bot_b: _Optional[str] = ..., told_apart: _Optional[bool] = ..., p_value: _Optional[float] = ..., more_matches: _Optional[int] = ..., test: _Optional[str] = ...) -> None: ...

class Verdicts(_message.Message):
    __slots__ = ("pairs", "summary")
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    pairs: _containers.RepeatedCompositeFieldContainer[PairVerdict]
    summary: str
    def __init__(self, pairs: _Optional[_Iterable[_Union[PairVerdict, _Mapping]]] = ..., summary: _Optional[str] = ...) -> None: ...

class GetReplayRequest(_message.Message):
    __slots__ = ("match_id", "seat")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class ReplayStep(_message.Message):
    __slots__ = ("decision_number", "seat", "action", "events", "fallback", "refusal", "latency_ms")
    DECISION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    decision_number: int
    seat: int
    action: _cards_pb2.Action
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.Event]
    fallback: bool
    refusal: str
    latency_ms: int
    def __init__(self, decision_number: _Optional[int] = ..., seat: _Optional[int] = ..., action: _Optional[_Union[_cards_pb2.Action, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_game_pb2.Event, _Mapping]]] = ..., fallback: _Optional[bool] = ..., refusal: _Optional[str] = ..., latency_ms: _Optional[int] = ...) -> None: ...

class Replay(_message.Message):
    __slots__ = ("match_id", "tournament_id", "rules", "seats", "seed", "viewer", "opening", "steps", "result", "reason")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    VIEWER_FIELD_NUMBER: _ClassVar[int]
    OPENING_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    tournament_id: str
    rules: _game_pb2.Rules
    seats: _containers.RepeatedCompositeFieldContainer[_game_pb2.Seat]
    seed: int
    viewer: int
    opening: _containers.RepeatedCompositeFieldContainer[_game_pb2.Event]
    steps: _containers.RepeatedCompositeFieldContainer[ReplayStep]
    result: _game_pb2.MatchResult
    reason: _game_pb2.EndReason
    def __init__(self, match_id: _Optional[str] = ..., tournament_id: _Optional[str] = ..., rules: _Optional[_Union[_game_pb2.Rules, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[_game_pb2.Seat, _Mapping]]] = ..., seed: _Optional[int] = ..., viewer: _Optional[int] = ..., opening: _Optional[_Iterable[_Union[_game_pb2.Event, _Mapping]]] = ..., steps: _Optional[_Iterable[_Union[ReplayStep, _Mapping]]] = ..., result: _Optional[_Union[_game_pb2.MatchResult, _Mapping]] = ..., reason: _Optional[_Union[_game_pb2.EndReason, str]] = ...) -> None: ...

class GetReplayResponse(_message.Message):
    __slots__ = ("replay",)
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    replay: Replay
    def __init__(self, replay: _Optional[_Union[Replay, _Mapping]] = ...) -> None: ...

class ExportResultsRequest(_message.Message):
    __slots__ = ("tournament_id", "format")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    format: ExportFormat
    def __init__(self, tournament_id: _Optional[str] = ..., format: _Optional[_Union[ExportFormat, str]] = ...) -> None: ...

class ExportResultsResponse(_message.Message):
    __slots__ = ("content_type", "filename", "data")
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    content_type: str
    filename: str
    data: bytes
    def __init__(self, content_type: _Optional[str] = ..., filename: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class GetTournamentRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class GetTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("tournament_id", "bot", "reasons", "page_size", "page_token")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    bot: str
    reasons: _containers.RepeatedScalarFieldContainer[_game_pb2.EndReason]
    page_size: int
    page_token: str
    def __init__(self, tournament_id: _Optional[str] = ..., bot: _Optional[str] = ..., reasons: _Optional[_Iterable[_Union[_game_pb2.EndReason, str]]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class RatingPool(_message.Message):
    __slots__ = ("pool_id", "label", "rules", "seats_per_table", "competition_id", "bots", "matches", "updated_at")
    POOL_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEATS_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    COMPETITION_ID_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    pool_id: str
    label: str
    rules: _game_pb2.Rules
    seats_per_table: int
    competition_id: str
    bots: int
    matches: int
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, pool_id: _Optional[str] = ..., label: _Optional[str] = ..., rules: _Optional[_Union[_game_pb2.Rules, _Mapping]] = ..., seats_per_table: _Optional[int] = ..., competition_id: _Optional[str] = ..., bots: _Optional[int] = ..., matches: _Optional[int] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListRatingPoolsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListRatingPoolsResponse(_message.Message):
    __slots__ = ("pools",)
    POOLS_FIELD_NUMBER: _ClassVar[int]
    pools: _containers.RepeatedCompositeFieldContainer[RatingPool]
    def __init__(self, pools: _Optional[_Iterable[_Union[RatingPool, _Mapping]]] = ...) -> None: ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ("pool_id",)
    POOL_ID_FIELD_NUMBER: _ClassVar[int]
    pool_id: str
    def __init__(self, pool_id: _Optional[str] = ...) -> None: ...

class LeaderboardEntry(_message.Message):
    __slots__ = ("rank", "bot_name", "rating", "rating_sigma", "rating_low", "rating_high", "tier", "indistinguishable", "matches", "wins", "points", "win_rate", "win_rate_low", "win_rate_high", "forfeits", "timeouts", "refusals", "decisions", "connected", "bot_version", "batch", "win_rate_clustered")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    RATING_SIGMA_FIELD_NUMBER: _ClassVar[int]
    RATING_LOW_FIELD_NUMBER: _ClassVar[int]
    RATING_HIGH_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    INDISTINGUISHABLE_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    WIN_RATE_FIELD_NUMBER: _ClassVar[int]
    WIN_RATE_LOW_FIELD_NUMBER: _ClassVar[int]
    WIN_RATE_HIGH_FIELD_NUMBER: _ClassVar[int]
    FORFEITS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    REFUSALS_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    WIN_RATE_CLUSTERED_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot_name: str
    rating: float
    rating_sigma: float
    rating_low: float
    rating_high: float
    tier: int
    indistinguishable: _containers.RepeatedScalarFieldContainer[str]
    matches: int
    wins: int
    points: int
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    forfeits: int
    timeouts: int
    refusals: int
    decisions: int
    connected: bool
    bot_version: str
    batch: BatchRating
    win_rate_clustered: bool
    def __init__(self, rank: _Optional[int] = ..., bot_name: _Optional[str] = ..., rating: _Optional[float] = ..., rating_sigma: _Optional[float] = ..., rating_low: _Optional[float] = ..., rating_high: _Optional[float] = ..., tier: _Optional[int] = ..., indistinguishable: _Optional[_Iterable[str]] = ..., matches: _Optional[int] = ..., wins: _Optional[int] = ..., points: _Optional[int] = ..., win_rate: _Optional[float] = ..., win_rate_low: _Optional[float] = ..., win_rate_high: _Optional[float] = ..., forfeits: _Optional[int] = ..., timeouts: _Optional[int] = ..., refusals: _Optional[int] = ..., decisions: _Optional[int] = ..., connected: _Optional[bool] = ..., bot_version: _Optional[str] = ..., batch: _Optional[_Union[BatchRating, _Mapping]] = ..., win_rate_clustered: _Optional[bool] = ...) -> None: ...

class GetLeaderboardResponse(_message.Message):
    __slots__ = ("pool", "entries", "ranked_by", "verdicts")
    POOL_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    RANKED_BY_FIELD_NUMBER: _ClassVar[int]
    VERDICTS_FIELD_NUMBER: _ClassVar[int]
    pool: RatingPool
    entries: _containers.RepeatedCompositeFieldContainer[LeaderboardEntry]
    ranked_by: LeaderboardRanking
    verdicts: Verdicts
    def __init__(self, pool: _Optional[_Union[RatingPool, _Mapping]] = ..., entries: _Optional[_Iterable[_Union[LeaderboardEntry, _Mapping]]] = ..., ranked_by: _Optional[_Union[LeaderboardRanking, str]] = ..., verdicts: _Optional[_Union[Verdicts, _Mapping]] = ...) -> None: ...

class CreateCompetitionRequest(_message.Message):
    __slots__ = ("competition_id", "rules", "seats_per_table", "entrants", "matches_per_minute", "max_blocks", "decision_deadline_ms", "blocks_per_bot", "seed", "bots_without_memory")
    COMPETITION_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEATS_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_PER_MINUTE_FIELD_NUMBER: _ClassVar[int]
    MAX_BLOCKS_FIELD_NUMBER: _ClassVar[int]
    DECISION_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    BLOCKS_PER_BOT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    BOTS_WITHOUT_MEMORY_FIELD_NUMBER: _ClassVar[int]
    competition_id: str
    rules: _game_pb2.Rules
    seats_per_table: int
    entrants: _containers.RepeatedScalarFieldContainer[str]
    matches_per_minute: float
    max_blocks: int
    decision_deadline_ms: int
    blocks_per_bot: int
    seed: int
    bots_without_memory: bool
    def __init__(self, competition_id: _Optional[str] = ..., rules: _Optional[_Union[_game_pb2.Rules, _Mapping]] = ..., seats_per_table: _Optional[int] = ..., entrants: _Optional[_Iterable[str]] = ..., matches_per_minute: _Optional[float] = ..., max_blocks: _Optional[int] = ..., decision_deadline_ms: _Optional[int] = ..., blocks_per_bot: _Optional[int] = ..., seed: _Optional[int] = ..., bots_without_memory: _Optional[bool] = ...) -> None: ...

class CreateCompetitionResponse(_message.Message):
    __slots__ = ("competition",)
    COMPETITION_FIELD_NUMBER: _ClassVar[int]
    competition: Competition
    def __init__(self, competition: _Optional[_Union[Competition, _Mapping]] = ...) -> None: ...

class SetCompetitionStateRequest(_message.Message):
    __slots__ = ("competition_id", "state")
    COMPETITION_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    competition_id: str
    state: CompetitionState
    def __init__(self, competition_id: _Optional[str] = ..., state: _Optional[_Union[CompetitionState, str]] = ...) -> None: ...

class SetCompetitionStateResponse(_message.Message):
    __slots__ = ("competition", "previous_state")
    COMPETITION_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_STATE_FIELD_NUMBER: _ClassVar[int]
    competition: Competition
    previous_state: CompetitionState
    def __init__(self, competition: _Optional[_Union[Competition, _Mapping]] = ..., previous_state: _Optional[_Union[CompetitionState, str]] = ...) -> None: ...

class GauntletSpec(_message.Message):
    __slots__ = ("candidate", "baseline", "opponents", "seats_per_table", "rules", "alpha", "beta", "mu0", "mu1", "max_blocks", "min_blocks", "seed", "decision_deadline_ms")
    CANDIDATE_FIELD_NUMBER: _ClassVar[int]
    BASELINE_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    SEATS_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    MU0_FIELD_NUMBER: _ClassVar[int]
    MU1_FIELD_NUMBER: _ClassVar[int]
    MAX_BLOCKS_FIELD_NUMBER: _ClassVar[int]
    MIN_BLOCKS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    DECISION_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    candidate: str
    baseline: str
    opponents: _containers.RepeatedScalarFieldContainer[str]
    seats_per_table: int
    rules: _game_pb2.Rules
    alpha: float
    beta: float
    mu0: float
    mu1: float
    max_blocks: int
    min_blocks: int
    seed: int
    decision_deadline_ms: int
    def __init__(self, candidate: _Optional[str] = ..., baseline: _Optional[str] = ..., opponents: _Optional[_Iterable[str]] = ..., seats_per_table: _Optional[int] = ..., rules: _Optional[_Union[_game_pb2.Rules, _Mapping]] = ..., alpha: _Optional[float] = ..., beta: _Optional[float] = ..., mu0: _Optional[float] = ..., mu1: _Optional[float] = ..., max_blocks: _Optional[int] = ..., min_blocks: _Optional[int] = ..., seed: _Optional[int] = ..., decision_deadline_ms: _Optional[int] = ...) -> None: ...

class GauntletBlock(_message.Message):
    __slots__ = ("block", "score", "llr", "attempts")
    BLOCK_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    LLR_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    block: int
    score: float
    llr: float
    attempts: int
    def __init__(self, block: _Optional[int] = ..., score: _Optional[float] = ..., llr: _Optional[float] = ..., attempts: _Optional[int] = ...) -> None: ...

class Gauntlet(_message.Message):
    __slots__ = ("gauntlet_id", "spec", "state", "detail", "blocks", "llr", "llr_lower", "llr_upper", "mean_score", "created_at", "updated_at", "seed_commitment", "seed_salt", "seed_secret", "expected_blocks_left", "needed_blocks", "undecided_at_cap", "cap_blocks")
    GAUNTLET_ID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    BLOCKS_FIELD_NUMBER: _ClassVar[int]
    LLR_FIELD_NUMBER: _ClassVar[int]
    LLR_LOWER_FIELD_NUMBER: _ClassVar[int]
    LLR_UPPER_FIELD_NUMBER: _ClassVar[int]
    MEAN_SCORE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_SALT_FIELD_NUMBER: _ClassVar[int]
    SEED_SECRET_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_BLOCKS_LEFT_FIELD_NUMBER: _ClassVar[int]
    NEEDED_BLOCKS_FIELD_NUMBER: _ClassVar[int]
    UNDECIDED_AT_CAP_FIELD_NUMBER: _ClassVar[int]
    CAP_BLOCKS_FIELD_NUMBER: _ClassVar[int]
    gauntlet_id: str
    spec: GauntletSpec
    state: GauntletState
    detail: str
    blocks: int
    llr: float
    llr_lower: float
    llr_upper: float
    mean_score: float
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    seed_commitment: str
    seed_salt: str
    seed_secret: str
    expected_blocks_left: int
    needed_blocks: int
    undecided_at_cap: float
    cap_blocks: int
    def __init__(self, gauntlet_id: _Optional[str] = ..., spec: _Optional[_Union[GauntletSpec, _Mapping]] = ..., state: _Optional[_Union[GauntletState, str]] = ..., detail: _Optional[str] = ..., blocks: _Optional[int] = ..., llr: _Optional[float] = ..., llr_lower: _Optional[float] = ..., llr_upper: _Optional[float] = ..., mean_score: _Optional[float] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., seed_commitment: _Optional[str] = ..., seed_salt: _Optional[str] = ..., seed_secret: _Optional[str] = ..., expected_blocks_left: _Optional[int] = ..., needed_blocks: _Optional[int] = ..., undecided_at_cap: _Optional[float] = ..., cap_blocks: _Optional[int] = ...) -> None: ...

class StartGauntletRequest(_message.Message):
    __slots__ = ("spec", "gauntlet_id", "idempotency_key")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    GAUNTLET_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    spec: GauntletSpec
    gauntlet_id: str
    idempotency_key: str
    def __init__(self, spec: _Optional[_Union[GauntletSpec, _Mapping]] = ..., gauntlet_id: _Optional[str] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class StartGauntletResponse(_message.Message):
    __slots__ = ("gauntlet",)
    GAUNTLET_FIELD_NUMBER: _ClassVar[int]
    gauntlet: Gauntlet
    def __init__(self, gauntlet: _Optional[_Union[Gauntlet, _Mapping]] = ...) -> None: ...

class ListGauntletsRequest(_message.Message):
    __slots__ = ("limit",)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int
    def __init__(self, limit: _Optional[int] = ...) -> None: ...

class ListGauntletsResponse(_message.Message):
    __slots__ = ("gauntlets",)
    GAUNTLETS_FIELD_NUMBER: _ClassVar[int]
    gauntlets: _containers.RepeatedCompositeFieldContainer[Gauntlet]
    def __init__(self, gauntlets: _Optional[_Iterable[_Union[Gauntlet, _Mapping]]] = ...) -> None: ...

class GetGauntletRequest(_message.Message):
    __slots__ = ("gauntlet_id", "after_block")
    GAUNTLET_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_BLOCK_FIELD_NUMBER: _ClassVar[int]
    gauntlet_id: str
    after_block: int
    def __init__(self, gauntlet_id: _Optional[str] = ..., after_block: _Optional[int] = ...) -> None: ...

class GetGauntletResponse(_message.Message):
    __slots__ = ("gauntlet", "blocks")
    GAUNTLET_FIELD_NUMBER: _ClassVar[int]
    BLOCKS_FIELD_NUMBER: _ClassVar[int]
    gauntlet: Gauntlet
    blocks: _containers.RepeatedCompositeFieldContainer[GauntletBlock]
    def __init__(self, gauntlet: _Optional[_Union[Gauntlet, _Mapping]] = ..., blocks: _Optional[_Iterable[_Union[GauntletBlock, _Mapping]]] = ...) -> None: ...

class SubmitBotRequest(_message.Message):
    __slots__ = ("name", "chunk")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    name: str
    chunk: bytes
    def __init__(self, name: _Optional[str] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class Submission(_message.Message):
    __slots__ = ("version", "sha256", "size", "runtime", "command", "state", "reason", "submitted_at", "checked_at", "queue_position")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_AT_FIELD_NUMBER: _ClassVar[int]
    CHECKED_AT_FIELD_NUMBER: _ClassVar[int]
    QUEUE_POSITION_FIELD_NUMBER: _ClassVar[int]
    version: int
    sha256: str
    size: int
    runtime: str
    command: _containers.RepeatedScalarFieldContainer[str]
    state: SubmissionState
    reason: str
    submitted_at: _timestamp_pb2.Timestamp
    checked_at: _timestamp_pb2.Timestamp
    queue_position: int
    def __init__(self, version: _Optional[int] = ..., sha256: _Optional[str] = ..., size: _Optional[int] = ..., runtime: _Optional[str] = ..., command: _Optional[_Iterable[str]] = ..., state: _Optional[_Union[SubmissionState, str]] = ..., reason: _Optional[str] = ..., submitted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., checked_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., queue_position: _Optional[int] = ...) -> None: ...

class SubmitBotResponse(_message.Message):
    __slots__ = ("submission",)
    SUBMISSION_FIELD_NUMBER: _ClassVar[int]
    submission: Submission
    def __init__(self, submission: _Optional[_Union[Submission, _Mapping]] = ...) -> None: ...

class ListSubmissionsRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class HostedProcess(_message.Message):
    __slots__ = ("state", "version", "restarts", "detail", "since")
    STATE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    RESTARTS_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    state: str
    version: int
    restarts: int
    detail: str
    since: _timestamp_pb2.Timestamp
    def __init__(self, state: _Optional[str] = ..., version: _Optional[int] = ..., restarts: _Optional[int] = ..., detail: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListSubmissionsResponse(_message.Message):
    __slots__ = ("submissions", "hosted")
    SUBMISSIONS_FIELD_NUMBER: _ClassVar[int]
    HOSTED_FIELD_NUMBER: _ClassVar[int]
    submissions: _containers.RepeatedCompositeFieldContainer[Submission]
    hosted: HostedProcess
    def __init__(self, submissions: _Optional[_Iterable[_Union[Submission, _Mapping]]] = ..., hosted: _Optional[_Union[HostedProcess, _Mapping]] = ...) -> None: ...

class GetBotOutputRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetBotOutputResponse(_message.Message):
    __slots__ = ("output",)
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    output: bytes
    def __init__(self, output: _Optional[bytes] = ...) -> None: ...
