"""The relay's Redis side (asyncio): a gateway's message queue and channel, the answers to relayed messages, and
which gateway holds a bot's newest live session. It moves bytes; the format is :mod:`arena.relay.envelope`'s.

The queue (a list) carries what must not be lost (match starts and ends) and expires unless its gateway keeps it;
the Pub/Sub channel carries the bulk, decision requests and events, which Redis never writes to its append-only
file. A message no gateway heard is not queued: :meth:`RelayChannel.publish` says so and the sender tries again.
Every command that does not block goes through a :class:`~arena.store.batching.CommandBatcher`; the blocking pops
have connections of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import redis.asyncio

from .batching import CommandBatcher, Script, TrafficMeter, command_size, reply_size, unpack_messages
from .keys import Keys
from .session_store import ENDED_TTL_S, RELAY_QUEUE_TTL_S, PendingEnd, parse_session

REPLY_TTL_S = 60
"""An answer nobody read expires after this long (a list of answers: after its latest one)."""
WAIT_CHUNK_S = 20.0
"""The longest single blocking pop: a longer one fails with the client's read timeout."""
QUEUE_TTL_S = RELAY_QUEUE_TTL_S
REPLIES_PER_POP = 64
"""At most this many answers taken from a list in one round trip."""

_NOTE_ENDED = Script("""
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
""")


@dataclass(frozen=True)
class ReplyAddress:
    """Where the answers to one relayed message go: the list ``key`` (a worker process's hub's, or one of its own for
    a draining gateway's hand-over), each answer framed with ``rid``, the message's id there."""

    key: str
    rid: str


def reply_frame(rid: str, answer: bytes) -> bytes:
    """An answer on a list: its id, a space, the answer."""
    return rid.encode() + b" " + answer


def parse_reply_frame(raw: bytes) -> tuple[str, bytes]:
    """``(rid, answer)`` of :func:`reply_frame`; ValueError for an item that is not one."""
    rid, space, answer = raw.partition(b" ")
    if not space:
        raise ValueError("a relay answer without its id")
    return rid.decode(errors="replace"), answer


class RelayChannel:
    """Relay traffic over one asyncio Redis client (make it inside the running loop: :meth:`Store.relay`)."""

    def __init__(self, client: redis.asyncio.Redis, keys: Keys, meter: TrafficMeter | None = None) -> None:
        self._r = client
        self._k = keys
        self._meter = meter
        self._batch = CommandBatcher(client, meter)
        self._multi_pop: bool | None = None  # BLMPOP (Redis 7)
        self._count_pop: bool | None = None  # LPOP with a count (Redis 6.2)

    def _counted(self, args: Sequence[Any], reply: Any) -> None:
        if self._meter is not None:
            self._meter.count(1, command_size(args), reply_size(reply))

    async def push(self, gateway_id: str, message: bytes) -> None:
        """Queue a message for the gateway (a new queue expires after :data:`QUEUE_TTL_S` unless its gateway keeps
        it)."""
        await self._batch.append(self._k.relay_queue(gateway_id), message, QUEUE_TTL_S, refresh=False)

    async def publish(self, gateway_id: str, message: bytes) -> bool:
        """Send a message to the gateway on its channel; ``False`` when it did not listen: the message is gone."""
        return int(await self._batch.publish(self._k.relay_live(gateway_id), message)) > 0

    @contextlib.asynccontextmanager
    async def listen(self, gateway_id: str) -> AsyncIterator[AsyncIterator[bytes]]:
        """The messages published to the gateway from now on; a lost connection ends the iteration with the Redis
        error (subscribe again)."""
        pubsub = self._r.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(self._k.relay_live(gateway_id))

        async def messages() -> AsyncIterator[bytes]:
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is not None and message.get("type") == "message":
                    payload = bytes(message["data"])
                    if self._meter is not None:
                        self._meter.count(0, 0, reply_size([b"message", message["channel"], payload]))
                    try:
                        parts = unpack_messages(payload)
                    except ValueError:
                        continue
                    for part in parts:
                        yield part

        try:
            yield messages()
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[attr-defined]

    async def keep_queue(self, gateway_id: str) -> None:
        await self._batch.execute("EXPIRE", self._k.relay_queue(gateway_id), QUEUE_TTL_S)

    async def pop(self, gateway_id: str, timeout_s: float) -> list[bytes]:
        """The gateway's next messages, waiting up to ``timeout_s`` for the first, with those already behind it (the
        ends and closes of a match's seats come together); ``[]`` when none came."""
        return await self.pop_replies(self._k.relay_queue(gateway_id), timeout_s, REPLIES_PER_POP)

    def new_reply_key(self) -> str:
        return self._k.relay_reply(uuid.uuid4().hex)

    def replies_key(self, hub_id: str) -> str:
        return self._k.relay_replies(hub_id)

    async def wait_reply(self, reply_key: str, timeout_s: float) -> bytes | None:
        """The next answer on the list ``reply_key`` of its own (without its frame), waiting up to ``timeout_s``;
        ``None`` when none came."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout_s
        task = asyncio.current_task()
        while True:
            if task is not None and task.cancelling():  # swallowed by redis-py during the previous pop
                raise asyncio.CancelledError
            left = end - loop.time()
            if left <= 0:
                return None
            chunk = max(0.01, min(left, WAIT_CHUNK_S))  # 0 would wait forever
            item = await self._r.blpop([reply_key], timeout=chunk)
            self._counted(("BLPOP", reply_key, chunk), item)
            if item is not None:
                return parse_reply_frame(bytes(item[1]))[1]

    async def pop_replies(self, key: str, timeout_s: float, expected: int = 1) -> list[bytes]:
        """The answers waiting on the shared list ``key``, waiting up to ``timeout_s`` for the first; ``[]`` when
        none came. One round trip: ``BLMPOP`` (Redis 7), else ``BLPOP`` with, when ``expected`` (the answers
        awaited) is more than one, an ``LPOP`` of that many more pipelined behind it."""
        timeout = max(0.01, min(timeout_s, WAIT_CHUNK_S))
        if self._multi_pop is not False:
            args = ("BLMPOP", timeout, 1, key, "LEFT", "COUNT", REPLIES_PER_POP)
            try:
                found = await self._r.execute_command(*args)
            except redis.ResponseError as error:  # before Redis 7: no BLMPOP
                self._counted(args, error)
                if self._multi_pop is None and "unknown command" in str(error).lower():
                    self._multi_pop = False
                    return []
                raise
            self._multi_pop = True
            self._counted(args, found)
            return [] if not found else [bytes(item) for item in found[1]]
        more = max(0, min(expected, REPLIES_PER_POP) - 1)
        if not more or self._count_pop is False:
            item = await self._r.blpop([key], timeout=timeout)
            self._counted(("BLPOP", key, timeout), item)
            return [] if item is None else [bytes(item[1])]
        pipe = self._r.pipeline(transaction=False)
        pipe.blpop([key], timeout=timeout)
        pipe.lpop(key, more)
        first, rest = await pipe.execute(raise_on_error=False)
        self._counted(("BLPOP", key, timeout), first)
        self._counted(("LPOP", key, more), rest)
        if isinstance(first, Exception):
            raise first
        if isinstance(rest, redis.ResponseError):  # before Redis 6.2: no count
            self._count_pop, rest = False, None
        return ([] if first is None else [bytes(first[1])]) + [bytes(item) for item in rest or ()]

    async def reply(self, to: ReplyAddress, answer: bytes) -> None:
        await self._batch.append(to.key, reply_frame(to.rid, answer), REPLY_TTL_S)

    async def live_gateway(self, bot: str) -> str | None:
        return (await self.find_gateway(bot))[0]

    async def find_gateway(self, bot: str) -> tuple[str | None, bool]:
        """``(gateway, lost)``: the gateway holding the bot's newest live session (or ``None``), and, without one,
        whether the arena lost the bot's stream (then the bot is not to blame for being away)."""
        members, lost = await asyncio.gather(self._batch.execute("SMEMBERS", self._k.bot(bot, "sessions")),
                                             self._batch.execute("EXISTS", self._k.bot(bot, "lost")))
        ids = sorted(m.decode() for m in members)
        raws = await self._batch.execute("MGET", *[self._k.session(i) for i in ids]) if ids else []
        sessions = [parse_session(sid, raw) for sid, raw in zip(ids, raws, strict=True) if raw is not None]
        if sessions:
            return max(sessions, key=lambda s: s.started_at).gateway, False
        return None, bool(raws) or bool(lost)  # a session that expired: the arena lost it

    async def note_ended(self, bot: str, end: PendingEnd) -> None:
        """Keep the end of a match that ended while the bot was away for the gateway of its next session."""
        await self._batch.run_script(_NOTE_ENDED, [self._k.bot(bot, "ended")], [end.field(), end.ended, ENDED_TTL_S])

    async def close(self) -> None:
        await self._batch.close()
        await self._r.aclose()  # type: ignore[attr-defined]
