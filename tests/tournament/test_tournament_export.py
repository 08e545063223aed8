"""The CSV export of results."""

from __future__ import annotations

import csv
import io

from arena.tournament import MatchResult, TournamentSpec, results_to_csv, schedule
from arena.tournament.export import RESULT_COLUMNS

from .tournament_helpers import play

STRENGTH = {"ace": 6.0, "bee": 2.0, "cat": 1.0}


def _results(seats: int = 2) -> list[MatchResult]:
    spec = TournamentSpec("x", tuple(STRENGTH), seats=seats, deals=3, duplicate=True, seed=1)
    return play(schedule(spec), STRENGTH, seed=1)


def test_results_csv() -> None:
    res = _results()
    rows = list(csv.DictReader(io.StringIO(results_to_csv(res))))
    assert tuple(rows[0]) == RESULT_COLUMNS
    assert len(rows) == 2 * len(res)
    assert sum(int(r["winner"]) for r in rows) == len(res)
