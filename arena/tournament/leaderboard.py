"""A rating pool's leaderboard, from the pool alone (pure): every bot the pool rates, ranked by its rating.

Definitions (the same numbers every reader shows; nothing is recomputed elsewhere):

* **Rating**: the pool's stored OpenSkill estimate, as :meth:`arena.tournament.stats.ratings.Rating.fact` gives it:
  value ``mu``, ``sigma``, and ``mu -/+ 1.96 sigma`` (the API's deprecated ``rating_low``/``rating_high``: wider
  than a 95% interval where measured, so no page shows it).
* **Rank**, **tiers** and **not told apart**: by the pool's *batch* ratings when they are given (every bot of the
  pool has one: :func:`arena.tournament.stats.plackett_luce.batch_ratings` over the pool's results, order-independent,
  its intervals measured to cover): the batch rank, then the rating, matches and name; the tiers and the bots not
  told apart are the batch ratings' own (their differences tested with Holm's control over all the pairs, the
  standings' tier rule). Without them (a pool with no results kept): by rating descending, then by matches
  descending, then by name (without case, then exactly), with the same tier rule
  (:func:`arena.tournament.standings.told_apart`, :func:`arena.tournament.standings.tiers_of`) on the rating
  measure (:func:`arena.tournament.standings.ratings_p_value`). OpenSkill's own difference test holds two copies of
  one bot together 98.8-99.5% of the time instead of 95% (docs/benchmarks.md): it ranks only
  where no batch rating is given (a pool whose results are gone); it stays the matchmaking's estimate, and no page
  shows its interval (a competition's pool is fitted on its current entries only, so a new version of a bot
  starts afresh there too: :func:`arena.tournament.competition.current_results`).
* **Counters**: the pool's :class:`~arena.tournament.stats.ratings.Tally` of the bot (every tournament applied to the
  pool, each once); the win rate ``wins / matches`` with its interval, unset without matches: the standings'
  interval, deal groups as clusters in their tables (:func:`arena.tournament.stats.intervals.stratified_rate_interval`
  on the
  tally's running sums per table); where the pool counted some of the bot's tournaments before it kept sums per
  table (2026-12-03), the same without tables (:func:`arena.tournament.stats.intervals.rate_sums_interval` on the sums
  over
  all tables, wider where the bot's opponents differ much); before it kept any sums, Wilson with the deal groups as
  the sample size (:func:`arena.tournament.stats.intervals.win_rate_interval`; ``win_rate_clustered`` False says so).
* **Batch rating**: computed by :func:`arena.tournament.stats.plackett_luce.batch_ratings` over the pool's results (the
  service layer reads them and caches the ratings) and passed in.

:func:`tallies_of` turns a tournament's standings and per-bot counters into the tallies a pool adds up.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from arena.engine import Rules

from .results import MatchResult
from .standings import Standings, win_strata
from .stats.intervals import rate_sums_interval, stratified_rate_interval, win_rate_interval
from .stats.plackett_luce import BatchRating
from .stats.ratings import Z95, RatingFact, RatingPool, Tally
from .stats.tiers import not_told_apart, ratings_p_value, tiers_of, told_apart

VARIANT_LABELS = {"flip": "UNO Flip", "classic": "UNO"}


@dataclass(frozen=True)
class LeaderRow:
    """One bot of a pool's leaderboard (see the module docstring)."""

    rank: int
    bot: str
    rating: RatingFact
    tier: int
    indistinguishable: tuple[str, ...]
    tally: Tally
    win_rate: float | None
    win_rate_ci: tuple[float, float] | None
    win_rate_clustered: bool


def leaderboard(pool: RatingPool, z: float = Z95, confidence: float = 0.95,
                batch: Mapping[str, BatchRating] | None = None) -> list[LeaderRow]:
    """Every bot rated in ``pool``, ranked (see the module docstring)."""
    facts = [(bot, rating.fact(z)) for bot, rating in pool.ratings.items()]
    batch = batch or {}
    if ranks_by_batch(pool, batch):
        facts.sort(key=lambda item: (batch[item[0]].rank, -item[1].value, -item[1].matches, item[0].casefold(),
                                     item[0]))
        tiers = [batch[bot].tier for bot, _ in facts]
        same = [[bot for bot in batch[name].indistinguishable if bot in pool.ratings] for name, _ in facts]
    else:
        facts.sort(key=lambda item: (-item[1].value, -item[1].matches, item[0].casefold(), item[0]))

        def p_value(a: tuple[str, RatingFact], b: tuple[str, RatingFact]) -> float:
            return ratings_p_value(a[1].value, a[1].sigma, b[1].value, b[1].sigma)

        apart = told_apart(facts, p_value, confidence)
        tiers = tiers_of(apart)
        same = [[facts[j][0] for j in others] for others in not_told_apart(apart)]
    rows = []
    for rank, ((bot, fact), tier, others) in enumerate(zip(facts, tiers, same, strict=True), start=1):
        tally = pool.tallies.get(bot, Tally())
        sums, by_table = tally.win_sums(), tally.win_sums_by_table()
        interval = (stratified_rate_interval(by_table, confidence) if by_table is not None
                    else rate_sums_interval(sums, confidence) if sums is not None
                    else win_rate_interval(tally.wins, tally.matches, tally.groups, confidence))
        rows.append(LeaderRow(rank, bot, fact, tier, tuple(others), tally,
                              tally.wins / tally.matches if tally.matches else None, interval, sums is not None))
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
