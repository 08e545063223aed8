"""An asyncio event loop running in a daemon thread, so that synchronous tests drive asyncio servers and bots.

    with LoopThread("gateway") as loop_thread:
        server = loop_thread.run(start_server())          # run a coroutine there, wait for its result
        future = loop_thread.submit(play_match())         # or start it and keep a concurrent Future
        loop_thread.call_soon(client.disconnect)          # a plain call on the loop's thread

:meth:`LoopThread.close` stops the loop the way ``asyncio.run`` ends: what is still running there is
cancelled and awaited, async generators are shut down, then the loop is closed (by its own thread). What
outlives that (a task that ignores its cancellation, a thread that does not stop) would be collected later, in
some other test, as an "Event loop is closed" PytestUnraisableExceptionWarning; :meth:`LoopThread.close` raises
:class:`LoopNotClean` naming it instead, in the teardown of the test that left it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

LEFTOVER_TIMEOUT_S = 5.0
"""How long the tasks still running at close get to finish after being cancelled."""


class LoopNotClean(RuntimeError):
    """A :class:`LoopThread` closed with something left running (named in the message)."""


class LoopThread:
    """A new event loop, running forever in a daemon thread until :meth:`close`."""

    def __init__(self, name: str = "test-loop", leftover_timeout_s: float = LEFTOVER_TIMEOUT_S) -> None:
        self.name = name
        self.leftover_timeout_s = leftover_timeout_s
        self.left_running: list[str] = []
        """The tasks that were still pending when the loop closed (they ignored their cancellation)."""
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
                self.left_running = self._cancel_leftovers()
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            finally:
                self.loop.close()

    def _cancel_leftovers(self) -> list[str]:
        """Cancel every task still on the loop, and those their cancellation starts, until none is left or
        ``leftover_timeout_s`` passed; what is still pending then."""
        deadline = time.monotonic() + self.leftover_timeout_s
        while leftover := asyncio.all_tasks(self.loop):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return sorted(_describe(task) for task in leftover)
            for task in leftover:
                task.cancel()
            self.loop.run_until_complete(asyncio.wait(leftover, timeout=remaining))
        return []

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
        """Stop the loop, finish what is left on it (cancelled), close it and join the thread. Idempotent.

        Raises :class:`LoopNotClean` when the thread did not end within ``timeout`` seconds, or tasks were still
        pending when the loop closed (each named)."""
        if self.thread.is_alive():
            with contextlib.suppress(RuntimeError):  # closed meanwhile: nothing left to stop
                self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout)
        if self.thread.is_alive():
            raise LoopNotClean(f"the event loop thread {self.name!r} did not end within {timeout} s of close()")
        left, self.left_running = self.left_running, []
        if left:
            raise LoopNotClean(f"the event loop {self.name!r} closed with {len(left)} task(s) that did not end "
                               f"within {self.leftover_timeout_s} s of their cancellation: {'; '.join(left)}")

    def __enter__(self) -> LoopThread:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def _as_coro(awaitable: Awaitable[T]) -> T:
    return await awaitable


def _describe(task: asyncio.Task[Any]) -> str:
    """``task``'s name and where it waits: each coroutine it is awaiting in, outermost first, with its line."""
    where = []
    coro: Any = task.get_coro()
    while coro is not None and hasattr(coro, "cr_code"):
        line = coro.cr_frame.f_lineno if coro.cr_frame is not None else "?"
        where.append(f"{coro.cr_code.co_qualname} ({Path(coro.cr_code.co_filename).name}:{line})")
        coro = coro.cr_await
    return f"{task.get_name()}: {' > '.join(where) or repr(task)}"
