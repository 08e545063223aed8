"""Results are written once per match id, whatever the retries, duplicates and races."""

from __future__ import annotations

import json
import threading

import pytest

from arena.store import Store, UnknownTournament, UnscheduledMatch
from tests.support.records import stored_replay, stored_result


@pytest.fixture
def tournament(store: Store) -> str:
    store.tournaments.create("t-1", {"participants": ["a", "b"]})
    store.tournaments.add_matches("t-1", [f"t-1.m{i}" for i in range(50)])
    return "t-1"


def test_first_write_wins(store: Store, tournament: str) -> None:
    assert store.results.record(tournament, "t-1.m0", stored_result("t-1.m0", winner=0, scores=(500, 120)))
    assert not store.results.record(tournament, "t-1.m0", stored_result("t-1.m0", winner=1, scores=(0, 500)))
    assert store.results.get(tournament, "t-1.m0") == stored_result("t-1.m0", winner=0, scores=(500, 120))
    assert store.results.get(tournament, "t-1.m1") is None
    assert store.results.progress(tournament).done == 1
    raw = store.redis.hget(store.keys.tournament(tournament, "results"), "t-1.m0")
    assert raw is not None
    envelope = json.loads(raw)
    assert envelope["recorded_at"] > 0 and len(envelope["attempt"]) == 32


def test_two_concurrent_writers_exactly_one_wins(redis_server: object, store: Store, tournament: str) -> None:
    url = redis_server.url  # type: ignore[attr-defined]
    writers = [Store.from_url(url), Store.from_url(url)]
    matches = [f"t-1.m{i}" for i in range(50)]
    wins: list[list[str]] = [[], []]
    barrier = threading.Barrier(2)

    def write(n: int) -> None:
        barrier.wait()
        for mid in matches:
            if writers[n].results.record(tournament, mid, stored_result(mid, detail=f"writer {n}")):
                wins[n].append(mid)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w in writers:
        w.close()
    assert sorted(wins[0] + wins[1]) == sorted(matches)  # each match won exactly once
    assert not set(wins[0]) & set(wins[1])
    stored = store.results.all(tournament)
    for n in range(2):
        assert all(stored[mid] == stored_result(mid, detail=f"writer {n}") for mid in wins[n])  # the winner kept
    progress = store.results.progress(tournament)
    assert progress.done == 50 and progress.scheduled == 50 and progress.complete


def test_a_retry_of_the_same_call_still_reports_its_write(store: Store, tournament: str) -> None:
    """What redis-py does after a lost reply: run the same script with the same arguments again."""
    results = store.results
    args = ["t-1.m3", '{"attempt":"abc","recorded_at":1.0,"result":{"winner":"a"}}', "abc", b"", 0, "1"]
    keys = [
        store.keys.tournament(tournament, "results"),
        store.keys.tournament(tournament, "progress"),
        store.keys.replay("t-1.m3"),
        store.keys.tournament(tournament, "matches"),
        store.keys.tournament(tournament),
        store.keys.tournament_run(tournament, "feed"),
    ]
    assert results._record(keys=keys, args=args) == 1
    assert results._record(keys=keys, args=args) == 1  # the retry: same attempt id
    assert results._record(keys=keys, args=[*args[:2], "other", *args[3:]]) == 0
    assert results.progress(tournament).done == 1
    assert store.redis.lrange(keys[5], 0, -1) == [b"t-1.m3"]  # in the feed once


def test_the_feed_is_written_with_the_result(store: Store, tournament: str) -> None:
    """The watch feed lists exactly the recorded results, appended by the script that records them (a worker dying
    right after recording can no longer leave it one short); a retry under the same attempt id adds nothing."""
    results = store.results
    feed = store.keys.tournament_run(tournament, "feed")
    assert results.record(tournament, "t-1.m1", stored_result("t-1.m1"), attempt="x1")
    assert results.record(tournament, "t-1.m1", stored_result("t-1.m1"), attempt="x1")  # a retry after a lost reply
    assert not results.record(tournament, "t-1.m1", stored_result("t-1.m1", winner=1))
    assert results.record(tournament, "t-1.m2", stored_result("t-1.m2", winner=1))
    assert store.redis.lrange(feed, 0, -1) == [b"t-1.m1", b"t-1.m2"]
    assert results.progress(tournament).done == 2


def test_replay_is_written_with_the_first_result_only(store: Store, tournament: str) -> None:
    first, second = stored_replay("t-1.m0", actions=[(0, "draw")]), stored_replay("t-1.m0", actions=[(0, "pass")])
    assert store.results.record(tournament, "t-1.m0", stored_result("t-1.m0"), replay=first)
    assert not store.results.record(tournament, "t-1.m0", stored_result("t-1.m0", winner=1), replay=second)
    assert store.replays.load("t-1.m0") == first


def test_completeness_check(store: Store, tournament: str) -> None:
    for i in range(48):
        store.results.record(tournament, f"t-1.m{i}", stored_result(f"t-1.m{i}"))
    assert store.results.missing(tournament) == {"t-1.m48", "t-1.m49"}
    assert not store.results.progress(tournament).complete
    assert store.results.recorded(tournament) == {f"t-1.m{i}" for i in range(48)}


def test_unscheduled_or_unknown(store: Store, tournament: str) -> None:
    with pytest.raises(UnscheduledMatch, match=r"'t-1\.zzz' is not scheduled in tournament 't-1'"):
        store.results.record(tournament, "t-1.zzz", stored_result("t-1.zzz"))
    assert store.results.record(tournament, "t-1.zzz", stored_result("t-1.zzz"), require_scheduled=False)
    with pytest.raises(UnknownTournament):
        store.results.record("t-404", "t-404.m0", stored_result("t-404.m0"))


def test_counters(store: Store, tournament: str) -> None:
    assert store.results.incr(tournament, "timeouts") == 1
    assert store.results.incr(tournament, "timeouts", 2) == 3
    assert store.results.progress(tournament).counters == {"timeouts": 3}
    with pytest.raises(ValueError, match="kept by the store"):
        store.results.incr(tournament, "done")
