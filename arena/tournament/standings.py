"""Standings of a tournament: counts, rates with confidence intervals, ratings, tiers, head-to-head.

:func:`standings` is a pure function of the match results (plus an optional prior rating pool), so live standings
are recomputed from the results recorded so far. The independent unit is the *deal group* (every seat order of one
deal at one table), the clusters of both intervals (:mod:`arena.tournament.stats.intervals`). Rows are ordered by
win rate (then mean points, forfeit share, ``mu``, name) or by rating; every pair of rows gets one p-value by that
measure and Holm's procedure over all the pairs decides which are told apart, and the tiers follow
(:mod:`arena.tournament.stats.tiers`). Raw win rates are fair only where every bot met the same field: published
standings are re-ranked by the batch model (:func:`arena.tournament.adjusted.fitted_standings`). Every definition,
and what is measured, is in docs/organizers.md (standings, intervals) and docs/benchmarks.md (tiers, intervals).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
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
    """One bot's line on the leaderboard."""

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
        data = asdict(self)
        for name in ("win_rate_ci", "points_ci", "rating_ci", "indistinguishable"):
            data[name] = None if data[name] is None else list(data[name])
        return data

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
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HeadToHead:
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


@dataclass(frozen=True)
class Standings:
    """The leaderboard plus what it was computed from; ``pool`` is the prior pool with these results applied."""

    rows: tuple[StandingRow, ...]
    tiers: tuple[tuple[str, ...], ...]
    head_to_head: Mapping[str, Mapping[str, HeadToHead]] | None = field(hash=False)
    pool: RatingPool
    matches: int
    confidence: float
    order_by: str = "win_rate"
    verdicts: Verdicts = field(default_factory=Verdicts)
    """Set by :func:`arena.tournament.adjusted.adjusted_standings`; empty here."""

    def row(self, bot: str) -> StandingRow:
        for r in self.rows:
            if r.bot == bot:
                return r
        raise KeyError(bot)

    def to_dict(self) -> dict[str, Any]:
        h2h = None if self.head_to_head is None else {
            a: {b: cell.to_dict() for b, cell in sorted(row.items())} for a, row in sorted(self.head_to_head.items())
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
        for (i, a), (j, b) in itertools.combinations(enumerate(r.seats), 2):
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
            outcome = 1 if r.winner == seat else -1 if r.winner == 1 - seat else 0
            cell["wins"] += outcome == 1
            cell["losses"] += outcome == -1
            group_score[(bot, other, r.deal_group)] += outcome  # a match without winner: the group still counts
    for (bot, other, _group), score in group_score.items():
        key = "group_wins" if score > 0 else "group_losses" if score < 0 else "group_draws"
        cells[(bot, other)][key] += 1
    return {a: {b: HeadToHead(bot=a, opponent=b, **cells.get((a, b), {})) for b in bots if b != a} for a in bots}


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
    """Every bot's win-rate running sums per table (:func:`table_key`): what a rating pool keeps of a tournament to
    make the standings' interval of all its tournaments together."""
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
    """A bot's win-rate and mean-points intervals from its deal groups (the one place they are made); ``top_score``:
    the tournament's largest match score, the scale of a points interval whose groups came out alike."""
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
    return lambda a, b: ratings_p_value(a.mu, a.sigma, b.mu, b.sigma)


def _by_win_rate(rows: list[StandingRow], ordered: Sequence[MatchResult], tallies: Mapping[str, _Tally],
                 table_of: Mapping[str, frozenset[str]]) -> _PValue:
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

    def p_value(a: StandingRow, b: StandingRow) -> float:
        rates = rate_difference_p_value(tallies[a.bot].groups, tallies[b.bot].groups, table_of)
        pair = (a.bot, b.bot) if a.bot < b.bot else (b.bot, a.bot)
        return min(1.0, 2.0 * min(rates, differences_p_value(direct.get(pair, ()))))

    return p_value


def _ranked(rows: Sequence[StandingRow], p_value: _PValue, confidence: float) -> tuple[StandingRow, ...]:
    apart = told_apart(rows, p_value, confidence)
    tier_numbers = tiers_of(apart)
    same = not_told_apart(apart)
    return tuple(replace(row, rank=rank, tier=tier, indistinguishable=tuple(rows[j].bot for j in others))
                 for rank, (row, tier, others) in enumerate(zip(rows, tier_numbers, same, strict=True), start=1))


def tier_groups(rows: Sequence[StandingRow]) -> tuple[tuple[str, ...], ...]:
    """The bots of each tier, rows in order."""
    return tuple(tuple(row.bot for row in tier) for _, tier in itertools.groupby(rows, key=lambda row: row.tier))


def standings(
    results: Iterable[MatchResult],
    *,
    participants: Iterable[str] = (),
    pool: RatingPool | None = None,
    confidence: float = 0.95,
    order_by: str = "win_rate",
    ratings: bool = True,
) -> Standings:
    """The standings of ``results`` (any order; a match id counts once). ``participants`` adds bots without a
    result yet; ``pool`` is the prior rating pool; ``order_by`` also picks the measure behind the tiers;
    ``ratings=False`` skips the rating update (fast live standings: the prior pool's ratings, ``pool`` unchanged)."""
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
    p_value = _by_rating(unranked) if order_by == "rating" else _by_win_rate(unranked, ordered, tallies, table_of)
    rows = _ranked(unranked, p_value, confidence)
    two_seat = bool(ordered) and all(len(r.seats) == 2 for r in ordered)
    return Standings(
        rows=rows,
        tiers=tier_groups(rows),
        head_to_head=_head_to_head(ordered, bots) if two_seat else None,
        pool=rated,
        matches=len(ordered),
        confidence=confidence,
        order_by=order_by,
    )
