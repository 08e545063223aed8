"""`python -m benchmarks gateway` runs end to end as a user runs it (a small run). Its figures are printed, not
asserted: a loaded machine can bring a one-second measurement to zero; what is checked is that each measurement ran and
was printed, and that no bot missed its deadline. And the collector's pauses it prints."""

from __future__ import annotations

import gc
import json

import pytest

from benchmarks.gateway import CollectorPauses
from benchmarks.tests.cli import run_benchmarks

pytestmark = pytest.mark.integration


@pytest.mark.slow
def test_bench_gateway_runs_and_prints_its_figures() -> None:
    code, out, err = run_benchmarks("gateway", "--matches", "4", "--seconds", "1", "--warmup", "0.5", "--rounds",
                             "1", "--json", env_extra={"REDIS_URL": ""}, timeout=300)
    assert code == 0, err
    figures = json.loads(out.strip().splitlines()[-1])
    assert figures["echo"]["round_trips"] >= 0
    for measurement in ("arena", "arena_without_batches"):
        assert figures[measurement]["decisions"] >= 0 and figures[measurement]["timeouts"] == 0, figures
    for row in ("round 1: echo", "echo  (bare grpc.aio bidi stream", "arena, batches (kit default):",
                "arena, no batches:", "arena (kit default) / echo"):
        assert row in out, (row, out)


def test_collector_pauses_counts_each_generation_while_entered() -> None:
    with CollectorPauses() as pauses:
        gc.collect(0)
        gc.collect(2)
        gc.collect(2)
    gc.collect(2)  # after leaving: not counted
    assert pauses.counts[0] >= 1 and pauses.counts[2] == 2
    assert 0 < pauses.longest_s[2] <= pauses.total_s[2]
    assert pauses.summary().startswith(f"garbage collector {sum(pauses.total_s):.2f} s: 2 full collections")
