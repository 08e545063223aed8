"""The lost-batch finder of the completeness check, from plain data (no Redis)."""

from __future__ import annotations

from arena.service.recovery import find_lost
from arena.service.runtime import Settings
from arena.store.runstate import BatchState
from arena.tournament.status import BatchStatus

SETTINGS = Settings(heartbeat_timeout=12.0, queued_grace=10.0, stall_timeout=600.0)
NOW = 10_000.0


def states(**words: tuple[str, float]) -> dict[str, BatchState]:
    return {bid: BatchState(BatchStatus(word), NOW - age) for bid, (word, age) in words.items()}


def test_a_batch_is_lost_when_it_stopped_or_its_heartbeat_is_stale() -> None:
    found = find_lost(states(b0=("running", 1.0), b1=("running", 13.0), b2=("stopped", 1.0), b3=("done", 99.0)),
                      last_progress=NOW - 5, waiting=None, absent_since={}, now=NOW, settings=SETTINGS)
    assert found.batches == ["b1", "b2"] and not found.stalled and found.absent_since is None


def test_nothing_is_lost_while_every_batch_is_alive_or_done() -> None:
    found = find_lost(states(b0=("running", 12.0), b1=("done", 1.0)), last_progress=NOW - 5, waiting=None,
                      absent_since={}, now=NOW, settings=SETTINGS)
    assert found.batches == [] and not found.stalled


def test_a_queued_batch_out_of_the_queue_for_the_grace_is_lost() -> None:
    found = find_lost(states(b0=("queued", 50.0), b1=("queued", 50.0), b2=("queued", 50.0)), last_progress=NOW - 5,
                      waiting={"b2"}, absent_since={"b0": NOW - 10.0}, now=NOW, settings=SETTINGS)
    # b0 out of the queue for the grace: lost; b1 seen out of it just now: noted, not lost yet; b2 still waits.
    assert found.batches == ["b0"] and found.absent_since == {"b0": NOW - 10.0, "b1": NOW}


def test_queued_batches_are_never_lost_when_the_queue_cannot_be_seen() -> None:
    found = find_lost(states(b0=("queued", 500.0)), last_progress=NOW - 5, waiting=None,
                      absent_since={"b0": NOW - 400.0}, now=NOW, settings=SETTINGS)
    assert found.batches == [] and found.absent_since is None


def test_a_stall_loses_every_batch_not_done() -> None:
    found = find_lost(states(b0=("queued", 700.0), b1=("running", 700.0), b2=("done", 700.0)),
                      last_progress=NOW - 601, waiting={"b0"}, absent_since={}, now=NOW, settings=SETTINGS)
    assert found.batches == ["b0", "b1"] and found.stalled and found.absent_since is None


def test_a_live_batch_keeps_a_quiet_tournament_from_stalling() -> None:
    found = find_lost(states(b0=("running", 1.0), b1=("stopped", 700.0)), last_progress=NOW - 601, waiting=None,
                      absent_since={}, now=NOW, settings=SETTINGS)
    assert found.batches == ["b1"] and not found.stalled


def test_an_adopted_batch_lives_by_its_adopters_heartbeat() -> None:
    found = find_lost(states(b0=("running", 1.0), b1=("adopted", 2.0), b2=("adopted", 13.0)), last_progress=NOW - 5,
                      waiting=set(), absent_since={}, now=NOW, settings=SETTINGS)
    assert found.batches == ["b2"]  # its adopter died: re-sent like a running batch without heartbeat
