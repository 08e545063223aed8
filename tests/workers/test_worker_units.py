"""Smaller pieces of the workers: participant names, settings, batch sizes, stored records, give-ups."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from arena.runner import run_match
from arena.service.lifecycle import (
    GUIDED_FLOOR,
    Settings,
    UnknownParticipants,
    auto_batch_size,
    check_participants,
    create_tournament,
    run_batch,
    split_guided,
    start_tournament,
    tournament_table,
)
from arena.service.matches import (
    bot_seed,
    builtin_kind,
    is_builtin,
    match_config,
    seats_for,
)
from arena.service.replays import stored_record
from arena.store import Replay, Store, StoredResult
from arena.tournament import MatchSpec, schedule
from bots import make_bot
from tests.support.records import stored_result
from workers.celery_app import make_celery

from .helpers import small_spec


def test_builtin_participant_names() -> None:
    assert builtin_kind("random") == "random" and builtin_kind("heuristic#b") == "heuristic"
    assert not is_builtin("mybot") and not is_builtin("random#")
    assert is_builtin("Random") and builtin_kind("HEURISTIC") == "heuristic"  # names are compared without case
    assert bot_seed("t:d0000:t000000:r00", "random") == bot_seed("t:d0000:t000000:r00", "random")
    assert bot_seed("t:d0000:t000000:r00", "random") != bot_seed("t:d0000:t000000:r00", "random#2")


def test_participants_must_be_builtin_or_registered(store: Store) -> None:
    store.bots.register("mybot")
    check_participants(store, ["random", "heuristic#2", "mybot", "MYBOT"])
    with pytest.raises(UnknownParticipants, match="'ghost'"):
        check_participants(store, ["random", "ghost"])
    with pytest.raises(UnknownParticipants):
        create_tournament(store, small_spec(bots=("random", "ghost")))
    assert store.tournaments.ids() == []


def test_settings_from_the_app_and_the_environment(monkeypatch: Any) -> None:
    assert Settings.from_conf(make_celery("redis://127.0.0.1:1/0").conf) == Settings()
    monkeypatch.setenv("UNO_ARENA_HEARTBEAT_TIMEOUT", "7")
    monkeypatch.setenv("UNO_ARENA_BATCH_SIZE", "3")
    settings = Settings.from_conf(make_celery("redis://127.0.0.1:1/0", arena_check_interval=2).conf)
    assert settings.heartbeat_timeout == 7.0 and settings.batch_size == 3 and settings.check_interval == 2.0


def test_batch_sizes() -> None:
    assert auto_batch_size(6, Settings(), remote=False) == 1
    assert auto_batch_size(10_000, Settings(), remote=False) == 25
    # A remote batch holds two to four times what one worker child plays at once (the child holds one batch at a
    # time: more matches than places keep it busy to the batch's end); 4 with one match at a time.
    assert auto_batch_size(10_000, Settings(), remote=True) == 4 * Settings().matches_per_process
    assert auto_batch_size(20, Settings(), remote=True) == 2 * Settings().matches_per_process
    assert auto_batch_size(10_000, Settings(matches_per_process=1), remote=True) == 4
    assert auto_batch_size(10_000, Settings(batch_size=7), remote=False) == 7
    matches = schedule(small_spec(bots=("random", "heuristic", "random#2", "heuristic#2"), deals=40))
    groups = split_guided(matches, auto_batch_size(len(matches), Settings(), remote=False))
    sizes = [len(g) for g in groups]
    assert [m for g in groups for m in g] == matches  # every match once, in order
    assert sizes == sorted(sizes, reverse=True) and sizes[0] == 25
    assert min(sizes[:-1]) == GUIDED_FLOOR and sizes[-1] <= GUIDED_FLOOR  # no tail of one-match tasks
    assert len(groups) == 23
    assert {len(g) for g in split_guided(matches, 7, fixed=True)} == {7, 2}


def test_stored_record_keeps_the_decision_log() -> None:
    m = schedule(small_spec())[0]
    record = asyncio.run(run_match(match_config(m), seats_for(None, m, make_bot)))  # type: ignore[arg-type]
    stored = stored_record(record)
    assert stored.engine.to_dict() == record.replay and stored.seats == tuple(m.seats)
    assert [d.outcome for d in stored.decisions()] == [d.outcome for d in record.decisions]


class Inline:
    """Collects what would be sent (to drive the run logic without a broker)."""

    def __init__(self) -> None:
        self.batches: list[tuple[str, list[str]]] = []

    def start(self, tournament_id: str) -> None:
        pass

    def gauntlet(self, gauntlet_id: str) -> None:
        pass

    def batch(self, tournament_id: str, batch_id: str, match_ids: list[str]) -> None:
        self.batches.append((batch_id, match_ids))

    def check(self, tournament_id: str, token: str | None, countdown: float) -> None:
        pass

    def queued_batches(self, tournament_id: str) -> set[str] | None:
        return None


def test_a_match_that_keeps_failing_is_recorded_aborted_and_not_scored(store: Store) -> None:
    spec = small_spec("t-poison", deals=1)
    create_tournament(store, spec)
    enqueue = Inline()
    settings = Settings(max_attempts=2)
    start_tournament(store, spec.tournament_id, enqueue, settings)
    poison = schedule(spec)[0].match_id
    from arena.service.match_player import MatchPlayer

    player = MatchPlayer(store, make_bot=make_bot)

    def play(m: MatchSpec) -> tuple[StoredResult, Replay]:
        if m.match_id == poison:
            raise RuntimeError("boom")
        return player(m)

    for _ in range(3):  # the first delivery, then two re-sends of what is missing
        for batch_id, ids in list(enqueue.batches):
            run_batch(store, spec.tournament_id, batch_id, ids, play, settings, enqueue=enqueue)
        enqueue.batches.clear()
        from arena.service.lifecycle import check_tournament

        check_tournament(store, spec.tournament_id, enqueue, settings)  # the failed batch says so
    player.close()
    assert store.tournaments.status(spec.tournament_id) == "finished"
    result = store.results.get(spec.tournament_id, poison)
    assert result is not None and result.end_reason == "aborted" and "boom" in result.detail
    assert store.results.progress(spec.tournament_id).counters["aborted"] == 1
    table = tournament_table(store, spec.tournament_id)
    assert table.standings.matches == len(schedule(spec)) - 1  # the aborted match is not scored


def test_the_feed_is_derived_from_the_recorded_results(store: Store) -> None:
    """The feed is appended by the script that records a result: a worker that dies right after recording (before
    its bookkeeping) leaves no match out of it, and a retried report puts nothing in it twice."""
    from arena.store.runstate import RunState

    store.tournaments.create("t-feed", {"participants": ["random", "heuristic"]})
    store.tournaments.add_matches("t-feed", ["t-feed.m0", "t-feed.m1", "t-feed.m2"])
    run = RunState(store, "t-feed")
    seats = ("random", "heuristic")
    assert store.results.record("t-feed", "t-feed.m0", stored_result("t-feed.m0", seats=seats))
    run.after("t-feed.m0", wrote=True)
    assert store.results.record("t-feed", "t-feed.m1", stored_result("t-feed.m1", seats=seats))  # ... the worker dies
    assert not store.results.record("t-feed", "t-feed.m1", stored_result("t-feed.m1", seats=seats, winner=1))  # replay
    run.after("t-feed.m1", wrote=False)
    run.after("t-feed.m1", wrote=True)  # a retried report
    assert run.feed() == ["t-feed.m0", "t-feed.m1"]
    assert run.feed(1) == ["t-feed.m1"]


def test_a_stored_result_counts_the_decisions_asked_of_each_seat() -> None:
    from arena.runner import LocalSeat, run_match_sync
    from arena.service.matches import StoredResult, match_config, result_of
    from arena.tournament import TournamentSpec, schedule
    from bots import make_bot

    match = schedule(TournamentSpec("t-count", ("random", "heuristic"), options={"target": 100}))[0]
    seats = [LocalSeat(make_bot("random", i + 1), name=name) for i, name in enumerate(match.seats)]
    record = run_match_sync(match_config(match), seats)
    stored = result_of(record, match)
    assert sum(stored.decisions) == len(record.decisions) > 0
    assert stored.decisions == tuple(sum(1 for d in record.decisions if d.seat == s) for s in (0, 1))
    assert StoredResult.from_dict(stored.to_dict()) == stored
    old = stored.to_dict()
    del old["decisions"]  # stored before decisions were counted
    assert StoredResult.from_dict(old).decisions == ()
