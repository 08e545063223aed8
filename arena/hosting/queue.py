"""The bot host's queue of checks (pure: data in, a plan out).

Only a bot's newest waiting version is checked: an older one still waiting is superseded (it is rejected, saying
so). The others are taken in turn per author (a bot's owner; a bot without one is an author of its own): the next
check goes to the author with the fewest checks running or already planned, the one waiting longest first among
equals; an author's own versions go oldest first. So one author's many slow versions cannot hold every slot while
another author's version waits.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Waiting:
    """A submitted version not given its verdict yet."""

    bot: str
    """The bot's name, compared without case."""
    version: int
    author: str
    """Its bot's owner (the bot's own name when it has none)."""
    submitted_at: float

    @property
    def key(self) -> tuple[str, int]:
        return self.bot.casefold(), self.version


@dataclass(frozen=True)
class QueuePlan:
    """What to do with the waiting versions."""

    superseded: tuple[Waiting, ...]
    """Older waiting versions of a bot that has a newer one waiting or under check: never checked."""
    order: tuple[Waiting, ...]
    """The versions to check, the next first (its place in the queue: its index + 1)."""

    def places(self) -> dict[tuple[str, int], int]:
        """(bot without case, version) -> its place in the queue (1: next)."""
        return {w.key: place for place, w in enumerate(self.order, start=1)}


def plan_checks(waiting: Iterable[Waiting], running: Iterable[Waiting]) -> QueuePlan:
    """The plan for ``waiting`` (not under check) while ``running`` are under check."""
    waiting, running = list(waiting), list(running)
    newest: dict[str, int] = {}
    for w in [*waiting, *running]:
        newest[w.bot.casefold()] = max(newest.get(w.bot.casefold(), 0), w.version)
    superseded = tuple(sorted((w for w in waiting if w.version < newest[w.bot.casefold()]), key=lambda w: w.key))
    kept = [w for w in waiting if w.version == newest[w.bot.casefold()]]
    queues: dict[str, list[Waiting]] = defaultdict(list)
    for w in sorted(kept, key=lambda w: (w.submitted_at, w.key)):
        queues[w.author].append(w)
    load = Counter(w.author for w in running)
    order: list[Waiting] = []
    while queues:
        author = min(queues, key=lambda a: (load[a], queues[a][0].submitted_at, queues[a][0].key))
        order.append(queues[author].pop(0))
        load[author] += 1
        if not queues[author]:
            del queues[author]
    return QueuePlan(superseded, tuple(order))
