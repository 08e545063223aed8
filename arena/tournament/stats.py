"""Small statistics for standings: Wilson score interval, Student-t interval, normal quantiles, and a paired
test of whether per-sample differences are centred away from 0 (:func:`differences_apart`).

No third-party dependency: the t distribution is computed from its closed form for integer
degrees of freedom (Abramowitz & Stegun 26.7.3-4) and inverted by bisection; above 200 degrees
of freedom a Cornish-Fisher expansion around the normal quantile is used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

_T_SERIES_MAX_DF = 200


def z_quantile(confidence: float) -> float:
    """Two-sided normal critical value, e.g. 1.95996 for 0.95."""
    _check_confidence(confidence)
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")


def t_two_sided_mass(t: float, df: int) -> float:
    """``P(|T| <= t)`` for Student's t with ``df`` (integer >= 1) degrees of freedom."""
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if t <= 0:
        return 0.0
    theta = math.atan(t / math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    c2 = c * c
    if df % 2 == 1:
        total = 0.0
        term = c
        for j in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * j) / (2 * j + 1)
        return min(1.0, 2.0 / math.pi * (theta + s * total))
    total = 0.0
    term = 1.0
    for j in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * j - 1) / (2 * j)
    return min(1.0, s * total)


def t_quantile(confidence: float, df: int) -> float:
    """Two-sided Student-t critical value: ``t`` with ``P(|T| <= t) == confidence``."""
    _check_confidence(confidence)
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    z = z_quantile(confidence)
    if df > _T_SERIES_MAX_DF:
        v = float(df)
        return (
            z
            + (z**3 + z) / (4 * v)
            + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        )
    lo, hi = z, max(2.0 * z, 1.0)
    while t_two_sided_mass(hi, df) < confidence:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_two_sided_mass(mid, df) < confidence:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2.0


def wilson_interval(successes: float, trials: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval for a binomial proportion; ``None`` without trials.

    ``successes`` may be fractional (rate times an effective sample size).
    """
    if trials <= 0:
        return None
    if not 0 <= successes <= trials:
        raise ValueError("successes must be between 0 and trials")
    z = z_quantile(confidence)
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(p * (1.0 - p) / trials + z2n / (4.0 * trials))
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return (low, high)


def win_rate_interval(wins: int, matches: int, samples: int,
                      confidence: float = 0.95) -> tuple[float, float] | None:
    """The interval of a win rate ``wins / matches`` measured over ``samples`` independent units (deal groups:
    the matches of one duplicate group are correlated): the Wilson interval of that rate with the units as the
    sample size. ``None`` without matches. The one win-rate interval of the arena (tournament standings and
    rating-pool leaderboards)."""
    if matches <= 0 or samples <= 0:
        return None
    return wilson_interval(wins * samples / matches, samples, confidence)


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean, ``None`` for no values."""
    return math.fsum(values) / len(values) if values else None


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """Student-t interval for the mean of ``values``; ``None`` with fewer than 2 values."""
    n = len(values)
    if n < 2:
        return None
    m = math.fsum(values) / n
    var = math.fsum((v - m) ** 2 for v in values) / (n - 1)
    half = t_quantile(confidence, n - 1) * math.sqrt(var / n)
    return (m - half, m + half)


def differences_apart(differences: Sequence[float], confidence: float = 0.95) -> bool:
    """Whether paired differences (one per independent sample, e.g. a deal group) show at level ``confidence``
    that their mean is not 0.

    A two-sided Student-t test over the differences (their own spread, so correlated matches inside a sample
    count as one sample); when every difference is the same non-zero value the spread is 0 and a t-test would
    call any two samples conclusive, so then a two-sided sign test decides (``2 * 0.5**n < 1 - confidence``:
    at 95 %, at least 6 samples all one way). Fewer than 2 samples, or a mean of 0, never tell apart.
    """
    _check_confidence(confidence)
    n = len(differences)
    if n < 2:
        return False
    m = math.fsum(differences) / n
    if abs(m) < 1e-12:
        return False
    var = math.fsum((d - m) ** 2 for d in differences) / (n - 1)
    if var <= 1e-12:
        return 2.0 * 0.5**n < 1.0 - confidence
    return abs(m) / math.sqrt(var / n) > t_quantile(confidence, n - 1)
