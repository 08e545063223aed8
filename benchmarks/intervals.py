"""`python -m benchmarks intervals`: do the standings' intervals cover their nominal 95 %?

Each replicate is a round robin of a field of built-in bots with ``deals`` deal groups per pair of entrants (two
copies of one bot count as two entrants), made of real results drawn with replacement from the recorded deal groups
of each pair of bots (:func:`benchmarks.tiers.replicate`, the tier benchmark's data and resampling). The truth is
known: an entrant's expected win rate and mean points per match are those of the recorded groups it is drawn from,
averaged over its opponents (every opponent meets it equally often). The standings of the replicate
(:func:`arena.tournament.standings.standings`, the one place the intervals are computed) give each entrant's win-rate
and points intervals; the benchmark counts how often they hold the truth, over ``replicates`` seeded replicates:

* **win rate** and **points**: the arena's intervals (deal groups as clusters) and, for comparison, the previous
  ones (Wilson with the deal groups as the sample size; Student-t over per-group means);
  (these from :func:`draw`: the replicate's deal groups tallied directly, through the standings' own
  :func:`arena.tournament.standings.group_intervals`);
* with ``ratings``, **rating difference** (fields with two copies of one bot): whether OpenSkill's interval of the
  difference of the copies' ratings, ``mu_a - mu_b -/+ 1.96 sqrt(sigma_a**2 + sigma_b**2)`` (the test behind a
  pool leaderboard's tiers), holds 0;
* with ``batch``, **batch tier**: how often two copies of one bot share a tier of the batch ratings (what a rules
  pool's leaderboard shows: :meth:`arena.tournament.stats.plackett_luce.BatchFit.ratings`), and how often two bots of
  unequal kinds are in different tiers (a "hit" is the right verdict);
* with ``batch``, **batch rating** and **batch difference**: whether each entrant's published batch Plackett-Luce
  interval (:meth:`arena.tournament.stats.plackett_luce.BatchFit.ratings`, ``batch`` resamples of the deal groups) and
  the interval of the difference of every pair's ratings
  (:meth:`~arena.tournament.stats.plackett_luce.BatchFit.difference`,
  the same refits) hold the truth: the fit, with the same prior, on the field's *expected* results at that size
  (:func:`batch_truth`: every recorded group of a pair weighted alike; the value the estimate targets, since
  without the prior a bot that never loses has no finite rating). For two copies of one bot the difference's truth
  is 0. With either, the replicates are played as match results and only the rating figures are measured.

A figure pools the entrants of a field; its 95 % Wilson interval takes the replicates (not the entrants, which are
correlated within a replicate) as the sample size.

With ``by_entrant``, every figure is also given for each entrant alone and (with ``batch``) for each pair alone: a
field's figure pools them and can hide one that misses (issue 36: two copies beside unequal bots).

With ``exact``, no replicates: :func:`copies_win_rate_coverage` gives the exact coverage of the win-rate interval of
two copies of one bot at every number of deal groups (what the interval's discreteness does, free of noise), and
:func:`share_lines` the same as a function of the share of duplicate pairs the copies split 1-1.

The intervals' small-sample rules were fitted on the tier benchmark's sample; ``python -m benchmarks intervals
--validation`` plays :data:`VALIDATION_FIELDS` on a recording made apart from it (:mod:`benchmarks.validation_sample`).
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from arena.tournament import MatchResult, standings
from arena.tournament.standings import group_intervals
from arena.tournament.stats.intervals import (
    MIN_INTERVAL_MATCHES,
    MIN_SINGLE_MATCH_STRATUM,
    mean_interval,
    wilson_interval,
)
from arena.tournament.stats.plackett_luce import PRIOR_GAMES, Stage, fit_counts, refit, stages_of
from arena.tournament.stats.ratings import Z95

from .tiers import entrants, kind, replicate
from .tiers_sample import Sample, load_sample

FIELDS: tuple[tuple[str, ...], ...] = (
    ("weakened", "weakened"),
    ("random", "random"),
    ("heuristic", "weakened"),
    ("heuristic", "heuristic", "weakened", "random"),
    ("weakened", "weakened", "heuristic", "random"),
    ("random", "random", "heuristic", "weakened"),
    ("weakened",) * 4,
    ("random",) * 4,
)
"""The fields the benchmark plays by default: head-to-head pairs, then the tier benchmark's 4-bot fields."""
VALIDATION_FIELDS: tuple[tuple[str, ...], ...] = (
    *FIELDS[:3],
    ("ismctsfast", "heuristic"),
    ("ismctsfast", "random"),
    *FIELDS[3:6],
    ("ismctsfast", "heuristic", "weakened", "random"),
    *FIELDS[6:],
)
"""The fields played on the validation recording (:mod:`benchmarks.validation_sample`, ``--validation``): the
default ones and the search bot's (it has no copy there)."""
DEALS = (4, 8, 16, 32)
MEASURES = ("win rate", "win rate (previous)", "points", "points (previous)", "rating difference",
            "batch rating", "batch difference", "batch rank range", "batch tier: copies together",
            "batch tier: unequal apart")


@dataclass(frozen=True)
class Coverage:
    """How often an interval held the truth: ``hits`` of ``intervals`` over ``replicates`` replicates."""

    hits: int
    intervals: int
    replicates: int

    @property
    def share(self) -> float:
        return self.hits / self.intervals if self.intervals else math.nan

    def interval(self) -> tuple[float, float]:
        """95 % Wilson interval of the share, with the replicates as the sample size."""
        found = wilson_interval(self.share * self.replicates, self.replicates)
        assert found is not None
        return found

    def text(self) -> str:
        if not self.intervals:
            return (f"not published (fewer than {MIN_INTERVAL_MATCHES} matches per bot, or for points fewer than "
                    f"{MIN_SINGLE_MATCH_STRATUM} single matches a table)")
        low, high = self.interval()
        return f"{self.share:6.1%} [{low:.1%}, {high:.1%}]"


@dataclass(frozen=True)
class IntervalFigures:
    """One field at one number of deals per pair: the coverage of each measure's interval (absent: not measured)."""

    field: tuple[str, ...]
    deals: int
    groups: int
    coverage: dict[str, Coverage]


@dataclass(frozen=True)
class Truth:
    """An entrant's expected win rate and mean points per match in its field."""

    win_rate: float
    points: float


def truths(sample: Sample, field: Sequence[str]) -> dict[str, Truth]:
    """Every entrant's expected win rate and mean points per match: the mean over its opponents of its side's mean
    over their recorded groups (against a copy, either side as likely, as :func:`benchmarks.tiers.replicate`
    seats them)."""
    names = entrants(field)
    out: dict[str, Truth] = {}
    for x in names:
        rates: list[float] = []
        points: list[float] = []
        for y in names:
            if y == x:
                continue
            pool = sample.of(kind(x), kind(y))
            sides = (0, 1) if kind(x) == kind(y) else ((0,) if pool[0].bots[0] == kind(x) else (1,))
            count = 2 * len(pool) * len(sides)  # matches: two per group, per side counted
            rates.append(sum(g.wins()[s] for g in pool for s in sides) / count)
            points.append(sum(g.points()[s] for g in pool for s in sides) / count)
        out[x] = Truth(math.fsum(rates) / len(rates), math.fsum(points) / len(points))
    return out


Drawn = dict[str, list[tuple[int, int, int, frozenset[str]]]]
"""Per entrant, its deal groups of one replicate: matches, wins, points, table."""


def draw(sample: Sample, field: Sequence[str], deals: int, rng: random.Random, duplicate: bool = True) -> Drawn:
    """One round robin's deal groups per entrant, drawn as :func:`benchmarks.tiers.replicate` draws them (a group
    from the pair's recorded ones; against a copy, either side; without ``duplicate``, one of its two matches),
    tallied directly rather than as match results (the standings' own tally of the same results is the same:
    benchmarks/tests/test_bench_intervals.py)."""
    names = entrants(field)
    out: Drawn = {name: [] for name in names}
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            pool = sample.of(kind(x), kind(y))
            table = frozenset((x, y))
            for _ in range(deals):
                group = rng.choice(pool)
                first_is_x = group.bots[0] == kind(x) if kind(x) != kind(y) else rng.random() < 0.5
                sides = ((x, 0), (y, 1)) if first_is_x else ((x, 1), (y, 0))
                if duplicate:
                    wins, points = group.wins(), group.points()
                    for name, side in sides:
                        out[name].append((2, wins[side], points[side], table))
                else:
                    played, swap = (group.first, 0) if rng.random() < 0.5 else (group.second, 1)
                    for name, side in sides:
                        seat = side ^ swap
                        out[name].append((1, int(played.winner == seat), played.scores[seat], table))
    return out


def _previous(groups: Sequence[tuple[int, int, int, frozenset[str]]]) -> tuple[tuple[float, float] | None,
                                                                             tuple[float, float] | None]:
    """The intervals the standings used before (comparison only): Wilson with the deal groups as the sample size,
    Student-t over per-group mean points."""
    matches = sum(g[0] for g in groups)
    wins = sum(g[1] for g in groups)
    return wilson_interval(wins * len(groups) / matches, len(groups)), mean_interval([g[2] / g[0] for g in groups])


def _holds(interval: tuple[float, float] | None, value: float) -> bool:
    return interval is not None and interval[0] - 1e-9 <= value <= interval[1] + 1e-9


def _copies(field: Sequence[str]) -> list[tuple[str, str]]:
    names = entrants(field)
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if kind(a) == kind(b)]


def batch_truth(sample: Sample, field: Sequence[str], deals: int, duplicate: bool = True) -> dict[str, float]:
    """Every entrant's batch rating on the field's expected results: :func:`benchmarks.tiers.replicate`'s round
    robin with each pair's recorded groups weighted alike (against a copy, either side half the time; without
    ``duplicate``, either match of a group half the time), fitted with the same prior."""
    names = entrants(field)
    bots = sorted(names)
    index = {bot: i for i, bot in enumerate(bots)}
    counts: dict[Stage, float] = defaultdict(float)
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            pool = sample.of(kind(x), kind(y))
            orientations = ((True, 0.5), (False, 0.5)) if kind(x) == kind(y) else (
                (pool[0].bots[0] == kind(x), 1.0),)
            for group in pool:
                for first_is_x, share in orientations:
                    seats = (x, y) if first_is_x else (y, x)
                    played = (MatchResult("a", seats, group.first.scores, group.first.winner),
                              MatchResult("b", (seats[1], seats[0]), group.second.scores, group.second.winner))
                    weight = deals / len(pool) * share * (1.0 if duplicate else 0.5)
                    for match in played:
                        for stage in stages_of(match, index):
                            counts[stage] += weight
    return dict(zip(bots, fit_counts(counts, len(bots), PRIOR_GAMES), strict=True))


def measure(sample: Sample, field: tuple[str, ...], deals: int, replicates: int, rng: random.Random,
            duplicate: bool = True, ratings: bool = False, batch: int = 0,
            by_entrant: bool = False) -> IntervalFigures:
    """The coverage of every interval in ``replicates`` round robins of ``field`` (see the module docstring); with
    ``by_entrant``, also the arena's win-rate and points intervals of each entrant alone (``"win rate: NAME"``;
    ``NAME`` as :func:`benchmarks.tiers.entrants` names them) and, with ``batch``, each entrant's rating and each
    pair's difference alone (``"batch rating: NAME"``, ``"batch difference: NAME-NAME"``)."""
    truth = truths(sample, field)
    hits: dict[str, int] = defaultdict(int)
    counts: dict[str, int] = defaultdict(int)
    seen: set[str] = set()
    copies = _copies(field)
    target = batch_truth(sample, field, deals, duplicate) if batch else {}
    for _ in range(replicates):
        if ratings or batch:
            results = replicate(sample, field, deals, rng, duplicate)
            _ratings(results, copies, ratings, hits, counts)
            if batch:
                _batch(results, target, batch, hits, counts, by_entrant)
            continue
        drawn = draw(sample, field, deals, rng, duplicate)
        # the scale standings() takes (its largest match score; a duplicate group's mean here: never a wider interval)
        top_score = max(g[2] / g[0] for groups in drawn.values() for g in groups)
        for bot, groups in drawn.items():
            known = truth[bot]
            win_ci, points_ci = group_intervals(groups, top_score=top_score)
            win_before, points_before = _previous(groups)
            for name, interval, value in (("win rate", win_ci, known.win_rate),
                                          ("win rate (previous)", win_before, known.win_rate),
                                          ("points", points_ci, known.points),
                                          ("points (previous)", points_before, known.points)):
                seen.add(name)
                if interval is not None:  # below MIN_INTERVAL_MATCHES none is published: no claim to check
                    held = _holds(interval, value)
                    counts[name] += 1
                    hits[name] += held
                    if by_entrant and name in ("win rate", "points"):
                        counts[f"{name}: {bot}"] += 1
                        hits[f"{name}: {bot}"] += held
    groups_per_bot = deals * (len(field) - 1)
    entrant_lines = sorted(name for name in counts if ": " in name and not name.startswith("batch tier"))
    return IntervalFigures(field, deals, groups_per_bot,
                           {name: Coverage(hits[name], counts[name], replicates) for name in (*MEASURES, *entrant_lines)
                            if counts[name] or name in seen})


def _batch(results: Sequence[MatchResult], truth: dict[str, float], bootstrap: int, hits: dict[str, int],
           counts: dict[str, int], by_entrant: bool = False) -> None:
    """Count whether each entrant's batch rating interval, and each pair's difference interval, hold the truth
    (with ``by_entrant``, also under each entrant's and each pair's own name)."""
    fitted = refit(results, truth, bootstrap)
    for rating in fitted.ratings():
        held = _holds((rating.low, rating.high), truth[rating.bot])
        counts["batch rating"] += 1
        hits["batch rating"] += held
        if by_entrant:
            counts[f"batch rating: {rating.bot}"] += 1
            hits[f"batch rating: {rating.bot}"] += held
        counts["batch rank range"] += 1
        hits["batch rank range"] += _rank_held(rating.best_rank, rating.worst_rank, truth, rating.bot)
    tiers = {rating.bot: rating.tier for rating in fitted.ratings()}
    names = sorted(truth)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            held = _holds(fitted.difference(a, b), truth[a] - truth[b])
            counts["batch difference"] += 1
            hits["batch difference"] += held
            if by_entrant:
                counts[f"batch difference: {a}-{b}"] += 1
                hits[f"batch difference: {a}-{b}"] += held
            # the tiers a rules pool's leaderboard shows: copies should share one, bots of unequal kinds part
            measure = "batch tier: copies together" if kind(a) == kind(b) else "batch tier: unequal apart"
            counts[measure] += 1
            hits[measure] += (tiers[a] == tiers[b]) == (kind(a) == kind(b))


def true_ranks(truth: dict[str, float], bot: str) -> tuple[int, int]:
    """The ranks (1 = best) ``bot`` holds by its true rating: a span where copies tie (either may be first)."""
    value = truth[bot]
    above = sum(1 for other in truth.values() if other > value + 1e-6)  # copies' fits agree to far less
    level = sum(1 for other in truth.values() if abs(other - value) <= 1e-6)
    return above + 1, above + level


def _rank_held(best: int, worst: int, truth: dict[str, float], bot: str) -> bool:
    """Whether a published rank range meets the bot's true ranks."""
    low, high = true_ranks(truth, bot)
    return best <= high and low <= worst


def _ratings(results: Sequence[MatchResult], copies: Sequence[tuple[str, str]], ratings: bool,
             hits: dict[str, int], counts: dict[str, int]) -> None:
    """Count whether OpenSkill's rating-difference intervals of every pair of copies hold 0 in one replicate."""
    table = standings(results, ratings=True) if ratings else None
    for a, b in copies:
        if table is not None:
            x, y = table.row(a), table.row(b)
            counts["rating difference"] += 1
            hits["rating difference"] += abs(x.mu - y.mu) <= Z95 * math.hypot(x.sigma, y.sigma)


def run_intervals_bench(fields: Sequence[tuple[str, ...]] = FIELDS, deals: Sequence[int] = DEALS,
                        replicates: int = 2000, seed: int = 23, sample: Sample | None = None,
                        duplicate: bool = True, ratings: bool = False, batch: int = 0,
                        by_entrant: bool = False) -> list[IntervalFigures]:
    """The figures of every field at every number of deals per pair, each over its own seeded replicates."""
    if replicates < 1 or not deals or min(deals) < 1:
        raise ValueError(f"deals and replicates must be at least 1, got {list(deals)} and {replicates}")
    data = sample if sample is not None else load_sample()
    out: list[IntervalFigures] = []
    for number, field in enumerate(fields):
        for count in deals:
            rng = random.Random((seed * 1_000_003 + number) * 1_009 + count)
            out.append(measure(data, field, count, replicates, rng, duplicate, ratings, batch, by_entrant))
    return out


def copies_win_rate_coverage(sample: Sample, bot: str, groups: int, duplicate: bool = True) -> float | None:
    """The exact chance that the published win-rate interval of one of two copies of ``bot`` holds its true win rate,
    1/2, after ``groups`` deal groups between them (``None`` where none is published): every outcome of the groups
    weighted by its multinomial chance, each group's wins drawn as :func:`draw` draws them (a duplicate pair's 0, 1
    or 2 wins at the recorded pairs' frequencies, either copy in either seat; a single match a win or a loss, 1/2
    each). No resampling noise: what the interval's discreteness alone does to its coverage."""
    if not duplicate:
        return coverage_of_wins({0: 0.5, 1: 0.5}, 1, groups)
    pool = sample.of(bot, bot)
    wins = Counter(group.wins()[side] for group in pool for side in (0, 1))
    return coverage_of_wins({won: count / (2 * len(pool)) for won, count in sorted(wins.items())}, 2, groups)


def coverage_at_share(share: float, groups: int) -> float | None:
    """:func:`copies_win_rate_coverage` of duplicate pairs whose share of 1-1 splits is ``share`` (2-0 and 0-2 the
    rest, alike): the exact coverage is a function of that share, not of the bot."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"a share of 1-1 pairs is between 0 and 1, got {share}")
    return coverage_of_wins({0: (1.0 - share) / 2.0, 1: share, 2: (1.0 - share) / 2.0}, 2, groups)


def coverage_of_wins(chances: dict[int, float], matches: int, groups: int) -> float | None:
    """The exact coverage of 1/2 by the win-rate interval of ``groups`` groups of ``matches`` matches, a group's wins
    drawn from ``chances`` (``None`` where no interval is published)."""
    held = 0.0
    published = False
    for counts in _compositions(groups, len(chances)):
        chance = math.factorial(groups) * math.prod(
            p**k / math.factorial(k) for p, k in zip(chances.values(), counts, strict=True))
        tallies = [(matches, won, 0, frozenset(("a", "b"))) for won, k in zip(chances, counts, strict=True)
                   for _ in range(k)]
        interval = group_intervals(tallies)[0]
        published = published or interval is not None
        held += chance * _holds(interval, 0.5)
    return held if published else None


SHARES = (0.35, 0.40, 0.45, 0.50, 0.55, 0.60)
"""The shares of 1-1 duplicate pairs :func:`share_lines` tabulates (the recordings' copies: 0.40-0.55)."""


def split_share(sample: Sample, bot: str) -> float:
    """The share of ``bot``'s recorded duplicate pairs with its copy that split 1-1."""
    pool = sample.of(bot, bot)
    return sum(group.wins() == (1, 1) for group in pool) / len(pool)


def share_lines(groups: Sequence[int], shares: Sequence[float] = SHARES) -> list[str]:
    """The report of :func:`coverage_at_share`: a row per number of groups, a column per share of 1-1 pairs."""
    lines = ["exact coverage of the published 95% win-rate interval of one of two copies (true win rate 1/2), by "
             "duplicate pairs between them (rows) and the share of pairs split 1-1 (columns; 2-0 and 0-2 alike)",
             f"{'groups':>6s}  " + "  ".join(f"{share:>7.2f}" for share in shares)]
    for count in groups:
        cells = [coverage_at_share(share, count) for share in shares]
        lines.append(f"{count:6d}  " + "  ".join(f"{'-' if c is None else format(c, '.1%'):>7s}" for c in cells))
    return lines


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way to write ``total`` as an ordered sum of ``parts`` whole numbers of at least 0."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def exact_lines(sample: Sample, bots: Sequence[str], groups: Sequence[int]) -> list[str]:
    """The report of :func:`copies_win_rate_coverage`: a row per number of deal groups, a column per bot and format."""
    columns = [(bot, duplicate) for bot in bots for duplicate in (True, False)]
    lines = ["exact coverage of the published 95% win-rate interval of one of two copies of a bot (true win rate 1/2), "
             "by deal groups between them; duplicate: groups of 2 matches at the recorded pairs' frequencies; single: "
             "one match per deal",
             f"{'groups':>6s}  " + "  ".join(f"{bot + (' duplicate' if dup else ' single'):>20s}"
                                             for bot, dup in columns)]
    for count in groups:
        cells = []
        for bot, duplicate in columns:
            coverage = copies_win_rate_coverage(sample, bot, count, duplicate)
            cells.append(f"{'not published' if coverage is None else format(coverage, '.1%'):>20s}")
        lines.append(f"{count:6d}  " + "  ".join(cells))
    return lines


def figure_lines(figures: Sequence[IntervalFigures], replicates: int, sample: Sample,
                 duplicate: bool = True) -> list[str]:
    """The benchmark's report, one line per field, number of deals and measure."""
    played = "duplicate deal groups (2 matches each)" if duplicate else "single matches (one per deal)"
    lines = [f"{replicates} seeded replicates per line: round robins with DEALS {played} per pair of entrants, "
             f"resampled from real results ({sample.rules}; {sample.made_by})",
             "coverage of the nominal 95% intervals: share of intervals holding the truth [95% Wilson interval, "
             "replicates as the sample size]; previous = the interval the standings used before"]
    for f in figures:
        head = f"{'field ' + ', '.join(f.field):44s} deals {f.deals:3d} (groups per bot {f.groups:3d})"
        for name, coverage in f.coverage.items():
            lines.append(f"{head}  {name:20s} {coverage.text()}")
    return lines
