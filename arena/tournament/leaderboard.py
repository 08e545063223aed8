"""A rating pool's leaderboard, from the pool alone (pure): every bot the pool rates, ranked.

Rank, tiers and "not told apart" come from the pool's batch ratings when every bot has one (passed in by the
service), else from the stored OpenSkill ratings with the standings' tier rule. The win rate's interval is the
standings' one, from the tally's running sums per table (past ``MAX_TABLES`` tables, its sums over all tables).
docs/organizers.md (pools and leaderboards) defines every number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from arena.engine import Rules

from .results import MatchResult
from .standings import Standings, win_strata
from .stats.intervals import rate_sums_interval, stratified_rate_interval
from .stats.plackett_luce import BatchRating
from .stats.ratings import Z95, RatingFact, RatingPool, Tally
from .stats.tiers import not_told_apart, ratings_p_value, tiers_of, told_apart

VARIANT_LABELS = {"flip": "UNO Flip", "classic": "UNO"}


@dataclass(frozen=True)
class LeaderRow:
    """One bot of a pool's leaderboard."""

    rank: int
    bot: str
    rating: RatingFact
    tier: int
    indistinguishable: tuple[str, ...]
    tally: Tally
    win_rate: float | None
    win_rate_ci: tuple[float, float] | None


def leaderboard(pool: RatingPool, z: float = Z95, confidence: float = 0.95,
                batch: Mapping[str, BatchRating] | None = None) -> list[LeaderRow]:
    facts = [(bot, rating.fact(z)) for bot, rating in pool.ratings.items()]
    batch = batch or {}
    if ranks_by_batch(pool, batch):
        facts.sort(key=lambda item: (batch[item[0]].rank, -item[1].value, -item[1].matches, item[0].casefold(),
                                     item[0]))
        tiers = [batch[bot].tier for bot, _ in facts]
        same = [[bot for bot in batch[name].indistinguishable if bot in pool.ratings] for name, _ in facts]
    else:
        facts.sort(key=lambda item: (-item[1].value, -item[1].matches, item[0].casefold(), item[0]))
        apart = told_apart(facts, lambda a, b: ratings_p_value(a[1].value, a[1].sigma, b[1].value, b[1].sigma),
                           confidence)
        tiers = tiers_of(apart)
        same = [[facts[j][0] for j in others] for others in not_told_apart(apart)]
    rows = []
    for rank, ((bot, fact), tier, others) in enumerate(zip(facts, tiers, same, strict=True), start=1):
        tally = pool.tallies.get(bot, Tally())
        by_table = tally.win_sums_by_table()
        interval = (stratified_rate_interval(by_table, confidence) if by_table is not None
                    else rate_sums_interval(tally.win_sums(), confidence))
        rows.append(LeaderRow(rank, bot, fact, tier, tuple(others), tally,
                              tally.wins / tally.matches if tally.matches else None, interval))
    return rows


def ranks_by_batch(pool: RatingPool, batch: Mapping[str, BatchRating] | None) -> bool:
    """Whether :func:`leaderboard` ranks ``pool`` by ``batch``: every bot the pool rates has a batch rating."""
    return bool(pool.ratings) and batch is not None and all(bot in batch for bot in pool.ratings)


def tallies_of(table: Standings, timeouts: Mapping[str, int], refusals: Mapping[str, int],
               decisions: Mapping[str, int], scored: Iterable[MatchResult]) -> dict[str, Tally]:
    """A tournament's per-bot counters, as a rating pool adds them up: from its standings rows and their
    ``scored`` matches (the win rate's running sums over the deal groups) and its per-bot timeouts, refusals and
    decisions (every recorded match)."""
    strata = win_strata(scored)
    return {row.bot: Tally.summing(strata.get(row.bot, {}), matches=row.matches, wins=row.wins,
                                   points=row.points, forfeits=row.forfeits, timeouts=int(timeouts.get(row.bot, 0)),
                                   refusals=int(refusals.get(row.bot, 0)), decisions=int(decisions.get(row.bot, 0)),
                                   groups=row.groups)
            for row in table.rows}


def pool_label(rules: Rules, seats: int) -> str:
    """A rules pool's name for people, e.g. ``UNO Flip · target 200 · 4 seats``: the variant, the target, every
    other option that differs from its default (``stacking on``, ``scoring lowest``), and the seats per table
    (``mixed seats`` for 0)."""
    defaults = Rules(variant=rules.variant).to_dict()
    parts = [VARIANT_LABELS.get(rules.variant, rules.variant), f"target {rules.target}"]
    for name, value in rules.to_dict().items():
        if name not in ("variant", "target") and defaults.get(name) != value:
            shown = ("on" if value else "off") if isinstance(value, bool) else str(value)
            parts.append(f"{name.replace('_', ' ')} {shown}")
    parts.append(f"{seats} seats" if seats else "mixed seats")
    return " · ".join(parts)
