"""Running tournaments: the public names of the tournament machinery, in one place.

This is the logic behind the Celery tasks of :mod:`workers.tasks` and the organizer, written against a
:class:`arena.store.Store` and an :class:`Enqueuer` (how follow-up work is sent) so it reads, and can be driven,
without Celery. Each job lives in its own module, re-exported here:

- :mod:`arena.service.runtime`: the timing settings, the enqueuer and metrics protocols, store retries;
- :mod:`arena.service.tournaments`: creating (participants, seed and commitment), cancelling, the seed reveal;
- :mod:`arena.service.batches`: cutting the schedule into batches and releasing them (starting a tournament);
- :mod:`arena.service.batch_runner`: running one batch (heartbeat, claims, recording each match once);
- :mod:`arena.service.recovery`: the completeness check, the pure lost-batch finder, the sweep;
- :mod:`arena.service.standings_cache`: standings, their cache, finishing with the ratings.

Life of a tournament::

    create (organizer: status pending, idempotent by key)
      -> start: expand the schedule (deterministic match ids), store the match ids, snapshot the
         prior ratings, split into batches, record each batch as queued, send one task per batch,
         start the self-rescheduling completeness check; status running
      -> batches: each match not yet recorded is played (built-ins in process, remote bots
         through the relay) and its result written once (HSETNX by match id), with its replay;
         a heartbeat thread keeps the batch marked alive while it runs; one attempt of a match runs
         at a time (a claim per match id, renewed by the heartbeat: a duplicated message waits); a
         Redis command refused or lost is retried with a back-off (``store_retry_timeout``)
      -> check (every ``check_interval`` seconds, after the last batch, and from the scheduler's
         sweep): if every scheduled match has a result, finish; otherwise re-send the missing
         matches whose batch is lost (heartbeat stale, stopped, or nothing recorded for
         ``stall_timeout`` with no live batch)
      -> finish: standings from the scored results (on top of the prior snapshot), cached;
         ratings persisted with ``RatingPool.with_tournament`` (a no-op the second time);
         status finished.

Every step may run twice, concurrently or after a crash, without changing the outcome: results
are written once, the check is idempotent, the ratings update is keyed by tournament id.
"""

from __future__ import annotations

from .batch_runner import BatchOutcome, Heartbeat, PlayFn, run_batch
from .batches import (
    GUIDED_DIVISOR,
    GUIDED_FLOOR,
    LOCAL_BATCH_CAP,
    REMOTE_BATCH_CAP,
    auto_batch_size,
    release_batches,
    split_guided,
    start_check_chain,
    start_tournament,
)
from .enqueuer import Enqueuer
from .recovery import CheckOutcome, LostBatches, check_tournament, find_lost, sweep
from .runtime import MetricsSink, NoMetrics, Settings
from .standings_cache import (
    TournamentTable,
    cached_standings,
    finish_tournament,
    prior_pool,
    standings_record,
    tournament_table,
)
from .tournaments import (
    SeedReveal,
    UnknownParticipants,
    cancel_tournament,
    check_participants,
    choose_seed,
    create_tournament,
    duplicate_orders_for,
    seed_reveal,
    spec_of,
)

__all__ = [
    "GUIDED_DIVISOR", "GUIDED_FLOOR", "LOCAL_BATCH_CAP", "REMOTE_BATCH_CAP", "BatchOutcome",
    "CheckOutcome", "Enqueuer", "Heartbeat", "LostBatches", "MetricsSink", "NoMetrics", "PlayFn", "SeedReveal",
    "Settings", "TournamentTable", "UnknownParticipants", "auto_batch_size", "cached_standings", "cancel_tournament",
    "check_participants", "check_tournament", "choose_seed", "create_tournament", "duplicate_orders_for",
    "find_lost", "finish_tournament",
    "prior_pool", "release_batches", "run_batch", "seed_reveal", "spec_of", "split_guided", "standings_record",
    "start_check_chain", "start_tournament", "sweep", "tournament_table",
]
