"""A tournament's results as a file (pure): CSV of every recorded match (aborted ones too), or JSON of the tournament,
its standings and its matches. Until the tournament ended, its seeds are 0 for anyone but the admin.
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
    CSV = "csv"
    JSON = "json"


@dataclass(frozen=True)
class ExportFile:
    content_type: str
    filename: str
    data: bytes


def export_results(fmt: ExportFormat, record: TournamentRecord, results: Mapping[str, StoredResult],
                   progress: Progress, reveal: SeedReveal, standings: Mapping[str, Any],
                   secrets_shown: bool) -> ExportFile:
    """The export of tournament ``record`` in ``fmt``; ``secrets_shown``: whether the caller sees the seeds."""
    tid = record.tournament_id
    if fmt is ExportFormat.CSV:
        matches = [r.result for r in results.values()]
        return ExportFile("text/csv", f"{tid}-results.csv", results_to_csv(matches).encode())
    # Until the tournament ends, its spec's seed is 0 and its secret left out.
    spec = record.spec if secrets_shown else {k: v for k, v in dict(record.spec, seed=0).items() if k != "seed_secret"}
    recorded = [dict(results[m].to_dict(), seed=results[m].seed if secrets_shown else 0) for m in sorted(results)]
    document = {
        "tournament": {
            "tournament_id": tid,
            "status": record.status,
            "spec": spec,
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
