"""A sequential test on duplicate-block scores: is the candidate better than the baseline?

The gauntlet (:mod:`arena.service.gauntlet`) plays *duplicate blocks*: on one deal, the candidate and the
baseline each take every seat in turn against the same opponents, and the block's score is the mean, over
the seats, of the candidate's finishing points minus the baseline's on the same seat of the same deal
(:func:`finish_points`: 1 for first, 0 for last, shared ranks averaged; so a block score lies in ``[-1, 1]``).
The unit of the hypotheses is this block score: **finishing points per match gained over the baseline**
(``mu1 = 0.05``: in a two-seat match, the candidate finishes first where the baseline finished last on one deal
in twenty more than the other way round).

Model: the block scores are independent draws from an unknown *discrete* distribution over the few values a
block can score (for two seats: -1, -0.5, 0, 0.5, 1 and the shares of ties). UNO's block scores are far from
normal: with a strong common opponent most blocks score exactly 0 (both bots lose, or win, the same deal), and
the rest are rare and lopsided. The test is a *generalized* SPRT over these outcomes, as fishtest runs on its
pentanomial game pairs: with ``p_hat`` the empirical distribution of the distinct scores seen (regularised,
below) and ``p0``, ``p1`` the distributions on the same values closest to it (maximum likelihood) with mean
exactly ``mu0``, ``mu1``,

    LLR = n * sum_i p_hat_i * log(p1_i / p0_i)

where the constrained maximum has the form ``p_i = p_hat_i / (1 + lam * (x_i - mu))`` and ``lam`` solves
``sum_i p_hat_i (x_i - mu) / (1 + lam (x_i - mu)) = 0`` (one dimension, monotone: a safeguarded Newton).

Regularisation, so that a run of identical blocks decides nothing early: ``p_hat`` adds a pseudo-count of
:attr:`SprtConfig.prior` blocks spread evenly over the values seen and the extremes -1 and 1 (so every mean in
``(-1, 1)`` is reachable and no probability is 0), and no decision is taken before ``min_nonzero`` blocks with a
non-zero score have been seen (nor before ``min_blocks`` blocks). A thousand blocks that all score 0 say that
the bots tie often, not which one is better.

Hypotheses: ``H0``: ``mu <= mu0`` (not better; ``mu0 = 0`` by default); ``H1``: ``mu >= mu1`` (better by at least
``mu1`` finishing points per match). Between them is the indifference zone: either answer is acceptable there.
The test stops with ``H1`` once ``LLR >= log((1 - beta) / alpha)`` and with ``H0`` once
``LLR <= log(beta / (1 - alpha))`` (Wald's bounds). ``max_blocks`` caps the test: reaching it without a decision
leaves the question open (``decision`` stays ``None``). The error rates are measured, on resampled real block
scores and on sparse and skewed synthetic ones, by `uno-arena bench sprt` (:mod:`arena.bench.sprt`).

The estimate: :attr:`SprtState.mean` is the plain mean of the block scores. After a sequential stop it is
**biased** (a test that stops early for H1 stopped on a lucky streak, so the mean overstates the gain; early H0
understates it); `bench sprt` prints the size of that bias. Read it as a description of the blocks played, not
as the candidate's true gain.

Everything here is pure: :class:`SprtState` is immutable and :meth:`SprtState.updated` returns a new state.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from ._rng import SeededStream
from .results import MatchResult

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
                "prior": self.prior}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SprtConfig:
        cap = data.get("max_blocks")
        return cls(mu0=float(data.get("mu0", DEFAULT_MU0)), mu1=float(data.get("mu1", DEFAULT_MU1)),
                   alpha=float(data.get("alpha", DEFAULT_ALPHA)), beta=float(data.get("beta", DEFAULT_BETA)),
                   min_blocks=int(data.get("min_blocks", DEFAULT_MIN_BLOCKS)),
                   max_blocks=None if cap is None else int(cap),
                   min_nonzero=int(data.get("min_nonzero", DEFAULT_MIN_NONZERO)),
                   prior=float(data.get("prior", DEFAULT_PRIOR)))


def regularised(counts: Sequence[tuple[float, int]], prior: float) -> tuple[list[float], list[float]]:
    """The values (the ones seen, and -1 and 1) and their regularised empirical probabilities: each count plus
    an equal share of ``prior`` pseudo-blocks."""
    values = sorted({v for v, _ in counts} | {-1.0, 1.0})
    seen = dict(counts)
    share = prior / len(values)
    weights = [seen.get(v, 0) + share for v in values]
    total = sum(weights)
    return values, [w / total for w in weights]


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


def multinomial_llr(counts: Sequence[tuple[float, int]], mu0: float, mu1: float, prior: float) -> float:
    """The GSPRT's log-likelihood ratio of mean ``mu1`` against ``mu0`` for ``counts`` (value, blocks) pairs."""
    n = sum(c for _, c in counts)
    if n == 0:
        return 0.0
    values, probs = regularised(counts, prior)
    lam0 = constrained_lambda(values, probs, mu0)
    lam1 = constrained_lambda(values, probs, mu1)
    total = 0.0
    for x, p in zip(values, probs, strict=True):
        total += p * (math.log1p(lam0 * (x - mu0)) - math.log1p(lam1 * (x - mu1)))
    return n * total


@dataclass(frozen=True)
class SprtState:
    """The test after ``n`` block scores: how many blocks scored each distinct value (``counts``, sorted by
    value), and the decision once taken (it never changes afterwards: :meth:`updated` then raises
    :class:`SprtFinished`)."""

    config: SprtConfig = SprtConfig()
    counts: tuple[tuple[float, int], ...] = ()
    decision: Decision | None = None
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
        return replace(state, decision=state._decide())

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
                "mean": self.mean, "decision": self.decision, "llr": self.llr, "outcome": self.outcome}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SprtState:
        decision = data.get("decision")
        if decision not in (None, "H0", "H1"):
            raise ValueError(f"unknown decision {decision!r}; expected 'H0', 'H1' or null")
        counts = tuple(sorted((float(v), int(c)) for v, c in data.get("counts", [])))
        return cls(config=SprtConfig.from_dict(data.get("config", {})), counts=counts, decision=decision)


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
