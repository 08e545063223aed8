"""The sessions of this gateway (:class:`SessionRegistry`): which bot has which open stream here, and their records in
Redis (``uno:session:{id}``: written on Hello, refreshed by the heartbeat, re-created when Redis lost one, deleted when
the stream ends), so that workers find which gateway holds which bot. The heartbeat's sweep pings every session,
closes the silent ones and reads the kernel's round trips. Nothing here blocks the event loop on Redis."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from collections.abc import Sequence

import grpc

from arena.server.gateway.config import GatewayConfig
from arena.server.gateway.links import BotLink
from arena.server.gateway.stream import BotSession
from arena.server.gateway.transport import Peer, tcp_round_trips
from arena.store import PendingEnd, Store

log = logging.getLogger(__name__)

CLOSED_SESSIONS_KEPT = 10_000
"""Ended session ids remembered so that a heartbeat running meanwhile does not re-create them in Redis."""


class SessionRegistry:
    """The bots and open sessions of one gateway, in memory and in Redis."""

    def __init__(self, store: Store, config: GatewayConfig, gateway_id: str) -> None:
        self.store = store
        self.config = config
        self.gateway_id = gateway_id
        self.links: dict[str, BotLink] = {}
        self.sessions: dict[str, BotSession] = {}
        self.draining = False
        """Set when the gateway drains: no new session, no new decision; pending ones are handed over."""
        self.port = 0
        """The port the gateway listens on, once it does: its connections' round trips are found by it (0: none)."""
        self._ping_nonce = itertools.count(1)
        self._closed_sessions: set[str] = set()
        self._closed_order: deque[str] = deque()

    # -- in memory --------------------------------------------------------------------------------
    def link(self, bot: str) -> BotLink:
        """The bot's link here (made on first use: a match may wait for a bot that has not connected yet)."""
        key = bot.casefold()
        link = self.links.get(key)
        if link is None:
            link = self.links[key] = BotLink(bot)
        return link

    def is_connected(self, bot: str) -> bool:
        link = self.links.get(bot.casefold())
        return link is not None and link.session is not None

    def connected_bots(self) -> list[str]:
        return sorted(link.name for link in self.links.values() if link.session is not None)

    async def wait_for_bot(self, bot: str, timeout: float) -> None:
        """Until ``bot`` has an open session here; TimeoutError after ``timeout`` seconds."""
        link = self.link(bot)
        try:
            async with asyncio.timeout(timeout):
                await link.connected.wait()
        except TimeoutError:
            raise TimeoutError(f"bot {bot!r} did not connect within {timeout:g} s") from None

    def drop_session(self, bot: str, code: grpc.StatusCode = grpc.StatusCode.UNAVAILABLE,
                     details: str = "the arena closed the session; reconnect") -> bool:
        """Close the bot's current session (its matches and pending decisions stay); False if none."""
        link = self.links.get(bot.casefold())
        return _kill(link.session if link is not None else None, code, details)

    def end_session(self, session_id: str, code: grpc.StatusCode, details: str) -> bool:
        """Close the session ``session_id`` if it is open here (a revoked token); False if it is not."""
        return _kill(self.sessions.get(session_id), code, details)

    def close_all(self, details: str = "the gateway is shutting down") -> None:
        for session in list(self.sessions.values()):
            session.kill(grpc.StatusCode.UNAVAILABLE, details)

    def forget(self, link: BotLink, session: BotSession) -> None:
        """The session's stream ended: it leaves the bot's link and this registry (its Redis record next)."""
        link.detach(session)
        self.sessions.pop(session.session_id, None)
        self.mark_closed(session.session_id)

    def mark_closed(self, session_id: str) -> None:
        """Remember that ``session_id`` ended (before its Redis record is deleted), for :meth:`refresh`."""
        self._closed_sessions.add(session_id)
        self._closed_order.append(session_id)
        if len(self._closed_order) > CLOSED_SESSIONS_KEPT:
            self._closed_sessions.discard(self._closed_order.popleft())

    def sweep(self, now: float, ping: bool) -> None:
        """The heartbeat's look at every session: close a silent one, Ping the others when ``ping``; cancel the
        RPC of one that ended long ago yet is still here."""
        cfg = self.config
        silent_after = cfg.heartbeat_interval_s * cfg.heartbeat_misses
        for session in list(self.sessions.values()):
            if session.ended_at is not None:
                # Ended, yet its RPC is still here: its writer waits on a bot that stopped reading (HTTP/2
                # flow control), which nothing else would ever end. Cancel the RPC so it cleans up.
                handler = session.handler
                if now - session.ended_at > silent_after and handler is not None and not handler.cancelling():
                    handler.cancel()
            elif now - session.last_seen > silent_after:
                session.kill(grpc.StatusCode.UNAVAILABLE,
                             f"no message and no Pong for {silent_after:g} s: the session is closed")
            elif ping:
                session.ping(next(self._ping_nonce), now)

    async def measure(self) -> None:
        """Read the kernel's round trip of every open session's connection (one socket dump for them all, in a
        thread). A session whose connection is not found gets none (no lag compensation)."""
        chosen = [session for session in self.sessions.values() if session.peer is not None and session.open]
        if chosen:
            found = await self._round_trips()
            for session in chosen:
                session.transport_rtt_s = found.get(session.peer) if session.peer is not None else None

    async def round_trip(self, peer: Peer | None) -> float | None:
        """The kernel's round trip of the connection from ``peer`` (None: not found, or not measurable)."""
        return None if peer is None else (await self._round_trips()).get(peer)

    async def _round_trips(self) -> dict[Peer, float]:
        if not self.port:
            return {}
        try:
            return await asyncio.to_thread(tcp_round_trips, self.port)
        except RuntimeError:  # the loop's executor is shut down: the gateway is stopping
            return {}

    # -- in Redis ---------------------------------------------------------------------------------
    def record_open(self, bot: str, session_id: str, capacity: int, version: str, human_games: bool,
                    fresh_sandbox: bool = False) -> list[PendingEnd]:
        """Write the new session to Redis, and the version and human-games choice its Hello gave (in a thread);
        the ends of the bot's matches that ended while it was away (taken: the caller frees their slots)."""
        self.store.sessions.open(bot, self.gateway_id, capacity=capacity, ttl=self.config.session_ttl_s,
                                 session_id=session_id, fresh_sandbox=fresh_sandbox)
        ended = self.store.sessions.take_ended(bot)
        try:
            record = self.store.bots.get(bot)
            if record.version != version:
                self.store.bots.set_version(bot, version)
            if record.human_games != human_games:
                self.store.bots.set_human_games(bot, human_games)
            self.store.bots.note_version(bot, version)
        except Exception:  # the history is a nicety: a failure here never refuses the session
            log.warning("could not record version %r of bot %s", version, bot, exc_info=True)
        return ended

    async def delete_record(self, session_id: str) -> None:
        """Delete an ended session from Redis (off the event loop; never raising)."""
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self.store.sessions.close, session_id)

    async def refresh(self) -> None:
        """Refresh the TTL of the sessions open here in Redis (off the event loop; never raising)."""
        live = [(s.session_id, s.bot, s.capacity, s.fresh_sandbox is not None) for s in self.sessions.values()
                if s.open]
        if live:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self._refresh, live)

    def _refresh(self, live: Sequence[tuple[str, str, int, bool]]) -> None:
        """Refresh the TTL of the sessions open here; re-create one Redis lost (a restart). Runs in a thread
        while sessions may close: one that closed is never re-created (it would outlive its stream in Redis
        for a whole TTL), and one that closed while it was being re-created is closed again."""
        ttl = self.config.session_ttl_s
        closed = self._closed_sessions
        live = [entry for entry in live if entry[0] not in closed]
        refreshed = self.store.sessions.heartbeat_many([entry[0] for entry in live], ttl)
        for (session_id, bot, capacity, fresh), alive in zip(live, refreshed, strict=True):
            if not alive and session_id not in closed:
                self.store.sessions.open(bot, self.gateway_id, capacity=capacity, ttl=ttl, session_id=session_id,
                                         fresh_sandbox=fresh)
                if session_id in closed:
                    self.store.sessions.close(session_id)


def _kill(session: BotSession | None, code: grpc.StatusCode, details: str) -> bool:
    """Close ``session`` if there is one; whether there was."""
    if session is not None:
        session.kill(code, details)
    return session is not None
