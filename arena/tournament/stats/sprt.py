"""A sequential test on duplicate-block scores: is the candidate better than the baseline?

The gauntlet (:mod:`arena.service.gauntlet_runs`) plays *duplicate blocks*: on one deal, the candidate and the
baseline each take every seat in turn against the same opponents, and the block's score is the mean, over
the seats, of the candidate's finishing points minus the baseline's on the same seat of the same deal
(:func:`finish_points`: 1 for first, 0 for last, shared ranks averaged; so a block score lies in ``[-1, 1]``).
The unit of the hypotheses is this block score: **finishing points per match gained over the baseline**
(``mu1 = 0.05``: in a two-seat match, the candidate finishes first where the baseline finished last on one deal
in twenty more than the other way round).

Model: the block scores are independent draws from an unknown *discrete* distribution over the few values a
block can score (for two seats: -1, -0.5, 0, 0.5, 1 and the shares of ties). UNO's block scores are far from
normal: with a strong common opponent most blocks score exactly 0 (both bots lose, or win, the same deal), and
the rest are rare and lopsided. The test is a *generalized* SPRT over these outcomes: with ``p_hat`` the empirical
distribution of the distinct scores seen (regularised, below) and ``q0``, ``q1`` its *exponential tilts* to mean
``mu0`` and ``mu1`` (``q_i`` proportional to ``p_hat_i e^(t x_i)``: the distributions of those means closest to it,
:mod:`arena.tournament.stats.sprt_design`),

    LLR = n * sum_i p_hat_i * log(q1_i / q0_i)

that is, the log-likelihood ratio of the blocks under the two tilts. Where the true distribution is ``T``, the LLR
grows by ``E_T[log(q1/q0)]`` per block, as Wald's SPRT between the tilts of ``T`` does: no test of these means
needs fewer blocks on average (Wald-Wolfowitz). Until 2026-12-06 the fits were the empirical-likelihood ones (the
maximum-likelihood distributions with means exactly ``mu0`` and ``mu1``, fishtest's form on its pentanomial pairs):
they agree near the hypotheses, but at true gains of 2-3 times ``mu1`` the LLR grew at half to two thirds of
Wald's rate, and the pseudo-blocks it put at -1 and 1 let its H0 fit reach ``mu0`` by moving a little mass to an
extreme never seen (on a three-seat classic field, whose blocks score within +-0.5, it took 3-12 times Wald's
blocks). The sequential test's benchmark (docs/benchmarks.md) measures both.

Regularisation, so that a run of identical blocks decides nothing early: ``p_hat`` adds a pseudo-count of
:attr:`SprtConfig.prior` blocks spread evenly over the values of :func:`support` (the values seen, and one grid
step beyond each end of them), and no decision is taken before ``min_nonzero`` blocks with a non-zero score have
been seen (nor before ``min_blocks`` blocks). A thousand blocks that all score 0 say that the bots tie often, not
which one is better.

Hypotheses: ``H0``: ``mu <= mu0`` (not better; ``mu0 = 0`` by default); ``H1``: ``mu >= mu1`` (better by at least
``mu1`` finishing points per match). Between them is the indifference zone: either answer is acceptable there.
The test stops with ``H1`` once ``LLR >= log((1 - beta) / alpha)`` and with ``H0`` once
``LLR <= log(beta / (1 - alpha))`` (Wald's bounds). ``max_blocks`` caps the test: reaching it without a decision
leaves the question open (``decision`` stays ``None``). With ``auto_cap`` the cap is :attr:`SprtState.needed_blocks`,
re-estimated every :data:`AUTO_CAP_EVERY` blocks: the blocks after which, at the current estimate, at most
:data:`CAP_SHARE` of such tests are still undecided where H0 or H1 holds. While the test runs,
:attr:`SprtState.expected_blocks_left` says how many more blocks it expects (:func:`blocks_to_decision`). The
error rates, the blocks against Wald's and the share undecided are measured, on real block scores tilted to each
mean and on sparse and skewed synthetic ones, by its benchmark (docs/benchmarks.md).

The estimate: :attr:`SprtState.mean` is the plain mean of the block scores. After a sequential stop it is
**biased** (a test that stops early for H1 stopped on a lucky streak, so the mean overstates the gain; early H0
understates it); the benchmark prints the bias after an acceptance (``bias|H1``), and `uno-arena gauntlet` prints
that range beside the mean of an accepted gauntlet. Read it as a description of the blocks played, not as the
candidate's true gain.

Everything here is pure: :class:`SprtState` is immutable and :meth:`SprtState.updated` returns a new state.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from ..results import MatchResult
from .sprt_design import WaldFigures, blocks_for_share, design_figures, tilt_log_ratio, undecided_share

Decision = Literal["H1", "H0"]
"""``"H1"``: the candidate is better (by at least ``mu1``); ``"H0"``: it is not (no better than ``mu0``)."""

SCORE_DIGITS = 9
"""Block scores are rounded to this many decimals before counting, so that float noise makes no new value."""

DEFAULT_MU0 = 0.0
DEFAULT_MU1 = 0.05
DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05
DEFAULT_MIN_BLOCKS = 16
DEFAULT_MIN_NONZERO = 16
DEFAULT_PRIOR = 1.0
MIN_STEP = 1.0 / 24
CAP_SHARE = 0.01
"""An automatic cap leaves about this share of tests undecided where H0 or H1 holds (at the current estimate, by
Wald's approximations): 1%, so that the share measured on real blocks stays under 2% (at 2% it measured up to
2.5% on the narrow classic field, whose cap is estimated from few blocks; docs/benchmarks.md)."""
AUTO_CAP_CEILING = 20_000
"""An automatic cap never exceeds this many blocks."""
AUTO_CAP_EVERY = 16
"""An automatic cap is re-estimated every this many blocks (the estimate costs a few tilts)."""
"""The least grid step :func:`support` adds beyond the values seen."""


class SprtFinished(ValueError):
    """A block score was added to a test that has already decided or reached its cap."""


@dataclass(frozen=True)
class SprtConfig:
    """The hypotheses and error rates of one test (see the module docstring).

    ``mu0``/``mu1``: block-score means of H0 (``mu <= mu0``) and H1 (``mu >= mu1``), in finishing points per
    match gained over the baseline, ``-1 < mu0 < mu1 < 1``; ``alpha``: the rate of accepting H1 when H0 holds;
    ``beta``: the rate of accepting H0 when H1 holds; ``min_blocks``: no decision before this many blocks;
    ``min_nonzero``: nor before this many blocks with a non-zero score; ``prior``: the pseudo-count of the
    regularisation; ``max_blocks``: the cap (``None``: none).
    """

    mu0: float = DEFAULT_MU0
    mu1: float = DEFAULT_MU1
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    min_blocks: int = DEFAULT_MIN_BLOCKS
    max_blocks: int | None = None
    min_nonzero: int = DEFAULT_MIN_NONZERO
    prior: float = DEFAULT_PRIOR
    auto_cap: bool = False
    """End undecided once the blocks reach :attr:`SprtState.needed_blocks` (at most ``max_blocks``)."""

    def __post_init__(self) -> None:
        if not (-1.0 < self.mu0 < self.mu1 < 1.0):
            raise ValueError(f"the test needs -1 < mu0 < mu1 < 1, got mu0={self.mu0}, mu1={self.mu1}")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < rate < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5 (exclusive), got {rate}")
        if self.min_blocks < 2:
            raise ValueError(f"min_blocks must be at least 2, got {self.min_blocks}")
        if self.max_blocks is not None and self.max_blocks < self.min_blocks:
            raise ValueError(f"max_blocks ({self.max_blocks}) must be at least min_blocks ({self.min_blocks})")
        if self.min_nonzero < 1:
            raise ValueError(f"min_nonzero must be at least 1, got {self.min_nonzero}")
        if not (math.isfinite(self.prior) and self.prior > 0):
            raise ValueError(f"prior must be a positive pseudo-count, got {self.prior}")

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's bounds ``(lower, upper)``: accept H0 at ``LLR <= lower``, H1 at ``LLR >= upper``."""
        return (math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha))

    def to_dict(self) -> dict[str, Any]:
        return {"mu0": self.mu0, "mu1": self.mu1, "alpha": self.alpha, "beta": self.beta,
                "min_blocks": self.min_blocks, "max_blocks": self.max_blocks, "min_nonzero": self.min_nonzero,
                "prior": self.prior, "auto_cap": self.auto_cap}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SprtConfig:
        cap = data.get("max_blocks")
        return cls(mu0=float(data.get("mu0", DEFAULT_MU0)), mu1=float(data.get("mu1", DEFAULT_MU1)),
                   alpha=float(data.get("alpha", DEFAULT_ALPHA)), beta=float(data.get("beta", DEFAULT_BETA)),
                   min_blocks=int(data.get("min_blocks", DEFAULT_MIN_BLOCKS)),
                   max_blocks=None if cap is None else int(cap),
                   min_nonzero=int(data.get("min_nonzero", DEFAULT_MIN_NONZERO)),
                   prior=float(data.get("prior", DEFAULT_PRIOR)), auto_cap=bool(data.get("auto_cap", False)))


def support(seen: Sequence[float], mu0: float, mu1: float) -> list[float]:
    """The values the fit may use: the ones seen and one grid step beyond each end of them (the step: the least gap
    between the values seen and 0, at least :data:`MIN_STEP`), clipped to ``[-1, 1]``; when that still leaves
    ``mu0`` or ``mu1`` at or outside the ends, -1 and 1 as well (so both fits exist).

    Not -1 and 1 always: a pseudo-block at an extreme never seen lets the H0 fit reach ``mu0`` by moving a little
    mass there, so on a narrow distribution (a three-seat classic field scores within +-0.5) the LLR grew several
    times slower than Wald's SPRT between the distribution's tilts (docs/benchmarks.md)."""
    values = sorted(set(seen) | {0.0})
    gaps = [b - a for a, b in itertools.pairwise(values)]
    step = max(min(gaps, default=1.0), MIN_STEP)
    low, high = max(values[0] - step, -1.0), min(values[-1] + step, 1.0)
    out = sorted(set(seen) | {low, high})
    if not out[0] < min(mu0, mu1) or not max(mu0, mu1) < out[-1]:
        out = sorted(set(out) | {-1.0, 1.0})
    return out


def regularised(counts: Sequence[tuple[float, int]], prior: float, mu0: float = DEFAULT_MU0,
                mu1: float = DEFAULT_MU1) -> tuple[list[float], list[float]]:
    """The values (:func:`support`) and their regularised empirical probabilities: each count plus an equal share
    of ``prior`` pseudo-blocks."""
    values = support([v for v, _ in counts], mu0, mu1)
    seen = dict(counts)
    share = prior / len(values)
    weights = [seen.get(v, 0) + share for v in values]
    total = sum(weights)
    return values, [w / total for w in weights]


def multinomial_llr(counts: Sequence[tuple[float, int]], mu0: float, mu1: float, prior: float) -> float:
    """The log-likelihood ratio of mean ``mu1`` against ``mu0`` for ``counts`` (value, blocks) pairs: ``n`` times
    the expected log ratio, under the regularised empirical distribution, of its exponential tilts to ``mu1`` and
    ``mu0`` (:func:`arena.tournament.stats.sprt_design.tilt_log_ratio`)."""
    n = sum(c for _, c in counts)
    if n == 0:
        return 0.0
    values, probs = regularised(counts, prior, mu0, mu1)
    return n * sum(p * z for p, z in zip(probs, tilt_log_ratio(values, probs, mu0, mu1), strict=True))


@dataclass(frozen=True)
class SprtState:
    """The test after ``n`` block scores: how many blocks scored each distinct value (``counts``, sorted by
    value), and the decision once taken (it never changes afterwards: :meth:`updated` then raises
    :class:`SprtFinished`)."""

    config: SprtConfig = SprtConfig()
    counts: tuple[tuple[float, int], ...] = ()
    decision: Decision | None = None
    stopped: bool = False
    """Ended undecided by the automatic cap."""
    n: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", sum(c for _, c in self.counts))

    def updated(self, score: float) -> SprtState:
        """The state after one more block score (``-1 <= score <= 1``)."""
        if self.finished:
            raise SprtFinished(f"the test is over after {self.n} blocks ({self.outcome}); start a new one")
        if not (math.isfinite(score) and -1.0 <= score <= 1.0):
            raise ValueError(f"a block score must be a number between -1 and 1, got {score!r}")
        value = round(score, SCORE_DIGITS) + 0.0  # + 0.0: -0.0 counts as 0
        seen = dict(self.counts)
        seen[value] = seen.get(value, 0) + 1
        state = SprtState(self.config, tuple(sorted(seen.items())))
        decision = state._decide()
        return replace(state, decision=decision, stopped=decision is None and state._auto_capped())

    def extended(self, scores: Iterable[float]) -> SprtState:
        """The state after every score of ``scores`` in order (stopping with :class:`SprtFinished` past a
        decision or the cap)."""
        state = self
        for score in scores:
            state = state.updated(score)
        return state

    @property
    def mean(self) -> float:
        """The plain mean block score (biased after a sequential stop: see the module docstring)."""
        return sum(v * c for v, c in self.counts) / self.n if self.n else 0.0

    @property
    def variance(self) -> float:
        """The sample variance of the block scores (0 with fewer than two)."""
        if self.n < 2:
            return 0.0
        mean = self.mean
        return sum(c * (v - mean) ** 2 for v, c in self.counts) / (self.n - 1)

    @property
    def nonzero(self) -> int:
        """How many blocks scored other than 0."""
        return sum(c for v, c in self.counts if v != 0.0)

    @cached_property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 against H0 (0 before any block)."""
        c = self.config
        return multinomial_llr(self.counts, c.mu0, c.mu1, c.prior)

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's bounds ``(lower, upper)`` of the configured error rates."""
        return self.config.bounds

    @property
    def capped(self) -> bool:
        """Whether the test reached its cap (``max_blocks``, or the automatic one) without a decision."""
        cap = self.config.max_blocks
        return self.decision is None and (self.stopped or (cap is not None and self.n >= cap))

    @cached_property
    def design(self) -> tuple[WaldFigures, WaldFigures] | None:
        """Wald's figures at the two design points (the current estimate tilted to ``mu0`` and to ``mu1``); None
        before any block."""
        if not self.n:
            return None
        c = self.config
        values, probs = regularised(self.counts, c.prior, c.mu0, c.mu1)
        return design_figures(values, probs, c.mu0, c.mu1, *c.bounds)

    @cached_property
    def needed_blocks(self) -> int | None:
        """The blocks after which, at the current estimate, at most :data:`CAP_SHARE` of tests are undecided where
        H0 or H1 holds (at ``mu0`` and at ``mu1``): the automatic cap, and the advice to an author whose cap is
        shorter. None before any block."""
        if self.design is None:
            return None
        lower, upper = self.bounds
        need = max(blocks_for_share(f, CAP_SHARE, lower, upper, AUTO_CAP_CEILING) for f in self.design)
        # and the blocks that bring min_nonzero non-zero ones in 98% of runs (a Poisson margin, share estimated)
        k = self.config.min_nonzero
        share = (self.nonzero + 1) / (self.n + 2)
        guard = math.ceil((k + 2.05 * math.sqrt(k) + 2) / share)
        return min(max(need, guard, self.config.min_blocks), AUTO_CAP_CEILING)

    def undecided_at(self, blocks: int) -> float | None:
        """About the share of tests like this one (at the current estimate, where H0 or H1 holds) still undecided
        after ``blocks`` blocks: the larger of the two design points. None before any block."""
        if self.design is None:
            return None
        lower, upper = self.bounds
        return max(undecided_share(f, blocks, lower, upper) for f in self.design)

    @property
    def expected_blocks_left(self) -> int | None:
        """How many more blocks the test expects at the current estimate (:func:`blocks_to_decision`, and no fewer
        than the guards still ask for); None once finished or while the LLR is 0."""
        if self.finished:
            return None
        lower, upper = self.bounds
        left = blocks_to_decision(self.llr, self.n, lower, upper)
        if left is None:
            return None
        guard = max(self.config.min_blocks - self.n, 0)
        if self.nonzero < self.config.min_nonzero:
            share = self.nonzero / self.n if self.n else 0.0
            if share == 0.0:
                return None
            guard = max(guard, math.ceil((self.config.min_nonzero - self.nonzero) / share))
        return max(left, guard, 1)

    def _auto_capped(self) -> bool:
        c = self.config
        if not c.auto_cap or self.n % AUTO_CAP_EVERY or self.n < c.min_blocks:
            return False
        need = self.needed_blocks
        return need is not None and self.n >= need

    @property
    def finished(self) -> bool:
        return self.decision is not None or self.capped

    @property
    def outcome(self) -> str:
        """``"H1"``, ``"H0"``, ``"inconclusive"`` (capped) or ``"running"``."""
        if self.decision is not None:
            return self.decision
        return "inconclusive" if self.capped else "running"

    def _decide(self) -> Decision | None:
        if self.n < self.config.min_blocks or self.nonzero < self.config.min_nonzero:
            return None
        lower, upper = self.bounds
        llr = self.llr
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None

    def line(self) -> str:
        """One line for people: blocks (non-zero ones), mean block score, LLR within its bounds, decision."""
        lower, upper = self.bounds
        return (f"blocks {self.n} ({self.nonzero} non-zero)  mean {self.mean:+.4f} (not corrected for the early stop)  "
                f"LLR {self.llr:+.3f} in [{lower:.3f}, {upper:.3f}]  {self.outcome}")

    def to_dict(self) -> dict[str, Any]:
        return {"config": self.config.to_dict(), "n": self.n, "counts": [[v, c] for v, c in self.counts],
                "mean": self.mean, "decision": self.decision, "llr": self.llr, "outcome": self.outcome,
                "stopped": self.stopped}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SprtState:
        decision = data.get("decision")
        if decision not in (None, "H0", "H1"):
            raise ValueError(f"unknown decision {decision!r}; expected 'H0', 'H1' or null")
        counts = tuple(sorted((float(v), int(c)) for v, c in data.get("counts", [])))
        return cls(config=SprtConfig.from_dict(data.get("config", {})), counts=counts, decision=decision,
                   stopped=bool(data.get("stopped", False)) and decision is None)


def blocks_to_decision(llr: float, n: int, lower: float, upper: float) -> int | None:
    """How many more blocks until the LLR reaches the bound it heads for, if it keeps growing as it has: the LLR
    after ``n`` blocks is ``n`` times the expected log ratio per block at the current estimate, so the drift per
    block is ``llr / n`` and the blocks left ``n * (bound / llr - 1)``. 0 at or past a bound; None while the LLR
    is 0 (no direction yet)."""
    if llr >= upper or llr <= lower:
        return 0
    if n <= 0 or llr == 0.0:
        return None
    bound = upper if llr > 0 else lower
    return math.ceil(n * (bound / llr - 1.0))


def finish_points(result: MatchResult, seat: int) -> float:
    """The finishing points of one seat: 1 for first, 0 for last, linear between; seats sharing a rank share
    the mean of the places they cover (two seats tied first of three get 0.75 each)."""
    ranks = result.ranks()
    k = len(ranks)
    if not 0 <= seat < k:
        raise ValueError(f"match {result.match_id}: seat {seat} out of range 0..{k - 1}")
    tied = sum(1 for r in ranks if r == ranks[seat])
    place = ranks[seat] + (tied - 1) / 2.0
    return 1.0 - place / (k - 1)


def block_score(candidate_points: Iterable[float], baseline_points: Iterable[float]) -> float:
    """The score of one duplicate block: the mean over its seats of candidate minus baseline points."""
    pairs = list(zip(candidate_points, baseline_points, strict=True))
    if not pairs:
        raise ValueError("a block needs at least one seat")
    return sum(c - b for c, b in pairs) / len(pairs)
