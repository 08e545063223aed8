"""Recovery: the completeness check of a tournament (finish it when every match is recorded, else re-send the
matches of lost batches) and the sweep that runs it for every active tournament.

Which batches are lost is :func:`find_lost`, a pure function of plain data, so the rules are tested without Redis:
a batch that stopped or whose heartbeat is older than ``heartbeat_timeout`` (its process died); a batch still
``queued`` whose message has been out of the queue for ``queued_grace`` (taken by a worker that died before it
started); and, with nothing recorded for ``stall_timeout`` and no batch alive, every batch not done.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from arena.store import Store, UnknownTournament
from arena.store.runstate import BatchState, RunState
from arena.tournament import schedule
from arena.tournament.status import ACTIVE_TOURNAMENT, BatchStatus, TournamentStatus

from .batches import auto_batch_size, release_batches, split_guided, start_check_chain
from .enqueuer import Enqueuer
from .runtime import NO_METRICS, MetricsSink, Settings
from .standings_cache import finish_tournament
from .tournaments import spec_of

log = logging.getLogger("arena.service.lifecycle")


@dataclass
class CheckOutcome:
    status: TournamentStatus | None
    """None: no such tournament."""
    missing: int = 0
    resent: int = 0
    finished: bool = False
    locked: bool = False


@dataclass(frozen=True)
class LostBatches:
    """The lost batches, whether the tournament stalled (then every missing match is re-sent), and the new
    ``absent_since`` to keep (None: leave it as it is)."""

    batches: list[str]
    stalled: bool = False
    absent_since: dict[str, float] | None = field(default=None)


def find_lost(states: Mapping[str, BatchState], *, last_progress: float, waiting: set[str] | None,
              absent_since: Mapping[str, float], now: float, settings: Settings) -> LostBatches:
    """The lost batches of a running tournament: ``waiting`` the batches whose messages wait in the queue (None: it
    cannot be seen), ``absent_since`` when each queued batch was first seen out of it."""

    def alive(state: BatchState) -> bool:
        return state.state.played and now - state.ts <= settings.heartbeat_timeout

    if not any(alive(s) for s in states.values()) and now - last_progress > settings.stall_timeout:
        return LostBatches([bid for bid, s in states.items() if s.state is not BatchStatus.DONE], stalled=True)
    lost = [bid for bid, s in states.items() if s.state is BatchStatus.STOPPED
            or (s.state.played and not alive(s))]
    queued = [bid for bid, state in states.items() if state.state is BatchStatus.QUEUED]
    if not queued or waiting is None:
        return LostBatches(lost)
    absent = {bid: float(absent_since.get(bid, now)) for bid in queued if bid not in waiting}
    lost += sorted(bid for bid, since in absent.items() if now - since >= settings.queued_grace)
    return LostBatches(lost, absent_since=absent)


def check_tournament(
    store: Store,
    tournament_id: str,
    enqueue: Enqueuer | None,
    settings: Settings,
    *,
    token: str | None = None,
    metrics: MetricsSink = NO_METRICS,
    now: float | None = None,
) -> CheckOutcome:
    """Finish the tournament if every scheduled match is recorded, else re-send lost matches; idempotent, and a
    short lock keeps two checks from re-sending the same ones. With ``token`` (the self-rescheduling chain), the
    check sends its next run while the token is still the tournament's current one."""
    try:
        status = store.tournaments.status(tournament_id)
    except UnknownTournament:
        return CheckOutcome(None)
    if status.ended:
        return CheckOutcome(status)
    run = RunState(store, tournament_id)
    stamp = time.time() if now is None else now
    lock = run.lock(ttl=max(30.0, settings.check_interval))
    outcome = CheckOutcome(status)
    try:
        if lock is None:
            outcome.locked = True
        elif status is TournamentStatus.PENDING:
            if enqueue is not None:
                enqueue.start(tournament_id)
        else:
            run.set(checked_at=repr(stamp))
            progress = store.results.progress(tournament_id)
            # The counters say when it may be complete; the sets (O(matches)) confirm it.
            missing = store.results.missing(tournament_id) if progress.complete else None
            if missing is not None and not missing:
                finish_tournament(store, tournament_id, metrics=metrics)
                outcome.status, outcome.finished = TournamentStatus.FINISHED, True
            else:
                outcome.missing = len(missing) if missing is not None else progress.scheduled - progress.done
                if enqueue is not None:
                    outcome.resent = _resend_lost(store, run, tournament_id, enqueue, settings, stamp)
    finally:
        if lock is not None:
            run.unlock(lock)
    if token is not None and enqueue is not None and not outcome.finished and run.get("check_token") == token:
        enqueue.check(tournament_id, token, settings.check_interval)
    return outcome


def _last_progress(fields: Mapping[str, str]) -> float:
    """The last result written (by any batch), the start, or the last re-send."""
    return max(float(fields.get(name) or 0.0) for name in ("last_recorded_at", "started_at", "last_resent_at"))


def _waiting(enqueue: Enqueuer, tournament_id: str, states: Mapping[str, BatchState]) -> set[str] | None:
    """The tournament's batches whose messages wait in the queue, when the enqueuer can tell and it matters."""
    if not any(state.state is BatchStatus.QUEUED for state in states.values()):
        return None
    return enqueue.queued_batches(tournament_id)


def _resend_lost(
    store: Store, run: RunState, tournament_id: str, enqueue: Enqueuer, settings: Settings, now: float
) -> int:
    """Re-send the unrecorded matches of lost batches; how many. Only a stalled tournament computes every missing
    match."""
    fields = run.fields()
    states = run.batch_states()
    found = find_lost(states, last_progress=_last_progress(fields), waiting=_waiting(enqueue, tournament_id, states),
                      absent_since=json.loads(fields.get("absent_since") or "{}"), now=now, settings=settings)
    if found.absent_since is not None:
        run.set(absent_since=json.dumps(found.absent_since))
    if found.stalled:
        lost = store.results.missing(tournament_id)
    elif not found.batches:
        return 0
    else:
        members = run.batch_matches(found.batches)
        lost = store.results.without_result(tournament_id, sorted({mid for ids in members.values() for mid in ids}))
    # The lost batches no longer cover anything (a late heartbeat of a live one puts it back).
    for bid in found.batches:
        run.mark(bid, BatchStatus.DONE, now=states[bid].ts)
    run.set(last_resent_at=repr(now))
    if not lost:
        return 0
    todo = [m for m in schedule(spec_of(store, tournament_id)) if m.match_id in lost]
    size = int(fields.get("batch_size") or 0) or auto_batch_size(len(todo), settings, False)
    round_no = run.incr("rescues")
    groups = split_guided(todo, size, fixed=settings.batch_size > 0)
    named = {f"x{round_no:03d}-{i:04d}": group for i, group in enumerate(groups)}
    release_batches(run, enqueue, named, now=now)
    why = ", ".join(f"{bid} ({states[bid].state}, {now - states[bid].ts:.1f} s ago)" for bid in found.batches[:10])
    log.warning(
        "tournament %s: re-sent %d lost match(es) in %d batch(es)%s; lost: %s",
        tournament_id, len(todo), len(named), " (stalled)" if found.stalled else "", why or "-",
    )
    return len(todo)


def sweep(
    store: Store, enqueue: Enqueuer, settings: Settings, *, metrics: MetricsSink = NO_METRICS
) -> dict[str, CheckOutcome]:
    """Check every active tournament once; restart dead check chains and lost starts (a check message lost with a
    killed worker only returns after the visibility timeout). Run by the scheduler."""
    now = time.time()
    out: dict[str, CheckOutcome] = {}
    for tid, (status, created) in store.tournaments.status_and_created(store.tournaments.ids()).items():
        if status not in ACTIVE_TOURNAMENT:
            continue
        if status is TournamentStatus.PENDING:
            if now - created > settings.pending_timeout:
                enqueue.start(tid)
                out[tid] = CheckOutcome(TournamentStatus.PENDING)
            continue
        checked = float(RunState(store, tid).get("checked_at") or 0)
        out[tid] = check_tournament(store, tid, enqueue, settings, metrics=metrics)
        if not out[tid].finished and now - checked > 3 * settings.check_interval:
            start_check_chain(store, tid, enqueue, settings)
    return out
