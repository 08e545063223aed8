"""CSV, JSON and text exports of standings and results."""

from __future__ import annotations

import csv
import io
import json

from arena.tournament import (
    MatchResult,
    Standings,
    TournamentSpec,
    head_to_head_to_csv,
    results_from_json,
    results_to_csv,
    results_to_json,
    schedule,
    standings,
    standings_to_csv,
    standings_to_json,
    standings_to_text,
)
from arena.tournament.export import HEAD_TO_HEAD_COLUMNS, RESULT_COLUMNS, STANDINGS_COLUMNS

from .tournament_helpers import play

STRENGTH = {"ace": 6.0, "bee": 2.0, "cat": 1.0}


def _setup(seats: int = 2) -> tuple[list[MatchResult], Standings]:
    spec = TournamentSpec("x", tuple(STRENGTH), seats=seats, deals=3, duplicate=True, seed=1)
    res = play(schedule(spec), STRENGTH, seed=1)
    return res, standings(res, participants=spec.participants)


def test_standings_csv() -> None:
    _, table = _setup()
    rows = list(csv.DictReader(io.StringIO(standings_to_csv(table))))
    assert tuple(rows[0]) == STANDINGS_COLUMNS
    assert [r["bot"] for r in rows] == [r.bot for r in table.rows]
    for parsed, row in zip(rows, table.rows, strict=True):
        assert int(parsed["wins"]) == row.wins
        assert float(parsed["mu"]) == round(row.mu, 6)
        assert (
            parsed["indistinguishable"].split(";") == list(row.indistinguishable) or not row.indistinguishable
        )


def test_standings_json_is_complete() -> None:
    _, table = _setup()
    data = json.loads(standings_to_json(table))
    assert data["matches"] == table.matches
    assert [r["bot"] for r in data["rows"]] == [r.bot for r in table.rows]
    assert data["pool"] == table.pool.to_dict()
    assert set(data["head_to_head"]) == set(STRENGTH)


def test_head_to_head_csv() -> None:
    _, table = _setup()
    rows = list(csv.DictReader(io.StringIO(head_to_head_to_csv(table))))
    assert tuple(rows[0]) == HEAD_TO_HEAD_COLUMNS
    assert len(rows) == 6
    _, multi = _setup(seats=3)
    assert head_to_head_to_csv(multi).strip() == ",".join(HEAD_TO_HEAD_COLUMNS)


def test_results_csv_and_json() -> None:
    res, _ = _setup()
    rows = list(csv.DictReader(io.StringIO(results_to_csv(res))))
    assert tuple(rows[0]) == RESULT_COLUMNS
    assert len(rows) == 2 * len(res)
    assert sum(int(r["winner"]) for r in rows) == len(res)
    again = results_from_json(results_to_json(res))
    assert again == sorted(res, key=lambda r: r.match_id)


def test_text_leaderboard_marks_tiers() -> None:
    _, table = _setup()
    text = standings_to_text(table)
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["rank", "tier", "bot"]
    for row in table.rows:
        assert any(line.split()[2] == row.bot for line in lines[1 : 1 + len(table.rows)])
    assert any(len(t) > 1 for t in table.tiers)  # these results leave bots not yet told apart
    assert "Not yet told apart" in text
