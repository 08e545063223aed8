"""Running competitions: create, pause, resume, close, the ladder's rounds, standings. Every scheduler tick runs one
ladder round per active competition under its lock (:func:`ladder_tick`): it reads who is connected, lets the pure
:func:`arena.tournament.competition.plan_round` decide, and starts each table as a block tournament, so blocks take
the road of every tournament (lost ones re-sent, nothing counted twice).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace

from arena.store import Store, UnknownTournament
from arena.store.competition_store import UnknownCompetition
from arena.store.keys import bot_key
from arena.store.result_store import BUILTIN_VERSION
from arena.tournament import Rating, RatingPool
from arena.tournament.competition import (
    CompetitionSpec,
    Connected,
    Entry,
    block_spec,
    current_results,
    new_rate_limit,
    plan_round,
)
from arena.tournament.matchmaking import Evidence, EvidenceTally, RateLimit
from arena.tournament.stats.plackett_luce import BatchRating
from arena.tournament.stats.verdicts import Verdicts
from arena.tournament.status import ACTIVE_TOURNAMENT, CompetitionStatus

from .leaderboards import pool_leaderboard
from .lifecycle import Enqueuer, create_tournament, spec_of
from .matches import builtin_kind

log = logging.getLogger(__name__)

ROUND_LOCK_S = 30.0


def create_competition(store: Store, spec: CompetitionSpec) -> None:
    """Record a new, active competition (``DuplicateCompetition`` when the id is taken; ``UnknownBot`` for an
    entrant that is neither registered nor built in)."""
    for name in spec.entrants:
        bot_key(name)  # a plain bot name (a tagged built-in such as random#2 cannot enter): InvalidName
        if builtin_kind(name) is None:
            store.bots.get(name)  # raises UnknownBot
    store.competitions.create(spec.competition_id, spec.to_dict())


def competition_spec(store: Store, competition_id: str) -> CompetitionSpec:
    return CompetitionSpec.from_dict(store.competitions.get(competition_id).spec)


def bots_without_memory(store: Store, bots: Iterable[str]) -> set[str]:
    """Of ``bots``, those that a competition not closed asks to play without memory (the bot host runs each of their
    matches in a fresh sandbox)."""
    wanted: list[CompetitionSpec] = []
    for competition_id in store.competitions.ids():
        try:
            record = store.competitions.get(competition_id)
        except UnknownCompetition:
            continue
        spec = CompetitionSpec.from_dict(record.spec)
        if spec.bots_without_memory and record.status is not CompetitionStatus.CLOSED:
            wanted.append(spec)
    return {bot for bot in bots if any(spec.admits(bot) for spec in wanted)}


@dataclass(frozen=True)
class RoundOutcome:
    competition_id: str
    status: CompetitionStatus
    started: list[str]
    """Block tournament ids started."""


def ladder_tick(store: Store, enqueue: Enqueuer, now: float | None = None) -> list[RoundOutcome]:
    """One ladder round of every active competition (a failing one is logged, the others go on)."""
    stamp = time.time() if now is None else now
    out = []
    for cid in store.competitions.ids():
        try:
            outcome = ladder_round(store, enqueue, cid, now=stamp)
        except Exception:
            log.exception("ladder round of competition %s failed; the next tick tries again", cid)
            continue
        if outcome is not None:
            out.append(outcome)
    return out


def ladder_round(store: Store, enqueue: Enqueuer, competition_id: str, *, now: float) -> RoundOutcome | None:
    """Plan and start one round of an active competition; None when it is not active or another round runs."""
    record = store.competitions.get(competition_id)
    if record.status is not CompetitionStatus.ACTIVE:
        return None
    token = store.competitions.lock(competition_id, ROUND_LOCK_S)
    if token is None:
        return None
    try:
        spec = CompetitionSpec.from_dict(record.spec)
        busy, in_flight = _blocks_in_flight(store, competition_id)
        connected = _connected(store, spec, busy)
        current = store.competitions.entries(competition_id)
        pool = store.ratings.get(spec.pool) or RatingPool(key=spec.pool)
        rate = RateLimit(**record.rate) if record.rate else new_rate_limit(spec)
        evidence = (_evidence(store, spec, pool, current, record.created_at)
                    if in_flight < spec.max_blocks and connected else None)
        planned = plan_round(spec, pool, current, connected, in_flight, rate, now=now,
                             round_number=store.competitions.next_round(competition_id),
                             next_block=store.competitions.get(competition_id).blocks + 1, evidence=evidence)
        if planned.retired:
            gone = {entry.bot for entry in planned.retired}
            store.ratings.update(spec.pool, lambda pool: (pool or RatingPool(key=spec.pool)).without(gone))
        store.competitions.save_entries(competition_id, planned.started, planned.retired)
        started = []
        if planned.tables:
            first = store.competitions.add_blocks(competition_id, len(planned.tables))
            for number, table in enumerate(planned.tables, first):
                tspec = block_spec(spec, table, number)
                create_tournament(store, tspec, idempotency_key=tspec.tournament_id)
                store.competitions.block_started(competition_id, tspec.tournament_id)
                enqueue.start(tspec.tournament_id)
                started.append(tspec.tournament_id)
        store.competitions.save_rate(competition_id, asdict(planned.rate))
        if started or planned.started or planned.retired:
            log.info("competition %s: started %d block(s) %s; new entries %s; retired %s", competition_id,
                     len(started), started, [f"{e.bot}@{e.version}" for e in planned.started],
                     [f"{e.bot}@{e.version}" for e in planned.retired])
        return RoundOutcome(competition_id, record.status, started)
    finally:
        store.competitions.unlock(competition_id, token)


@dataclass
class _LadderTally:
    """The blocks of one competition already added to its evidence, for the entries they were added under."""

    created_at: float
    entries: tuple[tuple[str, int], ...]
    added: set[str] = field(default_factory=set)
    tally: EvidenceTally = field(default_factory=EvidenceTally)


_TALLIES: dict[str, _LadderTally] = {}
"""Per competition, in this process: a ladder round reads only the blocks finished since its last round."""


def _evidence(store: Store, spec: CompetitionSpec, pool: RatingPool, current: dict[str, Entry],
              created_at: float) -> Evidence:
    """What the ladder's published ranking knows of each pair of current entries, for its matchmaking (the batch fit
    over the current entries' blocks, without its bootstrap). A finished block's results are read once and kept as
    running sums; a new entry, a block gone from the pool or a competition created again starts them again."""
    entries = tuple(sorted((bot, entry.first_block) for bot, entry in current.items()))
    kept = _TALLIES.get(spec.competition_id)
    if (kept is None or (kept.created_at, kept.entries) != (created_at, entries)
            or not kept.added <= set(pool.tournaments)):
        kept = _TALLIES[spec.competition_id] = _LadderTally(created_at, entries)
    for tid in pool.tournaments:
        if tid not in kept.added:
            results = [stored.result for stored in store.results.all(tid).values() if stored.scored]
            kept.tally.add(current_results([(tid, results)], current))
            kept.added.add(tid)
    return kept.tally.evidence(current, spec.seats)


def _blocks_in_flight(store: Store, competition_id: str) -> tuple[dict[str, int], int]:
    """Blocks per bot still pending or running, and their number; ended blocks are forgotten."""
    blocks = store.competitions.blocks(competition_id)
    statuses = store.tournaments.status_and_created(sorted(blocks))
    ended = {tid for tid, (status, _created) in statuses.items() if status not in ACTIVE_TOURNAMENT}
    store.competitions.forget_blocks(competition_id, ended)
    busy: Counter[str] = Counter()
    live = [tid for tid in blocks if tid not in ended]
    for tid in live:
        with contextlib.suppress(UnknownTournament):
            busy.update(bot.casefold() for bot in spec_of(store, tid).participants)
    return busy, len(live)


def _connected(store: Store, spec: CompetitionSpec, busy: dict[str, int]) -> list[Connected]:
    """The entrants that can play now: built-in bots always, registered bots with a live session."""
    names = list(spec.entrants) or [record.name for record in store.bots.all() if not record.deleted]
    out = []
    for name in names:
        if builtin_kind(name) is not None:
            out.append(Connected(name, BUILTIN_VERSION, busy.get(name.casefold(), 0), without_memory=True))
        else:
            sessions = store.sessions.for_bot(name)
            if not sessions:
                continue
            record = store.bots.get(name)
            if not record.deleted and not record.revoked:
                out.append(Connected(record.name, record.version or "unknown", busy.get(name.casefold(), 0),
                                     capacity=max(s.capacity for s in sessions),
                                     without_memory=all(s.fresh_sandbox for s in sessions)))
    return out


@dataclass(frozen=True)
class LadderRow:
    """One entry of a competition's ladder: its rank, tier and batch rating as its pool's leaderboard gives them, and
    its OpenSkill rating as :meth:`arena.tournament.stats.ratings.Rating.fact` gives it. A retired entry has rank 0,
    no batch rating and its ``retired_at``."""

    rank: int
    bot: str
    version: str
    rating: float
    mu: float
    sigma: float
    low: float
    high: float
    matches: int
    connected: bool
    since: float
    retired_at: float = 0.0
    tier: int = 0
    indistinguishable: tuple[str, ...] = ()
    batch: BatchRating | None = None


def _row(rank: int, bot: str, version: str, rating: Rating, connected: bool, since: float,
         retired_at: float = 0.0) -> LadderRow:
    fact = rating.fact()
    return LadderRow(rank, bot, version, fact.value, rating.mu, fact.sigma, fact.low, fact.high, fact.matches,
                     connected, since, retired_at)


@dataclass(frozen=True)
class Ladder:
    """A competition's ladder: its current entries ranked, and its retired versions (newest first)."""

    entries: list[LadderRow]
    retired: list[LadderRow]
    ranked_by_batch: bool
    """Whether the entries' rank and tier follow the batch ratings (else OpenSkill's)."""
    verdicts: Verdicts = field(default_factory=Verdicts)


def ladder(store: Store, competition_id: str) -> Ladder:
    """The current entries in the order of the competition pool's leaderboard, the entries not rated yet after them
    by name; and the retired entries with the OpenSkill rating they ended with."""
    spec = competition_spec(store, competition_id)
    board = pool_leaderboard(store, spec.pool)
    placed = {row.bot: row for row in board.rows}
    pool = store.ratings.get(spec.pool) or RatingPool(key=spec.pool)
    rows = []
    for bot, entry in store.competitions.entries(competition_id).items():
        online = builtin_kind(bot) is not None or store.sessions.online(bot)
        row = _row(0, bot, entry.version, pool.rating(bot), online, entry.started_at)
        found = placed.get(bot)
        if found is not None:
            row = replace(row, rank=found.rank, tier=found.tier, indistinguishable=found.indistinguishable,
                          batch=board.batch.get(bot))
        rows.append(row)
    rated = sorted((row for row in rows if row.rank), key=lambda row: row.rank)
    unrated = sorted((row for row in rows if not row.rank), key=lambda row: (row.bot.casefold(), row.bot))
    last = rated[-1].rank if rated else 0
    ranked = rated + [replace(row, rank=last + i) for i, row in enumerate(unrated, 1)]
    retired = [_row(0, old.bot, old.version, Rating(old.mu or 0.0, old.sigma or 0.0, old.matches), False,
                    old.started_at, old.retired_at or 0.0) for old in store.competitions.retired(competition_id)]
    return Ladder(ranked, retired, board.ranked_by_batch, board.verdicts)


def set_competition_status(store: Store, competition_id: str, status: CompetitionStatus) -> CompetitionStatus:
    """Pause, resume (``active``) or close a competition; returns the old status. A closed competition stays
    closed: its blocks in flight still finish and count, no new block starts."""
    old = store.competitions.set_status(competition_id, status)
    if old is CompetitionStatus.CLOSED and status is not CompetitionStatus.CLOSED:
        raise ValueError(f"competition {competition_id!r} is closed; a closed competition cannot be reopened")
    return old
