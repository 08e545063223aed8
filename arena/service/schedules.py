"""Firing scheduled (cron) tournaments exactly once, however many schedulers run (docs/organizers.md, "Schedules").

:func:`fire_due_schedules` fires, for each enabled schedule, the latest due time at or before ``now`` (a scheduler
that was down fires one missed time on its return, not each), claimed in Redis first so only one scheduler fires
it; a ``fire`` that raises releases the claim for the next tick. Missed due times are logged one by one; the
policy ``skip`` (:data:`MISSED_POLICIES`) also skips a latest one later than :data:`LATE_AFTER`. A run is created
under the idempotency key ``schedule:{id}:{due epoch}`` (schedule ids have no ``:``, so no user sends one) with the
id ``{id}-{YYYYmmddTHHMMZ}`` and a seed of its own (:func:`run_seed`).
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

MISSED_POLICIES = ("fire-once-late", "skip")
"""What a scheduler does with a due time it finds late: fire it once (late), or skip it."""
MISSED_DEFAULT = "fire-once-late"
MISSED_ENV = "UNO_ARENA_MISSED_FIRINGS"
LATE_AFTER = 120.0
"""Seconds after its due time a firing counts as late (missed on time): schedulers look every 20 s or so."""
MISSED_LOG_LIMIT = 20
"""Missed due times logged one by one per schedule and tick; beyond that, a count."""
MISSED_COUNT_LIMIT = 10_000


def missed_policy(value: str | None = None) -> str:
    """The missed-firing policy ``value`` (default ``$UNO_ARENA_MISSED_FIRINGS``, else :data:`MISSED_DEFAULT`);
    raises ``ValueError`` for an unknown one."""
    policy = (value if value is not None else os.environ.get(MISSED_ENV, "")) or MISSED_DEFAULT
    if policy not in MISSED_POLICIES:
        raise ValueError(f"unknown missed-firing policy {policy!r}: use one of {', '.join(MISSED_POLICIES)}")
    return policy


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


def delete_schedule(store: Store, schedule_id: str) -> Schedule:
    """Remove a schedule for good (the tournaments it started go on); returns it as it was, or raises
    :class:`~arena.store.UnknownSchedule`."""
    schedule = store.schedules.get(schedule_id)
    if not store.schedules.remove(schedule_id):
        raise UnknownSchedule(schedule_id)
    return schedule


def tournament_idempotency_key(schedule_id: str, due: datetime) -> str:
    return f"schedule:{schedule_id}:{int(due.timestamp())}"


def tournament_id_for(schedule_id: str, due: datetime) -> str:
    """A readable, deterministic tournament id for a firing, e.g. ``nightly-20260101T0300Z``."""
    return f"{schedule_id}-{due.astimezone(UTC):%Y%m%dT%H%MZ}"


def fire_due_schedules(
    store: Store,
    now: datetime,
    fire: FireCallback,
    *,
    holder: str | None = None,
    missed: str | None = None,
) -> list[Firing]:
    """Fire every schedule that is due at ``now``, each due time once across all callers: the firings this call
    claimed (``error`` set where ``fire`` raised; a due time the ``skip`` policy skips is claimed, not returned).
    A malformed stored cron expression is logged and skipped. ``holder`` names this scheduler in the lock."""
    me = holder or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    policy = missed_policy(missed)
    fired: list[Firing] = []
    for schedule in store.schedules.all():
        if not schedule.enabled:
            continue
        try:
            due = parse_cron(schedule.cron).previous(now)
        except CronError as exc:
            log.error("schedule %s: bad cron expression %r: %s", schedule.schedule_id, schedule.cron, exc)
            continue
        stamp = int(due.timestamp())
        if stamp <= schedule.created_at or (schedule.last_due is not None and stamp <= schedule.last_due):
            continue  # due before the schedule existed, or fired already
        try:
            claimed = store.schedules.claim(schedule.schedule_id, stamp, holder=me)
        except UnknownSchedule:  # removed since we listed it
            continue
        if not claimed or not _on_time(schedule, due, now, policy):
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


def _on_time(schedule: Schedule, due: datetime, now: datetime, policy: str) -> bool:
    """Log the due times of ``schedule`` missed before ``due``; ``False`` when the policy skips a late ``due``."""
    cron = parse_cron(schedule.cron)
    since = schedule.last_due if schedule.last_due is not None else schedule.created_at
    start = datetime.fromtimestamp(since, UTC)
    count = 0
    t = cron.next(start)
    while t < due and count < MISSED_COUNT_LIMIT:
        count += 1
        if count <= MISSED_LOG_LIMIT:
            log.warning("schedule %s: missed firing at %s, not fired (only the latest due time is considered)",
                        schedule.schedule_id, t.isoformat())
        t = cron.next(t)
    if count > MISSED_LOG_LIMIT:
        log.warning("schedule %s: %s%d missed firings in all before %s", schedule.schedule_id,
                    "at least " if count >= MISSED_COUNT_LIMIT else "", count, due.isoformat())
    late = (now - due).total_seconds()
    if late <= LATE_AFTER:
        return True
    if policy == "skip":
        log.warning("schedule %s: missed firing at %s (%.0f s late), skipped (missed-firing policy skip)",
                    schedule.schedule_id, due.isoformat(), late)
        return False
    log.warning("schedule %s: firing at %s late by %.0f s (missed-firing policy fire-once-late)",
                schedule.schedule_id, due.isoformat(), late)
    return True


def run_seed(base_seed: int, due: datetime) -> int:
    """The seed of a scheduled run: 0 (the arena draws a secret one) for a template seed of 0, else one derived from
    the template seed and the due time. Either way the run's deals also derive from its own fresh secret."""
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


def fire_due(
    store: Store, enqueue: Enqueuer, now: datetime, *, holder: str | None = None, missed: str | None = None
) -> list[Firing]:
    """:func:`fire_due_schedules` with the tournament service's ``fire`` (:func:`make_fire`)."""
    return fire_due_schedules(store, now, make_fire(store, enqueue), holder=holder, missed=missed)
