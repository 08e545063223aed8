"""How many blocks a sequential test of a block-score mean needs: Wald's approximations on exponential tilts (pure).

The tilt of a distribution ``T`` to a mean ``m`` (``p_i e^(t x_i) / Z(t)``) is the distribution of mean ``m``
closest to ``T``. The reference is Wald's SPRT between the tilts of ``T`` to ``mu0`` and ``mu1``: by Wald and
Wolfowitz no test of these means with the same error rates needs fewer blocks on average. Its per-block log ratio is
``z(x) = (t1 - t0) x - (K(t1) - K(t0))``; Wald's approximations give the operating characteristic (``h`` the root of
``E[e^(h z)] = 1``) and the expected sample number ``(P(H0) b + P(H1) a) / E[z]``. :func:`undecided_share`
approximates the runs still undecided after ``n`` blocks by a Brownian motion's first passage (inverse Gaussian).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .intervals import normal_cdf

TILT_LIMIT = 500.0
"""Tilt parameters are searched in ``[-TILT_LIMIT, TILT_LIMIT]`` (scores lie in ``[-1, 1]``)."""


def _log_mgf(values: Sequence[float], probs: Sequence[float], t: float) -> float:
    """``K(t) = log sum p_i e^(t x_i)``, stable for large ``|t|``."""
    top = max(t * x for x, p in zip(values, probs, strict=True) if p > 0)
    return top + math.log(sum(p * math.exp(t * x - top) for x, p in zip(values, probs, strict=True) if p > 0))


def tilt_parameter(values: Sequence[float], probs: Sequence[float], mean: float) -> float:
    """The ``t`` whose tilt of ``(values, probs)`` has mean ``mean`` (ValueError when no tilt reaches it: the mean
    must lie strictly between the least and the greatest value of positive probability)."""
    support = [x for x, p in zip(values, probs, strict=True) if p > 0]
    if not min(support) < mean < max(support):
        raise ValueError(f"no tilt of a distribution on [{min(support):g}, {max(support):g}] has mean {mean:g}")
    low, high = -TILT_LIMIT, TILT_LIMIT
    t = 0.0
    for _ in range(200):  # Newton on the mean (increasing in t, its derivative the tilted variance), kept in bounds
        m, var = _tilted_moments(values, probs, t)
        if abs(m - mean) < 1e-13:
            break
        if m < mean:
            low = t
        else:
            high = t
        step = t - (m - mean) / var if var > 0 else (low + high) / 2.0
        t = step if low < step < high else (low + high) / 2.0
    return t


def _tilted_moments(values: Sequence[float], probs: Sequence[float], t: float) -> tuple[float, float]:
    """The mean and variance of the tilt by ``t`` (one pass, shifted exponents)."""
    top = max(t * x for x, p in zip(values, probs, strict=True) if p > 0)
    total = first = second = 0.0
    for x, p in zip(values, probs, strict=True):
        if p > 0:
            w = p * math.exp(t * x - top)
            total += w
            first += w * x
            second += w * x * x
    m = first / total
    return m, max(second / total - m * m, 0.0)


def tilted(values: Sequence[float], probs: Sequence[float], mean: float) -> tuple[float, ...]:
    """The probabilities of the exponential tilt of ``(values, probs)`` with mean ``mean``."""
    t = tilt_parameter(values, probs, mean)
    k = _log_mgf(values, probs, t)
    return tuple(p * math.exp(t * x - k) if p > 0 else 0.0 for x, p in zip(values, probs, strict=True))


@dataclass(frozen=True)
class WaldFigures:
    """Wald's approximations for the SPRT between the tilts to ``mu0`` and ``mu1`` of a block distribution."""

    accept_h1: float
    blocks: float
    """The expected sample number (ASN)."""
    drift: float
    """``E[z]``: the expected log-likelihood ratio per block."""
    spread: float
    """The standard deviation of ``z`` per block."""


def tilt_log_ratio(values: Sequence[float], probs: Sequence[float], mu0: float, mu1: float) -> list[float]:
    """Per value, the log-likelihood ratio ``z(x) = log(Q1(x) / Q0(x))`` of the tilts of ``(values, probs)`` to
    ``mu1`` and ``mu0``."""
    t0, t1 = tilt_parameter(values, probs, mu0), tilt_parameter(values, probs, mu1)
    shift = _log_mgf(values, probs, t1) - _log_mgf(values, probs, t0)
    return [(t1 - t0) * x - shift for x in values]


def wald_figures(values: Sequence[float], probs: Sequence[float], mu0: float, mu1: float, lower: float,
                 upper: float) -> WaldFigures:
    """Wald's operating characteristic and ASN of the SPRT between the tilts of the true distribution ``(values,
    probs)`` to ``mu0`` and ``mu1``, with bounds ``lower < 0 < upper`` on the log-likelihood ratio."""
    z = tilt_log_ratio(values, probs, mu0, mu1)
    drift = sum(p * zi for p, zi in zip(probs, z, strict=True))
    second = sum(p * zi * zi for p, zi in zip(probs, z, strict=True))
    spread = math.sqrt(max(second - drift * drift, 0.0))
    if abs(drift) < 1e-12 * max(second, 1e-300):
        return WaldFigures(upper / (upper - lower), -lower * upper / second, drift, spread)
    h = _oc_root(probs, z, drift)
    accept_h0 = _accept_h0(h, lower, upper)
    return WaldFigures(1.0 - accept_h0, (accept_h0 * lower + (1.0 - accept_h0) * upper) / drift, drift, spread)


def _oc_root(probs: Sequence[float], z: Sequence[float], drift: float) -> float | None:
    """The root ``h != 0`` of ``log E[e^(h z)] = 0`` (its sign opposite to the drift's); None when ``z`` never takes
    the other sign (the far bound cannot be reached)."""
    direction = -1.0 if drift > 0 else 1.0
    if not any(p > 0 and zi * direction > 0 for p, zi in zip(probs, z, strict=True)):
        return None
    far = direction
    while _log_mgf(z, probs, far) < 0:
        far *= 2.0
        if abs(far) > 1e6:
            return None
    near = 0.0
    for _ in range(200):  # log E[e^(h z)] < 0 strictly between 0 and the root, > 0 past it
        mid = (near + far) / 2.0
        if _log_mgf(z, probs, mid) < 0:
            near = mid
        else:
            far = mid
    return (near + far) / 2.0


def _accept_h0(h: float | None, lower: float, upper: float) -> float:
    """Wald's ``(e^(h a) - 1) / (e^(h a) - e^(h b))``; 0 or 1 when the far bound is out of reach."""
    if h is None:
        return 0.0 if lower < 0 < upper else 1.0
    if h < 0:  # drift up: e^(h a) small, e^(h b) large
        if h * lower > 700:
            return 0.0
        return -math.expm1(h * upper) / (math.exp(h * lower) - math.exp(h * upper))
    if h * upper > 700:
        return 1.0
    return math.expm1(h * upper) / (math.exp(h * upper) - math.exp(h * lower))


def design_figures(values: Sequence[float], probs: Sequence[float], mu0: float, mu1: float, lower: float,
                   upper: float) -> tuple[WaldFigures, WaldFigures]:
    """:func:`wald_figures` at the two design points: the distribution's tilts to ``mu0`` and to ``mu1``."""
    return tuple(wald_figures(values, tilted(values, probs, mu), mu0, mu1, lower, upper)  # type: ignore[return-value]
                 for mu in (mu0, mu1))


def undecided_share(figures: WaldFigures, blocks: int, lower: float, upper: float) -> float:
    """About how many runs are still undecided after ``blocks`` blocks: the chance that a Brownian motion with the
    drift and spread of ``figures`` has not yet crossed the bound it drifts towards (inverse Gaussian first
    passage; the other bound only ends runs sooner, so this leans high)."""
    if blocks <= 0:
        return 1.0
    drift, variance = abs(figures.drift), figures.spread ** 2
    if drift == 0.0 or variance == 0.0:
        return 1.0 if drift == 0.0 else 0.0
    a = upper if figures.drift > 0 else -lower
    root = math.sqrt(variance * blocks)
    crossed = normal_cdf((drift * blocks - a) / root)
    tail = normal_cdf((-drift * blocks - a) / root)
    if tail > 0.0:
        crossed += math.exp(min(2.0 * drift * a / variance + math.log(tail), 0.0))
    return min(max(1.0 - crossed, 0.0), 1.0)


def blocks_for_share(figures: WaldFigures, share: float, lower: float, upper: float,
                     limit: int = 10_000_000) -> int:
    """The fewest blocks after which :func:`undecided_share` is at most ``share`` (``limit`` at most)."""
    high = max(1, int(figures.blocks))
    while undecided_share(figures, high, lower, upper) > share and high < limit:
        high *= 2
    low = 0
    while high - low > 1:
        mid = (low + high) // 2
        if undecided_share(figures, mid, lower, upper) > share:
            low = mid
        else:
            high = mid
    return min(high, limit)
