"""The sequential test of the gauntlet (arena.tournament.stats.sprt): bounds, the multinomial LLR, decisions, caps, the
regularisation, and its error rates over seeded runs of the calibration harness (benchmarks.sprt), smaller."""

from __future__ import annotations

import math
import statistics
from collections import Counter

import pytest

from arena.tournament import EndReason, MatchResult
from arena.tournament.stats.sprt import (
    SprtConfig,
    SprtFinished,
    SprtState,
    block_score,
    finish_points,
    multinomial_llr,
    regularised,
    support,
)


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
        ({"mu1": 1.5}, "mu1 < 1"),
        ({"mu1": 1.0}, "mu1 < 1"),
        ({"mu0": -1.0}, "-1 < mu0"),
        ({"min_nonzero": 0}, "min_nonzero must be at least 1"),
        ({"prior": 0.0}, "prior must be a positive pseudo-count"),
        ({"alpha": 0.0}, "alpha must be between 0 and 0.5"),
        ({"beta": 0.5}, "beta must be between 0 and 0.5"),
        ({"min_blocks": 1}, "min_blocks must be at least 2"),
        ({"min_blocks": 10, "max_blocks": 5}, "max_blocks (5) must be at least min_blocks (10)"),
    ],
)
def test_bad_configs_name_the_problem(options: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        SprtConfig(**options)  # type: ignore[arg-type]


def _tilt(values: list[float], probs: list[float], mu: float) -> list[float]:
    """An independent exponential tilt to mean ``mu`` (plain bisection on the tilt parameter)."""
    low, high = -50.0, 50.0
    for _ in range(200):
        t = (low + high) / 2
        weights = [p * math.exp(t * x) for x, p in zip(values, probs, strict=True)]
        if sum(w * x for w, x in zip(weights, values, strict=True)) / sum(weights) < mu:
            low = t
        else:
            high = t
    return [w / sum(weights) for w in weights]


def test_llr_is_n_times_the_expected_log_ratio_of_the_two_tilts() -> None:
    scores = [0.5, -0.5, 1.0, 0.0, 0.0, 0.5, -1.0, 0.0, 0.5]
    config = SprtConfig(mu0=0.0, mu1=0.2, prior=0.5)
    state = SprtState(config).extended(scores)
    counts = sorted(Counter(scores).items())
    values, probs = regularised(counts, 0.5, 0.0, 0.2)
    q0, q1 = _tilt(values, probs, 0.0), _tilt(values, probs, 0.2)
    expected = len(scores) * sum(p * math.log(b / a) for p, a, b in zip(probs, q0, q1, strict=True))
    assert state.n == len(scores) and state.nonzero == 6
    assert state.mean == pytest.approx(statistics.fmean(scores))
    assert state.variance == pytest.approx(statistics.variance(scores))
    assert state.llr == pytest.approx(expected) == pytest.approx(multinomial_llr(counts, 0.0, 0.2, 0.5))


def test_the_support_is_the_values_seen_and_one_step_beyond() -> None:
    """A pseudo-block at an extreme never seen (here -1) would let H0's fit reach 0 cheaply: only one grid step
    beyond the values seen is added, and -1 and 1 only when the hypotheses are otherwise out of reach."""
    assert support([-1 / 6, 0.0, 1 / 12, 0.5], 0.0, 0.05) == pytest.approx([-0.25, -1 / 6, 0.0, 1 / 12, 0.5,
                                                                            7 / 12])
    assert support([0.0, 0.5, 1.0], 0.0, 0.05) == [-0.5, 0.0, 0.5, 1.0]
    assert support([0.5], 0.0, 0.05) == [-0.5, 0.5, 1.0]  # the step is taken from 0 too: 0 stays inside
    assert support([0.0], 0.0, 0.05) == [-1.0, 0.0, 1.0]


def test_llr_is_zero_before_any_block_and_points_the_right_way() -> None:
    config = SprtConfig(mu0=0.0, mu1=0.1)
    assert SprtState(config).llr == 0.0
    assert SprtState(config).extended([0.5, 0.25, 0.75]).llr > 0
    assert SprtState(config).extended([-0.5, 0.0, -0.25]).llr < 0


def test_a_run_of_zero_blocks_decides_nothing() -> None:
    """The old normal test accepted H0 after 16 zero blocks; ties say nothing of which bot is better until
    ``min_nonzero`` blocks have scored."""
    config = SprtConfig(min_nonzero=5)
    state = SprtState(config).extended([0.0] * 2000)
    assert state.decision is None and state.nonzero == 0 and math.isfinite(state.llr)
    state = state.extended([0.5, -0.5, 0.5, -0.5])
    assert state.decision is None  # four non-zero blocks
    assert state.updated(-0.5).decision == "H0"  # the fifth: 2005 blocks, almost all ties, mean far below mu1


def test_float_noise_makes_no_new_value() -> None:
    state = SprtState().extended([0.1 + 0.2, 0.3, -0.0, 0.0])
    assert state.counts == ((0.0, 2), (0.3, 2))


def test_no_decision_before_min_blocks_then_a_sticky_one() -> None:
    config = SprtConfig(mu0=0.0, mu1=0.2, min_blocks=25, min_nonzero=2)
    state = SprtState(config)
    for score in [1.0, 0.75] * 12:
        state = state.updated(score)
        assert state.decision is None and state.outcome == "running"
    assert state.llr > config.bounds[1]  # enough evidence already, but fewer blocks than min_blocks
    state = state.updated(1.0)
    assert state.decision == "H1" and state.finished and state.n == 25
    with pytest.raises(SprtFinished, match="over after 25 blocks"):
        state.updated(-1.0)


def test_identical_non_zero_scores_decide_without_dividing_by_zero() -> None:
    state = SprtState(SprtConfig(mu1=0.2, min_blocks=3, min_nonzero=3))
    while not state.finished and state.n < 50:
        state = state.updated(-0.5)
        assert math.isfinite(state.llr)
    assert state.decision == "H0" and state.n < 50


def test_the_cap_leaves_the_question_open() -> None:
    config = SprtConfig(mu0=0.0, mu1=0.1, min_blocks=2, max_blocks=4, min_nonzero=1)
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
    assert "1 non-zero" in state.line() and "not corrected" in state.line()
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
