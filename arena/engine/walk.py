"""The one replay walk: a recorded match's actions applied to a fresh engine in order, step by step, with the
round changes the arena makes between rounds re-inserted where the record leaves them out (replays, the web's replay
frames, ``tournament verify``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from .actions import NEXT_ROUND, Action
from .match import Match


class WalkError(ValueError):
    """A decision of the walked match that the engine refuses: the record does not replay."""

    def __init__(self, number: int, seat: int | None, action: Action, error: Exception) -> None:
        super().__init__(f"decision {number}: seat {seat} {str(action)!r} does not replay: {error}")
        self.number, self.seat, self.action, self.error = number, seat, action, error


@dataclass(frozen=True)
class WalkStep:
    """One step of :func:`walk`: a decision (``number`` from 1, the seat, its action) or a round change (``seat``
    None, the ``next_round`` action, ``number`` the decisions before it). ``start``: the number of the match's events
    before the step (its own events are the ones after it); ``legal``: the actions the seat had, when asked for."""

    number: int
    seat: int | None
    action: Action
    start: int
    legal: tuple[Action, ...] = ()

    @property
    def round_change(self) -> bool:
        return self.seat is None


def walk(match: Match, actions: Iterable[tuple[int | None, Action]],
         legal_for: Callable[[int], bool] | None = None) -> Iterator[WalkStep]:
    """Apply ``actions`` (seat None for the arena's own) to ``match`` in order, yielding each step with the match
    standing right after it; ``legal_for(seat)``: whether a step keeps the seat's legal actions."""
    number = 0
    for seat, action in actions:
        if seat is None or action.kind == NEXT_ROUND.kind:
            start = len(match.events)
            match.apply(None, action)
            yield WalkStep(number, None, action, start)
            continue
        while match.decision == "round_over":
            start = len(match.events)
            match.apply(None, NEXT_ROUND)
            yield WalkStep(number, None, NEXT_ROUND, start)
        number += 1
        legal = tuple(match.legal_actions(seat)) if legal_for is not None and legal_for(seat) else ()
        start = len(match.events)
        try:
            match.apply(seat, action)
        except ValueError as error:
            raise WalkError(number, seat, action, error) from None
        yield WalkStep(number, seat, action, start, legal)


