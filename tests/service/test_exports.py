"""The export of a tournament's results: the JSON lists each match as its stored JSON, exactly as the result store
wrote it (the format the export always had), with the deal seeds hidden until the end from anyone but the admin;
the CSV has a row per seat of every recorded match."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

from arena.service.exports import ExportFormat, export_results
from arena.service.lifecycle import SeedReveal
from arena.store import Store
from tests.support.records import stored_result

TID = "t-exp"


def _recorded(store: Store) -> None:
    store.tournaments.create(TID, {"tournament_id": TID, "participants": ["a", "b"], "seed": 9})
    store.tournaments.add_matches(TID, [f"{TID}.m0", f"{TID}.m1"])
    for i in range(2):
        mid = f"{TID}.m{i}"
        full = replace(stored_result(mid, tournament_id=TID, seed=40 + i), timeouts=(1, 0), refusals=(0, 2),
                       bot_versions=("1.0", "2.0"), duration_s=1.5, finished_at=1_700_000_000.25, decisions=(3, 4))
        assert store.results.record(TID, mid, full)


def _as_written(store: Store) -> dict[str, dict[str, object]]:
    """The results' JSON as stored in Redis (read raw, not through the typed record)."""
    raw = store.redis.hgetall(store.keys.tournament(TID, "results"))
    return {key.decode(): json.loads(value)["result"] for key, value in raw.items()}


def test_the_json_export_lists_the_stored_results_as_written(store: Store) -> None:
    _recorded(store)
    record = store.tournaments.get(TID)
    written = _as_written(store)
    standings = {"final": False, "standings": {"rows": []}, "status": "running"}
    reveal = SeedReveal("c0ffee", revealed=False)
    shown = export_results(ExportFormat.JSON, record, store.results.all(TID), store.results.progress(TID), reveal,
                           standings, True)
    expected = {
        "tournament": {"tournament_id": TID, "status": record.status, "spec": record.spec, "matches_total": 2,
                       "matches_done": 2, "matches_failed": 0, "created_at": record.created_at,
                       "seed_commitment": "c0ffee", "revealed_seed": 0, "seed_salt": "", "seed_secret": ""},
        "standings": standings,
        "matches": [written[mid] for mid in sorted(written)],
    }
    assert shown.data == json.dumps(expected, indent=2, sort_keys=True).encode()
    assert (shown.content_type, shown.filename) == ("application/json", f"{TID}-results.json")
    hidden = json.loads(export_results(ExportFormat.JSON, record, store.results.all(TID),
                                       store.results.progress(TID), reveal, standings, False).data)
    assert hidden["tournament"]["spec"] == dict(record.spec, seed=0)
    assert hidden["matches"] == [dict(written[mid], seed=0) for mid in sorted(written)]


def test_the_csv_export_has_a_row_per_seat_of_every_recorded_match(store: Store) -> None:
    _recorded(store)
    exported = export_results(ExportFormat.CSV, store.tournaments.get(TID), store.results.all(TID),
                              store.results.progress(TID), SeedReveal("", revealed=True), {}, True)
    rows = list(csv.DictReader(io.StringIO(exported.data.decode())))
    assert (exported.content_type, exported.filename) == ("text/csv", f"{TID}-results.csv")
    assert sorted((row["match_id"], row["bot"]) for row in rows) == [(f"{TID}.m{i}", bot) for i in range(2)
                                                                      for bot in ("a", "b")]
    assert all(row["end_reason"] == "target" for row in rows)
