"""Export results as CSV (pure: returns a string)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from .results import MatchResult, dedupe

RESULT_COLUMNS = ("match_id", "group", "seat", "bot", "score", "rank", "winner", "forfeit", "strikes", "rounds",
                  "end_reason", "scoring")


def results_to_csv(results: Iterable[MatchResult]) -> str:
    """One line per seat of every match (sorted by match id), columns :data:`RESULT_COLUMNS`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(RESULT_COLUMNS)
    for r in dedupe(results):
        ranks = r.ranks()
        for seat, bot in enumerate(r.seats):
            writer.writerow((r.match_id, r.deal_group, seat, bot, r.scores[seat], ranks[seat] + 1,
                             int(r.winner == seat), int(seat in r.forfeits), r.strikes_of(seat), r.rounds,
                             r.end_reason, r.scoring))
    return buffer.getvalue()
