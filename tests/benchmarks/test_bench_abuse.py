"""`uno-arena bench abuse` runs end to end as a user runs it (tiny durations; figures printed, not asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_bench_abuse_runs_and_prints_its_table() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "REDIS_URL": ""}
    bench = subprocess.run(
        [sys.executable, "-m", "arena.cli", "bench", "abuse", "--seconds", "0.5", "--warmup", "0.3", "--matches", "2",
         "--rounds", "1", "--json"],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert bench.returncode == 0, bench.stderr
    out = bench.stdout
    figures = json.loads(out.strip().splitlines()[-1])
    assert set(figures["attacks"]) == {"pong-flood", "reconnect-storm", "garbage", "tcp-garbage", "no-read"}
    for attack in figures["attacks"].values():
        assert attack["without"]["decisions"] > 0 and attack["with"]["decisions"] > 0
    assert figures["attacks"]["reconnect-storm"]["attacker"].get("streams", 0) > 0
    assert "batches of 10,000 Pongs" in out and "decisions/s" in out
