"""A rating pool's batch Plackett-Luce ratings (:func:`arena.tournament.plackett_luce.batch_ratings` over the scored
results of every tournament the pool applied), computed once per version of the pool and cached beside it.

A tournament that finishes computes its rules pool's new batch ratings right away (:func:`warm_pool_batch`, called
by :func:`arena.service.standings.finish_tournament` in the worker that finishes it), so no reader waits for them: a
pool of 7,000 four-seat matches refits in about 2.4 s (``docs/benchmarks.md``). A competition's pool is not warmed:
its ladder finishes a block every few seconds, each a tournament, and refitting the whole pool after each would
spend the workers on numbers few read; a reader computes them (once per change). So does a reader that finds no
ratings for the current version of a rules pool (the warm-up failed, or the pool predates it)."""

from __future__ import annotations

import logging

from arena.store import Store, StoreFailure
from arena.tournament import RatingPool
from arena.tournament.competition import POOL_PREFIX
from arena.tournament.plackett_luce import BatchRating, batch_ratings

log = logging.getLogger(__name__)


def pool_version(pool: RatingPool) -> str:
    """What changes whenever a tournament is applied to the pool (the key of its cached batch ratings; ``t2``: the
    ratings carry their tiers, so a cache written before them is computed again)."""
    return f"t2:{pool.applied}:{len(pool.tournaments)}:{pool.tournaments[-1] if pool.tournaments else ''}"


def pool_batch(store: Store, pool_id: str, pool: RatingPool) -> list[BatchRating]:
    """The batch ratings over the scored results of every tournament the pool applied (a tournament whose results
    are gone adds nothing), from the cache when the pool has not changed since."""
    version = pool_version(pool)
    cached = store.ratings.batch(pool_id, version)
    if cached is not None:
        return cached
    scored = [stored.result for tid in pool.tournaments for stored in store.results.all(tid).values()
              if stored.scored]
    ratings = batch_ratings(scored)
    store.ratings.put_batch(pool_id, version, ratings)
    return ratings


def warm_pool_batch(store: Store, pool_id: str, pool: RatingPool) -> None:
    """Compute and cache the pool's batch ratings now (a tournament was just applied to it), for a rules pool (see
    the module docstring). A store failure here costs nothing but time: it is logged and the first reader computes
    them."""
    if pool_id.startswith(POOL_PREFIX):
        return
    try:
        pool_batch(store, pool_id, pool)
    except StoreFailure as exc:
        log.warning("pool %s: batch ratings not cached (%s); the first read computes them", pool_id, exc)
