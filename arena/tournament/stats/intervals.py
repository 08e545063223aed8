"""Small statistics for standings: the published intervals of a rate and of a mean over deal groups taken as
clusters in strata (their tables), paired and sign tests, Holm's step-down control, and the quantiles they need.

No third-party dependency: the t distribution from its closed form for integer degrees of freedom (Abramowitz &
Stegun 26.7.3-4), inverted by bisection, and a Cornish-Fisher expansion above 200. Every constant below was measured
by the intervals benchmark; the figures are in docs/benchmarks.md (intervals) and docs/organizers.md (intervals).
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import astuple, dataclass
from statistics import NormalDist

_T_SERIES_MAX_DF = 200

MIN_INTERVAL_MATCHES = 8
"""A win-rate or points interval is published from this many matches of the bot (``None`` below): at 4 single
matches no interval of a rate can hold 95 %."""


def z_quantile(confidence: float) -> float:
    """Two-sided normal critical value, e.g. 1.95996 for 0.95."""
    _check_confidence(confidence)
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def normal_cdf(x: float) -> float:
    """``P(Z <= x)`` for a standard normal ``Z``, from ``erfc`` (exact far into either tail)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


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
    odd = df % 2  # the series of an odd df starts at cos(theta), an even one's at 1
    total = 0.0
    term = c if odd else 1.0
    for j in range(1, (df - odd) // 2 + 1):
        total += term
        term *= c2 * (2 * j - 1 + odd) / (2 * j + odd)
    return min(1.0, 2.0 / math.pi * (theta + s * total) if odd else s * total)


@functools.lru_cache(maxsize=1024)
def t_quantile(confidence: float, df: int) -> float:
    """Two-sided Student-t critical value: ``t`` with ``P(|T| <= t) == confidence`` (remembered: a bisection)."""
    z = z_quantile(confidence)  # checks the confidence; t_two_sided_mass checks df
    if df > _T_SERIES_MAX_DF:
        v = float(df)
        return (
            z
            + (z**3 + z) / (4 * v)
            + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        )
    hi = max(2.0 * z, 1.0)
    while t_two_sided_mass(hi, df) < confidence:
        hi *= 2.0
    return _solve(lambda t: t_two_sided_mass(t, df), confidence, z, hi)


def _solve(increasing: Callable[[float], float], target: float, low: float, high: float) -> float:
    """Bisection (to 1e-12) for the ``x`` at which the increasing function reaches ``target``."""
    for _ in range(200):
        mid = (low + high) / 2.0
        if increasing(mid) < target:
            low = mid
        else:
            high = mid
        if high - low < 1e-12:
            break
    return (low + high) / 2.0


@functools.lru_cache(maxsize=1024)
def t_quantile_between(confidence: float, df: float) -> float:
    """:func:`t_quantile` at a fractional ``df`` (at least 1), from ``P(|T| <= t) = 1 - I_x(df / 2, 1 / 2)``,
    ``x = df / (df + t**2)``."""
    _check_confidence(confidence)
    if df < 1.0:
        raise ValueError("degrees of freedom must be at least 1")
    if df == math.floor(df):
        return t_quantile(confidence, int(df))
    return _solve(lambda t: 1.0 - _beta_regularized(df / (df + t * t), df / 2.0, 0.5), confidence,
                  t_quantile(confidence, math.floor(df) + 1), t_quantile(confidence, math.floor(df)))


def _beta_regularized(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)``: Lentz's continued fraction where it converges fast,
    else through ``1 - I_(1-x)(b, a)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - _beta_regularized(1.0 - x, b, a)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * fraction


def wilson_interval(successes: float, trials: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval for a binomial proportion (``successes`` may be fractional); ``None`` without
    trials."""
    if trials <= 0:
        return None
    if not 0 <= successes <= trials:
        raise ValueError("successes must be between 0 and trials")
    return _wilson(successes / trials, trials, z_quantile(confidence))


def _wilson(rate: float, n: float, z: float) -> tuple[float, float]:
    z2n = z * z / n
    centre = (rate + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(max(0.0, rate * (1.0 - rate)) / n + z2n / (4.0 * n))
    return (0.0 if rate <= 0.0 else max(0.0, centre - half), 1.0 if rate >= 1.0 else min(1.0, centre + half))


@dataclass(frozen=True)
class Cluster:
    """One deal group of a bot: its ``matches``, the ``total`` of the measure (wins, or points) and its
    ``stratum`` by design (its table: the bots that sat in it)."""

    matches: int
    total: float
    stratum: Hashable = None


@dataclass(frozen=True)
class RateSums:
    """Running sums over the clusters of a rate, enough for its interval (so a rating pool can add up clusters it no
    longer keeps): counts, and the sums of ``matches**2``, ``total**2`` and ``matches * total``."""

    clusters: int = 0
    matches: int = 0
    total: int = 0
    matches_sq: int = 0
    total_sq: int = 0
    cross: int = 0

    @classmethod
    def of(cls, clusters: Sequence[Cluster]) -> RateSums:
        return cls(len(clusters), sum(c.matches for c in clusters), sum(int(c.total) for c in clusters),
                   sum(c.matches * c.matches for c in clusters), sum(int(c.total) ** 2 for c in clusters),
                   sum(c.matches * int(c.total) for c in clusters))

    def __add__(self, other: RateSums) -> RateSums:
        return RateSums(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))


def cluster_rate_interval(clusters: Sequence[Cluster], confidence: float = 0.95) -> tuple[float, float] | None:
    """The interval of a rate (wins / matches) over clusters in strata: :func:`stratified_rate_interval` of each
    stratum's sums (clusters without a stratum are one stratum: :func:`rate_sums_interval`)."""
    strata: dict[Hashable, list[Cluster]] = defaultdict(list)
    for cluster in clusters:
        strata[cluster.stratum].append(cluster)
    return stratified_rate_interval([RateSums.of(cells) for cells in strata.values()], confidence)


def rate_sums_interval(sums: RateSums, confidence: float = 0.95) -> tuple[float, float] | None:
    """The interval of a rate over clusters of one stratum, from their running sums: :func:`rate_interval` with
    the *effective* sample size (Kish's design effect, as Korn and Graubard 1998 use it) ``n = p (1 - p) / v``, ``v``
    the linearised ratio estimator's variance ``G / (G - 1) * sum(residual**2) / matches**2``; ``n`` = the matches
    where the clusters do not spread. Not a t interval over the clusters: near 0 or 1 it collapses to a point."""
    _check_confidence(confidence)
    if sums.clusters <= 0 or sums.matches < MIN_INTERVAL_MATCHES:
        return None
    m, t, g = sums.matches, sums.total, sums.clusters
    rate = t / m
    variance = g / (g - 1) * _residual_squares(sums) / m**2 if g > 1 else 0.0
    n = rate * (1.0 - rate) / variance if variance > 0.0 and 0.0 < rate < 1.0 else float(m)
    return rate_interval(rate, n, confidence)


def stratified_rate_interval(strata: Sequence[RateSums], confidence: float = 0.95) -> tuple[float, float] | None:
    """The interval of a rate over clusters in strata, from each stratum's running sums: :func:`rate_sums_interval`'s
    effective sample size, but the variance from the clusters' spread *within* their strata (a round robin fixes who
    meets whom: the spread between opponents is design, not chance), times ``G / (G - S)`` for ``G`` clusters in
    ``S`` strata; a stratum whose clusters do not spread adds the binomial variance of its matches at
    ``(wins + 1/2) / (matches + 1)``, so it never adds nothing. Strata of a single cluster are pooled into one."""
    _check_confidence(confidence)
    kept = [cell for cell in strata if cell.clusters > 0]
    total = sum(kept, RateSums())
    if total.clusters <= 0 or total.matches < MIN_INTERVAL_MATCHES:
        return None
    lone = [cell for cell in kept if cell.clusters == 1]
    cells = [cell for cell in kept if cell.clusters > 1] + ([sum(lone, RateSums())] if lone else [])
    if len(cells) == 1:
        return rate_sums_interval(total, confidence)
    m, t, g = total.matches, total.total, total.clusters
    rate = t / m
    within = 0.0
    floor = 0.0
    for cell in cells:
        squares = _residual_squares(cell)
        if cell.clusters > 1 and squares > 0.0:
            within += squares
        else:
            share = (cell.total + 0.5) / (cell.matches + 1.0)
            floor += cell.matches * share * (1.0 - share)
    variance = (g / (g - len(cells)) * within + floor) / m**2
    n = rate * (1.0 - rate) / variance if variance > 0.0 and 0.0 < rate < 1.0 else float(m)
    return rate_interval(rate, n, confidence)


def _residual_squares(sums: RateSums) -> float:
    """``sum((total - rate * matches)**2)`` over the clusters, its numerator exact in whole numbers (clusters that do
    not spread give exactly 0)."""
    m, t = sums.matches, sums.total
    scaled = m * m * sums.total_sq - 2 * m * t * sums.cross + t * t * sums.matches_sq
    return max(0, scaled) / (m * m) if m > 0 else 0.0


def rate_interval(rate: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """The interval of every published win rate: Wilson's over ``n`` (effective) samples, except that 1 to 3 wins
    or losses (3 only above 50 samples) take the exact Poisson bound on that side where it lies further out (Brown,
    Cai and DasGupta 2001, section 4.1.1): Wilson's dips far below its level just inside the ends."""
    low, high = _wilson(rate, n, z_quantile(confidence))
    few = 2 if n <= 50 else 3
    tail = (1.0 - confidence) / 2.0
    wins, losses = rate * n, (1.0 - rate) * n
    if wins > 0.0 and round(wins) <= few:
        low = min(low, _gamma_quantile(max(1, round(wins)), tail) / n)
    if losses > 0.0 and round(losses) <= few:
        high = max(high, 1.0 - _gamma_quantile(max(1, round(losses)), tail) / n)
    return (low, high)


def _gamma_quantile(shape: int, q: float) -> float:
    """The ``q`` quantile of Gamma(``shape``, 1): the Poisson mean at which ``shape`` or more events have chance
    ``q``."""
    return _solve(lambda t: 1.0 - math.fsum(math.exp(-t) * t**j / math.factorial(j) for j in range(shape)), q,
                  0.0, float(shape) + 40.0)


SMALL_STRATUM = 8
"""A points interval with a table of fewer groups than this takes :data:`SMALL_STRATUM_DF` degrees of freedom
fewer."""

SMALL_STRATUM_DF = 0.7
"""Why: Hall's skew correction needs the groups' skew, which a few groups seldom show (calibrated on a harness
seed other than the benchmark's: docs/benchmarks.md)."""


MIN_SINGLE_MATCH_STRATUM = 6
"""A points interval is published only where every table of the bot's single matches holds at least this many of
them: Hall's correction cannot see a skew that fewer single values do not show."""


def cluster_mean_interval(clusters: Sequence[Cluster], confidence: float = 0.95,
                          bound: float | None = None) -> tuple[float, float] | None:
    """The interval of a mean per match (points / matches) over clusters: Student's t around the ratio estimate,
    its variance from the clusters' spread *within* their strata, Satterthwaite's degrees of freedom, corrected for
    UNO's skewed scores by Hall's transformation (:func:`_hall_inverse`). Strata of a single cluster are pooled.
    ``None`` with fewer than 2 clusters, below :data:`MIN_INTERVAL_MATCHES` matches, with no stratum of 2, or a
    stratum of fewer than :data:`MIN_SINGLE_MATCH_STRATUM` single matches. Where the clusters do not spread,
    :func:`_unspread_interval` bounds the mean, ``bound`` being the largest value a match may take."""
    _check_confidence(confidence)
    matches = sum(c.matches for c in clusters)
    if len(clusters) < 2 or matches < MIN_INTERVAL_MATCHES:
        return None
    estimate = math.fsum(c.total for c in clusters) / matches  # the ratio estimate, and each cluster's residual
    residuals = [c.total - estimate * c.matches for c in clusters]
    groups = _residuals_by_stratum(clusters, residuals)
    if not groups or any(len(sizes) < MIN_SINGLE_MATCH_STRATUM and max(sizes) == 1
                         for sizes in _residuals_by_stratum(clusters, [c.matches for c in clusters])):
        return None
    variance, df, third = _stratified_moments(groups)
    if variance <= 0.0:
        return _unspread_interval(estimate, len(clusters), bound, confidence)
    # Satterthwaite's df, floored (not its rounding error); fewer where a stratum is small (SMALL_STRATUM)
    fewer = SMALL_STRATUM_DF if min(len(values) for values in groups) < SMALL_STRATUM else 0.0
    quantile = t_quantile_between(confidence, max(1.0, int(df + 1e-9) - fewer))
    skew = third / variance**1.5
    error = math.sqrt(variance) / matches
    return (estimate - error * _hall_inverse(quantile, skew), estimate - error * _hall_inverse(-quantile, skew))


def _stratified_moments(groups: list[list[float]]) -> tuple[float, float, float]:
    """The residuals' variance summed over strata, Satterthwaite's degrees of freedom and the summed third moment."""
    parts: list[tuple[float, int]] = []
    third = 0.0
    for values in groups:
        centre = math.fsum(values) / len(values)
        spread = math.fsum((v - centre) ** 2 for v in values) * len(values) / (len(values) - 1)
        parts.append((spread, len(values) - 1))
        third += math.fsum((v - centre) ** 3 for v in values)
    variance = math.fsum(v for v, _ in parts)
    denominator = math.fsum(v * v / df for v, df in parts)
    df = sum(d for _, d in parts) if denominator <= 0.0 else variance * variance / denominator
    return variance, df, third


def _residuals_by_stratum(clusters: Sequence[Cluster], residuals: Sequence[float]) -> list[list[float]]:
    """The residuals by stratum, strata of a single cluster pooled into one (dropped when only one is left)."""
    strata: dict[Hashable, list[float]] = {}
    for cluster, residual in zip(clusters, residuals, strict=True):
        strata.setdefault(cluster.stratum, []).append(residual)
    lone = [values[0] for values in strata.values() if len(values) == 1]
    return [values for values in strata.values() if len(values) > 1] + ([lone] if len(lone) > 1 else [])


def _unspread_interval(estimate: float, clusters: int, bound: float | None,
                       confidence: float) -> tuple[float, float]:
    """The interval of a mean of a measure in ``[0, bound]`` when all ``clusters`` came out alike at ``estimate``
    (the t interval would be a point): a mean ``m`` above is rejected where even its most favourable distribution
    (two points, at the estimate and at ``bound``) gives all the clusters at or below the estimate less than
    ``(1 - confidence) / 2`` chance, ``((bound - m) / (bound - estimate)) ** clusters``; likewise below, towards 0."""
    if bound is None or clusters < 1:
        return (estimate, estimate)
    share = 1.0 - ((1.0 - confidence) / 2.0) ** (1.0 / clusters)
    top = max(bound, estimate)
    return (max(0.0, estimate - estimate * share) if estimate >= 0.0 else estimate, estimate + (top - estimate) * share)


def _hall_inverse(u: float, skew: float) -> float:
    """The ``T = (estimate - mean) / error`` at which Hall's (1992) transformation ``g(T) = T + a T**2 + a**2 T**3 / 3
    + b`` equals ``u`` (``a = skew / 3``, ``b = skew / 6``); ``g`` is monotone, so the inverse is a cube root."""
    a, b = skew / 3.0, skew / 6.0
    if abs(a) < 1e-12:
        return u - b
    inner = 3.0 * a * (u - b) + 1.0
    return (math.copysign(abs(inner) ** (1.0 / 3.0), inner) - 1.0) / a


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """Student-t interval for the mean of ``values``; ``None`` with fewer than 2 values."""
    n = len(values)
    if n < 2:
        return None
    m = math.fsum(values) / n
    var = math.fsum((v - m) ** 2 for v in values) / (n - 1)
    half = t_quantile(confidence, n - 1) * math.sqrt(var / n)
    return (m - half, m + half)


EXACT_SAMPLES = 64
"""Up to this many non-zero differences the paired test is exact (every sign flip counted); above, Student-t."""
_GRID = 720_720
"""Differences are counted on a grid of 1/720720 (every fraction with a denominator up to 16 lies on it)."""


def differences_p_value(differences: Sequence[float]) -> float:
    """The two-sided p-value that paired differences (one per deal group) are centred on 0: exact up to
    :data:`EXACT_SAMPLES` non-zero ones (a sign-flip test: a t test on 8 differences of +-1 called 7 to 1
    significant, p = 0.02, where the exact p is 0.07), Student's t above. Fewer than 2 samples, or a mean of 0: 1."""
    n = len(differences)
    if n < 2:
        return 1.0
    m = math.fsum(differences) / n
    if abs(m) < 1e-12:
        return 1.0
    nonzero = [d for d in differences if abs(d) > 1e-12]
    if len(nonzero) <= EXACT_SAMPLES:
        return _sign_flip_p_value(nonzero)
    var = math.fsum((d - m) ** 2 for d in differences) / (n - 1)
    if var <= 1e-12:
        return min(1.0, 2.0 * 0.5**n)
    return max(0.0, 1.0 - t_two_sided_mass(abs(m) / math.sqrt(var / n), n - 1))


def _sign_flip_p_value(differences: Sequence[float]) -> float:
    steps = [abs(round(d * _GRID)) for d in differences]
    observed = abs(sum(round(d * _GRID) for d in differences))
    sums: dict[int, int] = {0: 1}
    for step in steps:
        grown: dict[int, int] = defaultdict(int)
        for total, ways in sums.items():
            grown[total + step] += ways
            grown[total - step] += ways
        sums = grown
    extreme = sum(ways for total, ways in sums.items() if abs(total) >= observed)
    return min(1.0, extreme / 2.0 ** len(steps))


def holm(p_values: Sequence[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure: which hypotheses are rejected so that the chance of rejecting any true one stays
    at most ``alpha`` whatever their dependence (the smallest p-value against ``alpha / m``, the next ``alpha / (m -
    1)``, ... until one fails)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    for step, i in enumerate(order):
        if p_values[i] >= alpha / (len(p_values) - step):
            break
        rejected[i] = True
    return rejected


def sign_test_p_value(wins_a: int, wins_b: int) -> float:
    """The exact two-sided sign test that two bots are equal, from the deal groups each won: twice the smaller tail
    of Binomial(``wins_a + wins_b``, 1/2), at most 1 (4 to 0 gives 0.125, 7 to 1 0.070)."""
    n, low = wins_a + wins_b, min(wins_a, wins_b)
    if n == 0 or wins_a == wins_b:
        return 1.0
    return min(1.0, 2.0 * math.fsum(math.exp(_log_binomial_half(n, k)) for k in range(low + 1)))


def _log_binomial_half(n: int, k: int) -> float:
    """``log(C(n, k) / 2**n)``."""
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2.0)


MORE_CAP = 10**7
"""The most further samples :func:`sign_test_more` and :func:`more_samples` report (beyond: ``None``, never)."""


def sign_test_more(wins_a: int, wins_b: int, alpha: float) -> int | None:
    """About how many more decided samples the sign test needs for ``p < alpha`` at the current split; 0 when it
    already is, ``None`` when the split is even or it needs over :data:`MORE_CAP`."""
    n = wins_a + wins_b
    if n == 0 or wins_a == wins_b:
        return None
    share = max(wins_a, wins_b) / n

    def significant(total: int) -> bool:
        top = round(share * total)
        return sign_test_p_value(top, total - top) < alpha

    if significant(n):
        return 0
    low, high = 0, max(1, n)  # significant(n + high), not significant(n + low): doubling, then bisection
    while not significant(n + high):
        low, high = high, high * 2
        if high > MORE_CAP:
            return None
    while low + 1 < high:
        middle = (low + high) // 2
        if significant(n + middle):
            high = middle
        else:
            low = middle
    return high


def more_samples(gap: float, error: float, samples: int, alpha: float) -> int | None:
    """About how many more samples would make ``gap`` (standard error ``error`` over ``samples``) significant at
    two-sided level ``alpha``, the error shrinking as ``1 / sqrt(samples)``: ``samples * ((z * error / gap)**2 -
    1)``. 0 when it is already; ``None`` for no difference, no samples, or more than :data:`MORE_CAP`."""
    if samples <= 0 or abs(gap) < 1e-12:
        return None
    if error <= 0.0:
        return 0
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    needed = samples * (z * error / abs(gap)) ** 2
    if needed > samples + MORE_CAP:
        return None
    return max(0, math.ceil(needed - samples))
