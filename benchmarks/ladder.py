"""`python -m benchmarks ladder`: does the ladder's matchmaking buy the ranking it publishes, against uniform pairing?

Ladders are played on **recorded real UNO games** (:mod:`benchmarks.tiers_sample`: 160 duplicate deal groups of
every pair of the built-in heuristic, weakened and random bots, a bot with itself included, 2 seats, default
rules): a table of two entrants plays one recorded deal group of their two kinds, drawn with replacement (both
seat orders of one deal: the duplicate block a 2-seat ladder plays). A field holds copies (by default two
heuristic bots, one weakened, two random), whose true order is a tie; every other pair's true order is that of
their kinds (heuristic, weakened, random).

Each replicate plays a ladder of ``blocks`` blocks, one table a round as a ladder that has one slot free at a
time would: the informative matchmaking (:func:`arena.tournament.matchmaking.choose_tables` on the evidence of
the batch fit over the results so far, :func:`arena.tournament.matchmaking.evidence_of`) and uniform random
tables, both with duplicate blocks, on the same seeds (so the same recorded deals are drawn in the same order
where their tables agree). At the end the published ranking is computed as a ladder publishes it
(:func:`arena.tournament.stats.plackett_luce.batch_ratings`: rank, tiers with Holm's control) and checked:

- **order right**: every pair of different kinds ranked in its true order;
- **apart right**: every pair of different kinds in different tiers, the stronger above;
- **copies tied**: every pair of copies in one tier;
- **all right**: apart right and copies tied (every verdict the ranking publishes is right).

Each figure is a fraction of the replicates with its 95% Wilson interval; the difference between the policies
has a 95% interval from the replicates paired by seed. The blocks each policy spent on pairs of copies are
reported beside them.

The latent-strength model of earlier versions (:func:`latent_player`) and :func:`simulate_ladder` remain for
quick checks of the policy on any ``play_table``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from arena.tournament._rng import SeededStream
from arena.tournament.matchmaking import (
    DEFAULT_MIN_MEETINGS,
    Entrant,
    MatchmakingConfig,
    Policy,
    Table,
    choose_tables,
    evidence_of,
)
from arena.tournament.results import MatchResult
from arena.tournament.stats.intervals import wilson_interval
from arena.tournament.stats.plackett_luce import batch_ratings, refit
from benchmarks.tiers_sample import BOTS, SAMPLE_PATH, Sample, load_sample
from benchmarks.validation_sample import SEARCH_BOT, VALIDATION_PATH

PlayTable = Callable[[Table, str], list[MatchResult]]
"""Plays one table and returns its results; the second argument is a unique id prefix for the match ids."""

DEFAULT_FIELD = ("heuristic", "heuristic", "weakened", "random", "random")
POLICIES: tuple[Policy, ...] = ("informative", "uniform")


# --- playing tables ---------------------------------------------------------------------------------------------


def recorded_player(sample: Sample, kinds: Mapping[str, str], seed: int) -> PlayTable:
    """A ``play_table`` for 2-seat duplicate tables on recorded games: each table plays one deal group of its two
    entrants' kinds (``kinds``: entrant -> built-in bot), drawn with replacement from ``sample`` by a stream keyed by
    ``seed`` and the table's id prefix."""

    def play(table: Table, prefix: str) -> list[MatchResult]:
        if len(table.bots) != 2:
            raise ValueError(f"the recorded sample has 2-seat games only, got a table of {len(table.bots)}")
        a, b = table.bots
        groups = sample.of(kinds[a], kinds[b])
        group = groups[SeededStream("uno-arena/bench-ladder/draw", seed, prefix).below(len(groups))]
        first, second = (a, b) if group.bots == (kinds[a], kinds[b]) else (b, a)
        return [MatchResult(f"{prefix}-0", (first, second), group.first.scores, group.first.winner, group=prefix),
                MatchResult(f"{prefix}-1", (second, first), group.second.scores, group.second.winner, group=prefix)]

    return play


def latent_player(strengths: Mapping[str, float], seed: int, *, deal_luck: float = 1.0) -> PlayTable:
    """A ``play_table`` on a latent-strength model: in each match every bot draws ``strength + luck of its seat
    on this deal + Gumbel noise`` and the bots finish in the order of their draws (a Plackett-Luce order with
    weights ``exp(strength)``, shifted by the deal's seat luck, ``deal_luck`` standard deviations). The seat
    luck is the same for every match of a block, so seat rotation cancels it."""
    noise = SeededStream("uno-arena/latent-noise", seed)

    def play(table: Table, prefix: str) -> list[MatchResult]:
        k = len(table.bots)
        deal = SeededStream("uno-arena/latent-deal", table.deal_seed)
        luck = [deal_luck * _gauss(deal) for _ in range(k)]
        results = []
        for index, (seats, _seed) in enumerate(table.matches()):
            draws = [strengths[bot] + luck[seat] - math.log(-math.log(_uniform(noise)))
                     for seat, bot in enumerate(seats)]
            order = sorted(range(k), key=lambda s: -draws[s])
            scores = [0] * k
            for place, seat in enumerate(order):
                scores[seat] = k - place
            results.append(MatchResult(f"{prefix}-{index}", seats, tuple(scores), order[0],
                                       group=prefix if table.duplicate else ""))
        return results

    return play


def _uniform(stream: SeededStream) -> float:
    """A number in ``(0, 1)``."""
    return (stream.next64() + 0.5) / 2.0**64


def _gauss(stream: SeededStream) -> float:
    """A standard normal number (Box-Muller)."""
    return math.sqrt(-2.0 * math.log(_uniform(stream))) * math.cos(2.0 * math.pi * _uniform(stream))


# --- one ladder -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LadderTrace:
    """What :func:`simulate_ladder` saw: the results, and after how many matches the order by batch rating became
    right for good (``None``: not right at the end), and the blocks each pair of bots played (pair in name
    order)."""

    results: tuple[MatchResult, ...]
    ordered_after: int | None
    blocks: Mapping[tuple[str, str], int]

    @property
    def matches(self) -> int:
        return len(self.results)


def order_is_correct(results: Sequence[MatchResult], true_order: Sequence[str]) -> bool:
    """Whether ranking by the batch rating (its fit without the bootstrap, highest first) gives ``true_order``
    (strongest first)."""
    fit = refit(results, true_order, bootstrap=0)
    rating = dict(zip(fit.bots, fit.estimate, strict=True))
    return sorted(true_order, key=lambda bot: -rating[bot]) == list(true_order)


def simulate_ladder(bots: Sequence[str], play_table: PlayTable, config: MatchmakingConfig, *, max_matches: int,
                    seed: int, true_order: Sequence[str] | None = None, hold: int | None = None) -> LadderTrace:
    """Run a ladder among ``bots`` (all connected, one free slot each): each round one table chosen on the evidence
    of the results so far, played, until ``max_matches``. With ``true_order`` (strongest first) the order by batch
    rating is checked after each table; with ``hold`` (fixed before the run) the ladder stops once the order has
    been right for ``hold`` matches, ``ordered_after`` the count at which it became right that last time."""
    results: list[MatchResult] = []
    games = dict.fromkeys(bots, 0)
    blocks: dict[tuple[str, str], int] = {}
    ordered_since: int | None = None
    round_number = 0
    while len(results) < max_matches:
        evidence = evidence_of(results, bots, config.matches_per_table)
        tables = choose_tables(evidence, [Entrant(bot, 1, games[bot]) for bot in bots], config, max_tables=1,
                               seed=seed, round_number=round_number)
        if not tables:
            raise ValueError(f"no table possible: {len(bots)} bots for {config.seats} seats")
        (table,) = tables
        played = play_table(table, f"r{round_number:06d}")
        results.extend(played)
        for result in played:
            for bot in result.seats:
                games[bot] += 1
        for i, a in enumerate(sorted(table.bots)):
            for b in sorted(table.bots)[i + 1:]:
                blocks[(a, b)] = blocks.get((a, b), 0) + 1
        round_number += 1
        if true_order is None:
            continue
        if order_is_correct(results, true_order):
            ordered_since = len(results) if ordered_since is None else ordered_since
            if hold is not None and len(results) - ordered_since >= hold:
                break
        else:
            ordered_since = None
    done = ordered_since if hold is None or (ordered_since is not None and len(results) - ordered_since >= hold) \
        else None
    return LadderTrace(tuple(results), done, blocks)


# --- the benchmark on recorded games ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LadderSetup:
    """The field (built-in bot kinds, repeated for copies), the blocks a ladder plays and the floor of direct
    meetings, all fixed before the run."""

    field: tuple[str, ...] = DEFAULT_FIELD
    blocks: int = 30
    min_meetings: int = DEFAULT_MIN_MEETINGS
    validation: bool = False
    """Play on the validation recording (:mod:`benchmarks.validation_sample`: other deals and bot seeds, and
    ``ismctsfast``, the strongest, against each built-in bot) instead of the sample the matchmaking was tuned on."""

    def __post_init__(self) -> None:
        unknown = sorted(set(self.field) - set(self.strongest_first))
        if unknown:
            raise ValueError(f"--field: {', '.join(unknown)} not recorded (the recording has "
                             f"{', '.join(self.strongest_first)})")
        if self.field.count(SEARCH_BOT) > 1:
            raise ValueError(f"--field: {SEARCH_BOT} against itself is not recorded: one copy at most")
        if len(self.field) < 2:
            raise ValueError(f"--field needs at least 2 bots, got {len(self.field)}")
        if not 1 <= self.blocks <= 10_000:
            raise ValueError(f"--blocks must be 1 to 10000, got {self.blocks}")
        if not 0 <= self.min_meetings <= 100:
            raise ValueError(f"--min-meetings must be 0 to 100, got {self.min_meetings}")

    @property
    def strongest_first(self) -> tuple[str, ...]:
        """The recorded bots, strongest first (their true order)."""
        return (SEARCH_BOT, *BOTS) if self.validation else BOTS

    @property
    def path(self) -> str:
        return str((VALIDATION_PATH if self.validation else SAMPLE_PATH).relative_to(SAMPLE_PATH.parents[2]))

    def entrants(self) -> dict[str, str]:
        """Entrant name -> kind (``heuristic-1``, ``heuristic-2``... where a kind repeats)."""
        named: dict[str, str] = {}
        for index, kind in enumerate(self.field):
            repeats = self.field.count(kind)
            named[f"{kind}-{self.field[:index + 1].count(kind)}" if repeats > 1 else kind] = kind
        return named


@dataclass(frozen=True)
class Replicate:
    """One ladder's published ranking, checked (see the module docstring)."""

    order_right: bool
    apart_right: bool
    copies_tied: bool
    copy_blocks: int

    @property
    def all_right(self) -> bool:
        return self.apart_right and self.copies_tied


def replicate(setup: LadderSetup, policy: Policy, seed: int, sample: Sample) -> Replicate:
    """One ladder of ``setup.blocks`` blocks under ``policy`` (duplicate blocks), its published ranking checked."""
    kinds = setup.entrants()
    bots = sorted(kinds)
    config = MatchmakingConfig(seats=2, duplicate=True, policy=policy, min_meetings=setup.min_meetings)
    trace = simulate_ladder(bots, recorded_player(sample, kinds, seed), config, max_matches=2 * setup.blocks,
                            seed=seed)
    published = {rating.bot: rating for rating in batch_ratings(trace.results, bots)}
    strength = {kind: -i for i, kind in enumerate(setup.strongest_first)}
    order = apart = tied = True
    copy_blocks = 0
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            ra, rb = published[a], published[b]
            if kinds[a] == kinds[b]:
                tied &= ra.tier == rb.tier
                copy_blocks += trace.blocks.get((a, b), 0)
                continue
            strong, weak = (ra, rb) if strength[kinds[a]] > strength[kinds[b]] else (rb, ra)
            order &= strong.rank < weak.rank
            apart &= strong.tier < weak.tier
    return Replicate(order, apart, tied, copy_blocks)


def _one(job: tuple[LadderSetup, Policy, int]) -> Replicate:
    setup, policy, seed = job
    return replicate(setup, policy, seed, _sample(setup.validation))


_SAMPLES: dict[bool, Sample] = {}


def _sample(validation: bool) -> Sample:
    """The recording (the validation one or the tuning sample), read once per process."""
    if validation not in _SAMPLES:
        _SAMPLES[validation] = load_sample(VALIDATION_PATH if validation else SAMPLE_PATH)
    return _SAMPLES[validation]


def run(setup: LadderSetup, replicates: int, jobs: int = 2) -> dict[Policy, list[Replicate]]:
    """Every policy's ladders, seeds ``0 .. replicates - 1``."""
    work = [(setup, policy, seed) for policy in POLICIES for seed in range(replicates)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            found = list(pool.map(_one, work, chunksize=8))
    else:
        found = [_one(job) for job in work]
    return {policy: found[k * replicates:(k + 1) * replicates] for k, policy in enumerate(POLICIES)}


CHECKS: tuple[tuple[str, Callable[[Replicate], bool]], ...] = (
    ("order right", lambda r: r.order_right),
    ("apart right", lambda r: r.apart_right),
    ("copies tied", lambda r: r.copies_tied),
    ("all right", lambda r: r.all_right),
)


def paired_difference(first: Sequence[bool], second: Sequence[bool]) -> tuple[float, float, float]:
    """``mean(first) - mean(second)`` over replicates paired by seed, with its 95% normal interval."""
    n = len(first)
    diffs = [float(a) - float(b) for a, b in zip(first, second, strict=True)]
    mean = math.fsum(diffs) / n
    spread = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * spread / math.sqrt(n)
    return mean, max(-1.0, mean - half), min(1.0, mean + half)


def report(setup: LadderSetup, replicates: int, found: Mapping[Policy, Sequence[Replicate]]) -> list[str]:
    """The figures as printed lines."""
    kinds = setup.entrants()
    copies = sum(1 for i, a in enumerate(sorted(kinds)) for b in sorted(kinds)[i + 1:] if kinds[a] == kinds[b])
    pairs = len(kinds) * (len(kinds) - 1) // 2
    lines = [f"field {', '.join(sorted(kinds))} ({pairs} pairs, {copies} of copies); {setup.blocks} duplicate "
             f"blocks a ladder ({2 * setup.blocks} matches) on recorded UNO games ({setup.path}); floor "
             f"{setup.min_meetings} direct meetings a pair; {replicates} replicates per policy, the same seeds",
             f"  {'policy':12s} " + " ".join(f"{name:>21s}" for name, _ in CHECKS) + "  blocks on copies"]
    for policy, reps in found.items():
        cells = []
        for _name, check in CHECKS:
            hits = sum(1 for r in reps if check(r))
            low, high = wilson_interval(hits, len(reps)) or (0.0, 1.0)
            cells.append(f"{hits / len(reps):6.1%} [{low:5.1%}-{high:5.1%}]")
        spent = sum(r.copy_blocks for r in reps) / len(reps)
        lines.append(f"  {policy:12s} " + " ".join(f"{c:>21s}" for c in cells)
                     + f"  {spent:.1f} of {setup.blocks} ({spent / setup.blocks:.0%})")
    if len(found) == 2:
        (top, first), (bottom, second) = found.items()
        for name, check in CHECKS:
            mean, low, high = paired_difference([check(r) for r in first], [check(r) for r in second])
            lines.append(f"  {name}: {top} - {bottom} = {mean:+.1%} (95% interval {low:+.1%} to {high:+.1%}, "
                         "paired by seed)")
    return lines
