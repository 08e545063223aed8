"""A sequential test on duplicate-block scores: is the candidate better than the baseline?

The gauntlet (:mod:`arena.service.gauntlet`) plays *duplicate blocks*: on one deal, the candidate and the
baseline each take every seat in turn against the same opponents, and the block's score is the mean, over
the seats, of the candidate's finishing points minus the baseline's on the same seat of the same deal
(:func:`finish_points`: 1 for first, 0 for last, shared ranks averaged; so a block score lies in ``[-1, 1]``).
Duplicate deals cancel most of the luck of the cards, so the block scores are far less noisy than single
matches.

Model: the block scores ``X_1, X_2, ...`` are independent and normal with an unknown mean ``mu`` and an unknown
variance (a block score is a mean over seats, and its noise is close to normal well before the test decides).
The test is a *generalized* SPRT (GSPRT, as fishtest runs on its paired game scores): Wald's sequential test
in which the log-likelihood ratio compares the two hypotheses each at its most likely variance. For normal
scores this is

    LLR = n/2 * log((v + (mean - mu0)**2) / (v + (mean - mu1)**2))

with ``mean`` the sample mean of the ``n`` block scores and ``v`` their maximum-likelihood variance (divided
by ``n``); both sums are floored at :data:`VARIANCE_FLOOR` so identical scores give a finite LLR.
(The simpler form ``n * (mu1 - mu0) / v * (mean - (mu0 + mu1) / 2)``, the same LLR with one shared variance,
lets the error rates drift above the set ones when the scores take few values; the seeded simulations of
``tests/tournament/test_sprt.py`` show this form within them.) Hypotheses:

- ``H0``: ``mu <= mu0`` (not better; ``mu0 = 0`` by default: no better than the baseline);
- ``H1``: ``mu >= mu1`` (better by at least ``mu1`` points per match, ``mu1 > mu0``).

Between ``mu0`` and ``mu1`` is the indifference zone: either answer is acceptable there. The test stops with
``H1`` once ``LLR >= log((1 - beta) / alpha)`` and with ``H0`` once ``LLR <= log(beta / (1 - alpha))`` (Wald's
bounds), never before ``min_blocks`` blocks (the variance estimate of two or three blocks is too rough to
trust). Error rates: ``P(accept H1 | mu <= mu0) <~ alpha`` and ``P(accept H0 | mu >= mu1) <~ beta`` (Wald's
bounds are approximate: overshoot makes the real rates a little lower, an estimated variance on very few
blocks could push them higher, which ``min_blocks`` guards against). ``max_blocks`` caps the test: reaching
it without a decision leaves the question open (``decision`` stays ``None``).

Everything here is pure: :class:`SprtState` is immutable and :meth:`SprtState.updated` returns a new state.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from ._rng import SeededStream
from .results import MatchResult

Decision = Literal["H1", "H0"]
"""``"H1"``: the candidate is better (by at least ``mu1``); ``"H0"``: it is not (no better than ``mu0``)."""

VARIANCE_FLOOR = 1e-6
"""The smallest spread the LLR divides by (block scores that all equal ``mu1`` would give zero)."""

DEFAULT_MU0 = 0.0
DEFAULT_MU1 = 0.05
DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05
DEFAULT_MIN_BLOCKS = 16


class SprtFinished(ValueError):
    """A block score was added to a test that has already decided or reached its cap."""


@dataclass(frozen=True)
class SprtConfig:
    """The hypotheses and error rates of one test (see the module docstring).

    ``mu0``/``mu1``: block-score means of H0 (``mu <= mu0``) and H1 (``mu >= mu1``), in finishing points per
    match, ``-1 <= mu0 < mu1 <= 1``; ``alpha``: the rate of accepting H1 when H0 holds; ``beta``: the rate of
    accepting H0 when H1 holds; ``min_blocks``: no decision before this many blocks; ``max_blocks``: the cap
    (``None``: none).
    """

    mu0: float = DEFAULT_MU0
    mu1: float = DEFAULT_MU1
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    min_blocks: int = DEFAULT_MIN_BLOCKS
    max_blocks: int | None = None

    def __post_init__(self) -> None:
        if not (-1.0 <= self.mu0 < self.mu1 <= 1.0):
            raise ValueError(f"the test needs -1 <= mu0 < mu1 <= 1, got mu0={self.mu0}, mu1={self.mu1}")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < rate < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5 (exclusive), got {rate}")
        if self.min_blocks < 2:
            raise ValueError(f"min_blocks must be at least 2 (a variance needs two blocks), got {self.min_blocks}")
        if self.max_blocks is not None and self.max_blocks < self.min_blocks:
            raise ValueError(f"max_blocks ({self.max_blocks}) must be at least min_blocks ({self.min_blocks})")

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's bounds ``(lower, upper)``: accept H0 at ``LLR <= lower``, H1 at ``LLR >= upper``."""
        return (math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha))

    def to_dict(self) -> dict[str, Any]:
        return {"mu0": self.mu0, "mu1": self.mu1, "alpha": self.alpha, "beta": self.beta,
                "min_blocks": self.min_blocks, "max_blocks": self.max_blocks}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SprtConfig:
        cap = data.get("max_blocks")
        return cls(mu0=float(data.get("mu0", DEFAULT_MU0)), mu1=float(data.get("mu1", DEFAULT_MU1)),
                   alpha=float(data.get("alpha", DEFAULT_ALPHA)), beta=float(data.get("beta", DEFAULT_BETA)),
                   min_blocks=int(data.get("min_blocks", DEFAULT_MIN_BLOCKS)),
                   max_blocks=None if cap is None else int(cap))


@dataclass(frozen=True)
class SprtState:
    """The test after ``n`` block scores: running mean and sum of squared deviations (Welford), and the
    decision once taken (it never changes afterwards: :meth:`updated` then raises :class:`SprtFinished`)."""

    config: SprtConfig = SprtConfig()
    n: int = 0
    mean: float = 0.0
    m2: float = 0.0
    decision: Decision | None = None

    def updated(self, score: float) -> SprtState:
        """The state after one more block score (``-1 <= score <= 1``)."""
        if self.finished:
            raise SprtFinished(f"the test is over after {self.n} blocks ({self.outcome}); start a new one")
        if not (math.isfinite(score) and -1.0 <= score <= 1.0):
            raise ValueError(f"a block score must be a number between -1 and 1, got {score!r}")
        n = self.n + 1
        delta = score - self.mean
        mean = self.mean + delta / n
        m2 = self.m2 + delta * (score - mean)
        state = replace(self, n=n, mean=mean, m2=m2)
        return replace(state, decision=state._decide())

    def extended(self, scores: Iterable[float]) -> SprtState:
        """The state after every score of ``scores`` in order (stopping with :class:`SprtFinished` past a
        decision or the cap)."""
        state = self
        for score in scores:
            state = state.updated(score)
        return state

    @property
    def variance(self) -> float:
        """The sample variance of the block scores (0 with fewer than two)."""
        return self.m2 / (self.n - 1) if self.n >= 2 else 0.0

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 against H0 (0 with fewer than two blocks)."""
        if self.n < 2:
            return 0.0
        c = self.config
        v = self.m2 / self.n
        spread0 = max(v + (self.mean - c.mu0) ** 2, VARIANCE_FLOOR)
        spread1 = max(v + (self.mean - c.mu1) ** 2, VARIANCE_FLOOR)
        return self.n / 2.0 * math.log(spread0 / spread1)

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's bounds ``(lower, upper)`` of the configured error rates."""
        return self.config.bounds

    @property
    def capped(self) -> bool:
        """Whether the test reached ``max_blocks`` without a decision."""
        cap = self.config.max_blocks
        return self.decision is None and cap is not None and self.n >= cap

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
        if self.n < self.config.min_blocks:
            return None
        lower, upper = self.bounds
        llr = self.llr
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None

    def line(self) -> str:
        """One line for people: blocks, mean block score, LLR within its bounds, decision."""
        lower, upper = self.bounds
        return (f"blocks {self.n}  mean {self.mean:+.4f}  sd {math.sqrt(self.variance):.4f}  "
                f"LLR {self.llr:+.3f} in [{lower:.3f}, {upper:.3f}]  {self.outcome}")

    def to_dict(self) -> dict[str, Any]:
        return {"config": self.config.to_dict(), "n": self.n, "mean": self.mean, "m2": self.m2,
                "decision": self.decision, "llr": self.llr, "outcome": self.outcome}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SprtState:
        decision = data.get("decision")
        if decision not in (None, "H0", "H1"):
            raise ValueError(f"unknown decision {decision!r}; expected 'H0', 'H1' or null")
        return cls(config=SprtConfig.from_dict(data.get("config", {})), n=int(data.get("n", 0)),
                   mean=float(data.get("mean", 0.0)), m2=float(data.get("m2", 0.0)), decision=decision)


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
