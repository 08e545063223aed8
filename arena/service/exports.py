"""A tournament's results as a file (pure: built from typed records, no I/O): CSV of every recorded match, or
JSON of the tournament, its standings and its matches.

Seeds follow :func:`arena.service.visibility.sees_secrets`: until the tournament ended, the seed of its spec and
the deal seeds of its matches are 0 for anyone but the admin. Aborted matches are exported too; their
``end_reason`` says so.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from arena.store.result_store import Progress, StoredResult
from arena.store.tournament_store import TournamentRecord
from arena.tournament import results_to_csv

from .lifecycle import SeedReveal


class ExportFormat(Enum):
    """The file formats of an export."""

    CSV = "csv"
    JSON = "json"


@dataclass(frozen=True)
class ExportFile:
    """An export: its media type, a file name and its bytes."""

    content_type: str
    filename: str
    data: bytes


def export_results(fmt: ExportFormat, record: TournamentRecord, results: Mapping[str, StoredResult],
                   progress: Progress, reveal: SeedReveal, standings: Mapping[str, Any],
                   secrets_shown: bool) -> ExportFile:
    """The export of tournament ``record`` in ``fmt`` (``standings``: the standings payload; ``secrets_shown``:
    whether the caller sees the seeds)."""
    tid = record.tournament_id
    if fmt is ExportFormat.CSV:
        matches = [r.result for r in results.values()]
        return ExportFile("text/csv", f"{tid}-results.csv", results_to_csv(matches).encode())
    recorded = [dict(results[m].to_dict(), seed=results[m].seed if secrets_shown else 0) for m in sorted(results)]
    document = {
        "tournament": {
            "tournament_id": tid,
            "status": record.status,
            "spec": record.spec if secrets_shown else _hidden(record.spec),
            "matches_total": int(record.extra.get("matches_total") or 0) or progress.scheduled,
            "matches_done": progress.done,
            "matches_failed": progress.counters.get("aborted", 0),
            "created_at": record.created_at,
            "seed_commitment": reveal.commitment,
            "revealed_seed": reveal.seed,
            "seed_salt": reveal.salt,
            "seed_secret": reveal.secret,
        },
        "standings": dict(standings),
        "matches": recorded,
    }
    data = json.dumps(document, indent=2, sort_keys=True).encode()
    return ExportFile("application/json", f"{tid}-results.json", data)


def _hidden(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A stored spec without what stays secret until the tournament ends (its seed 0, no secret)."""
    return {key: value for key, value in dict(spec, seed=0).items() if key != "seed_secret"}
