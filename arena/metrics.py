"""Prometheus metrics of the whole arena: every metric is defined here, once (:class:`ArenaMetrics`; what they mean for
operators: docs/operations.md, Metrics).

Label values are bounded: ``outcome`` one of :data:`DECISION_OUTCOMES` and ``kind`` one of :data:`INCIDENT_KINDS`
(anything else raises), ``reason`` a RULES.md id or a fixed word (anything else counts as ``other``), ``side`` one
of :data:`RELAY_SIDES`; ``tournament`` only on ``uno_arena_matches_remaining``, removed when the tournament ends.

Multiprocess mode (Celery prefork workers): ``PROMETHEUS_MULTIPROC_DIR`` must be set before ``prometheus_client``
is first imported; the parent calls :func:`reset_multiprocess_dir` before any value exists and children fork, serves
with :func:`start_metrics_server` and calls :func:`mark_process_dead` for an exited child. prometheus-client cannot
remove a labelled series there, so a finished tournament's series is overwritten with NaN, which the exporter
built here drops (:data:`REMOVABLE_GAUGES`).
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Final, get_type_hints
from wsgiref.simple_server import WSGIServer

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client import multiprocess as _multiprocess
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from arena import __version__
from arena.players import DecisionOutcome

NAMESPACE: Final = "uno_arena"

#: Environment variables of the deployment contract.
MULTIPROC_DIR_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
METRICS_PORT_ENV: Final = "UNO_ARENA_METRICS_PORT"
METRICS_ADDRESS_ENV: Final = "UNO_ARENA_METRICS_ADDRESS"
DEFAULT_METRICS_ADDRESS: Final = "127.0.0.1"
DEFAULT_GATEWAY_METRICS_PORT: Final = 9100
DEFAULT_WORKER_METRICS_PORT: Final = 9101

#: Every decision request ends with exactly one of these outcomes, the values of
#: :class:`arena.players.DecisionOutcome` (``refused``: a timeout after refused answers; the refusals are also
#: counted in uno_arena_refused_actions_total with their reasons; a forfeited seat's decisions count as ``fallback``).
DECISION_OUTCOMES: Final = tuple(outcome.value for outcome in DecisionOutcome)

#: Decision latency: from 1 ms (local bots land in the first bucket) to 2 s (past any deadline).
DECISION_LATENCY_BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0)

#: Match duration: from fast local matches (tenths of a second) to long remote ones (half an hour).
MATCH_DURATION_BUCKETS: Final = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)

#: The kinds of a bot's incidents (arena.store.incident_store keeps the log; the same values, checked by the tests):
#: refusal, timeout, fallback (not connected when asked), error (an in-process bot raised), forfeit, disconnect.
INCIDENT_KINDS: Final = ("refusal", "timeout", "fallback", "error", "forfeit", "disconnect")

#: The two ends of the Redis relay: the workers' seats and the gateways' consumers.
RELAY_SIDES: Final = ("worker", "gateway")

#: Gauges whose labelled series are removed (NaN tombstones in multiprocess mode).
REMOVABLE_GAUGES: Final = frozenset({"uno_arena_matches_remaining"})

#: Value used for a label that does not look like a bounded identifier.
OTHER: Final = "other"

_REASON_RE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,47}$")


def multiprocess_enabled() -> bool:
    """Whether prometheus multiprocess mode is on (``PROMETHEUS_MULTIPROC_DIR`` is set)."""
    return bool(os.environ.get(MULTIPROC_DIR_ENV))


def reset_multiprocess_dir(path: str | os.PathLike[str] | None = None) -> Path | None:
    """Create the multiprocess directory (``path``, else ``$PROMETHEUS_MULTIPROC_DIR``) or wipe the ``*.db`` files a
    previous run left directly in it; the directory, or None when multiprocess mode is off and no path is given."""
    raw = path if path is not None else os.environ.get(MULTIPROC_DIR_ENV)
    if not raw:
        return None
    directory = Path(raw)
    directory.mkdir(parents=True, exist_ok=True)
    for db in directory.glob("*.db"):
        if db.is_file():
            db.unlink(missing_ok=True)
    return directory


def mark_process_dead(pid: int) -> None:
    """Drop the live-gauge files of an exited child process (Celery's ``worker_process_shutdown``; no-op outside
    multiprocess mode)."""
    raw = os.environ.get(MULTIPROC_DIR_ENV)
    if raw:
        _multiprocess.mark_process_dead(pid, raw)


def _reason(reason: str) -> str:
    text = str(reason)
    return text if _REASON_RE.match(text) else OTHER


def _name(value: str) -> str:
    if not value:
        raise ValueError("empty label value")
    return str(value)


def _count(count: int) -> int:
    if count < 0:
        raise ValueError("count must not be negative")
    return count


def observe_many(histogram: Histogram, values: Sequence[float]) -> None:
    """``histogram.observe(value)`` for every value, with each bucket and the sum added to once: in multiprocess
    mode every add is a locked write to a memory-mapped file, and a match flushes a thousand latencies at its end.
    Uses prometheus_client's Histogram internals, falling back to plain ``observe`` where they are not as expected.
    """
    if not values:
        return
    bounds = getattr(histogram, "_upper_bounds", None)
    buckets = getattr(histogram, "_buckets", None)
    total = getattr(histogram, "_sum", None)
    if bounds is None or buckets is None or total is None or len(bounds) != len(buckets) or bounds[-1] != math.inf:
        for value in values:
            histogram.observe(value)
        return
    counts = [0] * len(bounds)
    for value in values:
        counts[bisect_left(bounds, value)] += 1  # the first bound >= value, as observe() picks it
    total.inc(math.fsum(values))
    for bucket, count in zip(buckets, counts, strict=True):
        if count:
            bucket.inc(count)


def _metric(name: str, help_text: str, labels: tuple[str, ...] = (), **options: Any) -> dict[str, Any]:
    """The metadata of a field of :class:`ArenaMetrics`: the metric :func:`create_metrics` makes for it, of the field's
    type (``name`` without the namespace; a counter's gets ``_total`` from prometheus-client; ``options``: the kind's
    own)."""
    return {"metric": (name, help_text, labels, options)}


@dataclass(frozen=True, eq=False)
class ArenaMetrics:
    """Every metric of the arena (made by :func:`create_metrics`) plus small helpers that keep label values bounded."""

    registry: CollectorRegistry | None
    decisions: Counter = field(metadata=_metric(
        "decisions", "Decision requests sent to bots, by final outcome.", ("bot", "outcome")))
    decision_latency: Histogram = field(metadata=_metric(
        "decision_latency_seconds", "Time from decision request to the bot's answer.", ("bot",),
        buckets=DECISION_LATENCY_BUCKETS))
    refused_actions: Counter = field(metadata=_metric(
        "refused_actions", "Actions refused by the arena, by bot and reason (RULES.md id or word).", ("bot", "reason")))
    strikes: Counter = field(metadata=_metric(
        "strikes", "Strikes charged to bots (timeouts, refusals, disconnects).", ("bot",)))
    forfeits: Counter = field(metadata=_metric("forfeits", "Matches forfeited by bots that kept failing.", ("bot",)))
    bot_incidents: Counter = field(metadata=_metric(
        "bot_incidents", "Incidents written to bots' incident logs, by bot and kind (refusal, timeout, fallback, ...).",
        ("bot", "kind")))
    matches: Counter = field(metadata=_metric(
        "matches", "Matches finished, by variant and end reason.", ("variant", "reason")))
    match_duration: Histogram = field(metadata=_metric(
        "match_duration_seconds", "Wall-clock duration of a match.", ("variant",), buckets=MATCH_DURATION_BUCKETS))
    matches_completed: Counter = field(metadata=_metric(
        "matches_completed", "Matches recorded by workers (each match id counted once)."))
    store_errors: Counter = field(metadata=_metric(
        "store_errors", "Redis commands of workers and gateways that failed (a refused write: misconf, readonly, oom, "
        "noreplicas; or connection), each retried (after a back-off, or asked again by the worker).",
        ("kind", "where")))
    relay_redis_commands: Counter = field(metadata=_metric(
        "relay_redis_commands", "Redis commands of the relay between workers and gateways, by side (worker, gateway).",
        ("side",)))
    relay_redis_bytes: Counter = field(metadata=_metric(
        "relay_redis_bytes", "Bytes of the relay's Redis commands (sent) and of their replies and Pub/Sub messages "
        "(received), in RESP, by side.", ("side", "direction")))
    matches_remaining: Gauge = field(metadata=_metric(
        "matches_remaining", "Matches of a running tournament still to be played.", ("tournament",),
        multiprocess_mode="mostrecent"))
    queue_depth: Gauge = field(metadata=_metric(
        "queue_depth", "Items waiting in a work queue.", ("queue",), multiprocess_mode="livemostrecent"))
    queue_oldest_age: Gauge = field(metadata=_metric(
        "queue_oldest_age_seconds", "Age of the oldest item waiting in a work queue.", ("queue",),
        multiprocess_mode="livemostrecent"))
    canary_last_success: Gauge = field(metadata=_metric(
        "canary_last_success_timestamp_seconds", "Unix time the worker canary task last ran.", multiprocess_mode="max"))
    connected_bots: Gauge = field(metadata=_metric(
        "connected_bots", "Bot streams open on this gateway.", multiprocess_mode="livesum"))
    gateway_up: Gauge = field(metadata=_metric(
        "gateway_up", "1 while this gateway serves bot streams.", multiprocess_mode="livemax"))
    insecure_no_admin_token: Gauge = field(metadata=_metric(
        "insecure_no_admin_token", "1 while this gateway serves the organizer API without an admin token (anyone is "
        "the admin).", multiprocess_mode="livemax"))
    build_info: Gauge = field(metadata=_metric(
        "build_info", "Version of the running uno-arena component; the value is always 1.", ("version", "component"),
        multiprocess_mode="max"))

    # -- match runner ----------------------------------------------------------------------
    def record_decision(self, bot: str, outcome: DecisionOutcome, latency_seconds: float | None = None, *,
                        count: int = 1) -> None:
        """Count ``count`` decision requests of ``bot`` by outcome (the match runner flushes a match's counts
        at its end); observe one latency if given."""
        if outcome not in DECISION_OUTCOMES:
            raise ValueError(f"unknown decision outcome {outcome!r}; expected one of {DECISION_OUTCOMES}")
        bot = _name(bot)
        self.decisions.labels(bot, outcome).inc(_count(count))
        if latency_seconds is not None:
            self.decision_latency.labels(bot).observe(max(0.0, float(latency_seconds)))

    def record_decision_latencies(self, bot: str, latencies: Sequence[float]) -> None:
        """Observe many decision latencies of ``bot`` at once (the match runner's end-of-match flush)."""
        observe_many(self.decision_latency.labels(_name(bot)), [max(0.0, value) for value in latencies])

    def record_refusal(self, bot: str, reason: str) -> None:
        """Count one refused action of ``bot``; ``reason`` is a RULES.md id or a fixed word."""
        self.refused_actions.labels(_name(bot), _reason(reason)).inc()

    def record_strike(self, bot: str, count: int = 1) -> None:
        """Count strikes (a timeout, error or disconnect charged to the bot)."""
        self.strikes.labels(_name(bot)).inc(_count(count))

    def record_forfeit(self, bot: str) -> None:
        self.forfeits.labels(_name(bot)).inc()

    def record_incidents(self, bot: str, kind: str, count: int = 1) -> None:
        """Count ``count`` incidents of ``bot`` written to its incident log (``kind``: :data:`INCIDENT_KINDS`)."""
        if kind not in INCIDENT_KINDS:
            raise ValueError(f"unknown incident kind {kind!r}; expected one of {INCIDENT_KINDS}")
        if _count(count):
            self.bot_incidents.labels(_name(bot), kind).inc(count)

    def record_match(self, variant: str, reason: str, duration_seconds: float | None = None) -> None:
        """Count one finished match by variant and end reason; observe its duration if given."""
        variant = _name(variant)
        self.matches.labels(variant, _reason(reason)).inc()
        if duration_seconds is not None:
            self.match_duration.labels(variant).observe(max(0.0, float(duration_seconds)))

    # -- workers ---------------------------------------------------------------------------
    def record_matches_completed(self, count: int = 1) -> None:
        """Count matches recorded by a worker (each match id once)."""
        if _count(count):
            self.matches_completed.inc(count)

    def record_store_error(self, kind: str, where: str) -> None:
        """A Redis command refused or lost (``kind`` from :func:`arena.store.failure_kind`) in ``where``
        (``task``, ``heartbeat``, ``broker``: the worker backs off and retries; ``relay``: a gateway's relayed answer
        dropped, the worker asks again)."""
        self.store_errors.labels(kind=_name(kind), where=_name(where)).inc()

    def relay_meter(self, side: str) -> RelayMeter:
        """What counts the relay's Redis traffic on ``side`` (one of :data:`RELAY_SIDES`)."""
        if side not in RELAY_SIDES:
            raise ValueError(f"unknown relay side {side!r}; expected one of {RELAY_SIDES}")
        return RelayMeter(self.relay_redis_commands.labels(side), self.relay_redis_bytes.labels(side, "sent"),
                          self.relay_redis_bytes.labels(side, "received"))

    def set_matches_remaining(self, tournament: str, remaining: int) -> None:
        self.matches_remaining.labels(_name(tournament)).set(max(0, int(remaining)))

    def finish_tournament(self, tournament: str) -> None:
        """Drop the ``matches_remaining`` series of a finished (or cancelled) tournament."""
        tournament = _name(tournament)
        if multiprocess_enabled():
            # prometheus-client cannot delete a series from the mmap files: write a tombstone
            # that the exporter from this module filters out.
            self.matches_remaining.labels(tournament).set(math.nan)
        else:
            self.matches_remaining.remove(tournament)

    def set_queue(self, queue: str, depth: int, oldest_age_seconds: float = 0.0) -> None:
        """Publish a queue's depth and the age of its oldest waiting item (0 when empty)."""
        queue = _name(queue)
        self.queue_depth.labels(queue).set(max(0, int(depth)))
        self.queue_oldest_age.labels(queue).set(max(0.0, float(oldest_age_seconds)) if depth else 0.0)

    def mark_canary_success(self, timestamp: float | None = None) -> None:
        """Record that the worker canary task ran (now, or at ``timestamp`` in Unix seconds)."""
        self.canary_last_success.set(time.time() if timestamp is None else float(timestamp))

    # -- gateway ---------------------------------------------------------------------------
    def bot_connected(self) -> None:
        self.connected_bots.inc()

    def bot_disconnected(self) -> None:
        self.connected_bots.dec()

    def set_gateway_up(self, up: bool) -> None:
        """1 while this gateway serves bot streams, 0 while it starts or drains."""
        self.gateway_up.set(1 if up else 0)

    def set_insecure_no_admin_token(self, insecure: bool) -> None:
        """1 while this gateway serves the organizer API without an admin token (``--insecure-no-admin-token``)."""
        self.insecure_no_admin_token.set(1 if insecure else 0)

    def set_build_info(self, component: str, version: str = __version__) -> None:
        """Publish ``uno_arena_build_info{version,component} 1`` (component: gateway, worker...)."""
        self.build_info.labels(_name(version), _name(component)).set(1)


@dataclass(frozen=True, eq=False)
class RelayMeter:
    """Counts the relay's Redis round trips on one side (a :class:`arena.store.TrafficMeter`)."""

    commands: Counter
    sent: Counter
    received: Counter

    def count(self, commands: int, sent_bytes: int, received_bytes: int) -> None:
        if commands:
            self.commands.inc(commands)
        if sent_bytes:
            self.sent.inc(sent_bytes)
        if received_bytes:
            self.received.inc(received_bytes)


def create_metrics(registry: CollectorRegistry | None = REGISTRY) -> ArenaMetrics:
    """Create every arena metric on ``registry`` (None: unregistered metrics); a registry holds one set (a second
    raises ValueError, duplicated timeseries)."""
    kinds = get_type_hints(ArenaMetrics)
    made = {}
    for spec in fields(ArenaMetrics):
        if "metric" in spec.metadata:
            name, help_text, labels, options = spec.metadata["metric"]
            made[spec.name] = kinds[spec.name](name, help_text, labels, namespace=NAMESPACE, registry=registry,
                                               **options)
    return ArenaMetrics(registry=registry, **made)


_default: ArenaMetrics | None = None
_default_lock = threading.Lock()


def get_metrics() -> ArenaMetrics:
    """The process-wide metrics on the default registry, created on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = create_metrics(REGISTRY)
        return _default


class _TombstoneFilter(Collector):
    """Wraps a collector and drops NaN samples of :data:`REMOVABLE_GAUGES` (removed series)."""

    def __init__(self, inner: Collector) -> None:
        self._inner = inner

    def collect(self) -> Iterator[Metric]:
        for metric in self._inner.collect():
            if metric.name in REMOVABLE_GAUGES:
                metric.samples = [s for s in metric.samples if not math.isnan(s.value)]
                if not metric.samples:
                    continue
            yield metric


@dataclass
class MetricsServer:
    """A running ``/metrics`` HTTP exporter (daemon thread)."""

    server: WSGIServer
    thread: threading.Thread

    @property
    def port(self) -> int:
        return int(self.server.server_port)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start_metrics_server(port: int, addr: str = "127.0.0.1",
                         registry: CollectorRegistry | None = None) -> MetricsServer:
    """Serve ``registry`` over HTTP on ``addr:port`` (``port=0`` picks a free one; default registry: in multiprocess
    mode a fresh one merging every process's values, else the default); :class:`MetricsPortError` when it cannot
    listen there."""
    raw = os.environ.get(MULTIPROC_DIR_ENV)
    if registry is None and raw:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_TombstoneFilter(_multiprocess.MultiProcessCollector(None, raw)))
    try:
        server, thread = start_http_server(port, addr=addr, registry=registry or REGISTRY)
    except OSError as error:
        raise MetricsPortError(port, addr, error) from None
    return MetricsServer(server=server, thread=thread)


def start_exporter(default_port: int, port: int | None, address: str | None,
                   registry: CollectorRegistry | None = None) -> MetricsServer | None:
    """The exporter a long-running command's ``--metrics-port`` and ``--metrics-address`` ask for (None for port -1;
    :func:`metrics_port`, :func:`metrics_address`, :func:`start_metrics_server` and their errors)."""
    chosen = metrics_port(default_port, port)
    return start_metrics_server(chosen, metrics_address(address), registry) if chosen >= 0 else None


class MetricsPortError(OSError):
    """The ``/metrics`` exporter cannot listen on its port (in use: 9100 is also node_exporter's default; or not
    allowed); the message names the port and the fix, for one line of a command's error."""

    def __init__(self, port: int, addr: str, error: OSError) -> None:
        reason = error.strerror or str(error)
        super().__init__(error.errno, f"cannot serve /metrics on {addr}:{port}: {reason}; give a free port with "
                                      f"--metrics-port PORT (or ${METRICS_PORT_ENV}), or --metrics-port -1 for none")

    def __str__(self) -> str:
        return str(self.strerror)


def metrics_port(default: int, flag: int | None = None) -> int:
    """The metrics port: the command-line flag, else ``$UNO_ARENA_METRICS_PORT``, else ``default``; ValueError (its
    message for people) when the variable is not a number."""
    if flag is not None:
        return int(flag)
    raw = os.environ.get(METRICS_PORT_ENV, "").strip()
    if raw and not raw.lstrip("-").isdigit():
        raise ValueError(f"${METRICS_PORT_ENV}={raw!r}: not a port number (a whole number; -1 for none)")
    return int(raw) if raw else int(default)


def metrics_address(flag: str | None = None) -> str:
    """The address the metrics server binds: the command-line flag, else ``$UNO_ARENA_METRICS_ADDRESS``, else
    ``127.0.0.1`` (loopback: a Prometheus elsewhere needs ``0.0.0.0`` or the host's address, given explicitly)."""
    if flag:
        return flag
    return os.environ.get(METRICS_ADDRESS_ENV, "").strip() or DEFAULT_METRICS_ADDRESS
