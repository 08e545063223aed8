"""Standings of a tournament: its scored results on top of the ratings its participants had when it started, ranked
and tiered by the batch Plackett-Luce ratings of those results (:func:`arena.tournament.adjusted.fitted_standings`),
cached in the store, and made final with the ratings persisted when it finishes."""

from __future__ import annotations

import time
from dataclasses import dataclass

from arena.store import Store, StoredResult, TournamentStandings
from arena.store.runstate import RunState
from arena.tournament import MatchResult, RatingPool, Standings, TournamentSpec, standings
from arena.tournament.adjusted import fitted_standings
from arena.tournament.leaderboard import tallies_of
from arena.tournament.stats.plackett_luce import BatchRating
from arena.tournament.status import ACTIVE_TOURNAMENT, TournamentStatus

from .pool_batch import warm_pool_batch
from .runtime import NO_METRICS, MetricsSink
from .tournaments import spec_of

COUNTERS = ("timeouts", "refusals", "decisions")
"""The per-bot counters shown beside the standings."""


def pool_of(key: str, stored: RatingPool | None) -> RatingPool:
    return stored if stored is not None else RatingPool(key=key)


def prior_pool(store: Store, spec: TournamentSpec) -> RatingPool:
    """The persisted ratings of the spec's participants in its rating pool (a fresh pool if none)."""
    pool = pool_of(spec.rating_pool, store.ratings.get(spec.rating_pool))
    keep = set(spec.participants)
    return RatingPool(key=pool.key, ratings={b: r for b, r in pool.ratings.items() if b in keep}, mu=pool.mu,
                      sigma=pool.sigma, beta=pool.beta, tau=pool.tau)


@dataclass(frozen=True)
class TournamentTable:
    """Standings of a tournament with the per-bot counters the API shows."""

    standings: Standings
    timeouts: dict[str, int]
    refusals: dict[str, int]
    scored: list[MatchResult]
    results: dict[str, StoredResult]
    decisions: dict[str, int]
    """Decisions asked of each bot (for rates per 1,000 decisions)."""
    batch: list[BatchRating]
    """The batch ratings of the scored results."""


def tournament_table(store: Store, tournament_id: str) -> TournamentTable:
    """Standings of the results recorded so far (final once the tournament finished), with their batch ratings."""
    spec = spec_of(store, tournament_id)
    results = store.results.all(tournament_id)
    scored = [r.result for r in results.values() if r.scored]
    prior = pool_of(spec.rating_pool, RunState(store, tournament_id).prior())
    table = standings(scored, participants=spec.participants, pool=prior)
    counters: dict[str, dict[str, int]] = {name: dict.fromkeys(spec.participants, 0) for name in COUNTERS}
    for r in results.values():  # {counter: {bot: total}} of the participants
        for name, counts in counters.items():
            for bot, value in zip(r.seats, r.counter(name), strict=True):
                if bot in counts:
                    counts[bot] += value
    table, rated = fitted_standings(table, scored, spec.participants)
    return TournamentTable(table, counters["timeouts"], counters["refusals"], scored, results, counters["decisions"],
                           rated)


def standings_record(table: TournamentTable, final: bool) -> TournamentStandings:
    """What the store's standings cache keeps (the rating pool itself is left out)."""
    data = table.standings.to_dict()
    data.pop("pool", None)
    return TournamentStandings(final, data, table.timeouts, table.refusals, table.decisions, tuple(table.batch))


def cached_standings(store: Store, tournament_id: str) -> TournamentStandings:
    """The standings: the cached ones when they count every recorded result, else freshly computed (and cached)."""
    status = store.tournaments.status(tournament_id)
    done = store.results.progress(tournament_id).done
    cached = store.standings.get(tournament_id)
    final = status is TournamentStatus.FINISHED
    fresh = cached is not None and cached.as_of >= done and (cached.standings.final or not final)
    computed_now = cached is not None and (not cached.standings.rows or (
        bool(cached.standings.batch) and "verdicts" in cached.standings.table))  # else cached before batch verdicts
    if cached is not None and fresh and computed_now:
        return cached.standings
    table = tournament_table(store, tournament_id)
    record = standings_record(table, final)
    store.standings.put(tournament_id, record, as_of=len(table.results))
    return record


def finish_tournament(store: Store, tournament_id: str, *, metrics: MetricsSink = NO_METRICS) -> Standings:
    """Compute the final standings, persist the ratings once, mark the tournament finished, then cache its rating
    pool's new batch ratings (no reader waits for them)."""
    spec = spec_of(store, tournament_id)
    table = tournament_table(store, tournament_id)
    store.standings.put(tournament_id, standings_record(table, True), as_of=len(table.results))
    pool_key = spec.rating_pool

    def apply(current: RatingPool | None) -> RatingPool:
        tallies = tallies_of(table.standings, table.timeouts, table.refusals, table.decisions, table.scored)
        return pool_of(pool_key, current).with_tournament(tournament_id, table.scored, tallies)

    pool = store.ratings.update(pool_key, apply)
    run = RunState(store, tournament_id)
    run.set_once("finished_at", repr(time.time()))
    store.tournaments.set_status(tournament_id, TournamentStatus.FINISHED, expected=ACTIVE_TOURNAMENT)
    run.cleanup()
    metrics.finish_tournament(tournament_id)
    warm_pool_batch(store, pool_key, pool)
    return table.standings
