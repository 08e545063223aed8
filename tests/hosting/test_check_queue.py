"""The bot host's queue of checks (arena.hosting.queue): in turn per author, a bot's newest waiting version only,
places that tell each author how many checks come before theirs."""

from __future__ import annotations

from arena.hosting.queue import Waiting, plan_checks


def _w(bot: str, version: int, author: str, at: float) -> Waiting:
    return Waiting(bot, version, author, at)


def test_one_author_s_many_bots_do_not_hold_every_slot() -> None:
    """Four slow bots of one author, submitted first, and one of another author's a little later: the other
    author's check is second, not fifth; with one of the first author's under check it is first."""
    many = [_w(f"slow{i}", 1, "alice", float(i)) for i in range(4)]
    late = _w("quick", 1, "bob", 10.0)
    plan = plan_checks([*many, late], running=[])
    assert [w.bot for w in plan.order] == ["slow0", "quick", "slow1", "slow2", "slow3"]
    running = plan_checks([*many[1:], late], running=[many[0]])
    assert running.order[0] == late
    assert [w.key for w in running.order] == [("quick", 1), ("slow1", 1), ("slow2", 1), ("slow3", 1)]


def test_only_the_newest_waiting_version_of_a_bot_is_checked() -> None:
    versions = [_w("Bot", v, "alice", float(v)) for v in (1, 2, 3)]
    plan = plan_checks(versions, running=[])
    assert [w.version for w in plan.order] == [3]
    assert [w.version for w in plan.superseded] == [1, 2]
    assert [w.key for w in plan.order] == [("bot", 3)]


def test_a_version_under_check_is_not_superseded_but_an_older_waiting_one_is() -> None:
    under = _w("bot", 2, "alice", 2.0)
    plan = plan_checks([_w("bot", 1, "alice", 1.0), _w("bot", 3, "alice", 3.0)], running=[under])
    assert [w.version for w in plan.superseded] == [1]
    assert [w.version for w in plan.order] == [3]


def test_authors_take_turns_and_the_longest_waiting_goes_first() -> None:
    plan = plan_checks([_w("a1", 1, "alice", 5.0), _w("a2", 1, "alice", 6.0), _w("b1", 1, "bob", 1.0),
                        _w("b2", 1, "bob", 2.0), _w("c1", 1, "carol", 3.0)], running=[])
    assert [w.bot for w in plan.order] == ["b1", "c1", "a1", "b2", "a2"]
    assert plan_checks([], running=[]).order == ()
