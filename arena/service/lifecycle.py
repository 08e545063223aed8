"""Running tournaments: start, batches of matches, the completeness check, standings and ratings.

This is the logic behind the Celery tasks of :mod:`workers.tasks`, written against a
:class:`arena.store.Store` and an :class:`Enqueuer` (how follow-up work is sent) so it reads, and
can be driven, without Celery.

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

import contextlib
import functools
import json
import logging
import math
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from arena.runner import DEFAULT_INFRA_GRACE_S
from arena.store import CreateResult, Store, StoreFailure, TournamentRecord, UnknownTournament, failure_kind
from arena.store.runstate import BatchState, RunState
from arena.tournament import (
    MatchResult,
    MatchSpec,
    RatingPool,
    Standings,
    TournamentSpec,
    count_matches,
    schedule,
    standings,
)
from arena.tournament import batches as split_batches
from arena.tournament.commitment import SALT_BYTES, seed_commitment
from arena.tournament.leaderboard import tallies_of
from arena.tournament.limits import quoted

from .matches import (
    aborted_result,
    is_builtin,
    is_scored,
    spec_from_wire,
    spec_to_wire,
)

log = logging.getLogger(__name__)

ACTIVE = ("pending", "running")
ENDED = ("finished", "failed", "cancelled")


class UnknownParticipants(ValueError):
    """Participants that are neither built-in bots nor registered bots."""

    def __init__(self, unknown: Sequence[str]) -> None:
        names = ", ".join(quoted(n, 40) for n in unknown[:10])
        if len(unknown) > 10:
            names += f" and {len(unknown) - 10} more"
        super().__init__(
            f"unknown bot(s): {names}; register them first, or use a built-in bot "
            "('random', 'heuristic', optionally tagged like 'random#2')"
        )
        self.unknown = list(unknown)


@dataclass(frozen=True)
class Settings:
    """Timing of the run machinery (``arena_*`` keys of the Celery app's configuration)."""

    check_interval: float = 3.0
    """Seconds between two runs of a tournament's self-rescheduling completeness check."""
    heartbeat_interval: float = 2.0
    """Seconds between heartbeats of a running batch."""
    heartbeat_timeout: float = 12.0
    """A running batch without a heartbeat for this long is lost (its process died): with the check every
    ``check_interval``, a lost in-flight batch is re-sent within about 15 s."""
    queued_grace: float = 10.0
    """A batch still ``queued`` (never started) whose message has not been in the broker's queue for this long
    was lost with the worker that took it (``kill -9`` before the task started): re-sent within about 15 s."""
    stall_timeout: float = 600.0
    """Last resort: with no result recorded for this long and no live batch, every missing match is re-sent."""
    batch_size: int = 0
    """Matches per batch task; 0 chooses from the tournament's size."""
    max_attempts: int = 5
    """A match started this many times without a result is recorded as aborted (not scored)."""
    pending_timeout: float = 60.0
    """The sweep re-sends the start of a tournament pending for this long."""
    store_retry_timeout: float = 300.0
    """Seconds a batch keeps retrying (with a back-off, a log line and a metric each time) a Redis command that
    failed: a write Redis refuses (MISCONF, READONLY, OOM, NOREPLICAS) or a lost connection. After that the batch
    gives up, leaving its unrecorded matches to the completeness check."""
    infra_grace_s: float = DEFAULT_INFRA_GRACE_S
    """How long a match waits for a remote bot the arena could not reach (its gateway gone, Redis unreachable)
    before it is aborted as an infrastructure fault (no strike either way; ``MatchConfig.infra_grace_s``)."""

    @classmethod
    def from_conf(cls, conf: Mapping[str, Any]) -> Settings:
        kwargs: dict[str, Any] = {}
        for name, f in cls.__dataclass_fields__.items():
            value = conf.get(f"arena_{name}")
            if value is not None:
                kwargs[name] = int(value) if f.type in ("int", int) else float(value)
        return cls(**kwargs)


class Enqueuer(Protocol):
    """How follow-up work is sent (Celery in production: :class:`workers.enqueue.CeleryEnqueuer`).

    An enqueuer that can see its queue may also offer ``queued_batches(tournament_id) -> set[str] | None``: the
    ids of the tournament's batches whose messages wait in the queue (None: cannot tell). The completeness check
    then knows a queued batch whose message left the queue without starting was lost (``queued_grace``)."""

    def start(self, tournament_id: str) -> None: ...

    def batch(self, tournament_id: str, batch_id: str, matches: list[list[Any]]) -> None: ...

    def check(self, tournament_id: str, token: str | None, countdown: float) -> None: ...


class MetricsSink(Protocol):
    def record_matches_completed(self, count: int = 1) -> None: ...

    def set_matches_remaining(self, tournament: str, remaining: int) -> None: ...

    def finish_tournament(self, tournament: str) -> None: ...

    def record_store_error(self, kind: str, where: str) -> None: ...


class NoMetrics:
    """A sink that records nothing."""

    def record_matches_completed(self, count: int = 1) -> None:
        pass

    def set_matches_remaining(self, tournament: str, remaining: int) -> None:
        pass

    def finish_tournament(self, tournament: str) -> None:
        pass

    def record_store_error(self, kind: str, where: str) -> None:
        pass


# -- creating ------------------------------------------------------------------------------------


def check_participants(store: Store, participants: Iterable[str]) -> None:
    """Raise :class:`UnknownParticipants` unless every participant is built-in or registered."""
    unknown = [n for n in participants if not is_builtin(n) and not store.bots.exists(n)]
    if unknown:
        raise UnknownParticipants(unknown)


def create_tournament(
    store: Store, spec: TournamentSpec, *, idempotency_key: str | None = None, schedule_id: str = "",
    matches_total: int | None = None,
) -> CreateResult:
    """Validate the participants and create the tournament (status pending), once per key.

    Seed 0 means the arena chooses: a secret random seed (:func:`choose_seed`), stored with the tournament
    (a retry under the same idempotency key returns the stored tournament and seed, never a new one). The
    commitment to the seed (:func:`arena.tournament.commitment.seed_commitment`, with a fresh random salt)
    is stored with it; the seed and the salt stay secret until the tournament ends (:func:`seed_reveal`).
    ``matches_total``: the number of matches when the caller counted them (else counted here), stored so
    that reading the tournament never recomputes its design.

    Nothing is written when validation fails. ``created`` is ``False`` when the idempotency key
    was used before (the first tournament's id is returned).
    """
    check_participants(store, spec.participants)
    requested = spec.to_dict()
    if not spec.seed:
        spec = replace(spec, seed=choose_seed(0))
    salt = secrets.token_bytes(SALT_BYTES)
    extra = {
        "seed_salt": salt.hex(),
        "seed_commitment": seed_commitment(spec.seed, salt),
        "matches_total": str(count_matches(spec) if matches_total is None else matches_total),
    }
    created = store.tournaments.create(spec.tournament_id, spec.to_dict(), idempotency_key=idempotency_key,
                                       requested=requested, extra=extra)
    if created.created and schedule_id:
        RunState(store, created.tournament_id).set_once("schedule_id", schedule_id)
    return created


def choose_seed(seed: int) -> int:
    """The seed of a new tournament: ``seed`` when given (non-zero), else a secret random one from the operating
    system's CSPRNG (:mod:`secrets`; never derived from ids, names, keys or times), 1 to 2**63 - 1."""
    if seed:
        return seed
    return secrets.randbelow(2**63 - 1) + 1


@dataclass(frozen=True)
class SeedReveal:
    """A tournament's seed commitment, and once it ended its seed and salt (0 and empty before)."""

    commitment: str
    revealed: bool
    seed: int = 0
    salt: str = ""


def seed_reveal(record: TournamentRecord) -> SeedReveal:
    """What anyone may know of a tournament's seed: the commitment always; seed and salt once it ended."""
    commitment = record.extra.get("seed_commitment", "")
    if record.status not in ENDED:
        return SeedReveal(commitment, False)
    return SeedReveal(commitment, True, int(record.spec.get("seed", 0)), record.extra.get("seed_salt", ""))


def cancel_tournament(store: Store, tournament_id: str, reason: str) -> bool:
    """Pending or running -> cancelled (workers start no further match), the reason kept as the run's detail;
    ``False`` when the tournament had already ended."""
    if not store.tournaments.set_status(tournament_id, "cancelled", expected=ACTIVE):
        return False
    RunState(store, tournament_id).set(detail=f"cancelled: {reason}", finished_at=repr(time.time()))
    return True


def spec_of(store: Store, tournament_id: str) -> TournamentSpec:
    return TournamentSpec.from_dict(store.tournaments.get(tournament_id).spec)


def auto_batch_size(total: int, settings: Settings, remote: bool) -> int:
    """The largest batch (matches per task) for a tournament of ``total`` matches."""
    if settings.batch_size > 0:
        return settings.batch_size
    cap = REMOTE_BATCH_CAP if remote else LOCAL_BATCH_CAP
    return max(1, min(cap, math.ceil(total / GUIDED_DIVISOR)))


LOCAL_BATCH_CAP = 25
REMOTE_BATCH_CAP = 4
GUIDED_DIVISOR = 8
"""Batches shrink as ``remaining / 8``: even split across up to eight workers towards the end."""
GUIDED_FLOOR = 4
"""The smallest batch of the guided split (but for the last one, or a smaller ``largest``): every task costs
milliseconds of messaging, acknowledgement and bookkeeping, which a tail of one-match batches pays again and
again (measured: 240 quick matches in 52 batches 7% slower on one worker than in 10)."""


def split_guided(matches: Sequence[MatchSpec], largest: int, *, fixed: bool = False) -> list[list[MatchSpec]]:
    """Consecutive batches that shrink towards the end (guided self-scheduling).

    Each batch takes ``ceil(remaining / GUIDED_DIVISOR)`` matches, at most ``largest`` and at least
    :data:`GUIDED_FLOOR` (or ``largest`` if smaller): early batches are big (a task costs a few
    milliseconds of messaging, acknowledgement and pool traffic), the last ones small, so workers
    finish together instead of one of them playing a long last batch while the others idle.
    ``fixed``: every batch ``largest`` (a configured size).
    """
    if fixed:
        return split_batches(list(matches), largest) if matches else []
    out: list[list[MatchSpec]] = []
    start = 0
    smallest = max(1, min(GUIDED_FLOOR, largest))
    while start < len(matches):
        size = max(smallest, min(largest, math.ceil((len(matches) - start) / GUIDED_DIVISOR)))
        out.append(list(matches[start : start + size]))
        start += size
    return out


# -- starting ------------------------------------------------------------------------------------


def start_tournament(
    store: Store, tournament_id: str, enqueue: Enqueuer, settings: Settings, metrics: MetricsSink | None = None
) -> str:
    """Expand and send a tournament's batches (idempotent); returns its status afterwards."""
    metrics = metrics or NoMetrics()
    record = store.tournaments.get(tournament_id)
    if record.status not in ACTIVE:
        return record.status
    run = RunState(store, tournament_id)
    try:
        spec = TournamentSpec.from_dict(record.spec)
    except (ValueError, TypeError) as exc:
        run.set(detail=f"invalid spec: {exc}")
        store.tournaments.set_status(tournament_id, "failed", expected=ACTIVE)
        return "failed"
    matches = schedule(spec)
    store.tournaments.add_matches(tournament_id, [m.match_id for m in matches])
    if run.get("prior") is None:
        run.set_once("prior", json.dumps(prior_pool(store, spec).to_dict(), sort_keys=True))
    run.set_once("started_at", repr(time.time()))
    store.tournaments.set_status(tournament_id, "running", expected=("pending",))
    if run.get("enqueued") != "1":
        remote = any(not is_builtin(n) for n in spec.participants)
        size = auto_batch_size(len(matches), settings, remote)
        run.set_once("batch_size", size)
        recorded = store.results.recorded(tournament_id)
        todo = [m for m in matches if m.match_id not in recorded]
        groups = split_guided(todo, size, fixed=settings.batch_size > 0)
        named = {f"b{i:05d}": group for i, group in enumerate(groups)}
        run.add_batches({bid: [m.match_id for m in group] for bid, group in named.items()})
        for bid, group in named.items():
            enqueue.batch(tournament_id, bid, [spec_to_wire(m) for m in group])
        run.set(enqueued="1")
    progress = store.results.progress(tournament_id)
    metrics.set_matches_remaining(tournament_id, progress.scheduled - progress.done)
    start_check_chain(store, tournament_id, enqueue, settings)
    return store.tournaments.status(tournament_id)


def prior_pool(store: Store, spec: TournamentSpec) -> RatingPool:
    """The persisted ratings of the spec's participants in its rating pool (a fresh pool if none)."""
    key = spec.rating_pool
    stored = store.ratings.get(key)
    pool = RatingPool.from_dict(stored) if stored else RatingPool(key=key)
    keep = set(spec.participants)
    return RatingPool(
        key=key,
        ratings={b: r for b, r in pool.ratings.items() if b in keep},
        mu=pool.mu,
        sigma=pool.sigma,
        beta=pool.beta,
        tau=pool.tau,
    )


def start_check_chain(store: Store, tournament_id: str, enqueue: Enqueuer, settings: Settings) -> None:
    """Start a new self-rescheduling completeness check; an older chain stops at its next run."""
    token = uuid.uuid4().hex[:16]
    RunState(store, tournament_id).set(check_token=token, checked_at=repr(time.time()))
    enqueue.check(tournament_id, token, settings.check_interval)


# -- batches -------------------------------------------------------------------------------------


class Heartbeat:
    """A daemon thread that keeps a batch marked ``running`` while the batch task lives, and renews the
    claim of the match in flight (:meth:`RunState.claim`, ``claim_ttl`` seconds).

    A beat that fails (Redis restarting, refusing writes) is logged and counted
    (``uno_arena_store_errors_total{where="heartbeat"}``); the next beat retries."""

    def __init__(
        self, run: RunState, batch_id: str, interval: float, *, metrics: MetricsSink | None = None,
        claim_ttl: float = 60.0,
    ) -> None:
        self._run, self._bid, self._interval = run, batch_id, interval
        self._metrics = metrics or NoMetrics()
        self._claim_ttl = claim_ttl
        self._claim: tuple[str, str] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"heartbeat-{batch_id}", daemon=True)

    def hold(self, match_id: str, token: str | None) -> None:
        """Renew the claim of ``match_id`` (``token`` from :meth:`RunState.claim`) with every beat; ``None``: none."""
        self._claim = None if token is None else (match_id, token)

    def __enter__(self) -> Heartbeat:
        self._beat()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self._interval + 5)

    def _beat(self) -> None:
        try:
            self._run.mark(self._bid, "running")
            claim = self._claim
            if claim is not None:
                self._run.renew(claim[0], claim[1], self._claim_ttl)
        except StoreFailure as exc:  # Redis restarting or refusing writes: the next beat will do
            kind = failure_kind(exc)
            self._metrics.record_store_error(kind, "heartbeat")
            log.warning("heartbeat of batch %s failed (%s): %s", self._bid, kind, exc)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self._beat()


_SPECS: dict[tuple[str, str], tuple[TournamentSpec, dict[str, Any]]] = {}


def _cached_spec(store: Store, tournament_id: str, created_at: str) -> tuple[TournamentSpec, dict[str, Any]]:
    """A tournament's spec and rules, parsed once per process (keyed by id and creation time:
    a spec never changes, but a test may flush Redis and reuse an id)."""
    key = (tournament_id, created_at)
    found = _SPECS.get(key)
    if found is None:
        spec = spec_of(store, tournament_id)
        if len(_SPECS) >= 64:
            _SPECS.clear()
        found = _SPECS[key] = (spec, spec.rules)
    return found


PlayFn = Callable[[MatchSpec], tuple[dict[str, Any], dict[str, Any]]]
"""Plays one match and returns ``(result, replay)`` to store."""


@dataclass
class BatchOutcome:
    """What one run of a batch did."""

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
    wire: Sequence[Sequence[Any]],
    play: PlayFn,
    settings: Settings,
    *,
    metrics: MetricsSink | None = None,
    enqueue: Enqueuer | None = None,
    stop_on: tuple[type[BaseException], ...] = (),
) -> BatchOutcome:
    """Play every match of the batch that has no result yet, recording each once.

    ``stop_on``: exceptions (the soft time limit) after which the batch stops starting matches,
    marks itself ``stopped`` (the completeness check re-sends what is left) and returns.
    """
    metrics = metrics or NoMetrics()
    outcome = BatchOutcome()
    status, created = store.tournaments.status_and_created([tournament_id])[tournament_id]
    if status is None:
        log.warning("batch %s of unknown tournament %s dropped", batch_id, tournament_id)
        return outcome
    run = RunState(store, tournament_id)
    if status in ENDED:
        run.mark(batch_id, "done")
        return outcome
    spec, rules = _cached_spec(store, tournament_id, repr(created))
    beat = Heartbeat(run, batch_id, settings.heartbeat_interval, metrics=metrics, claim_ttl=settings.heartbeat_timeout)
    with beat:
        for item in wire:
            match = spec_from_wire(item, tournament_id, rules, spec.deadline_ms, spec.time_bank_ms, spec.lag_cap_ms)
            mid = match.match_id
            claim: str | None = None
            try:
                # One attempt of a match at a time: a duplicated message waits for the attempt in flight.
                claim = _claim(run, mid, settings, metrics)
                beat.hold(mid, claim)
                recorded, attempts = _retrying(functools.partial(run.begin, mid), f"match {mid}", settings, metrics)
                if recorded:
                    outcome.skipped += 1
                    continue
                if not attempts:  # the tournament ended (cancelled) meanwhile
                    break
                if attempts > settings.max_attempts:
                    result = aborted_result(match, f"gave up after {attempts - 1} attempts").to_dict()
                    replay: dict[str, Any] | None = None
                    outcome.aborted += 1
                else:
                    try:
                        # Each attempt is distinct for the bots (MatchStarted.attempt): a replay starts afresh.
                        result, replay = play(replace(match, attempt=attempts))
                    except stop_on:
                        raise
                    except Exception as exc:  # a bug or a broken seat: retried up to max_attempts
                        log.exception("match %s failed (attempt %d)", match.match_id, attempts)
                        result, replay = aborted_result(match, f"{type(exc).__name__}: {exc}").to_dict(), None
                    if not is_scored(result):
                        # An infrastructure fault is not a result: leave the match missing (the
                        # completeness check re-sends it) until the last attempt, then record it
                        # as aborted so that a poisonous match cannot hold the tournament forever.
                        if attempts < settings.max_attempts:
                            log.warning("match %s aborted (attempt %d): %s", match.match_id, attempts,
                                        result.get("detail", ""))
                            outcome.left += 1
                            continue
                        outcome.aborted += 1
                # Retried while Redis refuses writes or is unreachable, under one attempt id: a first call whose
                # reply was lost still answers True, and a match is never counted twice.
                record = functools.partial(store.results.record, tournament_id, mid, result, replay=replay,
                                           attempt=uuid.uuid4().hex)
                wrote = _retrying(record, f"result of match {mid}", settings, metrics)
                if wrote:
                    outcome.recorded += 1
                    metrics.record_matches_completed(1)
                    if not is_scored(result):
                        _retrying(functools.partial(store.results.incr, tournament_id, "aborted"),
                                  f"aborted count of {mid}", settings, metrics)
                scheduled, done, status = _retrying(functools.partial(run.after, mid, wrote), f"match {mid}",
                                                    settings, metrics)
                _publish_remaining(metrics, tournament_id, scheduled, done, status)
                if status in ENDED and status != "finished":
                    log.info("batch %s of %s tournament %s: no further match starts", batch_id, status, tournament_id)
                    break  # cancelled (or failed) meanwhile: the matches left are not played
            except stop_on:
                outcome.stopped = True
                break
            finally:
                if claim is not None:
                    beat.hold(mid, None)
                    with contextlib.suppress(StoreFailure):  # else it expires
                        run.release(mid, claim)
    with contextlib.suppress(StoreFailure):
        run.mark(batch_id, "stopped" if outcome.stopped or outcome.left else "done")
    if not outcome.stopped and store.results.progress(tournament_id).complete:
        _retrying(functools.partial(check_tournament, store, tournament_id, enqueue, settings, metrics=metrics),
                  f"check of {tournament_id}", settings, metrics)
    # A count this process published just before another one finished the tournament would
    # bring its series back (gauges are "most recent" across processes): remove it again.
    _publish_remaining(metrics, tournament_id, *run.after(None, False))
    return outcome


_T = TypeVar("_T")

RETRY_FIRST = 0.2
RETRY_MAX = 5.0
CLAIM_POLL = 0.5


def _retrying(call: Callable[[], _T], what: str, settings: Settings, metrics: MetricsSink) -> _T:
    """``call()``, retried with a back-off (:data:`RETRY_FIRST` doubling to :data:`RETRY_MAX` seconds) while Redis
    refuses the write (MISCONF, READONLY, OOM, NOREPLICAS) or the connection is lost, for at most
    ``settings.store_retry_timeout`` seconds; each failure is logged and counted
    (``uno_arena_store_errors_total{where="task"}``). Other Redis errors (a bug: wrong type, bad script) and the
    last failure after the timeout are raised: the batch then ends without a result for the match, which the
    completeness check re-sends. ``call`` must be safe to repeat."""
    deadline = time.monotonic() + settings.store_retry_timeout
    delay = RETRY_FIRST
    while True:
        try:
            return call()
        except StoreFailure as exc:
            kind = failure_kind(exc)
            metrics.record_store_error(kind, "task")
            if kind == "other" or time.monotonic() + delay > deadline:
                log.error("%s: Redis failed (%s), giving up: %s", what, kind, exc)
                raise
            log.warning("%s: Redis failed (%s: %s); retrying in %.1f s", what, kind, exc, delay)
            time.sleep(delay)
            delay = min(RETRY_MAX, delay * 2)


def _claim(run: RunState, match_id: str, settings: Settings, metrics: MetricsSink) -> str:
    """Take the claim of ``match_id`` (:meth:`RunState.claim`), waiting while another attempt holds it."""
    waited = False
    while True:
        token = _retrying(functools.partial(run.claim, match_id, settings.heartbeat_timeout), f"claim of {match_id}",
                          settings, metrics)
        if token is not None:
            if waited:
                log.info("match %s: the attempt in flight elsewhere ended; going on", match_id)
            return token
        if not waited:
            log.info("match %s is in flight in another batch (a duplicated message?): waiting for it", match_id)
            waited = True
        time.sleep(CLAIM_POLL)


def _publish_remaining(metrics: MetricsSink, tournament_id: str, scheduled: int, done: int, status: str) -> None:
    if (scheduled and done >= scheduled) or status in ENDED:
        metrics.finish_tournament(tournament_id)
    else:
        metrics.set_matches_remaining(tournament_id, scheduled - done)


# -- the completeness check ----------------------------------------------------------------------


@dataclass
class CheckOutcome:
    """What one completeness check found and did."""

    status: str
    missing: int = 0
    resent: int = 0
    finished: bool = False
    locked: bool = False


def check_tournament(
    store: Store,
    tournament_id: str,
    enqueue: Enqueuer | None,
    settings: Settings,
    *,
    token: str | None = None,
    metrics: MetricsSink | None = None,
    now: float | None = None,
) -> CheckOutcome:
    """Finish the tournament if every scheduled match is recorded, else re-send lost matches.

    Idempotent and safe to run concurrently (a short lock keeps two checks from re-sending the
    same matches). With ``token`` (the self-rescheduling chain), the check sends its next run
    while the token is still the tournament's current one.
    """
    metrics = metrics or NoMetrics()
    try:
        status = store.tournaments.status(tournament_id)
    except UnknownTournament:
        return CheckOutcome("unknown")
    if status in ENDED:
        return CheckOutcome(status)
    run = RunState(store, tournament_id)
    stamp = time.time() if now is None else now
    lock = run.lock(ttl=max(30.0, settings.check_interval))
    outcome = CheckOutcome(status)
    try:
        if lock is None:
            outcome.locked = True
        elif status == "pending":
            if enqueue is not None:
                enqueue.start(tournament_id)
        else:
            run.set(checked_at=repr(stamp))
            progress = store.results.progress(tournament_id)
            # The counters say when it may be complete; the sets (O(matches)) confirm it.
            missing = store.results.missing(tournament_id) if progress.complete else None
            if missing is not None and not missing:
                finish_tournament(store, tournament_id, metrics=metrics)
                outcome.status, outcome.finished = "finished", True
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


def _resend_lost(
    store: Store, run: RunState, tournament_id: str, enqueue: Enqueuer, settings: Settings, now: float
) -> int:
    """Re-send the unrecorded matches of lost batches; returns how many matches were re-sent.

    A batch is lost when it stopped (soft time limit) or its heartbeat is older than
    ``heartbeat_timeout`` (its process died: SIGKILL, OOM, the hard time limit). When nothing
    was recorded for ``stall_timeout`` and no batch is alive, every missing match is re-sent
    (a queued message lost with a dead worker only comes back after the visibility timeout).
    Only then is the whole set of missing matches computed.
    """
    fields = run.fields()
    # Progress: the last result written (by any batch), the start, or the last re-send.
    last_progress = max(
        float(fields.get(name) or 0.0) for name in ("last_recorded_at", "started_at", "last_resent_at")
    )
    states = run.batch_states()

    def alive(state: BatchState) -> bool:
        return state.state == "running" and now - state.ts <= settings.heartbeat_timeout

    stalled = not any(alive(s) for s in states.values()) and now - last_progress > settings.stall_timeout
    if stalled:
        lost_batches = [bid for bid, s in states.items() if s.state != "done"]
        lost = store.results.missing(tournament_id)
    else:
        lost_batches = [
            bid for bid, s in states.items() if s.state == "stopped" or (s.state == "running" and not alive(s))
        ]
        lost_batches += _lost_queued(run, tournament_id, enqueue, states, settings, now)
        if not lost_batches:
            return 0
        members = run.batch_matches(lost_batches)
        candidates = sorted({mid for ids in members.values() for mid in ids})
        lost = store.results.without_result(tournament_id, candidates)
    # The lost batches no longer cover anything (a late heartbeat of a live one puts it back).
    for bid in lost_batches:
        run.mark(bid, "done", now=states[bid].ts)
    run.set(last_resent_at=repr(now))
    if not lost:
        return 0
    spec = spec_of(store, tournament_id)
    todo = [m for m in schedule(spec) if m.match_id in lost]
    size = int(fields.get("batch_size") or 0) or auto_batch_size(len(todo), settings, False)
    round_no = run.incr("rescues")
    groups = split_guided(todo, size, fixed=settings.batch_size > 0)
    named = {f"x{round_no:03d}-{i:04d}": group for i, group in enumerate(groups)}
    run.add_batches({bid: [m.match_id for m in group] for bid, group in named.items()}, now=now)
    for bid, group in named.items():
        enqueue.batch(tournament_id, bid, [spec_to_wire(m) for m in group])
    why = ", ".join(f"{bid} ({states[bid].state}, {now - states[bid].ts:.1f} s ago)" for bid in lost_batches[:10])
    log.warning(
        "tournament %s: re-sent %d lost match(es) in %d batch(es)%s; lost: %s",
        tournament_id, len(todo), len(named), " (stalled)" if stalled else "", why or "-",
    )
    return len(todo)


def _lost_queued(run: RunState, tournament_id: str, enqueue: Enqueuer, states: Mapping[str, BatchState],
                 settings: Settings, now: float) -> list[str]:
    """Batches still ``queued`` whose message has been out of the broker's queue for ``queued_grace`` seconds
    (taken by a worker that died before the task started); the first time each was seen out of it is kept in the
    run hash (``absent_since``). Nothing when the enqueuer cannot see its queue."""
    queued = [bid for bid, state in states.items() if state.state == "queued"]
    inspect: Callable[[str], set[str] | None] | None = getattr(enqueue, "queued_batches", None)
    if not queued or inspect is None:
        return []
    waiting = inspect(tournament_id)
    if waiting is None:
        return []
    seen: dict[str, float] = json.loads(run.get("absent_since") or "{}")
    absent = {bid: float(seen.get(bid, now)) for bid in queued if bid not in waiting}
    run.set(absent_since=json.dumps(absent))
    return sorted(bid for bid, since in absent.items() if now - since >= settings.queued_grace)


# -- standings, ratings, finishing ---------------------------------------------------------------


@dataclass(frozen=True)
class TournamentTable:
    """Standings of a tournament with the per-bot counters the API shows."""

    standings: Standings
    timeouts: dict[str, int]
    refusals: dict[str, int]
    scored: list[MatchResult]
    results: dict[str, dict[str, Any]]
    decisions: dict[str, int]
    """Decisions asked of each bot (for rates per 1,000 decisions; results stored before they were counted add 0)."""


def tournament_table(store: Store, tournament_id: str, *, ratings: bool = True) -> TournamentTable:
    """Standings of the results recorded so far (final once the tournament finished)."""
    spec = spec_of(store, tournament_id)
    results = store.results.all(tournament_id)
    scored = [MatchResult.from_dict(r) for r in results.values() if is_scored(r)]
    prior_raw = RunState(store, tournament_id).prior()
    prior = RatingPool.from_dict(prior_raw) if prior_raw else RatingPool(key=spec.rating_pool)
    table = standings(scored, participants=spec.participants, pool=prior, ratings=ratings)
    counters: dict[str, dict[str, int]] = {name: dict.fromkeys(spec.participants, 0)
                                           for name in ("timeouts", "refusals", "decisions")}
    for r in results.values():
        for seat, bot in enumerate(r.get("seats", ())):
            if bot in counters["timeouts"]:
                for name, counts in counters.items():
                    values = r.get(name) or ()
                    counts[bot] += int(values[seat]) if seat < len(values) else 0
    return TournamentTable(table, counters["timeouts"], counters["refusals"], scored, results, counters["decisions"])


def standings_payload(table: TournamentTable, final: bool) -> dict[str, Any]:
    """The JSON cached in the store's standings hash (the rating pool itself is left out)."""
    data = table.standings.to_dict()
    data.pop("pool", None)
    return {"final": final, "standings": data, "timeouts": table.timeouts, "refusals": table.refusals,
            "decisions": table.decisions}


def cached_standings(store: Store, tournament_id: str) -> dict[str, Any]:
    """The standings payload: the cached one when it counts every recorded result, else freshly computed
    (and cached)."""
    status = store.tournaments.status(tournament_id)
    done = store.results.progress(tournament_id).done
    cached = store.standings.get(tournament_id)
    final = status == "finished"
    if cached is not None and cached.as_of >= done and (bool(cached.standings.get("final")) or not final):
        return dict(cached.standings)
    table = tournament_table(store, tournament_id)
    payload = standings_payload(table, final)
    store.standings.put(tournament_id, payload, as_of=len(table.results))
    return payload


def finish_tournament(store: Store, tournament_id: str, *, metrics: MetricsSink | None = None) -> Standings:
    """Compute the final standings, persist the ratings once, mark the tournament finished."""
    metrics = metrics or NoMetrics()
    spec = spec_of(store, tournament_id)
    table = tournament_table(store, tournament_id)
    store.standings.put(tournament_id, standings_payload(table, True), as_of=len(table.results))
    pool_key = spec.rating_pool

    def apply(current: dict[str, Any] | None) -> dict[str, Any]:
        pool = RatingPool.from_dict(current) if current else RatingPool(key=pool_key)
        tallies = tallies_of(table.standings, table.timeouts, table.refusals, table.decisions)
        return pool.with_tournament(tournament_id, table.scored, tallies).to_dict()

    store.ratings.update(pool_key, apply)
    run = RunState(store, tournament_id)
    run.set_once("finished_at", repr(time.time()))
    store.tournaments.set_status(tournament_id, "finished", expected=ACTIVE)
    run.cleanup()
    metrics.finish_tournament(tournament_id)
    return table.standings


# -- the sweep (scheduler) -----------------------------------------------------------------------


def sweep(
    store: Store, enqueue: Enqueuer, settings: Settings, *, metrics: MetricsSink | None = None
) -> dict[str, CheckOutcome]:
    """Check every active tournament once; restart dead check chains and lost starts.

    Run periodically by the scheduler (``uno-arena scheduler``) and by the beat entry
    ``sweep-tournaments``: it is what recovers a tournament whose check message was lost with
    a killed worker (an unacknowledged message only returns after the visibility timeout).
    """
    now = time.time()
    out: dict[str, CheckOutcome] = {}
    for tid, (status, created) in store.tournaments.status_and_created(store.tournaments.ids()).items():
        if status not in ACTIVE:
            continue
        if status == "pending":
            if now - created > settings.pending_timeout:
                enqueue.start(tid)
                out[tid] = CheckOutcome("pending")
            continue
        run = RunState(store, tid)
        checked = float(run.get("checked_at") or 0)
        out[tid] = check_tournament(store, tid, enqueue, settings, metrics=metrics)
        if not out[tid].finished and now - checked > 3 * settings.check_interval:
            start_check_chain(store, tid, enqueue, settings)
    return out
