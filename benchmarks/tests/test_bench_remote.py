"""`python -m benchmarks remote`: its figures computed right from recorded matches (pure, no processes), its options
refused in one line, and a tiny real run (integration) whose printed figures are there and agree with each other.

The command is reached through `python -m benchmarks`'s parser (:func:`benchmarks.cli.build_parser`).
No speed is asserted (benchmarks report speed, tests do not).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from arena.store import StoredResult
from arena.tournament import MatchResult
from arena.tournament.status import TournamentStatus
from benchmarks import remote_figures as figures
from benchmarks.cli import build_parser
from benchmarks.fleet import TournamentRun
from benchmarks.remote import PassFigures, RemoteOptions, check_options, deals_for, fill_figures
from benchmarks.swarm import SwarmStats
from benchmarks.traffic import ServerTraffic


def spans(*intervals: tuple[float, float], seats: int = 2, decisions: int = 10) -> list[figures.MatchSpan]:
    return [figures.MatchSpan(start, end, seats, decisions) for start, end in intervals]


def test_in_flight_mean_is_the_durations_over_the_wall_time() -> None:
    assert figures.in_flight_mean(spans((0, 2), (1, 3), (2, 4)), 4.0) == 1.5
    assert math.isnan(figures.in_flight_mean(spans((0, 1)), 0.0))


def test_in_flight_max_is_the_most_overlapping_intervals() -> None:
    assert figures.in_flight_max([]) == 0
    assert figures.in_flight_max(spans((0, 2), (1, 3), (2.5, 4))) == 2
    assert figures.in_flight_max(spans((0, 1), (1, 2), (2, 3))) == 1  # one ends where the next starts
    assert figures.in_flight_max(spans((0, 10), (1, 2), (1.5, 3), (1.8, 1.9))) == 4
    assert figures.in_flight_max(spans((0, 1), (0, 1), (0, 1))) == 3


def test_a_span_ends_when_the_match_finished() -> None:
    match = figures.span(finished_at=100.0, duration_s=2.5, seats=4, decisions=80)
    assert (match.start, match.end, match.duration, match.seats) == (97.5, 100.0, 2.5, 4)


def test_utilisation_is_seat_seconds_over_what_the_bots_offer() -> None:
    played = spans((0, 2), seats=4) + spans((0, 1), seats=2)
    assert figures.seat_seconds(played) == 10
    assert figures.utilisation(played, bots=4, capacity=2, wall_s=2.0) == 10 / 16
    assert figures.table_bound(32, 4, 4) == 32 and figures.table_bound(4, 2, 3) == 8 / 3


def test_per_decision_ratios_and_rss_per_match() -> None:
    assert figures.ratio(1200, 100) == 12 and math.isnan(figures.ratio(5, 0))
    assert figures.rss_per_match(300.0, 200.0, 5.0, 1.0) == 25.0
    assert math.isnan(figures.rss_per_match(300.0, 200.0, 1.2, 1.0))  # hardly more in flight: no figure
    assert math.isnan(figures.rss_per_match(300.0, 200.0, math.nan, 1.0))


def stored(match_id: str, finished_at: float, duration_s: float, decisions: tuple[int, ...]) -> StoredResult:
    seats = tuple(f"bot-{i}" for i in range(len(decisions)))
    result = MatchResult(match_id, seats, (0,) * len(seats), 0)
    return StoredResult(result, "t-1", 1, (0,) * len(seats), (0,) * len(seats), duration_s=duration_s,
                        finished_at=finished_at, decisions=decisions)


def test_a_pass_figures_from_its_recorded_matches() -> None:
    recorded = [stored("m1", 12.0, 2.0, (30, 30)), stored("m2", 13.0, 2.0, (20, 20)), stored("m3", 16.0, 2.0, (50, 50))]
    run = TournamentRun("t-1", 3, 0, TournamentStatus.FINISHED, elapsed_s=8.0)
    result = PassFigures("run", "unset")
    traffic = ServerTraffic({"publish": 1500, "rpush": 500}, 30_000, 10_000)
    fill_figures(result, run, recorded, worker_cpu_s=4.0, redis=traffic, bots=4, capacity=2, seats=2)
    assert result.ok and result.matches_recorded == 3 and result.decisions == 200
    assert result.decisions_per_s == 25.0
    assert result.in_flight_mean == 6.0 / 8.0 and result.in_flight_max == 2  # m1 [10,12] and m2 [11,13] overlap
    assert result.bound_tables == 4.0 and result.mean_of_bound == result.in_flight_mean / 4
    assert result.max_of_bound == 0.5
    assert result.utilisation == 12.0 / (4 * 2 * 8.0)
    assert result.worker_cpu_pct == 50.0
    assert result.commands_per_decision == 10.0 and result.bytes_per_decision == 200.0
    # all three share bot-0 and bot-1, two slots each: m1 and m2 at once, m3 after the first ends
    assert result.ideal_wall_s == 4.0 and result.ideal_in_flight_mean == 6.0 / 4.0


def played(match_id: str, bots: str, duration_s: float) -> figures.PlayedMatch:
    return figures.PlayedMatch(match_id, frozenset(bots), duration_s)


def test_the_ideal_starts_each_match_the_instant_its_bots_are_free() -> None:
    # a, b, c offer one match each: ab and bc share b, so bc waits for ab; ac waits for both; then alone
    assert figures.ideal_wall([played("m1", "ab", 2.0), played("m2", "bc", 3.0), played("m3", "ac", 1.0)], 1) == 6.0
    # a later match that fits starts at once (work-conserving): cd beside ab, and bc after both
    assert figures.ideal_wall([played("m1", "ab", 2.0), played("m2", "bc", 3.0), played("m3", "cd", 4.0)], 1) == 7.0
    # with two slots each, all three start together
    assert figures.ideal_wall([played("m1", "ab", 2.0), played("m2", "bc", 3.0), played("m3", "ac", 1.0)], 2) == 3.0
    assert figures.ideal_wall([], 4) == 0.0


def test_server_traffic_subtracts() -> None:
    later, earlier = ServerTraffic({"get": 150}, 1000, 3000), ServerTraffic({"get": 100}, 400, 600)
    assert later.since(earlier) == ServerTraffic({"get": 50}, 600, 2400) and later.since(earlier).net_bytes == 3000


def test_the_deals_cover_the_matches_asked_for() -> None:
    assert deals_for(RemoteOptions()) == 6  # 32 bots at 4 seats: 96 tables; 576 matches
    assert deals_for(RemoteOptions(), RemoteOptions().baseline_matches) == 1
    assert deals_for(RemoteOptions(bots=4, seats=2, matches=12)) == 2  # 6 tables
    assert deals_for(RemoteOptions(bots=4, seats=2, matches=13)) == 3


@pytest.mark.parametrize(("changes", "flag"), [
    ({"seats": 5, "bots": 4}, "--seats"), ({"seats": 1}, "--seats"), ({"capacity": 0}, "--capacity"),
    ({"limit": 0}, "--limit"), ({"think_ms": -1.0}, "--think-ms"), ({"workers": 0}, "--workers"),
])
def test_bad_options_are_named(changes: dict[str, Any], flag: str) -> None:
    with pytest.raises(ValueError, match=flag):
        check_options(RemoteOptions(**changes))


def test_the_command_refuses_bad_options_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["remote", "--bots", "3", "--seats", "4"])
    assert args.func(args) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "--seats" in captured.err and captured.out == ""
    for bad in (["--bots", "0"], ["--think-ms", "-5"], ["--limit", "x"]):
        with pytest.raises(SystemExit) as refused:
            build_parser().parse_args(["remote", *bad])
        assert refused.value.code == 2
        assert bad[0] in capsys.readouterr().err


def test_swarm_figures_are_read_back(tmp_path: Path) -> None:
    path = tmp_path / "swarm.json"
    assert SwarmStats.read(path) is None
    path.write_text(json.dumps({"pid": 7, "bots": 2, "errors": 1, "error_samples": ["x"], "unknown": 1}))
    assert SwarmStats.read(path) == SwarmStats(pid=7, bots=2, errors=1, error_samples=["x"])


@pytest.mark.integration
def test_bench_remote_smoke(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Both passes, tiny: 4 bots of capacity 2 at 2 seats, one worker process, the 6 matches of the round robin."""
    args = build_parser().parse_args(["remote", "--bots", "4", "--capacity", "2", "--seats", "2", "--workers", "1",
                                "--think-ms", "2", "--matches", "6", "--baseline-matches", "6", "--limit", "2",
                                "--work-dir", str(tmp_path), "--json"])
    status = args.func(args)
    captured = capsys.readouterr()
    report: dict[str, Any] = json.loads(captured.out)
    assert status == 0 and report["ok"], captured.err
    run, baseline = report["passes"]
    assert (run["name"], run["limit"], baseline["name"], baseline["limit"]) == ("run", "2", "baseline", "1")
    for figures_of_pass in (run, baseline):
        assert figures_of_pass["state"] == "finished" and figures_of_pass["matches_recorded"] == 6
        assert figures_of_pass["decisions"] > 0 and figures_of_pass["decisions_per_s"] > 0
        assert 0 < figures_of_pass["in_flight_mean"] <= figures_of_pass["in_flight_max"] <= 4
        assert figures_of_pass["bound_tables"] == 4.0
        assert figures_of_pass["mean_of_bound"] == pytest.approx(figures_of_pass["in_flight_mean"] / 4)
        assert 0 < figures_of_pass["utilisation"] <= 1
        assert figures_of_pass["worker_processes"] == 2 and figures_of_pass["worker_cpu_pct"] > 0
        assert 0 < figures_of_pass["worker_rss_bytes"] <= figures_of_pass["worker_peak_rss_bytes"]
        assert figures_of_pass["commands_per_decision"] > 0 and figures_of_pass["bytes_per_decision"] > 0
        assert figures_of_pass["kit_errors"] == 0, figures_of_pass["error_samples"]
    assert report["decisions_per_s_ratio"] == pytest.approx(run["decisions_per_s"] / baseline["decisions_per_s"])
    for line in ("in flight    mean", "utilisation", "decisions/s", "commands and", "worker       CPU",
                 "compared     decisions/s", "result       OK"):
        assert line in captured.err
