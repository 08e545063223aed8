"""What one seat may see of a match (V1-V6): the data a bot decides on."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple, cast

from .cards import Card, Face
from .events import Event


class OpponentView(NamedTuple):
    """Another seat as the table sees it: its count and the faces showing (V2, V6); its cards after the round (V5)."""

    seat: int
    count: int  # type: ignore[assignment]  # shadows tuple.count; the API names it so
    visible: tuple[Face, ...]
    revealed: tuple[Card, ...] = ()


class Observation(NamedTuple):
    """One seat's view. Holds nothing that seat may not see; equal views compare equal. A NamedTuple (immutable,
    cheap to build): the gateway builds one for every decision it sends."""

    seat: int
    players: int
    variant: str
    side: str
    direction: str
    decision: str  # one of engine.DECISIONS: the match's decision, or "catch" for an out-of-turn catch offer (U1)
    current: int | None
    color: str | None
    top: Face
    discard: tuple[Face, ...]
    hand: tuple[Card, ...]
    opponents: tuple[OpponentView, ...]
    draw_size: int
    draw_top: Face | None
    scores: tuple[int, ...]
    round: int
    dealer: int
    events: tuple[Event, ...]
    drawn: Card | None = None
    round_winner: int | None = None
    match_winner: int | None = None


def field_run(fields: tuple[str, ...], first: str, last: str) -> slice:
    """The positions of the fields ``first`` .. ``last`` of a NamedTuple (ValueError at import on a rename)."""
    return slice(fields.index(first), fields.index(last) + 1)


# The scalar fields seat .. top and draw_size .. dealer: the encoder looks up each run's encoding by value as one slice.
SCALAR_HEAD = field_run(Observation._fields, "seat", "top")
SCALAR_TAIL = field_run(Observation._fields, "draw_size", "dealer")

# Build from every field in order through tuple.__new__ (skipping NamedTuple's Python-level __new__): the
# match runner builds an observation for every decision.
new_opponent_view = cast(Callable[[tuple[Any, ...]], OpponentView], partial(tuple.__new__, OpponentView))
new_observation = cast(Callable[[tuple[Any, ...]], Observation], partial(tuple.__new__, Observation))
