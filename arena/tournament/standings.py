"""Standings of a tournament: counts, rates with confidence intervals, ratings, tiers, head-to-head.

:func:`standings` is a pure function of the match results (plus an optional prior rating pool),
so live standings are simply recomputed from the results recorded so far.

Definitions (``c`` is the confidence, 0.95 by default):

* **Independent unit**: a *deal group* (every seat order of one deal at one table; a single
  match without duplicate deals). Matches of a duplicate group are deliberately correlated, so
  the intervals are computed over per-group values, as fishtest and fastchess report pair
  statistics.
* **Win rate**: wins / matches. Interval: Wilson score interval for that rate with the number of
  deal groups as the sample size: the plain Wilson interval over matches without duplicate
  deals, and a conservative one with them (it assumes the matches of a group could be fully
  correlated, and never collapses to a point the way a t-interval over few groups can).
* **Mean points**: points / matches (points = the bot's final match scores). Interval: Student-t
  over per-group mean points (``None`` with fewer than 2 groups).
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
* **Cannot be told apart**, by the measure of the row order:
  - win rate: two bots are told apart when either test below says so at level c.
    Their overall win rates: a two-proportion z-test with deal groups as sample sizes and a
    continuity correction (:func:`rates_apart`; it ignores that two bots of one table are negatively correlated, so it
    is slightly optimistic in tiny fields, and it is weak with few deal groups). Their direct
    meetings (:func:`direct_differences`): per deal group where both sat, the difference of their
    wins divided by the matches they shared, tested by :func:`arena.tournament.stats.differences_apart`
    (a paired Student-t test over the groups; a sign test when every group gave the same difference).
    The direct test is what separates, at one 3-seat table of 4 duplicate deals (12 matches in 4 groups),
    a bot that never won from the bot that won 7 of their 12 matches: the rates test cannot with 4 groups.
  - rating: ``|mu_A - mu_B| <= z_c * sqrt(sigma_A**2 + sigma_B**2)`` (:func:`indistinguishable`):
    the c-level interval of the skill difference (independent normal posteriors) contains 0.
  Every row lists the bots it cannot be told apart from (this relation is not transitive).
* **Tiers** (the leaderboard mark): rows in order; a tier opens with its first bot (its leader)
  and takes every following bot not told apart from that leader; the first bot that the data
  separates from the leader opens the next tier.
* **Head-to-head** (only when every result has exactly 2 seats): per ordered pair, matches,
  wins, losses, points for and against, and the same per deal group (a group is won by the bot
  that won more of its matches).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar

from .ratings import Rating, RatingPool
from .results import MatchResult, dedupe
from .stats import differences_apart, mean_interval, win_rate_interval, z_quantile

Interval = tuple[float, float]
ORDERS = ("win_rate", "rating")
_Row = TypeVar("_Row")


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
class DealGroupSummary:
    """The matches of one deal group added up per bot."""

    group: str
    matches: int
    bots: tuple[str, ...]
    wins: Mapping[str, int] = field(hash=False)
    points: Mapping[str, int] = field(hash=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "matches": self.matches,
            "bots": list(self.bots),
            "wins": {b: self.wins[b] for b in self.bots},
            "points": {b: self.points[b] for b in self.bots},
        }


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
        }


def deal_groups(results: Iterable[MatchResult]) -> list[DealGroupSummary]:
    """Results added up per deal group (sorted by group id)."""
    acc: dict[str, list[MatchResult]] = defaultdict(list)
    for r in dedupe(results):
        acc[r.deal_group].append(r)
    out: list[DealGroupSummary] = []
    for group in sorted(acc):
        items = acc[group]
        bots = sorted({b for r in items for b in r.seats})
        wins = dict.fromkeys(bots, 0)
        points = dict.fromkeys(bots, 0)
        for r in items:
            for seat, bot in enumerate(r.seats):
                points[bot] += r.scores[seat]
                if r.winner == seat:
                    wins[bot] += 1
        out.append(DealGroupSummary(group, len(items), tuple(bots), wins, points))
    return out


def indistinguishable(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float, z: float) -> bool:
    """True when the data cannot tell the two ratings apart at critical value ``z``."""
    return abs(mu_a - mu_b) <= z * math.sqrt(sigma_a * sigma_a + sigma_b * sigma_b)


def ratings_apart(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float, z: float) -> bool:
    """The rating measure of "told apart": the contrary of :func:`indistinguishable`."""
    return not indistinguishable(mu_a, sigma_a, mu_b, sigma_b, z)


def tiers_by_leader(rows: Sequence[_Row], apart: Callable[[_Row, _Row], bool]) -> list[int]:
    """The tier rule (the leaderboard mark), for ``rows`` in order: a tier opens with its first row (its leader)
    and takes every following row not told ``apart`` from that leader; the first row told apart from the leader
    opens the next tier. Returns each row's tier, from 1."""
    tiers: list[int] = []
    leader: _Row | None = None
    for row in rows:
        if leader is None or apart(leader, row):
            leader = row
            tiers.append((tiers[-1] if tiers else 0) + 1)
        else:
            tiers.append(tiers[-1])
    return tiers


def not_told_apart(rows: Sequence[_Row], apart: Callable[[_Row, _Row], bool]) -> list[list[int]]:
    """For each row, the indexes of the other rows it is not told ``apart`` from (in row order)."""
    return [[j for j, other in enumerate(rows) if j != i and not apart(row, other)] for i, row in enumerate(rows)]


def rates_apart(
    wins_a: int, matches_a: int, groups_a: int, wins_b: int, matches_b: int, groups_b: int, z: float
) -> bool:
    """Two-proportion z-test on win rates, with deal groups as the sample sizes and Yates' continuity correction.

    True when ``|p_a - p_b| - (1/g_a + 1/g_b) / 2 > z * sqrt(p (1 - p) (1/g_a + 1/g_b))`` with ``p`` the pooled
    rate. The correction keeps the normal approximation honest with few samples, close to Fisher's exact test:
    without it, 2 wins of 2 against 0 of 2 counted as told apart at 95 % (an exact test gives p = 0.33). A bot
    without matches is never told apart from anyone.
    """
    if not (matches_a and matches_b and groups_a and groups_b):
        return False
    p_a, p_b = wins_a / matches_a, wins_b / matches_b
    pooled = (p_a * groups_a + p_b * groups_b) / (groups_a + groups_b)
    spread = 1.0 / groups_a + 1.0 / groups_b
    se = math.sqrt(max(0.0, pooled * (1.0 - pooled)) * spread)
    return abs(p_a - p_b) - spread / 2.0 > z * se


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


def _unranked_row(bot: str, tally: _Tally, rating: Rating, confidence: float, z: float) -> StandingRow:
    """The bot's row before the rows are put in order (rank, tier and who it cannot be told apart from unset)."""
    groups = list(tally.groups.values())
    matches = sum(g[0] for g in groups)
    wins = sum(g[1] for g in groups)
    points = sum(g[2] for g in groups)
    return StandingRow(
        rank=0,
        tier=0,
        bot=bot,
        matches=matches,
        wins=wins,
        win_rate=wins / matches if matches else None,
        win_rate_ci=win_rate_interval(wins, matches, len(groups), confidence),
        points=points,
        mean_points=points / matches if matches else None,
        points_ci=mean_interval([g[2] / g[0] for g in groups], confidence),
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        rating_ci=rating.interval(z),
        indistinguishable=(),
        groups=len(groups),
        forfeits=tally.forfeits,
        strikes=tally.strikes,
    )


_Apart = Callable[[StandingRow, StandingRow], bool]


def _by_rating(rows: list[StandingRow], z: float) -> _Apart:
    """Order ``rows`` by rating (``order_by="rating"``); the measure that tells two rows apart."""
    rows.sort(key=lambda p: (-p.mu, -(p.win_rate or 0.0), p.bot))

    def apart(a: StandingRow, b: StandingRow) -> bool:
        return ratings_apart(a.mu, a.sigma, b.mu, b.sigma, z)

    return apart


def _by_win_rate(rows: list[StandingRow], ordered: Sequence[MatchResult], confidence: float, z: float) -> _Apart:
    """Order ``rows`` by win rate (``order_by="win_rate"``); the measure that tells two rows apart."""
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

    def apart(a: StandingRow, b: StandingRow) -> bool:
        if rates_apart(a.wins, a.matches, a.groups, b.wins, b.matches, b.groups, z):
            return True
        pair = (a.bot, b.bot) if a.bot < b.bot else (b.bot, a.bot)
        return differences_apart(direct.get(pair, ()), confidence)

    return apart


def _ranked(rows: Sequence[StandingRow], apart: _Apart) -> tuple[StandingRow, ...]:
    """``rows`` (in order) with their rank, tier and the rows they cannot be told apart from."""
    tier_numbers = tiers_by_leader(rows, apart)
    same = not_told_apart(rows, apart)
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
    unranked = [_unranked_row(bot, tallies[bot], rated.rating(bot), confidence, z) for bot in bots]
    apart = _by_rating(unranked, z) if order_by == "rating" else _by_win_rate(unranked, ordered, confidence, z)
    rows = _ranked(unranked, apart)
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
