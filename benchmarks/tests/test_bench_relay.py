"""`python -m benchmarks relay` runs end to end as a user runs it (a small run). Its figures are printed, not asserted
(a loaded machine can bring a one-second measurement to zero); what is checked is that the worker played through
the relay, that the relay's traffic was counted on both sides, and that the report was printed."""

from __future__ import annotations

import json

import pytest

from benchmarks.tests.cli import run_benchmarks

pytestmark = pytest.mark.integration


@pytest.mark.slow
def test_bench_relay_runs_and_prints_its_figures() -> None:
    code, out, err = run_benchmarks("relay", "--matches", "3", "--players", "2", "--bots", "2", "--seconds", "1",
                             "--warmup", "0.5", "--json", env_extra={"REDIS_URL": ""}, timeout=300)
    assert code == 0, err
    figures = json.loads(out.strip().splitlines()[-1])
    assert figures["answered"] > 0 and figures["timeouts"] == 0 and figures["aborted"] == 0, figures
    assert figures["worker_commands"] > 0 and figures["gateway_commands"] > 0, figures
    assert figures["worker_bytes_sent"] > 0 and figures["gateway_bytes_received"] > 0, figures
    assert figures["redis_commands"] > 0 and figures["peak_connections"] >= 2, figures
    for row in ("relay bench: 3 matches at once", "Redis:", "CPU ms:", "relay counters: worker"):
        assert row in err, (row, err)


def test_bench_relay_refuses_bad_options() -> None:
    code, _out, err = run_benchmarks("relay", "--matches", "0")
    assert code == 2 and "--matches" in err
