"""The match player of a worker (the ``play`` callable of :func:`arena.service.batch_runner.run_batch`): it may be
called from many threads at once, and plays every match as a coroutine on one event loop the process keeps in a
thread, so the remote matches of a process wait for their bots together, not one after another.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import threading
from typing import Any

from arena.players import BotFactory
from arena.runner import DEFAULT_INFRA_GRACE_S, MatchRecord, run_match
from arena.store import Replay, Store, StoredResult
from arena.tournament import MatchSpec

from .incidents import log_match_incidents
from .matches import match_config, result_of, seats_for
from .replays import stored_record
from .runtime import MatchCancelled


class _LoopThread:
    """An asyncio event loop running in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.pid = os.getpid()
        self.thread = threading.Thread(target=self._run, name="match-loop", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def stop(self) -> None:
        async def shut() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.loop.shutdown_asyncgens()

        with contextlib.suppress(RuntimeError, concurrent.futures.TimeoutError):
            asyncio.run_coroutine_threadsafe(shut(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        if not self.thread.is_alive():
            self.loop.close()


class MatchPlayer:
    """Plays matches for one store on one event loop per process (rebuilt after a fork); it records the result, the
    replay and the bots' incidents."""

    def __init__(self, store: Store, metrics: Any = None, *, make_bot: BotFactory,
                 infra_grace_s: float = DEFAULT_INFRA_GRACE_S) -> None:
        self.store = store
        self.make_bot = make_bot
        self.metrics = metrics
        self.infra_grace_s = infra_grace_s
        self._lock = threading.Lock()
        self._thread: _LoopThread | None = None
        self._running: set[concurrent.futures.Future[MatchRecord]] = set()

    def _loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._thread is None or self._thread.pid != os.getpid() or self._thread.loop.is_closed():
                self._thread = _LoopThread()
            return self._thread.loop

    def __call__(self, spec: MatchSpec) -> tuple[StoredResult, Replay]:
        config = match_config(spec, infra_grace_s=self.infra_grace_s)
        seats = seats_for(self.store, spec, self.make_bot)
        future = asyncio.run_coroutine_threadsafe(run_match(config, seats), self._loop())
        with self._lock:
            self._running.add(future)
        try:
            record = future.result()
        except concurrent.futures.CancelledError:
            raise MatchCancelled(f"match {spec.match_id} was stopped before its end") from None
        finally:
            with self._lock:
                self._running.discard(future)
        log_match_incidents(self.store, record, spec.seats, self.metrics)
        return result_of(record, spec), stored_record(record)

    def cancel(self) -> None:
        """Stop every match in flight (each call playing one raises :class:`MatchCancelled`)."""
        with self._lock:
            running = list(self._running)
        for future in running:
            future.cancel()

    def close(self) -> None:
        self.cancel()
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None and thread.pid == os.getpid():
            thread.stop()
