"""The scheduler: fires cron schedules, sweeps active tournaments, sends the canary.

``uno-arena scheduler`` runs :class:`Scheduler` in a loop. Every tick it

* fires the schedules that are due (:func:`arena.service.schedules.fire_due`: each due time
  of each schedule is claimed in Redis, so two schedulers never fire it twice),
* every ``sweep_interval`` seconds (the workers' check interval, between ticks too) runs the completeness check
  of every active tournament (:func:`arena.service.lifecycle.sweep`), which revives tournaments whose check or
  batch messages were lost with a killed worker. The check chain's Celery messages wait behind the batches in
  the workers' queue and cannot run while every worker child plays a batch: the scheduler's sweep, in its own
  process, is what checks a busy arena on time,
* every tick runs one ladder round of every active competition (:func:`arena.service.competitions.ladder_tick`:
  the ladder starts the blocks the matchmaking chooses among the connected entrants),
* every ``canary_interval`` seconds sends the canary task (there is no separate ``celery beat``
  in the deployment; ``beat_schedule`` in :mod:`workers.celery_app` has the same entries for
  those who prefer beat).

What a firing creates (its id, idempotency key and seed) is :mod:`arena.service.schedules`' business.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime

from celery import Celery
from kombu.exceptions import OperationalError

from arena.service.competitions import ladder_tick
from arena.service.lifecycle import Settings, sweep
from arena.service.schedules import Firing, fire_due
from arena.store import Store, StoreFailure

from .celery_app import CANARY_INTERVAL, get_store
from .enqueue import CeleryEnqueuer

log = logging.getLogger(__name__)

DEFAULT_TICK = 10.0
"""Seconds between two scheduler ticks (cron has minute resolution)."""


class Scheduler:
    """The loop of ``uno-arena scheduler`` (see the module docstring)."""

    def __init__(
        self,
        app: Celery,
        *,
        store: Store | None = None,
        tick: float = DEFAULT_TICK,
        sweep_interval: float | None = None,
        canary_interval: float = CANARY_INTERVAL,
        holder: str | None = None,
    ) -> None:
        self.app = app
        self.store = store or get_store(app)
        self.settings = Settings.from_conf(app.conf)
        self.enqueue = CeleryEnqueuer(app)
        self.tick_seconds = tick
        self.sweep_interval = self.settings.check_interval if sweep_interval is None else sweep_interval
        self.canary_interval = canary_interval
        self.holder = holder
        self._last_sweep = 0.0
        self._last_canary = 0.0

    def tick(self, now: float | None = None) -> list[Firing]:
        """One round: due schedules, the ladder, then the sweep and the canary when their time has come."""
        stamp = time.time() if now is None else now
        fired = fire_due(self.store, self.enqueue, datetime.fromtimestamp(stamp, UTC), holder=self.holder,
                         missed=self.app.conf.get("arena_missed_firings"))
        self.sweep_if_due(stamp)
        ladder_tick(self.store, self.enqueue, stamp)
        if self.canary_interval > 0 and stamp - self._last_canary >= self.canary_interval:
            self._last_canary = stamp
            self.app.send_task("workers.tasks.canary", ignore_result=True)  # nothing waits for it
        return fired

    def sweep_if_due(self, now: float) -> bool:
        """The completeness check of every active tournament, once ``sweep_interval`` has passed since the last."""
        if now - self._last_sweep < self.sweep_interval:
            return False
        self._last_sweep = now
        sweep(self.store, self.enqueue, self.settings)
        return True

    def run(self, stop: threading.Event | None = None) -> None:
        """Tick until ``stop`` is set, and sweep between ticks every ``sweep_interval`` (a long ``--tick`` never
        delays the completeness check); errors are logged and the loop goes on: Redis away (restarting,
        unreachable) in one line per tick, anything else with its traceback."""
        event = stop or threading.Event()
        next_tick = 0.0
        while not event.is_set():
            now = time.time()
            try:
                if now >= next_tick:
                    next_tick = now + self.tick_seconds
                    for firing in self.tick(now):
                        if not firing.ok:
                            log.warning("firing %s at %s failed: %s", firing.schedule_id, firing.due, firing.error)
                else:
                    self.sweep_if_due(now)
            except (StoreFailure, OperationalError) as error:
                log.warning("scheduler tick failed: Redis at %s: %s; retrying in %g s", self.store.url.split("@")[-1],
                            error, self.tick_seconds)
            except Exception:
                log.exception("scheduler tick failed; retrying at the next tick")
            event.wait(max(0.1, min(next_tick, self._last_sweep + self.sweep_interval) - time.time()))
