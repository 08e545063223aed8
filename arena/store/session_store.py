"""Session registry: which gateway holds which bot's stream, kept alive by heartbeats.

Each session is a key with a TTL that its gateway refreshes (:meth:`SessionStore.heartbeat_many`, a third of the
TTL is a good period): a dead gateway's sessions expire by themselves, and :meth:`SessionStore.for_bot` prunes them.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from ._codec import RecordStore, dumps, loads, ms, text
from .keys import check_id
from .store_errors import UnknownBot

DEFAULT_TTL = 6.0
"""Seconds a session lives without a heartbeat: a dead gateway's sessions stop counting this soon."""
LOST_TTL_S = 120
"""How long a bot whose stream the arena lost counts as the arena's fault when it has no session (no strike)."""
RELAY_QUEUE_TTL_S = 60
"""A relay queue's life without its gateway refreshing it."""
ENDED_TTL_S = 3600
"""How long the end of a match that ended while its bot was away waits for the bot's next session."""


@dataclass(frozen=True)
class Session:
    session_id: str
    bot: str
    gateway: str
    capacity: int
    started_at: float
    fresh_sandbox: bool = False
    """A bot host's process that plays one match in a sandbox of its own."""


@dataclass(frozen=True)
class PendingEnd:
    """The end of a match that ended while its bot had no session: the gateway of its next session frees the
    match's slot."""

    match_id: str
    seat: int
    attempt: int
    ended: bytes
    """The serialized ``MatchEnded``."""

    def field(self) -> str:
        return dumps([self.match_id, self.seat, self.attempt])


class SessionStore(RecordStore):
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
        name = text(self._r.hget(self._k.bot(bot), "name"))
        if name is None:
            raise UnknownBot(bot)
        sid = check_id(session_id or uuid.uuid4().hex, "session id")
        session = Session(sid, name, gateway, capacity, time.time(), fresh_sandbox)
        payload = dumps({"bot": session.bot, "gateway": gateway, "capacity": capacity,
                         "started_at": session.started_at, "fresh_sandbox": fresh_sandbox})
        pipe = self._r.pipeline(transaction=True)
        pipe.set(self._k.session(sid), payload, px=_ms(ttl))
        pipe.sadd(self._k.bot(bot, "sessions"), sid)
        pipe.delete(self._k.bot(bot, "lost"))
        pipe.execute()
        return session

    def take_ended(self, bot: str) -> list[PendingEnd]:
        """Take (and delete) the ends of the bot's matches that ended while it was away."""
        key = self._k.bot(bot, "ended")
        pipe = self._r.pipeline(transaction=True)
        pipe.hgetall(key)
        pipe.delete(key)
        ends = []
        for field, ended in pipe.execute()[0].items():
            match_id, seat, attempt = loads(field)
            ends.append(PendingEnd(match_id, seat, attempt, bytes(ended)))
        return ends

    def mark_lost(self, bot: str) -> None:
        """The arena lost the bot's stream (not the bot's doing): see :data:`LOST_TTL_S`."""
        self._r.set(self._k.bot(bot, "lost"), repr(time.time()), ex=LOST_TTL_S)

    def heartbeat_many(self, session_ids: list[str], ttl: float = DEFAULT_TTL) -> list[bool]:
        """Extend each session's life; ``False`` for one that had already expired (open a new one then)."""
        pipe = self._r.pipeline(transaction=False)
        for session_id in session_ids:
            pipe.pexpire(self._k.session(session_id), _ms(ttl))
        return [bool(flag) for flag in pipe.execute()]

    def get(self, session_id: str) -> Session | None:
        raw = self._r.get(self._k.session(session_id))
        return None if raw is None else parse_session(session_id, raw)

    def close(self, session_id: str) -> bool:
        session = self.get(session_id)
        pipe = self._r.pipeline(transaction=True)
        pipe.delete(self._k.session(session_id))
        if session is not None:
            pipe.srem(self._k.bot(session.bot, "sessions"), session_id)
        return bool(pipe.execute()[0])

    def for_bot(self, bot: str) -> list[Session]:
        """The bot's live sessions, oldest first (expired ids are removed from the index)."""
        index = self._k.bot(bot, "sessions")
        ids = sorted(m.decode("utf-8") for m in self._r.smembers(index))
        if not ids:
            return []
        raws = dict(zip(ids, self._r.mget([self._k.session(i) for i in ids]), strict=True))
        live = sorted((parse_session(sid, raw) for sid, raw in raws.items() if raw is not None),
                      key=lambda s: s.started_at)
        dead = [sid for sid, raw in raws.items() if raw is None]
        if dead:  # expired with their gateway (a closed session leaves the index at once): the arena's fault
            pipe = self._r.pipeline(transaction=True)
            pipe.srem(index, *dead)
            if not live:
                pipe.set(self._k.bot(bot, "lost"), repr(time.time()), ex=LOST_TTL_S)
            pipe.execute()
        return live

    def notify_gateways(self, bot: str, message: Callable[[list[str]], bytes]) -> int:
        """Queue ``message(session ids)`` on the relay queue of every gateway holding live sessions of ``bot`` (e.g.
        ``drop`` after its token changed); how many gateways were told."""
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
        return bool(self.for_bot(bot))


def _ms(seconds: float) -> int:
    if seconds <= 0:
        raise ValueError(f"ttl must be positive, got {seconds}")
    return ms(seconds)


def parse_session(session_id: str, raw: bytes) -> Session:
    """The session of the JSON :meth:`SessionStore.open` wrote."""
    return Session(session_id, **loads(raw))
