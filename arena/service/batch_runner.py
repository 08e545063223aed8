"""Running one batch task: every match of the batch without a result is played and recorded once, many at once, while
a heartbeat keeps the batch alive and renews the claims of its matches in flight and their bots' slots. Matches start
as their remote bots' slots allow (:func:`arena.tournament.dispatch.matches_to_start`), each played and recorded from
a thread of its own; a child with room that no waiting match can use adopts the tournament's next queued batch
(docs/architecture.md, "Many matches per child"). A Redis command refused or lost is retried with a back-off."""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arena.store import Replay, Store, StoredResult, StoreFailure, failure_kind
from arena.store.runstate import RunState
from arena.tournament import MatchSpec, schedule
from arena.tournament.dispatch import WaitingMatch, matches_to_start
from arena.tournament.status import ENDED_TOURNAMENT, BatchStatus, TournamentStatus

from .enqueuer import Enqueuer
from .matches import aborted_result, is_builtin
from .recovery import check_tournament
from .runtime import NO_METRICS, MatchCancelled, MetricsSink, Settings, publish_remaining, retrying
from .tournaments import spec_of

log = logging.getLogger("arena.service.lifecycle")

CLAIM_POLL = 0.5
DISPATCH_POLL = 0.1
"""Seconds between two looks for free slots while matches of the batch wait (a slot freed in another process)."""
BUILTIN_SHARE = 1
"""Matches of built-in bots only in flight at once in a batch: they are CPU-bound and played on the process's own
event loop (yielding every few decisions), so one keeps the CPU busy and leaves every other place to remote
matches, which mostly wait for their bots."""


class Heartbeat:
    """A daemon thread that keeps a batch (and the batches it adopted) marked alive while the task lives, and renews
    the claims of its matches in flight (``claim_ttl`` seconds) and their bots' slots. A beat that fails is logged
    and counted (``uno_arena_store_errors_total{where="heartbeat"}``); the next one retries."""

    def __init__(self, run: RunState, batch_id: str, interval: float, *, metrics: MetricsSink, claim_ttl: float
                 ) -> None:
        self._run, self._bid, self._interval = run, batch_id, interval
        self._metrics = metrics
        self._claim_ttl = claim_ttl
        self._claims: dict[str, str] = {}
        self._slots: dict[str, frozenset[str]] = {}
        self.adopted: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"heartbeat-{batch_id}", daemon=True)

    def hold(self, match_id: str, token: str | None) -> None:
        """Renew the claim of ``match_id`` with every beat; ``None``: no more."""
        with self._lock:
            if token is None:
                self._claims.pop(match_id, None)
            else:
                self._claims[match_id] = token

    def adopt(self, batch_id: str) -> None:
        with self._lock:
            self.adopted.append(batch_id)

    def hold_slots(self, match_id: str, bots: frozenset[str] | None) -> None:
        """Renew the slots ``match_id`` holds of ``bots`` with every beat; ``None``: no more."""
        with self._lock:
            if bots is None:
                self._slots.pop(match_id, None)
            elif bots:
                self._slots[match_id] = bots

    def __enter__(self) -> Heartbeat:
        self._beat()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self._interval + 5)

    def _beat(self) -> None:
        try:
            self._run.mark(self._bid, BatchStatus.RUNNING)
            with self._lock:
                claims, slots, adopted = list(self._claims.items()), list(self._slots.items()), list(self.adopted)
            for batch_id in adopted:
                self._run.mark(batch_id, BatchStatus.ADOPTED)
            self._run.renew_all(claims, self._claim_ttl)
            if slots:
                self._run.store.slots.renew(slots, self._claim_ttl)
        except StoreFailure as exc:  # Redis restarting or refusing writes: the next beat will do
            kind = failure_kind(exc)
            self._metrics.record_store_error(kind, "heartbeat")
            log.warning("heartbeat of batch %s failed (%s): %s", self._bid, kind, exc)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self._beat()


PlayFn = Callable[[MatchSpec], tuple[StoredResult, Replay]]
"""Plays one match and returns ``(result, replay)`` to store."""


@dataclass
class BatchOutcome:
    recorded: int = 0
    skipped: int = 0
    aborted: int = 0
    left: int = 0
    """Matches left without a result (failed attempts): the check re-sends them at once."""
    stopped: bool = False


def run_batch(
    store: Store,
    tournament_id: str,
    batch_id: str,
    match_ids: Sequence[str],
    play: PlayFn,
    settings: Settings,
    *,
    metrics: MetricsSink = NO_METRICS,
    enqueue: Enqueuer | None = None,
    stop_on: tuple[type[BaseException], ...] = (),
    cancel: Callable[[], None] | None = None,
) -> BatchOutcome:
    """Play every match of the batch (found in the tournament's schedule) that has no result yet, recording each once;
    ``play`` may be called from several threads at once. ``stop_on``: exceptions (the soft time limit) after which
    the batch starts no further match, stops the ones in flight (``cancel`` makes each ``play`` raise
    :class:`MatchCancelled`), marks itself ``stopped`` (the completeness check re-sends what is left) and returns."""
    outcome = BatchOutcome()
    status, created = store.tournaments.status_and_created([tournament_id])[tournament_id]
    if status is None:
        log.warning("batch %s of unknown tournament %s dropped", batch_id, tournament_id)
        return outcome
    run = RunState(store, tournament_id)
    if status.ended:
        run.mark(batch_id, BatchStatus.DONE)
        return outcome
    if not retrying(functools.partial(run.take, batch_id, settings.heartbeat_timeout), f"batch {batch_id}", settings,
                    metrics):
        log.info("batch %s of %s is played by another worker child (adopted): its message is dropped", batch_id,
                 tournament_id)
        return outcome
    matches = _scheduled(store, tournament_id, repr(created), match_ids)
    if len(matches) < len(match_ids):
        log.warning("batch %s of %s names %d matches its tournament does not schedule: they are skipped", batch_id,
                    tournament_id, len(match_ids) - len(matches))
    beat = Heartbeat(run, batch_id, settings.heartbeat_interval, metrics=metrics, claim_ttl=settings.heartbeat_timeout)
    batch = _Batch(store, run, batch_id, play, settings, metrics, outcome, beat, stop_on)
    with beat:
        _Dispatch(batch, matches, cancel, repr(created)).run()
    ended = BatchStatus.STOPPED if outcome.stopped or outcome.left else BatchStatus.DONE
    for bid in [batch_id, *beat.adopted]:
        with contextlib.suppress(StoreFailure):
            run.mark(bid, ended)
    if not outcome.stopped and store.results.progress(tournament_id).complete:
        retrying(functools.partial(check_tournament, store, tournament_id, enqueue, settings, metrics=metrics),
                 f"check of {tournament_id}", settings, metrics)
    # A count this process published just before another one finished the tournament would
    # bring its series back (gauges are "most recent" across processes): remove it again.
    publish_remaining(metrics, tournament_id, *run.after(None, False))
    return outcome


def waiting_match(match: MatchSpec) -> WaitingMatch:
    """What the dispatcher needs of a match: its remote bots (key form, each once)."""
    return WaitingMatch(match.match_id, frozenset(name.casefold() for name in match.seats if not is_builtin(name)))


CAPACITY_REFRESH_S = 2.0
"""Seconds a dispatcher keeps the bots' offers (``Hello.max_concurrent_matches``) before reading them again."""

ADOPT_AGAIN_S = 1.0
"""Seconds before a child that found no queued batch to adopt looks again."""


_SCHEDULES: dict[tuple[str, str], dict[str, MatchSpec]] = {}


def _scheduled(store: Store, tournament_id: str, created: str, match_ids: Sequence[str]) -> list[MatchSpec]:
    """The matches of ``match_ids`` the tournament schedules, from its schedule computed once per process (keyed by
    id and creation time: a schedule never changes, but a test may flush Redis and reuse an id)."""
    key = (tournament_id, created)
    found = _SCHEDULES.get(key)
    if found is None:
        if len(_SCHEDULES) >= 8:
            _SCHEDULES.clear()
        found = _SCHEDULES[key] = {m.match_id: m for m in schedule(spec_of(store, tournament_id))}
    return [found[mid] for mid in match_ids if mid in found]


class _Dispatch:
    """Releases a batch's matches as their bots' slots allow and waits for them, adopting queued batches when it has
    room that no waiting match can use."""

    def __init__(self, batch: _Batch, matches: Sequence[MatchSpec], cancel: Callable[[], None] | None,
                 created: str) -> None:
        self.batch = batch
        self.specs = {m.match_id: m for m in matches}
        self.waiting = [waiting_match(m) for m in matches]
        self.cancel = cancel
        self.created = created
        # Only a batch with remote matches adopts: built-in ones are CPU-bound, another child plays them as fast.
        self.adopts = any(not w.builtin_only for w in self.waiting)
        self.next_adoption = 0.0
        self.running: dict[concurrent.futures.Future[bool], WaitingMatch] = {}
        self.stopping = False
        self.error: BaseException | None = None
        self.capacity: dict[str, int] = {}
        self.capacity_until = 0.0

    def run(self) -> None:
        limit = max(1, self.batch.settings.matches_per_process)
        with concurrent.futures.ThreadPoolExecutor(max_workers=limit, thread_name_prefix="match") as threads:
            try:
                while self.waiting or self.running:
                    if not self.stopping:
                        self._start(threads, limit)
                    if not self.running:
                        if self.stopping or not self.waiting:
                            break
                        time.sleep(DISPATCH_POLL)  # every waiting match waits for a slot held elsewhere
                        continue
                    done, _ = concurrent.futures.wait(self.running, timeout=DISPATCH_POLL,
                                                      return_when=concurrent.futures.FIRST_COMPLETED)
                    for future in done:
                        self._finished(future)
            except self.batch.stop_on:
                self.batch.outcome.stopped = True
                self._stop()
                concurrent.futures.wait(self.running)
                for future in list(self.running):
                    self._finished(future)
        if self.error is not None:
            raise self.error

    def _start(self, threads: concurrent.futures.Executor, limit: int) -> None:
        room = limit - len(self.running)
        if room <= 0:
            return
        started = self._release(threads, room)
        # Room left that no waiting match can use now (all wait for slots, or none is left): adopt a queued batch,
        # so the dispatcher picks from more tables (a 4-seat table needs all four of its bots free at once).
        if started < room and self.adopts:
            adopted = self._adopt()
            for match in adopted:
                self.specs[match.match_id] = match
                self.waiting.append(waiting_match(match))
            if adopted:
                self._release(threads, room - started)

    def _adopt(self) -> list[MatchSpec]:
        """The matches of the tournament's first queued batch, now this child's (its heartbeat beats for it)."""
        batch = self.batch
        if time.monotonic() < self.next_adoption:
            return []
        found = batch.retrying(batch.run.adopt, f"adoption by batch {batch.batch_id}")
        if found is None:
            self.next_adoption = time.monotonic() + ADOPT_AGAIN_S
            return []
        batch_id, match_ids = found
        batch.beat.adopt(batch_id)
        log.info("batch %s adopts batch %s (%d matches) of %s", batch.batch_id, batch_id, len(match_ids),
                 batch.run.tid)
        return _scheduled(batch.store, batch.run.tid, self.created, match_ids)

    def _release(self, threads: concurrent.futures.Executor, room: int) -> int:
        """Starts what :func:`matches_to_start` chooses among the waiting matches; returns how many started."""
        batch = self.batch
        if not self.waiting:
            return 0
        builtin_room = BUILTIN_SHARE - sum(1 for w in self.running.values() if w.builtin_only)
        bots = sorted({bot for w in self.waiting for bot in w.bots})
        free, capacity = batch.retrying(functools.partial(batch.store.slots.free, bots, self._capacities(bots)),
                                        "free slots") if bots else ({}, {})
        started = 0
        for chosen in matches_to_start(self.waiting, free, room, builtin_room):
            wanted = {bot: capacity[bot] for bot in chosen.bots}
            reserve = functools.partial(batch.store.slots.reserve, chosen.match_id, wanted,
                                        batch.settings.heartbeat_timeout)
            if not batch.retrying(reserve, f"slots of {chosen.match_id}"):
                continue  # taken by another process meanwhile: next look
            self.waiting.remove(chosen)
            batch.beat.hold_slots(chosen.match_id, chosen.bots)
            self.running[threads.submit(batch.claimed, self.specs[chosen.match_id])] = chosen
            started += 1
        return started

    def _capacities(self, bots: Sequence[str]) -> dict[str, int]:
        """The bots' offers, read again at most every :data:`CAPACITY_REFRESH_S` (the gateway's admission has the
        last word meanwhile)."""
        now = time.monotonic()
        if now >= self.capacity_until or not set(bots) <= self.capacity.keys():
            self.capacity = self.batch.retrying(functools.partial(self.batch.store.slots.capacities, bots),
                                                "capacities")
            self.capacity_until = now + CAPACITY_REFRESH_S
        return {bot: self.capacity[bot] for bot in bots}

    def _finished(self, future: concurrent.futures.Future[bool]) -> None:
        match = self.running.pop(future)
        batch = self.batch
        batch.beat.hold_slots(match.match_id, None)
        if match.bots:
            with contextlib.suppress(StoreFailure):  # else the lease runs out
                batch.store.slots.release(match.match_id, match.bots)
        try:
            go_on = future.result()
        except BaseException as error:  # a Redis failure past its retries, a bug: stop, then raise it
            go_on = False
            if self.error is None:
                self.error = error
        if not go_on and not self.stopping:
            self._stop()

    def _stop(self) -> None:
        """Start nothing more; stop the matches in flight (their attempts are left to the completeness check)."""
        self.stopping = True
        if self.cancel is not None and self.running:
            self.cancel()


@dataclass
class _Batch:
    """One run of a batch: plays and records its matches, each from a thread of its own."""

    store: Store
    run: RunState
    batch_id: str
    play: PlayFn
    settings: Settings
    metrics: MetricsSink
    outcome: BatchOutcome
    beat: Heartbeat
    stop_on: tuple[type[BaseException], ...] = ()
    lock: threading.Lock = field(default_factory=threading.Lock)

    def retrying(self, call: Callable[[], Any], what: str) -> Any:
        return retrying(call, what, self.settings, self.metrics)

    def count(self, name: str) -> None:
        with self.lock:
            setattr(self.outcome, name, getattr(self.outcome, name) + 1)

    def claimed(self, match: MatchSpec) -> bool:
        """Play ``match`` under its claim (a duplicated message waits for the attempt in flight); ``False`` when the
        batch starts no further match."""
        mid = match.match_id
        claim = _claim(self.run, mid, self.settings, self.metrics)
        self.beat.hold(mid, claim)
        try:
            return self.one(match)
        finally:
            self.beat.hold(mid, None)
            with contextlib.suppress(StoreFailure):  # else it expires
                self.run.release(mid, claim)

    def one(self, match: MatchSpec) -> bool:
        """Play and record one claimed match; ``False`` when the batch starts no further match."""
        mid = match.match_id
        recorded, attempts = self.retrying(functools.partial(self.run.begin, mid), f"match {mid}")
        if recorded:
            self.count("skipped")
            return True
        if not attempts:  # the tournament ended (cancelled) meanwhile
            return False
        played = self.attempt(match, attempts)
        if played is None:
            return True
        result, replay = played
        # Retried while Redis refuses writes or is unreachable, under one attempt id: a first call whose
        # reply was lost still answers True, and a match is never counted twice.
        record = functools.partial(self.store.results.record, self.run.tid, mid, result, replay=replay,
                                   attempt=uuid.uuid4().hex)
        wrote = self.retrying(record, f"result of match {mid}")
        if wrote:
            self.count("recorded")
            self.metrics.record_matches_completed(1)
            if not result.scored:
                self.retrying(functools.partial(self.store.results.incr, self.run.tid, "aborted"),
                              f"aborted count of {mid}")
        scheduled, done, status = self.retrying(functools.partial(self.run.after, mid, wrote), f"match {mid}")
        publish_remaining(self.metrics, self.run.tid, scheduled, done, status)
        if status in ENDED_TOURNAMENT and status is not TournamentStatus.FINISHED:
            log.info("batch %s of %s tournament %s: no further match starts", self.batch_id, status, self.run.tid)
            return False  # cancelled (or failed) meanwhile: the matches left are not played
        return True

    def attempt(self, match: MatchSpec, attempts: int) -> tuple[StoredResult, Replay | None] | None:
        """The result (and replay) of this attempt of ``match`` to record; None to leave the match missing."""
        if attempts > self.settings.max_attempts:
            self.count("aborted")
            return aborted_result(match, f"gave up after {attempts - 1} attempts"), None
        replay: Replay | None
        try:
            # Each attempt is distinct for the bots (MatchStarted.attempt): a replay starts afresh.
            result, replay = self.play(replace(match, attempt=attempts))
        except MatchCancelled:  # the batch stops: the completeness check sends the match again
            self.count("left")
            return None
        except Exception as exc:  # a bug or a broken seat: retried up to max_attempts
            log.exception("match %s failed (attempt %d)", match.match_id, attempts)
            result, replay = aborted_result(match, f"{type(exc).__name__}: {exc}"), None
        if not result.scored:
            # An infrastructure fault is not a result: leave the match missing (the completeness check re-sends
            # it) until the last attempt, then record it as aborted so that a poisonous match cannot hold the
            # tournament forever.
            if attempts < self.settings.max_attempts:
                log.warning("match %s aborted (attempt %d): %s", match.match_id, attempts, result.detail)
                self.count("left")
                return None
            self.count("aborted")
        return result, replay


def _claim(run: RunState, match_id: str, settings: Settings, metrics: MetricsSink) -> str:
    """Take the claim of ``match_id`` (:meth:`RunState.claim`), waiting while another attempt holds it."""
    waited = False
    while True:
        token = retrying(functools.partial(run.claim, match_id, settings.heartbeat_timeout), f"claim of {match_id}",
                          settings, metrics)
        if token is not None:
            if waited:
                log.info("match %s: the attempt in flight elsewhere ended; going on", match_id)
            return token
        if not waited:
            log.info("match %s is in flight in another batch (a duplicated message?): waiting for it", match_id)
            waited = True
        time.sleep(CLAIM_POLL)

