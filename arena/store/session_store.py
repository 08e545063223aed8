"""Session registry: which gateway holds which bot's stream, kept alive by heartbeats.

Each session is a key with a TTL (``uno:session:{id}``); the gateway refreshes it with
:meth:`SessionStore.heartbeat` well within the TTL (a third of it is a good period). When a gateway
dies its sessions expire by themselves; :meth:`SessionStore.for_bot` returns only live ones and
prunes the expired ids from the bot's index set.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import redis

from ._codec import dumps, loads, text
from .keys import Keys, bot_key, check_id
from .store_errors import UnknownBot

DEFAULT_TTL = 6.0
"""Seconds a session lives without a heartbeat: the sessions of a gateway that died (``kill -9``, its machine gone)
stop counting this soon, so matches look for their bots elsewhere and ``bots list`` is right within seconds."""
LOST_TTL_S = 120
"""How long a bot whose stream the arena lost (its gateway died, or drained before the bot moved) counts as the
arena's fault when it has no session (:meth:`SessionStore.mark_lost`): its matches wait for it, no strike."""
RELAY_QUEUE_TTL_S = 60
ENDED_TTL_S = 3600
"""How long the end of a match that ended while its bot was away waits for the bot's next session
(:meth:`SessionStore.take_ended`); a gateway drops an unused slot by itself after about 15 minutes anyway."""
"""A relay queue's life without its gateway refreshing it (:data:`arena.store.relay.QUEUE_TTL_S`)."""


@dataclass(frozen=True)
class Session:
    """One bot stream held by one gateway."""

    session_id: str
    bot: str
    gateway: str
    capacity: int
    started_at: float
    fresh_sandbox: bool = False
    """A process of the bot host that plays one match in a sandbox of its own (a bot without memory)."""


@dataclass(frozen=True)
class PendingEnd:
    """The end of a match that ended while its bot had no session: the gateway that opens the bot's next session
    frees the match's slot (else the bot is seated in it again, and the slot holds one of its matches)."""

    match_id: str
    seat: int
    attempt: int
    ended: bytes
    """The serialized ``MatchEnded``."""

    def field(self) -> str:
        return dumps([self.match_id, self.seat, self.attempt])


class SessionStore:
    """Open, refresh, close and look up bot sessions."""

    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self._r = client
        self._k = keys

    def open(
        self,
        bot: str,
        gateway: str,
        *,
        capacity: int = 1,
        ttl: float = DEFAULT_TTL,
        session_id: str | None = None,
        fresh_sandbox: bool = False,
    ) -> Session:
        """Record a new session of a registered bot on ``gateway``; raises :class:`UnknownBot`."""
        check_id(gateway, "gateway id")
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        if not self._r.exists(self._k.bot(bot)):
            raise UnknownBot(bot)
        sid = check_id(session_id or uuid.uuid4().hex, "session id")
        name = text(self._r.hget(self._k.bot(bot), "name")) or bot
        session = Session(sid, name, gateway, capacity, time.time(), fresh_sandbox)
        payload = dumps({"bot": session.bot, "gateway": gateway, "capacity": capacity,
                         "started_at": session.started_at, "fresh_sandbox": fresh_sandbox})
        pipe = self._r.pipeline(transaction=True)
        pipe.set(self._k.session(sid), payload, px=_ms(ttl))
        pipe.sadd(self._k.bot_sessions(bot), sid)
        pipe.delete(self._k.bot_lost(bot))
        pipe.execute()
        return session

    def take_ended(self, bot: str) -> list[PendingEnd]:
        """Take (and delete) the ends of the bot's matches that ended while it was away
        (:meth:`arena.store.RelayChannel.note_ended`); the gateway opening its session applies them."""
        key = self._k.bot_ended(bot)
        pipe = self._r.pipeline(transaction=True)
        pipe.hgetall(key)
        pipe.delete(key)
        raw = pipe.execute()[0]
        ends = []
        for field, ended in raw.items():
            match_id, seat, attempt = loads(field)
            ends.append(PendingEnd(str(match_id), int(seat), int(attempt), bytes(ended)))
        return ends

    def mark_lost(self, bot: str) -> None:
        """The arena lost the bot's stream (not the bot's doing): see :data:`LOST_TTL_S`."""
        self._r.set(self._k.bot_lost(bot), repr(time.time()), ex=LOST_TTL_S)

    def heartbeat(self, session_id: str, ttl: float = DEFAULT_TTL) -> bool:
        """Extend a session's life; ``False`` if it had already expired (open a new one then)."""
        return bool(self._r.pexpire(self._k.session(session_id), _ms(ttl)))

    def heartbeat_many(self, session_ids: list[str], ttl: float = DEFAULT_TTL) -> list[bool]:
        """:meth:`heartbeat` for many sessions in one round trip; one flag per id, in order."""
        pipe = self._r.pipeline(transaction=False)
        for session_id in session_ids:
            pipe.pexpire(self._k.session(session_id), _ms(ttl))
        return [bool(flag) for flag in pipe.execute()]

    def get(self, session_id: str) -> Session | None:
        raw = self._r.get(self._k.session(session_id))
        return None if raw is None else parse_session(session_id, raw)

    def close(self, session_id: str) -> bool:
        """End a session; ``False`` if it did not exist (any more)."""
        session = self.get(session_id)
        pipe = self._r.pipeline(transaction=True)
        pipe.delete(self._k.session(session_id))
        if session is not None:
            pipe.srem(self._k.bot_sessions(session.bot), session_id)
        deleted = pipe.execute()[0]
        return bool(deleted)

    def for_bot(self, bot: str) -> list[Session]:
        """The bot's live sessions, oldest first (expired ids are removed from the index)."""
        index = self._k.bot_sessions(bot)
        ids = sorted(m.decode("utf-8") for m in self._r.smembers(index))
        if not ids:
            return []
        raws = self._r.mget([self._k.session(i) for i in ids])
        live: list[Session] = []
        dead: list[str] = []
        for sid, raw in zip(ids, raws, strict=True):
            if raw is None:
                dead.append(sid)
            else:
                live.append(parse_session(sid, raw))
        if dead:  # expired with their gateway (a closed session leaves the index at once): the arena's fault
            pipe = self._r.pipeline(transaction=True)
            pipe.srem(index, *dead)
            if not live:
                pipe.set(self._k.bot_lost(bot), repr(time.time()), ex=LOST_TTL_S)
            pipe.execute()
        live.sort(key=lambda s: s.started_at)
        return live

    def notify_gateways(self, bot: str, message: Callable[[list[str]], bytes]) -> int:
        """Queue ``message(session ids)`` on the relay queue of every gateway holding live sessions of ``bot``,
        with the ids of its sessions (e.g. the relay's ``drop`` after the bot's token changed); returns how
        many gateways were told."""
        by_gateway: dict[str, list[str]] = {}
        for session in self.for_bot(bot):
            by_gateway.setdefault(session.gateway, []).append(session.session_id)
        for gateway, ids in sorted(by_gateway.items()):
            pipe = self._r.pipeline(transaction=False)
            pipe.rpush(self._k.relay_queue(gateway), message(ids))
            pipe.expire(self._k.relay_queue(gateway), RELAY_QUEUE_TTL_S)  # the gateway is alive: it keeps it
            pipe.execute()
        return len(by_gateway)

    def online(self, bot: str) -> bool:
        """Whether the bot has at least one live session."""
        bot_key(bot)
        return bool(self.for_bot(bot))


def _ms(seconds: float) -> int:
    if seconds <= 0:
        raise ValueError(f"ttl must be positive, got {seconds}")
    return max(1, int(seconds * 1000))


def parse_session(session_id: str, raw: bytes) -> Session:
    data = loads(raw)
    return Session(
        session_id=session_id,
        bot=str(data["bot"]),
        gateway=str(data["gateway"]),
        capacity=int(data["capacity"]),
        started_at=float(data["started_at"]),
        fresh_sandbox=bool(data.get("fresh_sandbox", False)),
    )
