from google.rpc import status_pb2 as _status_pb2
from arena.protocol._gen import cards_pb2 as _cards_pb2
from arena.protocol._gen import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BotMessage(_message.Message):
    __slots__ = ("hello", "decision", "pong", "batch")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    PONG_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    decision: Decision
    pong: Pong
    batch: BotBatch
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., pong: _Optional[_Union[Pong, _Mapping]] = ..., batch: _Optional[_Union[BotBatch, _Mapping]] = ...) -> None: ...

class ArenaMessage(_message.Message):
    __slots__ = ("welcome", "decision_request", "match_started", "match_events", "match_ended", "error", "ping", "batch", "goodbye")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    DECISION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    MATCH_STARTED_FIELD_NUMBER: _ClassVar[int]
    MATCH_EVENTS_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    GOODBYE_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    decision_request: DecisionRequest
    match_started: MatchStarted
    match_events: MatchEvents
    match_ended: MatchEnded
    error: Error
    ping: Ping
    batch: ArenaBatch
    goodbye: Goodbye
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., decision_request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., match_started: _Optional[_Union[MatchStarted, _Mapping]] = ..., match_events: _Optional[_Union[MatchEvents, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., ping: _Optional[_Union[Ping, _Mapping]] = ..., batch: _Optional[_Union[ArenaBatch, _Mapping]] = ..., goodbye: _Optional[_Union[Goodbye, _Mapping]] = ...) -> None: ...

class BotBatch(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[BotMessage]
    def __init__(self, messages: _Optional[_Iterable[_Union[BotMessage, _Mapping]]] = ...) -> None: ...

class ArenaBatch(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[ArenaMessage]
    def __init__(self, messages: _Optional[_Iterable[_Union[ArenaMessage, _Mapping]]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("protocol_version", "bot_version", "max_concurrent_matches", "accepts_batches", "accepts_human_games")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_MATCHES_FIELD_NUMBER: _ClassVar[int]
    ACCEPTS_BATCHES_FIELD_NUMBER: _ClassVar[int]
    ACCEPTS_HUMAN_GAMES_FIELD_NUMBER: _ClassVar[int]
    protocol_version: _cards_pb2.ProtocolVersion
    bot_version: str
    max_concurrent_matches: int
    accepts_batches: bool
    accepts_human_games: bool
    def __init__(self, protocol_version: _Optional[_Union[_cards_pb2.ProtocolVersion, str]] = ..., bot_version: _Optional[str] = ..., max_concurrent_matches: _Optional[int] = ..., accepts_batches: _Optional[bool] = ..., accepts_human_games: _Optional[bool] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("session_id", "protocol_version", "heartbeat_interval_ms", "bot_id", "bot_name", "max_concurrent_matches", "batches")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_INTERVAL_MS_FIELD_NUMBER: _ClassVar[int]
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_MATCHES_FIELD_NUMBER: _ClassVar[int]
    BATCHES_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    protocol_version: _cards_pb2.ProtocolVersion
    heartbeat_interval_ms: int
    bot_id: str
    bot_name: str
    max_concurrent_matches: int
    batches: bool
    def __init__(self, session_id: _Optional[str] = ..., protocol_version: _Optional[_Union[_cards_pb2.ProtocolVersion, str]] = ..., heartbeat_interval_ms: _Optional[int] = ..., bot_id: _Optional[str] = ..., bot_name: _Optional[str] = ..., max_concurrent_matches: _Optional[int] = ..., batches: _Optional[bool] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("match_id", "request_id", "time_limit_ms", "deadline_unix_ms", "observation", "legal_actions", "decision_number", "attempt")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DECISION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    time_limit_ms: int
    deadline_unix_ms: int
    observation: _game_pb2.Observation
    legal_actions: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Action]
    decision_number: int
    attempt: int
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[str] = ..., time_limit_ms: _Optional[int] = ..., deadline_unix_ms: _Optional[int] = ..., observation: _Optional[_Union[_game_pb2.Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[_cards_pb2.Action, _Mapping]]] = ..., decision_number: _Optional[int] = ..., attempt: _Optional[int] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("match_id", "request_id", "action_index", "bot_error")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_INDEX_FIELD_NUMBER: _ClassVar[int]
    BOT_ERROR_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    action_index: int
    bot_error: BotError
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[str] = ..., action_index: _Optional[int] = ..., bot_error: _Optional[_Union[BotError, _Mapping]] = ...) -> None: ...

class BotError(_message.Message):
    __slots__ = ("type", "message", "traceback")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TRACEBACK_FIELD_NUMBER: _ClassVar[int]
    type: str
    message: str
    traceback: str
    def __init__(self, type: _Optional[str] = ..., message: _Optional[str] = ..., traceback: _Optional[str] = ...) -> None: ...

class MatchStarted(_message.Message):
    __slots__ = ("match_id", "seat", "seats", "rules", "decision_time_limit_ms", "tournament_id", "attempt")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    DECISION_TIME_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    seats: _containers.RepeatedCompositeFieldContainer[_game_pb2.Seat]
    rules: _game_pb2.Rules
    decision_time_limit_ms: int
    tournament_id: str
    attempt: int
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[_game_pb2.Seat, _Mapping]]] = ..., rules: _Optional[_Union[_game_pb2.Rules, _Mapping]] = ..., decision_time_limit_ms: _Optional[int] = ..., tournament_id: _Optional[str] = ..., attempt: _Optional[int] = ...) -> None: ...

class MatchEvents(_message.Message):
    __slots__ = ("match_id", "events", "observation")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.Event]
    observation: _game_pb2.Observation
    def __init__(self, match_id: _Optional[str] = ..., events: _Optional[_Iterable[_Union[_game_pb2.Event, _Mapping]]] = ..., observation: _Optional[_Union[_game_pb2.Observation, _Mapping]] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("match_id", "result", "reason", "detail", "attempt")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    result: _game_pb2.MatchResult
    reason: _game_pb2.EndReason
    detail: str
    attempt: int
    def __init__(self, match_id: _Optional[str] = ..., result: _Optional[_Union[_game_pb2.MatchResult, _Mapping]] = ..., reason: _Optional[_Union[_game_pb2.EndReason, str]] = ..., detail: _Optional[str] = ..., attempt: _Optional[int] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("status", "match_id", "request_id")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    status: _status_pb2.Status
    match_id: str
    request_id: str
    def __init__(self, status: _Optional[_Union[_status_pb2.Status, _Mapping]] = ..., match_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class Goodbye(_message.Message):
    __slots__ = ("reason", "reconnect_after_ms")
    REASON_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    reason: str
    reconnect_after_ms: int
    def __init__(self, reason: _Optional[str] = ..., reconnect_after_ms: _Optional[int] = ...) -> None: ...

class Ping(_message.Message):
    __slots__ = ("nonce", "sent_unix_ms")
    NONCE_FIELD_NUMBER: _ClassVar[int]
    SENT_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    sent_unix_ms: int
    def __init__(self, nonce: _Optional[int] = ..., sent_unix_ms: _Optional[int] = ...) -> None: ...

class Pong(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...
