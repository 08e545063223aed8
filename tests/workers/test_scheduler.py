"""Scheduled tournaments: a cron schedule fires exactly once per due time even with two schedulers."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from celery import Celery

from arena.protocol import arena_pb2, game_pb2
from arena.service.schedules import run_seed, spec_for_run
from arena.store import Store
from tests.support.organizer import OrganizerServer
from workers.scheduler import Scheduler

from .helpers import fast_app, wait_finished


def schedule_request(key: str = "") -> arena_pb2.ScheduleTournamentRequest:
    spec = arena_pb2.TournamentSpec(
        participants=["random", "heuristic"], rules=game_pb2.Rules(target=100), deals_per_table=1, seed=11
    )
    return arena_pb2.ScheduleTournamentRequest(spec=spec, cron="*/10 * * * *", idempotency_key=key)


def tick_together(schedulers: list[Scheduler], now: float) -> None:
    """Every scheduler ticks at the same instant, each in its own thread."""
    barrier = threading.Barrier(len(schedulers))

    def tick(s: Scheduler) -> None:
        barrier.wait()
        s.tick(now)

    threads = [threading.Thread(target=tick, args=(s,)) for s in schedulers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)


def test_two_schedulers_fire_each_due_time_once(
    organizer: OrganizerServer, worker: Any, store: Store, redis_server: Any
) -> None:
    reply = organizer.stub.ScheduleTournament(schedule_request("nightly-1"))
    sid = reply.schedule.schedule_id
    assert organizer.stub.ScheduleTournament(schedule_request("nightly-1")).schedule.schedule_id == sid  # retry
    assert len(store.schedules.all()) == 1
    created = store.schedules.get(sid).created_at
    first_due = datetime.fromtimestamp(created, UTC).replace(second=0, microsecond=0)
    first_due += timedelta(minutes=10 - first_due.minute % 10)
    assert reply.schedule.next_run_at.seconds == int(first_due.timestamp())

    schedulers = [Scheduler(fast_app(redis_server.url), canary_interval=0, holder=f"s{i}") for i in range(2)]
    tick_together(schedulers, first_due.timestamp() - 30)  # not due yet
    assert store.tournaments.ids() == []
    tick_together(schedulers, first_due.timestamp() + 5)
    tick_together(schedulers, first_due.timestamp() + 65)  # the same due time again: nothing
    second_due = first_due + timedelta(minutes=10)
    tick_together(schedulers, second_due.timestamp() + 1)

    ids = store.tournaments.ids()
    assert ids == [f"{sid}-{first_due:%Y%m%dT%H%MZ}", f"{sid}-{second_due:%Y%m%dT%H%MZ}"]
    for tid in ids:
        wait_finished(store, tid)
    seeds = [store.tournaments.get(t).spec["seed"] for t in ids]
    assert seeds == [run_seed(11, first_due), run_seed(11, second_due)] and seeds[0] != seeds[1]


def test_a_run_spec_is_reproducible() -> None:
    due = datetime(2026, 1, 1, 3, 0, tzinfo=UTC)
    template = {"participants": ["a", "b"], "seed": 4, "options": {"target": 100}}
    a = spec_for_run(template, "nightly", due)
    assert a == spec_for_run(template, "nightly", due)
    assert a.tournament_id == "nightly-20260101T0300Z" and a.seed == run_seed(4, due)
    assert spec_for_run(template, "nightly", due + timedelta(days=1)).seed != a.seed


def test_a_schedule_whose_bot_is_gone_is_skipped(app: Celery, store: Store) -> None:
    store.schedules.add("orphan", "* * * * *", {"participants": ["random", "vanished"], "seed": 1}, created_at=0)
    fired = Scheduler(app, canary_interval=0).tick()
    assert [f.schedule_id for f in fired] == ["orphan"] and store.tournaments.ids() == []
