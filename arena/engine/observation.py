"""What one seat may see of a match (V1-V6): the data a bot decides on."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, Face
from .events import Event


@dataclass(frozen=True, slots=True)
class OpponentView:
    """Another seat as seen from the table: its card count and the faces showing (V2, V6); all of its
    cards once the round is over (V5)."""

    seat: int
    count: int
    visible: tuple[Face, ...]
    revealed: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view. Holds nothing that seat may not see; equal views compare equal."""

    seat: int
    players: int
    variant: str
    side: str
    direction: str
    decision: str
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
