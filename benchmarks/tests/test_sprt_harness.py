"""The sequential test's simulation harness (benchmarks/sprt.py): the error rates it keeps on real and synthetic
block scores, the model it simulates, and the previous test's likelihood it is compared with. A bench-tier test: it
plays thousands of simulated gauntlets."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from arena.tournament.stats.sprt import SprtConfig, regularised
from benchmarks.sprt import (
    calibrate,
    cases,
    constrained_lambda,
    empirical_likelihood_llr,
    simulate,
    simulated_block_score,
)

HARNESS_RUNS = 300
"""Gauntlets simulated per case and hypothesis in the harness test."""


def binomial_upper_tail(successes: int, trials: int, rate: float) -> float:
    """P(X >= successes) for X ~ Binomial(trials, rate)."""
    def log_pmf(k: int) -> float:
        return (math.lgamma(trials + 1) - math.lgamma(k + 1) - math.lgamma(trials - k + 1)
                + k * math.log(rate) + (trials - k) * math.log1p(-rate))

    return sum(math.exp(log_pmf(k)) for k in range(successes, trials + 1))


def test_the_constrained_fit_has_the_mean_asked_and_is_the_closest() -> None:
    values, probs = regularised([(-0.5, 3), (0.0, 10), (0.5, 6), (1.0, 1)], prior=1.0)
    assert values == [-1.0, -0.5, 0.0, 0.5, 1.0] and sum(probs) == pytest.approx(1.0)  # -1: one step below -0.5
    for mu in (-0.3, 0.0, 0.05, 0.4):
        lam = constrained_lambda(values, probs, mu)
        fitted = [p / (1 + lam * (x - mu)) for x, p in zip(values, probs, strict=True)]
        assert sum(fitted) == pytest.approx(1.0) and sum(x * p for x, p in zip(values, fitted, strict=True)) \
            == pytest.approx(mu)
        best = sum(p * math.log(f) for p, f in zip(probs, fitted, strict=True))
        for nudge in (0.001, -0.001):  # move mass among -0.5, 0, 0.5 keeping the mean: the likelihood drops
            other = list(fitted)
            other[1] += nudge / 2
            other[2] -= nudge
            other[3] += nudge / 2
            assert sum(p * math.log(f) for p, f in zip(probs, other, strict=True)) < best


def test_the_previous_llr_is_the_empirical_likelihood_of_the_two_fits() -> None:
    counts = [(-1.0, 1), (-0.5, 1), (0.0, 3), (0.5, 3), (1.0, 1)]
    values, probs = regularised(counts, 0.5, 0.0, 0.2)
    fits = []
    for mu in (0.0, 0.2):
        lam = constrained_lambda(values, probs, mu)
        fits.append([p / (1 + lam * (x - mu)) for x, p in zip(values, probs, strict=True)])
    expected = 9 * sum(p * math.log(f1 / f0) for p, f0, f1 in zip(probs, *fits, strict=True))
    assert empirical_likelihood_llr(counts, 0.0, 0.2, 0.5) == pytest.approx(expected)


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


@pytest.mark.parametrize("name", [c.name for c in cases()])
def test_the_harness_keeps_the_error_rates_on_real_and_synthetic_scores(name: str) -> None:
    """The sprt benchmark, smaller and seeded: at the edges of the hypotheses (true mean mu0, then mu1) the share of
    wrong answers is not significantly above alpha (beta), a one-sided binomial test at 1%. A wider
    indifference zone than the CLI's keeps the runs short."""
    case = next(c for c in cases() if c.name == name)
    config = SprtConfig(mu0=0.0, mu1=0.1 if "sparse" not in name else 0.05, max_blocks=5000)
    result = calibrate(case, config, HARNESS_RUNS, seed=7)
    assert result.new_h0.inconclusive == result.new_h1.inconclusive == 0
    assert binomial_upper_tail(result.new_h0.accepted, HARNESS_RUNS, config.alpha) > 0.01
    assert binomial_upper_tail(result.new_h1.rejected, HARNESS_RUNS, config.beta) > 0.01


def test_the_harness_sees_the_old_tests_failure_on_sparse_scores() -> None:
    """The normal-approximation test rejects a sparse candidate truly at mu1 far more often than beta."""
    sparse = next(c for c in cases(recorded=False) if c.name == "synthetic/sparse")
    result = calibrate(sparse, SprtConfig(mu0=0.0, mu1=0.05, max_blocks=2000), 200, seed=3, old=True)
    assert result.old_h1 is not None
    assert result.old_h1.rejected / 200 > 0.2 > result.new_h1.rejected / 200
