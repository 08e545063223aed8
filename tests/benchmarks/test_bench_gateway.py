"""`uno-arena bench gateway` runs end to end as a user runs it (a small run; figures printed, not asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_bench_gateway_runs_and_prints_its_figures() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "REDIS_URL": ""}
    env.pop("UNO_ARENA_GRPC_ADDR", None)
    bench = subprocess.run(
        [sys.executable, "-m", "arena.cli", "bench", "gateway", "--matches", "4", "--seconds", "1", "--warmup", "0.5",
         "--rounds", "1", "--json"],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert bench.returncode == 0, bench.stderr
    out = bench.stdout
    figures = json.loads(out.strip().splitlines()[-1])
    assert figures["arena"]["decisions"] > 0 and figures["echo"]["round_trips"] > 0
    assert figures["arena"]["timeouts"] == 0
    assert figures["arena_without_batches"]["decisions"] > 0 and figures["arena_without_batches"]["timeouts"] == 0
    assert "arena (kit default) / echo" in out
