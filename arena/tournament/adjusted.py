"""A tournament's standings ranked and tiered by the opponent-adjusted batch model (pure).

The standings (:func:`arena.tournament.standings.standings`) count what each bot did; who is better than whom is the
batch Plackett-Luce model's verdict (:class:`arena.tournament.stats.plackett_luce.BatchFit`), which compares bots on
their
strengths whoever they met, where raw win rates compare bots that met different fields (the cyclic design at many
bots, a ladder). :func:`adjusted_standings` puts the rows in the batch ratings' order and takes each row's tier and
the bots it is not told apart from, with every pair's verdict, from the fit: one place computes them, every reader
(the organizer API, so the CLI and the web) shows them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from .results import MatchResult
from .standings import StandingRow, Standings
from .stats.plackett_luce import BatchRating, refit
from .stats.verdicts import Verdicts


def adjusted_standings(table: Standings, batch: Sequence[BatchRating], verdicts: Verdicts) -> Standings:
    """``table`` with its rows in the order of ``batch`` (best first; rows the fit does not know keep their order,
    after), each row's rank its place, its tier and the bots it is not told apart from the batch model's, and
    ``verdicts`` attached. Unchanged without batch ratings (standings read without the fit)."""
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
    tiers: list[list[str]] = []
    for number, row in enumerate(ranked):
        if number == 0 or row.tier != ranked[number - 1].tier:
            tiers.append([])
        tiers[-1].append(row.bot)
    return replace(table, rows=ranked, tiers=tuple(tuple(t) for t in tiers), verdicts=verdicts)


def fitted_standings(table: Standings, results: Sequence[MatchResult], participants: Iterable[str] = ()
                     ) -> tuple[Standings, list[BatchRating]]:
    """Fit the batch model on ``results`` (the ones ``table`` counts) and rank and tier ``table`` by it
    (:func:`adjusted_standings`); also the batch ratings, best first."""
    fit = refit(results, participants)
    rated = fit.ratings(table.confidence)
    return adjusted_standings(table, rated, fit.verdicts(table.confidence)), rated
