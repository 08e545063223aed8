"""Which waiting matches start now: the work-conserving release of a batch's tables (pure).

A worker holds a batch's matches in schedule order (deal, table, rotation: the rotations of one duplicate deal
are neighbours). Every time a match ends, or a slot may have been freed elsewhere, it asks
:func:`matches_to_start` which of the waiting ones to start. The rule:

- **work-conserving**: every waiting match whose remote bots all have a free slot starts, while the process has
  room; no bot with a free slot waits while a table it could sit at waits;
- **in order**: the earliest waiting match gets the slots first, so the rotations of a duplicate deal start
  together and a deal's block completes before the ones after it take its bots;
- **built-in matches keep a share**: matches of built-in bots only (CPU-bound, played in the worker's own
  process) never take more than ``builtin_room`` places, so they never starve remote matches of the process's
  room; they need no slot.

A bot's free slots are its capacity (``Hello.max_concurrent_matches``) minus the matches it sits in now, arena-wide
(:class:`arena.store.slots.SlotStore`); the worker reserves a match's slots all at once before it starts it, so two
matches never each hold a slot the other waits for.
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
    """The waiting matches to start now, in the order given (see the module docstring).

    ``free``: free slots per bot (a bot missing from it has none); ``room``: places left in the process;
    ``builtin_room``: places left for matches of built-in bots only (counted in ``room`` too)."""
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
