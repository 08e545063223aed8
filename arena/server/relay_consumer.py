"""The gateway's side of the Redis relay (:mod:`arena.relay`): :class:`RelayConsumer` pops the gateway's queue
and drives :class:`~arena.server.gateway.Gateway` for the Celery workers' :class:`arena.relay.RelaySeat`\\ s,
calling the same gateway methods as an in-process :class:`arena.server.remote_seat.RemoteSeat`."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from arena.protocol import bot_pb2
from arena.relay.messages import decide_reply, decode
from arena.store import RelayChannel, Store, StoreUnavailable

if TYPE_CHECKING:
    from arena.server.gateway import Gateway


class RelayConsumer:
    """Pops the gateway's relay queue and answers relayed decisions."""

    def __init__(self, store: Store, gateway: Gateway) -> None:
        self.store = store
        self.gateway = gateway
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        relay = self.store.relay()
        gateway_id = self.gateway.gateway_id
        try:
            while True:
                try:
                    raw = await relay.pop(gateway_id, 1)
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
        bot, match_id, seat = str(header["bot"]), str(header["match_id"]), int(header["seat"])
        if op == "start":
            self.gateway.start_match(bot, match_id, seat, bot_pb2.MatchStarted.FromString(body))
        elif op == "events":
            self.gateway.send_events(bot, match_id, seat, bot_pb2.MatchEvents.FromString(body))
        elif op == "end":
            self.gateway.end_match(bot, match_id, seat, bot_pb2.MatchEnded.FromString(body))
        elif op == "decide":
            task = asyncio.create_task(self._decide(relay, header, body))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

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
