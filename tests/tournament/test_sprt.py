"""The sequential test of the gauntlet (arena.tournament.sprt): bounds, LLR, decisions, caps, and its error
rates over many seeded simulated runs."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from arena.tournament import EndReason, MatchResult
from arena.tournament.sprt import (
    SprtConfig,
    SprtFinished,
    SprtState,
    block_score,
    finish_points,
    simulate,
    simulated_block_score,
)


def binomial_upper_tail(successes: int, trials: int, rate: float) -> float:
    """P(X >= successes) for X ~ Binomial(trials, rate)."""
    def log_pmf(k: int) -> float:
        return (math.lgamma(trials + 1) - math.lgamma(k + 1) - math.lgamma(trials - k + 1)
                + k * math.log(rate) + (trials - k) * math.log1p(-rate))

    return sum(math.exp(log_pmf(k)) for k in range(successes, trials + 1))


def test_bounds_are_walds() -> None:
    config = SprtConfig(alpha=0.05, beta=0.1)
    lower, upper = config.bounds
    assert lower == pytest.approx(math.log(0.1 / 0.95))
    assert upper == pytest.approx(math.log(0.9 / 0.05))
    assert SprtState(config).bounds == (lower, upper)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mu0": 0.1, "mu1": 0.1}, "mu0 < mu1"),
        ({"mu1": 1.5}, "mu1 <= 1"),
        ({"alpha": 0.0}, "alpha must be between 0 and 0.5"),
        ({"beta": 0.5}, "beta must be between 0 and 0.5"),
        ({"min_blocks": 1}, "min_blocks must be at least 2"),
        ({"min_blocks": 10, "max_blocks": 5}, "max_blocks (5) must be at least min_blocks (10)"),
    ],
)
def test_bad_configs_name_the_problem(options: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        SprtConfig(**options)  # type: ignore[arg-type]


def test_mean_variance_and_llr_follow_the_formula() -> None:
    scores = [0.5, -0.25, 1.0, 0.0, 0.25, -0.5, 0.75]
    config = SprtConfig(mu0=0.0, mu1=0.2)
    state = SprtState(config).extended(scores)
    n = len(scores)
    mean = statistics.fmean(scores)
    v = statistics.pvariance(scores)
    assert state.n == n
    assert state.mean == pytest.approx(mean)
    assert state.variance == pytest.approx(statistics.variance(scores))
    assert state.llr == pytest.approx(n / 2 * math.log((v + mean**2) / (v + (mean - 0.2) ** 2)))


def test_llr_is_zero_before_two_blocks_and_points_the_right_way() -> None:
    config = SprtConfig(mu0=0.0, mu1=0.1)
    assert SprtState(config).llr == 0.0
    assert SprtState(config).updated(1.0).llr == 0.0
    assert SprtState(config).extended([0.5, 0.25, 0.75]).llr > 0
    assert SprtState(config).extended([-0.5, 0.0, -0.25]).llr < 0


def test_no_decision_before_min_blocks_then_a_sticky_one() -> None:
    config = SprtConfig(mu0=0.0, mu1=0.2, min_blocks=15)
    state = SprtState(config)
    for score in [1.0, 0.75] * 7:
        state = state.updated(score)
        assert state.decision is None and state.outcome == "running"
    assert state.llr > config.bounds[1]  # enough evidence already, but fewer blocks than min_blocks
    state = state.updated(1.0)
    assert state.decision == "H1" and state.finished and state.n == 15
    with pytest.raises(SprtFinished, match="over after 15 blocks"):
        state.updated(-1.0)


def test_identical_scores_reject_without_dividing_by_zero() -> None:
    state = SprtState(SprtConfig(min_blocks=3)).extended([0.0, 0.0, 0.0])
    assert math.isfinite(state.llr)
    assert state.decision == "H0"


def test_the_cap_leaves_the_question_open() -> None:
    config = SprtConfig(mu0=0.0, mu1=0.1, min_blocks=2, max_blocks=4)
    state = SprtState(config).extended([0.5, -0.5, 0.25, -0.2])
    assert state.decision is None and state.capped and state.outcome == "inconclusive"
    lower, upper = state.bounds
    assert lower < state.llr < upper
    with pytest.raises(SprtFinished):
        state.updated(0.0)


@pytest.mark.parametrize("bad", [1.5, -1.01, float("nan"), float("inf")])
def test_a_score_outside_the_range_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="between -1 and 1"):
        SprtState().updated(bad)


def test_state_round_trips_through_a_dict() -> None:
    state = SprtState(SprtConfig(mu1=0.2, alpha=0.01, max_blocks=50)).extended([0.25, -0.5, 0.75])
    again = SprtState.from_dict(state.to_dict())
    assert again == state
    assert again.llr == state.llr
    with pytest.raises(ValueError, match="unknown decision"):
        SprtState.from_dict({**state.to_dict(), "decision": "maybe"})


def test_line_shows_llr_and_bounds() -> None:
    state = SprtState(SprtConfig()).extended([0.5, 0.0])
    assert "LLR" in state.line() and f"{state.bounds[1]:.3f}" in state.line() and "running" in state.line()


def result(seats: tuple[str, ...], scores: tuple[int, ...], winner: int | None) -> MatchResult:
    return MatchResult("m1", seats, scores, winner, end_reason=EndReason.TARGET)


def test_finish_points_run_from_one_to_zero_and_share_ties() -> None:
    two = result(("a", "b"), (510, 0), 0)
    assert [finish_points(two, s) for s in range(2)] == [1.0, 0.0]
    three = result(("a", "b", "c"), (40, 520, 90), 1)
    assert [finish_points(three, s) for s in range(3)] == [0.0, 1.0, 0.5]
    tied = result(("a", "b", "c"), (500, 30, 30), 0)
    assert [finish_points(tied, s) for s in range(3)] == [1.0, 0.25, 0.25]
    with pytest.raises(ValueError, match="seat 3 out of range"):
        finish_points(three, 3)


def test_block_score_is_the_mean_difference() -> None:
    assert block_score([1.0, 0.5, 0.0], [0.0, 0.5, 0.5]) == pytest.approx(1 / 6)
    with pytest.raises(ValueError, match="at least one seat"):
        block_score([], [])
    with pytest.raises(ValueError):
        block_score([1.0], [0.0, 1.0])


def test_the_simulation_model_has_the_mean_it_is_given() -> None:
    rng = random.Random(3)
    draws = [simulated_block_score(rng.random, 0.2, seats=3) for _ in range(20_000)]
    assert statistics.fmean(draws) == pytest.approx(0.2, abs=0.01)
    with pytest.raises(ValueError, match="mean"):
        simulated_block_score(rng.random, 0.8)


def test_a_clearly_better_candidate_is_accepted_and_an_equal_one_rejected() -> None:
    config = SprtConfig(mu0=0.0, mu1=0.1)
    better = simulate(config, mean=0.4, runs=200, seed=11)
    assert better.accepted == 200
    equal = simulate(config, mean=0.0, runs=200, seed=12)
    assert equal.rejected >= 180


ERROR_RUNS = 1500


@pytest.mark.parametrize(("alpha", "beta"), [(0.05, 0.05), (0.1, 0.02)])
def test_error_rates_stay_within_the_set_ones(alpha: float, beta: float) -> None:
    """At the edges of the hypotheses (true mean mu0, then mu1) the share of wrong answers over many seeded
    runs is not significantly above alpha (beta): a one-sided binomial test at 1%, and within 20% of it."""
    config = SprtConfig(mu0=0.0, mu1=0.2, alpha=alpha, beta=beta)
    at_h0 = simulate(config, mean=0.0, runs=ERROR_RUNS, seed=101)
    at_h1 = simulate(config, mean=0.2, runs=ERROR_RUNS, seed=202)
    assert at_h0.inconclusive == at_h1.inconclusive == 0
    assert at_h0.accepted / ERROR_RUNS <= alpha * 1.2
    assert binomial_upper_tail(at_h0.accepted, ERROR_RUNS, alpha) > 0.01
    assert at_h1.rejected / ERROR_RUNS <= beta * 1.2
    assert binomial_upper_tail(at_h1.rejected, ERROR_RUNS, beta) > 0.01
