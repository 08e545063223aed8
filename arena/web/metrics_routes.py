"""The web front's own Prometheus metrics, on a registry per app (so two apps in one process never collide).

``uno_arena_web_requests_total{route, method, status}`` counts answered requests by route template (``/t/{id}``,
never the raw path, so the label values stay bounded) and ``uno_arena_web_request_duration_seconds{route}`` is
the server time of each; live streams are counted when they end.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class WebMetrics:
    """The counters and histogram of one web app, on a registry of its own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("uno_arena_web_requests_total", "Requests answered by the web front",
                                ("route", "method", "status"), registry=self.registry)
        self.latency = Histogram("uno_arena_web_request_duration_seconds", "Server time of a web request",
                                 ("route",), buckets=LATENCY_BUCKETS, registry=self.registry)

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        self.requests.labels(route=route, method=method, status=str(status)).inc()
        self.latency.labels(route=route).observe(seconds)
