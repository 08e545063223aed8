"""A tournament's standings ranked and tiered by the opponent-adjusted batch model (pure).

The standings count what each bot did; who is better is the batch Plackett-Luce model's verdict
(:mod:`arena.tournament.stats.plackett_luce`), which compares bots whoever they met, where raw win rates compare bots
that met different fields (the cyclic design at many bots, a ladder). One place computes it; every reader shows it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from .results import MatchResult
from .standings import StandingRow, Standings, tier_groups
from .stats.plackett_luce import BatchRating, refit
from .stats.verdicts import Verdicts


def adjusted_standings(table: Standings, batch: Sequence[BatchRating], verdicts: Verdicts) -> Standings:
    """``table`` with its rows in the order of ``batch`` (rows the fit does not know after, in their order), ranks,
    tiers and "not told apart" from the batch model, and ``verdicts`` attached. Unchanged without batch ratings."""
    if not batch:
        return table
    by_bot = {rating.bot: rating for rating in batch}
    place = {rating.bot: number for number, rating in enumerate(batch)}
    rows = sorted(table.rows, key=lambda row: (place.get(row.bot, len(place)), row.rank))
    last_tier = max((rating.tier for rating in batch), default=0)

    def adjusted(number: int, row: StandingRow) -> StandingRow:
        rating = by_bot.get(row.bot)
        if rating is None:
            return replace(row, rank=number, tier=last_tier + 1)
        return replace(row, rank=number, tier=rating.tier, indistinguishable=rating.indistinguishable)

    ranked = tuple(adjusted(number, row) for number, row in enumerate(rows, start=1))
    return replace(table, rows=ranked, tiers=tier_groups(ranked), verdicts=verdicts)


def fitted_standings(table: Standings, results: Sequence[MatchResult], participants: Iterable[str] = ()
                     ) -> tuple[Standings, list[BatchRating]]:
    """Fit the batch model on ``results`` (the ones ``table`` counts) and rank and tier ``table`` by it; also the
    batch ratings, best first."""
    fit = refit(results, participants)
    rated = fit.ratings(table.confidence)
    return adjusted_standings(table, rated, fit.verdicts(table.confidence)), rated
