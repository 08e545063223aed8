"""How long the gauntlet's test runs (arena.tournament.stats.sprt_design, and the state's expected blocks and caps):
Wald's ASN against the binomial SPRT's closed form, the expected blocks left, the undecided share and the cap."""

from __future__ import annotations

import math

import pytest

from arena.tournament.stats.sprt import (
    AUTO_CAP_EVERY,
    CAP_SHARE,
    SprtConfig,
    SprtState,
    blocks_to_decision,
)
from arena.tournament.stats.sprt_design import (
    WaldFigures,
    blocks_for_share,
    tilted,
    undecided_share,
    wald_figures,
)

A = math.log(0.95 / 0.05)
"""Wald's bounds at alpha = beta = 0.05 are -A and A."""


def test_a_tilt_has_the_mean_asked_and_keeps_the_values_unseen_unseen() -> None:
    values, probs = (-0.5, 0.0, 0.5, 1.0), (0.0, 0.3, 0.5, 0.2)
    for mean in (0.05, 0.3, 0.8):
        q = tilted(values, probs, mean)
        assert sum(q) == pytest.approx(1.0) and sum(x * p for x, p in zip(values, q, strict=True)) == \
            pytest.approx(mean)
        assert q[0] == 0.0
    with pytest.raises(ValueError, match=r"has mean -0\.1"):
        tilted(values, probs, -0.1)


def test_the_asn_of_two_point_scores_is_the_binomial_sprts() -> None:
    """Scores of +-1: every distribution of mean m has P(1) = (1 + m) / 2, so the tilts are the binomial
    hypotheses and Wald's figures have a closed form (Wald 1947): at p1 the root is h = -1, P(accept H0) = beta,
    and ASN = ((1 - beta) A - beta A) / KL(p1 || p0)."""
    true = (0.45, 0.55)  # mean 0.1 = mu1
    figures = wald_figures((-1.0, 1.0), true, 0.0, 0.1, -A, A)
    kl = 0.55 * math.log(0.55 / 0.5) + 0.45 * math.log(0.45 / 0.5)
    assert figures.accept_h1 == pytest.approx(0.95)
    assert figures.drift == pytest.approx(kl)
    assert figures.blocks == pytest.approx((0.95 * A - 0.05 * A) / kl)
    at_h0 = wald_figures((-1.0, 1.0), (0.5, 0.5), 0.0, 0.1, -A, A)
    assert at_h0.accept_h1 == pytest.approx(0.05)
    kl0 = 0.5 * math.log(0.5 / 0.55) + 0.5 * math.log(0.5 / 0.45)
    assert at_h0.drift == pytest.approx(-kl0) and at_h0.blocks == pytest.approx((0.95 * A - 0.05 * A) / kl0)


def test_the_asn_where_the_drift_is_zero_is_minus_a_b_over_the_second_moment() -> None:
    z1, z0 = math.log(1.1), math.log(0.9)
    p_up = -z0 / (z1 - z0)  # E[z] = 0
    figures = wald_figures((-1.0, 1.0), (1 - p_up, p_up), 0.0, 0.1, -A, A)
    assert figures.accept_h1 == pytest.approx(0.5)
    assert figures.blocks == pytest.approx(A * A / (p_up * z1 * z1 + (1 - p_up) * z0 * z0), rel=1e-6)


def test_blocks_to_decision_extends_the_llrs_growth_so_far() -> None:
    assert blocks_to_decision(1.0, 20, -A, A) == math.ceil(20 * (A - 1.0))
    assert blocks_to_decision(-0.5, 10, -A, A) == math.ceil(10 * (A / 0.5 - 1.0))
    assert blocks_to_decision(0.0, 10, -A, A) is None
    assert blocks_to_decision(3.0, 10, -A, A) == 0


def test_the_undecided_share_is_the_inverse_gaussian_tail() -> None:
    """Drift 1, variance 1, bound 1, one block: P(T <= 1) = Phi(0) + e^2 Phi(-2)."""
    figures = WaldFigures(accept_h1=1.0, blocks=1.0, drift=1.0, spread=1.0)
    phi = 0.5 * math.erfc(2 / math.sqrt(2))
    assert undecided_share(figures, 1, -5.0, 1.0) == pytest.approx(1 - (0.5 + math.exp(2) * phi))
    shares = [undecided_share(figures, n, -5.0, 1.0) for n in range(1, 30)]
    assert shares == sorted(shares, reverse=True)
    need = blocks_for_share(figures, 0.02, -5.0, 1.0)
    assert undecided_share(figures, need, -5.0, 1.0) <= 0.02 < undecided_share(figures, need - 1, -5.0, 1.0)


def test_the_state_says_how_many_more_blocks_it_expects() -> None:
    state = SprtState(SprtConfig(mu1=0.05)).extended([0.5, 0.0, 0.5, -0.5, 1.0, 0.5, 0.0, 0.5, 0.5, 0.0] * 2)
    left = state.expected_blocks_left
    assert state.llr > 0 and left == blocks_to_decision(state.llr, state.n, *state.bounds)
    assert SprtState().expected_blocks_left is None
    few = SprtState(SprtConfig(min_nonzero=16)).extended([0.5, 0.0, 0.0, 0.0])  # 1 in 4 non-zero: 60 more at least
    assert few.expected_blocks_left is not None and few.expected_blocks_left >= 60


def test_a_short_cap_is_told_how_often_it_leaves_the_test_undecided() -> None:
    scores = [0.5, 0.0, 0.5, -0.5, 1.0, 0.5, 0.0, 0.5, -0.5, 0.0] * 3
    state = SprtState(SprtConfig(mu1=0.05, max_blocks=60)).extended(scores)
    need = state.needed_blocks
    assert need is not None and need > 60
    short = state.undecided_at(60)
    assert short is not None and short > CAP_SHARE
    at_need = state.undecided_at(need)
    assert at_need is not None and at_need <= CAP_SHARE


def test_the_automatic_cap_ends_the_test_undecided_and_stays_ended() -> None:
    config = SprtConfig(mu1=0.05, auto_cap=True, max_blocks=20_000, min_nonzero=2)
    state = SprtState(config)
    pattern = [0.5, -0.5, 0.0, 0.0, 0.5, -0.5, 0.0, 0.0, 0.25, 0.0]  # mean 0.025, between the hypotheses
    while not state.finished:
        state = state.updated(pattern[state.n % len(pattern)])
    assert state.outcome == "inconclusive" and state.stopped and state.n % AUTO_CAP_EVERY == 0
    assert state.n >= (state.needed_blocks or 0)
    again = SprtState.from_dict(state.to_dict())
    assert again == state and again.capped
