"""What each number of a rating table is: the legends of every table that shows a rating or an interval, and a batch
scope, said alike by the CLI and the web front."""

from __future__ import annotations

from arena.tournament.stats.intervals import MIN_INTERVAL_MATCHES

OPENSKILL_NOTE = ("OpenSkill: the online rating, updated match by match (so it depends on "
                  "the order of the matches); shown without an interval (its own uncertainty was measured wider "
                  "than a 95% interval).")
BATCH_NOTE = ("PL: the batch Plackett-Luce rating, fitted on all the matches at once (order-independent; 0 is a "
              "reference bot, +1 = e to 1 odds of finishing ahead); 95% bootstrap interval and rank range over deal "
              "groups. Leaderboards and ladders rank and tier by it.")
INTERVAL_NOTE = ("Win-rate intervals: 95%, deal groups as clusters within their tables; shown from "
                 f"{MIN_INTERVAL_MATCHES} matches of the bot (fewer cannot hold 95%).")


def batch_scope(competition_id: str) -> str:
    """What a pool's batch ratings are fitted on (a competition's: refitted at most every
    :data:`arena.service.pool_batch.COMPETITION_REFIT_S`, written out here as the web front reads no service;
    tests/workers/test_competitions.py holds the two together)."""
    if competition_id:
        return ("Over the blocks in which every seat was a current entry (a new version starts afresh), refitted "
                "at most every 30 s.")
    return "Over every match of the pool."
