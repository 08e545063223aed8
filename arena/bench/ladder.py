"""`uno-arena bench ladder`: how many matches the ladder's informative matchmaking needs to order bots of known
strength, against uniform random pairing, like with like.

Every contender of :data:`arena.tournament.matchmaking.LADDER_CONTENDERS` (informative or uniform tables, with
duplicate blocks or one match per table) plays the same seeded ladders on the latent model
(:func:`arena.tournament.matchmaking.latent_player`). The model's deal luck is the one measured on real UNO
matches (:func:`arena.bench.duplicates.deal_luck` of the recorded duplicate sample), not a guess. The stopping
criterion is fixed before the run: a ladder is *ordered* at the match count after which the order by rating is
right at every check for the next ``hold`` matches (:func:`arena.tournament.matchmaking.simulate_ladder`); a
ladder still unordered at ``max_matches`` is counted at ``max_matches`` and reported.

The comparisons are informative over uniform **with duplicate blocks on both sides** and **with one match per
table on both sides** (and, for scale, uniform with duplicates over uniform without): the ratio of the mean
matches, with a 95% percentile bootstrap interval over the seeds (the seeds resampled jointly: each seed is one
ladder of every contender).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from arena.tournament.matchmaking import LADDER_CONTENDERS, PolicyFigures, compare_matchmaking

COMPARISONS: tuple[tuple[int, int], ...] = ((0, 1), (2, 3), (1, 3))
"""Which contenders are compared (indexes in LADDER_CONTENDERS): numerator, denominator."""


@dataclass(frozen=True)
class LadderSetup:
    """The simulated field and the criterion, all fixed before the run."""

    bots: int = 8
    seats: int = 2
    gap: float = 0.6
    deal_luck: float = 0.5
    hold: int = 500
    max_matches: int = 20_000

    def __post_init__(self) -> None:
        if self.bots < self.seats or self.seats < 2:
            raise ValueError(f"--bots ({self.bots}) must be at least --seats ({self.seats}), which is at least 2")
        if self.gap <= 0 or self.deal_luck < 0:
            raise ValueError(f"--gap must be positive and --deal-luck not negative, got {self.gap}, {self.deal_luck}")
        if self.hold < 1 or self.max_matches <= self.hold:
            raise ValueError(f"--hold must be at least 1 and below --max-matches, got {self.hold}, "
                             f"{self.max_matches}")


@dataclass(frozen=True)
class Comparison:
    """Mean matches of ``numerator`` over those of ``denominator``, with its 95% bootstrap interval."""

    numerator: str
    denominator: str
    ratio: float
    low: float
    high: float


def _one(job: tuple[LadderSetup, int, int]) -> int:
    setup, contender, seed = job
    figures = compare_matchmaking(setup.bots, setup.seats, gap=setup.gap, max_matches=setup.max_matches,
                                  seeds=[seed], deal_luck=setup.deal_luck, hold=setup.hold,
                                  contenders=[LADDER_CONTENDERS[contender]])
    (count,) = figures[0].matches
    return count if not figures[0].unordered else -count


def run(setup: LadderSetup, seeds: int, jobs: int = 2) -> list[PolicyFigures]:
    """Every contender's ladders, seeds ``0 .. seeds - 1``."""
    work = [(setup, contender, seed) for contender in range(len(LADDER_CONTENDERS)) for seed in range(seeds)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            counts = list(pool.map(_one, work, chunksize=4))
    else:
        counts = [_one(job) for job in work]
    figures = []
    for contender, (label, _policy, _duplicate) in enumerate(LADDER_CONTENDERS):
        mine = counts[contender * seeds:(contender + 1) * seeds]
        figures.append(PolicyFigures(label, tuple(abs(c) for c in mine), sum(1 for c in mine if c < 0)))
    return figures


def ratio_interval(numerator: Sequence[int], denominator: Sequence[int], *, resamples: int = 4000,
                   seed: int = 1) -> tuple[float, float, float]:
    """``mean(numerator) / mean(denominator)`` and its 95% percentile bootstrap interval over the seeds (index
    ``i`` of both is one seed, resampled together)."""
    n = len(numerator)
    ratio = sum(numerator) / sum(denominator)
    rng = random.Random(seed)
    boot = []
    for _ in range(resamples):
        picks = [rng.randrange(n) for _ in range(n)]
        boot.append(sum(numerator[i] for i in picks) / max(1, sum(denominator[i] for i in picks)))
    boot.sort()
    return ratio, boot[int(0.025 * (resamples - 1))], boot[int(0.975 * (resamples - 1))]


def comparisons(figures: Sequence[PolicyFigures]) -> list[Comparison]:
    """The :data:`COMPARISONS` of ``figures`` (as :func:`run` returns them)."""
    found = []
    for top, bottom in COMPARISONS:
        ratio, low, high = ratio_interval(figures[top].matches, figures[bottom].matches)
        found.append(Comparison(figures[top].label, figures[bottom].label, ratio, low, high))
    return found


def report(setup: LadderSetup, seeds: int, figures: Sequence[PolicyFigures], share: float | None) -> list[str]:
    """The figures as printed lines (``share``: the measured reduction the deal luck came from, if it did)."""
    source = (f" (measured: duplicates cancel {share:.1%} of a match's variance between equal bots, "
              "uno-arena bench duplicates)" if share is not None else " (given)")
    lines = [f"{setup.bots} bots {setup.gap:g} apart in latent strength, {setup.seats} seats, deal luck "
             f"{setup.deal_luck:.2f} sd per seat{source}",
             f"ordered = the order by rating is right and stays right for the next {setup.hold} matches (fixed "
             f"before the run); {seeds} seeded ladders per contender, at most {setup.max_matches} matches each",
             f"  {'contender':42s} {'mean':>7s} {'median':>7s}  never ordered"]
    for figure in figures:
        lines.append(f"  {figure.label:42s} {figure.mean:7.0f} {figure.median:7.0f}  {figure.unordered}")
    for c in comparisons(figures):
        lines.append(f"  {c.numerator} / {c.denominator}: {c.ratio:.0%} of the matches "
                     f"(95% interval {c.low:.0%}-{c.high:.0%})")
    return lines
