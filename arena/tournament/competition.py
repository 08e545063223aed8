"""Competitions: a rating pool with its rules and entrants, and a ladder that keeps scheduling rated blocks (pure).

While a competition is active, every ladder round (:func:`plan_round`) takes its connected entrants: a bot that
connects with a new version starts a new :class:`Entry` from nothing once its old version has no block in flight
(the retired entry keeps its rating); :func:`arena.tournament.matchmaking.choose_tables` picks the tables, within
``blocks_per_bot``, the bots' offered capacity, ``max_blocks`` and the rate limit; each table becomes a block, a
small tournament (:func:`block_spec`) rated in the competition's own pool, run by the tournament machinery. The
service (:mod:`arena.service.competitions`) reads and writes Redis; docs/organizers.md (competitions) has the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from arena.engine.rules import Rules

from ._rng import derive_seed
from .limits import MAX_DECISION_DEADLINE_MS, MIN_DECISION_DEADLINE_MS
from .matchmaking import Entrant, Evidence, MatchmakingConfig, RateLimit, Table, choose_tables
from .results import MatchResult
from .spec import DEFAULT_DECISION_DEADLINE_MS, TournamentSpec, normalize_rules, stored_attributes, stored_dict
from .stats.ratings import RatingPool

STORED_KEYS = {"decision_deadline_ms": "deadline_ms"}
"""The attributes stored under another (older) key by :meth:`CompetitionSpec.to_dict` (the data on disk stays)."""
POOL_PREFIX = "competition:"
"""A competition's rating pool is ``POOL_PREFIX + competition id``."""
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$")
MAX_ENTRANTS = 1000


@dataclass(frozen=True)
class CompetitionSpec:
    """What a competition is: its id, rules, table size, entrants (empty: every registered bot), its pace."""

    competition_id: str
    variant: str = "flip"
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    seats: int = 2
    entrants: tuple[str, ...] = ()
    """The bots that may play (compared without case); empty: open to every registered bot."""
    decision_deadline_ms: int = DEFAULT_DECISION_DEADLINE_MS
    """Stored as ``deadline_ms`` (:data:`STORED_KEYS`)."""
    matches_per_minute: float = 60.0
    """The global rate limit of the ladder (a token bucket; bursts of one minute's worth)."""
    max_blocks: int = 8
    """Blocks in flight at most (each is ``seats`` matches)."""
    blocks_per_bot: int = 1
    """Blocks one bot plays at once at most."""
    fairness_floor: float = 0.5
    seed: int = 0
    bots_without_memory: bool = False
    """Only bots that keep nothing from one match to the next play (:attr:`Connected.without_memory`): the bot
    host's bots, each match in a fresh sandbox of its own, and the built-in bots; so every table plays its
    rotations on one duplicate deal (elsewhere a table with a remote bot deals each rotation afresh)."""

    def __post_init__(self) -> None:
        if not isinstance(self.competition_id, str) or not _ID_RE.match(self.competition_id):
            raise ValueError("competition id must be 1-48 letters, digits, '_' or '-' (starting with a letter or "
                             f"digit), got {self.competition_id!r}")
        if self.variant not in ("flip", "classic"):
            raise ValueError(f"variant must be 'flip' or 'classic', got {self.variant!r}")
        normalize_rules(self.variant, self.options)
        if not 2 <= self.seats <= 10:
            raise ValueError(f"seats must be 2 to 10, got {self.seats}")
        if len(self.entrants) > MAX_ENTRANTS:
            raise ValueError(f"at most {MAX_ENTRANTS} entrants, got {len(self.entrants)}")
        folded = [name.casefold() for name in self.entrants]
        if len(set(folded)) != len(folded):
            raise ValueError("an entrant is listed twice (names are compared without case)")
        if self.entrants and len(self.entrants) < self.seats:
            raise ValueError(f"{len(self.entrants)} entrants cannot fill a table of {self.seats}")
        if not MIN_DECISION_DEADLINE_MS <= self.decision_deadline_ms <= MAX_DECISION_DEADLINE_MS:
            raise ValueError(f"deadline_ms must be {MIN_DECISION_DEADLINE_MS} to {MAX_DECISION_DEADLINE_MS}, "
                             f"got {self.decision_deadline_ms}")
        if not 0 < self.matches_per_minute <= 100_000:
            raise ValueError(f"matches_per_minute must be above 0 and at most 100000, got {self.matches_per_minute}")
        if not 1 <= self.max_blocks <= 10_000 or not 1 <= self.blocks_per_bot <= 100:
            raise ValueError("max_blocks must be 1 to 10000 and blocks_per_bot 1 to 100")
        if not 0.0 <= self.fairness_floor <= 1.0:
            raise ValueError(f"fairness_floor must be between 0 and 1, got {self.fairness_floor}")
        object.__setattr__(self, "options", dict(self.options))
        object.__setattr__(self, "entrants", tuple(self.entrants))

    @property
    def pool(self) -> str:
        """The competition's own rating pool (its leaderboard)."""
        return f"{POOL_PREFIX}{self.competition_id}"

    @property
    def rules(self) -> Rules:
        return Rules.from_dict(normalize_rules(self.variant, self.options))

    def admits(self, bot: str) -> bool:
        return not self.entrants or bot.casefold() in {name.casefold() for name in self.entrants}

    def to_dict(self) -> dict[str, Any]:
        return stored_dict(self, STORED_KEYS) | {"options": dict(self.options), "entrants": list(self.entrants)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CompetitionSpec:
        """Inverse of :meth:`to_dict` (its stored keys, :data:`STORED_KEYS`); unknown keys raise ``ValueError``."""
        values = stored_attributes(cls, data, STORED_KEYS, "competition")
        values["entrants"] = tuple(values.get("entrants") or ())
        return cls(**values)


@dataclass(frozen=True)
class Entry:
    """One version of one bot in the ladder: its rating lives in the pool under the bot's name while the entry is
    current; a retired entry keeps the rating it ended with."""

    bot: str
    version: str
    started_at: float
    retired_at: float | None = None
    mu: float | None = None
    sigma: float | None = None
    matches: int = 0
    first_block: int = 0
    """The number of the first block this entry may play in (every block before it played an older version, or
    not this bot); 0 for an entry stored before the ladder kept it (then every block counts as its own)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Entry:
        return cls(bot=str(data["bot"]), version=str(data["version"]), started_at=float(data["started_at"]),
                   retired_at=None if data.get("retired_at") is None else float(data["retired_at"]),
                   mu=None if data.get("mu") is None else float(data["mu"]),
                   sigma=None if data.get("sigma") is None else float(data["sigma"]),
                   matches=int(data.get("matches", 0)), first_block=int(data.get("first_block", 0)))


@dataclass(frozen=True)
class Connected:
    """An entrant connected now: the version of its latest Hello, the blocks it plays now, and the matches at once
    its Hello offered (``max_concurrent_matches``; a block plays its matches one after another)."""

    bot: str
    version: str
    busy_blocks: int = 0
    capacity: int = 1_000_000
    without_memory: bool = False
    """It keeps nothing from one match to the next: a built-in bot, or a bot whose session is a bot host's fresh
    sandbox (one match, then a new process)."""


@dataclass(frozen=True)
class Round:
    """What one ladder round decided: the tables to start, the entries it retired and started, the new pool
    (old versions' ratings forgotten) and the rate limit after the tables it starts."""

    tables: list[Table]
    retired: list[Entry]
    started: list[Entry]
    pool: RatingPool
    rate: RateLimit


def plan_round(spec: CompetitionSpec, pool: RatingPool, current: Mapping[str, Entry], connected: Sequence[Connected],
               blocks_in_flight: int, rate: RateLimit, *, now: float, round_number: int, next_block: int = 0,
               evidence: Evidence | None = None) -> Round:
    """One ladder round of an active competition. ``current``: each bot's current entry; ``now``: wall-clock
    seconds (entries, rate limit); ``next_block``: the number the round's first block will take; ``evidence``: the
    published ranking's evidence over :func:`current_results` (none: no pair has met)."""
    retired: list[Entry] = []
    started: list[Entry] = []
    entrants: list[Entrant] = []
    may_remember = {bot.bot for bot in connected if not bot.without_memory}
    for bot in sorted(connected, key=lambda c: c.bot):
        if not spec.admits(bot.bot) or (spec.bots_without_memory and not bot.without_memory):
            continue
        entry = current.get(bot.bot)
        if entry is not None and entry.version != bot.version:
            if bot.busy_blocks:
                continue  # its old version still plays: switch once its blocks are done
            rating = pool.rating(bot.bot)
            retired.append(replace(entry, retired_at=now, mu=rating.mu, sigma=rating.sigma, matches=rating.matches))
            pool = replace(pool, ratings={b: r for b, r in pool.ratings.items() if b != bot.bot}, tallies={},
                           counted=(), seat_counts=())
            entry = None
        if entry is None:
            started.append(Entry(bot.bot, bot.version, now, first_block=next_block))
        slots = max(0, min(spec.blocks_per_bot, bot.capacity) - bot.busy_blocks)
        entrants.append(Entrant(bot.bot, slots, pool.rating(bot.bot).matches))
    config = MatchmakingConfig(seats=spec.seats, fairness_floor=spec.fairness_floor, duplicate=True)
    allowed = min(rate.tables_allowed(now, config.matches_per_table), max(0, spec.max_blocks - blocks_in_flight))
    tables = [replace(table, remembering=not may_remember.isdisjoint(table.bots))
              for table in choose_tables(evidence or Evidence(), entrants, config, max_tables=allowed, seed=spec.seed,
                                         round_number=round_number)]
    if tables:
        rate = rate.spent(now, len(tables) * config.matches_per_table)
    return Round(tables, retired, started, pool, rate)


def new_rate_limit(spec: CompetitionSpec) -> RateLimit:
    """The ladder's token bucket: ``matches_per_minute``, bursts of a minute's worth (at least one block)."""
    return RateLimit(per_second=spec.matches_per_minute / 60.0, burst=max(float(spec.seats), spec.matches_per_minute))


def block_spec(spec: CompetitionSpec, table: Table, number: int) -> TournamentSpec:
    """The small tournament that plays one table: its bots in every seat rotation, rated in the competition's pool,
    on one deal unless a bot may remember (:attr:`Table.remembering`: then a deal per rotation)."""
    return TournamentSpec(
        tournament_id=block_id(spec.competition_id, number), participants=tuple(sorted(table.bots)),
        variant=spec.variant, options=spec.options, seats=spec.seats,
        deals=spec.seats if table.remembering else 1, duplicate=not table.remembering,
        seed=derive_seed("uno-arena/ladder-block", table.deal_seed, number) % (2**63),
        decision_deadline_ms=spec.decision_deadline_ms, pool=spec.pool)


def block_id(competition_id: str, number: int) -> str:
    return f"{competition_id}.b{number:07d}"


def competition_of(pool_id: str) -> str:
    """The competition whose pool ``pool_id`` is (empty for a rules pool)."""
    return pool_id[len(POOL_PREFIX):] if pool_id.startswith(POOL_PREFIX) else ""


def block_number(tournament_id: str) -> int | None:
    """The number of a block from its id (:func:`block_id`); None for another tournament."""
    _, sep, number = tournament_id.rpartition(".b")
    return int(number) if sep and number.isdigit() else None


def current_results(blocks: Iterable[tuple[str, Iterable[MatchResult]]],
                    current: Mapping[str, Entry]) -> list[MatchResult]:
    """The results the ladder's batch rating rests on: those of the blocks (``(tournament id, results)``) in which
    every seat was played by its bot's current entry (block number at least the entry's :attr:`Entry.first_block`),
    so each entry is rated current version against current version."""
    first = {bot.casefold(): entry.first_block for bot, entry in current.items()}
    kept: list[MatchResult] = []
    for tournament_id, results in blocks:
        number = block_number(tournament_id)
        for result in results:
            if number is not None and all(first.get(seat.casefold(), 0) <= number for seat in result.seats):
                kept.append(result)
    return kept
