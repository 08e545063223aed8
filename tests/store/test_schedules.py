"""Scheduled tournaments fire once per due time, even with several schedulers at once."""

from __future__ import annotations

import json
import threading
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest

from arena.service.schedules import (
    fire_due_schedules,
    tournament_id_for,
    tournament_idempotency_key,
)
from arena.store import DuplicateSchedule, Schedule, Store, UnknownSchedule
from arena.tournament.cron import CronError, parse_cron

CREATED = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
SPEC = {"participants": ["a", "b"], "variant": "flip"}


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 1, day, hour, minute, tzinfo=UTC)


def make(store: Store, sid: str, cron: str, **kw: Any) -> None:
    store.schedules.add(sid, cron, SPEC, created_at=CREATED, **kw)


def set_enabled(store: Store, sid: str, enabled: bool) -> None:
    """Switch a stored schedule on or off (no command does: a schedule is made enabled)."""
    store.redis.hset(store.keys.schedule(sid), "enabled", "1" if enabled else "0")


def test_two_concurrent_schedulers_fire_each_due_time_once(redis_server: Any, store: Store) -> None:
    for i in range(6):
        make(store, f"s{i}", "0 3 * * *")
    calls: Counter[tuple[str, datetime]] = Counter()
    lock = threading.Lock()

    def fire(schedule: Schedule, due: datetime) -> None:
        with lock:
            calls[(schedule.schedule_id, due)] += 1

    schedulers = [Store.from_url(redis_server.url) for _ in range(2)]
    rounds = 20
    barrier = threading.Barrier(2)

    def scheduler(s: Store, name: str) -> None:
        for r in range(rounds):
            barrier.wait()  # both tick at the same instant
            now = at(2 + r // 4, 3, 5 * (r % 4))  # four ticks per due time, then the next day
            fire_due_schedules(s, now, fire, holder=name)

    threads = [threading.Thread(target=scheduler, args=(s, f"sched-{n}")) for n, s in enumerate(schedulers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in schedulers:
        s.close()
    expected = {(f"s{i}", at(d, 3)) for i in range(6) for d in range(2, 7)}
    assert set(calls) == expected
    assert all(n == 1 for n in calls.values()), calls


def test_not_due_before_creation_and_catch_up_once(store: Store) -> None:
    make(store, "nightly", "0 3 * * *")
    fired: list[datetime] = []
    assert fire_due_schedules(store, at(1, 2), lambda s, due: fired.append(due)) == []  # before creation
    done = fire_due_schedules(store, at(5, 12), lambda s, due: fired.append(due))  # down for days
    assert fired == [at(5, 3)] and [f.ok for f in done] == [True]
    assert fire_due_schedules(store, at(5, 23), lambda s, due: fired.append(due)) == []
    assert store.schedules.get("nightly").last_due == int(at(5, 3).timestamp())
    claim = store.redis.get(store.keys.schedule_fired("nightly", int(at(5, 3).timestamp())))
    assert claim is not None and json.loads(claim)["holder"]


def test_missed_firings_are_logged_and_the_policy_decides_the_late_one(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    make(store, "late", "0 3 * * *")
    make(store, "skipped", "0 3 * * *")
    fired: list[tuple[str, datetime]] = []

    def fire(s: Schedule, due: datetime) -> None:
        fired.append((s.schedule_id, due))

    with caplog.at_level("WARNING", logger="arena.service.schedules"):
        fire_due_schedules(store, at(1, 2), fire)  # nothing due yet (created Jan 1st, 00:00)
        assert not caplog.records
        for sid, policy in (("late", "fire-once-late"), ("skipped", "skip")):
            set_enabled(store, "skipped" if sid == "late" else "late", False)
            set_enabled(store, sid, True)
            fire_due_schedules(store, at(5, 12), fire, missed=policy)  # down: 5 due times, 1st to 5th
    assert fired == [("late", at(5, 3))]  # fired once, late; nothing of "skipped"
    text = [r.getMessage() for r in caplog.records]
    for sid in ("late", "skipped"):
        missed = [t for t in text if t.startswith(f"schedule {sid}: missed firing at")]
        assert len(missed) == 4 + (sid == "skipped"), text  # the 1st to the 4th (and the skipped 5th)
    assert any("late: firing at 2026-01-05T03:00:00+00:00 late by" in t and "fire-once-late" in t for t in text)
    assert any("skipped: missed firing at 2026-01-05T03:00:00+00:00" in t and "policy skip" in t for t in text)
    # The skipped due time is claimed: no later tick fires it.
    assert store.schedules.get("skipped").last_due == int(at(5, 3).timestamp())
    assert fire_due_schedules(store, at(5, 13), fire, missed="skip") == []
    # On time (within LATE_AFTER), the skip policy fires as usual, with no warning.
    caplog.clear()
    with caplog.at_level("WARNING", logger="arena.service.schedules"):
        done = fire_due_schedules(store, at(6, 3, 1), fire, missed="skip")
    assert [f.schedule_id for f in done] == ["skipped"] and not caplog.records
    with pytest.raises(ValueError, match="missed-firing policy"):
        fire_due_schedules(store, at(6, 3, 1), fire, missed="sometimes")


def test_a_failed_firing_is_retried(store: Store) -> None:
    make(store, "flaky", "0 * * * *")
    attempts: list[datetime] = []

    def fire(schedule: Schedule, due: datetime) -> None:
        attempts.append(due)
        if len(attempts) == 1:
            raise RuntimeError("queue unavailable")

    first = fire_due_schedules(store, at(2, 10, 30), fire)
    assert [(f.ok, f.error) for f in first] == [(False, "RuntimeError: queue unavailable")]
    assert store.schedules.get("flaky").last_due is None
    second = fire_due_schedules(store, at(2, 10, 31), fire)
    assert [f.ok for f in second] == [True]
    assert attempts == [at(2, 10), at(2, 10)]


def test_disabled_and_bad_schedules_do_not_fire(store: Store) -> None:
    make(store, "off", "* * * * *", enabled=False)
    store.schedules.add("broken", "not a cron", SPEC, created_at=CREATED)  # bypassing validation
    fired: list[str] = []
    assert fire_due_schedules(store, at(3, 3), lambda s, d: fired.append(s.schedule_id)) == []
    set_enabled(store, "off", True)
    fire_due_schedules(store, at(3, 3), lambda s, d: fired.append(s.schedule_id))
    assert fired == ["off"]


def test_a_schedule_is_stored_once_with_its_cron_checked(store: Store) -> None:
    with pytest.raises(CronError, match="minute: 61 is out of range"):
        parse_cron("61 * * * *")
    s = store.schedules.add("good", parse_cron(" 0 3 * * * ").expr, SPEC)
    assert s.cron == "0 3 * * *" and store.schedules.get("good").spec == SPEC
    with pytest.raises(DuplicateSchedule, match="'good' already exists"):
        store.schedules.add("good", "0 3 * * *", SPEC)
    assert [x.schedule_id for x in store.schedules.all()] == ["good"]
    assert store.schedules.remove("good")
    with pytest.raises(UnknownSchedule):
        store.schedules.get("good")


def test_firing_helpers_make_the_tournament_idempotent(store: Store) -> None:
    make(store, "nightly", "0 3 * * *")

    def fire(schedule: Schedule, due: datetime) -> None:
        store.tournaments.create(
            tournament_id_for(schedule.schedule_id, due),
            schedule.spec,
            idempotency_key=tournament_idempotency_key(schedule.schedule_id, due),
        )

    fire_due_schedules(store, at(2, 4), fire)
    fire(store.schedules.get("nightly"), at(2, 3))  # a duplicate firing by hand changes nothing
    assert store.tournaments.ids() == ["nightly-20260102T0300Z"]
    assert tournament_idempotency_key("nightly", at(2, 3)) == f"schedule:nightly:{int(at(2, 3).timestamp())}"
