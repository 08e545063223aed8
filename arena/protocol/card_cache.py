"""The one cache of faces and cards on the wire, both ways: engine face/card -> its message and its encoded
bytes as a field, and message -> engine face/card (by its notation, ``text``, for the Python kit).

Faces and cards are few and immutable, so each distinct one is converted once. Every map is bounded: a flood of
made-up cards fills it to its limit and is then converted without caching (or the map starts over).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from arena.engine import Card, Face
from arena.protocol._gen import cards_pb2
from arena.protocol.fields import bytes_field

MESSAGE_LIMIT = 4096
"""Distinct faces or cards whose messages are kept (a real deck has a few hundred)."""
FIELD_LIMIT = 50_000
"""Encoded fields kept by value ((field number, face or card) pairs)."""
TEXT_LIMIT = 20_000
"""Faces or cards kept by notation on the way back (the kit reads what any gateway sends)."""

T = TypeVar("T")


class CardCache:
    """Faces and cards <-> messages and field bytes, each distinct one converted once."""

    def __init__(self) -> None:
        self._face_messages: dict[Face, cards_pb2.Face] = {}
        self._card_messages: dict[Card, cards_pb2.Card] = {}
        self._fields: dict[tuple[int, Face | Card], bytes] = {}
        self._faces_by_text: dict[str, Face] = {}
        self._cards_by_text: dict[str, Card] = {}

    def face_message(self, face: Face) -> cards_pb2.Face:
        """The face's message, shared: copy it before handing it out or changing it."""
        msg = self._face_messages.get(face)
        if msg is None:
            msg = cards_pb2.Face(color=face.color or "", kind=face.kind, text=str(face))
            if len(self._face_messages) < MESSAGE_LIMIT:
                self._face_messages[face] = msg
        return msg

    def card_message(self, card: Card) -> cards_pb2.Card:
        """The card's message, shared: copy it before handing it out or changing it."""
        msg = self._card_messages.get(card)
        if msg is None:
            dark = None if card.dark is None else self.face_message(card.dark)  # None: no dark field
            msg = cards_pb2.Card(light=self.face_message(card.light), dark=dark, text=str(card))
            if len(self._card_messages) < MESSAGE_LIMIT:
                self._card_messages[card] = msg
        return msg

    def field(self, field: int, thing: Face | Card) -> bytes:
        """``thing`` encoded as the length-delimited field ``field`` of the message that holds it."""
        key = (field, thing)
        encoded = self._fields.get(key)
        if encoded is None:
            message = self.face_message(thing) if isinstance(thing, Face) else self.card_message(thing)
            encoded = bytes_field(field, message.SerializeToString())
            if len(self._fields) >= FIELD_LIMIT:
                self._fields.clear()
            self._fields[key] = encoded
        return encoded

    def face_of(self, msg: cards_pb2.Face) -> Face:
        """The engine face of a message, kept by its notation (``text``) while there is room."""
        return _by_text(self._faces_by_text, msg, face_from_proto)

    def card_of(self, msg: cards_pb2.Card) -> Card:
        """The engine card of a message, kept by its notation (``text``) while there is room."""
        return _by_text(self._cards_by_text, msg, card_from_proto)


def face_from_proto(msg: cards_pb2.Face) -> Face:
    """The engine face of a message (uncached); ValueError naming the face when it is malformed."""
    if not msg.kind:
        raise ValueError(f"face {msg.text!r}: kind is empty")
    return Face(msg.color or None, msg.kind)


def card_from_proto(msg: cards_pb2.Card) -> Card:
    """The engine card of a message (uncached); ValueError naming the card when it is malformed."""
    if not msg.HasField("light"):
        raise ValueError(f"card {msg.text!r}: light face is missing")
    return Card(face_from_proto(msg.light), face_from_proto(msg.dark) if msg.HasField("dark") else None)


def _by_text(cache: dict[str, T], msg: Any, build: Callable[[Any], T]) -> T:
    text = msg.text
    value = cache.get(text) if text else None
    if value is None:
        value = build(msg)
        if text and len(cache) < TEXT_LIMIT:
            cache[text] = value
    return value


CARDS = CardCache()
"""The process's card cache (conversions are pure; the cache only saves work)."""
