"""Matchmaking for a continuous ladder: spend the blocks where they add to the ranking the ladder publishes.

The ladder publishes the batch Plackett-Luce ranking of its current entries
(:mod:`arena.tournament.stats.plackett_luce`:
rank, interval, tiers). :func:`choose_tables` picks the next tables among the entrants that are connected and have
a free match slot, from :class:`Evidence` about that ranking (:func:`evidence_of`: for every pair of entrants, the
batch fit's rating difference, its standard error and the blocks in which the pair met directly). A candidate table
is ranked by, in this order:

1. **Connection.** How many separate components of the meetings graph (entrants joined by a direct meeting) it
   joins: a ranking over two components that never met, directly or through others, orders nothing across them.
2. **A floor of direct meetings.** How many meetings its pairs still lack below ``min_meetings`` blocks each
   (:attr:`MatchmakingConfig.min_meetings`): every pair of current entrants meets at least that often before
   information takes over, so no pair is ranked on indirect evidence alone.
3. **Information.** The sum over its pairs of :func:`meeting_value`: the expected reduction, per block over the
   best of a few horizons, of the probability that the published verdict on the pair is wrong (two bots that
   differ not told apart, or told apart in the wrong order). It reads the pair's difference ``d`` and standard
   error ``s`` under a prior that gives a pair even odds of being equal (:data:`PRIOR_EQUAL`: ladders hold versions
   and copies of one bot) and otherwise a difference of scale :data:`GAP_SCALE`. Only a pair that truly differs can
   get its verdict wrong this way, and the chance that one whose ``d`` is within noise of 0 differs at all shrinks
   like ``s``: two copies of one bot, after many meetings, are worth next to nothing, while a pair whose verdict is
   still open keeps its value until it is settled. A pair already planned in the same call counts less each time
   (``1 / (1 + planned)``), so one call spreads its tables.
4. **Fewest meetings**, then names: where nothing is left to learn the ladder spreads its blocks evenly.

The fairness floor, the duplicate blocks, capacity and the rate limit stand apart from the choice:

- **A fairness floor.** An entrant whose games (played plus planned) fall below ``fairness_floor`` times the
  mean of the connected entrants is anchored first: every connected bot keeps getting games.
- **Duplicate deals and seat rotation.** A table plays a *block*: one deal (:attr:`Table.deal_seed`) in
  every rotation of its seats (:meth:`Table.matches`), so each bot holds each seat of the same cards once and
  the luck of the deal cancels out. With ``duplicate=False`` a table is one match on a fresh deal. A table where
  a bot may remember a deal (:attr:`Table.remembering`, set by the competition's ladder) plays every rotation
  on a deal of its own: no bot ever meets a deal twice.
- **Capacity and a global rate limit.** A table takes one match slot of each of its bots (its matches are
  played one after another); ``max_tables`` caps the tables of one call, and :class:`RateLimit`, a token
  bucket of matches per second the operator sets, tells the caller how many tables it may start now.

Up to :data:`EXHAUSTIVE_TABLES` possible tables every one is ranked; beyond, a table is built around the entrant
with the fewest meetings and filled seat by seat with the entrant that ranks it highest. Everything is pure and
deterministic: same evidence, entrants and seed, same tables (ties are broken by name; deal seeds come from
SHA-256). The ladder benchmark (docs/benchmarks.md) measures the policy against uniform pairing on
recorded UNO games.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ._rng import SeededStream, derive_seed
from .results import MatchResult, dedupe
from .stats.intervals import t_quantile
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
"""The prior standard deviation of a difference between unequal entrants, in batch rating (log-strength) units: a
gap of 1 is odds of e to 1 between the two. UNO's built-in bots span about 5 units at 500 points; with a scale of 1
the prior shrank heuristic against random so far that their settled order still looked open, and the ladder kept
playing them (the ladder benchmark, docs/benchmarks.md)."""
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
    """One table the ladder plays: its bots in the seat order of the first match, the deal seed, and the
    information it was chosen for."""

    bots: tuple[str, ...]
    deal_seed: int
    information: float = 0.0
    duplicate: bool = True
    starved: bool = False
    """Whether its anchor was seated by the fairness floor rather than for information."""
    remembering: bool = False
    """Whether a bot at the table may remember what it saw from one match to the next (a remote bot that is not a
    fresh sandbox): the rotations then each get a deal of their own, since a later rotation of one deal would
    show such a bot its opponents' dealt hands."""

    def matches(self) -> list[tuple[tuple[str, ...], int]]:
        """The table's matches as ``(seats, seed)``: every rotation of the seats on one deal (duplicate; each on a
        deal of its own where a bot may remember), else one match."""
        if not self.duplicate:
            return [(self.bots, self.deal_seed)]
        k = len(self.bots)
        return [(tuple(self.bots[(seat + shift) % k] for seat in range(k)),
                 derive_seed("uno-arena/ladder-rotation", self.deal_seed, shift) if self.remembering and shift
                 else self.deal_seed)
                for shift in range(k)]


@dataclass(frozen=True)
class MatchmakingConfig:
    """``seats`` per table; ``fairness_floor`` (0 turns it off); ``duplicate`` blocks; ``min_meetings``: the
    blocks every pair meets directly before information chooses (0 turns it off); ``policy``: ``"informative"``
    (this module's) or ``"uniform"`` (random tables, the ladder benchmark's baseline)."""

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
    """A token bucket of matches: ``per_second`` refill, at most ``burst`` saved up. Pure: the caller passes
    the time (any monotonic clock in seconds)."""

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
    standard error, and the blocks in which the two met directly."""

    gap: float = 0.0
    error: float = GAP_SCALE
    meetings: float = 0.0

    def reversed(self) -> PairEvidence:
        return replace(self, gap=-self.gap)


@dataclass(frozen=True)
class Evidence:
    """:class:`PairEvidence` by pair of bots (the key in name order); a pair not listed never met and is as
    uncertain as the prior (:data:`GAP_SCALE`)."""

    pairs: Mapping[tuple[str, str], PairEvidence] = field(default_factory=dict)

    def of(self, a: str, b: str) -> PairEvidence:
        """The evidence of ``a`` against ``b`` (``gap`` is ``a``'s rating less ``b``'s)."""
        if a <= b:
            return self.pairs.get((a, b), PairEvidence())
        return self.pairs.get((b, a), PairEvidence()).reversed()

    def meetings(self, a: str, b: str) -> float:
        return self.of(a, b).meetings


@dataclass
class EvidenceTally:
    """The running sums behind :func:`evidence_of`: the stages of every result added (by bot name) and the matches
    each pair shared. Both only grow as results come, so a ladder adds each finished block once
    (:func:`arena.service.competitions.ladder_round`) instead of reading every block's results on every round."""

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
    """The evidence of the batch ranking over ``results`` (a ladder's current results, each match once) for every
    pair of ``bots``: the Plackett-Luce fit's differences with their posterior standard errors (Laplace's
    approximation: the fit without its bootstrap, cheap enough for every round), and the direct meetings, in blocks
    of ``matches_per_block`` matches."""
    return EvidenceTally().add(dedupe(results)).evidence(bots, matches_per_block)


def meeting_value(pair: PairEvidence, confidence: float = 0.95) -> float:
    """The expected reduction, per block between the two, of the probability that the published verdict on
    the pair is wrong (see the module docstring). Two bots whose true difference is ``delta != 0`` should be told
    apart in the right order: the ranking does so when ``|gap| / error`` passes Student's t at ``confidence`` with
    the direct meetings less one as degrees of freedom (the tiers' test, without Holm's correction), so it misses
    with probability ``P(Z > |delta| / error - t)``. ``k`` more blocks take the error to ``error * sqrt(n / (n + k))``
    with ``n`` the direct meetings (at least 1: what tells two bots apart is mostly their direct meetings) and the
    degrees of freedom up by ``k``. The reduction is averaged over what ``delta`` may be given the evidence (its
    posterior under the prior :data:`GAP_SCALE`) and weighted by the probability that the two differ at all
    (against :data:`PRIOR_EQUAL`): for two equal bots the verdict "not told apart" is right already, and no block
    makes it more so. The value is the best reduction *per block* over the horizons :data:`LOOKAHEAD` (Frazier and
    Powell's KG(*)): a close pair that one block cannot settle but ten can would be worth next to nothing one block
    ahead, and was starved at its floor (docs/benchmarks.md, the ladder)."""
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
        return math.fsum(w * _upper(abs(mean + spread * t) / error - crit)
                         for t, w in zip(_GRID, _GRID_WEIGHTS, strict=True)) / _GRID_TOTAL

    now = miss(math.sqrt(s2), t_quantile(confidence, max(1, n - 1)))
    return p_differ * max(max(0.0, now - miss(math.sqrt(s2 * n / (n + k)), t_quantile(confidence, n - 1 + k))) / k
                          for k in LOOKAHEAD)


def _normal_density(x: float, variance: float) -> float:
    return math.exp(-x * x / (2.0 * variance)) / math.sqrt(2.0 * math.pi * variance)


def _upper(z: float) -> float:
    """``P(Z > z)`` for a standard normal ``Z``."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def choose_tables(evidence: Evidence, entrants: Iterable[Entrant], config: MatchmakingConfig, *,
                  max_tables: int, seed: int, round_number: int = 0) -> list[Table]:
    """The next tables (at most ``max_tables``) among ``entrants`` (see the module docstring). ``seed`` and
    ``round_number`` (a counter the caller keeps, one per call) make the deal seeds and, for the uniform
    policy, the random tables."""
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
                bots = ledger.best(free, config.seats)
            else:
                anchor = min(free, key=lambda n: (ledger.met(n) + planned_anchor.get(n, 0), n))
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
    """The evidence of one :func:`choose_tables` call with the tables it has planned so far: the meetings graph's
    components, each pair's meetings and planned tables, and each pair's :func:`meeting_value` (computed once)."""

    def __init__(self, evidence: Evidence, names: Sequence[str], min_meetings: int) -> None:
        self.evidence = evidence
        self.min_meetings = min_meetings
        self.planned: dict[tuple[str, str], int] = {}
        self.values: dict[tuple[str, str], float] = {}
        self.parent = {name: name for name in names}
        self.total = dict.fromkeys(names, 0.0)
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

    def met(self, name: str) -> float:
        """The blocks ``name`` played against the field (each pair's meetings, planned tables included)."""
        return self.total[name]

    def _pair_value(self, a: str, b: str) -> float:
        key = (min(a, b), max(a, b))
        if key not in self.values:
            self.values[key] = meeting_value(self.evidence.of(*key))
        return self.values[key] / (1 + self.planned.get(key, 0))

    def value(self, bots: Sequence[str]) -> float:
        """The information of a table: the sum of its pairs' :func:`meeting_value` (discounted by planned tables)."""
        return math.fsum(self._pair_value(a, b) for a, b in itertools.combinations(bots, 2))

    def key(self, bots: Sequence[str]) -> tuple[int, float, float, float]:
        """How a table ranks (see the module docstring): components joined, floor meetings it supplies, its
        information, fewest meetings; larger is better."""
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

    def best(self, free: Sequence[str], seats: int) -> list[str]:
        """The highest ranked table among every choice of ``seats`` of the ``free`` entrants (the first in name
        order on ties)."""
        best: tuple[str, ...] = ()
        best_key: tuple[int, float, float, float] | None = None
        for table in itertools.combinations(free, seats):
            key = self.key(table)
            if best_key is None or _above(key, best_key):
                best, best_key = table, key
        return list(best)

    def filled(self, seated: list[str], free: Sequence[str], seats: int) -> list[str]:
        """``seated`` filled seat by seat with the free entrant that ranks the table highest."""
        bots = list(seated)
        while len(bots) < seats:
            choice: str | None = None
            choice_key: tuple[int, float, float, float] | None = None
            for name in free:
                if name in bots:
                    continue
                key = self.key([*bots, name])
                if choice_key is None or _above(key, choice_key):
                    choice, choice_key = name, key
            assert choice is not None
            bots.append(choice)
        return bots


def _above(key: tuple[int, float, float, float], other: tuple[int, float, float, float]) -> bool:
    """Whether ``key`` ranks strictly above ``other`` (the information compared with a tolerance, so rounding
    never decides)."""
    if key[:2] != other[:2]:
        return key[:2] > other[:2]
    if abs(key[2] - other[2]) > 1e-12:
        return key[2] > other[2]
    return key[3] > other[3]
