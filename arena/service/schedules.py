"""Firing scheduled (cron) tournaments exactly once, however many schedulers run.

:func:`fire_due_schedules` is meant to run every minute or so (from a Celery beat entry, or
any loop) in as many processes as one likes. For each enabled schedule it finds the latest due
time at or before ``now`` (so a scheduler that was down fires the missed time once on its return,
not every missed time), claims ``(schedule id, due time)`` in Redis
(:meth:`arena.store.ScheduleStore.claim`: ``SET NX`` plus a ``last_due`` that only moves
forward), and only the claimant calls ``fire``. If ``fire`` raises, the claim is released so the
next tick tries again; ``fire`` should therefore be idempotent itself, which
:func:`tournament_idempotency_key` makes easy (create the tournament under that key).

:func:`fire_due` is that with the tournament service's ``fire`` (:func:`make_fire`): a scheduled tournament
is created under the idempotency key ``schedule:{schedule id}:{due epoch}`` with the id
``{schedule id}-{YYYYmmddTHHMMZ}``; its seed is a fresh secret random one when the template's seed is 0,
else derived from the template's seed and the due time (:func:`run_seed`), so runs differ and a schedule
with an explicit seed reproduces. Schedule ids have no ``:`` (:func:`arena.store.keys.check_name`), so the
run's idempotency key (always with ``:``) is never one a user can send.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from arena.store import Schedule, Store, UnknownSchedule
from arena.tournament import TournamentSpec
from arena.tournament.cron import CronError, parse_cron

from .lifecycle import Enqueuer, UnknownParticipants, create_tournament

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
    """Validate ``cron`` (raises :class:`~arena.tournament.cron.CronError`) and store the schedule."""
    return store.schedules.add(schedule_id, parse_cron(cron).expr, spec, enabled=enabled)


def due_time(schedule: Schedule, now: datetime) -> datetime | None:
    """The due time to fire for ``schedule`` at ``now``, or ``None`` (nothing due).

    Raises :class:`~arena.tournament.cron.CronError` if the stored expression is malformed.
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


def run_seed(base_seed: int, due: datetime) -> int:
    """The seed of a scheduled run.

    A template seed of 0 (the default) gives 0: the arena draws a fresh secret random seed for each run when
    it creates the run's tournament (:func:`arena.service.lifecycle.choose_seed`), so no run's seed can be
    predicted from the schedule id or the due time. An explicit template seed gives a seed derived from it
    and the due time, so that runs differ but a schedule with an explicit seed reproduces exactly (whoever
    knows the template seed can compute every run's seed: keep it secret, or use 0).
    """
    if not base_seed:
        return 0
    digest = hashlib.sha256(f"uno-arena/schedule/{int(base_seed)}/{int(due.timestamp())}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def spec_for_run(template: Mapping[str, Any], schedule_id: str, due: datetime) -> TournamentSpec:
    """The tournament spec a schedule starts at ``due`` (seed 0 when the arena is to draw it)."""
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
