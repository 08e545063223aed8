"""`python -m benchmarks tiers`: do tiers keep equal bots together and split bots of different strength?

Each replicate is a 2-seat round robin with duplicate deals (or without: ``--no-duplicate``) of a field of
built-in bots (two copies of one bot count as two entrants), ``deals`` deal groups per pair of entrants, made of real
results: every group is drawn, with replacement, from the recorded deal groups of that pair of bots
(:mod:`benchmarks.tiers_sample`, real matches of the engine in process). The standings of the replicate, ranked
and tiered by the batch model (:func:`arena.tournament.adjusted.fitted_standings`, the one place tournament tiers
are computed) give its tiers, and the benchmark counts, over ``replicates`` seeded replicates:

* **copies together**: every pair of copies of one bot shares a tier (wanted: at least 95 %);
* **no split** (a field of copies only): the whole field is one tier;
* **heuristic above weakened**: every heuristic entrant is in a higher tier than every weakened one (wanted: at
  least 90 % at 8 deals).

The same replicates are tiered by the rule the arena used before (raw win rates and direct meetings under Holm's
control, :func:`arena.tournament.standings.standings`) for comparison, and with
``--ratings`` by the arena's rule on the rating measure (OpenSkill ratings of the replicate from a fresh pool, as a
rating pool's leaderboard tiers its bots). Each figure has its
95 % Wilson interval over the replicates.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.tournament import MatchResult, standings
from arena.tournament.adjusted import fitted_standings
from arena.tournament.stats.intervals import wilson_interval

from .tiers_sample import Sample, load_sample

FIELDS: tuple[tuple[str, ...], ...] = (
    ("heuristic", "heuristic", "weakened", "random"),
    ("weakened", "weakened", "heuristic", "random"),
    ("random", "random", "heuristic", "weakened"),
    ("weakened",) * 4,
    ("random",) * 4,
)
"""The fields the benchmark plays by default: the bots of each (a name twice: two copies)."""


@dataclass(frozen=True)
class Rate:
    """How many of ``replicates`` had the property, with its 95 % Wilson interval."""

    hits: int
    replicates: int

    @property
    def share(self) -> float:
        return self.hits / self.replicates

    def interval(self) -> tuple[float, float]:
        interval = wilson_interval(self.hits, self.replicates)
        assert interval is not None
        return interval

    def text(self) -> str:
        low, high = self.interval()
        return f"{self.share:6.1%} [{low:.1%}, {high:.1%}]"


@dataclass(frozen=True)
class TierFigures:
    """One field's figures under one tier rule (``None``: the property does not apply to that field)."""

    field: tuple[str, ...]
    deals: int
    rule: str
    copies_together: Rate | None
    no_split: Rate | None
    heuristic_above_weakened: Rate | None


def entrants(field: Sequence[str]) -> list[str]:
    """The entrants' names: a bot's name, then ``name#2``, ``name#3`` for its copies."""
    seen: dict[str, int] = {}
    names = []
    for bot in field:
        seen[bot] = seen.get(bot, 0) + 1
        names.append(bot if seen[bot] == 1 else f"{bot}#{seen[bot]}")
    return names


def kind(entrant: str) -> str:
    """The bot an entrant is a copy of."""
    return entrant.split("#", 1)[0]


def replicate(sample: Sample, field: Sequence[str], deals: int, rng: random.Random,
              duplicate: bool = True) -> list[MatchResult]:
    """One round robin of ``field`` with ``deals`` duplicate deal groups per pair, drawn from ``sample``; without
    ``duplicate``, one match per deal (one of the group's two, drawn), each its own group."""
    names = entrants(field)
    results: list[MatchResult] = []
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            pool = sample.of(kind(x), kind(y))
            for deal in range(deals):
                group = rng.choice(pool)
                first_is_x = group.bots[0] == kind(x) if kind(x) != kind(y) else rng.random() < 0.5
                seats = (x, y) if first_is_x else (y, x)
                gid = f"{x}-{y}-{deal}"
                first = MatchResult(f"{gid}-a", seats, group.first.scores, group.first.winner, group=gid)
                second = MatchResult(f"{gid}-b", (seats[1], seats[0]), group.second.scores, group.second.winner,
                                     group=gid)
                if duplicate:
                    results += [first, second]
                else:
                    results.append(first if rng.random() < 0.5 else second)
    return results


def _figures(field: tuple[str, ...], deals: int, rule: str, tiered: Sequence[dict[str, int]]) -> TierFigures:
    names = entrants(field)
    copies = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if kind(a) == kind(b)]
    heuristic = [n for n in names if kind(n) == "heuristic"]
    weakened = [n for n in names if kind(n) == "weakened"]
    count = len(tiered)

    def rate(holds: Callable[[dict[str, int]], bool]) -> Rate:
        return Rate(sum(1 for tiers in tiered if holds(tiers)), count)

    return TierFigures(
        field, deals, rule,
        rate(lambda t: all(t[a] == t[b] for a, b in copies)) if copies else None,
        rate(lambda t: len(set(t.values())) == 1) if len(set(field)) == 1 else None,
        rate(lambda t: all(t[h] < t[w] for h in heuristic for w in weakened)) if heuristic and weakened else None,
    )


def run_tiers_bench(fields: Sequence[tuple[str, ...]] = FIELDS, deals: int = 8, replicates: int = 2000,
                    seed: int = 23, sample: Sample | None = None, duplicate: bool = True,
                    ratings: bool = False) -> list[TierFigures]:
    """The figures of every field under the arena's tier rule (``"adjusted"``: the batch model,
    :func:`arena.tournament.adjusted.fitted_standings`) and the one before it (``"win rate"``: raw win rates and
    direct meetings under Holm's control, :func:`arena.tournament.standings.standings`), over the same seeded
    replicates; with ``ratings``, also the same rule with the rating measure (``"rating"``: OpenSkill from a fresh
    pool)."""
    if deals < 1 or replicates < 1:
        raise ValueError(f"deals and replicates must be at least 1, got {deals} and {replicates}")
    data = sample if sample is not None else load_sample()
    out: list[TierFigures] = []
    for number, field in enumerate(fields):
        rng = random.Random(seed * 1_000_003 + number)
        now: list[dict[str, int]] = []
        before: list[dict[str, int]] = []
        rated: list[dict[str, int]] = []
        for _ in range(replicates):
            results = replicate(data, field, deals, rng, duplicate)
            table = standings(results, ratings=False)
            before.append({row.bot: row.tier for row in table.rows})
            adjusted, _ = fitted_standings(table, results)
            now.append({row.bot: row.tier for row in adjusted.rows})
            if ratings:
                rated.append({row.bot: row.tier for row in standings(results, order_by="rating").rows})
        out.append(_figures(field, deals, "adjusted", now))
        out.append(_figures(field, deals, "win rate", before))
        if ratings:
            out.append(_figures(field, deals, "rating", rated))
    return out


def figure_lines(figures: Sequence[TierFigures], replicates: int, deals: int, sample: Sample,
                 duplicate: bool = True) -> list[str]:
    """The benchmark's report, one line per field and rule."""
    played = f"duplicate deals, {deals} deal groups" if duplicate else f"no duplicate deals, {deals} matches"
    lines = [f"{replicates} seeded replicates per field: 2-seat round robins with {played} per pair, resampled from "
             f"real results ({sample.rules}; {sample.made_by})",
             "figures: share of replicates [95% Wilson interval]; adjusted = the arena's tier rule (batch PL "
             "model), win rate = the rule before it, rating = the rule on OpenSkill ratings"]
    for f in figures:
        parts = [f"{'field ' + ', '.join(f.field):48s} {f.rule:8s}"]
        if f.copies_together is not None:
            parts.append(f"copies together {f.copies_together.text()}")
        if f.no_split is not None:
            parts.append(f"one tier {f.no_split.text()}")
        if f.heuristic_above_weakened is not None:
            parts.append(f"heuristic above weakened {f.heuristic_above_weakened.text()}")
        lines.append("  ".join(parts))
    return lines
