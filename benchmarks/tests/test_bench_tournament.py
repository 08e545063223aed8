"""`python -m benchmarks tournament` runs end to end on a tiny tournament (figures printed, not asserted)."""

from __future__ import annotations

import io

import pytest

from benchmarks.cli import build_parser
from benchmarks.tournament import run_tournament_bench


@pytest.mark.integration
def test_bench_tournament_prints_its_figures() -> None:
    out = io.StringIO()
    figures = run_tournament_bench(out, matches=6, target=50, workers=(1,), rounds=1)
    text = out.getvalue()
    assert [f.label for f in figures] == ["in process", "Celery, 1 worker"]
    assert all(f.matches == 6 and f.rate > 0 for f in figures)
    assert "matches/s" in text and "Celery 1 worker / in process" in text


def test_bench_tournament_is_a_bench_command() -> None:
    args = build_parser().parse_args(["tournament", "--matches", "12"])
    assert args.matches == 12 and args.target_score == 500 and args.rounds == 3
