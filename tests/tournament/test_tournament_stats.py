"""Interval helpers against published values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament import mean_interval, t_quantile, wilson_interval, z_quantile
from arena.tournament.stats import t_two_sided_mass

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
