"""Per-decision deadlines of the gateway: one event-loop timer for all pending decisions.

A timer per decision (``loop.call_at``) costs a push onto the loop's heap, and a cancelled one stays there until its
time: at thousands of decisions a second that was about a tenth of the gateway's CPU. Decisions with the same time
limit expire in the order they were asked, so :class:`Deadlines` keeps one FIFO queue per time limit and one timer
for the earliest head; answered ones leave a queue when they reach its head (answers mostly come in order), so a
queue holds about the decisions in flight. A future fails with ``TimeoutError`` exactly when its own timer would have.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from typing import Any


class Deadlines:
    """Fails each added future with ``TimeoutError`` at its deadline unless it is done by then."""

    def __init__(self) -> None:
        self._queues: dict[float, deque[tuple[float, asyncio.Future[Any]]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf

    def add(self, future: asyncio.Future[Any], limit_s: float) -> float:
        """Expire ``future`` ``limit_s`` seconds from now; returns the deadline on the loop's clock
        (``loop.time()``, which is ``time.monotonic()``)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new event loop (tests run several): the old one's futures are gone
            self._queues.clear()
            self._loop, self._timer, self._timer_at = loop, None, math.inf
        at = loop.time() + limit_s
        queue = self._queues.get(limit_s)
        if queue is None:
            queue = self._queues[limit_s] = deque()
        while queue and queue[0][1].done():
            queue.popleft()
        queue.append((at, future))
        if at < self._timer_at:
            self._arm(at)
        return at

    def __len__(self) -> int:
        """Entries held (answered ones included until they reach the head of their queue)."""
        return sum(len(queue) for queue in self._queues.values())

    def _arm(self, at: float) -> None:
        assert self._loop is not None
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = at
        self._timer = self._loop.call_at(at, self._expire_due)

    def _expire_due(self) -> None:
        assert self._loop is not None
        self._timer, self._timer_at = None, math.inf
        now = self._loop.time()
        earliest = math.inf
        for limit in list(self._queues):
            queue = self._queues[limit]
            while queue:
                at, future = queue[0]
                if future.done():
                    queue.popleft()
                elif at <= now:
                    queue.popleft()
                    future.set_exception(TimeoutError())
                else:
                    earliest = min(earliest, at)
                    break
            if not queue:
                del self._queues[limit]
        if earliest < math.inf:
            self._arm(earliest)
