"""Live updates for the pages: one poller per followed thing, shared by every viewer (server-sent events).

A :class:`LiveFeed` reads its source (a blocking function, in a worker thread) every ``poll_s`` while at least one
viewer follows it and hands each new value to every viewer (a viewer joining gets the latest at once), so 200
viewers cost the organizer API one read per interval; it stops polling when its last viewer leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

KEEPALIVE_S = 15.0


def sse_message(data: Any, event: str = "update") -> str:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def error_text(error: Exception) -> str:
    """What a viewer is told when a read fails: the gRPC status and details, else the exception's type."""
    code = getattr(error, "code", None)
    details = getattr(error, "details", None)
    if callable(code) and callable(details):
        return f"{code().name}: {details()}"
    return f"{type(error).__name__}: {error}"


class LiveFeed:
    """Polls ``read()`` every ``poll_s`` while followed; ``done(value)`` says the value is the last one."""

    def __init__(self, read: Callable[[], Any], poll_s: float, done: Callable[[Any], bool] = lambda value: False,
                 on_idle: Callable[[], object] = lambda: None) -> None:
        self._read = read
        self._poll_s = poll_s
        self._done = done
        self._on_idle = on_idle
        self._viewers: set[asyncio.Queue[tuple[Any, bool]]] = set()
        self._latest: tuple[Any, bool] | None = None
        self._task: asyncio.Task[None] | None = None

    async def _poll(self) -> None:
        try:
            while self._viewers:
                try:
                    value = await asyncio.to_thread(self._read)
                except Exception as error:  # the API is down or refuses: tell the viewers, keep trying
                    value = {"error": error_text(error)}
                    ended = False
                else:
                    ended = bool(self._done(value))
                if self._latest is None or value != self._latest[0] or ended != self._latest[1]:
                    self._latest = (value, ended)
                    for queue in list(self._viewers):
                        queue.put_nowait(self._latest)
                if ended:
                    return
                await asyncio.sleep(self._poll_s)
        finally:
            if self._task is asyncio.current_task():
                self._task = None

    async def follow(self) -> AsyncIterator[str]:
        """The server-sent events of one viewer: each new value, a comment every :data:`KEEPALIVE_S` while
        nothing changes; ends after the last value."""
        queue: asyncio.Queue[tuple[Any, bool]] = asyncio.Queue()
        self._viewers.add(queue)
        if self._latest is not None:
            queue.put_nowait(self._latest)
        if self._task is None and not (self._latest is not None and self._latest[1]):
            self._task = asyncio.create_task(self._poll())
        try:
            while True:
                try:
                    value, ended = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                yield sse_message(value)
                if ended:
                    yield sse_message({}, "end")
                    return
        finally:
            self._viewers.discard(queue)
            if not self._viewers:
                task, self._task = self._task, None
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
                ended = self._latest is not None and self._latest[1]
                if self._viewers:  # a viewer joined while the poller stopped: poll for it
                    if self._task is None and not ended:
                        self._task = asyncio.create_task(self._poll())
                else:
                    self._latest = self._latest if ended else None
                    self._on_idle()
