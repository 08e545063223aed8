"""The relay's Redis side (asyncio): a gateway's message queue, the replies to relayed decisions, and which
gateway holds a bot's newest live session.

Keys (built by :class:`arena.store.keys.Keys`): ``uno:relay:{gateway}`` (list; RPUSH by workers, BLPOP by
the gateway; it expires :data:`QUEUE_TTL_S` after it was created unless its gateway, while alive, keeps
refreshing it with :meth:`RelayChannel.keep_queue`: a dead gateway's queue goes away by itself),
``uno:relay:reply:{id}`` (list, expires after :data:`REPLY_TTL_S`) and the Pub/Sub channel
``uno:relay:live:{gateway}``. The queue carries what must not be lost (match starts and ends); the channel
carries the bulk, decision requests and events, which Redis never writes to its append-only file (a request
is about 3 KB, the whole observation: through a list, a remote match wrote about 1.5 MB to the file). A
message on the channel that no gateway heard is not queued: :meth:`RelayChannel.publish` says so at once and
its sender tries again (a decision the arena could not deliver is no strike). The message format is the
relay's own business (:mod:`arena.relay.messages`); this module moves bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import redis.asyncio

from .keys import Keys
from .sessions import ENDED_TTL_S, RELAY_QUEUE_TTL_S, PendingEnd, parse_session

REPLY_TTL_S = 60
WAIT_CHUNK_S = 20.0
"""The longest single blocking pop of :meth:`RelayChannel.wait_reply`."""
QUEUE_TTL_S = RELAY_QUEUE_TTL_S
"""A gateway's relay queue lives this long without its gateway refreshing it (:meth:`RelayChannel.keep_queue`)."""

# RPUSH, and give the list an expiry if it has none (a new list): pushes never extend it, only its gateway does.
_PUSH = """
local n = redis.call('RPUSH', KEYS[1], ARGV[1])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return n
"""


class RelayChannel:
    """Relay traffic over one asyncio Redis client (make it inside the running loop: :meth:`Store.relay`)."""

    def __init__(self, client: redis.asyncio.Redis, keys: Keys) -> None:
        self._r = client
        self._k = keys
        self._push = client.register_script(_PUSH)

    async def push(self, gateway_id: str, message: bytes) -> None:
        """Queue a message for the gateway ``gateway_id`` (a new queue expires after :data:`QUEUE_TTL_S` unless
        its gateway refreshes it)."""
        await self._push(keys=[self._k.relay_queue(gateway_id)], args=[message, QUEUE_TTL_S])

    async def publish(self, gateway_id: str, message: bytes) -> bool:
        """Send a message to the gateway ``gateway_id`` on its channel, unqueued; ``False`` when it did not listen
        (dead, or reconnecting to Redis): the message is gone."""
        return int(await self._r.publish(self._k.relay_live(gateway_id), message)) > 0

    @contextlib.asynccontextmanager
    async def listen(self, gateway_id: str) -> AsyncIterator[AsyncIterator[bytes]]:
        """The messages published to the gateway ``gateway_id``, from the moment this is entered; a lost connection
        ends the iteration with the Redis error (subscribe again)."""
        pubsub = self._r.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(self._k.relay_live(gateway_id))

        async def messages() -> AsyncIterator[bytes]:
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is not None and message.get("type") == "message":
                    yield bytes(message["data"])

        try:
            yield messages()
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[attr-defined]

    async def keep_queue(self, gateway_id: str, ttl_s: int = QUEUE_TTL_S) -> None:
        """Refresh the expiry of the gateway's own queue (its gateway does, a few times per ``ttl_s``)."""
        await self._r.expire(self._k.relay_queue(gateway_id), ttl_s)

    async def pop(self, gateway_id: str, timeout_s: float) -> bytes | None:
        """The gateway's next message, waiting up to ``timeout_s``; ``None`` when none came."""
        item = await self._r.blpop([self._k.relay_queue(gateway_id)], timeout=timeout_s)
        return None if item is None else bytes(item[1])

    def new_reply_key(self) -> str:
        return self._k.relay_reply(uuid.uuid4().hex)

    async def wait_reply(self, reply_key: str, timeout_s: float) -> bytes | None:
        """The reply written to ``reply_key``, waiting up to ``timeout_s``; ``None`` when none came. A long wait (a
        match start waiting up to 10 minutes for a free slot of its bot) is made of blocking pops of at most
        :data:`WAIT_CHUNK_S`: one long pop fails with the client's read timeout after about a minute."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout_s
        while True:
            left = end - loop.time()
            if left <= 0:
                return None
            item = await self._r.blpop([reply_key], timeout=max(0.01, min(left, WAIT_CHUNK_S)))  # 0: forever
            if item is not None:
                return bytes(item[1])

    async def reply(self, reply_key: str, payload: str) -> None:
        """Answer a relayed decision (the reply expires unread after :data:`REPLY_TTL_S`)."""
        async with self._r.pipeline(transaction=False) as pipe:
            pipe.rpush(reply_key, payload)
            pipe.expire(reply_key, REPLY_TTL_S)
            await pipe.execute()

    async def live_gateway(self, bot: str) -> str | None:
        """The gateway holding the bot's newest live session, or ``None`` (the lookup of
        :meth:`arena.store.SessionStore.for_bot`, without pruning)."""
        return (await self.find_gateway(bot))[0]

    async def find_gateway(self, bot: str) -> tuple[str | None, bool]:
        """``(gateway, lost)``: the gateway holding the bot's newest live session (or ``None``), and, without one,
        whether the arena lost the bot's stream (its sessions expired with their gateway, or
        :meth:`arena.store.SessionStore.mark_lost`): then the bot is not to blame for being away."""
        ids = sorted(m.decode() for m in await self._r.smembers(self._k.bot_sessions(bot)))
        raws = await self._r.mget([self._k.session(i) for i in ids]) if ids else []
        sessions = [parse_session(sid, raw) for sid, raw in zip(ids, raws, strict=True) if raw is not None]
        if sessions:
            return max(sessions, key=lambda s: s.started_at).gateway, False
        expired = len(raws) > 0
        return None, expired or bool(await self._r.exists(self._k.bot_lost(bot)))

    async def note_ended(self, bot: str, end: PendingEnd) -> None:
        """Keep the end of a match that ended while the bot was away for the gateway of its next session
        (:meth:`arena.store.SessionStore.take_ended`)."""
        key = self._k.bot_ended(bot)
        async with self._r.pipeline(transaction=True) as pipe:
            pipe.hset(key, end.field(), end.ended)
            pipe.expire(key, ENDED_TTL_S)
            await pipe.execute()

    async def close(self) -> None:
        await self._r.aclose()  # type: ignore[attr-defined]
