from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProtocolVersion(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROTOCOL_VERSION_UNSPECIFIED: _ClassVar[ProtocolVersion]
    PROTOCOL_VERSION_1: _ClassVar[ProtocolVersion]

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_PLAY: _ClassVar[ActionKind]
    ACTION_KIND_DRAW: _ClassVar[ActionKind]
    ACTION_KIND_PASS: _ClassVar[ActionKind]
    ACTION_KIND_ACCEPT: _ClassVar[ActionKind]
    ACTION_KIND_CHALLENGE: _ClassVar[ActionKind]
    ACTION_KIND_CHOOSE_COLOR: _ClassVar[ActionKind]
    ACTION_KIND_CATCH: _ClassVar[ActionKind]
    ACTION_KIND_NEXT_ROUND: _ClassVar[ActionKind]
PROTOCOL_VERSION_UNSPECIFIED: ProtocolVersion
PROTOCOL_VERSION_1: ProtocolVersion
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_PLAY: ActionKind
ACTION_KIND_DRAW: ActionKind
ACTION_KIND_PASS: ActionKind
ACTION_KIND_ACCEPT: ActionKind
ACTION_KIND_CHALLENGE: ActionKind
ACTION_KIND_CHOOSE_COLOR: ActionKind
ACTION_KIND_CATCH: ActionKind
ACTION_KIND_NEXT_ROUND: ActionKind

class Face(_message.Message):
    __slots__ = ("color", "kind", "text")
    COLOR_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    color: str
    kind: str
    text: str
    def __init__(self, color: _Optional[str] = ..., kind: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class Card(_message.Message):
    __slots__ = ("light", "dark", "text")
    LIGHT_FIELD_NUMBER: _ClassVar[int]
    DARK_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    light: Face
    dark: Face
    text: str
    def __init__(self, light: _Optional[_Union[Face, _Mapping]] = ..., dark: _Optional[_Union[Face, _Mapping]] = ..., text: _Optional[str] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("kind", "card", "color", "uno", "target", "text")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    UNO_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    card: Card
    color: str
    uno: bool
    target: int
    text: str
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., card: _Optional[_Union[Card, _Mapping]] = ..., color: _Optional[str] = ..., uno: _Optional[bool] = ..., target: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...
