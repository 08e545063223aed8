"""`uno-arena bench sprt`: the gauntlet's sequential test calibrated on resampled real and synthetic block scores.

Each *case* is a distribution of block scores: the scores recorded from real gauntlet blocks
(:mod:`arena.bench.sprt_blocks`, one case per recorded field) and two synthetic ones (*sparse*: 5% of the blocks
non-zero, all +-1; *skewed*: frequent small losses against rare large gains). A case is moved to a wanted mean by
mixing it with its mirror image (``x -> -x``; it keeps the share of zero blocks and the values), or where that
cannot reach the mean, by exponential tilting on its values. Per case, ``runs`` seeded runs at mean ``mu0`` give
the type I rate (runs that accept H1) and ``runs`` at mean ``mu1`` the type II rate (runs that accept H0), with
the mean number of blocks, the share of runs ending undecided at the cap, and the bias of the printed mean; the
same block streams go through today's test (:class:`MultinomialTest`, :mod:`arena.tournament.sprt`) and the
normal-approximation test it replaced (:class:`NormalTest`, kept here for the comparison).
"""

from __future__ import annotations

import bisect
import hashlib
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from arena.tournament.sprt import SprtConfig, SprtState

SPARSE_SHARE = 0.05
"""The share of non-zero blocks of the sparse case at mean 0."""
SKEWED_BASE: tuple[tuple[float, float], ...] = ((-0.25, 0.30), (-0.125, 0.2), (0.0, 0.4), (0.5, 0.07), (1.0, 0.03))
"""The skewed case before it is moved to a mean: frequent small losses, rare large gains."""
OLD_MIN_BLOCKS = 16
"""The old test's fixed no-decision prefix."""


@dataclass(frozen=True)
class Distribution:
    """A discrete block-score distribution: values (sorted) and their probabilities."""

    values: tuple[float, ...]
    probs: tuple[float, ...]

    @property
    def mean(self) -> float:
        return sum(v * p for v, p in zip(self.values, self.probs, strict=True))

    @property
    def zero_share(self) -> float:
        return sum(p for v, p in zip(self.values, self.probs, strict=True) if v == 0.0)

    def sampler(self, rng: random.Random) -> Callable[[], float]:
        cumulative: list[float] = []
        total = 0.0
        for p in self.probs:
            total += p
            cumulative.append(total)
        values = self.values
        last = len(values) - 1

        def draw() -> float:
            return values[min(bisect.bisect_right(cumulative, rng.random() * total), last)]

        return draw


def empirical(scores: Sequence[float]) -> Distribution:
    counts: dict[float, int] = {}
    for s in scores:
        key = round(s, 9) + 0.0
        counts[key] = counts.get(key, 0) + 1
    values = tuple(sorted(counts))
    return Distribution(values, tuple(counts[v] / len(scores) for v in values))


def moved(base: Distribution, mean: float) -> Distribution:
    """``base`` with mean ``mean``: mixed with its mirror image when that reaches it, else exponentially tilted
    (ValueError when neither can)."""
    m = base.mean
    if abs(m) > 1e-12 and abs(mean) <= abs(m):
        w = (1.0 + mean / m) / 2.0
        probs: dict[float, float] = {}
        for v, p in zip(base.values, base.probs, strict=True):
            probs[v] = probs.get(v, 0.0) + w * p
            probs[-v + 0.0] = probs.get(-v + 0.0, 0.0) + (1.0 - w) * p
        values = tuple(sorted(probs))
        return Distribution(values, tuple(probs[v] for v in values))
    if not min(base.values) < mean < max(base.values):
        raise ValueError(f"no distribution on {base.values} has mean {mean}")

    def tilted(t: float) -> Distribution:
        weights = [p * math.exp(t * v) for v, p in zip(base.values, base.probs, strict=True)]
        total = sum(weights)
        return Distribution(base.values, tuple(w / total for w in weights))

    low, high = -200.0, 200.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if tilted(mid).mean < mean:
            low = mid
        else:
            high = mid
    return tilted((low + high) / 2.0)


def sparse(mean: float) -> Distribution:
    """5% of the blocks non-zero at mean 0 (+-1 alike), +1 more often than -1 by ``mean``."""
    up, down = (SPARSE_SHARE + mean) / 2.0, (SPARSE_SHARE - mean) / 2.0
    if down < 0:
        raise ValueError(f"the sparse case reaches means up to {SPARSE_SHARE}, not {mean}")
    return Distribution((-1.0, 0.0, 1.0), (down, 1.0 - up - down, up))


class SequentialTest(Protocol):
    """What a run needs of a test: add a score, then finished/decision/n/mean."""

    def add(self, score: float) -> None: ...

    @property
    def finished(self) -> bool: ...

    @property
    def decision(self) -> str | None: ...


class MultinomialTest:
    """Today's test (:class:`arena.tournament.sprt.SprtState`)."""

    def __init__(self, config: SprtConfig) -> None:
        self.state = SprtState(config)

    def add(self, score: float) -> None:
        self.state = self.state.updated(score)

    @property
    def finished(self) -> bool:
        return self.state.finished

    @property
    def decision(self) -> str | None:
        return self.state.decision


class NormalTest:
    """The test the gauntlet ran before: a GSPRT for normal scores of unknown variance,
    ``LLR = n/2 * log((v + (mean - mu0)^2) / (v + (mean - mu1)^2))`` (``v`` the maximum-likelihood variance, both
    sums floored at 1e-6), no decision before 16 blocks."""

    def __init__(self, config: SprtConfig) -> None:
        self.config = config
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0
        self._decision: str | None = None

    def add(self, score: float) -> None:
        self.n += 1
        delta = score - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (score - self.mean)
        if self.n < OLD_MIN_BLOCKS:
            return
        c = self.config
        v = self.m2 / self.n
        llr = self.n / 2.0 * math.log(max(v + (self.mean - c.mu0) ** 2, 1e-6) / max(v + (self.mean - c.mu1) ** 2,
                                                                                    1e-6))
        lower, upper = c.bounds
        self._decision = "H1" if llr >= upper else ("H0" if llr <= lower else None)

    @property
    def finished(self) -> bool:
        cap = self.config.max_blocks
        return self._decision is not None or (cap is not None and self.n >= cap)

    @property
    def decision(self) -> str | None:
        return self._decision


@dataclass(frozen=True)
class Rates:
    """What ``runs`` runs of one test at one true mean gave."""

    runs: int
    accepted: int
    rejected: int
    blocks: int
    mean_error: float
    """The mean, over the runs, of the plain mean block score at the stop minus the true mean (the estimate's bias)."""

    @property
    def inconclusive(self) -> int:
        return self.runs - self.accepted - self.rejected

    @property
    def mean_blocks(self) -> float:
        return self.blocks / self.runs


def run_many(make: Callable[[], SequentialTest], dist: Distribution, runs: int, seed: int) -> Rates:
    """``runs`` runs of the test ``make`` makes on scores drawn from ``dist`` (seeded)."""
    accepted = rejected = blocks = 0
    error = 0.0
    rng = random.Random(seed)
    draw = dist.sampler(rng)
    true_mean = dist.mean
    for _ in range(runs):
        test = make()
        n = 0
        total = 0.0
        while not test.finished:
            score = draw()
            test.add(score)
            n += 1
            total += score
        accepted += test.decision == "H1"
        rejected += test.decision == "H0"
        blocks += n
        error += total / n - true_mean
    return Rates(runs, accepted, rejected, blocks, error / runs)


@dataclass(frozen=True)
class Case:
    """A block-score distribution to calibrate on, and where it came from."""

    name: str
    base: Distribution | None
    """The distribution moved to ``mu0``/``mu1`` (``None``: the sparse case, built per mean)."""

    def at(self, mean: float) -> Distribution:
        return sparse(mean) if self.base is None else moved(self.base, mean)


@dataclass(frozen=True)
class CaseResult:
    """One case: type I and type II runs of the new and the old test."""

    case: Case
    zero_share: float
    new_h0: Rates
    new_h1: Rates
    old_h0: Rates
    old_h1: Rates


def cases(recorded: bool = True) -> list[Case]:
    """The real fields of the recorded sample (when ``recorded``) and the synthetic cases."""
    out: list[Case] = []
    if recorded:
        from arena.bench.sprt_blocks import load

        out += [Case(r.field.name, empirical(r.scores)) for r in load()]
    skew = Distribution(tuple(v for v, _ in SKEWED_BASE), tuple(p for _, p in SKEWED_BASE))
    return [*out, Case("synthetic/sparse", None), Case("synthetic/skewed", skew)]


def _seed(name: str, which: str, seed: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}/{name}/{which}".encode()).digest()[:8], "big")


def calibrate(case: Case, config: SprtConfig, runs: int, seed: int) -> CaseResult:
    """Type I and II runs of both tests on ``case`` (the same seeded block streams for both tests)."""
    at_h0, at_h1 = case.at(config.mu0), case.at(config.mu1)
    s0, s1 = _seed(case.name, "h0", seed), _seed(case.name, "h1", seed)
    return CaseResult(case, at_h0.zero_share,
                      run_many(lambda: MultinomialTest(config), at_h0, runs, s0),
                      run_many(lambda: MultinomialTest(config), at_h1, runs, s1),
                      run_many(lambda: NormalTest(config), at_h0, runs, s0),
                      run_many(lambda: NormalTest(config), at_h1, runs, s1))


def _calibrate_args(args: tuple[Case, SprtConfig, int, int]) -> CaseResult:
    return calibrate(*args)


def calibrate_all(config: SprtConfig, runs: int, seed: int, jobs: int = 1,
                  recorded: bool = True) -> list[CaseResult]:
    """:func:`calibrate` on every case of :func:`cases`, on ``jobs`` processes."""
    work = [(case, config, runs, seed) for case in cases(recorded)]
    if jobs <= 1:
        return [_calibrate_args(w) for w in work]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(_calibrate_args, work))


def report(results: Sequence[CaseResult], config: SprtConfig) -> list[str]:
    """The table for people: per case and test, type I, type II, mean blocks, undecided share, bias of the mean."""
    def pct(k: int, n: int) -> str:
        return f"{100.0 * k / n:5.1f}%"

    lines = [f"H0: mean block score <= {config.mu0:g}, H1: >= {config.mu1:g} finishing points per match over the "
             f"baseline; alpha {config.alpha:g}, beta {config.beta:g}, cap {config.max_blocks} blocks; "
             f"{results[0].new_h0.runs if results else 0} runs per case and mean",
             f"{'case':54} {'zeros':>6} {'test':11} {'type I':>7} {'type II':>7} {'blocks@mu0':>10} "
             f"{'blocks@mu1':>10} {'undecided':>9} {'bias@mu1':>8}"]
    for r in results:
        for label, h0, h1 in (("multinomial", r.new_h0, r.new_h1), ("normal-old", r.old_h0, r.old_h1)):
            undecided = pct(h0.inconclusive + h1.inconclusive, h0.runs + h1.runs)
            lines.append(f"{r.case.name:54} {100 * r.zero_share:5.1f}% {label:11} {pct(h0.accepted, h0.runs):>7} "
                         f"{pct(h1.rejected, h1.runs):>7} {h0.mean_blocks:10.0f} {h1.mean_blocks:10.0f} "
                         f"{undecided:>9} {h1.mean_error:+8.4f}")
    return lines
