"""Standings on synthetic results: counts, intervals, ratings, tiers, head-to-head, deal groups."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from statistics import NormalDist

import pytest

from arena.tournament import (
    MatchResult,
    RatingPool,
    Standings,
    TournamentSpec,
    schedule,
    standings,
    t_quantile,
    z_quantile,
)
from arena.tournament.standings import HeadToHead, StandingRow, direct_differences
from arena.tournament.stats.intervals import differences_p_value, rate_interval
from tests.tournament.previous_tier_rule import rates_apart, rates_p_value

from .tournament_helpers import deal_groups, play

STRENGTH = {"ace": 10.0, "bee": 3.0, "cat": 1.0, "cow": 1.0}


def test_counts_points_and_plain_intervals() -> None:
    spec = TournamentSpec("s", tuple(STRENGTH), seats=3, deals=10, seed=4)
    res = play(schedule(spec), STRENGTH, seed=2)
    table = standings(res, participants=spec.participants)
    assert table.matches == len(res)
    for row in table.rows:
        mine = [(r, r.seats.index(row.bot)) for r in res if row.bot in r.seats]
        wins = sum(1 for r, s in mine if r.winner == s)
        scores = [r.scores[s] for r, s in mine]
        assert row.matches == len(mine) == row.groups
        assert row.wins == wins
        assert row.points == sum(scores)
        assert row.win_rate == pytest.approx(wins / len(mine))
        # one match per deal group, the groups in their tables: Wilson with the effective sample size of the
        # spread within tables (the exact Poisson bound beside an end 1 or 2 wins or losses leave: rate_interval)
        assert row.win_rate_ci == pytest.approx(_stratified_rate([(frozenset(r.seats), 1, int(r.winner == s))
                                                                   for r, s in mine]))
        assert row.mean_points == pytest.approx(sum(scores) / len(scores))
        assert row.points_ci == pytest.approx(_stratified_t([(frozenset(r.seats), float(r.scores[s]))
                                                             for r, s in mine]))
        assert row.win_rate_ci is not None and row.win_rate is not None
        lo, hi = row.win_rate_ci
        assert lo <= row.win_rate <= hi
        rating = table.pool.rating(row.bot)
        assert (row.mu, row.sigma, row.ordinal) == (rating.mu, rating.sigma, rating.ordinal)
    assert table.head_to_head is None  # 3 seats


def _stratified_rate(groups: list[tuple[frozenset[str], int, int]]) -> tuple[float, float]:
    """The win-rate interval of deal groups (table, matches, wins), computed here: the variance from each group's
    residual from its table's own rate, times G / (G - S) for G groups in S tables; a table whose groups do not vary
    adds the binomial variance at (wins + 1/2) / (matches + 1); tables of one group are pooled into one; one table:
    the spread around the overall rate."""
    by_table: dict[frozenset[str], list[tuple[int, int]]] = {}
    for table, m, w in groups:
        by_table.setdefault(table, []).append((m, w))
    lone = [cells[0] for cells in by_table.values() if len(cells) == 1]
    tables = [cells for cells in by_table.values() if len(cells) > 1] + ([lone] if lone else [])
    matches, wins, g = sum(m for _, m, _ in groups), sum(w for _, _, w in groups), len(groups)
    p = wins / matches
    within = floor = 0.0
    for cells in tables:
        cm, cw = sum(m for m, _ in cells), sum(w for _, w in cells)
        squares = sum((w - cw / cm * m) ** 2 for m, w in cells)
        if len(cells) > 1 and squares > 1e-12:
            within += squares
        else:
            share = (cw + 0.5) / (cm + 1)
            floor += cm * share * (1 - share)
    spent = len(tables)
    if len(tables) == 1:
        within, floor, spent = sum((w - p * m) ** 2 for _, m, w in groups), 0.0, 1
    variance = (g / (g - spent) * within + floor) / matches**2
    n = p * (1 - p) / variance if variance > 0 and 0 < p < 1 else float(matches)
    return rate_interval(p, n)


def _stratified_t(values: list[tuple[frozenset[str], float]]) -> tuple[float, float]:
    """The points interval of single-match groups, computed here: t around the mean, the variance from the spread
    within each table, Satterthwaite's degrees of freedom, corrected for skew by Hall's transformation
    ``g(T) = T + a T**2 + a**2 T**3 / 3 + b`` (``a`` a third, ``b`` a sixth of the estimate's skewness), inverted
    here by bisection."""
    m = sum(v for _, v in values) / len(values)
    by_table: dict[frozenset[str], list[float]] = {}
    for table, v in values:
        by_table.setdefault(table, []).append(v)
    tables = [vs for vs in by_table.values() if len(vs) > 1]
    parts = [(len(vs) * sum((v - sum(vs) / len(vs)) ** 2 for v in vs) / (len(vs) - 1), len(vs) - 1) for vs in tables]
    third = sum((v - sum(vs) / len(vs)) ** 3 for vs in tables for v in vs)
    variance = sum(v for v, _ in parts)
    df = variance**2 / sum(v * v / d for v, d in parts)
    a, b = third / variance**1.5 / 3, third / variance**1.5 / 6

    def inverse(u: float) -> float:
        low, high = -100.0, 100.0
        for _ in range(200):
            mid = (low + high) / 2
            low, high = (mid, high) if mid + a * mid**2 + a * a * mid**3 / 3 + b < u else (low, mid)
        return (low + high) / 2

    q = t_quantile(0.95, int(df))
    error = math.sqrt(variance) / len(values)
    return (m - error * inverse(q), m - error * inverse(-q))


def _p_value(table: Standings, results: list[MatchResult], a: str, b: str) -> float:
    """The p-value of one pair (the module docstring of arena.tournament.standings), computed here."""
    x, y = table.row(a), table.row(b)
    if table.order_by == "rating":
        return 2.0 * (1.0 - NormalDist().cdf(abs(x.mu - y.mu) / math.hypot(x.sigma, y.sigma)))
    direct = direct_differences(results).get((min(a, b), max(a, b)), [])
    rates = rates_p_value(x.wins, x.matches, x.groups, y.wins, y.matches, y.groups)
    return min(1.0, 2.0 * min(rates, differences_p_value(direct)))


def _apart(table: Standings, results: list[MatchResult], a: str, b: str) -> bool:
    """The definition of "told apart": Holm's procedure over every pair of the table, computed here."""
    pairs = sorted((_p_value(table, results, x.bot, y.bot), x.bot, y.bot)
                   for i, x in enumerate(table.rows) for y in table.rows[i + 1:])
    alpha = 1.0 - table.confidence
    for step, (p, x, y) in enumerate(pairs):
        if p >= alpha / (len(pairs) - step):
            return False
        if {x, y} == {a, b}:
            return True
    return False


@pytest.mark.parametrize("order_by", ["win_rate", "rating"])
def test_ordering_tiers_and_indistinguishable(order_by: str) -> None:
    spec = TournamentSpec("s", tuple(STRENGTH), seats=2, deals=30, duplicate=True, seed=9)
    results = play(schedule(spec), STRENGTH, seed=3)
    table = standings(results, order_by=order_by)
    assert table.order_by == order_by
    assert [r.rank for r in table.rows] == [1, 2, 3, 4]
    assert table.rows[0].bot == "ace"
    key = [r.mu if order_by == "rating" else r.win_rate for r in table.rows]
    assert key == sorted(key, reverse=True)  # type: ignore[type-var]
    # ace is told apart from everyone; the two equal bots are not told apart from each other
    assert table.rows[0].tier == 1 and table.tiers[0] == ("ace",)
    assert table.row("cat").tier == table.row("cow").tier
    assert "cow" in table.row("cat").indistinguishable
    # tiers partition the rows, in order: every bot of a tier is told apart from every bot of every later tier,
    # and a tier does not end where some bot above is not told apart from some bot below
    assert [b for t in table.tiers for b in t] == [r.bot for r in table.rows]
    for i, tier in enumerate(table.tiers):
        later = [b for t in table.tiers[i + 1:] for b in t]
        assert all(_apart(table, results, a, b) for a in tier for b in later)
    bots = [r.bot for r in table.rows]
    for cut in range(1, len(bots)):
        every_pair_apart = all(_apart(table, results, a, b) for a in bots[:cut] for b in bots[cut:])
        assert every_pair_apart == (table.rows[cut].tier > table.rows[cut - 1].tier)
    for row in table.rows:
        for other in table.rows:
            if other.bot != row.bot:
                assert (other.bot in row.indistinguishable) == (not _apart(table, results, row.bot, other.bot))


def test_rates_apart() -> None:
    z = z_quantile(0.95)
    assert not rates_apart(5, 10, 10, 6, 10, 10, z)
    assert rates_apart(90, 100, 100, 40, 100, 100, z)
    assert not rates_apart(10, 10, 10, 10, 10, 10, z)  # both perfect
    assert not rates_apart(0, 0, 0, 10, 10, 10, z)  # no data


def test_bad_order_by() -> None:
    with pytest.raises(ValueError, match="order_by"):
        standings([], order_by="name")


def test_ratings_can_be_skipped_for_live_standings() -> None:
    spec = TournamentSpec("s", tuple(STRENGTH), seats=2, deals=2, seed=4)
    res = play(schedule(spec), STRENGTH, seed=2)
    prior = RatingPool("k")
    fast = standings(res, pool=prior, ratings=False)
    full = standings(res, pool=prior)
    assert fast.pool == prior
    assert [(r.bot, r.wins, r.win_rate_ci) for r in fast.rows] == [
        (r.bot, r.wins, r.win_rate_ci) for r in full.rows
    ]
    assert all(r.mu == prior.mu for r in fast.rows)


def test_little_data_cannot_tell_anyone_apart() -> None:
    r = MatchResult("m", ("a", "b"), (500, 0), winner=0)
    table = standings([r], participants=["a", "b", "c"])
    assert table.tiers == (tuple(row.bot for row in table.rows),)
    c = table.row("c")
    assert c.matches == 0 and c.win_rate is None and c.win_rate_ci is None and c.points_ci is None
    assert table.row("a").points_ci is None  # one match: no interval for the mean


def test_duplicate_groups_are_the_sampling_unit() -> None:
    spec = TournamentSpec("g", tuple(STRENGTH), seats=2, deals=5, duplicate=True, seed=1)
    res = play(schedule(spec), STRENGTH, seed=5)
    table = standings(res)
    for row in table.rows:
        assert row.matches == 2 * row.groups == 30
        # the groups are the clusters, in their tables (each pair of bots its own): Wilson with the effective
        # sample size p (1 - p) / v, v from their spread within tables
        mine = [(frozenset(g.bots), 2, g.wins.get(row.bot, 0)) for g in deal_groups(res) if row.bot in g.bots]
        assert row.win_rate_ci == pytest.approx(_stratified_rate(mine))
        one_table = [(frozenset(), m, w) for _, m, w in mine]  # one table: the spread around the overall rate
        per_group = [w for _, _, w in mine]
        p = row.wins / row.matches
        v = len(per_group) / (len(per_group) - 1) * sum((w - 2 * p) ** 2 for w in per_group) / row.matches**2
        n = p * (1 - p) / v
        z2n = 1.959964**2 / n
        centre, half = (p + z2n / 2) / (1 + z2n), 1.959964 / (1 + z2n) * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
        assert _stratified_rate(one_table) == pytest.approx(rate_interval(p, n))
        if 3 <= p * n <= n - 3:  # away from the ends (rate_interval's exact Poisson bound): Wilson's
            assert _stratified_rate(one_table) == pytest.approx((centre - half, centre + half))
    groups = deal_groups(res)
    assert len(groups) == 6 * 5
    assert all(g.matches == 2 and len(g.bots) == 2 for g in groups)
    wins: Counter[str] = Counter()
    for g in groups:
        wins.update(g.wins)
    assert dict(wins) == {row.bot: row.wins for row in table.rows}


def test_head_to_head_two_seats() -> None:
    spec = TournamentSpec("h", tuple(STRENGTH), seats=2, deals=4, duplicate=True, seed=2)
    res = play(schedule(spec), STRENGTH, seed=8)
    table = standings(res)
    h2h = table.head_to_head
    assert h2h is not None
    assert sorted(h2h) == sorted(STRENGTH)
    for a in STRENGTH:
        assert a not in h2h[a]
        for b in STRENGTH:
            if a == b:
                continue
            ab, ba = h2h[a][b], h2h[b][a]
            assert ab.matches == ba.matches == 8
            assert (ab.wins, ab.losses, ab.points_for) == (ba.losses, ba.wins, ba.points_against)
            assert ab.group_wins == ba.group_losses and ab.group_draws == ba.group_draws
            assert ab.group_wins + ab.group_draws + ab.group_losses == 4
            assert ab.score == pytest.approx(ab.wins / 8)
        assert sum(c.wins for c in h2h[a].values()) == table.row(a).wins


def test_forfeits_strikes_and_lowest_scoring() -> None:
    res = [
        MatchResult(
            "m1", ("a", "b", "c"), (0, 40, 90), winner=0, scoring="lowest", strikes=(0, 2, 5), forfeits=(2,)
        ),
        MatchResult("m2", ("b", "c", "a"), (10, 30, 5), winner=0, scoring="lowest", strikes=(1, 0, 0)),
    ]
    table = standings(res)
    assert table.row("c").forfeits == 1 and table.row("c").strikes == 5
    assert table.row("b").strikes == 3
    assert res[1].ranks() == (0, 2, 1)  # a (5) finished ahead of c (30) under lowest scoring


def test_pool_prior_and_result_pool() -> None:
    spec = TournamentSpec("p", tuple(STRENGTH), seats=2, deals=2, seed=1)
    res = play(schedule(spec), STRENGTH)
    prior = RatingPool("flip:k").updated(play(schedule(TournamentSpec("old", tuple(STRENGTH))), STRENGTH))
    table = standings(res, pool=prior)
    assert table.pool == prior.updated(res)
    assert table.pool.key == "flip:k"
    shuffled = list(res) + res[:3]
    random.Random(0).shuffle(shuffled)
    assert standings(shuffled, pool=prior) == table


def test_conflicting_results_raise() -> None:
    a = MatchResult("m", ("a", "b"), (500, 0), winner=0)
    b = MatchResult("m", ("a", "b"), (0, 500), winner=1)
    with pytest.raises(ValueError, match="two different results"):
        standings([a, b])


def test_empty_standings() -> None:
    table = standings([], participants=["x", "y"])
    assert table.matches == 0 and table.head_to_head is None
    assert [r.bot for r in table.rows] == ["x", "y"]


def test_rows_and_head_to_head_read_back_from_their_json() -> None:
    spec = TournamentSpec(tournament_id="t-json", participants=tuple(STRENGTH), seats=2, deals=2, duplicate=True,
                          seed=5)
    table = standings(play(schedule(spec), STRENGTH, seed=5))
    data = json.loads(json.dumps(table.to_dict()))  # as the standings cache stores it
    assert tuple(StandingRow.from_dict(row) for row in data["rows"]) == table.rows
    assert table.head_to_head is not None
    cells = [HeadToHead.from_dict(cell) for by_opponent in data["head_to_head"].values()
             for cell in by_opponent.values()]
    assert cells == [cell for row in table.head_to_head.values() for cell in row.values()]


def test_a_bot_that_scored_nothing_gets_a_points_interval_scaled_by_the_top_score() -> None:
    """ace wins all 10 matches with 500, bee scores 0 in every one: bee's points interval is not the point [0, 0]
    but runs from 0 up to what the largest match score of the tournament allows (stats._unspread_interval)."""
    results = [MatchResult(f"z.m{i}", ("ace", "bee") if i % 2 else ("bee", "ace"),
                           (500, 0) if i % 2 else (0, 500), winner=0 if i % 2 else 1) for i in range(10)]
    table = standings(results)
    bee = table.row("bee")
    assert bee.mean_points == 0.0 and bee.points_ci == pytest.approx((0.0, 500.0 * (1.0 - 0.025 ** (1.0 / 10))))
    ace = table.row("ace")
    assert ace.points_ci == pytest.approx((500.0 * 0.025 ** (1.0 / 10), 500.0))  # at the scale: only downwards
