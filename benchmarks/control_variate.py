"""Would a control variate cut the gauntlet's blocks? Measured on the recorded real block scores.

A gauntlet block gives every seat its own deal and plays it twice, once with the candidate and once with the
baseline in that seat (:func:`arena.service.gauntlet_runs.block_plan`); its score is the mean over the seats of the
candidate's finishing points minus the baseline's. Both tested bots get the same hand in each seat, so the luck
of the hand they are dealt cancels in each difference already. What could still explain a block score is how the
deal shapes the game both play: how good the tested seat's hand is against the others' (a hopeless or a winning
hand leaves little room for skill, so the square of the advantage counts as much as its sign), and whether that
seat acts first.

For each recorded block (:data:`benchmarks.sprt_blocks.DATA_FILE`, the deal of seat ``s`` is
``deal_seed(RECORD_SEED, block, RECORD_SECRET, s)``) each seat's first deal is dealt again with the engine and
:func:`features` reads the tested seat's hand value advantage ``h`` (its hand's card points minus the others'
mean) and action-card advantage ``a``: the block's covariates are the seat means of ``h``, ``a``, ``h^2``, ``a^2``,
``h a`` and of "acts first". Their means are known before any match (they depend on the shuffle alone), so the
adjusted score ``score - beta (Z - E Z)`` is unbiased. :func:`measure` fits ``beta`` by least squares on one half
of the blocks and measures the variance it removes on the other (cross-fitted, so an over-fitted ``beta`` cannot
flatter it), averaged over random halvings, with a percentile bootstrap interval over the blocks. The gauntlet's
test needs ``1 / (1 - reduction)`` times fewer blocks at most: the issue's bar for adopting it is 20%.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.sprt_blocks import RECORD_SECRET, RECORD_SEED, RecordedField, load

ADOPT_AT = 0.20
"""The variance reduction a control variate must reach on real scores to be worth using."""
FEATURES = ("mean h", "mean a", "mean h^2", "mean a^2", "mean h*a", "acts first")


def features(seats: int, variant: str, block: int, seed: int = RECORD_SEED,
             secret: str = RECORD_SECRET) -> tuple[float, ...]:
    """The covariates of block ``block`` of a gauntlet with ``seed`` and ``secret`` (module docstring), from the
    first deal of each seat's own deal."""
    from arena.engine import Match, Rules
    from arena.engine.rules import Variant
    from arena.service.gauntlet_runs import deal_seed

    per_seat = []
    for seat in range(seats):  # the tested bot sits in ``seat`` of that seat's deal
        match = Match(players=seats, seed=deal_seed(seed, block, secret, seat), rules=Rules(variant=Variant(variant)))
        values = [float(match.hand_value(s)) for s in range(seats)]
        actions = [float(sum(1 for card in match.hand(s) if not card.face(match.side).is_number))
                   for s in range(seats)]
        h = values[seat] - (sum(values) - values[seat]) / (seats - 1)
        a = actions[seat] - (sum(actions) - actions[seat]) / (seats - 1)
        per_seat.append((h, a, h * h, a * a, h * a, 1.0 if match.current == seat else 0.0))
    return tuple(sum(row[j] for row in per_seat) / seats for j in range(len(FEATURES)))


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Least-squares normal equations by Gauss-Jordan with a small ridge (columns may be constant)."""
    p = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(p)]
    for i in range(p):
        rows[i][i] += 1e-9
    for col in range(p):
        pivot = max(range(col, p), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        if abs(rows[col][col]) < 1e-12:
            continue
        for r in range(p):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col], strict=True)]
    return [rows[i][p] / rows[i][i] if abs(rows[i][i]) >= 1e-12 else 0.0 for i in range(p)]


def _fit(xs: Sequence[Sequence[float]], ys: Sequence[float]) -> tuple[list[float], list[float]]:
    """Coefficients of ``y`` on the centred columns of ``xs`` (their means returned too)."""
    n, p = len(xs), len(xs[0])
    means = [sum(x[j] for x in xs) / n for j in range(p)]
    centred = [[x[j] - means[j] for j in range(p)] for x in xs]
    ybar = sum(ys) / n
    gram = [[sum(c[i] * c[j] for c in centred) for j in range(p)] for i in range(p)]
    cross = [sum(c[i] * (y - ybar) for c, y in zip(centred, ys, strict=True)) for i in range(p)]
    return _solve(gram, cross), means


def _variance(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / max(1, len(values) - 1)


def cross_fitted_reduction(xs: Sequence[Sequence[float]], ys: Sequence[float], rng: random.Random,
                           splits: int = 20) -> float:
    """``1 - var(adjusted) / var(score)`` on held-out halves, ``beta`` fitted on the other half, the
    covariates centred by their mean over every block (an estimate of the known ``E Z``), averaged over
    ``splits`` random halvings."""
    n = len(ys)
    total = _variance(ys)
    if total == 0:
        return 0.0
    p = len(xs[0])
    means = [sum(x[j] for x in xs) / n for j in range(p)]
    found = []
    for _ in range(splits):
        order = list(range(n))
        rng.shuffle(order)
        halves = (order[: n // 2], order[n // 2:])
        adjusted: list[float] = []
        for fit_half, test_half in (halves, halves[::-1]):
            beta, _ = _fit([xs[i] for i in fit_half], [ys[i] for i in fit_half])
            adjusted += [ys[i] - sum(b * (xs[i][j] - means[j]) for j, b in enumerate(beta)) for i in test_half]
        found.append(1.0 - _variance(adjusted) / total)
    return sum(found) / len(found)


def in_sample_reduction(xs: Sequence[Sequence[float]], ys: Sequence[float]) -> float:
    """``R^2`` of the least-squares fit on every block: what the best ``beta`` could do, over-fitted."""
    total = _variance(ys)
    if total == 0:
        return 0.0
    beta, means = _fit(xs, ys)
    return 1.0 - _variance([y - sum(b * (x[j] - means[j]) for j, b in enumerate(beta))
                            for x, y in zip(xs, ys, strict=True)]) / total


@dataclass(frozen=True)
class FieldReduction:
    """One recorded field: blocks, the cross-fitted variance reduction and its 95% bootstrap interval."""

    name: str
    blocks: int
    zero_share: float
    in_sample: float
    """The share of variance the least-squares fit explains on the blocks it was fitted on: an upper bound."""
    reduction: float
    low: float
    high: float


def measure(recorded: RecordedField, *, resamples: int = 100, seed: int = 1) -> FieldReduction:
    """The control variate's variance reduction on one field's real block scores."""
    spec = recorded.field
    xs = [features(spec.seats, spec.variant, block) for block in range(len(recorded.scores))]
    ys = list(recorded.scores)
    rng = random.Random(seed)
    point = cross_fitted_reduction(xs, ys, rng)
    boot = []
    for _ in range(resamples):
        picks = [rng.randrange(len(ys)) for _ in ys]
        boot.append(cross_fitted_reduction([xs[i] for i in picks], [ys[i] for i in picks], rng, splits=4))
    boot.sort()
    zero_share = sum(1 for y in ys if y == 0) / len(ys)
    return FieldReduction(spec.name, len(ys), zero_share, in_sample_reduction(xs, ys), point,
                          boot[int(0.025 * (resamples - 1))], boot[int(0.975 * (resamples - 1))])


def measure_all(*, resamples: int = 100, seed: int = 1) -> list[FieldReduction]:
    """:func:`measure` on every recorded field."""
    return [measure(recorded, resamples=resamples, seed=seed) for recorded in load()]


def report(found: Sequence[FieldReduction]) -> list[str]:
    lines = [f"control variate of the dealt hands ({', '.join(FEATURES)}) on the recorded real block scores",
             "variance of the block score removed (cross-fitted: fitted on one half, measured on the other)",
             f"  {'field':46s} {'blocks':>6s} {'zero blocks':>11s} {'in-sample':>9s} {'reduction':>9s}  95% interval"]
    for f in found:
        lines.append(f"  {f.name:46s} {f.blocks:6d} {f.zero_share:11.0%} {f.in_sample:9.1%} {f.reduction:9.1%}  "
                     f"[{f.low:.1%}, {f.high:.1%}]")
    best = max((f.high for f in found), default=0.0)
    verdict = "reaches" if best >= ADOPT_AT else "stays below"
    lines.append(f"highest upper 95% bound: {best:.1%}, which {verdict} the {ADOPT_AT:.0%} a control variate must "
                 "cut to be used")
    return lines
