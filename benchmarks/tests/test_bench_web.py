"""`python -m benchmarks web` at a tiny size: it records the history, times the pages, runs the tournament alone and
watched, and prints every figure (their values are the benchmark's business, not the test's)."""

from __future__ import annotations

import io

import pytest

from benchmarks.web import WebBenchOptions, percentile, run_web_bench

pytestmark = pytest.mark.timeout(600)


@pytest.mark.integration
def test_the_bench_prints_page_times_live_latency_and_the_slowdown() -> None:
    out = io.StringIO()
    options = WebBenchOptions(bots=6, matches=24, field=4, requests=3, viewers=3, live_matches=12, poll_s=0.2)
    report = run_web_bench(options, out)
    text = out.getvalue()
    assert report.matches == 24 and report.tournaments == 4  # 4 bots, 2 seats: 6 matches per tournament
    assert set(report.pages) == {"leaderboard page", "leaderboard JSON", "tournament page", "tournament JSON"}
    assert report.viewers_connected == 3 and report.deliveries >= 3 * 12
    assert report.alone_matches_per_s > 0 and report.watched_matches_per_s > 0
    for line in ("leaderboard page", "tournament JSON", "live: 3/3 viewers", "matches/s alone"):
        assert line in text


def test_bad_options_are_named() -> None:
    with pytest.raises(ValueError, match="--field must be 2 to --bots"):
        WebBenchOptions(bots=3, field=5)
    with pytest.raises(ValueError, match="--live-matches must be at least 1"):
        WebBenchOptions(live_matches=0)
    assert percentile([3.0, 1.0, 2.0, 4.0], 0.5) == 2.0 and percentile([], 0.99) == 0.0
