"""The bot host's queue of checks (pure: data in, a plan out).

Only a bot's newest waiting version is checked (older ones are superseded). The others are taken in turn per author
(a bot's owner, else the bot itself): the next check goes to the author with the fewest checks running or planned,
the one waiting longest first among equals. So one author's many slow versions cannot hold every slot.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Waiting:
    """A submitted version not given its verdict yet."""

    bot: str  # compared without case
    version: int
    author: str  # the bot's owner (the bot's own name when it has none)
    submitted_at: float

    @property
    def key(self) -> tuple[str, int]:
        return self.bot.casefold(), self.version


@dataclass(frozen=True)
class QueuePlan:
    """What to do with the waiting versions."""

    superseded: tuple[Waiting, ...]  # older versions of a bot with a newer one waiting or under check
    order: tuple[Waiting, ...]  # the versions to check, the next first


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
