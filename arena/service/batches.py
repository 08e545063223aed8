"""Batches: how a tournament's matches are cut into batch tasks (guided self-scheduling), and releasing them (each
batch recorded as queued in the run state, then its message sent); starting a tournament is its first release."""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Mapping, Sequence

from arena.store import Store
from arena.store.runstate import RunState
from arena.tournament import MatchSpec, TournamentSpec, schedule
from arena.tournament import batches as split_batches
from arena.tournament.status import ACTIVE_TOURNAMENT, TournamentStatus

from .enqueuer import Enqueuer
from .matches import is_builtin
from .runtime import NO_METRICS, MetricsSink, Settings
from .standings_cache import prior_pool


def auto_batch_size(total: int, settings: Settings, remote: bool) -> int:
    """The largest batch (matches per task) for a tournament of ``total`` matches."""
    if settings.batch_size > 0:
        return settings.batch_size
    guided = math.ceil(total / GUIDED_DIVISOR)
    if not remote:
        return max(1, min(LOCAL_BATCH_CAP, guided))
    return max(1, min(max(REMOTE_BATCH_CAP, 4 * settings.matches_per_process),
                      max(smallest_batch(settings, remote), guided)))


LOCAL_BATCH_CAP = 25
REMOTE_BATCH_CAP = 4
"""The largest remote batch with one match at a time per process; with more, four times the process's limit (and at
least twice it): a prefork child holds one batch, which must hold more matches than places, or the child idles
through the end of every batch and its dispatcher has no choice while matches wait for slots."""
GUIDED_DIVISOR = 8
"""Batches shrink as ``remaining / 8``: even split across up to eight workers towards the end."""
GUIDED_FLOOR = 4
"""The smallest batch of the guided split (but for the last one): every task costs milliseconds of messaging
(measured: 240 quick matches in 52 batches 7% slower on one worker than in 10)."""


def smallest_batch(settings: Settings, remote: bool) -> int:
    """The guided split's floor: for a remote batch twice what a worker child plays at once, else
    :data:`GUIDED_FLOOR`."""
    return 2 * settings.matches_per_process if remote and settings.matches_per_process > 1 else GUIDED_FLOOR


def split_guided(matches: Sequence[MatchSpec], largest: int, *, fixed: bool = False,
                 smallest: int = GUIDED_FLOOR) -> list[list[MatchSpec]]:
    """Consecutive batches that shrink towards the end (guided self-scheduling), so workers finish together: each
    takes ``ceil(remaining / GUIDED_DIVISOR)`` matches, at most ``largest`` and at least ``smallest``. ``fixed``:
    every batch ``largest`` (a configured size)."""
    if fixed:
        return split_batches(list(matches), largest) if matches else []
    out: list[list[MatchSpec]] = []
    start = 0
    smallest = max(1, min(smallest, largest))
    while start < len(matches):
        size = max(smallest, min(largest, math.ceil((len(matches) - start) / GUIDED_DIVISOR)))
        out.append(list(matches[start : start + size]))
        start += size
    return out


def release_batches(run: RunState, enqueue: Enqueuer, named: Mapping[str, Sequence[MatchSpec]],
                    now: float | None = None) -> None:
    """Record the batches (id -> matches) as queued, then send one message per batch (its match ids)."""
    match_ids = {bid: [m.match_id for m in group] for bid, group in named.items()}
    run.add_batches(match_ids, now=now)
    for bid, ids in match_ids.items():
        enqueue.batch(run.tid, bid, ids)


def start_tournament(
    store: Store, tournament_id: str, enqueue: Enqueuer, settings: Settings, metrics: MetricsSink = NO_METRICS
) -> TournamentStatus:
    """Expand and send a tournament's batches (idempotent); returns its status afterwards."""
    record = store.tournaments.get(tournament_id)
    if record.status not in ACTIVE_TOURNAMENT:
        return record.status
    run = RunState(store, tournament_id)
    try:
        spec = TournamentSpec.from_dict(record.spec)
    except (ValueError, TypeError) as exc:
        run.set(detail=f"invalid spec: {exc}")
        store.tournaments.set_status(tournament_id, TournamentStatus.FAILED, expected=ACTIVE_TOURNAMENT)
        return TournamentStatus.FAILED
    matches = schedule(spec)
    store.tournaments.add_matches(tournament_id, [m.match_id for m in matches])
    if run.prior() is None:
        run.keep_prior(prior_pool(store, spec))
    run.set_once("started_at", repr(time.time()))
    store.tournaments.set_status(tournament_id, TournamentStatus.RUNNING, expected=(TournamentStatus.PENDING,))
    if run.get("enqueued") != "1":
        remote = any(not is_builtin(n) for n in spec.participants)
        size = auto_batch_size(len(matches), settings, remote)
        run.set_once("batch_size", size)
        recorded = store.results.recorded(tournament_id)
        todo = [m for m in matches if m.match_id not in recorded]
        groups = split_guided(todo, size, fixed=settings.batch_size > 0, smallest=smallest_batch(settings, remote))
        release_batches(run, enqueue, {f"b{i:05d}": group for i, group in enumerate(groups)})
        run.set(enqueued="1")
    progress = store.results.progress(tournament_id)
    metrics.set_matches_remaining(tournament_id, progress.scheduled - progress.done)
    start_check_chain(store, tournament_id, enqueue, settings)
    return store.tournaments.status(tournament_id)


def start_check_chain(store: Store, tournament_id: str, enqueue: Enqueuer, settings: Settings) -> None:
    """Start a new self-rescheduling completeness check; an older chain stops at its next run."""
    token = uuid.uuid4().hex[:16]
    RunState(store, tournament_id).set(check_token=token, checked_at=repr(time.time()))
    enqueue.check(tournament_id, token, settings.check_interval)
