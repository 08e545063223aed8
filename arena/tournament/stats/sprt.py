"""A sequential test on duplicate-block scores: is the candidate better than the baseline? (pure)

A block's score is the mean over its seats of the candidate's finishing points minus the baseline's on the same
deal and seat (:func:`finish_points`, :func:`block_score`: in ``[-1, 1]``), the unit of ``mu0`` and ``mu1``. UNO's
block scores are discrete and far from normal (mostly exact ties), so the test is a generalized SPRT over the
distinct values seen: ``LLR = n * sum p_hat * log(q1 / q0)``, ``q0`` and ``q1`` the exponential tilts of the
regularised empirical distribution to ``mu0`` and ``mu1`` (:mod:`arena.tournament.stats.sprt_design`), which grows
as fast as Wald's SPRT between the true distribution's tilts. A pseudo-count over :func:`support` and the
``min_blocks``/``min_nonzero`` guards keep a run of ties from deciding anything. Wald's bounds decide; the cap is
``max_blocks`` or, with ``auto_cap``, :attr:`SprtState.needed_blocks`. :attr:`SprtState.mean` is biased after a
sequential stop. docs/organizers.md (gauntlet) describes the test; docs/benchmarks.md (sequential test) measures it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
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
"""The least grid step :func:`support` adds beyond the values seen."""
CAP_SHARE = 0.01
"""An automatic cap leaves about this share of tests undecided where H0 or H1 holds (by Wald's approximations), so
that the share measured on real blocks stays under 2%."""
AUTO_CAP_CEILING = 20_000
"""An automatic cap never exceeds this many blocks."""
AUTO_CAP_EVERY = 16
"""An automatic cap is re-estimated every this many blocks (the estimate costs a few tilts)."""


class SprtFinished(ValueError):
    """A block score was added to a test that has already decided or reached its cap."""


@dataclass(frozen=True)
class SprtConfig:
    """The hypotheses and error rates of one test: H0 ``mu <= mu0``, H1 ``mu >= mu1`` (block-score means);
    ``alpha`` accepts H1 when H0 holds, ``beta`` H0 when H1 holds; no decision before ``min_blocks`` blocks and
    ``min_nonzero`` non-zero ones; ``prior``: the regularisation's pseudo-count; ``max_blocks``: the cap."""

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
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SprtConfig:
        """A config as :meth:`to_dict` wrote it; a missing field takes its default."""
        kinds = {"mu0": float, "mu1": float, "alpha": float, "beta": float, "min_blocks": int, "min_nonzero": int,
                 "prior": float, "auto_cap": bool}
        cap = data.get("max_blocks")
        return cls(**{name: kind(data[name]) for name, kind in kinds.items() if name in data},
                   max_blocks=None if cap is None else int(cap))


def support(seen: Sequence[float], mu0: float, mu1: float) -> list[float]:
    """The values the fit may use: the ones seen and one grid step beyond each end (the least gap between the
    values seen and 0, at least :data:`MIN_STEP`), clipped to ``[-1, 1]``; -1 and 1 as well only where ``mu0`` or
    ``mu1`` would lie outside (mass at an extreme never seen lets the H0 fit explain away a clear gain)."""
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
    """The values (:func:`support`) and their probabilities: each count plus an equal share of ``prior``."""
    values = support([v for v, _ in counts], mu0, mu1)
    seen = dict(counts)
    share = prior / len(values)
    weights = [seen.get(v, 0) + share for v in values]
    total = sum(weights)
    return values, [w / total for w in weights]


def multinomial_llr(counts: Sequence[tuple[float, int]], mu0: float, mu1: float, prior: float) -> float:
    """The log-likelihood ratio of mean ``mu1`` against ``mu0`` for ``(value, blocks)`` counts: ``n`` times the
    expected log ratio of the regularised distribution's tilts."""
    n = sum(c for _, c in counts)
    if n == 0:
        return 0.0
    values, probs = regularised(counts, prior, mu0, mu1)
    return n * sum(p * z for p, z in zip(probs, tilt_log_ratio(values, probs, mu0, mu1), strict=True))


@dataclass(frozen=True)
class SprtState:
    """The test after ``n`` block scores: ``counts`` per distinct value (sorted), and the decision once taken
    (final: :meth:`updated` then raises :class:`SprtFinished`)."""

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
        state = self
        for score in scores:
            state = state.updated(score)
        return state

    @property
    def mean(self) -> float:
        """The plain mean block score (biased after a sequential stop)."""
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
        return self.config.bounds

    @property
    def capped(self) -> bool:
        """Whether the test reached its cap (``max_blocks``, or the automatic one) without a decision."""
        cap = self.config.max_blocks
        return self.decision is None and (self.stopped or (cap is not None and self.n >= cap))

    @cached_property
    def design(self) -> tuple[WaldFigures, WaldFigures] | None:
        """Wald's figures at the current estimate tilted to ``mu0`` and to ``mu1``; None before any block."""
        if not self.n:
            return None
        c = self.config
        values, probs = regularised(self.counts, c.prior, c.mu0, c.mu1)
        return design_figures(values, probs, c.mu0, c.mu1, *c.bounds)

    @cached_property
    def needed_blocks(self) -> int | None:
        """The blocks after which, at the current estimate, at most :data:`CAP_SHARE` of tests are undecided at
        ``mu0`` and at ``mu1``: the automatic cap, and the advice to an author whose cap is shorter."""
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
        """About the share of tests like this one still undecided after ``blocks`` blocks (the larger of the two
        design points); None before any block."""
        if self.design is None:
            return None
        lower, upper = self.bounds
        return max(undecided_share(f, blocks, lower, upper) for f in self.design)

    @property
    def expected_blocks_left(self) -> int | None:
        """How many more blocks the test expects (:func:`blocks_to_decision`, no fewer than the guards ask); None
        once finished or while the LLR is 0."""
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
        return "H1" if self.llr >= upper else "H0" if self.llr <= lower else None

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
    """How many more blocks until the LLR reaches the bound it heads for at a drift of ``llr / n`` a block:
    ``n * (bound / llr - 1)``. 0 at or past a bound; None while the LLR is 0."""
    if llr >= upper or llr <= lower:
        return 0
    if n <= 0 or llr == 0.0:
        return None
    bound = upper if llr > 0 else lower
    return math.ceil(n * (bound / llr - 1.0))


def finish_points(result: MatchResult, seat: int) -> float:
    """The finishing points of one seat: 1 for first, 0 for last, linear between; tied seats share the mean of
    their places."""
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
