"""run_batch against a duplicated message (one attempt of a match at a time) and a Redis refusing writes."""

from __future__ import annotations

import threading
import time
from collections import Counter

from arena.service.lifecycle import Settings, create_tournament, run_batch, start_tournament
from arena.service.match_player import MatchPlayer
from arena.store import Replay, Store, StoredResult
from arena.store.runstate import RunState
from arena.tournament import MatchSpec, schedule
from bots import make_bot

from .helpers import small_spec
from .test_worker_units import Inline


class CountingMetrics:
    def __init__(self) -> None:
        self.completed = 0
        self.errors: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()

    def record_matches_completed(self, count: int = 1) -> None:
        with self.lock:
            self.completed += count

    def set_matches_remaining(self, tournament: str, remaining: int) -> None:
        pass

    def finish_tournament(self, tournament: str) -> None:
        pass

    def record_store_error(self, kind: str, where: str) -> None:
        with self.lock:
            self.errors[kind, where] += 1


def test_a_duplicated_batch_never_plays_a_match_concurrently(store: Store) -> None:
    spec = small_spec("t-dup", deals=1)
    create_tournament(store, spec)
    enqueue = Inline()
    settings = Settings(heartbeat_interval=0.1, heartbeat_timeout=5.0)
    start_tournament(store, spec.tournament_id, enqueue, settings)
    player = MatchPlayer(store, make_bot=make_bot)
    in_flight: Counter[str] = Counter()
    played: Counter[str] = Counter()
    overlaps: list[str] = []
    guard = threading.Lock()

    def play(m: MatchSpec) -> tuple[StoredResult, Replay]:
        with guard:
            in_flight[m.match_id] += 1
            played[m.match_id] += 1
            if in_flight[m.match_id] > 1:
                overlaps.append(m.match_id)
        try:
            time.sleep(0.05)  # long enough for the duplicate to arrive mid-match
            with guard:
                return player(m)
        finally:
            with guard:
                in_flight[m.match_id] -= 1

    metrics = CountingMetrics()
    batch_id, ids = enqueue.batches[0]
    threads = [
        threading.Thread(target=run_batch, args=(store, spec.tournament_id, batch_id, ids, play, settings),
                         kwargs={"metrics": metrics})
        for _ in range(2)  # the message and its duplicate
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    player.close()
    assert not overlaps
    assert set(played) == set(ids) and all(n == 1 for n in played.values()), played
    assert metrics.completed == len(ids)
    assert not store.redis.keys(f"{store.keys.tournament(spec.tournament_id)}:claim:*")  # all released


def _refuse_writes(store: Store, refuse: bool) -> None:
    store.redis.config_set("min-replicas-to-write", 1 if refuse else 0)


def test_refused_writes_while_recording_are_retried_and_counted_once(store: Store) -> None:
    spec = small_spec("t-refuse", deals=1)
    create_tournament(store, spec)
    enqueue = Inline()
    settings = Settings(heartbeat_interval=0.1, heartbeat_timeout=5.0, store_retry_timeout=30.0)
    start_tournament(store, spec.tournament_id, enqueue, settings)
    player = MatchPlayer(store, make_bot=make_bot)
    first = schedule(spec)[0].match_id
    metrics = CountingMetrics()
    timer: list[threading.Timer] = []

    def play(m: MatchSpec) -> tuple[StoredResult, Replay]:
        out = player(m)
        if m.match_id == first:  # refuse every write for a second, right before the result is recorded
            _refuse_writes(store, True)
            timer.append(threading.Timer(1.0, _refuse_writes, args=(store, False)))
            timer[0].start()
        return out

    try:
        for batch_id, ids in list(enqueue.batches):
            run_batch(store, spec.tournament_id, batch_id, ids, play, settings, metrics=metrics, enqueue=enqueue)
    finally:
        _refuse_writes(store, False)
        for t in timer:
            t.cancel()
        player.close()
    total = len(schedule(spec))
    assert metrics.completed == total
    assert metrics.errors[("noreplicas", "task")] >= 1
    progress = store.results.progress(spec.tournament_id)
    assert progress.done == progress.scheduled == total
    assert sorted(RunState(store, spec.tournament_id).feed()) == sorted(m.match_id for m in schedule(spec))
    assert store.tournaments.status(spec.tournament_id) == "finished"
