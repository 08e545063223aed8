"""Fast protobuf encoding of the gateway's hot message, the DecisionRequest, from cached pieces.

Building an Observation field by field through the protobuf runtime costs about 200 µs; joining pre-encoded pieces
(faces, cards and legal actions are immutable and few: each one's field is encoded once) a few tens. The bytes are
ordinary protobuf: they parse to exactly what :func:`arena.protocol.convert.observation_to_proto` builds (tests check
it). Fields may come in any order and a scalar's last value wins, so the gateway appends ``request_id`` and the times
to a body built once (:func:`request_bytes`), and sets them again after a reconnect by appending anew.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any, Generic, TypeVar, cast

from arena.engine import Action, Card, Event, Face, Observation, OpponentView
from arena.engine.observation import SCALAR_HEAD, SCALAR_TAIL
from arena.protocol.card_cache import CARDS
from arena.protocol.convert import (
    DECISION_TO_PROTO,
    DIRECTION_TO_PROTO,
    SIDE_TO_PROTO,
    VARIANT_TO_PROTO,
    action_to_proto,
)
from arena.protocol.fields import bytes_field, int_field, str_field, varint

T = TypeVar("T", Face, Card)
_CACHE_LIMIT = 50_000
_TRANSIENT_LIMIT = 8192
"""For caches of one match's passing objects and values, asked for again only within the next turn of their match:
this covers ~1,000 matches in flight, and stays small as every entry is a long-lived object the GC walks."""


# Caches keyed by the object's id, which is cheap (the engine's faces, cards and events are shared objects; a
# dataclass hash is a Python call). Each entry keeps its object alive, so an id cannot be reused while cached.
# Behind them, caches keyed by value (field, face or card) serve the fresh objects of every new match.
_TEXTS: dict[int, tuple[object, str]] = {}
_ACTIONS: dict[int, tuple[Action, bytes]] = {}
_EVENTS: dict[int, tuple[Event, bytes]] = {}
_BYTES_EVENTS: dict[int, bytes] = {}
_EVENT_VALUES: dict[Event, bytes] = {}


def _bounded(*caches: dict[Any, Any], limit: int = _CACHE_LIMIT) -> None:
    if len(caches[0]) >= limit:
        for cache in caches:
            cache.clear()


# The engine hands out the same OpponentView and discard-pile tuple again while that hand or pile is unchanged
# (Match.observation), so their encodings are kept by id too: most hands do not change between two requests.
_VIEWS: dict[int, tuple[OpponentView, bytes]] = {}
_PILES: dict[int, tuple[tuple[Face, ...], bytes]] = {}
_PILES_BY_ENDS: dict[tuple[int, int, int], tuple[tuple[Face, ...], bytes]] = {}
_PILE_LIMIT = 4096  # a pile is up to ~100 faces: fewer entries than the other caches


def _discard_field(pile: tuple[Face, ...]) -> bytes:
    """The discard pile (top first) as field 10. A pile is usually the previous one of its match with one
    face on top: that one is found by its length and end faces (checked in full: a C comparison of the
    faces' identities) and only the new top face is encoded."""
    hit = _PILES.get(id(pile))
    if hit is not None:
        return hit[1]
    encoded = None
    if len(pile) > 1:
        below = _PILES_BY_ENDS.get((len(pile) - 1, id(pile[1]), id(pile[-1])))
        if below is not None and below[0] == pile[1:]:
            encoded = face_field(10, pile[0]) + below[1]
    if encoded is None:
        encoded = _faces(10, pile)
    _bounded(_PILES, _PILES_BY_ENDS, limit=_PILE_LIMIT)
    _PILES[id(pile)] = (pile, encoded)
    if pile:
        _PILES_BY_ENDS[(len(pile), id(pile[0]), id(pile[-1]))] = (pile, encoded)
    return encoded


class _PieceCache(Generic[T]):
    """The encoding of faces (or cards) as a field of their message, by field number, looked up by ``id`` (each
    entry keeps its object alive); behind that, by value in the one card cache
    (:data:`arena.protocol.card_cache.CARDS`), for the fresh objects of a new match."""

    def __init__(self) -> None:
        self.by_id: dict[int, dict[int, tuple[T, bytes]]] = {}
        self.bytes_by_id: dict[int, dict[int, bytes]] = {}  # the same bytes without the object: for map()

    def field(self, field: int, thing: T) -> bytes:
        cache = self.by_id.get(field)
        hit = cache.get(id(thing)) if cache is not None else None
        return hit[1] if hit is not None else self._miss(field, thing)

    def repeated(self, field: int, things: Sequence[T]) -> bytes:
        """``things`` as repeated field ``field``: joined in C (map over the cache), filled on a miss."""
        cache = self.bytes_by_id.get(field) or {}
        try:
            return b"".join(map(cache.__getitem__, map(id, things)))
        except KeyError:
            return b"".join([self.field(field, thing) for thing in things])

    def _miss(self, field: int, thing: T) -> bytes:
        cache = self.by_id.setdefault(field, {})
        mirror = self.bytes_by_id.setdefault(field, {})
        _bounded(cache, mirror)
        encoded = CARDS.field(field, thing)
        cache[id(thing)] = (thing, encoded)
        mirror[id(thing)] = encoded
        return encoded


_FACE_PIECES = _PieceCache[Face]()
_CARD_PIECES = _PieceCache[Card]()
face_field = _FACE_PIECES.field
card_field = _CARD_PIECES.field
_faces = _FACE_PIECES.repeated
_cards = _CARD_PIECES.repeated


def action_field(action: Action) -> bytes:
    """A legal action as field 6 of a DecisionRequest."""
    hit = _ACTIONS.get(id(action))
    if hit is None:
        _bounded(_ACTIONS)
        hit = _ACTIONS[id(action)] = (action, bytes_field(6, action_to_proto(action).SerializeToString()))
    return hit[1]


def _text(thing: Face | Card) -> str:
    hit = _TEXTS.get(id(thing))
    if hit is None:
        _bounded(_TEXTS)
        hit = _TEXTS[id(thing)] = (thing, str(thing))
    return hit[1]


_SHORT_STRINGS: dict[tuple[int, str], bytes] = {}


def _short_str_field(field: int, text: str) -> bytes:
    """A string field whose values are few (event types, colours, reasons): encoded once per value."""
    encoded = _SHORT_STRINGS.get((field, text))
    if encoded is None:
        _bounded(_SHORT_STRINGS)
        encoded = _SHORT_STRINGS[(field, text)] = str_field(field, text)
    return encoded


def event_bytes(event: Event) -> bytes:
    """The serialized ``Event`` message (same content as ``convert.event_to_proto(event)``), with its ``text``
    (``str(event)``, the engine's notation) built in the same pass from cached notations."""
    kind, seat, card, color, count, cards, faces, target, detail = event
    parts = [_short_str_field(1, kind) if kind else b""]
    text = [kind]
    if seat is not None:
        parts.append(int_field(2, seat))
        text.append(f"seat={seat}")
    if card is not None:
        parts.append(card_field(3, card))
        text.append(_text(card))
    if color:
        parts.append(_short_str_field(4, color))
    if color is not None:
        text.append(f"color={color}")
    if count:
        parts.append(int_field(5, count))
        text.append(f"count={count}")
    if cards:
        parts.append(_cards(6, cards))
        text.append("cards=" + ",".join(map(_text, cards)))
    if faces:
        parts.append(_faces(7, faces))
        text.append("faces=" + ",".join(map(_text, faces)))
    if target is not None:
        parts.append(int_field(8, target))
        text.append(f"target={target}")
    if detail:
        parts.append(_short_str_field(9, detail))
        text.append(detail)
    parts.append(str_field(10, " ".join(text)))
    return b"".join(parts)


def event_field(event: Event) -> bytes:
    """An event as field 18 of an Observation: by ``id`` for the seats that see the same event object, and
    behind that by value (events repeat across matches: about nine in ten new event objects of random play
    equal one seen before, and hashing one costs a tenth of encoding it)."""
    hit = _EVENTS.get(id(event))
    if hit is None:
        encoded = _EVENT_VALUES.get(event)
        if encoded is None:
            _bounded(_EVENT_VALUES)
            encoded = _EVENT_VALUES[event] = bytes_field(18, event_bytes(event))
        _bounded(_EVENTS, _BYTES_EVENTS, limit=_TRANSIENT_LIMIT)
        hit = _EVENTS[id(event)] = (event, encoded)
        _BYTES_EVENTS[id(event)] = encoded
    return hit[1]


_HEADS: dict[tuple[Any, ...], bytes] = {}
_TAILS: dict[tuple[Any, ...], bytes] = {}


def _head_bytes(seat: int, players: int, variant: str, side: str, direction: str, decision: str,
                current: int | None, color: str | None, top: Face) -> bytes:
    """Fields 1-9 of an Observation (seat ... top face): few distinct values, so encoded once each."""
    parts = [
        int_field(1, seat) if seat else b"",
        int_field(2, players),
        int_field(3, VARIANT_TO_PROTO[variant]),
        int_field(4, SIDE_TO_PROTO[side]),
        int_field(5, DIRECTION_TO_PROTO[direction]),
        int_field(6, DECISION_TO_PROTO[decision]),
    ]
    if current is not None:
        parts.append(int_field(7, current))
    if color:
        parts.append(str_field(8, color))
    parts.append(face_field(9, top))
    return b"".join(parts)


def _tail_bytes(draw_size: int, draw_top: Face | None, scores: Sequence[int], round: int, dealer: int) -> bytes:
    """Fields 13-17 of an Observation (draw pile ... dealer): they change once a turn at most."""
    parts = []
    if draw_size:
        parts.append(int_field(13, draw_size))
    if draw_top is not None:
        parts.append(face_field(14, draw_top))
    if scores:
        parts.append(bytes_field(15, b"".join([varint(score) for score in scores])))
    if round:
        parts.append(int_field(16, round))
    if dealer:
        parts.append(int_field(17, dealer))
    return b"".join(parts)


# The slices above are passed positionally to these two: their parameters must be those fields, in order.
for _encoder, _run in ((_head_bytes, SCALAR_HEAD), (_tail_bytes, SCALAR_TAIL)):
    if tuple(inspect.signature(_encoder).parameters) != Observation._fields[_run]:
        raise ImportError(f"{_encoder.__name__} does not take the Observation fields {Observation._fields[_run]}")


def observation_bytes(obs: Observation) -> bytes:
    """The serialized ``Observation`` message of ``obs`` (same content as ``observation_to_proto(obs)``); the runs of
    scalar fields (1-9 and 13-17) are looked up by value as a whole, instead of a dozen small encodings."""
    head_key = cast(tuple[Any, ...], obs[SCALAR_HEAD])
    head = _HEADS.get(head_key)
    if head is None:
        _bounded(_HEADS)
        head = _HEADS[head_key] = _head_bytes(*head_key)
    parts = [head]
    parts.append(_discard_field(obs.discard))
    parts.append(_cards(11, obs.hand))
    for view in obs.opponents:
        hit = _VIEWS.get(id(view))
        if hit is None:
            inner = b"".join((int_field(1, view.seat) if view.seat else b"",
                              int_field(2, view.count) if view.count else b"",
                              _faces(3, view.visible), _cards(4, view.revealed) if view.revealed else b""))
            _bounded(_VIEWS, limit=_TRANSIENT_LIMIT)
            hit = _VIEWS[id(view)] = (view, bytes_field(12, inner))
        parts.append(hit[1])
    tail_key = cast(tuple[Any, ...], obs[SCALAR_TAIL])
    tail = _TAILS.get(tail_key)
    if tail is None:
        _bounded(_TAILS, limit=_TRANSIENT_LIMIT)  # draw pile and scores: values of one match's moment
        tail = _TAILS[tail_key] = _tail_bytes(*tail_key)
    parts.append(tail)
    if obs.events:
        known = _BYTES_EVENTS.get
        parts.extend([known(id(event)) or event_field(event) for event in obs.events])
    if obs.drawn is not None:
        parts.append(card_field(19, obs.drawn))
    if obs.round_winner is not None:
        parts.append(int_field(20, obs.round_winner))
    if obs.match_winner is not None:
        parts.append(int_field(21, obs.match_winner))
    return b"".join(parts)


def request_body(match_id: str, decision_number: int, observation: Observation, legal: Sequence[Action],
                 attempt: int = 0) -> bytes:
    """A serialized DecisionRequest without request id and times (see :func:`request_bytes`); ``attempt``: the
    match's attempt (``DecisionRequest.attempt``, left out when 0)."""
    parts = [str_field(1, match_id), bytes_field(5, observation_bytes(observation))]
    parts.extend([action_field(action) for action in legal])
    parts.append(int_field(7, decision_number))
    if attempt > 0:
        parts.append(int_field(8, attempt))
    return b"".join(parts)


def request_bytes(body: bytes, request_id: str, time_limit_ms: int, deadline_unix_ms: int) -> bytes:
    """The ArenaMessage carrying the DecisionRequest ``body`` with its request id and times set."""
    request = body + str_field(2, request_id) + int_field(3, time_limit_ms) + int_field(4, deadline_unix_ms)
    return bytes_field(2, request)


MAX_BATCH_MESSAGES = 256
MAX_BATCH_BYTES = 256 * 1024
"""An ArenaBatch holds at most this many messages and bytes (well below gRPC's default 4 MiB receive limit)."""


def batch_bytes(messages: Sequence[bytes]) -> bytes:
    """The ArenaMessage carrying the serialized ArenaMessages ``messages`` as one ArenaBatch (field 8)."""
    return bytes_field(8, b"".join([bytes_field(1, message) for message in messages]))
