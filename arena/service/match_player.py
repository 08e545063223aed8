"""The match player of a worker: one scheduled match through :func:`arena.runner.run_match`.

:class:`MatchPlayer` is the ``play`` callable of :func:`arena.service.batch_runner.run_batch`: it builds
the seats (:mod:`arena.service.matches`), runs the match on an event loop it keeps for the process, and
returns the result and the replay to store (in the format of :mod:`arena.service.replays`); the match's
incidents go to its registered bots' incident logs (:mod:`arena.service.incidents`).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from arena.players import BotFactory
from arena.runner import DEFAULT_INFRA_GRACE_S, run_match
from arena.store import Replay, Store, StoredResult
from arena.tournament import MatchSpec

from .incidents import log_match_incidents
from .matches import match_config, result_of, seats_for
from .replays import stored_record


class MatchPlayer:
    """Plays matches for one store; keeps one event loop per process (rebuilt after a fork). ``make_bot`` makes
    the built-in bots (``bots.make_bot``, passed in by the workers' tasks); ``infra_grace_s``: how long a match
    waits for a remote bot the arena could not reach before it is aborted (``Settings``)."""

    def __init__(self, store: Store, metrics: Any = None, *, make_bot: BotFactory,
                 infra_grace_s: float = DEFAULT_INFRA_GRACE_S) -> None:
        self.store = store
        self.make_bot = make_bot
        self.metrics = metrics
        self.infra_grace_s = infra_grace_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid = 0

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None or self._loop.is_closed() or self._pid != os.getpid():
            self._loop = asyncio.new_event_loop()
            self._pid = os.getpid()
        return self._loop

    def __call__(self, spec: MatchSpec) -> tuple[StoredResult, Replay]:
        config = match_config(spec, infra_grace_s=self.infra_grace_s)
        seats = seats_for(self.store, spec, self.make_bot)
        loop = self._event_loop()
        try:
            record = loop.run_until_complete(run_match(config, seats))
        except BaseException:
            # An interrupted loop (soft time limit, a crash inside the runner) is not reused.
            self.close()
            raise
        log_match_incidents(self.store, record, spec.seats, self.metrics)
        return result_of(record, spec), stored_record(record)

    def close(self) -> None:
        loop, self._loop = self._loop, None
        if loop is not None and not loop.is_closed():
            try:
                for task in asyncio.all_tasks(loop):
                    task.cancel()
                loop.run_until_complete(loop.shutdown_asyncgens())
            except RuntimeError:
                pass
            finally:
                loop.close()
