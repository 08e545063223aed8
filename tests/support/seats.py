"""Seats for fault tests: a relay seat with something restarted just before one of its decisions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from arena.relay import RelaySeat
from arena.runner import Seat, SeatRequest


class RestartAt(Seat):
    """A RelaySeat whose ``restart`` (Redis, its gateway: blocking, run in a thread) happens just before its
    decision ``at``."""

    def __init__(self, inner: RelaySeat, at: int, restart: Callable[[], object]) -> None:
        self.inner, self.at, self.restart = inner, at, restart
        self.name, self.version, self.wants_events = inner.name, inner.version, inner.wants_events
        self.asked = 0

    async def start(self, info: Any) -> None:
        await self.inner.start(info)

    async def decide(self, request: SeatRequest) -> int:
        self.asked += 1
        if self.asked == self.at:
            await asyncio.to_thread(self.restart)
        return await self.inner.decide(request)

    async def events(self, match_id: str, observation: Any) -> None:
        await self.inner.events(match_id, observation)

    async def end(self, match_id: str, summary: Any) -> None:
        await self.inner.end(match_id, summary)

    async def close_answers(self, match_id: str) -> int:
        return await self.inner.close_answers(match_id)
