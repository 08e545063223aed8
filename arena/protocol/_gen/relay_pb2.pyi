from arena.protocol._gen import bot_pb2 as _bot_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DecideStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECIDE_STATUS_UNSPECIFIED: _ClassVar[DecideStatus]
    DECIDE_STATUS_ANSWERED: _ClassVar[DecideStatus]
    DECIDE_STATUS_TIMEOUT: _ClassVar[DecideStatus]
    DECIDE_STATUS_GONE: _ClassVar[DecideStatus]
    DECIDE_STATUS_EVICTED: _ClassVar[DecideStatus]

class Admission(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ADMISSION_UNSPECIFIED: _ClassVar[Admission]
    ADMISSION_QUEUED: _ClassVar[Admission]
    ADMISSION_ADMITTED: _ClassVar[Admission]
    ADMISSION_REFUSED: _ClassVar[Admission]
    ADMISSION_DRAINING: _ClassVar[Admission]
DECIDE_STATUS_UNSPECIFIED: DecideStatus
DECIDE_STATUS_ANSWERED: DecideStatus
DECIDE_STATUS_TIMEOUT: DecideStatus
DECIDE_STATUS_GONE: DecideStatus
DECIDE_STATUS_EVICTED: DecideStatus
ADMISSION_UNSPECIFIED: Admission
ADMISSION_QUEUED: Admission
ADMISSION_ADMITTED: Admission
ADMISSION_REFUSED: Admission
ADMISSION_DRAINING: Admission

class SeatRef(_message.Message):
    __slots__ = ("bot", "match_id", "seat", "attempt")
    BOT_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    match_id: str
    seat: int
    attempt: int
    def __init__(self, bot: _Optional[str] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ..., attempt: _Optional[int] = ...) -> None: ...

class ReplyTo(_message.Message):
    __slots__ = ("key", "rid")
    KEY_FIELD_NUMBER: _ClassVar[int]
    RID_FIELD_NUMBER: _ClassVar[int]
    key: str
    rid: str
    def __init__(self, key: _Optional[str] = ..., rid: _Optional[str] = ...) -> None: ...

class RelayRequest(_message.Message):
    __slots__ = ("start", "decide", "events", "end", "release", "close", "drop")
    START_FIELD_NUMBER: _ClassVar[int]
    DECIDE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    CLOSE_FIELD_NUMBER: _ClassVar[int]
    DROP_FIELD_NUMBER: _ClassVar[int]
    start: Start
    decide: Decide
    events: Events
    end: End
    release: Release
    close: Close
    drop: Drop
    def __init__(self, start: _Optional[_Union[Start, _Mapping]] = ..., decide: _Optional[_Union[Decide, _Mapping]] = ..., events: _Optional[_Union[Events, _Mapping]] = ..., end: _Optional[_Union[End, _Mapping]] = ..., release: _Optional[_Union[Release, _Mapping]] = ..., close: _Optional[_Union[Close, _Mapping]] = ..., drop: _Optional[_Union[Drop, _Mapping]] = ...) -> None: ...

class Start(_message.Message):
    __slots__ = ("seat", "reply_to", "wait_s", "casual", "started")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REPLY_TO_FIELD_NUMBER: _ClassVar[int]
    WAIT_S_FIELD_NUMBER: _ClassVar[int]
    CASUAL_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    seat: SeatRef
    reply_to: ReplyTo
    wait_s: float
    casual: bool
    started: _bot_pb2.MatchStarted
    def __init__(self, seat: _Optional[_Union[SeatRef, _Mapping]] = ..., reply_to: _Optional[_Union[ReplyTo, _Mapping]] = ..., wait_s: _Optional[float] = ..., casual: _Optional[bool] = ..., started: _Optional[_Union[_bot_pb2.MatchStarted, _Mapping]] = ...) -> None: ...

class Decide(_message.Message):
    __slots__ = ("seat", "reply_to", "decision_number", "legal_count", "deadline_s", "lag_cap_s", "sent_at", "request")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REPLY_TO_FIELD_NUMBER: _ClassVar[int]
    DECISION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    LEGAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_S_FIELD_NUMBER: _ClassVar[int]
    LAG_CAP_S_FIELD_NUMBER: _ClassVar[int]
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    seat: SeatRef
    reply_to: ReplyTo
    decision_number: int
    legal_count: int
    deadline_s: float
    lag_cap_s: float
    sent_at: float
    request: bytes
    def __init__(self, seat: _Optional[_Union[SeatRef, _Mapping]] = ..., reply_to: _Optional[_Union[ReplyTo, _Mapping]] = ..., decision_number: _Optional[int] = ..., legal_count: _Optional[int] = ..., deadline_s: _Optional[float] = ..., lag_cap_s: _Optional[float] = ..., sent_at: _Optional[float] = ..., request: _Optional[bytes] = ...) -> None: ...

class Events(_message.Message):
    __slots__ = ("seat", "events")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    seat: SeatRef
    events: _bot_pb2.MatchEvents
    def __init__(self, seat: _Optional[_Union[SeatRef, _Mapping]] = ..., events: _Optional[_Union[_bot_pb2.MatchEvents, _Mapping]] = ...) -> None: ...

class End(_message.Message):
    __slots__ = ("seat", "ended")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    seat: SeatRef
    ended: _bot_pb2.MatchEnded
    def __init__(self, seat: _Optional[_Union[SeatRef, _Mapping]] = ..., ended: _Optional[_Union[_bot_pb2.MatchEnded, _Mapping]] = ...) -> None: ...

class Release(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: SeatRef
    def __init__(self, seat: _Optional[_Union[SeatRef, _Mapping]] = ...) -> None: ...

class Close(_message.Message):
    __slots__ = ("seat", "reply_to")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REPLY_TO_FIELD_NUMBER: _ClassVar[int]
    seat: SeatRef
    reply_to: ReplyTo
    def __init__(self, seat: _Optional[_Union[SeatRef, _Mapping]] = ..., reply_to: _Optional[_Union[ReplyTo, _Mapping]] = ...) -> None: ...

class Drop(_message.Message):
    __slots__ = ("bot", "sessions", "reason")
    BOT_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    bot: str
    sessions: _containers.RepeatedScalarFieldContainer[str]
    reason: str
    def __init__(self, bot: _Optional[str] = ..., sessions: _Optional[_Iterable[str]] = ..., reason: _Optional[str] = ...) -> None: ...

class DecideReply(_message.Message):
    __slots__ = ("status", "index", "refusals", "reasons", "wire_s", "late_refusals", "version", "lag_s", "undelivered", "moved", "gateway")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    REFUSALS_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    WIRE_S_FIELD_NUMBER: _ClassVar[int]
    LATE_REFUSALS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LAG_S_FIELD_NUMBER: _ClassVar[int]
    UNDELIVERED_FIELD_NUMBER: _ClassVar[int]
    MOVED_FIELD_NUMBER: _ClassVar[int]
    GATEWAY_FIELD_NUMBER: _ClassVar[int]
    status: DecideStatus
    index: int
    refusals: int
    reasons: _containers.RepeatedScalarFieldContainer[str]
    wire_s: float
    late_refusals: int
    version: str
    lag_s: float
    undelivered: bool
    moved: bool
    gateway: str
    def __init__(self, status: _Optional[_Union[DecideStatus, str]] = ..., index: _Optional[int] = ..., refusals: _Optional[int] = ..., reasons: _Optional[_Iterable[str]] = ..., wire_s: _Optional[float] = ..., late_refusals: _Optional[int] = ..., version: _Optional[str] = ..., lag_s: _Optional[float] = ..., undelivered: _Optional[bool] = ..., moved: _Optional[bool] = ..., gateway: _Optional[str] = ...) -> None: ...

class AdmissionReply(_message.Message):
    __slots__ = ("admission",)
    ADMISSION_FIELD_NUMBER: _ClassVar[int]
    admission: Admission
    def __init__(self, admission: _Optional[_Union[Admission, str]] = ...) -> None: ...

class CloseReply(_message.Message):
    __slots__ = ("late_refusals",)
    LATE_REFUSALS_FIELD_NUMBER: _ClassVar[int]
    late_refusals: int
    def __init__(self, late_refusals: _Optional[int] = ...) -> None: ...
