"""`python -m benchmarks load` stays working: a small run (6 bots from 2 swarm processes, a tiny tournament).

The command is reached through `python -m benchmarks`'s parser (:func:`benchmarks.cli.build_parser`). The run is the
real thing: the whole arena as processes, bots over gRPC, one tournament; the test checks the figures are
there and every match was recorded once. No speed is asserted (benchmarks report speed, tests do not).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.cli import build_parser
from benchmarks.load import auto_seats, percentile, table_count
from benchmarks.swarm import read_tokens, write_tokens


@pytest.mark.integration
def test_bench_load_smoke(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = build_parser().parse_args(["load", "--bots", "6", "--processes", "2", "--seats", "5",
                                "--target-score", "50", "--deadline-ms", "2000", "--work-dir", str(tmp_path),
                                "--json"])
    status = args.func(args)
    captured = capsys.readouterr()
    figures: dict[str, Any] = json.loads(captured.out)
    assert status == 0, captured.err
    assert figures["ok"] and figures["state"] == "finished", captured.err
    assert figures["bots"] == 6 and figures["swarm_processes"] == 2
    assert figures["matches_total"] == 6  # every 5 of the 6 bots meet once
    assert figures["recorded_once"] and figures["matches_recorded"] == 6, figures["record_problems"]
    assert figures["played_once"], (figures["metric_decisions"], figures["decisions"])
    assert figures["decisions"] > 0 and figures["decisions_per_s"] > 0
    assert 0 < figures["latency_p50_ms"] <= figures["latency_p99_ms"] <= figures["latency_max_ms"]
    assert figures["errors"] == 0, figures["error_samples"]
    roles = [memory["role"] for memory in figures["memory"]]
    assert "gateway" in roles and "worker (main)" in roles
    assert sum(role.startswith("worker child") for role in roles) == 2
    assert sum(role.startswith("swarm") for role in roles) == 2
    assert all(memory["rss_bytes"] > 0 and memory["peak_rss_bytes"] >= memory["rss_bytes"]
               for memory in figures["memory"])
    cpu = {entry["role"]: entry["seconds"] for entry in figures["cpu"]}
    assert cpu.keys() == set(roles)  # every process measured, the same ones as the memory
    assert cpu["gateway"] > 0 and sum(seconds for role, seconds in cpu.items() if role.startswith("swarm")) > 0
    assert all(seconds >= 0 for seconds in cpu.values())
    assert "decisions/s" in captured.err and "exactly once" in captured.err and "ms per decision" in captured.err


def test_bench_load_refuses_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["load", "--bots", "1"])
    assert args.func(args) == 2
    assert "--bots" in capsys.readouterr().err


def test_table_size_grows_with_the_field() -> None:
    assert auto_seats(6, 4) == 2  # 15 pairs <= 24 tables
    assert table_count(6, 5) == 6
    seats = auto_seats(200, 4)
    assert table_count(200, seats) <= 800 < table_count(200, seats - 1)
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.0 and percentile([1.0, 2.0, 3.0, 4.0], 0.99) == 4.0


def test_swarm_tokens_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    write_tokens(path, [("a", "a.secret"), ("b-2", "b.other")])
    assert read_tokens(path) == [("a", "a.secret"), ("b-2", "b.other")]
    assert path.stat().st_mode & 0o777 == 0o600


def test_swarm_stops_when_told_even_without_a_gateway() -> None:
    """Nothing listens at the target: the bot keeps retrying until the swarm is stopped, then reports."""
    from benchmarks.swarm import run_swarm

    async def main() -> Any:
        stop = asyncio.Event()
        task = asyncio.create_task(run_swarm("127.0.0.1:1", [("x", "x.bad")], "raw", stop=stop))
        await asyncio.sleep(0.5)  # behaviour under test: the bot keeps retrying for a while, until told to stop
        stop.set()
        return await task

    stats = asyncio.run(main())
    assert stats.bots == 1 and stats.welcomed == 0 and stats.decisions == 0
