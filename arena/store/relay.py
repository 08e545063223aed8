"""The relay's Redis side (asyncio): a gateway's message queue, the replies to relayed decisions, and which
gateway holds a bot's newest live session.

Keys (built by :class:`arena.store.keys.Keys`): ``uno:relay:{gateway}`` (list; RPUSH by workers, BLPOP by
the gateway) and ``uno:relay:reply:{id}`` (list, expires after :data:`REPLY_TTL_S`). The message format is
the relay's own business (:mod:`arena.relay.messages`); this module moves bytes.
"""

from __future__ import annotations

import uuid

import redis.asyncio

from .keys import Keys
from .sessions import parse_session

REPLY_TTL_S = 60


class RelayChannel:
    """Relay traffic over one asyncio Redis client (make it inside the running loop: :meth:`Store.relay`)."""

    def __init__(self, client: redis.asyncio.Redis, keys: Keys) -> None:
        self._r = client
        self._k = keys

    async def push(self, gateway_id: str, message: bytes) -> None:
        """Queue a message for the gateway ``gateway_id``."""
        await self._r.rpush(self._k.relay_queue(gateway_id), message)

    async def pop(self, gateway_id: str, timeout_s: float) -> bytes | None:
        """The gateway's next message, waiting up to ``timeout_s``; ``None`` when none came."""
        item = await self._r.blpop([self._k.relay_queue(gateway_id)], timeout=timeout_s)
        return None if item is None else bytes(item[1])

    def new_reply_key(self) -> str:
        return self._k.relay_reply(uuid.uuid4().hex)

    async def wait_reply(self, reply_key: str, timeout_s: float) -> bytes | None:
        """The reply written to ``reply_key``, waiting up to ``timeout_s``; ``None`` when none came."""
        item = await self._r.blpop([reply_key], timeout=timeout_s)
        return None if item is None else bytes(item[1])

    async def reply(self, reply_key: str, payload: str) -> None:
        """Answer a relayed decision (the reply expires unread after :data:`REPLY_TTL_S`)."""
        async with self._r.pipeline(transaction=False) as pipe:
            pipe.rpush(reply_key, payload)
            pipe.expire(reply_key, REPLY_TTL_S)
            await pipe.execute()

    async def live_gateway(self, bot: str) -> str | None:
        """The gateway holding the bot's newest live session, or ``None`` (the lookup of
        :meth:`arena.store.SessionStore.for_bot`, without pruning)."""
        ids = sorted(m.decode() for m in await self._r.smembers(self._k.bot_sessions(bot)))
        if not ids:
            return None
        raws = await self._r.mget([self._k.session(i) for i in ids])
        sessions = [parse_session(sid, raw) for sid, raw in zip(ids, raws, strict=True) if raw is not None]
        return max(sessions, key=lambda s: s.started_at).gateway if sessions else None

    async def close(self) -> None:
        await self._r.aclose()  # type: ignore[attr-defined]
