"""What the tournament machinery runs with: its timing :class:`Settings`, the :class:`MetricsSink` and the retry of a
Redis command that failed."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from arena.runner import DEFAULT_INFRA_GRACE_S
from arena.store import StoreFailure, failure_kind
from arena.tournament.spec import DEFAULT_MATCHES_PER_PROCESS
from arena.tournament.status import ENDED_TOURNAMENT, TournamentStatus

log = logging.getLogger("arena.service.lifecycle")


@dataclass(frozen=True)
class Settings:
    """Timing of the run machinery (``arena_*`` keys of the Celery app's configuration)."""

    check_interval: float = 3.0
    """Seconds between two runs of a tournament's self-rescheduling completeness check."""
    heartbeat_interval: float = 2.0
    """Seconds between heartbeats of a running batch."""
    heartbeat_timeout: float = 12.0
    """A running batch without a heartbeat for this long is lost (its process died)."""
    queued_grace: float = 10.0
    """A batch still ``queued`` whose message has been out of the broker's queue this long was lost with the
    worker that took it."""
    stall_timeout: float = 600.0
    """Last resort: with no result recorded for this long and no live batch, every missing match is re-sent."""
    batch_size: int = 0
    """Matches per batch task; 0 chooses from the tournament's size."""
    max_attempts: int = 5
    """A match started this many times without a result is recorded as aborted (not scored)."""
    pending_timeout: float = 60.0
    """The sweep re-sends the start of a tournament pending for this long."""
    store_retry_timeout: float = 300.0
    """Seconds a batch keeps retrying a Redis command that failed (a refused write, a lost connection) before it
    gives up, leaving its unrecorded matches to the completeness check."""
    matches_per_process: int = DEFAULT_MATCHES_PER_PROCESS
    """Matches a worker process plays at once. 1: one match after another."""
    infra_grace_s: float = DEFAULT_INFRA_GRACE_S
    """``MatchConfig.infra_grace_s`` of the matches played."""

    @classmethod
    def from_conf(cls, conf: Mapping[str, Any]) -> Settings:
        kwargs: dict[str, Any] = {}
        for name, f in cls.__dataclass_fields__.items():
            value = conf.get(f"arena_{name}")
            if value is not None:
                kwargs[name] = int(value) if f.type in ("int", int) else float(value)
        return cls(**kwargs)


class MatchCancelled(Exception):
    """A match was stopped before its end because its batch stops (the soft time limit); it has no result."""


class MetricsSink(Protocol):
    def record_matches_completed(self, count: int = 1) -> None: ...

    def set_matches_remaining(self, tournament: str, remaining: int) -> None: ...

    def finish_tournament(self, tournament: str) -> None: ...

    def record_store_error(self, kind: str, where: str) -> None: ...


class NoMetrics:
    """A sink that records nothing (:data:`NO_METRICS`)."""

    def record_matches_completed(self, count: int = 1) -> None:
        pass

    def set_matches_remaining(self, tournament: str, remaining: int) -> None:
        pass

    def finish_tournament(self, tournament: str) -> None:
        pass

    def record_store_error(self, kind: str, where: str) -> None:
        pass


NO_METRICS = NoMetrics()


_T = TypeVar("_T")

RETRY_FIRST = 0.2
RETRY_MAX = 5.0


def retrying(call: Callable[[], _T], what: str, settings: Settings, metrics: MetricsSink) -> _T:
    """``call()`` (safe to repeat), retried with a back-off while Redis refuses the write (MISCONF, READONLY, OOM,
    NOREPLICAS) or the connection is lost, for at most ``settings.store_retry_timeout`` seconds; each failure is
    logged and counted (``uno_arena_store_errors_total{where="task"}``). Other Redis errors (a bug) and the last
    failure are raised: the completeness check re-sends what was left."""
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


def publish_remaining(metrics: MetricsSink, tournament_id: str, scheduled: int, done: int,
                      status: TournamentStatus | None) -> None:
    if (scheduled and done >= scheduled) or status in ENDED_TOURNAMENT:
        metrics.finish_tournament(tournament_id)
    else:
        metrics.set_matches_remaining(tournament_id, scheduled - done)

