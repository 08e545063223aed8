"""Tournaments: idempotent creation (also under concurrency), status compare-and-set, matches."""

from __future__ import annotations

import threading

import pytest

from arena.store import (
    DuplicateTournament,
    IdempotencyConflict,
    Store,
    UnknownTournament,
    new_tournament_id,
)

SPEC = {"participants": ["a", "b", "c"], "variant": "flip", "seats": 2, "seed": 7}


def test_create_and_read(store: Store) -> None:
    result = store.tournaments.create("t-1", SPEC)
    assert result.created and result.tournament_id == "t-1"
    record = store.tournaments.get("t-1")
    assert record.spec == SPEC and record.status == "pending" and record.idempotency_key is None
    assert store.tournaments.ids() == ["t-1"]
    with pytest.raises(DuplicateTournament, match="'t-1' already exists"):
        store.tournaments.create("t-1", SPEC)


def test_retried_create_creates_nothing_twice(store: Store) -> None:
    # a client that makes up a fresh id (and puts it in the spec) on every try
    first = store.tournaments.create(
        new_tournament_id(), {**SPEC, "tournament_id": "x"}, idempotency_key="r1"
    )
    again = store.tournaments.create(
        new_tournament_id(), {**SPEC, "tournament_id": "y"}, idempotency_key="r1"
    )
    assert first.created and not again.created
    assert again.tournament_id == first.tournament_id
    assert store.tournaments.ids() == [first.tournament_id]
    assert store.tournaments.get(first.tournament_id).idempotency_key == "r1"


def test_reusing_a_key_with_another_spec_is_a_conflict(store: Store) -> None:
    store.tournaments.create("t-1", SPEC, idempotency_key="req-1")
    with pytest.raises(IdempotencyConflict, match="'req-1' was already used for tournament 't-1'"):
        store.tournaments.create("t-2", {**SPEC, "seed": 8}, idempotency_key="req-1")
    assert store.tournaments.ids() == ["t-1"]


def test_concurrent_creates_with_one_key_create_one_tournament(store: Store) -> None:
    n = 8
    barrier = threading.Barrier(n)
    results = []
    lock = threading.Lock()

    def create(i: int) -> None:
        barrier.wait()
        r = store.tournaments.create(f"t-{i}", SPEC, idempotency_key="same-request")
        with lock:
            results.append(r)

    threads = [threading.Thread(target=create, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r.created for r in results) == 1
    assert len({r.tournament_id for r in results}) == 1
    assert len(store.tournaments.ids()) == 1


def test_status_compare_and_set(store: Store) -> None:
    store.tournaments.create("t-1", SPEC)
    assert store.tournaments.set_status("t-1", "running", expected=["pending"])
    assert not store.tournaments.set_status("t-1", "running", expected=["pending"])
    assert store.tournaments.status("t-1") == "running"
    assert store.tournaments.set_status("t-1", "finished")
    with pytest.raises(ValueError, match="unknown tournament status 'done'"):
        store.tournaments.set_status("t-1", "done")
    with pytest.raises(UnknownTournament, match="unknown tournament 'nope'"):
        store.tournaments.set_status("nope", "running")
    with pytest.raises(UnknownTournament):
        store.tournaments.get("nope")


def test_scheduled_matches_are_a_set(store: Store) -> None:
    store.tournaments.create("t-1", SPEC)
    ids = [f"t-1.m{i}" for i in range(2500)]
    assert store.tournaments.add_matches("t-1", ids) == 2500
    assert store.tournaments.add_matches("t-1", [*ids[:10], "t-1.extra"]) == 1
    assert store.tournaments.match_count("t-1") == 2501
    assert store.results.progress("t-1").scheduled == 2501
    assert "t-1.m2499" in store.tournaments.matches("t-1")
    with pytest.raises(UnknownTournament):
        store.tournaments.add_matches("nope", ["x"])


def test_extra_fields_and_a_retry_compared_with_the_request(store: Store) -> None:
    """The arena's own choices (a drawn seed, its commitment) are stored with the tournament; a retry is compared
    with the request as sent (seed 0), so a retry whose seed would be drawn again still finds the first one."""
    requested = {**SPEC, "seed": 0}
    first = store.tournaments.create("t-x", {**SPEC, "seed": 111}, idempotency_key="k", requested=requested,
                                     extra={"seed_salt": "ab" * 32, "matches_total": "3"})
    again = store.tournaments.create("t-y", {**SPEC, "seed": 222}, idempotency_key="k", requested=requested,
                                     extra={"seed_salt": "cd" * 32})
    assert first.created and not again.created and again.tournament_id == "t-x"
    record = store.tournaments.get("t-x")
    assert record.spec["seed"] == 111 and record.extra == {"seed_salt": "ab" * 32, "matches_total": "3"}
    assert not store.tournaments.exists("t-y")
    with pytest.raises(ValueError, match="may not replace status"):
        store.tournaments.create("t-z", SPEC, extra={"status": "finished"})
    with pytest.raises(ValueError, match="invalid tournament id"):
        store.tournaments.create("t:z", SPEC)  # a key part never holds the separator
