"""arena/store/batching.py without a server: frames of published messages, the RESP sizes the relay's counters
add up, and how the commands queued in one loop tick become one round trip."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redis.connection import Connection

from arena.metrics import create_metrics
from arena.store import StoreFailure
from arena.store.batching import (
    BATCH_MARK,
    PUSH_KEEP_TTL,
    CommandBatcher,
    _Op,
    _wires,
    command_size,
    pack_messages,
    reply_size,
    unpack_messages,
)
from arena.store.relay import parse_reply_frame, reply_frame


@settings(max_examples=40, deadline=None)
@given(st.lists(st.binary(max_size=64).map(lambda b: b"{" + b), min_size=1, max_size=8))
def test_a_frame_of_messages_splits_back_into_them(messages: list[bytes]) -> None:
    payload = pack_messages(messages)
    assert unpack_messages(payload) == messages
    assert payload.startswith(BATCH_MARK) == (len(messages) > 1)  # one message goes as it is (old gateways)


@pytest.mark.parametrize("payload", [BATCH_MARK + b"3,4", BATCH_MARK + b"3,9\nabcdefg", BATCH_MARK + b"x\nab"])
def test_a_malformed_frame_is_refused(payload: bytes) -> None:
    with pytest.raises(ValueError):
        unpack_messages(payload)


def test_command_sizes_are_what_redis_py_puts_on_the_wire() -> None:
    connection = Connection()
    for args in [("PUBLISH", "uno:relay:live:gw-1", b"{\"op\":\"decide\"}\n" + bytes(range(256)) * 12),
                 ("EVALSHA", PUSH_KEEP_TTL.sha, 1, "uno:relay:gw-1", b"m1", b"m2", 60),
                 ("BLPOP", "uno:relay:replies:abc", 5.0), ("EXPIRE", "k", 60)]:
        packed = b"".join(bytes(part) for part in connection.pack_command(*args))
        assert command_size(args) == len(packed), args


@pytest.mark.parametrize(("value", "wire"), [
    (None, b"$-1\r\n"), (3, b":3\r\n"), (True, b":1\r\n"), (b"abc", b"$3\r\nabc\r\n"),
    ([b"key", b"answer"], b"*2\r\n$3\r\nkey\r\n$6\r\nanswer\r\n"), ([], b"*0\r\n"),
])
def test_reply_sizes_follow_resp2(value: Any, wire: bytes) -> None:
    assert reply_size(value) == len(wire)


def test_a_reply_frame_carries_its_id() -> None:
    assert parse_reply_frame(reply_frame("1f", b"an answer")) == ("1f", b"an answer")
    with pytest.raises(ValueError, match="without its id"):
        parse_reply_frame(b"garbage")


def _ops(*specs: tuple[str, str, bytes]) -> list[_Op]:
    loop = asyncio.new_event_loop()
    try:
        return [_Op(kind, future=loop.create_future(), key=key, value=value, ttl_s=60, refresh=kind == "append",
                    args=("EXPIRE", key, 60) if kind == "command" else ()) for kind, key, value in specs]
    finally:
        loop.close()


def test_appends_to_one_list_and_publishes_to_one_channel_are_merged_in_order() -> None:
    ops = _ops(("publish", "live:a", b"{1"), ("append", "replies:x", b"r1"), ("publish", "live:b", b"{2"),
               ("publish", "live:a", b"{3"), ("append", "replies:x", b"r2"), ("command", "q", b""))
    wires = _wires(ops, 100)
    assert [wire.args for wire in wires] == [
        ("PUBLISH", "live:a", pack_messages([b"{1", b"{3"])),
        ("RPUSH", "replies:x", b"r1", b"r2"), ("EXPIRE", "replies:x", 60),
        ("PUBLISH", "live:b", b"{2"),
        ("EXPIRE", "q", 60),
    ]
    assert [len(wire.ops) for wire in wires] == [2, 2, 1, 1, 1]
    assert [wire.answers for wire in wires] == [True, True, False, True, True]


def test_appends_that_keep_the_list_expiry_go_through_the_script_with_every_value() -> None:
    loop = asyncio.new_event_loop()
    try:
        ops = [_Op("append", future=loop.create_future(), key="uno:relay:gw", value=v, ttl_s=60, refresh=False)
               for v in (b"a", b"b")]
    finally:
        loop.close()
    (wire,) = _wires(ops, 10)
    assert wire.args == ("EVALSHA", PUSH_KEEP_TTL.sha, 1, "uno:relay:gw", b"a", b"b", 60)
    assert wire.script is PUSH_KEEP_TTL


def test_a_round_trip_takes_at_most_its_limit_of_commands() -> None:
    ops = _ops(*[("command", f"k{i}", b"") for i in range(5)])
    assert len(_wires(ops, 3)) == 3


class FakePipeline:
    """What CommandBatcher uses of a redis-py pipeline; records each round trip."""

    def __init__(self, trips: list[list[tuple[Any, ...]]]) -> None:
        self.trips = trips
        self.stack: list[tuple[Any, ...]] = []

    def execute_command(self, *args: Any) -> None:
        self.stack.append(args)

    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        self.trips.append(self.stack)
        await asyncio.sleep(0)
        return [1 for _ in self.stack]


class FakeClient:
    def __init__(self) -> None:
        self.trips: list[list[tuple[Any, ...]]] = []

    def pipeline(self, transaction: bool = True) -> FakePipeline:
        return FakePipeline(self.trips)


def test_what_many_tasks_ask_in_one_tick_is_one_round_trip_and_counted() -> None:
    client = FakeClient()
    metrics = create_metrics(None)

    async def main() -> list[int]:
        batcher = CommandBatcher(client, metrics.relay_meter("worker"))  # type: ignore[arg-type]
        heard = await asyncio.gather(*(batcher.publish("live:gw", b"{%d}" % n) for n in range(10)),
                                     batcher.append("replies:x", b"1 ok", 60))
        later = await batcher.publish("live:gw", b"{late}")
        await batcher.close()
        return [*heard, later]

    results = asyncio.run(main())
    assert results[:10] == [1] * 10 and results[-1] == 1
    assert [[args[0] for args in trip] for trip in client.trips] == [["PUBLISH", "RPUSH", "EXPIRE"], ["PUBLISH"]]
    assert metrics.relay_redis_commands.labels("worker")._value.get() == 4
    assert metrics.relay_redis_bytes.labels("worker", "sent")._value.get() == sum(
        command_size(args) for trip in client.trips for args in trip)


def test_a_closed_batcher_fails_at_once() -> None:
    async def main() -> None:
        batcher = CommandBatcher(FakeClient())  # type: ignore[arg-type]
        await batcher.close()
        with pytest.raises(StoreFailure):
            await batcher.execute("PING")

    asyncio.run(main())


def test_the_relay_meter_takes_only_the_two_sides() -> None:
    with pytest.raises(ValueError, match="side"):
        create_metrics(None).relay_meter("elsewhere")
