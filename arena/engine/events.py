"""Events: what happened in a match, and what each seat may see of it (V3, V4, X1)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple, cast

from .cards import Card, Face


class Event(NamedTuple):
    """One thing that happened; a NamedTuple, immutable and cheap, since a match logs thousands of them.

    `cards` of a `draw` are seen only by the drawer (V4); everyone sees `faces`, the faces that showed to
    the table. A `reveal` (X1) is seen only by `target`, the challenger.
    """

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
        parts = [self.type]
        if self.seat is not None:
            parts.append(f"seat={self.seat}")
        if self.card is not None:
            parts.append(str(self.card))
        if self.color is not None:
            parts.append(f"color={self.color}")
        if self.count:
            parts.append(f"count={self.count}")
        if self.cards:
            parts.append("cards=" + ",".join(map(str, self.cards)))
        if self.faces:
            parts.append("faces=" + ",".join(map(str, self.faces)))
        if self.target is not None:
            parts.append(f"target={self.target}")
        if self.detail:
            parts.append(self.detail)
        return " ".join(parts)


# Builds an Event from all nine fields in order, through tuple.__new__: it skips the Python-level
# __new__ of a NamedTuple, which matters on the engine's hot paths (a play or a draw every decision).
new_event = cast(Callable[[tuple[Any, ...]], Event], partial(tuple.__new__, Event))


# The only kinds of event that event_for_seat() may change or hide; every other event every seat sees whole.
PARTLY_HIDDEN_KINDS = frozenset({"draw", "reveal"})


def event_for_seat(event: Event, seat: int) -> Event | None:
    """The event as `seat` may see it, or None when it is hidden from that seat entirely."""
    kind = event[0]
    if kind == "draw":
        if event[1] != seat and event[5]:  # V4: another seat's drawn cards show only their faces
            return new_event((*event[:5], (), *event[6:]))
    elif kind == "reveal" and event[7] != seat:  # X1: only the challenger sees the hand
        return None
    return event
