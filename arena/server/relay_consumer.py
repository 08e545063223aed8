"""The gateway's side of the Redis relay (:mod:`arena.relay`): :class:`RelayConsumer` pops the gateway's queue
and drives :class:`~arena.server.gateway.Gateway` for the Celery workers' :class:`arena.relay.RelaySeat`\\ s,
calling the same gateway methods as an in-process :class:`arena.server.remote_seat.RemoteSeat`."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

import grpc

from arena.protocol import bot_pb2
from arena.relay.messages import decide_reply, decode
from arena.store import RelayChannel, Store, StoreUnavailable

if TYPE_CHECKING:
    from arena.server.gateway import Gateway


POP_TIMEOUT_S = 1.0
"""How long one pop of the relay queue waits; also how long a stopping consumer takes at most to end."""


class RelayConsumer:
    """Pops the gateway's relay queue and answers relayed decisions."""

    def __init__(self, store: Store, gateway: Gateway) -> None:
        self.store = store
        self.gateway = gateway
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False

    def stop(self) -> None:
        """End :meth:`run` at its next pop (at most ``POP_TIMEOUT_S`` from now)."""
        self._stopping = True

    async def run(self) -> None:
        relay = self.store.relay()
        gateway_id = self.gateway.gateway_id
        try:
            while not self._stopping:
                try:
                    raw = await relay.pop(gateway_id, POP_TIMEOUT_S)
                except StoreUnavailable:
                    await asyncio.sleep(0.5)
                    continue
                if raw is not None:
                    try:
                        self._dispatch(relay, raw)
                    except Exception:
                        continue
        finally:
            for task in list(self._tasks):
                task.cancel()
            await relay.close()

    def _dispatch(self, relay: RelayChannel, raw: bytes) -> None:
        header, body = decode(raw)
        op = header["op"]
        if op == "drop":  # the bot's token was rotated or revoked, or the bot deleted: its streams end now
            for session_id in header.get("sessions") or ():
                session = self.gateway.sessions.get(str(session_id))
                if session is not None:
                    session.kill(grpc.StatusCode.UNAUTHENTICATED, str(header.get("reason") or "invalid token"))
            return
        bot, match_id, seat = str(header["bot"]), str(header["match_id"]), int(header["seat"])
        if op == "start":
            started = bot_pb2.MatchStarted.FromString(body)
            if "reply" in header:  # a new match: seated when the bot has a free slot
                self._spawn(self._admit(relay, header, started))
            else:  # a match already seated on another gateway, whose bot moved here
                self.gateway.start_match(bot, match_id, seat, started)
        elif op == "events":
            self.gateway.send_events(bot, match_id, seat, bot_pb2.MatchEvents.FromString(body))
        elif op == "end":
            self.gateway.end_match(bot, match_id, seat, bot_pb2.MatchEnded.FromString(body))
        elif op == "release":
            self.gateway.end_match(bot, match_id, seat, None)
        elif op == "close":
            late = self.gateway.close_match(bot, match_id, seat)
            self._spawn(relay.reply(str(header["reply"]), json.dumps({"late": late})))
        elif op == "decide":
            self._spawn(self._decide(relay, header, body))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _admit(self, relay: RelayChannel, header: dict[str, Any], started: bot_pb2.MatchStarted) -> None:
        bot, match_id, seat = str(header["bot"]), str(header["match_id"]), int(header["seat"])
        reply, wait_s = str(header["reply"]), float(header.get("wait_s", 0.0))
        gateway = self.gateway
        admission = asyncio.ensure_future(gateway.admit(bot, match_id, seat, started, wait_s))
        await asyncio.sleep(0)
        if not admission.done():
            await relay.reply(reply, json.dumps({"state": "queued"}))
        admitted = await admission
        await relay.reply(reply, json.dumps({"state": "admitted" if admitted else "refused"}))

    async def _decide(self, relay: RelayChannel, header: dict[str, Any], body: bytes) -> None:
        deadline_s = float(header["deadline_s"])
        bot, match_id, seat = str(header["bot"]), str(header["match_id"]), int(header["seat"])
        if time.time() - float(header.get("sent", time.time())) > deadline_s:
            # Waited in the queue past its deadline: answered unsent.
            reply = decide_reply("timeout", None, 0, [], None, self.gateway.late_refusals(bot, match_id, seat), "")
        else:
            outcome = await self.gateway.decide(bot, match_id, seat, int(header.get("number", 0)), body,
                                                int(header["legal"]), deadline_s)
            reply = decide_reply(outcome.status, outcome.index, outcome.refusals, list(outcome.reasons),
                                 outcome.wire_s, outcome.late_refusals, outcome.version)
        await relay.reply(str(header["reply"]), reply)
