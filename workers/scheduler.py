"""The scheduler: fires cron schedules, sweeps active tournaments, sends the canary.

``uno-arena scheduler`` runs :class:`Scheduler` in a loop. Every tick it

* fires the schedules that are due (:func:`workers.schedules.fire_due_schedules`: each due time
  of each schedule is claimed in Redis, so two schedulers never fire it twice),
* every ``sweep_interval`` seconds runs the completeness check of every active tournament
  (:func:`workers.tournaments.sweep`), which revives tournaments whose check or batch messages
  were lost with a killed worker,
* every ``canary_interval`` seconds sends the canary task (there is no separate ``celery beat``
  in the deployment; ``beat_schedule`` in :mod:`workers.celery_app` has the same entries for
  those who prefer beat).

A scheduled tournament is created under the idempotency key
``schedule:{schedule id}:{due epoch}`` with the id ``{schedule id}-{YYYYmmddTHHMMZ}`` and a seed
derived from the template's seed and the due time, so runs differ but are reproducible.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from celery import Celery

from arena.store import Schedule, Store
from arena.tournament import TournamentSpec

from .celery_app import CANARY_INTERVAL, get_store
from .schedules import FireCallback, Firing, fire_due_schedules, tournament_id_for, tournament_idempotency_key
from .tournaments import Enqueuer, Settings, UnknownParticipants, create_tournament, sweep

log = logging.getLogger(__name__)

DEFAULT_TICK = 10.0
"""Seconds between two scheduler ticks (cron has minute resolution)."""


def run_seed(base_seed: int, due: datetime) -> int:
    """The seed of a scheduled run: derived from the template's seed and the due time."""
    digest = hashlib.sha256(f"uno-arena/schedule/{int(base_seed)}/{int(due.timestamp())}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def spec_for_run(template: Mapping[str, Any], schedule_id: str, due: datetime) -> TournamentSpec:
    """The tournament spec a schedule starts at ``due``."""
    data = {k: v for k, v in template.items() if k != "tournament_id"}
    data["tournament_id"] = tournament_id_for(schedule_id, due)
    data["seed"] = run_seed(int(data.get("seed", 0)), due)
    return TournamentSpec.from_dict(data)


def make_fire(store: Store, enqueue: Enqueuer) -> FireCallback:
    """The ``fire`` callback: create the run's tournament (idempotently) and send its start."""

    def fire(schedule: Schedule, due: datetime) -> None:
        try:
            spec = spec_for_run(schedule.spec, schedule.schedule_id, due)
            created = create_tournament(
                store,
                spec,
                idempotency_key=tournament_idempotency_key(schedule.schedule_id, due),
                schedule_id=schedule.schedule_id,
            )
        except (UnknownParticipants, ValueError) as exc:
            # A permanent problem (a participant was removed): log it, do not retry every tick.
            log.error("schedule %s at %s not fired: %s", schedule.schedule_id, due.isoformat(), exc)
            return
        enqueue.start(created.tournament_id)
        log.info("schedule %s fired tournament %s", schedule.schedule_id, created.tournament_id)

    return fire


def fire_due(store: Store, enqueue: Enqueuer, now: datetime, *, holder: str | None = None) -> list[Firing]:
    """Fire every schedule due at ``now`` (each due time once across all schedulers)."""
    return fire_due_schedules(store, now, make_fire(store, enqueue), holder=holder)


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
        from .tasks import CeleryEnqueuer

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
        """One round: due schedules, then the sweep and the canary when their time has come."""
        stamp = time.time() if now is None else now
        fired = fire_due(self.store, self.enqueue, datetime.fromtimestamp(stamp, UTC), holder=self.holder)
        if stamp - self._last_sweep >= self.sweep_interval:
            self._last_sweep = stamp
            sweep(self.store, self.enqueue, self.settings)
        if self.canary_interval > 0 and stamp - self._last_canary >= self.canary_interval:
            self._last_canary = stamp
            self.app.send_task("workers.tasks.canary")
        return fired

    def run(self, stop: threading.Event | None = None) -> None:
        """Tick until ``stop`` is set; errors (Redis restarting) are logged and the loop goes on."""
        event = stop or threading.Event()
        while not event.is_set():
            try:
                for firing in self.tick():
                    if not firing.ok:
                        log.warning("firing %s at %s failed: %s", firing.schedule_id, firing.due, firing.error)
            except Exception:
                log.exception("scheduler tick failed; retrying at the next tick")
            event.wait(self.tick_seconds)
