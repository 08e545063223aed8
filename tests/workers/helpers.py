"""Helpers of the worker tests: a Celery app with short timings, waiting for a tournament, a clean in-process run."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from celery import Celery

from arena.runner import Seat, run_match
from arena.service.matches import match_config, result_of, seats_for
from arena.store import Store
from arena.tournament import MatchResult, RatingPool, TournamentSpec, schedule, standings
from bots import make_bot
from tests.support import wait_until
from tests.support.cli import cli_in_process
from workers.celery_app import make_celery

FAST = {
    "arena_check_interval": 0.5,
    "arena_heartbeat_interval": 0.2,
    "arena_heartbeat_timeout": 2.0,
    "arena_stall_timeout": 4.0,
    "arena_pending_timeout": 1.0,
}
"""Short timings so that lost work is noticed in seconds (the defaults are minutes)."""

FAST_ENV = {f"UNO_ARENA_{k.removeprefix('arena_').upper()}": str(v) for k, v in FAST.items()}
"""The same timings for worker processes (read by make_celery from the environment)."""


def fast_app(url: str, **overrides: Any) -> Celery:
    return make_celery(url, **{**FAST, **overrides})


def small_spec(tid: str = "t1", *, bots: Sequence[str] = ("random", "heuristic", "random#2"), seats: int = 2,
               deals: int = 2, target: int = 100, duplicate: bool = False, seed: int = 7) -> TournamentSpec:
    return TournamentSpec(tid, tuple(bots), options={"target": target}, seats=seats, deals=deals,
                          duplicate=duplicate, seed=seed)


def wait_finished(store: Store, tid: str, timeout: float = 90.0) -> None:
    def finished() -> bool:
        return store.tournaments.exists(tid) and store.tournaments.status(tid) == "finished"

    wait_until(finished, timeout, f"tournament {tid} to finish")


def assert_exactly_once(store: Store, spec: TournamentSpec) -> None:
    """Every scheduled match has exactly one result, counted once; nothing unscheduled was recorded."""
    tid = spec.tournament_id
    expected = {m.match_id for m in schedule(spec)}
    assert store.tournaments.matches(tid) == expected
    results = store.results.all(tid)
    assert set(results) == expected
    progress = store.results.progress(tid)
    assert progress.scheduled == progress.done == len(expected)
    feed = store.redis.lrange(store.keys.tournament_run(tid, "feed"), 0, -1)
    assert len(feed) == len(set(feed)), "a match was reported twice"
    assert store.tournaments.status(tid) == "finished"


def clean_results(spec: TournamentSpec, seat_factory: Callable[[Any, str], Seat] | None = None) -> list[MatchResult]:
    """Every match of ``spec`` played in this process (no Redis, no Celery): the reference run."""
    loop = asyncio.new_event_loop()
    out: list[MatchResult] = []
    try:
        for m in schedule(spec):
            seats = seats_for(None, m, make_bot) if seat_factory is None else [seat_factory(m, n) for n in m.seats]  # type: ignore[arg-type]
            record = loop.run_until_complete(run_match(match_config(m), seats))
            out.append(result_of(record, m).result)
    finally:
        loop.close()
    return out


def stored_spec(store: Store, spec: TournamentSpec) -> TournamentSpec:
    """The spec as the arena stored it: with the seed secret it drew at creation (every deal derives from the seed
    and the secret, so a clean run of the tournament replays the stored spec)."""
    from arena.service.lifecycle import spec_of

    return spec_of(store, spec.tournament_id)


def clean_standings(spec: TournamentSpec, seat_factory: Callable[[Any, str], Seat] | None = None) -> dict[str, Any]:
    from arena.tournament.adjusted import fitted_standings

    pool = RatingPool(key=spec.rating_pool)
    results = clean_results(spec, seat_factory)
    table = standings(results, participants=spec.participants, pool=pool)
    return fitted_standings(table, results, spec.participants)[0].to_dict()


def worker_standings(store: Store, tid: str) -> dict[str, Any]:
    from arena.service.lifecycle import tournament_table

    return tournament_table(store, tid).standings.to_dict()


cli = cli_in_process


def spec_msg(**fields: Any) -> Any:
    """A TournamentSpec message of three built-in bots (``fields`` override)."""
    from arena.protocol import arena_pb2, game_pb2

    base: dict[str, Any] = {
        "participants": ["random", "heuristic", "random#2"],
        "rules": game_pb2.Rules(target=100),
        "seats_per_table": 2,
        "deals_per_table": 1,
        "seed": 5,
    }
    base.update(fields)
    return arena_pb2.TournamentSpec(**base)


def status_of(call: Callable[[], Any]) -> tuple[Any, str]:
    """The gRPC status code and details of ``call()``, which must fail."""
    import grpc
    import pytest

    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()
