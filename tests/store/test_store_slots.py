"""Arena-wide match slots of remote bots (arena.store.slots): all or none, within each bot's offer, leases."""

from __future__ import annotations

import time

from arena.store import Store
from arena.store.slots import ABSENT_CAPACITY


def test_a_reservation_takes_every_slot_or_none(store: Store) -> None:
    for name, offer in (("ann", 1), ("bob", 2)):
        store.bots.register(name)
        store.sessions.open(name, "gw1", capacity=offer, ttl=60)
    slots = store.slots
    assert slots.reserve("m1", {"ann": 1, "bob": 2}, 30)
    assert not slots.reserve("m2", {"ann": 1, "bob": 2}, 30)  # ann is full: bob's slot is not taken either
    assert slots.free(["ann", "bob"])[0] == {"ann": 0, "bob": 1}
    assert slots.reserve("m1", {"ann": 1, "bob": 2}, 30)  # the same match again: it holds them already
    assert slots.reserve("m3", {"bob": 2}, 30)
    assert slots.free(["bob"])[0] == {"bob": 0}
    slots.release("m1", ["ann", "bob"])
    assert slots.free(["ann", "bob"])[0] == {"ann": 1, "bob": 1}
    assert slots.reserve("m2", {"ann": 1, "bob": 2}, 30)


def test_a_lease_not_renewed_frees_itself_and_a_renewed_one_holds(store: Store) -> None:
    slots = store.slots
    assert slots.reserve("dead", {"ann": 1}, 0.3)
    assert slots.reserve("alive", {"bob": 1}, 0.3)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and slots.free(["ann"])[0]["ann"] == 0:
        slots.renew([("alive", ["bob"])], 0.3)
        time.sleep(0.05)
    assert slots.free(["ann"])[0]["ann"] == 1  # the worker that held it stopped renewing: free again
    slots.renew([("alive", ["bob"])], 30)
    assert slots.free(["bob"])[0]["bob"] == 0


def test_capacity_is_the_newest_live_session_offer(store: Store) -> None:
    store.bots.register("ann")
    assert store.slots.capacities(["ann"]) == {"ann": ABSENT_CAPACITY}
    store.sessions.open("ann", "gw1", capacity=3)
    assert store.slots.capacities(["ann"]) == {"ann": 3}
    assert store.slots.free(["ann"]) == ({"ann": 3}, {"ann": 3})
