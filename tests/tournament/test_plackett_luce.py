"""The batch Plackett-Luce estimate (arena.tournament.stats.plackett_luce): the fit is the posterior's maximum, any
order
of the same results gives the same numbers, an undefeated bot keeps a finite rating, and the intervals and rank
ranges come from deal groups resampled together."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from arena.tournament import MatchResult
from arena.tournament.stats.plackett_luce import batch_ratings, fit_counts, refit, stages_of


def _duel(match_id: str, winner: str, loser: str, group: str = "") -> MatchResult:
    return MatchResult(match_id, (winner, loser), (500, 100), 0, group=group)


def _results(seed: int) -> list[MatchResult]:
    """Three bots of known strength (gamma 4, 2, 1) in 3-seat matches: finishing orders drawn from the model."""
    rng = random.Random(seed)
    gamma = {"ace": 4.0, "bee": 2.0, "cat": 1.0}
    out = []
    for m in range(300):
        left, order = list(gamma), []
        while left:
            pick = rng.choices(left, weights=[gamma[b] for b in left])[0]
            order.append(pick)
            left.remove(pick)
        seats = tuple(sorted(gamma))
        scores = tuple(500 - 100 * order.index(b) for b in seats)
        out.append(MatchResult(f"m{m:03d}", seats, scores, seats.index(order[0]), group=f"g{m // 2}"))
    return out


def test_stages_follow_the_finishing_order_down_to_the_first_tie() -> None:
    index = {"a": 0, "b": 1, "c": 2}
    full = MatchResult("x", ("a", "b", "c"), (10, 500, 30), 1)
    assert stages_of(full, index) == [(1, (1, 2, 0)), (2, (2, 0))]
    tied = MatchResult("y", ("a", "b", "c"), (10, 500, 10), 1)
    assert stages_of(tied, index) == [(1, (1, 0, 2))]


def test_the_fit_recovers_known_strengths_and_is_the_posterior_maximum() -> None:
    ratings = {b.bot: b for b in batch_ratings(_results(1), bootstrap=50)}
    assert ratings["ace"].rating - ratings["cat"].rating == pytest.approx(math.log(4.0), abs=0.3)
    assert ratings["bee"].rating - ratings["cat"].rating == pytest.approx(math.log(2.0), abs=0.3)
    assert [ratings[b].rank for b in ("ace", "bee", "cat")] == [1, 2, 3]
    for b in ratings.values():
        assert b.low <= b.rating <= b.high and b.best_rank <= b.rank <= b.worst_rank and b.matches == 300
    # one match each way between two bots plus the prior: equal, and symmetric around the reference
    even = fit_counts(Counter([(0, (0, 1)), (1, (1, 0))]), 2)
    assert even == pytest.approx([0.0, 0.0], abs=1e-9)


def test_the_same_results_in_any_order_give_the_same_numbers() -> None:
    results = _results(2)
    shuffled = list(results)
    random.Random(9).shuffle(shuffled)
    assert batch_ratings(shuffled, bootstrap=30) == batch_ratings(results, bootstrap=30)
    assert (refit(shuffled, ("ace", "cat"), 30).difference("ace", "cat", 0.95)
            == refit(results, ("ace", "cat"), 30).difference("ace", "cat", 0.95))


def test_an_undefeated_bot_stays_finite_and_a_bot_without_matches_sits_at_the_reference() -> None:
    results = [_duel(f"m{i}", "ace", "bee", group=f"g{i}") for i in range(10)]
    table = {b.bot: b for b in batch_ratings(results, participants=["new"], bootstrap=20)}
    assert math.isfinite(table["ace"].rating) and table["ace"].rating > 1.0 > -1.0 > table["bee"].rating
    assert table["new"].rating == pytest.approx(0.0) and table["new"].matches == 0
    assert (table["ace"].rank, table["new"].rank, table["bee"].rank) == (1, 2, 3)


def test_the_groups_are_resampled_together() -> None:
    # every group: one win each way; resampling groups whole keeps the two bots exactly even in every refit,
    # where resampling the matches one by one would not
    results = [m for g in range(8)
               for m in (_duel(f"{g}a", "ace", "bee", f"g{g}"), _duel(f"{g}b", "bee", "ace", f"g{g}"))]
    fitted = refit(results, bootstrap=40)
    assert all(r == pytest.approx(fitted.estimate, abs=1e-6) for r in fitted.resampled)
    # so the interval is the posterior's own standard error, the floor where the refits do not spread
    low, high = fitted.difference("ace", "bee")
    c = fitted.covariance
    assert high == pytest.approx(-low) == pytest.approx(1.959964 * math.sqrt(c[0][0] + c[1][1] - 2 * c[0][1]))


def test_separated_results_keep_an_interval() -> None:
    # one bot wins every group: every refit is the same, yet the interval does not collapse to a point
    results = [_duel(f"m{i}", "ace", "bee", group=f"g{i // 2}") for i in range(16)]
    table = {b.bot: b for b in batch_ratings(results, bootstrap=20)}
    assert table["ace"].high - table["ace"].low > 0.5 and table["ace"].low < table["ace"].rating < table["ace"].high
    # and the rank range follows the intervals: two wins do not tell the bots apart, thirty do
    few = {b.bot: b for b in batch_ratings(results[:2], bootstrap=20)}
    assert [(few[b].best_rank, few[b].worst_rank) for b in ("ace", "bee")] == [(1, 2), (1, 2)]
    many = [_duel(f"m{i}", "ace", "bee", group=f"g{i}") for i in range(30)]
    assert [(b.bot, b.best_rank, b.worst_rank) for b in batch_ratings(many, bootstrap=20)] == [("ace", 1, 1),
                                                                                              ("bee", 2, 2)]


def test_the_fit_maximises_the_likelihood_written_stage_by_stage() -> None:
    """The fit groups the stages by their set of bots (one softmax per field); it must still be the maximum of the
    posterior written here stage by stage, on 4-seat tables whose stages list their bots in finishing order."""
    from arena.tournament.stats.plackett_luce import PRIOR_GAMES
    from benchmarks.batch_fit import synthetic_pool

    results = synthetic_pool(6, 4, 300, seed=3)
    index = {f"bot{i:02d}": i for i in range(6)}
    stages = [stage for r in results for stage in stages_of(r, index)]
    assert len({tuple(sorted(field)) for _, field in stages}) < len({field for _, field in stages})
    theta = fit_counts(Counter(stages), 6)

    def log_posterior(values: list[float]) -> float:
        total = sum(values[w] - math.log(sum(math.exp(values[i]) for i in field)) for w, field in stages)
        return total + sum(PRIOR_GAMES * (t - 2.0 * math.log1p(math.exp(t))) for t in values)

    best = log_posterior(theta)
    for i in range(6):
        for step in (-1e-3, 1e-3):
            moved = [t + (step if k == i else 0.0) for k, t in enumerate(theta)]
            assert log_posterior(moved) < best


def test_the_difference_interval_takes_the_tier_tests_error_where_the_pair_met_in_some_groups() -> None:
    # a 2-seat round robin of 4 bots: each pair met in 6 of the 36 groups, so the interval of a difference is 1.96
    # times the tier test's widened error; in a field of 2 (every group a meeting) the refits' own error
    rng = random.Random(36)
    gamma = {"ace": 4.0, "bee": 1.5, "cat": 1.0, "dog": 1.0}
    results: list[MatchResult] = []
    for g in range(48):
        a, b = list(gamma)[g % 4], list(gamma)[(g // 4 + g % 4 + 1) % 4]
        if a == b:
            continue
        for seats in ((a, b), (b, a)):
            first = rng.random() < gamma[seats[0]] / (gamma[a] + gamma[b])
            results.append(MatchResult(f"m{len(results):03d}", seats, (500, 0) if first else (0, 500),
                                       0 if first else 1, group=f"g{g}"))
    fitted = refit(results, bootstrap=60)
    widened = 0
    for a, b in (("ace", "bee"), ("bee", "cat"), ("cat", "dog"), ("ace", "dog")):
        gap, error = fitted._tested_gap(a, b)
        assert fitted.difference(a, b) == pytest.approx((gap - 1.959964 * error, gap + 1.959964 * error))
        widened += error > fitted._gap(a, b)[1] + 1e-9
    assert widened  # the widening acts somewhere in this field
    pair = refit([r for r in results if set(r.seats) == {"ace", "bee"}], bootstrap=60)
    gap, error = pair._gap("ace", "bee")[:2]
    assert pair.difference("ace", "bee") == pytest.approx((gap - 1.959964 * error, gap + 1.959964 * error))
