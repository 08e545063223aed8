"""`python -m benchmarks sprt`: the gauntlet's sequential test calibrated on resampled real and synthetic block scores.

Each *case* is a distribution of block scores: the scores recorded from real gauntlet blocks
(:mod:`benchmarks.sprt_blocks`, one case per recorded field) and two synthetic ones (*sparse*: 5% of the blocks
non-zero, all +-1; *skewed*: frequent small losses against rare large gains). A case is moved to a wanted mean by
*exponential tilting* (:func:`arena.tournament.stats.sprt_design.tilted`: the distribution of that mean closest to the
recorded one, so a skewed field stays skewed at mean 0). Two recorded fields cannot be tilted to both means (one
has 2 non-zero blocks in 300, both positive; one has no positive block): they are *degenerate*, moved by mixing
with their mirror image (``x -> -x``) as before and labelled so in every table.

:func:`calibrate`: per case, ``runs`` seeded runs at mean ``mu0`` give the type I rate (runs that accept H1) and
``runs`` at mean ``mu1`` the type II rate (runs that accept H0), with the blocks, the share undecided at the cap, and
the bias of the printed mean after an acceptance. :func:`efficiency`: the median blocks to a decision at true gains
of 0, 1, 2 and 3 times ``mu1`` against Wald's expected sample number for the same hypotheses
(:func:`arena.tournament.stats.sprt_design.wald_figures`), and the share undecided at the cap. :func:`guards_all`: the
same per :class:`Guard` (the no-decision guards and the prior), for the trade-off between blocks and error rates.
The test runs as the gauntlet runs it (:class:`MultinomialTest`: :class:`arena.tournament.stats.sprt.SprtState`);
:class:`NormalTest` (the test before 2026-12-01) and :class:`EmpiricalLikelihoodTest` (the LLR before 2026-12-06)
are kept for comparisons.

The simulation model of the unit tests (:func:`simulated_block_score`, :func:`simulate`) lives here too: the
product module keeps no simulation code.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from arena.tournament._rng import SeededStream
from arena.tournament.stats.sprt import Decision, SprtConfig, SprtState, regularised
from arena.tournament.stats.sprt_design import tilted, wald_figures

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


def mirror_mixed(base: Distribution, mean: float) -> Distribution:
    """``base`` mixed with its mirror image (``x -> -x``) to mean ``mean`` (|mean| at most |base.mean|): how the
    degenerate cases are moved, as every case was before tilting."""
    m = base.mean
    if not (abs(m) > 1e-12 and abs(mean) <= abs(m)):
        raise ValueError(f"mixing with the mirror reaches means up to {abs(m):g}, not {mean:g}")
    w = (1.0 + mean / m) / 2.0
    probs: dict[float, float] = {}
    for v, p in zip(base.values, base.probs, strict=True):
        probs[v] = probs.get(v, 0.0) + w * p
        probs[-v + 0.0] = probs.get(-v + 0.0, 0.0) + (1.0 - w) * p
    values = tuple(sorted(probs))
    return Distribution(values, tuple(probs[v] for v in values))


def tilted_to(base: Distribution, mean: float) -> Distribution:
    """``base`` exponentially tilted to mean ``mean`` (ValueError when its values cannot reach it)."""
    return Distribution(base.values, tilted(base.values, base.probs, mean))


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
    """Today's test (:class:`arena.tournament.stats.sprt.SprtState`)."""

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


def constrained_lambda(values: Sequence[float], probs: Sequence[float], mu: float) -> float:
    """The multiplier ``lam`` of the distribution closest to ``probs`` (maximum likelihood) with mean ``mu``:
    the root of ``sum p_i d_i / (1 + lam d_i)`` with ``d_i = x_i - mu``, inside ``1 + lam d_i > 0``. Needs
    ``min(values) < mu < max(values)``."""
    d = [x - mu for x in values]
    low, high = -1.0 / max(d), -1.0 / min(d)  # the open interval where every 1 + lam d_i > 0
    lam = 0.0
    for _ in range(200):
        f = 0.0
        df = 0.0
        for p, di in zip(probs, d, strict=True):
            q = di / (1.0 + lam * di)
            f += p * q
            df -= p * q * q
        if abs(f) < 1e-13:
            break
        if f > 0:  # f decreases in lam: the root is above
            low = lam
        else:
            high = lam
        step = lam - f / df
        lam = step if low < step < high else (low + high) / 2.0
    return lam


def empirical_likelihood_llr(counts: Sequence[tuple[float, int]], mu0: float, mu1: float, prior: float) -> float:
    """The LLR the test used before 2026-12-06 (kept for the comparison of :class:`EmpiricalLikelihoodTest`): the
    empirical-likelihood
    GSPRT, the regularised distribution's maximum-likelihood fits with mean exactly ``mu0`` and ``mu1``."""
    n = sum(c for _, c in counts)
    if n == 0:
        return 0.0
    values, probs = regularised(counts, prior, mu0, mu1)
    lam0 = constrained_lambda(values, probs, mu0)
    lam1 = constrained_lambda(values, probs, mu1)
    total = 0.0
    for x, p in zip(values, probs, strict=True):
        total += p * (math.log1p(lam0 * (x - mu0)) - math.log1p(lam1 * (x - mu1)))
    return n * total


class EmpiricalLikelihoodTest(MultinomialTest):
    """The LLR before 2026-12-06 (:func:`empirical_likelihood_llr`) with today's guards:
    for the comparison of :func:`efficiency`."""

    def add(self, score: float) -> None:
        state = self.state
        n, nonzero = state.n + 1, state.nonzero + (score != 0.0)
        seen = dict(state.counts)
        value = round(score, 9) + 0.0
        seen[value] = seen.get(value, 0) + 1
        counts = tuple(sorted(seen.items()))
        c = state.config
        decision: Decision | None = None
        if n >= c.min_blocks and nonzero >= c.min_nonzero:
            llr = empirical_likelihood_llr(counts, c.mu0, c.mu1, c.prior)
            lower, upper = c.bounds
            decision = "H1" if llr >= upper else ("H0" if llr <= lower else None)
        self.state = SprtState(replace(c, auto_cap=False), counts, decision)


@dataclass(frozen=True)
class Rates:
    """What ``runs`` runs of one test at one true mean gave: per run, its blocks, decision and printed mean."""

    true_mean: float
    blocks: tuple[int, ...]
    decisions: tuple[str | None, ...]
    means: tuple[float, ...]

    @property
    def runs(self) -> int:
        return len(self.blocks)

    @property
    def accepted(self) -> int:
        return self.decisions.count("H1")

    @property
    def rejected(self) -> int:
        return self.decisions.count("H0")

    @property
    def inconclusive(self) -> int:
        return self.decisions.count(None)

    @property
    def mean_blocks(self) -> float:
        return sum(self.blocks) / self.runs

    @property
    def median_blocks(self) -> float:
        return statistics.median(self.blocks)

    @property
    def mean_error(self) -> float:
        """The mean, over the runs, of the printed mean block score minus the true mean."""
        return sum(self.means) / self.runs - self.true_mean

    @property
    def error_after_acceptance(self) -> float | None:
        """The same over the runs that accepted H1 (the bias of the mean printed beside an acceptance)."""
        kept = [m for m, d in zip(self.means, self.decisions, strict=True) if d == "H1"]
        return sum(kept) / len(kept) - self.true_mean if kept else None


def run_many(make: Callable[[], SequentialTest], dist: Distribution, runs: int, seed: int) -> Rates:
    """``runs`` runs of the test ``make`` makes on scores drawn from ``dist`` (seeded)."""
    rng = random.Random(seed)
    draw = dist.sampler(rng)
    blocks: list[int] = []
    decisions: list[str | None] = []
    means: list[float] = []
    for _ in range(runs):
        test = make()
        n = 0
        total = 0.0
        while not test.finished:
            score = draw()
            test.add(score)
            n += 1
            total += score
        blocks.append(n)
        decisions.append(test.decision)
        means.append(total / n)
    return Rates(dist.mean, tuple(blocks), tuple(decisions), tuple(means))


@dataclass(frozen=True)
class Case:
    """A block-score distribution to calibrate on, and where it came from."""

    name: str
    base: Distribution | None
    """The distribution moved to each mean (``None``: the sparse case, built per mean)."""

    @property
    def degenerate(self) -> str:
        """Why the case cannot be tilted to mean 0 ("" when it can): such a case is mirror-mixed there."""
        if self.base is None:
            return ""
        values = [v for v, p in zip(self.base.values, self.base.probs, strict=True) if p > 0]
        if min(values) >= 0:
            return f"no negative block ({sum(1 for v in values if v != 0)} non-zero values)"
        if max(values) <= 0:
            return "no positive block"
        return ""

    def at(self, mean: float) -> Distribution:
        """The case at mean ``mean``: tilted, or mixed with its mirror where tilting cannot reach it."""
        if self.base is None:
            return sparse(mean) if abs(mean) <= SPARSE_SHARE else tilted_to(sparse(0.0), mean)
        try:
            return tilted_to(self.base, mean)
        except ValueError:
            return mirror_mixed(self.base, mean)

    @property
    def label(self) -> str:
        return f"{self.name} [degenerate: {self.degenerate}; mirror-mixed at 0]" if self.degenerate else self.name


@dataclass(frozen=True)
class CaseResult:
    """One case: type I and type II runs of the test (and of the old normal test when asked)."""

    case: Case
    zero_share: float
    new_h0: Rates
    new_h1: Rates
    old_h0: Rates | None = None
    old_h1: Rates | None = None


def cases(recorded: bool = True) -> list[Case]:
    """The real fields of the recorded sample (when ``recorded``) and the synthetic cases."""
    out: list[Case] = []
    if recorded:
        from benchmarks.sprt_blocks import load

        out += [Case(r.field.name, empirical(r.scores)) for r in load()]
    skew = Distribution(tuple(v for v, _ in SKEWED_BASE), tuple(p for _, p in SKEWED_BASE))
    return [*out, Case("synthetic/sparse", None), Case("synthetic/skewed", skew)]


def _seed(name: str, which: str, seed: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}/{name}/{which}".encode()).digest()[:8], "big")


def calibrate(case: Case, config: SprtConfig, runs: int, seed: int, old: bool = False) -> CaseResult:
    """Type I and II runs of the test on ``case`` (and of the old normal test on the same streams when ``old``)."""
    at_h0, at_h1 = case.at(config.mu0), case.at(config.mu1)
    s0, s1 = _seed(case.name, "h0", seed), _seed(case.name, "h1", seed)
    result = CaseResult(case, at_h0.zero_share, run_many(lambda: MultinomialTest(config), at_h0, runs, s0),
                        run_many(lambda: MultinomialTest(config), at_h1, runs, s1))
    if not old:
        return result
    return replace(result, old_h0=run_many(lambda: NormalTest(config), at_h0, runs, s0),
                   old_h1=run_many(lambda: NormalTest(config), at_h1, runs, s1))


GAINS = (0, 1, 2, 3)
"""The true gains of :func:`efficiency`, in multiples of ``mu1``."""


@dataclass(frozen=True)
class Efficiency:
    """One case at one true gain: the test's runs (and the previous LLR's), against Wald's expected sample number."""

    case: Case
    gain: int
    rates: Rates
    wald_blocks: float
    """Wald's ASN between the tilts of the true distribution to mu0 and mu1 (NaN where its values cannot reach
    both: a degenerate case)."""
    previous: Rates | None = None


def efficiency(case: Case, config: SprtConfig, runs: int, seed: int, previous: bool = False) -> list[Efficiency]:
    """:data:`GAINS` of ``case``: ``runs`` runs each, their median blocks against Wald's ASN."""
    out = []
    lower, upper = config.bounds
    for gain in GAINS:
        dist = case.at(config.mu0 + gain * (config.mu1 - config.mu0))
        s = _seed(case.name, f"gain{gain}", seed)
        try:
            wald = wald_figures(dist.values, dist.probs, config.mu0, config.mu1, lower, upper).blocks
        except ValueError:  # a degenerate case off 0: its values cannot be tilted to both hypotheses
            wald = math.nan
        before = run_many(lambda: EmpiricalLikelihoodTest(config), dist, runs, s) if previous else None
        out.append(Efficiency(case, gain, run_many(lambda: MultinomialTest(config), dist, runs, s), wald, before))
    return out


def _work(args: tuple[str, Case, SprtConfig, int, int, bool]) -> CaseResult | list[Efficiency]:
    kind, case, config, runs, seed, extra = args
    return calibrate(case, config, runs, seed, extra) if kind == "rates" else efficiency(case, config, runs, seed,
                                                                                          extra)


def _pool_map(work: list[tuple[str, Case, SprtConfig, int, int, bool]], jobs: int) -> list[Any]:
    if jobs <= 1:
        return [_work(w) for w in work]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(_work, work))


def calibrate_all(config: SprtConfig, runs: int, seed: int, jobs: int = 1, recorded: bool = True,
                  old: bool = False) -> list[CaseResult]:
    """:func:`calibrate` on every case of :func:`cases`, on ``jobs`` processes."""
    return _pool_map([("rates", case, config, runs, seed, old) for case in cases(recorded)], jobs)


def efficiency_all(config: SprtConfig, runs: int, seed: int, jobs: int = 1, recorded: bool = True,
                   previous: bool = False) -> list[list[Efficiency]]:
    """:func:`efficiency` on every case of :func:`cases`, on ``jobs`` processes."""
    return _pool_map([("efficiency", case, config, runs, seed, previous) for case in cases(recorded)], jobs)


def _pct(k: int, n: int) -> str:
    return f"{100.0 * k / n:5.1f}%"


def _signed(x: float | None) -> str:
    return "-" if x is None else f"{x:+.4f}"


def report(results: Sequence[CaseResult], config: SprtConfig) -> list[str]:
    """The error-rate table: per case, type I, type II, blocks, undecided share, bias of the mean after H1."""
    cap = "automatic" if config.auto_cap else str(config.max_blocks)
    lines = [f"H0: mean block score <= {config.mu0:g}, H1: >= {config.mu1:g} finishing points per match over the "
             f"baseline; alpha {config.alpha:g}, beta {config.beta:g}, cap {cap}; "
             f"{results[0].new_h0.runs if results else 0} runs per case and mean; each case tilted to the mean",
             f"{'case':54} {'zeros':>6} {'test':11} {'type I':>7} {'type II':>7} {'blocks@mu0':>10} "
             f"{'blocks@mu1':>10} {'undecided':>9} {'bias@mu1':>8} {'bias|H1':>8}"]
    for r in results:
        rows = [("multinomial", r.new_h0, r.new_h1)]
        if r.old_h0 is not None and r.old_h1 is not None:
            rows.append(("normal-old", r.old_h0, r.old_h1))
        for label, h0, h1 in rows:
            undecided = _pct(h0.inconclusive + h1.inconclusive, h0.runs + h1.runs)
            lines.append(f"{r.case.name:54} {100 * r.zero_share:5.1f}% {label:11} {_pct(h0.accepted, h0.runs):>7} "
                         f"{_pct(h1.rejected, h1.runs):>7} {h0.mean_blocks:10.0f} {h1.mean_blocks:10.0f} "
                         f"{undecided:>9} {h1.mean_error:+8.4f} {_signed(h1.error_after_acceptance):>8}")
        if r.case.degenerate:
            lines.append(f"  {r.case.name}: degenerate ({r.case.degenerate}): mixed with its mirror image at mean 0")
    return lines


def efficiency_report(results: Sequence[Sequence[Efficiency]], config: SprtConfig) -> list[str]:
    """The blocks table: per case and true gain, median blocks, Wald's ASN, their ratio, undecided, accepted."""
    runs = results[0][0].rates.runs if results and results[0] else 0
    lines = [f"median blocks to a decision at true gains of 0-3 x mu1 ({config.mu1:g}) against Wald's expected sample "
             f"number between the true distribution's tilts to mu0 and mu1; {runs} runs per case and gain",
             f"{'case':54} {'gain':>5} {'median':>7} {'Wald ASN':>8} {'ratio':>6} {'undecided':>9} {'H1':>6} "
             f"{'bias|H1':>8} {'previous LLR':>12}"]
    for per_case in results:
        for e in per_case:
            r = e.rates
            before = ("" if e.previous is None
                      else f"{e.previous.median_blocks:7.0f} ({e.previous.median_blocks / e.wald_blocks:.2f})")
            lines.append(f"{e.case.name:54} {e.gain:4d}x {r.median_blocks:7.0f} {e.wald_blocks:8.0f} "
                         f"{r.median_blocks / e.wald_blocks:6.2f} {_pct(r.inconclusive, r.runs):>9} "
                         f"{_pct(r.accepted, r.runs):>6} {_signed(r.error_after_acceptance):>8} {before:>12}")
        if per_case and per_case[0].case.degenerate:
            lines.append(f"  {per_case[0].case.name}: degenerate ({per_case[0].case.degenerate}): mixed with its "
                         "mirror image at mean 0")
    return lines


@dataclass(frozen=True)
class Guard:
    """One setting of the test's no-decision guards and prior, spelt ``min_blocks/min_nonzero/prior`` (`--guards`)."""

    min_blocks: int
    min_nonzero: int
    prior: float

    @classmethod
    def parse(cls, text: str) -> Guard:
        parts = text.split("/")
        try:
            if len(parts) != 3:
                raise ValueError
            return cls(int(parts[0]), int(parts[1]), float(parts[2]))
        except ValueError:
            raise ValueError(f"--guards: {text!r} is not min_blocks/min_nonzero/prior, e.g. 16/16/1") from None

    def applied(self, config: SprtConfig) -> SprtConfig:
        return replace(config, min_blocks=self.min_blocks, min_nonzero=self.min_nonzero, prior=self.prior)

    @property
    def label(self) -> str:
        return f"{self.min_blocks}/{self.min_nonzero}/{self.prior:g}"


def guards_all(config: SprtConfig, guards: Sequence[Guard], runs: int, seed: int, jobs: int = 1,
               names: Sequence[str] = ()) -> list[tuple[Guard, list[Efficiency]]]:
    """:func:`efficiency` of every guard on every case whose name holds one of ``names`` (all when empty), on the
    same streams per case and gain: the trade-off between the blocks to a decision and the error rates."""
    chosen = [case for case in cases() if not names or any(name in case.name for name in names)]
    if not chosen:
        raise ValueError(f"--cases: no case matches {', '.join(names)}")
    work = [(g, case) for case in chosen for g in guards]
    found = _pool_map([("efficiency", case, g.applied(config), runs, seed, False) for g, case in work], jobs)
    return [(g, effs) for (g, _), effs in zip(work, found, strict=True)]


def guards_report(rows: Sequence[tuple[Guard, Sequence[Efficiency]]], config: SprtConfig) -> list[str]:
    """Per case and guard: type I (H1 at gain 0, the case tilted to ``mu0``), type II (H0 at 1x), the largest share
    undecided, and the median blocks over Wald's ASN at each gain."""
    runs = rows[0][1][0].rates.runs if rows and rows[0][1] else 0
    lines = [f"guards min_blocks/min_nonzero/prior against median blocks / Wald's ASN at gains of 0-3 x mu1 "
             f"({config.mu1:g}) and the error rates; {runs} runs per case, guard and gain, the same streams",
             f"{'case':54} {'guard':>9} {'type I':>7} {'type II':>7} {'undecided':>9} "
             + " ".join(f"{f'{g}x':>6}" for g in GAINS)]
    for guard, effs in rows:
        at = {e.gain: e for e in effs}
        ratios = " ".join(f"{at[g].rates.median_blocks / at[g].wald_blocks:6.2f}" for g in GAINS)
        undecided = max(e.rates.inconclusive / e.rates.runs for e in effs)
        lines.append(f"{effs[0].case.name:54} {guard.label:>9} {_pct(at[0].rates.accepted, runs):>7} "
                     f"{_pct(at[1].rates.rejected, runs):>7} {100 * undecided:8.1f}% {ratios}")
    return lines


@dataclass(frozen=True)
class SimulatedRuns:
    """What :func:`simulate` counted: outcomes of the runs, and the blocks they took in all."""

    runs: int
    accepted: int
    """Runs that ended with H1."""
    rejected: int
    """Runs that ended with H0."""
    inconclusive: int
    blocks: int

    @property
    def mean_blocks(self) -> float:
        return self.blocks / self.runs if self.runs else 0.0


def simulated_block_score(uniform: Callable[[], float], mean: float, seats: int = 2, split: float = 0.25) -> float:
    """One block score drawn from a simple model of duplicate play: on each of ``seats`` seats the candidate
    beats the baseline's result on the same deal (+1) with probability ``split + mean/2``, does worse (-1) with
    ``split - mean/2``, and matches it (0) otherwise; the block score is the mean over the seats (expected value
    ``mean``, ``|mean| <= 2*split``). ``uniform`` draws a number in ``[0, 1)``."""
    if not abs(mean) <= 2 * split <= 1:
        raise ValueError(f"the model needs |mean| <= 2*split <= 1, got mean={mean}, split={split}")
    total = 0
    for _ in range(seats):
        u = uniform()
        total += 1 if u < split + mean / 2 else (-1 if u >= 1 - split + mean / 2 else 0)
    return total / seats


def simulate(config: SprtConfig, mean: float, runs: int, seed: int, *, seats: int = 2,
             max_blocks: int = 100_000) -> SimulatedRuns:
    """Run the test ``runs`` times on block scores of :func:`simulated_block_score` with true mean ``mean``
    (seeded: the same arguments give the same counts); a run stops at a decision, at the config's cap, or at
    ``max_blocks``."""
    stream = SeededStream("uno-arena/sprt-simulation", seed)

    def uniform() -> float:
        return stream.next64() / 2.0**64

    counts = {"H1": 0, "H0": 0, "inconclusive": 0}
    blocks = 0
    for _ in range(runs):
        state = SprtState(config)
        while not state.finished and state.n < max_blocks:
            state = state.updated(simulated_block_score(uniform, mean, seats))
        counts[state.decision or "inconclusive"] += 1
        blocks += state.n
    return SimulatedRuns(runs, counts["H1"], counts["H0"], counts["inconclusive"], blocks)
