"""An asyncio event loop running in a daemon thread, so that synchronous tests drive asyncio servers and bots.

    with LoopThread("gateway") as loop_thread:
        server = loop_thread.run(start_server())          # run a coroutine there, wait for its result
        future = loop_thread.submit(play_match())         # or start it and keep a concurrent Future
        loop_thread.call_soon(client.disconnect)          # a plain call on the loop's thread

:meth:`LoopThread.close` stops the loop the way ``asyncio.run`` ends: what is still running there is
cancelled and awaited, async generators are shut down, then the loop is closed (by its own thread).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

LEFTOVER_TIMEOUT_S = 5.0
"""How long the tasks still running at close get to finish after being cancelled."""


class LoopThread:
    """A new event loop, running forever in a daemon thread until :meth:`close`."""

    def __init__(self, name: str = "test-loop") -> None:
        self.loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self.thread = threading.Thread(target=self._main, name=name, daemon=True)
        self.thread.start()
        self._started.wait(10)

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._started.set)
        try:
            self.loop.run_forever()
        finally:
            try:
                leftover = asyncio.all_tasks(self.loop)
                for task in leftover:
                    task.cancel()
                if leftover:
                    self.loop.run_until_complete(asyncio.wait(leftover, timeout=LEFTOVER_TIMEOUT_S))
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            finally:
                self.loop.close()

    @property
    def running(self) -> bool:
        """True until :meth:`close` (or the loop stopped)."""
        return self.thread.is_alive() and not self.loop.is_closed()

    def submit(self, awaitable: Awaitable[T]) -> concurrent.futures.Future[T]:
        """Start ``awaitable`` on the loop; its concurrent Future (``.result(timeout)`` from any thread)."""
        return asyncio.run_coroutine_threadsafe(_as_coro(awaitable), self.loop)

    def run(self, awaitable: Awaitable[T], timeout: float | None = None) -> T:
        """Run ``awaitable`` on the loop and wait (up to ``timeout`` seconds, None: no limit) for its result."""
        return self.submit(awaitable).result(timeout)

    def call_soon(self, callback: Callable[..., Any], *args: Any) -> None:
        """Call ``callback(*args)`` on the loop's thread (returns at once)."""
        self.loop.call_soon_threadsafe(callback, *args)

    def close(self, timeout: float = 15.0) -> None:
        """Stop the loop, finish what is left on it (cancelled), close it and join the thread. Idempotent."""
        if self.thread.is_alive():
            with contextlib.suppress(RuntimeError):  # closed meanwhile: nothing left to stop
                self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout)

    def __enter__(self) -> LoopThread:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def _as_coro(awaitable: Awaitable[T]) -> T:
    return await awaitable
