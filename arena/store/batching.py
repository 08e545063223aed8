"""Coalescing Redis commands per event-loop tick: :class:`CommandBatcher` sends what the tasks of one loop ask for
in one pipeline on the next tick (what comes while it is out waits for the next one), so a busy loop sends fewer,
larger pipelines over one connection.

Appends to one list become one ``RPUSH``; publishes to one channel one ``PUBLISH`` of a frame
(:func:`pack_messages`, split again by :func:`unpack_messages`), whose messages are heard, or not, together. A
:class:`TrafficMeter` counts each command with the RESP bytes of its request and reply. A failed round trip fails
every command in it with the client's error.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis.asyncio
from redis.exceptions import NoScriptError, RedisError

BATCH_MARK = b"\x1e"
"""First byte of a frame of several published messages (no relay message starts with it: as a protobuf tag it
would be wire type 6, which does not exist)."""
MAX_COMMANDS = 512
"""At most this many commands per round trip (more wait for the next)."""
MAX_FRAME_BYTES = 256 * 1024

# RPUSH every value but the last argument, and give the list that expiry (seconds) if it has none: only its reader
# extends its life.
_PUSH_KEEP_TTL = """
local n = redis.call('RPUSH', KEYS[1], unpack(ARGV, 1, #ARGV - 1))
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[#ARGV]) end
return n
"""


class TrafficMeter(Protocol):
    """Told about every round trip of Redis commands, with their request and reply bytes."""

    def count(self, commands: int, sent_bytes: int, received_bytes: int) -> None: ...


@dataclass(frozen=True)
class Script:
    """A Lua script sent by its SHA-1 (``EVALSHA``), in full (``EVAL``) when the server does not know it yet."""

    body: str
    sha: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha", hashlib.sha1(self.body.encode(), usedforsecurity=False).hexdigest())


PUSH_KEEP_TTL = Script(_PUSH_KEEP_TTL)


def pack_messages(messages: Sequence[bytes]) -> bytes:
    """One payload for several messages: :data:`BATCH_MARK`, their lengths (``12,345``), a newline, the messages."""
    if len(messages) == 1:
        return messages[0]
    return BATCH_MARK + b",".join(str(len(m)).encode() for m in messages) + b"\n" + b"".join(messages)


def unpack_messages(payload: bytes) -> list[bytes]:
    """The messages of a payload of :func:`pack_messages`; ValueError when a frame is malformed."""
    if not payload.startswith(BATCH_MARK):
        return [payload]
    head, newline, rest = payload[1:].partition(b"\n")
    if not newline:
        raise ValueError("a relay frame without its lengths line")
    sizes = [int(size) for size in head.split(b",")]
    if sum(sizes) != len(rest) or min(sizes, default=0) < 0:
        raise ValueError("a relay frame whose lengths do not add up")
    return [rest[end - size:end] for size, end in zip(sizes, itertools.accumulate(sizes), strict=True)]


def _bulk_size(length: int) -> int:
    return len(str(length)) + length + 5  # $<len>\r\n<data>\r\n


def _as_bytes(arg: Any) -> bytes:
    if isinstance(arg, bytes | bytearray | memoryview):
        return bytes(arg)
    return str(arg).encode()


def command_size(args: Sequence[Any]) -> int:
    return len(str(len(args))) + 3 + sum(_bulk_size(len(_as_bytes(arg))) for arg in args)


def reply_size(value: Any) -> int:
    """Bytes of a RESP2 reply, from what redis-py made of it."""
    if value is None:
        return 5  # $-1\r\n (or *-1\r\n)
    if isinstance(value, bool):
        return 4
    if isinstance(value, int):
        return len(str(value)) + 3
    if isinstance(value, bytes | bytearray | str):
        return _bulk_size(len(_as_bytes(value)))
    if isinstance(value, Exception):
        return len(str(value)) + 3
    if isinstance(value, list | tuple | set | frozenset):
        return len(str(len(value))) + 3 + sum(reply_size(item) for item in value)
    return _bulk_size(len(str(value)))


@dataclass(eq=False)
class _Op:
    kind: str  # "command", "script", "append", "publish"
    args: tuple[Any, ...] = ()
    key: bytes | str = b""
    value: bytes = b""
    ttl_s: int = 0
    refresh: bool = True
    script: Script | None = None
    future: asyncio.Future[Any] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


@dataclass(eq=False)
class _Wire:
    """One command of a round trip and the requests its reply answers (``answers``: not the ``EXPIRE`` after an
    ``RPUSH``)."""

    args: tuple[Any, ...]
    ops: list[_Op]
    script: Script | None = None
    answers: bool = True


class CommandBatcher:
    """Sends the commands queued during one loop tick in one pipeline (make it inside the running loop)."""

    def __init__(self, client: redis.asyncio.Redis, meter: TrafficMeter | None = None) -> None:
        self._r = client
        self._meter = meter
        self._queue: list[_Op] = []
        self._sender: asyncio.Task[None] | None = None
        self._closed = False

    def execute(self, *args: Any) -> asyncio.Future[Any]:
        return self._add(_Op("command", args=args))

    def run_script(self, script: Script, keys: Sequence[Any], args: Sequence[Any]) -> asyncio.Future[Any]:
        return self._add(_Op("script", args=(len(keys), *keys, *args), script=script))

    def append(self, key: str, value: bytes, ttl_s: int, *, refresh: bool = True) -> asyncio.Future[Any]:
        """Append ``value`` to the list ``key``, which expires ``ttl_s`` after this push (``refresh``) or after it
        was created."""
        return self._add(_Op("append", key=key, value=value, ttl_s=ttl_s, refresh=refresh))

    def publish(self, channel: str, message: bytes) -> asyncio.Future[Any]:
        return self._add(_Op("publish", key=channel, value=message))

    async def close(self) -> None:
        """Fail what is still queued and stop; later requests fail at once."""
        self._closed = True
        self._settle(self._queue, redis.ConnectionError("the relay's Redis client is closed"))
        self._queue = []
        sender, self._sender = self._sender, None
        if sender is not None and sender is not asyncio.current_task():
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    def _add(self, op: _Op) -> asyncio.Future[Any]:
        if self._closed:
            op.future.set_exception(redis.ConnectionError("the relay's Redis client is closed"))
            return op.future
        self._queue.append(op)
        if self._sender is None:  # its first step runs on the next tick, after every task ready now queued theirs
            self._sender = asyncio.get_running_loop().create_task(self._send_all(), name="relay-batcher")
        return op.future

    async def _send_all(self) -> None:
        task = asyncio.current_task()
        sent: list[_Op] = []
        try:
            while self._queue:
                if task is not None and task.cancelling():  # one that redis-py swallowed
                    raise asyncio.CancelledError
                wires = _wires([op for op in self._queue if not op.future.done()], MAX_COMMANDS)
                taken = {id(op) for wire in wires for op in wire.ops}
                sent = [op for op in self._queue if id(op) in taken]
                self._queue = [op for op in self._queue if id(op) not in taken and not op.future.done()]
                await self._round_trip(wires)
                sent = []
        except asyncio.CancelledError:  # the loop shuts down, or close(): nothing queued is sent any more
            error = redis.ConnectionError("the relay's Redis client was closed meanwhile")
            self._settle([*sent, *self._queue], error)
            self._queue = []
            raise
        finally:
            if self._sender is task:
                self._sender = None

    async def _round_trip(self, wires: list[_Wire]) -> None:
        if not wires:
            return
        try:
            replies = await self._pipeline(wires)
        except (RedisError, OSError) as error:
            self._settle([op for wire in wires for op in wire.ops], error)
            return
        replies = await self._with_scripts_loaded(wires, replies)
        for wire, reply in zip(wires, replies, strict=True):
            if wire.answers:
                self._settle(wire.ops, reply)

    async def _with_scripts_loaded(self, wires: list[_Wire], replies: list[Any]) -> list[Any]:
        """``replies``, those of scripts the server did not know yet (new, or Redis restarted) sent again in full."""
        unknown = [wire for wire, reply in zip(wires, replies, strict=True)
                   if wire.script is not None and isinstance(reply, NoScriptError)]
        if not unknown:
            return replies
        for wire in unknown:
            assert wire.script is not None
            wire.args = ("EVAL", wire.script.body, *wire.args[2:])
        try:
            again = await self._pipeline(unknown)
        except (RedisError, OSError) as error:
            self._settle([op for wire in unknown for op in wire.ops], error)
            return replies
        redone = {id(wire): reply for wire, reply in zip(unknown, again, strict=True)}
        return [redone.get(id(wire), reply) for wire, reply in zip(wires, replies, strict=True)]

    @staticmethod
    def _settle(ops: Iterable[_Op], reply: Any) -> None:
        """Answer each op still waiting with ``reply``, or fail it when ``reply`` is an error."""
        for op in ops:
            if op.future.done():
                continue
            if isinstance(reply, Exception):
                op.future.set_exception(reply)
            else:
                op.future.set_result(reply)

    async def _pipeline(self, wires: Sequence[_Wire]) -> list[Any]:
        pipe = self._r.pipeline(transaction=False)
        for wire in wires:
            pipe.execute_command(*wire.args)
        replies: list[Any] = await pipe.execute(raise_on_error=False)
        if self._meter is not None:
            self._meter.count(len(wires), sum(command_size(wire.args) for wire in wires),
                              sum(reply_size(reply) for reply in replies))
        return replies


def _wires(ops: Sequence[_Op], limit: int) -> list[_Wire]:
    """The commands of one round trip for ``ops``, in their order (merged ones at the place of the first), at most
    ``limit``: the ops left out wait for the next round trip."""
    wires: list[_Wire] = []
    appends: dict[tuple[str, int, bool], _Wire] = {}
    frames: dict[str, tuple[_Wire, int]] = {}  # channel -> its open PUBLISH and the bytes of its messages
    for op in ops:
        if op.kind == "append":
            key = (str(op.key), op.ttl_s, op.refresh)
            wire = appends.get(key)
            if wire is not None:
                wire.ops.append(op)
                wire.args = (*wire.args, op.value) if op.refresh else (*wire.args[:-1], op.value, wire.args[-1])
                continue
            if len(wires) + 2 > limit:
                break
            if op.refresh:
                wire = _Wire(("RPUSH", op.key, op.value), [op])
                wires += [wire, _Wire(("EXPIRE", op.key, op.ttl_s), [op], answers=False)]
            else:
                wire = _Wire(("EVALSHA", PUSH_KEEP_TTL.sha, 1, op.key, op.value, op.ttl_s), [op], PUSH_KEEP_TTL)
                wires.append(wire)
            appends[key] = wire
        elif op.kind == "publish":
            channel = str(op.key)
            wire, size = frames.get(channel, (None, 0))
            if wire is not None and size + len(op.value) <= MAX_FRAME_BYTES:
                wire.ops.append(op)
                frames[channel] = (wire, size + len(op.value))
                continue
            if len(wires) + 1 > limit:
                break
            wire = _Wire(("PUBLISH", channel, op.value), [op])
            frames[channel] = (wire, len(op.value))
            wires.append(wire)
        else:
            if len(wires) + 1 > limit:
                break
            if op.kind == "script":
                assert op.script is not None
                wires.append(_Wire(("EVALSHA", op.script.sha, *op.args), [op], op.script))
            else:
                wires.append(_Wire(op.args, [op]))
    for wire in wires:
        if wire.args[0] == "PUBLISH" and len(wire.ops) > 1:
            wire.args = ("PUBLISH", wire.args[1], pack_messages([op.value for op in wire.ops]))
    return wires
