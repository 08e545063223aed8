"""How much of UNO's per-match variance duplicate deals remove, measured on real matches of the built-in bots.

A *deal group* is one deal (one engine seed) played by a pair of bots twice, once in each seat order
(:class:`benchmarks.tiers_sample.DealGroup`). For bot ``a`` of the pair, ``x1`` is its outcome with ``a`` in
seat 0 and ``x2`` its outcome with ``a`` in seat 1. Two matches of a pair, one in each seat order, are either
played on **one deal** (duplicate: their mean is ``(x1 + x2) / 2`` of one group) or on **two independent
deals** (``x1`` of one group, ``x2`` of another). The *variance ratio* is the variance of the first mean over
that of the second::

    ratio = var((x1 + x2) / 2) / ((var(x1) + var(x2)) / 4) = 1 + 2 cov(x1, x2) / (var(x1) + var(x2))

and the *reduction* ``1 - ratio`` is the share of the per-match variance the deal's luck makes and duplicates
cancel. Two outcomes are measured: the win (1 or 0: with two seats, the finishing points) and the points
margin (``a``'s final score minus ``b``'s). A percentile bootstrap over the groups gives the interval.

The groups are recorded once with the engine in process (:func:`record`, ``python -m benchmarks duplicates --record
PATH``) and kept in :data:`DATA_PATH` (both variants, :data:`PAIRS`); :func:`deal_luck` turns the reduction of
equal bots into the deal luck of the ladder's latent model (:func:`benchmarks.ladder.latent_player`).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.tiers_sample import DealGroup, PlayedMatch, play_real

DATA_PATH = Path(__file__).parent / "data" / "duplicates.json"
PAIRS: tuple[tuple[str, str], ...] = (("random", "random"), ("weakened", "weakened"), ("weakened", "random"),
                                      ("heuristic", "weakened"))
"""The recorded pairs: two of equal bots (true win rate 1/2), two of unequal ones. Two copies of the
deterministic heuristic bot are left out: they replay one match in both orders, so duplicates cancel all of it."""
VARIANTS = ("flip", "classic")
FIRST_SEED = 41_000
OUTCOMES = ("win", "points margin")


@dataclass(frozen=True)
class Recorded:
    """The deal groups of one pair in one variant."""

    variant: str
    groups: tuple[DealGroup, ...]

    @property
    def bots(self) -> tuple[str, str]:
        return self.groups[0].bots


@dataclass(frozen=True)
class Reduction:
    """The variance ratio of one pair, variant and outcome, with its bootstrap intervals (``None``: the outcome
    never varies, e.g. a bot that wins every match)."""

    variant: str
    bots: tuple[str, str]
    outcome: str
    groups: int
    ratio: float | None
    interval90: tuple[float, float] | None
    interval95: tuple[float, float] | None


def outcomes(group: DealGroup, outcome: str) -> tuple[float, float]:
    """``(x1, x2)``: the first bot's outcome in seat 0 (first match) and in seat 1 (second match)."""
    if outcome == "win":
        return float(group.first.winner == 0), float(group.second.winner == 1)
    first, second = group.first.scores, group.second.scores
    return float(first[0] - first[1]), float(second[1] - second[0])


def variance_ratio(pairs: Sequence[tuple[float, float]]) -> float | None:
    """``var of a duplicate pair's mean / var of two independent matches' mean`` (module docstring)."""
    n = len(pairs)
    if n < 2:
        return None
    m1 = sum(p[0] for p in pairs) / n
    m2 = sum(p[1] for p in pairs) / n
    v1 = sum((p[0] - m1) ** 2 for p in pairs) / (n - 1)
    v2 = sum((p[1] - m2) ** 2 for p in pairs) / (n - 1)
    if v1 + v2 == 0:
        return None
    cov = sum((p[0] - m1) * (p[1] - m2) for p in pairs) / (n - 1)
    return 1.0 + 2.0 * cov / (v1 + v2)


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def reduction(recorded: Recorded, outcome: str, *, resamples: int = 2000, seed: int = 1) -> Reduction:
    """The variance ratio of ``recorded`` for ``outcome`` and its 90% and 95% percentile bootstrap intervals."""
    pairs = [outcomes(group, outcome) for group in recorded.groups]
    ratio = variance_ratio(pairs)
    if ratio is None:
        return Reduction(recorded.variant, recorded.bots, outcome, len(pairs), None, None, None)
    rng = random.Random(seed)
    boot = [r for _ in range(resamples) if (r := variance_ratio(rng.choices(pairs, k=len(pairs)))) is not None]
    return Reduction(recorded.variant, recorded.bots, outcome, len(pairs), ratio,
                     (_percentile(boot, 0.05), _percentile(boot, 0.95)),
                     (_percentile(boot, 0.025), _percentile(boot, 0.975)))


def reductions(data: Sequence[Recorded], *, resamples: int = 2000, seed: int = 1) -> list[Reduction]:
    """:func:`reduction` of every recorded pair and variant, for both outcomes."""
    return [reduction(recorded, outcome, resamples=resamples, seed=seed) for recorded in data for outcome in OUTCOMES]


# --- deal luck of the latent model ------------------------------------------------------------------------

def latent_reduction(luck: float) -> float:
    """The share of the win's variance that duplicates cancel in the ladder's latent model of two equal bots
    (:func:`benchmarks.ladder.latent_player`): seat luck ``luck`` standard deviations per seat, so the
    luck of the deal between the seats is ``L ~ N(0, 2 luck^2)``, and Gumbel noise, so seat 0 wins with
    probability ``sigmoid(L)``. The two seat orders of one deal are won with ``sigmoid(L)`` and
    ``1 - sigmoid(L)``: the reduction is ``4 var(sigmoid(L))`` (a midpoint sum over ``L``)."""
    if luck <= 0:
        return 0.0
    sd = math.sqrt(2.0) * luck
    steps = 800
    width = 16.0 / steps
    mean = square = 0.0
    for i in range(steps):
        z = -8.0 + (i + 0.5) * width
        weight = math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi) * width
        p = 1.0 / (1.0 + math.exp(-sd * z))
        mean += weight * p
        square += weight * p * p
    return 4.0 * (square - mean * mean)


def deal_luck(share: float) -> float:
    """The latent model's deal luck (standard deviations per seat) whose :func:`latent_reduction` is ``share``
    (bisection; 0 for a share of 0 or less)."""
    if share <= 0:
        return 0.0
    if share >= latent_reduction(20.0):
        raise ValueError(f"a variance reduction of {share:.0%} is beyond the latent model")
    low, high = 0.0, 20.0
    for _ in range(40):
        mid = (low + high) / 2
        low, high = (mid, high) if latent_reduction(mid) < share else (low, mid)
    return (low + high) / 2


def _equal_pairs(data: Sequence[Recorded]) -> list[list[tuple[float, float]]]:
    pairs = [[outcomes(g, "win") for g in r.groups] for r in data if r.bots[0] == r.bots[1]]
    if not pairs:
        raise ValueError("the duplicate sample has no pair of equal bots")
    return pairs


def _pooled_share(samples: Sequence[Sequence[tuple[float, float]]]) -> float:
    ratios = [r for r in (variance_ratio(s) for s in samples) if r is not None]
    return 1.0 - sum(ratios) / len(ratios) if ratios else 0.0


def equal_bots_share(data: Sequence[Recorded]) -> float:
    """The reduction of the win's variance for equal bots, pooled over every recorded pair of one bot with
    itself and both variants (one minus the mean of their ratios): what the ladder benchmark's deal luck
    reproduces (a share of 0 or less: no deal luck)."""
    return _pooled_share(_equal_pairs(data))


def equal_bots_interval(data: Sequence[Recorded], *, resamples: int = 2000, seed: int = 1) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of :func:`equal_bots_share` (each pair's groups resampled)."""
    samples = _equal_pairs(data)
    rng = random.Random(seed)
    boot = sorted(_pooled_share([rng.choices(s, k=len(s)) for s in samples]) for _ in range(resamples))
    return _percentile(boot, 0.025), _percentile(boot, 0.975)


# --- recording ----------------------------------------------------------------------------------------------

def record(groups: int, progress: Callable[[str], None] = lambda _line: None, *,
           variants: Sequence[str] = VARIANTS, pairs: Sequence[tuple[str, str]] = PAIRS) -> list[Recorded]:
    """``groups`` real deal groups for every pair of ``pairs`` (of :data:`PAIRS`) in each of ``variants`` (engine
    in process, bots seeded per match as :func:`benchmarks.tiers_sample.play_real` does). Group ``i`` of pair ``p`` in
    variant ``v`` plays deal seed ``FIRST_SEED + 100_000 v + 10_000 p + i``, whatever else is recorded."""
    from arena.engine import Rules
    from arena.engine.rules import Variant

    if groups > 10_000:
        raise ValueError(f"--groups must be at most 10000, got {groups}")
    data: list[Recorded] = []
    for variant in variants:
        rules = Rules(variant=Variant(variant))
        for a, b in pairs:
            index = PAIRS.index((a, b))
            played = []
            for i in range(groups):
                seed = FIRST_SEED + 100_000 * VARIANTS.index(variant) + 10_000 * index + i
                played.append(DealGroup((a, b), seed, play_real((a, b), seed, rules, 2 * seed),
                                        play_real((b, a), seed, rules, 2 * seed + 1)))
            data.append(Recorded(variant, tuple(played)))
            progress(f"{variant}: {a} vs {b}, {groups} deal groups")
    return data


def save(data: Sequence[Recorded], groups: int, path: Path) -> None:
    """Write ``data`` as JSON (one compact line per deal group)."""
    made_by = (f"python -m benchmarks duplicates --record PATH --groups {groups}: per variant ({', '.join(VARIANTS)}) "
               f"and pair ({', '.join(f'{a}-{b}' for a, b in PAIRS)}), {groups} deals (seeds from {FIRST_SEED}, see "
               "benchmarks.duplicates.record), "
               "each played in both seat orders by the built-in bots with the engine in process (target 500)")
    rows = [json.dumps([r.variant, list(g.bots), g.seed, [g.first.winner, *g.first.scores],
                        [g.second.winner, *g.second.scores]]) for r in data for g in r.groups]
    text = "{\n" + f'  "made_by": {json.dumps(made_by)},\n  "groups": [\n'
    text += ",\n".join(f"    {row}" for row in rows) + "\n  ]\n}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def load(path: Path = DATA_PATH) -> list[Recorded]:
    """The groups :func:`save` wrote, per variant and pair in file order (``ValueError`` naming the file)."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))["groups"]
        grouped: dict[tuple[str, str, str], list[DealGroup]] = {}
        for variant, (a, b), seed, first, second in rows:
            group = DealGroup((str(a), str(b)), int(seed), PlayedMatch(first[0], tuple(first[1:])),
                              PlayedMatch(second[0], tuple(second[1:])))
            grouped.setdefault((str(variant), str(a), str(b)), []).append(group)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path} is not a duplicate sample ({error}); write one with python -m benchmarks duplicates "
                         "--record PATH") from None
    return [Recorded(variant, tuple(groups)) for (variant, _a, _b), groups in grouped.items()]


def report(found: Sequence[Reduction], share: float, interval: tuple[float, float]) -> list[str]:
    """The figures as printed lines."""
    lines = ["variance of two matches (one per seat order) on one deal / on two independent deals; "
             "reduction = 1 - ratio",
             f"{'variant':8s} {'pair':20s} {'outcome':14s} {'groups':>6s} {'ratio':>6s} {'reduction':>9s}  "
             f"{'90% interval of the reduction':30s} 95% interval"]
    for r in found:
        pair = f"{r.bots[0]}-{r.bots[1]}"
        if r.ratio is None or r.interval90 is None or r.interval95 is None:
            lines.append(f"{r.variant:8s} {pair:20s} {r.outcome:14s} {r.groups:6d}  no variance (one bot wins "
                         "every match)")
            continue
        lines.append(f"{r.variant:8s} {pair:20s} {r.outcome:14s} {r.groups:6d} {r.ratio:6.2f} {1 - r.ratio:9.0%}  "
                     f"[{1 - r.interval90[1]:5.0%}, {1 - r.interval90[0]:5.0%}]{'':16s} "
                     f"[{1 - r.interval95[1]:5.0%}, {1 - r.interval95[0]:5.0%}]")
    low, high = interval
    lines.append(f"equal bots, win, pooled: reduction {share:.1%} (95% interval {low:.1%} to {high:.1%}) -> the "
                 f"ladder's latent deal luck {deal_luck(share):.2f} sd per seat ({deal_luck(low):.2f} to "
                 f"{deal_luck(high):.2f}; benchmarks.ladder.latent_player's deal_luck)")
    return lines
