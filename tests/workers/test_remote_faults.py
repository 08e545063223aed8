"""Fault tests with remote bots, as an operator meets them (issue 13): every part its own process (a Redis with its
append-only file, `serve`, two `worker` processes, `scheduler`, two kit bots over gRPC), the production timings,
and one fault injected mid-tournament: SIGTERM of a gateway with a second one on the same port, `kill -9` of the
gateway and a restart, a Redis restart, `kill -9` of a worker child, Redis refusing writes. Each ends with every
match recorded once (results and the feed), no strike, forfeit or timeout charged, nothing aborted, and standings
equal to a clean run of the same seed, and no process leaves a failure unhandled in a task (issue 22). The same
runs are `python -m benchmarks faults` (:mod:`benchmarks.faults`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.faults import FAULTS, FaultOptions, FaultReport, format_report, run_fault

OPTIONS = FaultOptions(deals=1, target=120, timeout_s=240)
"""12 matches, 10 of them with a kit bot: long enough for the fault to strike while matches are in flight."""


@pytest.mark.integration
@pytest.mark.parametrize("fault", [f for f in FAULTS if f != "none"])
def test_a_fault_of_the_arena_loses_nothing_doubles_nothing_and_charges_no_bot(fault: str, tmp_path: Path) -> None:
    report = run_fault(fault, FaultOptions(**{**OPTIONS.__dict__, "work_dir": tmp_path}))
    table = format_report([report])
    logs = "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-1500:]}"
                     for log in sorted((tmp_path / fault).glob("*.log")))
    assert report.recorded == report.matches and report.feed == report.matches, f"{table}\n{report.notes}\n{logs}"
    assert (report.strikes, report.forfeits, report.timeouts, report.aborted) == (0, 0, 0, 0), \
        f"{table}\n{report.notes}\n{logs}"
    assert report.standings_equal, f"{table}\n{report.notes}\n{logs}"
    assert report.recovery_s is not None and report.ok
    # A Redis failure in the gateway's relay is handled (counted, logged once per burst), never left in a task.
    for log in (tmp_path / fault).glob("*.log"):
        assert "Task exception was never retrieved" not in log.read_text(errors="replace"), f"{log.name}\n{logs}"


def test_the_report_says_what_failed() -> None:
    clean = FaultReport("none", 12, 12, 12, 0, 0, 0, 0, True, None, 0, 10.0)
    charged = FaultReport("gateway-kill", 12, 12, 12, 0, 2, 0, 0, False, 9.5, 0, 12.0, aof_bytes=12 * 2048)
    doubled = FaultReport("redis-restart", 12, 12, 13, 0, 0, 0, 0, True, 3.0, 1, 12.0)
    assert clean.ok and not charged.ok and not doubled.ok
    table = format_report([clean, charged]).splitlines()
    assert table[2].startswith("| none | - | 12 / 12 / 12 | 0 | 0 | 0 | 0 | yes | 0 |")
    assert table[3].startswith("| gateway-kill | 9.5 | 12 / 12 / 12 | 0 | 2 | 0 | 0 | NO | 0 | 12.0 | 2 |")
