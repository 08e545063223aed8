"""The metric families and series :mod:`arena.metrics` defines, for the tests that check the deploy files use them."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import Counter, Gauge, Histogram

from arena.metrics import ArenaMetrics


def metric_objects(metrics: ArenaMetrics) -> Iterator[Counter | Gauge | Histogram]:
    """Every metric object of ``metrics``."""
    for value in vars(metrics).values():
        if isinstance(value, Counter | Gauge | Histogram):
            yield value


def metric_types(metrics: ArenaMetrics) -> dict[str, str]:
    """Exposed family name (``_total`` on counters) -> type, for every metric in ``metrics``."""
    types: dict[str, str] = {}
    for obj in metric_objects(metrics):
        for family in obj.describe():
            name = family.name + "_total" if family.type == "counter" else family.name
            types[name] = family.type
    return types


def series_names(metrics: ArenaMetrics) -> set[str]:
    """Every series name a scrape can show (histograms as ``_bucket``, ``_sum``, ``_count``)."""
    names: set[str] = set()
    for name, kind in metric_types(metrics).items():
        names.update({name + "_bucket", name + "_sum", name + "_count"} if kind == "histogram" else {name})
    return names
