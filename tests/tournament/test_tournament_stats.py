"""Interval helpers against published values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament import mean_interval, t_quantile, wilson_interval, z_quantile
from arena.tournament.stats.intervals import t_two_sided_mass

# two-sided 95% and 99% Student-t critical values (standard tables)
T95 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    10: 2.228,
    20: 2.086,
    30: 2.042,
    60: 2.000,
    120: 1.980,
}
T99 = {1: 63.657, 2: 9.925, 5: 4.032, 10: 3.169, 30: 2.750, 120: 2.617}


@pytest.mark.parametrize(("df", "value"), sorted(T95.items()))
def test_t_95(df: int, value: float) -> None:
    assert t_quantile(0.95, df) == pytest.approx(value, abs=1e-3)


@pytest.mark.parametrize(("df", "value"), sorted(T99.items()))
def test_t_99(df: int, value: float) -> None:
    assert t_quantile(0.99, df) == pytest.approx(value, abs=1e-3)


def _t_mass(t: float, df: float) -> float:
    """``P(|T| <= t)`` for a fractional ``df``, by Simpson's rule over the density (a check independent of
    the arena's closed forms)."""
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    steps = 4000
    h = t / steps
    total = sum((1 if i in (0, steps) else 4 if i % 2 else 2) * c * (1 + (i * h) ** 2 / df) ** (-(df + 1) / 2)
                for i in range(steps + 1))
    return 2 * total * h / 3


@pytest.mark.parametrize("df", [1.3, 1.5, 2.3, 3.3, 5.3, 12.5])
def test_t_quantile_between_whole_degrees_of_freedom(df: float) -> None:
    from arena.tournament.stats.intervals import _beta_regularized, t_quantile_between

    value = t_quantile_between(0.95, df)
    assert t_quantile(0.95, math.floor(df) + 1) < value < t_quantile(0.95, math.floor(df))
    assert _t_mass(value, df) == pytest.approx(0.95, abs=1e-6)
    assert t_quantile_between(0.95, 4.0) == t_quantile(0.95, 4)
    for whole in (1, 2, 3, 7):  # the beta function's mass agrees with the closed forms at whole numbers
        t = t_quantile(0.95, whole)
        assert 1 - _beta_regularized(whole / (whole + t * t), whole / 2, 0.5) == pytest.approx(0.95, abs=1e-9)
    with pytest.raises(ValueError):
        t_quantile_between(0.95, 0.5)


def test_t_large_df_tends_to_normal_and_is_continuous() -> None:
    assert t_quantile(0.95, 10**6) == pytest.approx(z_quantile(0.95), abs=1e-5)
    assert t_quantile(0.95, 200) == pytest.approx(t_quantile(0.95, 201), abs=1e-4)
    assert z_quantile(0.95) == pytest.approx(1.959964, abs=1e-6)


@given(df=st.integers(1, 200), t=st.floats(0.01, 50))
@settings(max_examples=100, deadline=None)
def test_t_mass_is_a_probability(df: int, t: float) -> None:
    assert 0.0 <= t_two_sided_mass(t, df) <= 1.0


def test_wilson_known_values() -> None:
    lo, hi = wilson_interval(5, 10)  # type: ignore[misc]
    assert (lo, hi) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson_interval(0, 0) is None


def test_mean_interval() -> None:
    assert mean_interval([1.0]) is None
    lo, hi = mean_interval([1.0, 2.0, 3.0, 4.0])  # type: ignore[misc]
    half = 3.182446 * math.sqrt(1.6666667 / 4)
    assert (lo, hi) == pytest.approx((2.5 - half, 2.5 + half), abs=1e-5)
    assert mean_interval([3.0, 3.0, 3.0]) == (3.0, 3.0)


def test_bad_confidence() -> None:
    with pytest.raises(ValueError, match="confidence"):
        z_quantile(1.0)


def test_cluster_rate_interval_is_wilson_with_the_clusters_effective_size() -> None:
    from arena.tournament.stats.intervals import Cluster, cluster_rate_interval

    assert cluster_rate_interval([]) is None
    # every group won: no spread, so the matches are the sample size (Wilson of 8 of 8), never a point
    assert cluster_rate_interval([Cluster(2, 2)] * 4) == pytest.approx(wilson_interval(8, 8))
    # single-match groups: Wilson with n - 1 (the unbiased spread of n binary values)
    singles = [Cluster(1, 1)] * 6 + [Cluster(1, 0)] * 4
    assert cluster_rate_interval(singles) == pytest.approx(wilson_interval(0.6 * 9, 9))
    # duplicate pairs split 1-1 spread less than independent matches would: a narrower interval
    split = cluster_rate_interval([Cluster(2, 1)] * 7 + [Cluster(2, 2), Cluster(2, 0)])
    independent = wilson_interval(9, 18)
    assert split is not None and independent is not None
    assert split[1] - split[0] < independent[1] - independent[0]
    # fully correlated pairs (2-0 or 0-2) are as informative as their groups alone
    correlated = cluster_rate_interval([Cluster(2, 2)] * 5 + [Cluster(2, 0)] * 5)
    assert correlated == pytest.approx(wilson_interval(0.5 * 9, 9))


def test_the_win_rate_takes_the_spread_within_tables() -> None:
    """Weakened beside its copy, heuristic and random: 1 of 2 against the copy, 0 against heuristic, 2 against
    random in every pair. Its opponents' difference is design, not chance: within tables only the copy's table
    varies (times G / (G - S): a rate per table costs a degree of freedom each); a table that does not vary adds the
    binomial variance at its rate moved half a win each way."""
    from arena.tournament.stats.intervals import (
        Cluster,
        RateSums,
        cluster_rate_interval,
        rate_interval,
        rate_sums_interval,
        stratified_rate_interval,
    )

    copy = [Cluster(2, w, "copy") for w in (1, 2, 1, 0, 1, 1, 2, 0)]
    heuristic = [Cluster(2, 0, "heuristic")] * 8
    random_ = [Cluster(2, 2, "random")] * 8
    clusters = copy + heuristic + random_
    within = cluster_rate_interval(clusters)
    across = rate_sums_interval(RateSums.of(clusters))  # the interval before: the spread between tables counted
    assert within is not None and across is not None
    assert within[1] - within[0] < (across[1] - across[0]) * 0.7
    g, m, p = 24, 48, 24 / 48
    squares = sum((c.total - 0.5 * c.matches) ** 2 for c in copy)  # the copy's table: rate 1/2, from 1 win a pair
    floor = 16 * (0.5 / 17) * (16.5 / 17) * 2  # heuristic's 0 of 16 and random's 16 of 16, each moved half a win
    variance = (g / (g - 3) * squares + floor) / m**2  # 24 groups in 3 tables
    assert within == pytest.approx(rate_interval(p, p * (1 - p) / variance))
    # by stratum sums, as a pool keeps them: the same; one table: the interval without tables
    sums = [RateSums.of(cells) for cells in (copy, heuristic, random_)]
    assert stratified_rate_interval(sums) == pytest.approx(within)
    assert stratified_rate_interval([RateSums.of(copy)]) == rate_sums_interval(RateSums.of(copy))
    # tables of one group each are pooled into one table: the interval without tables
    lone = [Cluster(1, w, i) for i, w in enumerate((1, 0, 1, 1, 0, 1, 0, 1, 1, 0))]
    assert cluster_rate_interval(lone) == rate_sums_interval(RateSums.of(lone))
    assert cluster_rate_interval(clusters[:3]) is None  # 6 matches: none published


def test_cluster_mean_interval_uses_the_spread_within_strata() -> None:
    from arena.tournament.stats.intervals import SMALL_STRATUM_DF, Cluster, cluster_mean_interval, t_quantile_between

    assert cluster_mean_interval([Cluster(1, 5.0)]) is None
    values = [float(v) for v in range(1, 9)]
    plain = cluster_mean_interval([Cluster(1, v) for v in values])
    assert plain == pytest.approx(mean_interval(values))  # one stratum, no skew: the t interval
    # two strata far apart, each tight: the spread between them is design, not chance
    strata = ([Cluster(2, 2 * v, "weak") for v in (1.0, 2.0, 3.0, 4.0)]  # duplicate pairs of v points a match
              + [Cluster(2, 2 * v, "strong") for v in (101.0, 102.0, 103.0, 104.0)])
    pooled = cluster_mean_interval([Cluster(2, c.total) for c in strata])
    within = cluster_mean_interval(strata)
    assert pooled is not None and within is not None
    assert within[1] - within[0] < (pooled[1] - pooled[0]) / 10
    # equal strata: Satterthwaite gives their summed degrees of freedom (6), SMALL_STRATUM_DF fewer for strata
    # under SMALL_STRATUM (4 groups each); each stratum's spread 4/3 * 5
    half = t_quantile_between(0.95, 6 - SMALL_STRATUM_DF) * math.sqrt(2 * 4 / 3 * 5.0) / 8.0
    assert within == pytest.approx((52.5 - half, 52.5 + half))
    eight = ([Cluster(1, v, "weak") for v in values] + [Cluster(1, v + 100.0, "strong") for v in values])
    half = t_quantile(0.95, 14) * math.sqrt(2 * 8 / 7 * 42.0) / 16.0  # strata of 8: the df in full
    assert cluster_mean_interval(eight) == pytest.approx((54.5 - half, 54.5 + half))
    # single-cluster strata are pooled into one
    lone = cluster_mean_interval([Cluster(1, v, i) for i, v in enumerate(values)])
    assert lone == pytest.approx(plain)


def test_no_points_interval_from_a_table_of_few_single_matches() -> None:
    """Below MIN_SINGLE_MATCH_STRATUM single matches at one of its tables, a bot gets no points interval (4 a table
    held 89-92 %); as many duplicate pairs, or that many single matches, get one."""
    from arena.tournament.stats.intervals import MIN_SINGLE_MATCH_STRATUM, Cluster, cluster_mean_interval

    def table(size: int, matches: int, stratum: str) -> list[Cluster]:
        return [Cluster(matches, matches * (10.0 + 7 * i % 5), stratum) for i in range(size)]

    thin = MIN_SINGLE_MATCH_STRATUM - 1
    assert cluster_mean_interval(table(8, 1, "a") + table(thin, 1, "b")) is None
    assert cluster_mean_interval(table(8, 1, "a") + table(MIN_SINGLE_MATCH_STRATUM, 1, "b")) is not None
    assert cluster_mean_interval(table(thin, 2, "a") + table(thin, 2, "b")) is not None
    assert cluster_mean_interval([Cluster(1, 10.0 + i % 3, i) for i in range(8)]) is not None  # tables of one


def test_a_points_interval_of_groups_alike_is_bounded_by_the_scale() -> None:
    """A bot that scored 0 in all its 12 groups: no spread to measure, so not the point [0, 0] (it missed random's
    true mean in 10 % of replicates) but every mean whose most favourable distribution on [0, 500] could still give
    12 zeros with 2.5 % chance."""
    from arena.tournament.stats.intervals import Cluster, cluster_mean_interval

    zeros = [Cluster(1, 0.0, "t") for _ in range(12)]
    assert cluster_mean_interval(zeros) == (0.0, 0.0)  # no scale given: the estimate alone
    low, high = cluster_mean_interval(zeros, bound=500.0) or (None, None)
    assert low == 0.0 and high == pytest.approx(500.0 * (1.0 - 0.025 ** (1.0 / 12)))
    assert (1.0 - high / 500.0) ** 12 == pytest.approx(0.025)  # the mean at the bound: exactly the tail's chance
    alike = cluster_mean_interval([Cluster(2, 200.0)] * 6, bound=500.0)  # six duplicate groups of 100 a match
    assert alike is not None and alike[0] < 100.0 < alike[1] and alike[1] < 500.0
    share = 1.0 - 0.025 ** (1.0 / 6)
    assert alike == pytest.approx((100.0 - 100.0 * share, 100.0 + 400.0 * share))


def test_the_points_interval_follows_the_skew_of_the_scores() -> None:
    """UNO's scores of a bot that mostly loses: many near 0, now and then a win's 500. Hall's transformation moves
    the interval up and widens its upper side, where the rare high scores the few groups missed would be."""
    from arena.tournament.stats.intervals import Cluster, _hall_inverse, cluster_mean_interval

    scores = [0.0, 0.0, 10.0, 20.0, 35.0, 60.0, 80.0, 520.0]
    interval = cluster_mean_interval([Cluster(1, v) for v in scores])
    t = mean_interval(scores)
    assert interval is not None and t is not None
    centre = sum(scores) / len(scores)
    assert interval[1] - centre > centre - interval[0]
    assert interval[1] > t[1] and interval[0] > t[0]
    mirrored = cluster_mean_interval([Cluster(1, -v) for v in scores])  # left skew: the mirror image
    assert mirrored == pytest.approx((-interval[1], -interval[0]))
    for skew in (-1.5, -0.2, 0.0, 0.3, 2.0):
        for u in (-1.96, 0.0, 2.4):
            t_of_u = _hall_inverse(u, skew)
            a, b = skew / 3, skew / 6
            assert t_of_u + a * t_of_u**2 + a * a * t_of_u**3 / 3 + b == pytest.approx(u)


def test_intervals_need_eight_matches() -> None:
    from arena.tournament.stats.intervals import (
        MIN_INTERVAL_MATCHES,
        Cluster,
        RateSums,
        cluster_mean_interval,
        cluster_rate_interval,
        rate_sums_interval,
    )

    assert MIN_INTERVAL_MATCHES == 8
    seven = [Cluster(1, v % 2) for v in range(7)]
    eight = [Cluster(1, v % 2) for v in range(8)]
    assert cluster_rate_interval(seven) is None and cluster_mean_interval(seven) is None
    assert rate_sums_interval(RateSums.of(seven)) is None
    assert cluster_rate_interval(eight) is not None and cluster_mean_interval(eight) is not None
    assert rate_sums_interval(RateSums.of(eight)) is not None
    pairs = [Cluster(2, v % 3) for v in range(4)]  # four duplicate pairs: 8 matches
    assert cluster_rate_interval(pairs) is not None and cluster_mean_interval(pairs) is not None




def test_a_win_rate_beside_an_end_takes_the_exact_poisson_bound() -> None:
    """Wilson's interval dips below its level just inside 0 and 1: 15 wins of 16 ends at 0.989, below heuristic's
    0.994 against weakened. Beside an end 1 or 2 results leave (3 above 50 samples), that side is the exact Poisson
    bound (Brown, Cai and DasGupta's modified Wilson interval); elsewhere the interval is Wilson's."""
    from arena.tournament.stats.intervals import _gamma_quantile, rate_interval

    assert _gamma_quantile(1, 0.025) == pytest.approx(-math.log(0.975))
    assert _gamma_quantile(2, 0.025) == pytest.approx(0.2422, abs=1e-4)  # 1 - e^-t (1 + t) = 0.025
    wilson = wilson_interval(15, 16)
    low, high = rate_interval(15 / 16, 16)
    assert wilson is not None and low == pytest.approx(wilson[0]) and wilson[1] < 0.99375 < high
    assert high == pytest.approx(1.0 - -math.log(0.975) / 16)
    assert rate_interval(1 / 16, 16) == pytest.approx((-math.log(0.975) / 16, (wilson_interval(1, 16) or (0, 0))[1]))
    for wins in range(3, 14):  # away from the ends: Wilson's
        assert rate_interval(wins / 16, 16) == pytest.approx(wilson_interval(wins, 16))
    assert rate_interval(97 / 100, 100)[1] == pytest.approx(1.0 - _gamma_quantile(3, 0.025) / 100)  # 3 above 50
    assert rate_interval(1.0, 16) == pytest.approx(wilson_interval(16, 16))  # at the end itself: Wilson's
