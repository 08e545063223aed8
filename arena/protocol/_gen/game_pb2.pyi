from arena.protocol._gen import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Variant(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VARIANT_UNSPECIFIED: _ClassVar[Variant]
    VARIANT_FLIP: _ClassVar[Variant]
    VARIANT_CLASSIC: _ClassVar[Variant]

class Side(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SIDE_UNSPECIFIED: _ClassVar[Side]
    SIDE_LIGHT: _ClassVar[Side]
    SIDE_DARK: _ClassVar[Side]

class Direction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DIRECTION_UNSPECIFIED: _ClassVar[Direction]
    DIRECTION_CW: _ClassVar[Direction]
    DIRECTION_CCW: _ClassVar[Direction]

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    DECISION_KIND_PLAY: _ClassVar[DecisionKind]
    DECISION_KIND_AFTER_DRAW: _ClassVar[DecisionKind]
    DECISION_KIND_RESPOND: _ClassVar[DecisionKind]
    DECISION_KIND_CHOOSE_COLOR: _ClassVar[DecisionKind]
    DECISION_KIND_ROUND_OVER: _ClassVar[DecisionKind]
    DECISION_KIND_MATCH_OVER: _ClassVar[DecisionKind]
    DECISION_KIND_CATCH: _ClassVar[DecisionKind]

class UnoPenalty(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNO_PENALTY_UNSPECIFIED: _ClassVar[UnoPenalty]
    UNO_PENALTY_AUTO: _ClassVar[UnoPenalty]
    UNO_PENALTY_CATCH: _ClassVar[UnoPenalty]

class Scoring(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCORING_UNSPECIFIED: _ClassVar[Scoring]
    SCORING_WINNER: _ClassVar[Scoring]
    SCORING_LOWEST: _ClassVar[Scoring]

class StartFlip(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    START_FLIP_UNSPECIFIED: _ClassVar[StartFlip]
    START_FLIP_REPLACE: _ClassVar[StartFlip]
    START_FLIP_FLIP: _ClassVar[StartFlip]

class Pairing(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAIRING_UNSPECIFIED: _ClassVar[Pairing]
    PAIRING_PHYSICAL: _ClassVar[Pairing]
    PAIRING_SHUFFLED: _ClassVar[Pairing]

class EndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    END_REASON_UNSPECIFIED: _ClassVar[EndReason]
    END_REASON_COMPLETED: _ClassVar[EndReason]
    END_REASON_FORFEIT: _ClassVar[EndReason]
    END_REASON_ABORTED: _ClassVar[EndReason]
    END_REASON_CANCELLED: _ClassVar[EndReason]
VARIANT_UNSPECIFIED: Variant
VARIANT_FLIP: Variant
VARIANT_CLASSIC: Variant
SIDE_UNSPECIFIED: Side
SIDE_LIGHT: Side
SIDE_DARK: Side
DIRECTION_UNSPECIFIED: Direction
DIRECTION_CW: Direction
DIRECTION_CCW: Direction
DECISION_KIND_UNSPECIFIED: DecisionKind
DECISION_KIND_PLAY: DecisionKind
DECISION_KIND_AFTER_DRAW: DecisionKind
DECISION_KIND_RESPOND: DecisionKind
DECISION_KIND_CHOOSE_COLOR: DecisionKind
DECISION_KIND_ROUND_OVER: DecisionKind
DECISION_KIND_MATCH_OVER: DecisionKind
DECISION_KIND_CATCH: DecisionKind
UNO_PENALTY_UNSPECIFIED: UnoPenalty
UNO_PENALTY_AUTO: UnoPenalty
UNO_PENALTY_CATCH: UnoPenalty
SCORING_UNSPECIFIED: Scoring
SCORING_WINNER: Scoring
SCORING_LOWEST: Scoring
START_FLIP_UNSPECIFIED: StartFlip
START_FLIP_REPLACE: StartFlip
START_FLIP_FLIP: StartFlip
PAIRING_UNSPECIFIED: Pairing
PAIRING_PHYSICAL: Pairing
PAIRING_SHUFFLED: Pairing
END_REASON_UNSPECIFIED: EndReason
END_REASON_COMPLETED: EndReason
END_REASON_FORFEIT: EndReason
END_REASON_ABORTED: EndReason
END_REASON_CANCELLED: EndReason

class Rules(_message.Message):
    __slots__ = ("variant", "bluffing", "uno_penalty", "target", "scoring", "start_flip", "pairing", "max_decisions_per_round")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    BLUFFING_FIELD_NUMBER: _ClassVar[int]
    UNO_PENALTY_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    START_FLIP_FIELD_NUMBER: _ClassVar[int]
    PAIRING_FIELD_NUMBER: _ClassVar[int]
    MAX_DECISIONS_PER_ROUND_FIELD_NUMBER: _ClassVar[int]
    variant: Variant
    bluffing: bool
    uno_penalty: UnoPenalty
    target: int
    scoring: Scoring
    start_flip: StartFlip
    pairing: Pairing
    max_decisions_per_round: int
    def __init__(self, variant: _Optional[_Union[Variant, str]] = ..., bluffing: _Optional[bool] = ..., uno_penalty: _Optional[_Union[UnoPenalty, str]] = ..., target: _Optional[int] = ..., scoring: _Optional[_Union[Scoring, str]] = ..., start_flip: _Optional[_Union[StartFlip, str]] = ..., pairing: _Optional[_Union[Pairing, str]] = ..., max_decisions_per_round: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("type", "seat", "card", "color", "count", "cards", "faces", "target", "detail", "text")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    FACES_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    type: str
    seat: int
    card: _cards_pb2.Card
    color: str
    count: int
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    faces: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Face]
    target: int
    detail: str
    text: str
    def __init__(self, type: _Optional[str] = ..., seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., color: _Optional[str] = ..., count: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., faces: _Optional[_Iterable[_Union[_cards_pb2.Face, _Mapping]]] = ..., target: _Optional[int] = ..., detail: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class OpponentView(_message.Message):
    __slots__ = ("seat", "count", "visible", "revealed")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    visible: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Face]
    revealed: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ..., visible: _Optional[_Iterable[_Union[_cards_pb2.Face, _Mapping]]] = ..., revealed: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("seat", "players", "variant", "side", "direction", "decision", "current", "color", "top", "discard", "hand", "opponents", "draw_size", "draw_top", "scores", "round", "dealer", "events", "drawn", "round_winner", "match_winner")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    DRAW_SIZE_FIELD_NUMBER: _ClassVar[int]
    DRAW_TOP_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    ROUND_WINNER_FIELD_NUMBER: _ClassVar[int]
    MATCH_WINNER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    players: int
    variant: Variant
    side: Side
    direction: Direction
    decision: DecisionKind
    current: int
    color: str
    top: _cards_pb2.Face
    discard: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Face]
    hand: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    opponents: _containers.RepeatedCompositeFieldContainer[OpponentView]
    draw_size: int
    draw_top: _cards_pb2.Face
    scores: _containers.RepeatedScalarFieldContainer[int]
    round: int
    dealer: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    drawn: _cards_pb2.Card
    round_winner: int
    match_winner: int
    def __init__(self, seat: _Optional[int] = ..., players: _Optional[int] = ..., variant: _Optional[_Union[Variant, str]] = ..., side: _Optional[_Union[Side, str]] = ..., direction: _Optional[_Union[Direction, str]] = ..., decision: _Optional[_Union[DecisionKind, str]] = ..., current: _Optional[int] = ..., color: _Optional[str] = ..., top: _Optional[_Union[_cards_pb2.Face, _Mapping]] = ..., discard: _Optional[_Iterable[_Union[_cards_pb2.Face, _Mapping]]] = ..., hand: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., opponents: _Optional[_Iterable[_Union[OpponentView, _Mapping]]] = ..., draw_size: _Optional[int] = ..., draw_top: _Optional[_Union[_cards_pb2.Face, _Mapping]] = ..., scores: _Optional[_Iterable[int]] = ..., round: _Optional[int] = ..., dealer: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., drawn: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., round_winner: _Optional[int] = ..., match_winner: _Optional[int] = ...) -> None: ...

class Seat(_message.Message):
    __slots__ = ("seat", "bot_id", "bot_name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot_id: str
    bot_name: str
    def __init__(self, seat: _Optional[int] = ..., bot_id: _Optional[str] = ..., bot_name: _Optional[str] = ...) -> None: ...

class MatchResult(_message.Message):
    __slots__ = ("scores", "winner", "rounds", "forfeited_seats", "timeouts", "refusals")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_SEATS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    REFUSALS_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    winner: int
    rounds: int
    forfeited_seats: _containers.RepeatedScalarFieldContainer[int]
    timeouts: _containers.RepeatedScalarFieldContainer[int]
    refusals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, scores: _Optional[_Iterable[int]] = ..., winner: _Optional[int] = ..., rounds: _Optional[int] = ..., forfeited_seats: _Optional[_Iterable[int]] = ..., timeouts: _Optional[_Iterable[int]] = ..., refusals: _Optional[_Iterable[int]] = ...) -> None: ...
