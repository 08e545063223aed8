"""Matchmaking for a continuous ladder: spend the games where they tell the most about the order of the bots.

:func:`choose_tables` picks the next tables among the entrants that are connected and have a free match slot:

- **Where the ratings are least sure.** Each candidate table is scored by how likely the current ratings are
  to order its pairs wrongly (:func:`table_information`, the sum over its pairs of :func:`pair_information`):
  for bots ``a`` and ``b``, the posterior probability that their true skills are in the other order than
  their ``mu``, ``Phi(-|mu_a - mu_b| / sqrt(sigma_a**2 + sigma_b**2))``. It is largest for bots with wide
  intervals (a new bot: sigma 8.3, every pair with it is a coin toss) and for pairs whose order is unclear
  (close ``mu``); a pair whose order is settled brings next to nothing. Up to :data:`EXHAUSTIVE_TABLES`
  possible tables every one is scored; beyond, a table is built around the entrant with the widest interval
  and filled seat by seat with the entrant that adds the most. A pair already planned in the same call counts
  less each time, so one call spreads its tables.
- **A fairness floor.** An entrant whose games (played plus planned) fall below ``fairness_floor`` times the
  mean of the connected entrants is anchored first, whatever its sigma: every connected bot keeps getting
  games, even one whose place is already clear.
- **Duplicate deals and seat rotation.** A table plays a *block*: one deal (:attr:`Table.deal_seed`) in
  every rotation of its seats (:meth:`Table.matches`), so each bot holds each seat of the same cards once and
  the luck of the deal cancels out. With ``duplicate=False`` a table is one match on a fresh deal. A table where
  a bot may remember a deal (:attr:`Table.remembering`, set by the competition's ladder) plays every rotation
  on a deal of its own: no bot ever meets a deal twice.
- **Capacity and a global rate limit.** A table takes one match slot of each of its bots (its matches are
  played one after another); ``max_tables`` caps the tables of one call, and :class:`RateLimit`, a token
  bucket of matches per second the operator sets, tells the caller how many tables it may start now.

Everything is pure and deterministic: same ratings, entrants and seed, same tables (ties are broken by name;
deal seeds come from SHA-256). :func:`simulate_ladder` plays a whole ladder on a latent-strength model of the
bots (or on any ``play_table`` callable, such as the real engine) and counts the matches until the ladder
orders the bots correctly, for the informative matchmaking and for uniform random tables.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ._rng import SeededStream, derive_seed
from .ratings import Rating, RatingPool
from .results import MatchResult

Policy = Literal["informative", "uniform"]
POLICIES: tuple[Policy, ...] = ("informative", "uniform")
DEFAULT_FAIRNESS_FLOOR = 0.5
EXHAUSTIVE_TABLES = 5000
"""Up to this many possible tables, every one is scored; beyond, tables are built seat by seat."""


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
    """``seats`` per table; ``fairness_floor`` (0 turns it off); ``duplicate`` blocks; ``policy``:
    ``"informative"`` (this module's) or ``"uniform"`` (random tables, the baseline of the simulation)."""

    seats: int = 2
    fairness_floor: float = DEFAULT_FAIRNESS_FLOOR
    duplicate: bool = True
    policy: Policy = "informative"

    def __post_init__(self) -> None:
        if self.seats < 2:
            raise ValueError(f"a table needs at least 2 seats, got {self.seats}")
        if not 0.0 <= self.fairness_floor <= 1.0:
            raise ValueError(f"fairness_floor must be between 0 and 1, got {self.fairness_floor}")
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


def win_probability(a: Rating, b: Rating, beta: float) -> float:
    """The probability that ``a`` finishes ahead of ``b`` in one match under their ratings."""
    c = math.sqrt(2 * beta**2 + a.sigma**2 + b.sigma**2)
    return 0.5 * (1.0 + math.erf((a.mu - b.mu) / (c * math.sqrt(2.0))))


def pair_information(a: Rating, b: Rating) -> float:
    """The probability that the ratings order ``a`` and ``b`` wrongly (see the module docstring): what a game
    between them can still settle."""
    spread = math.sqrt(a.sigma**2 + b.sigma**2)
    return 0.5 * math.erfc(abs(a.mu - b.mu) / (spread * math.sqrt(2.0)))


def table_information(pool: RatingPool, bots: Sequence[str]) -> float:
    """The information of a table: the sum of :func:`pair_information` over its pairs."""
    ratings = [pool.rating(bot) for bot in bots]
    return sum(pair_information(ratings[i], ratings[j])
               for i in range(len(ratings)) for j in range(i + 1, len(ratings)))


def choose_tables(pool: RatingPool, entrants: Iterable[Entrant], config: MatchmakingConfig, *,
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
    planned_pairs: dict[tuple[str, str], int] = {}
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
                bots = _filled(pool, [anchor], free, config.seats, planned_pairs)
            elif math.comb(len(free), config.seats) <= EXHAUSTIVE_TABLES:
                bots = _best_table(pool, free, config.seats, planned_pairs)
            else:
                anchor = max(free, key=lambda n: (pool.rating(n).sigma ** 2 / (1 + planned_anchor.get(n, 0)),
                                                  _reverse(n)))
                planned_anchor[anchor] = planned_anchor.get(anchor, 0) + 1
                bots = _filled(pool, [anchor], free, config.seats, planned_pairs)
            stream.shuffle(bots)
        for i, a in enumerate(bots):
            capacity[a] -= 1
            games[a] += config.matches_per_table
            for b in bots[i + 1:]:
                key = (min(a, b), max(a, b))
                planned_pairs[key] = planned_pairs.get(key, 0) + 1
        deal_seed = derive_seed("uno-arena/ladder-deal", seed, round_number, len(tables))
        tables.append(Table(tuple(bots), deal_seed, table_information(pool, bots), config.duplicate, starved))
    return tables


def _gain(pool: RatingPool, seated: Sequence[str], newcomer: str, planned: Mapping[tuple[str, str], int]) -> float:
    """The information ``newcomer`` adds to a table, each pair discounted by the tables already planned for it
    in this call (so one call spreads its tables)."""
    rating = pool.rating(newcomer)
    total = 0.0
    for bot in seated:
        times = planned.get((min(bot, newcomer), max(bot, newcomer)), 0)
        total += pair_information(pool.rating(bot), rating) / (1 + times)
    return total


def _filled(pool: RatingPool, seated: list[str], free: Sequence[str], seats: int,
            planned: Mapping[tuple[str, str], int]) -> list[str]:
    """``seated`` filled seat by seat with the free entrant that adds the most information."""
    bots = list(seated)
    while len(bots) < seats:
        rest = [n for n in free if n not in bots]
        bots.append(max(rest, key=lambda n: (_gain(pool, bots, n, planned), _reverse(n))))
    return bots


def _best_table(pool: RatingPool, free: Sequence[str], seats: int,
                planned: Mapping[tuple[str, str], int]) -> list[str]:
    """The table of the most information among every choice of ``seats`` of the ``free`` entrants (the first
    in name order on ties)."""
    best: tuple[str, ...] = ()
    best_gain = -1.0
    for table in itertools.combinations(free, seats):
        gain = _table_gain(pool, table, planned)
        if gain > best_gain + 1e-12:
            best, best_gain = table, gain
    return list(best)


def _table_gain(pool: RatingPool, bots: Sequence[str], planned: Mapping[tuple[str, str], int]) -> float:
    return sum(_gain(pool, bots[:i], bot, planned) for i, bot in enumerate(bots))


def _reverse(name: str) -> tuple[int, ...]:
    """A key that makes ``max`` prefer the alphabetically first name on ties."""
    return tuple(-ord(ch) for ch in name)


# --- simulation -------------------------------------------------------------------------------------------


PlayTable = Callable[[Table, str], list[MatchResult]]
"""Plays one table and returns its results; the second argument is a unique id prefix for the match ids."""


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


@dataclass(frozen=True)
class LadderTrace:
    """What :func:`simulate_ladder` saw: matches played, and after how many the order by ``mu`` became correct
    for good (``None``: not correct at the end)."""

    matches: int
    ordered_after: int | None
    pool: RatingPool = field(compare=False)
    games: Mapping[str, int] = field(default_factory=dict, compare=False)


def order_is_correct(pool: RatingPool, true_order: Sequence[str]) -> bool:
    """Whether ranking by ``mu`` (highest first) gives ``true_order`` (strongest first)."""
    ranked = sorted(true_order, key=lambda bot: -pool.rating(bot).mu)
    return ranked == list(true_order)


def simulate_ladder(true_order: Sequence[str], play_table: PlayTable, config: MatchmakingConfig, *,
                    max_matches: int, seed: int, tables_per_round: int = 1, capacity: int = 1,
                    hold: int | None = None) -> LadderTrace:
    """Run a ladder among ``true_order`` (strongest first, all connected with ``capacity`` slots): choose tables,
    play them, update the ratings, repeat. The order by ``mu`` is checked each time the matches played reach a
    multiple of ``config.seats`` (a duplicate block's size, so blocks and single matches are checked alike).

    With ``hold`` (the criterion fixed before the run), the ladder stops as soon as the order has been right at
    every check for ``hold`` matches: ``ordered_after`` is the match count at which it became right that last
    time, ``None`` when ``max_matches`` came first. Without ``hold`` it plays ``max_matches`` and
    ``ordered_after`` is when the order became right and stayed right up to the end."""
    pool = RatingPool().with_bots(true_order)
    games = {bot: 0 for bot in true_order}
    played = 0
    ordered_since: int | None = None
    round_number = 0
    while played < max_matches:
        entrants = [Entrant(bot, capacity, games[bot]) for bot in true_order]
        tables = choose_tables(pool, entrants, config, max_tables=tables_per_round, seed=seed,
                               round_number=round_number)
        if not tables:
            raise ValueError(f"no table possible: {len(true_order)} bots for {config.seats} seats")
        results: list[MatchResult] = []
        for index, table in enumerate(tables):
            results.extend(play_table(table, f"r{round_number:06d}-t{index}"))
        pool = pool.updated(results)
        for result in results:
            for bot in result.seats:
                games[bot] += 1
        played += len(results)
        round_number += 1
        if played % config.seats:
            continue
        if order_is_correct(pool, true_order):
            ordered_since = played if ordered_since is None else ordered_since
            if hold is not None and played - ordered_since >= hold:
                return LadderTrace(played, ordered_since, pool, games)
        else:
            ordered_since = None
    return LadderTrace(played, None if hold is not None else ordered_since, pool, games)


@dataclass(frozen=True)
class PolicyFigures:
    """How fast one matchmaking ordered the bots over several seeded ladders: matches until the order was
    correct for good, per seed (``max_matches`` for a ladder never ordered), and their mean and median."""

    label: str
    matches: tuple[int, ...]
    unordered: int

    @property
    def mean(self) -> float:
        return sum(self.matches) / len(self.matches)

    @property
    def median(self) -> float:
        ordered = sorted(self.matches)
        mid = len(ordered) // 2
        return float(ordered[mid]) if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2.0


LADDER_CONTENDERS: tuple[tuple[str, Policy, bool], ...] = (
    ("informative, duplicate blocks", "informative", True),
    ("uniform random tables, duplicate blocks", "uniform", True),
    ("informative, one match per table", "informative", False),
    ("uniform random tables, one match each", "uniform", False),
)
"""What :func:`compare_matchmaking` runs: label, policy, duplicate."""


def compare_matchmaking(bots: int, seats: int, *, gap: float, max_matches: int, seeds: Iterable[int],
                        fairness_floor: float = DEFAULT_FAIRNESS_FLOOR, deal_luck: float = 1.0,
                        hold: int | None = None,
                        contenders: Sequence[tuple[str, Policy, bool]] = LADDER_CONTENDERS) -> list[PolicyFigures]:
    """Ladders of ``bots`` bots with latent strengths ``0, -gap, -2*gap, ...`` (:func:`latent_player` with
    ``deal_luck``), one per seed and per entry of ``contenders`` (label, policy, duplicate): the matches each
    needed to order the bots (for ``hold`` matches, see :func:`simulate_ladder`; without, for good)."""
    names = [f"bot{i:02d}" for i in range(bots)]
    strengths = {name: -i * gap for i, name in enumerate(names)}
    seed_list = list(seeds)
    figures = []
    for label, policy, duplicate in contenders:
        config = MatchmakingConfig(seats=seats, fairness_floor=fairness_floor, duplicate=duplicate, policy=policy)
        counts = []
        unordered = 0
        for seed in seed_list:
            trace = simulate_ladder(names, latent_player(strengths, seed, deal_luck=deal_luck), config,
                                    max_matches=max_matches, seed=seed, hold=hold)
            unordered += trace.ordered_after is None
            counts.append(trace.matches if trace.ordered_after is None else trace.ordered_after)
        figures.append(PolicyFigures(label, tuple(counts), unordered))
    return figures
