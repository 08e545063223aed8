"""arena.server.deadlines: one timer expires every pending decision at its own deadline."""

from __future__ import annotations

import asyncio

from arena.server.deadlines import Deadlines


def test_futures_expire_at_their_deadlines_in_order_across_time_limits() -> None:
    async def scenario() -> list[tuple[str, float]]:
        loop = asyncio.get_running_loop()
        deadlines = Deadlines()
        started = loop.time()
        expired: list[tuple[str, float]] = []
        futures = {name: loop.create_future() for name in ("slow", "fast", "answered", "late-fast")}
        for name, future in futures.items():
            future.add_done_callback(lambda f, name=name: expired.append((name, loop.time() - started))
                                     if f.exception() is not None else None)
        deadlines.add(futures["slow"], 0.20)
        deadlines.add(futures["answered"], 0.20)
        deadlines.add(futures["fast"], 0.05)  # a shorter limit added later still expires first
        await asyncio.sleep(0.01)  # behaviour under test: the same limit, added later, expires later
        deadlines.add(futures["late-fast"], 0.05)
        futures["answered"].set_result(1)
        await asyncio.sleep(0.3)  # behaviour under test: every deadline (the last at 0.20 s) passes
        assert futures["answered"].result() == 1
        assert len(deadlines) == 0  # nothing left behind
        return expired

    expired = asyncio.run(scenario())
    assert [name for name, _ in expired] == ["fast", "late-fast", "slow"]
    at = dict(expired)
    assert at["fast"] >= 0.05 and at["late-fast"] >= 0.06 and at["slow"] >= 0.20


def test_answered_futures_are_never_failed_and_the_returned_deadline_is_on_the_loop_clock() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        deadlines = Deadlines()
        futures = [loop.create_future() for _ in range(100)]
        before = loop.time()
        ats = [deadlines.add(future, 0.05) for future in futures]
        assert all(before + 0.05 <= at <= loop.time() + 0.05 for at in ats)
        for future in futures[:99]:
            future.set_result(0)
        futures[50].cancel()  # already done: no effect
        await asyncio.sleep(0.1)  # behaviour under test: the 0.05 s deadline passes
        assert [f.result() for f in futures[:99]] == [0] * 99
        assert isinstance(futures[99].exception(), TimeoutError)

    asyncio.run(scenario())


def test_a_new_event_loop_starts_afresh() -> None:
    deadlines = Deadlines()

    async def one() -> bool:
        future = asyncio.get_running_loop().create_future()
        deadlines.add(future, 0.01)
        await asyncio.sleep(0.05)  # behaviour under test: the deadline passes on this loop's timer
        return isinstance(future.exception(), TimeoutError)

    assert asyncio.run(one())
    assert asyncio.run(one())


def test_answered_decisions_at_the_head_leave_when_the_next_is_added() -> None:
    """A queue holds about the decisions in flight, not every decision of the last time limit."""

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        deadlines = Deadlines()
        slow = loop.create_future()
        deadlines.add(slow, 5.0)
        for _ in range(1000):
            future = loop.create_future()
            deadlines.add(future, 5.0)
            future.set_result(0)
        assert len(deadlines) == 1001  # an unanswered head keeps what is behind it
        slow.set_result(0)
        for _ in range(1000):
            future = loop.create_future()
            deadlines.add(future, 5.0)
            future.set_result(0)
            assert len(deadlines) <= 2  # the answered ones before it are gone
        last = loop.create_future()
        deadlines.add(last, 0.02)
        await asyncio.sleep(0.05)  # behaviour under test: the deadline passes
        assert isinstance(last.exception(), TimeoutError)

    asyncio.run(scenario())
