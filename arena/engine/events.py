"""Events: what happened in a match, and what each seat may see of it (V3, V4, X1)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple, cast

from .cards import Card, Face


class Event(NamedTuple):
    """One thing that happened; a NamedTuple, immutable and cheap, since a match logs thousands of them. `cards` of a
    `draw` are seen only by the drawer (V4), `faces` by everyone; a `reveal` (X1) only by `target`, the challenger."""

    type: str
    seat: int | None = None
    card: Card | None = None
    color: str | None = None
    count: int = 0  # type: ignore[assignment]  # shadows tuple.count on purpose: the API names it so
    cards: tuple[Card, ...] = ()
    faces: tuple[Face, ...] = ()
    target: int | None = None
    detail: str = ""

    def __str__(self) -> str:
        parts = (
            self.type,
            "" if self.seat is None else f"seat={self.seat}",
            "" if self.card is None else str(self.card),
            "" if self.color is None else f"color={self.color}",
            f"count={self.count}" if self.count else "",
            "cards=" + ",".join(map(str, self.cards)) if self.cards else "",
            "faces=" + ",".join(map(str, self.faces)) if self.faces else "",
            "" if self.target is None else f"target={self.target}",
            self.detail,
        )
        return " ".join(part for part in parts if part)


# The fast path's contract: the hot constructors below build an Event from all nine fields in this order through
# tuple.__new__ (skipping the Python-level __new__ of a NamedTuple, which matters on the engine's hot paths: a play
# or a draw every decision), and event_for_seat reads fields by position. Both rest on this order, checked here.
EVENT_FIELDS = ("type", "seat", "card", "color", "count", "cards", "faces", "target", "detail")
if Event._fields != EVENT_FIELDS:
    raise ImportError(f"Event fields changed to {Event._fields}: update EVENT_FIELDS and the constructors below")
_TYPE, _SEAT, _CARDS, _TARGET = (EVENT_FIELDS.index(name) for name in ("type", "seat", "cards", "target"))

# An Event from a tuple of all its fields in EVENT_FIELDS order (no defaults, no checks).
new_event = cast(Callable[[tuple[Any, ...]], Event], partial(tuple.__new__, Event))


def play_event(seat: int, card: Card, color: str | None, detail: str) -> Event:
    """A card was played (``detail`` "uno" when the play called UNO)."""
    return new_event(("play", seat, card, color, 0, (), (), None, detail))


def pass_event(seat: int) -> Event:
    """A seat passed (kept the card it drew, or had nothing to draw, P2)."""
    return new_event(("pass", seat, None, None, 0, (), (), None, ""))


def draw_event(seat: int, cards: tuple[Card, ...], faces: tuple[Face, ...], reason: str) -> Event:
    """A seat drew ``cards`` (``faces``: the faces the table saw; ``reason``: why, a rule id or kind)."""
    return new_event(("draw", seat, None, None, len(cards), cards, faces, None, reason))


# The only kinds of event that event_for_seat() may change or hide; every other event every seat sees whole.
PARTLY_HIDDEN_KINDS = frozenset({"draw", "reveal"})


def event_for_seat(event: Event, seat: int) -> Event | None:
    """The event as `seat` may see it, or None when it is hidden from that seat entirely."""
    kind = event[_TYPE]
    if kind == "draw":
        if event[_SEAT] != seat and event[_CARDS]:  # V4: another seat's drawn cards show only their faces
            return new_event((*event[:_CARDS], (), *event[_CARDS + 1:]))
    elif kind == "reveal" and event[_TARGET] != seat:  # X1: only the challenger sees the hand
        return None
    return event
