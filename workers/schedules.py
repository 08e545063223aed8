"""Firing scheduled (cron) tournaments exactly once, however many schedulers run.

:func:`fire_due_schedules` is meant to run every minute or so (from a Celery beat entry, or
any loop) in as many processes as one likes. For each enabled schedule it finds the latest due
time at or before ``now`` (so a scheduler that was down fires the missed time once on its return,
not every missed time), claims ``(schedule id, due time)`` in Redis
(:meth:`arena.store.ScheduleStore.claim`: ``SET NX`` plus a ``last_due`` that only moves
forward), and only the claimant calls ``fire``. If ``fire`` raises, the claim is released so the
next tick tries again; ``fire`` should therefore be idempotent itself, which
:func:`tournament_idempotency_key` makes easy (create the tournament under that key).
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from arena.store import Schedule, Store, UnknownSchedule

from .cron import CronError, parse_cron

log = logging.getLogger(__name__)

FireCallback = Callable[[Schedule, datetime], object]
"""``fire(schedule, due)``: start the tournament of ``schedule`` for the due time ``due`` (UTC)."""


@dataclass(frozen=True)
class Firing:
    """One claimed due time and what happened: ``error`` is ``None`` when ``fire`` succeeded."""

    schedule_id: str
    due: datetime
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def add_schedule(
    store: Store, schedule_id: str, cron: str, spec: Mapping[str, Any], *, enabled: bool = True
) -> Schedule:
    """Validate ``cron`` (raises :class:`~workers.cron.CronError`) and store the schedule."""
    return store.schedules.add(schedule_id, parse_cron(cron).expr, spec, enabled=enabled)


def due_time(schedule: Schedule, now: datetime) -> datetime | None:
    """The due time to fire for ``schedule`` at ``now``, or ``None`` (nothing due).

    Raises :class:`~workers.cron.CronError` if the stored expression is malformed.
    """
    due = parse_cron(schedule.cron).previous(now)
    stamp = int(due.timestamp())
    if stamp <= schedule.created_at:
        return None
    if schedule.last_due is not None and stamp <= schedule.last_due:
        return None
    return due


def tournament_idempotency_key(schedule_id: str, due: datetime) -> str:
    """The idempotency key for the tournament a schedule starts at ``due``."""
    return f"schedule:{schedule_id}:{int(due.timestamp())}"


def tournament_id_for(schedule_id: str, due: datetime) -> str:
    """A readable, deterministic tournament id for a firing, e.g. ``nightly-20260101T0300Z``."""
    return f"{schedule_id}-{due.astimezone(UTC):%Y%m%dT%H%MZ}"


def default_holder() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def fire_due_schedules(
    store: Store,
    now: datetime,
    fire: FireCallback,
    *,
    holder: str | None = None,
    lock_ttl: float | None = None,
) -> list[Firing]:
    """Fire every schedule that is due at ``now``, each due time once across all callers.

    Returns the firings this call claimed (with ``error`` set where ``fire`` raised; those are
    released for a retry). Schedules with a malformed stored cron expression are logged and
    skipped. ``holder`` names this scheduler in the lock (default: host, pid and a random tag).
    """
    me = holder or default_holder()
    fired: list[Firing] = []
    for schedule in store.schedules.all():
        if not schedule.enabled:
            continue
        try:
            due = due_time(schedule, now)
        except CronError as exc:
            log.error("schedule %s: bad cron expression %r: %s", schedule.schedule_id, schedule.cron, exc)
            continue
        if due is None:
            continue
        stamp = int(due.timestamp())
        kwargs = {} if lock_ttl is None else {"ttl": lock_ttl}
        try:
            claimed = store.schedules.claim(schedule.schedule_id, stamp, holder=me, **kwargs)
        except UnknownSchedule:  # removed since we listed it
            continue
        if not claimed:
            continue
        try:
            fire(schedule, due)
        except Exception as exc:
            log.exception("firing schedule %s for %s failed; released for a retry", schedule.schedule_id, due)
            store.schedules.release(schedule.schedule_id, stamp, holder=me)
            fired.append(Firing(schedule.schedule_id, due, f"{type(exc).__name__}: {exc}"))
        else:
            fired.append(Firing(schedule.schedule_id, due))
    return fired
