"""Draining a gateway (:meth:`arena.server.gateway.GatewayServer.drain`): a Goodbye to every bot, pending decisions
and waiting starts ended with :class:`~arena.server.gateway.records.Drained` for the relay consumer to hand over, and
the drained sessions kept in Redis until each bot has a newer one elsewhere (:class:`Drain`); then the hand-over
itself, bounded in time (:func:`hand_over`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import grpc

from arena.protocol import bot_pb2
from arena.server.gateway.bot_sessions import SessionRegistry
from arena.server.gateway.config import GatewayConfig
from arena.server.gateway.records import Drained
from arena.server.gateway.stream import envelope
from arena.server.relay_consumer import RelayConsumer
from arena.store import Store

log = logging.getLogger(__name__)

DRAIN_IDLE_S = 1.0
"""A draining gateway stops handing over sooner, once its relay queue has been quiet this long."""
GOODBYE_WRITE_S = 1.0
"""How long a draining gateway waits for its Goodbye messages to be written before it ends the streams."""
LOOK_EVERY_S = 0.05
"""How often a draining gateway looks whether it is done handing over."""


class Drain:
    """A gateway's drain: what it tells the bots, and its sessions left in Redis (:attr:`drained`)."""

    def __init__(self, store: Store, registry: SessionRegistry, config: GatewayConfig) -> None:
        self.store = store
        self.registry = registry
        self.config = config
        self.drained: dict[str, str] = {}
        """Sessions ended by :meth:`start` still in Redis (id -> bot), until :meth:`release`."""

    async def start(self, reason: str = "the gateway is draining") -> None:
        """Stop taking sessions and decisions; tell every bot to move (Goodbye, then UNAVAILABLE); end what is
        pending or waiting with :class:`Drained`. The sessions stay in Redis until :meth:`release`: meanwhile the
        relay still finds this gateway, which hands the bot's decisions over, instead of no gateway at all."""
        registry = self.registry
        registry.draining = True
        sessions = list(registry.sessions.values())
        goodbye = envelope(goodbye=bot_pb2.Goodbye(reason=reason,
                                                   reconnect_after_ms=max(0, self.config.goodbye_reconnect_ms)))
        for session in sessions:
            session.send(goodbye)
        deadline = time.monotonic() + GOODBYE_WRITE_S
        while any(s.open and not s.queue.empty() for s in sessions) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        for session in sessions:
            registry.mark_closed(session.session_id)
            self.drained[session.session_id] = session.bot
            session.kill(grpc.StatusCode.UNAVAILABLE, f"{reason}: reconnect (another gateway takes over)")
        for link in registry.links.values():
            for future in [p.future for p in link.pending.values()] + [e.future for e in link.waiting]:
                if not future.done():
                    future.set_exception(Drained())

    async def release(self) -> None:
        """Delete from Redis the drained sessions whose bot has a newer session on another gateway."""
        if self.drained:
            with contextlib.suppress(Exception):  # Redis away: the next look tries again, the sessions expire
                await asyncio.to_thread(self._release_moved)

    def _release_moved(self) -> None:
        moved: dict[str, bool] = {}
        own = self.registry.gateway_id
        for session_id, bot in list(self.drained.items()):
            if bot not in moved:
                moved[bot] = any(s.gateway != own for s in self.store.sessions.for_bot(bot))
            if moved[bot]:
                self.store.sessions.close(session_id)
                self.drained.pop(session_id, None)

    def release_everything_now(self) -> None:
        """Delete every drained session from Redis at once, in this thread (a gateway on its way out)."""
        stranded = set()
        for session_id, bot in list(self.drained.items()):  # what must happen before the exit comes first
            self.store.sessions.close(session_id)
            self.drained.pop(session_id, None)
            stranded.add(bot)
        for bot in stranded:  # told to move, it had not yet when this gateway left: not its fault
            if not self.store.sessions.for_bot(bot):
                self.store.sessions.mark_lost(bot)


async def hand_over(drain: Drain, relay: RelayConsumer | None, until: float) -> None:
    """After :meth:`Drain.start`: hand over (by ``relay``) and release sessions until every bot moved and the relay
    queue is quiet for ``DRAIN_IDLE_S``, or the loop's time ``until``; then stop the relay and delete what is left."""
    loop = asyncio.get_running_loop()
    if relay is not None:
        relay.draining_since(loop.time())
    releasing: asyncio.Task[None] | None = None
    while loop.time() < until:
        # One look at a time (in a thread): a slow Redis must not pile looks up in the loop's executor.
        if releasing is None or releasing.done():
            releasing = asyncio.create_task(drain.release())
        if relay is None or (relay.idle(DRAIN_IDLE_S) and not drain.drained):
            break
        await asyncio.sleep(LOOK_EVERY_S)
    if relay is not None:
        relay.stop()
    if releasing is not None:
        releasing.cancel()  # its thread finishes by itself; what it leaves is deleted next
    # On the way out the sessions left are deleted here and now, not through the executor (which a look still
    # running may hold): blocking the loop no longer matters, and the Redis client's timeouts bound it.
    try:
        drain.release_everything_now()
    except Exception:
        log.warning("could not delete the drained sessions from Redis; they expire by themselves", exc_info=True)
