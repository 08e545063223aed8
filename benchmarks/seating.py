"""`python -m benchmarks seating`: who sits right after whom, and how evenly pairs meet, over seeded schedules.

For every case (field size ``n``, seats ``k``, deals, duplicate or not) and every seed ``0..seeds-1`` the
schedule is built twice, with the arena's balanced seating (:mod:`arena.tournament.schedule`) and with the circular
one tournaments used before (:func:`circular_schedule`), and :func:`schedule_stats` (the one place these figures
are counted; the tests of the schedules count with it too) gives:

* **next-seat imbalance**: max over pairs of |matches where b sits right after a - matches where a sits right
  after b| (b takes a's skips and draws in the initial direction);
* **one-way pairs**: pairs that sit next to each other in one order only;
* **pair spread**: most - fewest tables a pair shares (the cyclic design aims at one).

``--spread N K`` sweeps only the pair spread of the cyclic balanced design at ``n = N, k = K`` (the table
orientation does not change which bots share a table, so both seatings have the same spread).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from arena.tournament import MatchSpec, TournamentSpec, schedule
from arena.tournament._rng import SeededStream
from arena.tournament.design import balanced_base_blocks, complete_tables, cyclic_tables, rotate
from arena.tournament.schedule import uses_cyclic_design
from arena.tournament.spec import DEFAULT_MAX_TABLES

SEATING_BALANCED = "balanced"
SEATING_CIRCULAR = "circular"


def circular_tables(spec: TournamentSpec) -> list[tuple[str, ...]]:
    """The tables of :func:`arena.tournament.tables` with each in its design's own (circular) order: the same bots
    and the same shuffles, without the orientation that balances who sits right after whom."""
    n, k = len(spec.participants), spec.seats
    stream = SeededStream("schedule", spec.seed, n, k)
    order = sorted(spec.participants)
    stream.shuffle(order)
    if uses_cyclic_design(spec):
        numbered = cyclic_tables(n, balanced_base_blocks(n, k, spec.pair_meetings, stream))
    else:
        numbered = complete_tables(n, k, 0 if spec.rotated else spec.deals % k, stream)
        stream.shuffle(numbered)
    return [tuple(order[i] for i in t) for t in numbered]


def circular_schedule(spec: TournamentSpec) -> list[MatchSpec]:
    """:func:`arena.tournament.schedule` seated in the circular order, with no round reversed (rotated seat orders;
    ``duplicate_orders="all"`` plays every order either way)."""
    if spec.rotated and spec.duplicate_orders == "all":
        return schedule(spec)
    bases = circular_tables(spec)
    return [replace(m, seats=rotate(bases[m.table], m.rotation)) for m in schedule(spec)]


@dataclass(frozen=True)
class ScheduleStats:
    """Fairness figures of a schedule (counted over matches).

    ``pair_matches``: (min, max) over all pairs of participants of the matches they share.
    ``seat_spread``: max over bots of (most - fewest matches in one seat).
    ``matches_per_bot``: (min, max) matches played by a bot.
    ``next_seat_imbalance``: max over pairs ``a, b`` of |matches where b sits right after a (b plays next in the
    initial direction, so takes a's skips and draws) - matches where a sits right after b|; 0 with 2 seats.
    ``one_way_pairs``: pairs that sit next to each other in one of the two orders only (3 seats or more).
    """

    matches: int
    tables: int
    pair_matches: tuple[int, int]
    seat_spread: int
    matches_per_bot: tuple[int, int]
    next_seat_imbalance: int = 0
    one_way_pairs: int = 0


def schedule_stats(matches: Iterable[MatchSpec], participants: Sequence[str] | None = None) -> ScheduleStats:
    """Count pair meetings, seat use and matches per bot in a list of matches."""
    pair: Counter[tuple[str, str]] = Counter()
    after: Counter[tuple[str, str]] = Counter()  # (a, b): b sits right after a
    seat: Counter[tuple[str, int]] = Counter()
    played: Counter[str] = Counter()
    tables_seen: set[tuple[str, int]] = set()
    total = 0
    k = 0
    for m in matches:
        total += 1
        k = max(k, len(m.seats))
        tables_seen.add((m.tournament_id, m.table))
        for i, bot in enumerate(m.seats):
            seat[(bot, i)] += 1
            played[bot] += 1
        for a, b in itertools.combinations(sorted(m.seats), 2):
            pair[(a, b)] += 1
        if len(m.seats) > 2:
            for i, bot in enumerate(m.seats):
                after[(bot, m.seats[(i + 1) % len(m.seats)])] += 1
    bots = sorted(participants) if participants is not None else sorted(played)
    pairs = [pair[(a, b)] for a, b in itertools.combinations(bots, 2)]
    spreads = (
        [max(seat[(b, i)] for i in range(k)) - min(seat[(b, i)] for i in range(k)) for b in bots]
        if k
        else [0]
    )
    per_bot = [played[b] for b in bots] or [0]
    turns = [(after[(a, b)], after[(b, a)]) for a, b in itertools.combinations(bots, 2)]
    return ScheduleStats(
        matches=total,
        tables=len(tables_seen),
        pair_matches=(min(pairs), max(pairs)) if pairs else (0, 0),
        seat_spread=max(spreads),
        matches_per_bot=(min(per_bot), max(per_bot)),
        next_seat_imbalance=max((abs(x - y) for x, y in turns), default=0),
        one_way_pairs=sum(1 for x, y in turns if (x == 0) != (y == 0)),
    )


@dataclass(frozen=True)
class Case:
    """One kind of tournament the benchmark schedules for every seed."""

    n: int
    k: int
    deals: int
    duplicate: bool = False

    @property
    def design(self) -> str:
        return "cyclic" if self.k > 2 and math.comb(self.n, self.k) > DEFAULT_MAX_TABLES else "complete"

    def label(self) -> str:
        return f"n={self.n} k={self.k} deals={self.deals}{' duplicate' if self.duplicate else ''} ({self.design})"


CASES: tuple[Case, ...] = (
    Case(12, 6, 6),
    Case(12, 6, 12),
    Case(12, 6, 1),
    Case(12, 3, 3),
    Case(9, 3, 2),
    Case(11, 5, 2),
    Case(10, 4, 3, duplicate=True),
    Case(10, 4, 4, duplicate=True),
    Case(16, 4, 4),
    Case(20, 5, 1),
    Case(30, 3, 1),
    Case(30, 6, 1),
    Case(30, 6, 4),
    Case(25, 4, 2, duplicate=True),
)
"""The cases the benchmark runs by default: complete designs (at most 2,000 tables) and cyclic ones."""


@dataclass(frozen=True)
class CaseFigures:
    """The worst figures over the seeds of one case with one seating."""

    case: Case
    seating: str
    seeds: int
    worst_imbalance: int
    mean_imbalance: float
    worst_one_way: int
    pair_spreads: tuple[int, ...]

    def line(self) -> str:
        spreads = ", ".join(f"{s}: {self.pair_spreads.count(s)}" for s in sorted(set(self.pair_spreads)))
        return (f"{self.case.label():44} {self.seating:9} next-seat imbalance worst {self.worst_imbalance:5} "
                f"mean {self.mean_imbalance:7.2f}  one-way pairs worst {self.worst_one_way:4}  "
                f"pair spread (seeds) {spreads}")


def _spec(case: Case, seed: int) -> TournamentSpec:
    return TournamentSpec("bench-seating", tuple(f"b{i:03d}" for i in range(case.n)), seats=case.k,
                          deals=case.deals, duplicate=case.duplicate, seed=seed)


def _per_table(case: Case) -> int:
    """Matches one table plays (the pair spread is reported in tables)."""
    return case.deals * (case.k if case.duplicate else 1)


def measure(case: Case, seating: str, seeds: int) -> CaseFigures:
    """The figures of one case over seeds ``0..seeds-1``."""
    build = schedule if seating == SEATING_BALANCED else circular_schedule
    stats = [schedule_stats(build(spec), spec.participants) for spec in (_spec(case, seed) for seed in range(seeds))]
    return CaseFigures(
        case=case, seating=seating, seeds=seeds,
        worst_imbalance=max(s.next_seat_imbalance for s in stats),
        mean_imbalance=sum(s.next_seat_imbalance for s in stats) / len(stats),
        worst_one_way=max(s.one_way_pairs for s in stats),
        pair_spreads=tuple((s.pair_matches[1] - s.pair_matches[0]) // _per_table(case) for s in stats),
    )


def run_seating_bench(seeds: int, cases: Sequence[Case] = CASES) -> Iterator[CaseFigures]:
    """Both seatings of every case, balanced first."""
    for case in cases:
        for seating in (SEATING_BALANCED, SEATING_CIRCULAR):
            yield measure(case, seating, seeds)


def spread_sweep(n: int, k: int, seeds: int) -> dict[int, int]:
    """How many of seeds ``0..seeds-1`` give each pair spread to the cyclic design at ``(n, k)``, one deal."""
    found: dict[int, int] = {}
    for seed in range(seeds):
        spec = TournamentSpec("bench-seating", tuple(f"b{i:03d}" for i in range(n)), seats=k, seed=seed,
                              max_tables=1)
        low, high = schedule_stats(schedule(spec), spec.participants).pair_matches
        found[high - low] = found.get(high - low, 0) + 1
    return found
