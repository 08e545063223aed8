"""`python -m benchmarks tiers --designs`: the arena's tiers in every design it produces, on real UNO results.

A tournament's tiers come from the opponent-adjusted batch model (:func:`arena.tournament.adjusted.fitted_standings`;
an exact sign test in a field of 2 bots). This harness measures them where raw win rates fail: each replicate is one
tournament of a :class:`Design`, its tables the arena's own schedule (:func:`arena.tournament.schedule`: the
complete round robin, or the cyclic design of a large field at 5 seats), every match drawn from real matches of the
built-in bots:

* 2 seats: a recorded deal group of that pair of bots (:mod:`benchmarks.tiers_sample`), both seat orders with
  duplicate deals, else one of them;
* more seats: a recorded match of the same set of bots (:func:`record_multiseat`: real matches of the engine in
  process, every set of ``BOTS`` at the table, seats in a random order), its seats given to the table's entrants
  of each bot in a random order.

Over seeded replicates it counts, with 95 % Wilson intervals:

* **copies together**: every pair of copies of one bot shares a tier (wanted: at least 95 %);
* **apart**: for two different bots, every entrant of the stronger in a higher tier than every entrant of the
  weaker (the power, reported as measured).

The same replicates are tiered by the previous rule (raw win rates, :func:`arena.tournament.standings.standings`)
for comparison. Nothing here is part of the arena's product code: it imports the arena, never the reverse.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.engine import Rules
from arena.tournament import MatchResult, TournamentSpec, schedule, standings
from arena.tournament.adjusted import fitted_standings

from .tiers import Rate, entrants, kind
from .tiers_sample import BOTS, Sample, load_sample, play_real

MULTISEAT_PATH = Path(__file__).parent / "data" / "tiers_multiseat.json"
MULTISEAT_FIRST_SEED = 51_000
STRENGTH = ("heuristic", "weakened", "random")
"""The built-in bots from the strongest down (measured: heuristic beats weakened, both beat random)."""


@dataclass(frozen=True)
class Design:
    """One tournament design: its field (a name twice: two copies), seats per table, deals per table and whether
    deals are duplicated (2 seats only)."""

    name: str
    field: tuple[str, ...]
    seats: int
    deals: int
    duplicate: bool = False


DESIGNS: tuple[Design, ...] = (
    Design("complete, 2 seats, duplicate", ("heuristic", "heuristic", "weakened", "random"), 2, 8, True),
    Design("complete, 2 seats, duplicate", ("random", "random", "heuristic", "weakened"), 2, 8, True),
    Design("complete, 2 seats, duplicate", ("weakened",) * 4, 2, 8, True),
    Design("complete, 3 seats", ("heuristic", "heuristic", "weakened", "random", "random"), 3, 4),
    Design("cyclic, 14 bots x 5 seats", ("heuristic",) * 2 + ("weakened",) * 6 + ("random",) * 6, 5, 20),
    Design("cyclic, 14 bots x 5 seats", ("heuristic",) * 5 + ("weakened",) * 5 + ("random",) * 4, 5, 20),
    Design("2 bots, single matches", ("heuristic", "heuristic"), 2, 4),
    Design("2 bots, single matches", ("heuristic", "heuristic"), 2, 8),
    Design("2 bots, single matches", ("random", "random"), 2, 8),
    Design("2 bots, single matches", ("heuristic", "random"), 2, 8),
    Design("2 bots, single matches", ("heuristic", "weakened"), 2, 30),
)
"""The designs measured by default."""


@dataclass(frozen=True)
class RecordedTable:
    """One real match at a table of more than 2 seats: the bots in seat order, the winner's seat, every score."""

    bots: tuple[str, ...]
    winner: int | None
    scores: tuple[int, ...]


@dataclass(frozen=True)
class MultiSample:
    """Real matches of more than 2 seats by the sorted set of bots at the table."""

    made_by: str
    matches: dict[tuple[str, ...], tuple[RecordedTable, ...]]

    def of(self, bots: Sequence[str]) -> tuple[RecordedTable, ...]:
        key = tuple(sorted(bots))
        if key not in self.matches:
            raise ValueError(f"the sample has no match of {', '.join(key)}: record one with more seats")
        return self.matches[key]


MULTISEAT_SEATS = (3, 5)
"""The table sizes :func:`record_multiseat` records by default (those of :data:`DESIGNS`)."""


def record_multiseat(per_set: int, seats: Sequence[int] = MULTISEAT_SEATS,
                     progress: Callable[[str], None] = lambda _line: None) -> MultiSample:
    """``per_set`` real matches of every set of ``BOTS`` (with repeats) at each number of ``seats``, seats in a seeded
    random order, deal seeds from :data:`MULTISEAT_FIRST_SEED` on, bots seeded per match; default rules."""
    rules = Rules()
    rng = random.Random(MULTISEAT_FIRST_SEED)
    seed = MULTISEAT_FIRST_SEED
    out: dict[tuple[str, ...], tuple[RecordedTable, ...]] = {}
    tables = [table for k in seats for table in itertools.combinations_with_replacement(BOTS, k)]
    for table in tables:
        played = []
        for _ in range(per_set):
            order = list(table)
            rng.shuffle(order)
            match = play_real(order, seed, rules, seed)
            played.append(RecordedTable(tuple(order), match.winner, match.scores))
            seed += 1
        out[tuple(sorted(table))] = tuple(played)
        progress(f"{', '.join(table)}: {per_set} matches")
    made_by = (f"benchmarks.tiers_designs.record_multiseat(per_set={per_set}, seats={tuple(seats)}): every set of "
               f"{', '.join(BOTS)} at each size, seats shuffled, deal seeds from {MULTISEAT_FIRST_SEED} on, "
               f"bots seeded per match, default rules ({rules.variant.value}, target {rules.target})")
    return MultiSample(made_by, out)


def save_multiseat(sample: MultiSample, path: Path = MULTISEAT_PATH) -> None:
    rows = [json.dumps([list(m.bots), m.winner, list(m.scores)]) for ms in sample.matches.values() for m in ms]
    text = "{\n" + f'  "made_by": {json.dumps(sample.made_by)},\n  "matches": [\n'
    text += ",\n".join(f"    {row}" for row in rows) + "\n  ]\n}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def load_multiseat(path: Path = MULTISEAT_PATH) -> MultiSample:
    """What :func:`save_multiseat` wrote (``ValueError`` naming the file when it is not one)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        matches: dict[tuple[str, ...], list[RecordedTable]] = {}
        for bots, winner, scores in data["matches"]:
            table = RecordedTable(tuple(str(b) for b in bots), None if winner is None else int(winner),
                                  tuple(int(s) for s in scores))
            matches.setdefault(tuple(sorted(table.bots)), []).append(table)
        return MultiSample(str(data["made_by"]), {k: tuple(v) for k, v in matches.items()})
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path} is not a multi-seat tier sample ({error}); write one with python -m benchmarks tiers "
                         "--record-multiseat PATH") from None


def _two_seat(sample: Sample, seats: tuple[str, str], match_id: str, group: str, rng: random.Random,
              duplicate: bool) -> list[MatchResult]:
    """The matches of one 2-seat deal: a recorded group of the pair, both orders with ``duplicate``, else one."""
    x, y = seats
    recorded = rng.choice(sample.of(kind(x), kind(y)))
    first_is_x = recorded.bots[0] == kind(x) if kind(x) != kind(y) else rng.random() < 0.5
    order = (x, y) if first_is_x else (y, x)
    first = MatchResult(f"{match_id}-a", order, recorded.first.scores, recorded.first.winner, group=group)
    second = MatchResult(f"{match_id}-b", (order[1], order[0]), recorded.second.scores, recorded.second.winner,
                         group=group)
    if duplicate:
        return [first, second]
    return [first if rng.random() < 0.5 else second]


def _multi_seat(sample: MultiSample, seats: tuple[str, ...], match_id: str, rng: random.Random) -> MatchResult:
    """One match of a table of more than 2 seats: a recorded match of the same bots, its seats given to the table's
    entrants of each bot in a random order."""
    recorded = rng.choice(sample.of([kind(s) for s in seats]))
    pools: dict[str, list[str]] = {}
    for entrant in seats:
        pools.setdefault(kind(entrant), []).append(entrant)
    for pool in pools.values():
        rng.shuffle(pool)
    order = tuple(pools[bot].pop() for bot in recorded.bots)
    return MatchResult(match_id, order, recorded.scores, recorded.winner)


def replicate_design(design: Design, sample: Sample, multi: MultiSample | None, rng: random.Random,
                     number: int) -> list[MatchResult]:
    """One tournament of ``design``: the arena's schedule (seeded by ``number``), every match drawn from real
    results. With duplicate deals (2 seats) each scheduled deal is one recorded group in both orders."""
    spec = TournamentSpec(f"r{number}", tuple(entrants(design.field)), seats=design.seats, deals=design.deals,
                          seed=number + 1)
    results: list[MatchResult] = []
    for match in schedule(spec):
        if design.seats == 2:
            results += _two_seat(sample, (match.seats[0], match.seats[1]), match.match_id, match.match_id, rng,
                                 design.duplicate)
        else:
            if multi is None:
                raise ValueError("a design of more than 2 seats needs the multi-seat sample")
            results.append(_multi_seat(multi, tuple(match.seats), match.match_id, rng))
    return results


@dataclass(frozen=True)
class DesignFigures:
    """One design's figures under one rule: copies together, and for each pair of different bots in the field (the
    stronger first) how often every entrant of the stronger was in a higher tier than every one of the weaker."""

    design: Design
    rule: str
    copies_together: Rate | None
    apart: tuple[tuple[str, str, Rate], ...]


def _figures(design: Design, rule: str, tiered: Sequence[dict[str, int]]) -> DesignFigures:
    names = entrants(design.field)
    copies = [(a, b) for a, b in itertools.combinations(names, 2) if kind(a) == kind(b)]
    count = len(tiered)

    def rate(holds: Callable[[dict[str, int]], bool]) -> Rate:
        return Rate(sum(1 for tiers in tiered if holds(tiers)), count)

    def above(strong: str, weak: str) -> Callable[[dict[str, int]], bool]:
        high = [n for n in names if kind(n) == strong]
        low = [n for n in names if kind(n) == weak]
        return lambda tiers: all(tiers[a] < tiers[b] for a in high for b in low)

    kinds = [bot for bot in STRENGTH if bot in design.field]
    apart = [(strong, weak, rate(above(strong, weak))) for strong, weak in itertools.combinations(kinds, 2)]
    together = rate(lambda t: all(t[a] == t[b] for a, b in copies)) if copies else None
    return DesignFigures(design, rule, together, tuple(apart))


def run_designs_bench(designs: Sequence[Design] = DESIGNS, replicates: int = 100, seed: int = 36,
                      sample: Sample | None = None, multi: MultiSample | None = None
                      ) -> list[DesignFigures]:
    """Every design's figures under the arena's rule (``"adjusted"``) and the previous one (``"win rate"``), over
    the same seeded replicates."""
    if replicates < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    pairs = sample if sample is not None else load_sample()
    tables = multi if multi is not None or all(d.seats == 2 for d in designs) else load_multiseat()
    out: list[DesignFigures] = []
    for number, design in enumerate(designs):
        rng = random.Random(seed * 1_000_003 + number)
        adjusted: list[dict[str, int]] = []
        previous: list[dict[str, int]] = []
        for index in range(replicates):
            results = replicate_design(design, pairs, tables, rng, index)
            table = standings(results, participants=entrants(design.field), ratings=False)
            previous.append({row.bot: row.tier for row in table.rows})
            fitted, _ = fitted_standings(table, results, entrants(design.field))
            adjusted.append({row.bot: row.tier for row in fitted.rows})
        out.append(_figures(design, "adjusted", adjusted))
        out.append(_figures(design, "win rate", previous))
    return out


def design_lines(figures: Sequence[DesignFigures], replicates: int) -> list[str]:
    """The report, one line per design and rule."""
    lines = [f"{replicates} seeded replicates per design, every match drawn from real results; figures: share of "
             "replicates [95% Wilson interval]; adjusted = the arena's tiers (batch PL model, sign test for 2 bots), "
             "win rate = the rule before it"]
    for f in figures:
        d = f.design
        played = f"{d.deals} deal{'s' if d.deals > 1 else ''}/table{', duplicate' if d.duplicate else ''}"
        parts = [f"{d.name}: {', '.join(entrants(d.field)) if len(d.field) <= 5 else _counted(d.field)} ({played})",
                 f"{f.rule:8s}"]
        if f.copies_together is not None:
            parts.append(f"copies together {f.copies_together.text()}")
        parts += [f"{strong} above {weak} {rate.text()}" for strong, weak, rate in f.apart]
        lines.append("  ".join(parts))
    return lines


def _counted(field: Sequence[str]) -> str:
    return ", ".join(f"{bot} x{field.count(bot)}" for bot in dict.fromkeys(field))
