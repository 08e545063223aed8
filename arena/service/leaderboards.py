"""Rating pools and their leaderboards, from the pools' stored ratings and counters (the one source of truth). A pool
is a rules pool (``VARIANT:DIGEST``) or a competition's own (``competition:NAME``); its entries' numbers are those
of :func:`arena.tournament.leaderboard.leaderboard` with the pool's cached batch ratings
(:mod:`arena.service.pool_batch`), and this module adds what the store knows: the pool's rules, label and seats,
when it last changed, and whether each bot is connected now.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.engine import Rules, Variant
from arena.store import Store, UnknownCompetition, UnknownTournament
from arena.store.result_store import BUILTIN_VERSION
from arena.store.runstate import RunState
from arena.tournament import RatingPool, TournamentSpec
from arena.tournament.competition import POOL_PREFIX, CompetitionSpec, competition_of
from arena.tournament.leaderboard import LeaderRow, leaderboard, pool_label, ranks_by_batch
from arena.tournament.stats.plackett_luce import BatchRating
from arena.tournament.stats.verdicts import Verdicts

from .matches import builtin_kind
from .pool_batch import pool_fit


class UnknownPool(LookupError):
    """No rating pool has this id."""


@dataclass(frozen=True)
class PoolInfo:
    """A rating pool as listed: ``seats`` per table is 0 when mixed or none yet, ``competition_id`` empty for a rules
    pool, ``updated_at`` 0 for never."""

    pool_id: str
    label: str
    rules: Rules
    seats: int
    competition_id: str
    bots: int
    matches: int
    updated_at: float


@dataclass(frozen=True)
class Presence:
    connected: bool
    version: str


@dataclass(frozen=True)
class Leaderboard:
    pool: PoolInfo
    rows: list[LeaderRow]
    presence: dict[str, Presence]
    batch: dict[str, BatchRating]
    ranked_by_batch: bool
    """Whether the rows' rank and tier follow the batch ratings (else OpenSkill's)."""
    verdicts: Verdicts = field(default_factory=Verdicts)
    """The batch fit's verdicts; empty unless ``ranked_by_batch``."""


def pool_ids(store: Store) -> list[str]:
    """Every pool with stored ratings, and every competition's pool, by id."""
    ids = set(store.ratings.pools())
    ids.update(f"{POOL_PREFIX}{cid}" for cid in store.competitions.ids())
    return sorted(ids)


def stored_pool(store: Store, pool_id: str) -> RatingPool:
    """The pool's stored ratings and counters; :class:`UnknownPool` for one without ratings and no competition's."""
    pool = store.ratings.get(pool_id)
    if pool is None and competition_of(pool_id) not in store.competitions.ids():  # "" for a rules pool
        raise UnknownPool(f"no rating pool {pool_id!r} (`uno-arena pools` lists them)")
    return pool if pool is not None else RatingPool(key=pool_id)


def _rules_and_seats(store: Store, pool: RatingPool, competition_id: str) -> tuple[Rules, int]:
    """A pool's rules (its competition's, or its latest readable tournament's) and seats per table (its matches'
    when they all had one size; else a competition's own)."""
    seats = pool.seat_counts[0] if len(pool.seat_counts) == 1 else 0
    if competition_id:
        try:
            spec = CompetitionSpec.from_dict(store.competitions.get(competition_id).spec)
            return spec.rules, seats or (spec.seats if not pool.seat_counts else 0)
        except (UnknownCompetition, ValueError, TypeError):
            pass
    for tid in reversed(pool.tournaments):
        try:
            return TournamentSpec.from_dict(store.tournaments.get(tid).spec).rules, seats
        except (UnknownTournament, ValueError, TypeError):
            continue
    variant = pool.key.split(":", 1)[0]
    return (Rules(variant=Variant(variant)) if variant in set(Variant) else Rules()), seats


def pool_info(store: Store, pool_id: str, pool: RatingPool) -> PoolInfo:
    """What ListRatingPools shows of a pool."""
    cid = competition_of(pool_id)
    rules, seats = _rules_and_seats(store, pool, cid)
    label = cid if cid else pool_label(rules, seats)
    updated = float(RunState(store, pool.tournaments[-1]).get("finished_at") or 0.0) if pool.tournaments else 0.0
    return PoolInfo(pool_id, label, rules, seats, cid, len(pool.ratings), pool.applied, updated)


def rating_pools(store: Store) -> list[PoolInfo]:
    out = []
    for pool_id in pool_ids(store):
        try:
            out.append(pool_info(store, pool_id, stored_pool(store, pool_id)))
        except UnknownPool:  # a competition removed meanwhile
            continue
    return out


def presence(store: Store, bot: str) -> Presence:
    if builtin_kind(bot) is not None:
        return Presence(True, BUILTIN_VERSION)
    if not store.bots.exists(bot):
        return Presence(False, "")
    return Presence(store.sessions.online(bot), store.bots.get(bot).version)


def pool_leaderboard(store: Store, pool_id: str) -> Leaderboard:
    pool = stored_pool(store, pool_id)
    fitted = pool_fit(store, pool_id, pool)
    batch = {rating.bot: rating for rating in fitted.ratings}
    rows = leaderboard(pool, batch=batch)
    by_batch = ranks_by_batch(pool, batch)
    return Leaderboard(pool_info(store, pool_id, pool), rows, {row.bot: presence(store, row.bot) for row in rows},
                       batch, by_batch, fitted.verdicts if by_batch else Verdicts())
