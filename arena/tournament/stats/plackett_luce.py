"""A batch estimate of strength: the Plackett-Luce model fitted on a whole set of results at once (pure).

OpenSkill (:mod:`arena.tournament.stats.ratings`) applies matches one by one, so another order gives other ratings;
this fit depends on the set of results only, and takes its intervals from the data. A match contributes its
stages (each finisher chosen among the seats still in play with probability ``gamma_i / sum(gamma)``) down to the
first tie; the rating is ``log(gamma_i)`` against a reference bot of rating 0, every bot given :data:`PRIOR_GAMES`
virtual wins and losses against it. The fit is the posterior's maximum (Newton's method on the concave
log-posterior); intervals and rank ranges come from :data:`BOOTSTRAP` refits on the deal groups resampled whole,
the posterior's own standard error where the refits do not move. The tiers test every pair's difference (the sign
test in a field of 2) under Holm's control. docs/organizers.md (pools and leaderboards) defines every number and
docs/benchmarks.md (intervals, tiers, batch ratings) measures them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from dataclasses import field as dataclass_field
from typing import Any

from ..results import MatchResult, dedupe
from .intervals import more_samples, sign_test_more, sign_test_p_value, t_two_sided_mass, z_quantile
from .tiers import normal_p_value, not_told_apart, tiers_of, told_apart
from .verdicts import BATCH_TEST, SIGN_TEST, PairVerdict, Verdicts, verdicts_of

PRIOR_GAMES = 1.0
"""Virtual wins (and as many losses) of every bot against the reference bot of rating 0."""
TOLERANCE = 1e-7
MAX_ITERATIONS = 100
BOOTSTRAP = 100
"""Refits on resampled deal groups behind each interval and rank range (what the intervals benchmark measured)."""

Stage = tuple[int, tuple[int, ...]]
"""One stage of a finishing order: the bot (index) that finished, among the bots (indexes) still in play."""


@dataclass(frozen=True)
class BatchRating:
    """One bot's batch estimate: ``rating`` (log-strength), its interval, its rank (1 = best) and rank range, and
    its tier with the bots it is not told apart from."""

    bot: str
    rating: float
    low: float
    high: float
    rank: int
    best_rank: int
    worst_rank: int
    matches: int
    tier: int = 0
    indistinguishable: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BatchRating:
        return cls(str(data["bot"]), float(data["rating"]), float(data["low"]), float(data["high"]),
                   int(data["rank"]), int(data["best_rank"]), int(data["worst_rank"]), int(data["matches"]),
                   int(data.get("tier", 0)), tuple(str(b) for b in data.get("indistinguishable") or ()))


def stages_of(result: MatchResult, index: dict[str, int]) -> list[Stage]:
    """The stages a result contributes, in finishing order down to the first tie."""
    ranks = result.ranks()
    order = sorted(range(len(result.seats)), key=lambda seat: ranks[seat])
    stages: list[Stage] = []
    for position, seat in enumerate(order[:-1]):
        if ranks[order[position + 1]] == ranks[seat]:
            break
        stages.append((index[result.seats[seat]], tuple(index[result.seats[s]] for s in order[position:])))
    return stages


def fit_counts(counts: Mapping[Stage, float], bots: int, prior: float = PRIOR_GAMES,
               start: Sequence[float] | None = None) -> list[float]:
    """The log-strengths that maximise the posterior of stages with their (possibly fractional) counts: Newton's
    method with step halving on the strictly concave log-posterior (Hunter's MM updates crawl on UNO's
    near-deterministic results: 150 s for one 4-bot leaderboard), from ``start`` (the maximum is the same from
    anywhere, only the iterations differ)."""
    fields = _Fields.of(counts, bots)
    theta = list(start) if start is not None else [0.0] * bots
    current = _log_posterior(fields, theta, prior)
    for _ in range(MAX_ITERATIONS):
        gradient, hessian = _derivatives(fields, theta, prior)
        step = _solve(hessian, gradient)
        scale = 1.0
        while True:
            trial = [t + scale * d for t, d in zip(theta, step, strict=True)]
            value = _log_posterior(fields, trial, prior)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        moved = max((abs(scale * d) for d in step), default=0.0)
        theta, current = trial, value
        if moved < TOLERANCE:
            break
    return theta


@dataclass(frozen=True)
class _Fields:
    """Stage counts as the likelihood uses them: the stages each bot won, and each set of bots with the stages
    played among it (a stage's normaliser depends on the set alone: one softmax per set, not per stage)."""

    wins: list[float]
    fields: list[tuple[tuple[int, ...], float]]

    @classmethod
    def of(cls, counts: Mapping[Stage, float], bots: int) -> _Fields:
        wins = [0.0] * bots
        fields: dict[tuple[int, ...], float] = {}
        for (winner, field), count in counts.items():
            wins[winner] += count
            key = tuple(sorted(field))  # a stage's field lists its bots in finishing order; the softmax sees a set
            fields[key] = fields.get(key, 0.0) + count
        return cls(wins, list(fields.items()))


def _log_posterior(fields: _Fields, theta: Sequence[float], prior: float) -> float:
    total = math.fsum(w * t for w, t in zip(fields.wins, theta, strict=True))
    for field, n in fields.fields:
        top = max(theta[i] for i in field)
        total -= n * (top + math.log(math.fsum(math.exp(theta[i] - top) for i in field)))
    for t in theta:  # a virtual win and loss against the reference (rating 0) per prior game
        total += prior * (t - 2.0 * _log1pexp(t))
    return total


def _log1pexp(x: float) -> float:
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _derivatives(fields: _Fields, theta: Sequence[float], prior: float) -> tuple[list[float], list[list[float]]]:
    """The gradient and the negated Hessian of :func:`_log_posterior`."""
    n = len(theta)
    gradient = list(fields.wins)
    curvature = [[0.0] * n for _ in range(n)]
    for field, count in fields.fields:
        top = max(theta[i] for i in field)
        weights = [math.exp(theta[i] - top) for i in field]
        norm = math.fsum(weights)
        shares = [count * w / norm for w in weights]
        for i, p in zip(field, shares, strict=True):
            gradient[i] -= p
            curvature[i][i] += p
            row = curvature[i]
            for j, q in zip(field, shares, strict=True):
                row[j] -= p * q / count
    for i, t in enumerate(theta):
        p = 1.0 / (1.0 + math.exp(-t))
        gradient[i] += prior * (1.0 - 2.0 * p)
        curvature[i][i] += 2.0 * prior * p * (1.0 - p)
    return gradient, curvature


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix^-1 vector`` by Gaussian elimination with partial pivoting (the matrix is positive definite)."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-300:
            continue
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            if factor:
                for c in range(col, n + 1):
                    a[r][c] -= factor * a[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - math.fsum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r] if abs(a[r][r]) > 1e-300 \
            else 0.0
    return x


def _ranks(ratings: Sequence[float]) -> list[int]:
    """Competition ranks, 1 = best (equal ratings share a rank)."""
    return [1 + sum(1 for other in ratings if other > r + 1e-12) for r in ratings]


def _error(draws: Sequence[float], groups: int, fallback: float) -> float:
    """The standard error behind an interval: ``sqrt(G / (G - 1))`` times the bootstrap draws' standard deviation;
    ``fallback`` (the posterior's) where they do not spread, so the interval never collapses to a point."""
    sd = 0.0
    if groups >= 2 and len(draws) >= 2:
        centre = math.fsum(draws) / len(draws)
        sd = math.sqrt(groups / (groups - 1) * math.fsum((d - centre) ** 2 for d in draws) / (len(draws) - 1))
    return sd if sd > 1e-9 else fallback


def _still(draws: Iterable[float]) -> bool:
    """Whether the refits of a rating do not move (no draws, or all within 1e-9)."""
    values = list(draws)
    return not values or max(values) - min(values) <= 1e-9


def _contrast_sd(covariance: Sequence[Sequence[float]], weights: Sequence[float]) -> float:
    """The standard deviation of ``sum(weights * ratings)`` under ``covariance``."""
    n = len(weights)
    return math.sqrt(max(0.0, math.fsum(weights[i] * covariance[i][j] * weights[j] for i in range(n)
                                        for j in range(n))))


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _resamples(groups: Sequence[str], bootstrap: int) -> Iterator[list[int]]:
    """``bootstrap`` draws of ``len(groups)`` group indexes with replacement, from one SHAKE-256 output keyed by the
    set of deal groups alone (not their order); each index is the high bits of a 64-bit number times ``G``."""
    count = len(groups)
    if not count or bootstrap <= 0:
        return
    key = b"uno-arena/plackett-luce/bootstrap/" + json.dumps(list(groups), separators=(",", ":")).encode("utf-8")
    stream = hashlib.shake_256(key).digest(8 * count * bootstrap)
    for draw in range(bootstrap):
        start = 8 * count * draw
        yield [(int.from_bytes(stream[i:i + 8], "little") * count) >> 64 for i in range(start, start + 8 * count, 8)]


@dataclass(frozen=True)
class BatchFit:
    """The fit on every result and its refits on resampled deal groups (:func:`refit`), for the ratings and the
    tier tests alike."""

    bots: list[str]
    estimate: list[float]
    resampled: list[list[float]]
    groups: int
    matches: list[int]
    covariance: list[list[float]]
    """The posterior's covariance at its maximum (Laplace's approximation)."""
    shared: list[list[int]]
    """For each pair of bots, the deal groups in which both played (their direct meetings)."""
    ahead: list[list[int]] = dataclass_field(default_factory=list)
    """``ahead[i][j]``: the deal groups in which bot ``i`` finished ahead of ``j`` more often than behind."""
    match_count: int = 0

    def ratings(self, confidence: float = 0.95) -> list[BatchRating]:
        """Every bot's batch rating, best first (ties by name). Where the refits do not move, the rank range is read
        off the intervals: from 1 + the bots wholly above, to the bots not wholly below."""
        tail = (1.0 - confidence) / 2.0
        rank_draws = [_ranks(r) for r in self.resampled]
        n = len(self.bots)
        spans: list[tuple[float, float, float]] = []
        for i in range(n):
            value = round(self.estimate[i], 12) + 0.0  # no -0.00 where equal bots balance out
            # against the mean of the field: the prior alone pins the common level, which the refits do not move
            around = [(1.0 if k == i else 0.0) - 1.0 / n for k in range(n)] if n > 1 else [1.0]
            half = z_quantile(confidence) * _error([r[i] for r in self.resampled], self.groups,
                                                   _contrast_sd(self.covariance, around))
            spans.append((value, value - half, value + half))
        out: list[BatchRating] = []
        for i, (bot, rank) in enumerate(zip(self.bots, _ranks(self.estimate), strict=True)):
            value, low, high = spans[i]
            ranks = [r[i] for r in rank_draws]
            if len(set(ranks)) > 1 or not _still(r[i] for r in self.resampled):
                best, worst = math.floor(_quantile(ranks, tail)), math.ceil(_quantile(ranks, 1.0 - tail))
            else:
                best = 1 + sum(1 for _, other_low, _ in spans if other_low > high)
                worst = n - sum(1 for _, _, other_high in spans if other_high < low)
            out.append(BatchRating(bot, value, low, high, rank, min(rank, best), max(rank, worst), self.matches[i]))
        out.sort(key=lambda b: (b.rank, b.bot))
        # the tiers: Student's t (:meth:`p_value`), not the interval's 1.96: a pair's few direct meetings make its
        # bootstrap error uncertain
        apart = told_apart(out, lambda a, b: self.p_value(a.bot, b.bot), confidence)
        return [replace(rating, tier=tier, indistinguishable=tuple(out[j].bot for j in others))
                for rating, tier, others in zip(out, tiers_of(apart), not_told_apart(apart), strict=True)]

    @property
    def test(self) -> str:
        """The test behind :meth:`p_value`: the exact sign test in a field of 2 bots, else the batch ratings'."""
        return SIGN_TEST if len(self.bots) == 2 and self.ahead else BATCH_TEST

    def p_value(self, a: str, b: str) -> float:
        """The two-sided p-value that ``a`` and ``b`` are equal: in a field of 2 bots the exact sign test over the
        deal groups each won; else the ratings' difference against :meth:`_tested_gap`'s error, Student's t with the
        pair's direct meetings less one as degrees of freedom (the normal where the error is the posterior's)."""
        i, j = self.bots.index(a), self.bots.index(b)
        if self.test == SIGN_TEST:
            return sign_test_p_value(self.ahead[i][j], self.ahead[j][i])
        gap, error = self._tested_gap(a, b)
        if error <= 0.0 or not self._gap(a, b)[2]:  # the posterior's own error: no small-sample bootstrap to correct
            return normal_p_value(gap, error)
        met = self.shared[i][j]
        return 1.0 - t_two_sided_mass(abs(gap) / error, max(1, (met if met >= 2 else self.groups) - 1))

    def more_matches(self, a: str, b: str, alpha: float) -> int | None:
        """About how many more matches would tell ``a`` and ``b`` apart at level ``alpha`` if their difference stayed
        (the sign test's decided groups, or :func:`~arena.tournament.stats.intervals.more_samples` groups, in
        matches); ``None``: no difference."""
        per_group = self.match_count / self.groups if self.groups else 1.0
        i, j = self.bots.index(a), self.bots.index(b)
        if self.test == SIGN_TEST:
            more = sign_test_more(self.ahead[i][j], self.ahead[j][i], alpha)
            if more is None:
                return None
            decided = self.ahead[i][j] + self.ahead[j][i]
            return math.ceil(more * per_group * self.groups / decided) if decided else None
        gap, error = self._tested_gap(a, b)
        more = more_samples(gap, error, self.groups, alpha)
        return None if more is None else math.ceil(more * per_group)

    def _tested_gap(self, a: str, b: str) -> tuple[float, float]:
        """``rating(a) - rating(b)`` and the standard error the tier test holds it against: the refits', widened to
        the geometric mean of it and the posterior's where the posterior's is wider. The refits alone understate it
        between two weak bots with few wins, the posterior's alone overstates it between unequal bots."""
        gap, error, _, posterior = self._gap(a, b)
        return gap, math.sqrt(error * max(error, posterior))

    def verdicts(self, confidence: float = 0.95) -> Verdicts:
        """Every pair in the order of :meth:`ratings`: told apart under Holm's control, its p-value and, if not,
        :meth:`more_matches` at the Bonferroni level ``(1 - confidence) / pairs``."""
        ordered = [rating.bot for rating in self.ratings(confidence)]
        apart = told_apart(ordered, self.p_value, confidence)
        count = len(ordered) * (len(ordered) - 1) // 2
        alpha = (1.0 - confidence) / max(1, count)
        pairs = []
        for x, y in itertools.combinations(range(len(ordered)), 2):
            a, b = ordered[x], ordered[y]
            told = apart[x][y]
            pairs.append(PairVerdict(a, b, told, self.p_value(a, b),
                                     None if told else self.more_matches(a, b, alpha), self.test))
        return verdicts_of(pairs, self.match_count)

    def _gap(self, a: str, b: str) -> tuple[float, float, bool, float]:
        """``rating(a) - rating(b)``, its standard error (:func:`_error`), whether that is the refits', and the
        posterior's."""
        i, j = self.bots.index(a), self.bots.index(b)
        pair = [1.0 if k == i else -1.0 if k == j else 0.0 for k in range(len(self.bots))]
        draws = [r[i] - r[j] for r in self.resampled]
        posterior = _contrast_sd(self.covariance, pair)
        return self.estimate[i] - self.estimate[j], _error(draws, self.groups, posterior), not _still(draws), posterior

    def difference(self, a: str, b: str, confidence: float = 0.95) -> tuple[float, float]:
        """The interval of ``rating(a) - rating(b)``: ``z`` standard errors, widened as the tier test widens them
        (:meth:`_tested_gap`) where the pair met in only some of the deal groups (their few meetings make the
        refits' spread uncertain)."""
        i, j = self.bots.index(a), self.bots.index(b)
        gap, error = self._tested_gap(a, b) if self.shared[i][j] < self.groups else self._gap(a, b)[:2]
        half = z_quantile(confidence) * error
        return (gap - half, gap + half)


def _groups_ahead(ordered: Sequence[MatchResult], index: Mapping[str, int]) -> list[list[int]]:
    net: dict[str, dict[tuple[int, int], int]] = {}  # group -> (i, j) with i < j -> i ahead of j less j ahead of i
    for r in ordered:
        finish = r.ranks()
        duels = net.setdefault(r.deal_group, {})
        for x, y in itertools.combinations(range(len(r.seats)), 2):
            i, j = index[r.seats[x]], index[r.seats[y]]
            if finish[x] != finish[y] and i != j:
                key = (min(i, j), max(i, j))
                duels[key] = duels.get(key, 0) + (1 if (finish[x] < finish[y]) == (i < j) else -1)
    ahead = [[0] * len(index) for _ in index]
    for duels in net.values():
        for (i, j), lead in duels.items():
            if lead:
                ahead[i if lead > 0 else j][j if lead > 0 else i] += 1
    return ahead


def refit(results: Iterable[MatchResult], participants: Iterable[str] = (), bootstrap: int = BOOTSTRAP) -> BatchFit:
    """Fit every result once, then refit each resample of the deal groups (from the full fit: the same maximum in
    fewer Newton steps)."""
    ordered = dedupe(results)  # in match id order
    bots = sorted(set(participants) | {b for r in ordered for b in r.seats})
    index = {bot: i for i, bot in enumerate(bots)}
    by_group: dict[str, dict[Stage, float]] = {}
    seated: dict[str, set[int]] = {}
    matches = [0] * len(bots)
    for r in ordered:
        counts = by_group.setdefault(r.deal_group, {})
        for stage in stages_of(r, index):
            counts[stage] = counts.get(stage, 0.0) + 1.0
        for bot in r.seats:
            matches[index[bot]] += 1
        seated.setdefault(r.deal_group, set()).update(index[bot] for bot in r.seats)
    shared = [[0] * len(bots) for _ in bots]
    for members in seated.values():
        for i, j in itertools.product(members, repeat=2):
            shared[i][j] += 1
    ahead = _groups_ahead(ordered, index)
    groups = sorted(by_group)
    estimate, covariance = posterior(_summed(by_group[g] for g in groups), len(bots))
    resampled = []
    for drawn in _resamples(groups, bootstrap):
        picked = Counter(drawn)
        chosen = sorted(picked)
        resampled.append(fit_counts(_summed((by_group[groups[g]] for g in chosen), [picked[g] for g in chosen]),
                                    len(bots), start=estimate))
    return BatchFit(bots, estimate, resampled, len(groups), matches, covariance, shared, ahead, len(ordered))


def posterior(counts: Mapping[Stage, float], bots: int) -> tuple[list[float], list[list[float]]]:
    """The fit on stage counts and the posterior's covariance at it (the inverse of the negated Hessian)."""
    estimate = fit_counts(counts, bots)
    _, curvature = _derivatives(_Fields.of(counts, bots), estimate, PRIOR_GAMES)
    return estimate, [_solve(curvature, [1.0 if k == i else 0.0 for k in range(bots)]) for i in range(bots)]


def _summed(parts: Iterable[Mapping[Stage, float]], weights: Sequence[float] | None = None) -> dict[Stage, float]:
    total: dict[Stage, float] = {}
    for i, part in enumerate(parts):
        weight = 1.0 if weights is None else weights[i]
        for stage, count in part.items():
            total[stage] = total.get(stage, 0.0) + weight * count
    return total


def batch_ratings(results: Iterable[MatchResult], participants: Iterable[str] = (), *,
                  bootstrap: int = BOOTSTRAP, confidence: float = 0.95) -> list[BatchRating]:
    """Every bot's batch rating, best first; the same set of results gives the same numbers in any order."""
    return refit(results, participants, bootstrap).ratings(confidence)
