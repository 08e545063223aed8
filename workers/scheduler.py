"""The loop of ``uno-arena scheduler``: every tick it fires the cron schedules that are due (each due time once,
however many schedulers), runs a ladder round of every active competition and sends the canary when its time
has come; every ``arena_check_interval`` (between ticks too) it runs the completeness check of every active tournament.
The check chain's own messages wait behind the batches in the workers' queue, so this sweep, in a process of its
own, is what checks a busy arena on time. ``beat_schedule`` in :mod:`workers.celery_app` has the same entries.
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
from arena.store import StoreFailure

from .celery_app import CANARY_INTERVAL, get_store
from .enqueue import CeleryEnqueuer

log = logging.getLogger(__name__)

DEFAULT_TICK = 10.0
"""Seconds between two scheduler ticks (cron has minute resolution)."""


class Scheduler:
    def __init__(
        self,
        app: Celery,
        *,
        tick: float = DEFAULT_TICK,
        canary_interval: float = CANARY_INTERVAL,
        holder: str | None = None,
    ) -> None:
        self.app = app
        self.store = get_store(app)
        self.settings = Settings.from_conf(app.conf)
        self.enqueue = CeleryEnqueuer(app)
        self.tick_seconds = tick
        self.sweep_interval = self.settings.check_interval
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
