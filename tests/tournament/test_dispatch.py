"""The work-conserving release of a batch's matches (arena.tournament.dispatch)."""

from __future__ import annotations

import random

from arena.tournament.dispatch import WaitingMatch, matches_to_start


def waiting(match_id: str, *bots: str) -> WaitingMatch:
    return WaitingMatch(match_id, frozenset(bots))


def ids(chosen: list[WaitingMatch]) -> list[str]:
    return [m.match_id for m in chosen]


def test_every_match_whose_bots_are_free_starts_in_order() -> None:
    queue = [waiting("m1", "a", "b"), waiting("m2", "a", "c"), waiting("m3", "c", "d"), waiting("m4", "b", "d")]
    # a has one slot: m1 takes it, m2 waits; c and d are free for m3; b and d are then gone for m4.
    assert ids(matches_to_start(queue, {"a": 1, "b": 1, "c": 1, "d": 1}, room=10, builtin_room=1)) == ["m1", "m3"]


def test_a_blocked_match_does_not_hold_up_the_ones_after_it() -> None:
    queue = [waiting("first", "busy", "x"), waiting("second", "x", "y")]
    assert ids(matches_to_start(queue, {"busy": 0, "x": 1, "y": 1}, room=5, builtin_room=1)) == ["second"]


def test_room_and_the_builtin_share_bound_the_start() -> None:
    queue = [waiting("b1"), waiting("b2"), waiting("r1", "a"), waiting("r2", "b"), waiting("r3", "c")]
    free = {"a": 1, "b": 1, "c": 1}
    assert ids(matches_to_start(queue, free, room=3, builtin_room=1)) == ["b1", "r1", "r2"]
    assert ids(matches_to_start(queue, free, room=10, builtin_room=0)) == ["r1", "r2", "r3"]
    assert matches_to_start(queue, free, room=0, builtin_room=1) == []


def test_random_queues_never_overbook_and_leave_no_startable_match() -> None:
    rng = random.Random(5)
    bots = [f"bot{i}" for i in range(6)]
    for _ in range(300):
        queue = [waiting(f"m{i}", *rng.sample(bots, rng.randint(0, 3))) for i in range(rng.randint(0, 12))]
        free = {bot: rng.randint(0, 3) for bot in bots}
        room, builtin_room = rng.randint(0, 8), rng.randint(0, 2)
        chosen = matches_to_start(queue, free, room, builtin_room)
        assert len(chosen) <= room and sum(m.builtin_only for m in chosen) <= builtin_room
        used = {bot: sum(bot in m.bots for m in chosen) for bot in bots}
        assert all(used[bot] <= free[bot] for bot in bots)  # nobody in more matches than its free slots
        assert ids(chosen) == [m.match_id for m in queue if m in chosen]  # in the queue's order
        if len(chosen) < room:  # work-conserving: every match left out has a bot without a slot left
            left = {bot: free[bot] - used[bot] for bot in bots}
            builtin_left = builtin_room - sum(m.builtin_only for m in chosen)
            for match in queue:
                if match not in chosen:
                    assert (builtin_left <= 0) if match.builtin_only else any(left[b] <= 0 for b in match.bots)
