"""A rating pool's batch Plackett-Luce ratings and their verdicts, computed once per version of the pool and cached
beside it. A finishing tournament computes its rules pool's at once (:func:`warm_pool_batch`), so no reader waits
(a pool of 7,000 four-seat matches refits in about 4 s). A competition's pool is rated on its current entries'
blocks only and is not warmed (its ladder finishes a block every few seconds): a reader refits it only when the
cached fit is older than :data:`COMPETITION_REFIT_S` or misses one of the pool's bots."""

from __future__ import annotations

import hashlib
import logging
import time

from arena.store import Store, StoreFailure
from arena.store.rating_store import CachedBatch
from arena.tournament import RatingPool
from arena.tournament.competition import POOL_PREFIX, Entry, competition_of, current_results
from arena.tournament.stats.plackett_luce import refit

log = logging.getLogger(__name__)

COMPETITION_REFIT_S = 30.0
"""How old a competition pool's cached batch ratings may be before a reader refits them."""


def pool_version(pool: RatingPool, entries: dict[str, Entry] | None = None) -> str:
    """The key of the pool's cached batch ratings: it changes whenever a tournament is applied to the pool or (a
    competition's pool) a bot starts a new entry (``t3``: a cache written before tiers and verdicts is stale)."""
    version = f"t3:{pool.applied}:{len(pool.tournaments)}:{pool.tournaments[-1] if pool.tournaments else ''}"
    if entries is not None:
        firsts = ",".join(f"{bot}={entry.first_block}" for bot, entry in sorted(entries.items()))
        version += ":" + hashlib.sha256(firsts.encode("utf-8")).hexdigest()[:16]
    return version


def pool_fit(store: Store, pool_id: str, pool: RatingPool) -> CachedBatch:
    """The batch ratings over the scored results of every tournament the pool applied (a competition's pool: its
    current entries' blocks) with the verdicts of the same fit, cached together; from the cache when still good."""
    competition = competition_of(pool_id)
    entries = store.competitions.entries(competition) if competition else None
    version = pool_version(pool, entries)
    cached = store.ratings.cached_batch(pool_id)
    if cached is not None and (cached.version == version
                               or (entries is not None and _recent_enough(cached, version, pool))):
        return cached
    blocks = [(tid, [stored.result for stored in store.results.all(tid).values() if stored.scored])
              for tid in pool.tournaments]
    if entries is None:
        fit = refit(result for _, results in blocks for result in results)
    else:
        fit = refit(current_results(blocks, entries), participants=pool.ratings)
    computed = CachedBatch(version, time.time(), fit.ratings(), fit.verdicts())
    store.ratings.put_batch(pool_id, version, computed.ratings, computed.computed_at, computed.verdicts)
    return computed


def _recent_enough(cached: CachedBatch, version: str, pool: RatingPool) -> bool:
    """Whether a competition pool's cached ratings may stand in for its current version: computed within
    :data:`COMPETITION_REFIT_S`, for the same entries, rating every bot of the pool."""
    return (cached.computed_at >= time.time() - COMPETITION_REFIT_S
            and cached.version.rpartition(":")[2] == version.rpartition(":")[2]
            and set(pool.ratings) <= {rating.bot for rating in cached.ratings})


def warm_pool_batch(store: Store, pool_id: str, pool: RatingPool) -> None:
    """Compute and cache a rules pool's batch ratings now; a store failure is logged (the first reader computes
    them)."""
    if pool_id.startswith(POOL_PREFIX):
        return
    try:
        pool_fit(store, pool_id, pool)
    except StoreFailure as exc:
        log.warning("pool %s: batch ratings not cached (%s); the first read computes them", pool_id, exc)
