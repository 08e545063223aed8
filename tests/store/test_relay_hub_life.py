"""The life of a relay hub (arena/store/relay_hub.py) without a server: it ends with its event loop, even when the
blocking pop swallows the cancellation (redis-py does, at times: PRACTICE.md), and wakes the seats still waiting."""

from __future__ import annotations

import asyncio
import contextlib
import threading

from arena.store import RelayHub


class SwallowingChannel:
    """What RelayHub uses of a RelayChannel; its pop swallows a cancellation, as redis-py's sometimes does."""

    def __init__(self) -> None:
        self.closed = False
        self.pops = 0

    def replies_key(self, hub_id: str) -> str:
        return f"uno:relay:replies:{hub_id}"

    async def pop_replies(self, key: str, timeout_s: float, expected: int = 1) -> list[bytes]:
        self.pops += 1
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(timeout_s)
        return []

    async def close(self) -> None:
        self.closed = True


def run_in_thread(main: object, timeout: float = 20.0) -> None:
    """asyncio.run(main) in a thread: a hang fails here instead of hanging the test run."""
    done = threading.Event()
    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(main)  # type: ignore[arg-type]
        except BaseException as error:
            errors.append(error)
        finally:
            done.set()

    threading.Thread(target=target, daemon=True).start()
    assert done.wait(timeout), "the loop did not end: the hub's reader ignored its cancellation"
    assert not errors, errors


def test_a_hub_ends_with_its_loop_even_when_its_pop_swallows_the_cancellation() -> None:
    channel = SwallowingChannel()
    hubs: list[RelayHub] = []

    async def main() -> None:
        hubs.append(await RelayHub(channel).start())  # type: ignore[arg-type]
        while not channel.pops:  # the reader is in its pop now
            await asyncio.sleep(0.01)

    run_in_thread(main())  # asyncio.run cancels the reader, then closes the hub (shutdown_asyncgens)
    (hub,) = hubs
    assert hub.closed and channel.closed and hub.waiting == 0


def test_close_stops_the_reader_and_the_hub_takes_no_more_waiters() -> None:
    channel = SwallowingChannel()

    async def main() -> None:
        hub = await RelayHub(channel).start()  # type: ignore[arg-type]
        replies = hub.expect()
        await hub.close()
        assert hub.closed and channel.closed
        assert await replies.next(5) is None
        try:
            hub.expect()
        except Exception as error:
            assert "closed" in str(error)
        else:
            raise AssertionError("a closed hub took a waiter")

    run_in_thread(main())
