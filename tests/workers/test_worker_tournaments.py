"""Tournaments on a real Celery worker (celery.contrib.testing) and a real Redis: clean run, a batch
delivered twice, the completeness check re-sending lost matches, finishing, ratings."""

from __future__ import annotations

from typing import Any

from celery import Celery

from arena.service.lifecycle import (
    Settings,
    check_tournament,
    create_tournament,
    start_tournament,
    tournament_table,
)
from arena.store import Store
from arena.store.runstate import RunState
from arena.tournament import schedule
from workers.enqueue import BATCH_TASK, START_TASK, CeleryEnqueuer

from .helpers import (
    assert_exactly_once,
    clean_standings,
    small_spec,
    stored_spec,
    wait_finished,
    worker_standings,
)


def test_tournament_runs_to_the_end_on_a_real_worker(app: Celery, worker: Any, store: Store) -> None:
    spec = small_spec("t-clean", bots=("random", "heuristic", "random#2", "heuristic#2"), duplicate=True)
    create_tournament(store, spec)
    app.send_task(START_TASK, args=[spec.tournament_id])
    wait_finished(store, spec.tournament_id)

    assert_exactly_once(store, spec)
    assert worker_standings(store, spec.tournament_id) == clean_standings(stored_spec(store, spec))
    # Ratings persisted once under the rating pool, standings cached as final.
    pool = store.ratings.get(spec.rating_pool)
    assert pool is not None and pool.tournaments == (spec.tournament_id,)
    assert pool.applied == len(schedule(spec))
    cached = store.standings.get(spec.tournament_id)
    assert cached is not None and cached.standings.final is True
    assert cached.as_of == len(schedule(spec))
    # Every match has its replay (the compact record) and a replayable engine record.
    some = schedule(spec)[0].match_id
    replay = store.replays.load(some)
    assert replay is not None and replay.match_id == some and replay.engine.actions
    # A second check (a late or duplicated message) changes nothing.
    again = check_tournament(store, spec.tournament_id, CeleryEnqueuer(app), Settings())
    assert again.status == "finished"
    assert store.ratings.get(spec.rating_pool) == pool


class TwiceEnqueuer(CeleryEnqueuer):
    """Delivers every batch message twice, as a redelivery after a lost acknowledgement would."""

    def batch(self, tournament_id: str, batch_id: str, match_ids: list[str]) -> None:
        super().batch(tournament_id, batch_id, match_ids)
        super().batch(tournament_id, batch_id, match_ids)


def test_a_batch_delivered_twice_scores_nothing_twice(app: Celery, worker: Any, store: Store) -> None:
    spec = small_spec("t-twice", deals=3)
    create_tournament(store, spec)
    start_tournament(store, spec.tournament_id, TwiceEnqueuer(app), Settings.from_conf(app.conf))
    wait_finished(store, spec.tournament_id)
    # One more copy of a whole batch after the end: still nothing counted twice.
    app.send_task(BATCH_TASK, args=[spec.tournament_id, "b00000", [m.match_id for m in schedule(spec)]])
    app.send_task(START_TASK, args=[spec.tournament_id])
    wait_finished(store, spec.tournament_id)

    assert_exactly_once(store, spec)
    assert worker_standings(store, spec.tournament_id) == clean_standings(stored_spec(store, spec))
    pool = store.ratings.get(spec.rating_pool)
    assert pool is not None and pool.tournaments == (spec.tournament_id,)


class LosingEnqueuer(CeleryEnqueuer):
    """Drops the first two batch messages, as a batch killed by the hard time limit would be lost."""

    def __init__(self, app: Celery) -> None:
        super().__init__(app)
        self.dropped: list[str] = []

    def batch(self, tournament_id: str, batch_id: str, match_ids: list[str]) -> None:
        if len(self.dropped) < 2 and batch_id.startswith("b"):
            self.dropped.append(batch_id)
            _mark_dead(self.app, tournament_id, batch_id)
            return
        super().batch(tournament_id, batch_id, match_ids)


def _mark_dead(app: Celery, tournament_id: str, batch_id: str) -> None:
    """The batch started (a heartbeat long ago) and its process died: nobody will finish it."""
    from workers.celery_app import get_store

    RunState(get_store(app), tournament_id).mark(batch_id, "running", now=0.0)


def test_lost_batches_are_re_sent_by_the_completeness_check(app: Celery, worker: Any, store: Store) -> None:
    spec = small_spec("t-lost", deals=2)
    create_tournament(store, spec)
    enqueue = LosingEnqueuer(app)
    start_tournament(store, spec.tournament_id, enqueue, Settings.from_conf(app.conf))
    assert len(enqueue.dropped) == 2
    # The self-rescheduling check (every 0.5 s here) notices the dead batches and re-sends them.
    wait_finished(store, spec.tournament_id)
    assert_exactly_once(store, spec)
    assert worker_standings(store, spec.tournament_id) == clean_standings(stored_spec(store, spec))


def test_tournament_table_counts_per_bot_and_leaves_aborted_matches_unscored(
    app: Celery, worker: Any, store: Store
) -> None:
    spec = small_spec("t-table", deals=1)
    create_tournament(store, spec)
    app.send_task(START_TASK, args=[spec.tournament_id])
    wait_finished(store, spec.tournament_id)
    table = tournament_table(store, spec.tournament_id)
    assert set(table.timeouts) == set(spec.participants)
    assert all(v == 0 for v in table.timeouts.values())  # built-in bots never time out
    assert table.standings.matches == len(schedule(spec)) == len(table.scored)
