"""Matchmaking for a continuous ladder: spend the blocks where they add to the ranking the ladder publishes (pure).

:func:`choose_tables` picks the next tables among the connected entrants with a free slot, from :class:`Evidence`
about the published batch Plackett-Luce ranking (:func:`evidence_of`). A table ranks by, in this order: the
components of the meetings graph it joins; the direct meetings its pairs still lack below ``min_meetings``; its
information (the sum of its pairs' :func:`meeting_value`, discounted by tables already planned in the call); fewest
meetings, then names. An entrant below ``fairness_floor`` times the mean games is anchored first. Each table plays a
block: every seat rotation on one deal (:meth:`Table.matches`). :class:`RateLimit` is the operator's token bucket.
Up to :data:`EXHAUSTIVE_TABLES` possible tables every one is ranked; beyond, tables are filled seat by seat. Same
evidence, entrants and seed, same tables. docs/organizers.md (competitions) and docs/benchmarks.md (ladder).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ._rng import SeededStream, derive_seed
from .design import rotate
from .results import MatchResult, dedupe
from .stats.intervals import normal_cdf, t_quantile
from .stats.plackett_luce import posterior, stages_of

Policy = Literal["informative", "uniform"]
POLICIES: tuple[Policy, ...] = ("informative", "uniform")
DEFAULT_FAIRNESS_FLOOR = 0.5
DEFAULT_MIN_MEETINGS = 2
"""Blocks every pair of current entrants plays directly before information chooses the tables."""
EXHAUSTIVE_TABLES = 5000
"""Up to this many possible tables, every one is ranked; beyond, tables are built seat by seat."""
PRIOR_EQUAL = 0.5
"""The prior probability that two entrants are equal (copies, versions that changed nothing)."""
GAP_SCALE = 3.0
"""The prior standard deviation of a difference between unequal entrants, in batch rating units (UNO's built-in bots
span about 5 at 500 points; a scale of 1 made settled orders look open)."""
LOOKAHEAD = (1, 2, 4, 8, 16, 32)
"""The horizons, in blocks, over which :func:`meeting_value` takes the best reduction per block."""
_GRID = tuple(-6.0 + 0.1 * i for i in range(121))
_GRID_WEIGHTS = tuple(math.exp(-t * t / 2.0) for t in _GRID)
_GRID_TOTAL = math.fsum(_GRID_WEIGHTS)


@dataclass(frozen=True)
class Entrant:
    """A connected ladder entrant: its free match slots now and the ladder matches it has played."""

    name: str
    capacity: int = 1
    games: int = 0

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("an entrant needs a name")
        if self.capacity < 0 or self.games < 0:
            raise ValueError(f"entrant {self.name}: capacity and games must not be negative")


@dataclass(frozen=True)
class Table:
    """One table the ladder plays: its bots in the first match's seat order, the deal seed, and the information it
    was chosen for."""

    bots: tuple[str, ...]
    deal_seed: int
    information: float = 0.0
    duplicate: bool = True
    starved: bool = False
    """Whether its anchor was seated by the fairness floor rather than for information."""
    remembering: bool = False
    """Whether a bot at the table may remember what it saw from one match to the next: the rotations then each get
    a deal of their own (a later rotation would show it its opponents' dealt hands)."""

    def matches(self) -> list[tuple[tuple[str, ...], int]]:
        """The table's matches as ``(seats, seed)``: every rotation (duplicate), else one match."""
        if not self.duplicate:
            return [(self.bots, self.deal_seed)]
        return [(rotate(self.bots, shift),
                 derive_seed("uno-arena/ladder-rotation", self.deal_seed, shift) if self.remembering and shift
                 else self.deal_seed)
                for shift in range(len(self.bots))]


@dataclass(frozen=True)
class MatchmakingConfig:
    """``fairness_floor`` and ``min_meetings``: 0 turns them off; ``policy``: ``"informative"`` or ``"uniform"``
    (random tables, the ladder benchmark's baseline)."""

    seats: int = 2
    fairness_floor: float = DEFAULT_FAIRNESS_FLOOR
    duplicate: bool = True
    policy: Policy = "informative"
    min_meetings: int = DEFAULT_MIN_MEETINGS

    def __post_init__(self) -> None:
        if self.seats < 2:
            raise ValueError(f"a table needs at least 2 seats, got {self.seats}")
        if not 0.0 <= self.fairness_floor <= 1.0:
            raise ValueError(f"fairness_floor must be between 0 and 1, got {self.fairness_floor}")
        if not 0 <= self.min_meetings <= 100:
            raise ValueError(f"min_meetings must be 0 to 100, got {self.min_meetings}")
        if self.policy not in POLICIES:
            raise ValueError(f"unknown policy {self.policy!r}; expected one of {', '.join(POLICIES)}")

    @property
    def matches_per_table(self) -> int:
        return self.seats if self.duplicate else 1


@dataclass(frozen=True)
class RateLimit:
    """A token bucket of matches: ``per_second`` refill, at most ``burst`` saved up; the caller passes the time."""

    per_second: float
    burst: float
    tokens: float = 0.0
    at: float | None = None

    def __post_init__(self) -> None:
        if not self.per_second > 0 or not self.burst >= 1:
            raise ValueError(f"a rate limit needs per_second > 0 and burst >= 1, got {self.per_second}, "
                             f"{self.burst}")

    def refilled(self, now: float) -> RateLimit:
        """The bucket at time ``now`` (full on first use)."""
        if self.at is None:
            return replace(self, tokens=self.burst, at=now)
        gained = max(0.0, now - self.at) * self.per_second
        return replace(self, tokens=min(self.burst, self.tokens + gained), at=max(now, self.at))

    def tables_allowed(self, now: float, matches_per_table: int) -> int:
        """How many tables of ``matches_per_table`` matches may start at ``now``."""
        return int(self.refilled(now).tokens // max(1, matches_per_table))

    def spent(self, now: float, matches: int) -> RateLimit:
        """The bucket after starting ``matches`` matches at ``now`` (``ValueError`` when over the limit)."""
        bucket = self.refilled(now)
        if matches > bucket.tokens + 1e-9:
            raise ValueError(f"rate limit: {matches} matches asked, {bucket.tokens:.1f} allowed now")
        return replace(bucket, tokens=bucket.tokens - matches)


@dataclass(frozen=True)
class PairEvidence:
    """What the published ranking knows of one pair: ``gap`` (the first bot's batch rating less the second's), its
    standard error, and the blocks in which they met directly."""

    gap: float = 0.0
    error: float = GAP_SCALE
    meetings: float = 0.0


@dataclass(frozen=True)
class Evidence:
    """:class:`PairEvidence` by pair of bots (the key in name order); a pair not listed never met and is as
    uncertain as the prior (:data:`GAP_SCALE`)."""

    pairs: Mapping[tuple[str, str], PairEvidence] = field(default_factory=dict)

    def of(self, a: str, b: str) -> PairEvidence:
        """The evidence of ``a`` against ``b`` (``gap`` is ``a``'s rating less ``b``'s)."""
        if a <= b:
            return self.pairs.get((a, b), PairEvidence())
        found = self.pairs.get((b, a), PairEvidence())
        return replace(found, gap=-found.gap)

    def meetings(self, a: str, b: str) -> float:
        return self.of(a, b).meetings


@dataclass
class EvidenceTally:
    """The running sums behind :func:`evidence_of` (stages by bot name, matches each pair shared): a ladder adds each
    finished block once instead of reading every block's results every round."""

    stages: dict[tuple[str, tuple[str, ...]], float] = field(default_factory=dict)
    shared: dict[tuple[str, str], int] = field(default_factory=dict)

    def add(self, results: Iterable[MatchResult]) -> EvidenceTally:
        """Add ``results`` (each once: a match added twice counts twice) and return the tally."""
        for result in results:
            seated = sorted(set(result.seats))
            for a, b in itertools.combinations(seated, 2):
                self.shared[(a, b)] = self.shared.get((a, b), 0) + 1
            for winner, among in stages_of(result, {bot: i for i, bot in enumerate(seated)}):
                key = (seated[winner], tuple(seated[i] for i in among))
                self.stages[key] = self.stages.get(key, 0.0) + 1.0
        return self

    def evidence(self, bots: Iterable[str], matches_per_block: int) -> Evidence:
        """:func:`evidence_of` over the results added, for every pair of ``bots``."""
        names = sorted(set(bots))
        fitted = sorted(set(names) | {name for _, among in self.stages for name in among})
        index = {bot: i for i, bot in enumerate(fitted)}
        estimate, cov = posterior({(index[winner], tuple(index[b] for b in among)): count
                                   for (winner, among), count in self.stages.items()}, len(fitted))
        pairs = {}
        for a, b in itertools.combinations(names, 2):
            i, j = index[a], index[b]
            error = math.sqrt(max(1e-12, cov[i][i] + cov[j][j] - 2.0 * cov[i][j]))
            pairs[(a, b)] = PairEvidence(estimate[i] - estimate[j], error,
                                         self.shared.get((a, b), 0) / max(1, matches_per_block))
        return Evidence(pairs)


def evidence_of(results: Iterable[MatchResult], bots: Iterable[str], matches_per_block: int) -> Evidence:
    """The batch ranking's evidence over ``results`` for every pair of ``bots``: the Plackett-Luce fit's
    differences with their posterior standard errors (no bootstrap: cheap enough for every round), and the direct
    meetings in blocks of ``matches_per_block`` matches."""
    return EvidenceTally().add(dedupe(results)).evidence(bots, matches_per_block)


def meeting_value(pair: PairEvidence, confidence: float = 0.95) -> float:
    """The expected reduction, per block between the two, of the probability that the published verdict on the pair
    is wrong. With a true difference ``delta != 0`` the tiers' t test (without Holm) misses with probability
    ``P(Z > |delta| / error - t)``; ``k`` more blocks take the error to ``error * sqrt(n / (n + k))`` (``n`` the
    direct meetings, at least 1) and the degrees of freedom up by ``k``. Averaged over ``delta``'s posterior under
    :data:`GAP_SCALE`, weighted by the probability that the two differ at all (:data:`PRIOR_EQUAL`), the best per
    block over :data:`LOOKAHEAD` (Frazier and Powell's KG(*): a close pair one block cannot settle is not starved)."""
    n = max(int(pair.meetings), 1)
    s2 = max(pair.error, 1e-9) ** 2
    t2 = GAP_SCALE**2
    gap = abs(pair.gap)  # the value of a pair does not depend on which of the two is named first
    differ = (1.0 - PRIOR_EQUAL) * _normal_density(gap, s2 + t2)
    equal = PRIOR_EQUAL * _normal_density(gap, s2)
    p_differ = differ / (differ + equal) if differ + equal > 0 else 1.0
    if p_differ < 1e-12:
        return 0.0
    mean = gap * t2 / (s2 + t2)
    spread = math.sqrt(s2 * t2 / (s2 + t2))

    def miss(error: float, crit: float) -> float:
        return math.fsum(w * normal_cdf(crit - abs(mean + spread * t) / error)
                         for t, w in zip(_GRID, _GRID_WEIGHTS, strict=True)) / _GRID_TOTAL

    now = miss(math.sqrt(s2), t_quantile(confidence, max(1, n - 1)))
    return p_differ * max(max(0.0, now - miss(math.sqrt(s2 * n / (n + k)), t_quantile(confidence, n - 1 + k))) / k
                          for k in LOOKAHEAD)


def _normal_density(x: float, variance: float) -> float:
    return math.exp(-x * x / (2.0 * variance)) / math.sqrt(2.0 * math.pi * variance)


def choose_tables(evidence: Evidence, entrants: Iterable[Entrant], config: MatchmakingConfig, *,
                  max_tables: int, seed: int, round_number: int = 0) -> list[Table]:
    """The next tables (at most ``max_tables``) among ``entrants``. ``seed`` and ``round_number`` (one per call)
    make the deal seeds and, for the uniform policy, the random tables."""
    pool_entrants = list(entrants)
    names = [e.name for e in pool_entrants]
    if len(set(names)) != len(names):
        raise ValueError(f"an entrant is listed twice: {sorted(n for n in set(names) if names.count(n) > 1)}")
    if max_tables < 0:
        raise ValueError(f"max_tables must not be negative, got {max_tables}")
    capacity = {e.name: e.capacity for e in pool_entrants}
    games = {e.name: float(e.games) for e in pool_entrants}
    mean_games = sum(games.values()) / len(games) if games else 0.0
    stream = SeededStream("uno-arena/matchmaking", seed, round_number)
    ledger = _Ledger(evidence, sorted(names), config.min_meetings)
    planned_anchor: dict[str, int] = {}
    tables: list[Table] = []
    while len(tables) < max_tables:
        free = sorted(name for name, slots in capacity.items() if slots > 0)
        if len(free) < config.seats:
            break
        starved = False
        if config.policy == "uniform":
            bots = stream.sample(free, config.seats)
        else:
            floor = config.fairness_floor * mean_games
            hungry = [name for name in free if games[name] < floor]
            if hungry:
                starved = True
                anchor = min(hungry, key=lambda n: (games[n], n))
                bots = ledger.filled([anchor], free, config.seats)
            elif math.comb(len(free), config.seats) <= EXHAUSTIVE_TABLES:
                bots = ledger.highest(itertools.combinations(free, config.seats))
            else:
                anchor = min(free, key=lambda n: (ledger.total[n] + planned_anchor.get(n, 0), n))
                planned_anchor[anchor] = planned_anchor.get(anchor, 0) + 1
                bots = ledger.filled([anchor], free, config.seats)
            stream.shuffle(bots)
        value = ledger.value(bots)
        ledger.plan(bots)
        for a in bots:
            capacity[a] -= 1
            games[a] += config.matches_per_table
        deal_seed = derive_seed("uno-arena/ladder-deal", seed, round_number, len(tables))
        tables.append(Table(tuple(bots), deal_seed, value, config.duplicate, starved))
    return tables


class _Ledger:
    """One :func:`choose_tables` call's evidence with the tables it planned so far: the meetings graph's components,
    each pair's meetings and planned tables, and its :func:`meeting_value` (computed once)."""

    def __init__(self, evidence: Evidence, names: Sequence[str], min_meetings: int) -> None:
        self.evidence = evidence
        self.min_meetings = min_meetings
        self.planned: dict[tuple[str, str], int] = {}
        self.values: dict[tuple[str, str], float] = {}
        self.parent = {name: name for name in names}
        self.total = dict.fromkeys(names, 0.0)  # blocks each played against the field, planned ones included
        for (a, b), pair in evidence.pairs.items():
            if a in self.parent and b in self.parent and pair.meetings > 0:
                self._join(a, b)
                self.total[a] += pair.meetings
                self.total[b] += pair.meetings

    def _root(self, name: str) -> str:
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def _join(self, a: str, b: str) -> None:
        ra, rb = self._root(a), self._root(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def _pair_value(self, a: str, b: str) -> float:
        key = (min(a, b), max(a, b))
        if key not in self.values:
            self.values[key] = meeting_value(self.evidence.of(*key))
        return self.values[key] / (1 + self.planned.get(key, 0))

    def value(self, bots: Sequence[str]) -> float:
        """The information of a table: the sum of its pairs' :func:`meeting_value` (discounted by planned tables)."""
        return math.fsum(self._pair_value(a, b) for a, b in itertools.combinations(bots, 2))

    def key(self, bots: Sequence[str]) -> tuple[int, float, float, float]:
        """How a table ranks, larger first: components joined, floor meetings it supplies, information, fewest
        meetings."""
        joined = len({self._root(bot) for bot in bots}) - 1
        lacking = 0.0
        met = 0.0
        for a, b in itertools.combinations(bots, 2):
            key = (min(a, b), max(a, b))
            meetings = self.evidence.meetings(*key) + self.planned.get(key, 0)
            lacking += max(0.0, self.min_meetings - meetings)
            met += meetings
        return joined, lacking, self.value(bots), -met

    def plan(self, bots: Sequence[str]) -> None:
        for a, b in itertools.combinations(bots, 2):
            key = (min(a, b), max(a, b))
            self.planned[key] = self.planned.get(key, 0) + 1
            self.total[a] += 1
            self.total[b] += 1
            self._join(a, b)

    def filled(self, seated: list[str], free: Sequence[str], seats: int) -> list[str]:
        """``seated`` filled seat by seat with the free entrant that ranks the table highest."""
        bots = list(seated)
        while len(bots) < seats:
            bots = self.highest([*bots, name] for name in free if name not in bots)
        return bots

    def highest(self, tables: Iterable[Sequence[str]]) -> list[str]:
        """The highest ranked of ``tables`` (the first on ties)."""
        best: Sequence[str] = ()
        best_key: tuple[int, float, float, float] | None = None
        for table in tables:
            key = self.key(table)
            if best_key is None or _above(key, best_key):
                best, best_key = table, key
        return list(best)


def _above(key: tuple[int, float, float, float], other: tuple[int, float, float, float]) -> bool:
    """Whether ``key`` ranks strictly above ``other`` (information compared with a tolerance: rounding never
    decides)."""
    if key[:2] != other[:2]:
        return key[:2] > other[:2]
    if abs(key[2] - other[2]) > 1e-12:
        return key[2] > other[2]
    return key[3] > other[3]
