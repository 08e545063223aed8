"""Which waiting matches start now: the work-conserving release of a batch's tables (pure).

In schedule order (the rotations of a duplicate deal are neighbours, so they start together), every waiting match
whose remote bots all have a free slot starts while the process has room; matches of built-in bots only need no
slot but never take more than ``builtin_room`` places, so they never starve remote matches. The worker reserves a
match's slots all at once (:mod:`arena.store.slots`), so two matches never each hold a slot the other waits for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class WaitingMatch:
    """A match that waits to start: its id and the remote bots (key form, each once) that need a slot in it."""

    match_id: str
    bots: frozenset[str]

    @property
    def builtin_only(self) -> bool:
        return not self.bots


def matches_to_start(waiting: Sequence[WaitingMatch], free: Mapping[str, int], room: int,
                     builtin_room: int) -> list[WaitingMatch]:
    """The waiting matches to start now, in the order given. ``free``: free slots per bot (none when missing);
    ``room``: places left in the process; ``builtin_room``: of those, places for matches of built-in bots only."""
    left = dict(free)
    chosen: list[WaitingMatch] = []
    for match in waiting:
        if room <= 0:
            break
        if match.builtin_only:
            if builtin_room <= 0:
                continue
            builtin_room -= 1
        elif all(left.get(bot, 0) > 0 for bot in match.bots):
            for bot in match.bots:
                left[bot] -= 1
        else:
            continue
        chosen.append(match)
        room -= 1
    return chosen
