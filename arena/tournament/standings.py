"""Standings of a tournament: counts, rates with confidence intervals, ratings, tiers, head-to-head.

:func:`standings` is a pure function of the match results (plus an optional prior rating pool),
so live standings are simply recomputed from the results recorded so far.

Definitions (``c`` is the confidence, 0.95 by default):

* **Independent unit**: a *deal group* (every seat order of one deal at one table; a single
  match without duplicate deals). Matches of a duplicate group are deliberately correlated, so
  the intervals are computed over per-group values, as fishtest and fastchess report pair
  statistics.
* **Win rate**: wins / matches. Interval: the deal groups as clusters
  (:func:`arena.tournament.stats.intervals.cluster_rate_interval`): a Wilson score interval with the effective sample
  size
  of the clustered wins (their design effect, from the spread of the groups within each table: who meets whom is
  design, not chance), a table whose groups do not spread adding the binomial variance of its matches, so it never
  collapses to a point the way a t-interval over few groups does; beside an end, the exact Poisson bound
  (:func:`arena.tournament.stats.intervals.rate_interval`).
* **Mean points**: points / matches (points = the bot's final match scores). Interval: the deal groups as clusters
  (:func:`arena.tournament.stats.intervals.cluster_mean_interval`): a Student-t interval, its variance from the spread
  of the
  groups within each table (the bots that sat at it), Satterthwaite's degrees of freedom (0.7 fewer where a table
  holds fewer than 8 groups; ``None`` with fewer than 2 groups or a table of fewer than 6 single matches), corrected
  for skew; where the groups do not spread (all 0), bounded with the tournament's largest match score as the
  scale. Both intervals' coverage is measured on resampled real results (docs/benchmarks.md).
* **Rating**: OpenSkill Plackett-Luce ``mu`` and ``sigma`` (prior pool + these results in
  ``match_id`` order), ``ordinal = mu - 3 sigma``, interval ``mu -/+ z_c sigma``.
* **Row order** (``order_by``): ``"win_rate"`` (default): win rate descending, then mean
  points (descending; ascending when every result uses ``scoring="lowest"``), then the share of
  matches forfeited (ascending: a bot that never connected ranks below one that played and lost),
  then ``mu``, then name. ``"rating"``: ``mu`` descending, then win rate, then name. Within one balanced
  tournament every bot meets the same field, so the win rate is the direct result. The rating
  is an online estimate: applying the same matches in another order moves ``mu`` by about one
  ``sigma`` (measured on synthetic data), so it is shown with its interval and is what carries
  over between tournaments, but it does not order the table by default.
* **Told apart**, by the measure of the row order, for every pair of rows at once: each pair gets one
  p-value, and Holm's step-down procedure (:func:`arena.tournament.stats.intervals.holm`) over all the pairs of the
  table
  decides which pairs are told apart, so that the chance of telling apart *any* two bots that are truly equal is
  at most ``1 - c`` (5 %), however many bots the table holds (:func:`told_apart`).
  - win rate: the smaller of two p-values, doubled (Bonferroni over the two tests of one pair).
    Their overall win rates (:func:`rate_difference_p_value`): the difference of the two rates as a sum over
    deal groups taken as clusters, its variance from the spread of the groups table by table (a group where both
    sat counts once, so their negative correlation is accounted for; two pseudo-groups at the extremes per table
    keep a few identical groups from looking certain). Their direct meetings (:func:`direct_differences`): per
    deal group where both sat, the difference of their wins divided by the matches they shared, tested by
    :func:`arena.tournament.stats.intervals.differences_p_value` (an exact sign-flip test; Student-t beyond 64 groups
    with
    a difference). Exact means honest, not strong: 4 deal groups all won by one bot happen by chance once in 8, so
    at one 3-seat table of 4 duplicate deals nobody is told apart; with 8 deals a bot that never won is.
  - rating: the normal test of ``mu_A - mu_B`` with standard error ``sqrt(sigma_A**2 + sigma_B**2)``
    (:func:`ratings_p_value`; independent normal posteriors).
  Every row lists the bots it is not told apart from (this relation is not transitive).
* **Tiers** (the leaderboard mark): rows in order; a new tier opens between two neighbouring rows only when
  every row above is told apart from every row below (:func:`tiers_of`). So two bots in different tiers have
  been told apart. Bots of one tier are those the data cannot yet order with that confidence; more deals split
  tiers. The win-rate tiers here compare raw win rates, which is fair only where every bot met the same field; a
  tournament's published standings are ranked and tiered by the opponent-adjusted batch model instead
  (:func:`arena.tournament.adjusted.fitted_standings`, with the same tier rule); docs/benchmarks.md
  measures both.
* **Head-to-head** (only when every result has exactly 2 seats): per ordered pair, matches,
  wins, losses, points for and against, and the same per deal group (a group is won by the bot
  that won more of its matches).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .results import MatchResult, dedupe
from .stats.intervals import (
    Cluster,
    RateSums,
    cluster_mean_interval,
    cluster_rate_interval,
    differences_p_value,
    z_quantile,
)
from .stats.ratings import Rating, RatingPool
from .stats.tiers import (
    not_told_apart,
    rate_difference_p_value,
    ratings_p_value,
    tiers_of,
    told_apart,
)
from .stats.verdicts import Verdicts

Interval = tuple[float, float]
ORDERS = ("win_rate", "rating")


@dataclass(frozen=True)
class StandingRow:
    """One bot's line on the leaderboard (see the module docstring for every definition)."""

    rank: int
    tier: int
    bot: str
    matches: int
    wins: int
    win_rate: float | None
    win_rate_ci: Interval | None
    points: int
    mean_points: float | None
    points_ci: Interval | None
    mu: float
    sigma: float
    ordinal: float
    rating_ci: Interval
    indistinguishable: tuple[str, ...]
    groups: int
    forfeits: int
    strikes: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "tier": self.tier,
            "bot": self.bot,
            "matches": self.matches,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_rate_ci": list(self.win_rate_ci) if self.win_rate_ci else None,
            "points": self.points,
            "mean_points": self.mean_points,
            "points_ci": list(self.points_ci) if self.points_ci else None,
            "mu": self.mu,
            "sigma": self.sigma,
            "ordinal": self.ordinal,
            "rating_ci": list(self.rating_ci),
            "indistinguishable": list(self.indistinguishable),
            "groups": self.groups,
            "forfeits": self.forfeits,
            "strikes": self.strikes,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StandingRow:
        """A row as :meth:`to_dict` wrote it (the cached standings' JSON)."""

        def interval(value: Any) -> Interval | None:
            return (float(value[0]), float(value[1])) if value else None

        def number(value: Any) -> float | None:
            return None if value is None else float(value)

        rating_ci = interval(data.get("rating_ci")) or (float(data["mu"]), float(data["mu"]))
        return cls(rank=int(data["rank"]), tier=int(data.get("tier") or 0), bot=str(data["bot"]),
                   matches=int(data["matches"]), wins=int(data["wins"]), win_rate=number(data.get("win_rate")),
                   win_rate_ci=interval(data.get("win_rate_ci")), points=int(data["points"]),
                   mean_points=number(data.get("mean_points")), points_ci=interval(data.get("points_ci")),
                   mu=float(data["mu"]), sigma=float(data["sigma"]), ordinal=float(data.get("ordinal", 0.0)),
                   rating_ci=rating_ci, indistinguishable=tuple(data.get("indistinguishable") or ()),
                   groups=int(data.get("groups") or 0), forfeits=int(data.get("forfeits") or 0),
                   strikes=int(data.get("strikes") or 0))


@dataclass(frozen=True)
class HeadToHead:
    """``bot`` against ``opponent`` over their 2-seat matches (and deal groups)."""

    bot: str
    opponent: str
    matches: int = 0
    wins: int = 0
    losses: int = 0
    points_for: int = 0
    points_against: int = 0
    group_wins: int = 0
    group_draws: int = 0
    group_losses: int = 0

    @property
    def score(self) -> float | None:
        """(wins + draws/2) / matches, draws being matches without a winner."""
        if not self.matches:
            return None
        return (self.wins + (self.matches - self.wins - self.losses) / 2.0) / self.matches

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "opponent": self.opponent,
            "matches": self.matches,
            "wins": self.wins,
            "losses": self.losses,
            "points_for": self.points_for,
            "points_against": self.points_against,
            "group_wins": self.group_wins,
            "group_draws": self.group_draws,
            "group_losses": self.group_losses,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HeadToHead:
        """A cell as :meth:`to_dict` wrote it."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


@dataclass(frozen=True)
class Standings:
    """The leaderboard plus what it was computed from.

    ``pool`` is the prior pool with these results applied: persist it to carry ratings over to
    the next tournament of the same rating pool.
    """

    rows: tuple[StandingRow, ...]
    tiers: tuple[tuple[str, ...], ...]
    head_to_head: Mapping[str, Mapping[str, HeadToHead]] | None = field(hash=False)
    pool: RatingPool
    matches: int
    confidence: float
    order_by: str = "win_rate"
    verdicts: Verdicts = field(default_factory=Verdicts)
    """Every pair told apart or not, and what would tell the rest apart (set by
    :func:`arena.tournament.adjusted.adjusted_standings`; empty here)."""

    def row(self, bot: str) -> StandingRow:
        """The row of ``bot`` (``KeyError`` when absent)."""
        for r in self.rows:
            if r.bot == bot:
                return r
        raise KeyError(bot)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole standings (pool included)."""
        h2h = None
        if self.head_to_head is not None:
            h2h = {
                a: {b: cell.to_dict() for b, cell in sorted(row.items())}
                for a, row in sorted(self.head_to_head.items())
            }
        return {
            "matches": self.matches,
            "confidence": self.confidence,
            "order_by": self.order_by,
            "rows": [r.to_dict() for r in self.rows],
            "tiers": [list(t) for t in self.tiers],
            "head_to_head": h2h,
            "pool": self.pool.to_dict(),
            "verdicts": self.verdicts.to_dict(),
        }


def direct_differences(results: Iterable[MatchResult]) -> dict[tuple[str, str], list[float]]:
    """For every pair of bots ``(a, b)`` (``a < b``) that shared a table: per deal group where both sat (sorted
    by group), ``(wins of a - wins of b) / matches both sat in``, from -1 (b won all) to 1 (a won all)."""
    acc: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(dict)  # pair -> group -> [matches, a - b]
    for r in dedupe(results):
        for i, a in enumerate(r.seats):
            for j in range(i + 1, len(r.seats)):
                b = r.seats[j]
                diff = (1 if r.winner == i else 0) - (1 if r.winner == j else 0)
                pair, sign = ((a, b), 1) if a < b else ((b, a), -1)
                cell = acc[pair].setdefault(r.deal_group, [0, 0])
                cell[0] += 1
                cell[1] += sign * diff
    return {pair: [groups[g][1] / groups[g][0] for g in sorted(groups)] for pair, groups in acc.items()}


def _head_to_head(results: Sequence[MatchResult], bots: Sequence[str]) -> dict[str, dict[str, HeadToHead]]:
    cells: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    group_score: dict[tuple[str, str, str], int] = defaultdict(int)
    for r in results:
        for seat, bot in enumerate(r.seats):
            other = r.seats[1 - seat]
            cell = cells[(bot, other)]
            cell["matches"] += 1
            cell["points_for"] += r.scores[seat]
            cell["points_against"] += r.scores[1 - seat]
            if r.winner == seat:
                cell["wins"] += 1
                group_score[(bot, other, r.deal_group)] += 1
            elif r.winner == 1 - seat:
                cell["losses"] += 1
                group_score[(bot, other, r.deal_group)] -= 1
            else:
                group_score[(bot, other, r.deal_group)] += 0  # a match without winner: the group still counts
    for (bot, other, _group), score in group_score.items():
        key = "group_wins" if score > 0 else "group_losses" if score < 0 else "group_draws"
        cells[(bot, other)][key] += 1
    table: dict[str, dict[str, HeadToHead]] = {}
    for a in bots:
        table[a] = {}
        for b in bots:
            if a != b:
                c = cells.get((a, b), {})
                table[a][b] = HeadToHead(
                    bot=a,
                    opponent=b,
                    matches=c.get("matches", 0),
                    wins=c.get("wins", 0),
                    losses=c.get("losses", 0),
                    points_for=c.get("points_for", 0),
                    points_against=c.get("points_against", 0),
                    group_wins=c.get("group_wins", 0),
                    group_draws=c.get("group_draws", 0),
                    group_losses=c.get("group_losses", 0),
                )
    return table


@dataclass(slots=True)
class _Tally:
    """One bot's counts over the results: per deal group ``[matches, wins, points]``, forfeits and strikes."""

    groups: dict[str, list[int]] = field(default_factory=dict)
    forfeits: int = 0
    strikes: int = 0


def _tally(ordered: Sequence[MatchResult], bots: Sequence[str]) -> dict[str, _Tally]:
    tallies = {bot: _Tally() for bot in bots}
    for r in ordered:
        for seat, bot in enumerate(r.seats):
            tally = tallies[bot]
            g = tally.groups.setdefault(r.deal_group, [0, 0, 0])
            g[0] += 1
            g[1] += 1 if r.winner == seat else 0
            g[2] += r.scores[seat]
            tally.forfeits += 1 if seat in r.forfeits else 0
            tally.strikes += r.strikes_of(seat)
    return tallies


def win_strata(results: Iterable[MatchResult]) -> dict[str, dict[str, RateSums]]:
    """Every bot's win-rate running sums over its deal groups, per table (:func:`table_key`): what a rating pool
    keeps of a tournament to make the standings' interval of every tournament together
    (:func:`arena.tournament.stats.intervals.stratified_rate_interval`)."""
    ordered = dedupe(results)
    bots = sorted({b for r in ordered for b in r.seats})
    table_of = _tables(ordered)
    out: dict[str, dict[str, RateSums]] = {}
    for bot, tally in _tally(ordered, bots).items():
        cells: dict[str, list[Cluster]] = defaultdict(list)
        for group, (m, w, _) in tally.groups.items():
            cells[table_key(table_of[group])].append(Cluster(m, w))
        out[bot] = {key: RateSums.of(clusters) for key, clusters in cells.items()}
    return out


def table_key(table: Iterable[str]) -> str:
    """A table's name in a rating pool's sums: its bots, sorted, joined by commas (no bot name holds one)."""
    return ",".join(sorted(table))


def _tables(ordered: Iterable[MatchResult]) -> dict[str, frozenset[str]]:
    """Every deal group's table: the bots that sat in it."""
    seated: dict[str, set[str]] = defaultdict(set)
    for r in ordered:
        seated[r.deal_group].update(r.seats)
    return {group: frozenset(seats) for group, seats in seated.items()}


GroupTally = tuple[int, int, int, Hashable]
"""One bot's deal group: matches, wins, points, and its table (the bots that sat in it)."""


def group_intervals(groups: Sequence[GroupTally], confidence: float = 0.95,
                    top_score: float | None = None) -> tuple[Interval | None, Interval | None]:
    """A bot's win-rate and mean-points intervals from its deal groups as clusters (the one place they are made;
    the intervals benchmark measures them through here). ``top_score``: the largest match score of the
    tournament, the scale of the points interval of a bot whose groups came out alike (all 0, say)."""
    return (cluster_rate_interval([Cluster(m, w, t) for m, w, _, t in groups], confidence),
            cluster_mean_interval([Cluster(m, p, t) for m, _, p, t in groups], confidence, top_score))


def _unranked_row(bot: str, tally: _Tally, rating: Rating, confidence: float, z: float,
                  table_of: Mapping[str, Hashable], top_score: float | None) -> StandingRow:
    """The bot's row before the rows are put in order (rank, tier and who it cannot be told apart from unset)."""
    groups = list(tally.groups.values())
    matches = sum(g[0] for g in groups)
    wins = sum(g[1] for g in groups)
    points = sum(g[2] for g in groups)
    win_rate_ci, points_ci = group_intervals([(m, w, p, table_of.get(group))
                                              for group, (m, w, p) in tally.groups.items()], confidence, top_score)
    return StandingRow(
        rank=0,
        tier=0,
        bot=bot,
        matches=matches,
        wins=wins,
        win_rate=wins / matches if matches else None,
        win_rate_ci=win_rate_ci,
        points=points,
        mean_points=points / matches if matches else None,
        points_ci=points_ci,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        rating_ci=rating.interval(z),
        indistinguishable=(),
        groups=len(groups),
        forfeits=tally.forfeits,
        strikes=tally.strikes,
    )


_PValue = Callable[[StandingRow, StandingRow], float]


def _by_rating(rows: list[StandingRow]) -> _PValue:
    """Order ``rows`` by rating (``order_by="rating"``); the p-value of a pair by that measure."""
    rows.sort(key=lambda p: (-p.mu, -(p.win_rate or 0.0), p.bot))

    def p_value(a: StandingRow, b: StandingRow) -> float:
        return ratings_p_value(a.mu, a.sigma, b.mu, b.sigma)

    return p_value


def _by_win_rate(rows: list[StandingRow], ordered: Sequence[MatchResult], tallies: Mapping[str, _Tally]) -> _PValue:
    """Order ``rows`` by win rate (``order_by="win_rate"``); the p-value of a pair by that measure."""
    lowest = bool(ordered) and all(r.scoring == "lowest" for r in ordered)

    def points_key(p: StandingRow) -> float:
        if p.mean_points is None:
            return math.inf
        return p.mean_points if lowest else -p.mean_points

    rows.sort(
        key=lambda p: (
            -(p.win_rate if p.win_rate is not None else -1.0),
            points_key(p),
            p.forfeits / p.matches if p.matches else 1.0,
            -p.mu,
            p.bot,
        )
    )
    direct = direct_differences(ordered)
    tables: dict[str, set[str]] = defaultdict(set)
    for r in ordered:
        tables[r.deal_group].update(r.seats)
    table_of = {group: frozenset(bots) for group, bots in tables.items()}

    def p_value(a: StandingRow, b: StandingRow) -> float:
        rates = rate_difference_p_value(tallies[a.bot].groups, tallies[b.bot].groups, table_of)
        pair = (a.bot, b.bot) if a.bot < b.bot else (b.bot, a.bot)
        return min(1.0, 2.0 * min(rates, differences_p_value(direct.get(pair, ()))))

    return p_value


def _ranked(rows: Sequence[StandingRow], p_value: _PValue, confidence: float) -> tuple[StandingRow, ...]:
    """``rows`` (in order) with their rank, tier and the rows they are not told apart from."""
    apart = told_apart(rows, p_value, confidence)
    tier_numbers = tiers_of(apart)
    same = not_told_apart(apart)
    return tuple(replace(row, rank=rank, tier=tier, indistinguishable=tuple(rows[j].bot for j in others))
                 for rank, (row, tier, others) in enumerate(zip(rows, tier_numbers, same, strict=True), start=1))


def _tiers(rows: Sequence[StandingRow]) -> tuple[tuple[str, ...], ...]:
    """The bots of each tier, in row order."""
    tiers: list[list[str]] = []
    for row in rows:
        if row.tier > len(tiers):
            tiers.append([])
        tiers[-1].append(row.bot)
    return tuple(tuple(t) for t in tiers)


def standings(
    results: Iterable[MatchResult],
    *,
    participants: Iterable[str] = (),
    pool: RatingPool | None = None,
    confidence: float = 0.95,
    order_by: str = "win_rate",
    ratings: bool = True,
) -> Standings:
    """Compute the standings of ``results`` (any order; duplicates of a match id count once).

    ``participants`` adds bots that have no result yet (live standings); ``pool`` is the prior
    rating pool (a fresh one when ``None``); ``order_by`` is ``"win_rate"`` (default) or
    ``"rating"`` and also picks the measure behind tiers and "cannot be told apart";
    ``ratings=False`` skips the rating update (fast live standings: rows show the prior pool's
    ratings and ``pool`` is returned unchanged). See the module docstring for the definitions.
    """
    if order_by not in ORDERS:
        raise ValueError(f"order_by must be one of {', '.join(ORDERS)}, got {order_by!r}")
    z = z_quantile(confidence)
    ordered = dedupe(results)
    bots = sorted(set(participants) | {b for r in ordered for b in r.seats})
    prior = pool if pool is not None else RatingPool()
    rated = prior.updated(ordered) if ratings else prior
    tallies = _tally(ordered, bots)
    table_of = _tables(ordered)
    top_score = max((float(score) for r in ordered for score in r.scores), default=None)
    unranked = [_unranked_row(bot, tallies[bot], rated.rating(bot), confidence, z, table_of, top_score)
                for bot in bots]
    p_value = _by_rating(unranked) if order_by == "rating" else _by_win_rate(unranked, ordered, tallies)
    rows = _ranked(unranked, p_value, confidence)
    two_seat = bool(ordered) and all(len(r.seats) == 2 for r in ordered)
    return Standings(
        rows=rows,
        tiers=_tiers(rows),
        head_to_head=_head_to_head(ordered, bots) if two_seat else None,
        pool=rated,
        matches=len(ordered),
        confidence=confidence,
        order_by=order_by,
    )
