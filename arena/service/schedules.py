"""Firing scheduled (cron) tournaments exactly once, however many schedulers run.

:func:`fire_due_schedules` is meant to run every minute or so (from a Celery beat entry, or
any loop) in as many processes as one likes. For each enabled schedule it finds the latest due
time at or before ``now`` (so a scheduler that was down fires the missed time once on its return,
not every missed time), claims ``(schedule id, due time)`` in Redis
(:meth:`arena.store.ScheduleStore.claim`: ``SET NX`` plus a ``last_due`` that only moves
forward), and only the claimant calls ``fire``. If ``fire`` raises, the claim is released so the
next tick tries again; ``fire`` should therefore be idempotent itself, which
:func:`tournament_idempotency_key` makes easy (create the tournament under that key).

Missed firings (the schedulers were all down, or Redis was) follow the policy ``missed``
(:data:`MISSED_POLICIES`; the Celery setting ``arena_missed_firings``, environment
``UNO_ARENA_MISSED_FIRINGS``):

* ``fire-once-late`` (the default): the latest due time is fired on return, even late; earlier missed due
  times are not fired (a scheduler down for a day starts one tournament, not 24);
* ``skip``: a due time older than :data:`LATE_AFTER` seconds is not fired either; the schedule waits for its
  next due time.

Either way the claimant logs one warning per missed due time (up to :data:`MISSED_LOG_LIMIT`, then a count)
and one for the late or skipped latest one, so no firing disappears without a line in the log.

:func:`fire_due` is that with the tournament service's ``fire`` (:func:`make_fire`): a scheduled tournament
is created under the idempotency key ``schedule:{schedule id}:{due epoch}`` with the id
``{schedule id}-{YYYYmmddTHHMMZ}``; its seed is a fresh secret random one when the template's seed is 0,
else derived from the template's seed and the due time (:func:`run_seed`), and every run gets its own fresh
secret (:func:`arena.service.lifecycle.create_tournament`), so no run's deals can be predicted from the
template seed or from an earlier run's revealed seed and secret; each run reproduces from its own. Schedule
ids have no ``:`` (:func:`arena.store.keys.check_name`), so the run's idempotency key (always with ``:``) is
never one a user can send.

:func:`delete_schedule` removes a schedule for good (``uno-arena schedule delete``): no further firing.
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
    """Remove a schedule: it fires no further tournament (those it started go on; a scheduler that listed it
    just before finds it gone when it claims). Returns the schedule as it was; raises
    :class:`~arena.store.UnknownSchedule`."""
    schedule = store.schedules.get(schedule_id)
    if not store.schedules.remove(schedule_id):
        raise UnknownSchedule(schedule_id)
    return schedule


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
    missed: str | None = None,
) -> list[Firing]:
    """Fire every schedule that is due at ``now``, each due time once across all callers.

    Returns the firings this call claimed (with ``error`` set where ``fire`` raised; those are
    released for a retry; a late due time skipped by the ``skip`` policy is claimed but neither fired nor
    returned). Schedules with a malformed stored cron expression are logged and skipped. ``holder`` names
    this scheduler in the lock (default: host, pid and a random tag). ``missed``: the missed-firing policy
    (:func:`missed_policy`).
    """
    me = holder or default_holder()
    policy = missed_policy(missed)
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
        if not _on_time(schedule, due, now, policy):
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
    """Log the due times of ``schedule`` missed before ``due`` (claimed by this caller), and whether ``due``
    itself is late; ``False`` when the policy skips it."""
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
    """The seed of a scheduled run.

    A template seed of 0 (the default) gives 0: the arena draws a fresh secret random seed for each run when
    it creates the run's tournament (:func:`arena.service.lifecycle.choose_seed`), so no run's seed can be
    predicted from the schedule id or the due time. An explicit template seed gives a seed derived from it
    and the due time. Whoever knows the template seed can compute every run's seed, but not its deals: they
    derive from the seed and the run's own secret, drawn fresh when the run is created.
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


def fire_due(
    store: Store, enqueue: Enqueuer, now: datetime, *, holder: str | None = None, missed: str | None = None
) -> list[Firing]:
    """Fire every schedule due at ``now`` (each due time once across all schedulers); ``missed``: the
    missed-firing policy (:func:`missed_policy`)."""
    return fire_due_schedules(store, now, make_fire(store, enqueue), holder=holder, missed=missed)
