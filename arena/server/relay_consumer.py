"""The gateway's side of the Redis relay (:mod:`arena.relay`): :class:`RelayConsumer` pops the gateway's queue
and drives the gateway (its match side, :class:`~arena.server.match_api.MatchApi`) for the Celery workers'
:class:`arena.relay.RelaySeat`\\ s, calling the same gateway methods as an in-process
:class:`arena.server.remote_seat.RemoteSeat`.

While the gateway drains (:meth:`arena.server.gateway.GatewayServer.drain`), a decision it cannot send any
more (the bot was told to move) is handed over: the consumer waits, within the decision's time, for the bot's
session on another gateway, seats the bot there in the match (``start`` without reply) and relays the
``decide`` to it with the time left, then passes the answer back to the waiting seat with ``"gateway"`` naming
the new gateway. A bot that did not reconnect in time is answered ``gone`` with ``"moved"`` (the drain's
doing, not the bot's). A new match start is passed on the same way.

The consumer refreshes the expiry of its own queue while it runs (:meth:`arena.store.RelayChannel.keep_queue`),
so the queue of a gateway that died goes away by itself.

Answers go where the message said (``reply``, framed with ``rid`` when given: a worker process's shared list,
:mod:`arena.relay`); the answers of one loop tick are one pipeline (one ``RPUSH`` per list), through the channel's
batcher (:mod:`arena.store.batching`), and a frame of several published messages is split before dispatch. Its
Redis traffic is counted on the ``gateway`` side of ``uno_arena_relay_redis_*``.

A Redis command that fails in a relayed exchange (Redis restarting, or refusing writes: a full disk, ``NOREPLICAS``)
drops that answer; the waiting seat asks again. Each such failure is counted
(``uno_arena_store_errors_total{where="relay"}``) and logged once per burst (:class:`FailureLog`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Coroutine
from typing import Any

import grpc

from arena.metrics import ArenaMetrics, get_metrics
from arena.protocol import bot_pb2
from arena.relay.messages import decide_reply, decode, encode, readdressed, reply_address
from arena.server.match_api import MatchApi
from arena.store import RelayChannel, ReplyAddress, Store, StoreFailure, failure_kind

log = logging.getLogger(__name__)

POP_TIMEOUT_S = 1.0
"""How long one pop of the relay queue waits; also how long a stopping consumer takes at most to end."""
KEEP_QUEUE_S = 10.0
"""How often the consumer refreshes its queue's expiry (:data:`arena.store.relay.QUEUE_TTL_S`)."""
HANDOVER_POLL_S = 0.05
"""How often a draining gateway looks for the new session of a bot it told to move."""
HANDOVER_MARGIN_S = 1.0
"""How long past a handed-over decision's time the draining gateway waits for the new gateway's answer."""
HANDOVER_START_S = 3.0
"""How long a draining gateway waits, at most, for a bot to move before it answers a new match start ``""``."""
BURST_QUIET_S = 10.0
"""Failures of Redis less than this apart are one burst: logged once (each is counted)."""


class FailureLog:
    """Counts every failed Redis command of the relay and logs the first of each burst (a refused write fails
    every relayed answer until Redis accepts writes again: one line says so, not one per answer)."""

    def __init__(self, metrics: ArenaMetrics) -> None:
        self.metrics = metrics
        self._last = -BURST_QUIET_S
        self._in_burst = 0

    def failed(self, exc: BaseException, what: str) -> None:
        kind = failure_kind(exc)
        self.metrics.record_store_error(kind, "relay")
        now = time.monotonic()
        if now - self._last >= BURST_QUIET_S:
            if self._in_burst > 1:
                log.info("relay: the previous burst of Redis failures ended after %d failures", self._in_burst)
            self._in_burst = 0
            log.warning("relay: Redis failed (%s: %s) while %s; the answer is dropped and the worker asks again "
                        "(further failures within %g s of each other are counted in "
                        "uno_arena_store_errors_total{where=\"relay\"}, not logged)", kind, exc, what,
                        BURST_QUIET_S)
        self._in_burst += 1
        self._last = now


class RelayConsumer:
    """Pops the gateway's relay queue and answers relayed decisions."""

    def __init__(self, store: Store, gateway: MatchApi, metrics: ArenaMetrics | None = None) -> None:
        self.store = store
        self.gateway = gateway
        self.metrics = metrics or get_metrics()
        self.failures = FailureLog(self.metrics)
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False
        self._last_message = 0.0

    def draining_since(self, now: float) -> None:
        """The gateway started draining at the loop's time ``now`` (for :meth:`idle`)."""
        self._last_message = max(self._last_message, now)

    def idle(self, idle_s: float) -> bool:
        """Nothing in flight, and no message for ``idle_s`` (a draining gateway may stop handing over)."""
        return not self._tasks and asyncio.get_running_loop().time() - self._last_message >= idle_s

    def stop(self) -> None:
        """End :meth:`run` at its next pop (at most ``POP_TIMEOUT_S`` from now)."""
        self._stopping = True

    async def run(self) -> None:
        relay = self.store.relay(self.metrics.relay_meter("gateway"), name="uno-arena-relay-gateway")
        gateway_id = self.gateway.gateway_id
        loop = asyncio.get_running_loop()
        kept = 0.0
        listener = asyncio.create_task(self._listen(relay, gateway_id))
        try:
            while not self._stopping:
                try:
                    if loop.time() - kept >= KEEP_QUEUE_S:
                        await relay.keep_queue(gateway_id)
                        kept = loop.time()
                    raws = await relay.pop(gateway_id, POP_TIMEOUT_S)
                except StoreFailure:  # Redis down or refusing writes: try again shortly
                    await asyncio.sleep(0.5)
                    continue
                if raws:
                    self._last_message = loop.time()
                for raw in raws:
                    with contextlib.suppress(Exception):
                        self._dispatch(relay, raw)
        finally:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await listener
            for task in list(self._tasks):
                task.cancel()
            await relay.close()

    async def _listen(self, relay: RelayChannel, gateway_id: str) -> None:
        """Dispatch what is published on the gateway's channel (decisions and events) until cancelled; a lost
        Redis connection subscribes again (what was published meanwhile is gone: its senders try again)."""
        loop = asyncio.get_running_loop()
        while not self._stopping:
            try:
                async with relay.listen(gateway_id) as messages:
                    async for raw in messages:
                        self._last_message = loop.time()
                        with contextlib.suppress(Exception):
                            self._dispatch(relay, raw)
            except StoreFailure:
                await asyncio.sleep(0.5)

    def _dispatch(self, relay: RelayChannel, raw: bytes) -> None:
        header, body = decode(raw)
        op = header["op"]
        if op == "drop":  # the bot's token was rotated or revoked, or the bot deleted: its streams end now
            for session_id in header.get("sessions") or ():
                self.gateway.end_session(str(session_id), grpc.StatusCode.UNAUTHENTICATED,
                                         str(header.get("reason") or "invalid token"))
            return
        bot, match_id, seat = str(header["bot"]), str(header["match_id"]), int(header["seat"])
        attempt = int(header.get("attempt") or 0)
        if op == "start":
            self._start(relay, header, body)
        elif op == "events":
            self.gateway.send_events(bot, match_id, seat, bot_pb2.MatchEvents.FromString(body), attempt)
        elif op == "end":
            self.gateway.end_match(bot, match_id, seat, bot_pb2.MatchEnded.FromString(body), attempt)
        elif op == "release":
            self.gateway.end_match(bot, match_id, seat, None, attempt)
        elif op == "close":
            late = self.gateway.close_match(bot, match_id, seat, attempt)
            self._spawn(relay.reply(reply_address(header), json.dumps({"late": late})), "answering a match close")
        elif op == "decide":
            self._spawn(self._decide(relay, header, body), "answering a decision")

    def _start(self, relay: RelayChannel, header: dict[str, Any], body: bytes) -> None:
        """A match start: a new match (with ``reply``) is seated when the bot has a free slot, or passed on by a
        draining gateway; one without is a match already seated on another gateway, whose bot moved here."""
        started = bot_pb2.MatchStarted.FromString(body)
        if "reply" in header and self.gateway.draining:
            self._spawn(self._hand_over_start(relay, header, body), "handing a match start over")
        elif "reply" in header:
            self._spawn(self._admit(relay, header, started), "answering a match start")
        elif not self.gateway.draining:
            self.gateway.start_match(str(header["bot"]), str(header["match_id"]), int(header["seat"]), started,
                                     bool(header.get("casual")))

    def _spawn(self, coro: Coroutine[Any, Any, None], what: str) -> None:
        task = asyncio.create_task(self._guarded(coro, what))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _guarded(self, coro: Coroutine[Any, Any, None], what: str) -> None:
        """``coro``, its Redis failure counted and logged (:class:`FailureLog`) rather than left in the task."""
        try:
            await coro
        except StoreFailure as exc:
            self.failures.failed(exc, what)

    async def _admit(self, relay: RelayChannel, header: dict[str, Any], started: bot_pb2.MatchStarted) -> None:
        bot, match_id, seat = str(header["bot"]), str(header["match_id"]), int(header["seat"])
        reply, wait_s = reply_address(header), float(header.get("wait_s", 0.0))
        gateway = self.gateway
        admission = asyncio.ensure_future(gateway.admit(bot, match_id, seat, started, wait_s,
                                                        bool(header.get("casual"))))
        await asyncio.sleep(0)
        if not admission.done():
            await relay.reply(reply, json.dumps({"state": "queued"}))
        admitted = await admission
        state = "admitted" if admitted else "" if gateway.draining else "refused"
        await relay.reply(reply, json.dumps({"state": state}))

    async def _decide(self, relay: RelayChannel, header: dict[str, Any], body: bytes) -> None:
        decision_deadline_s = float(header["deadline_s"])
        bot, match_id, seat = str(header["bot"]), str(header["match_id"]), int(header["seat"])
        if time.time() - float(header.get("sent", time.time())) > decision_deadline_s:
            # It reached this gateway past its deadline (Redis slow or restarting): never sent to the bot, the
            # arena's fault. "undelivered" tells the seat so (no strike: it asks again).
            reply = json.dumps({**json.loads(decide_reply("gone", None, 0, [], None, self.gateway.late_refusals(
                bot, match_id, seat), "")), "undelivered": True})
        else:
            outcome = await self.gateway.decide(bot, match_id, seat, int(header.get("number", 0)), body,
                                                int(header["legal"]), decision_deadline_s, int(header.get("attempt")
                                                or 0),
                                                float(header.get("lag_cap") or 0.0))
            reply = decide_reply(outcome.status, outcome.index, outcome.refusals, list(outcome.reasons),
                                 outcome.wire_s, outcome.late_refusals, outcome.version, outcome.lag_s)
            if outcome.moved:  # not handed over: "moved" tells the seat it is the drain's doing (no strike)
                reply = await self._hand_over(relay, header, body) or json.dumps({**json.loads(reply), "moved": True})
        await relay.reply(reply_address(header), reply)

    async def _hand_over(self, relay: RelayChannel, header: dict[str, Any], body: bytes) -> str | None:
        """Relay a decision this draining gateway cannot send to the gateway the bot moved to, within the time
        the decision has left; its answer (with ``"gateway"``: the new one), or None (the bot did not reconnect in
        time, or the new gateway did not answer)."""
        bot, match_id, seat = str(header["bot"]), str(header["match_id"]), int(header["seat"])
        end = float(header.get("sent", time.time())) + float(header["deadline_s"])
        target = await self._moved_to(relay, bot, end)
        if target is None:
            return None
        started = self.gateway.started_body(bot, match_id, seat)
        if started is not None:  # seat the bot there at once: the match was admitted here
            start = {"op": "start", "bot": bot, "match_id": match_id, "seat": seat}
            if self.gateway.is_casual(bot, match_id, seat):
                start["casual"] = True
            await relay.push(target, encode(start, started))
        key = relay.new_reply_key()
        left = max(0.001, end - time.time())
        passed_on = {**readdressed(header, ReplyAddress(key)), "deadline_s": left, "sent": time.time()}
        if not await relay.publish(target, encode(passed_on, body)):
            return None
        raw = await relay.wait_reply(key, left + HANDOVER_MARGIN_S)
        if raw is None:
            return None
        answer = json.loads(raw)
        answer["gateway"] = target
        return json.dumps(answer)

    async def _moved_to(self, relay: RelayChannel, bot: str, end: float) -> str | None:
        """The gateway holding the bot's newest session once it is not this one, waiting until the wall-clock
        time ``end`` at most (this gateway's drained sessions stay in Redis until the bot has a newer one)."""
        own = self.gateway.gateway_id
        while end - time.time() > HANDOVER_POLL_S:
            found = await relay.live_gateway(bot)
            if found is not None and found != own:
                return found
            await asyncio.sleep(HANDOVER_POLL_S)
        return None

    async def _hand_over_start(self, relay: RelayChannel, header: dict[str, Any], body: bytes) -> None:
        """A new match start reached this draining gateway: pass it on to the gateway the bot moves to, and its
        answer back (``queued`` at once, so the seat waits; then the new gateway's; ``""`` when the bot did not
        move in time: the seat then looks for it again at its first decision)."""
        reply, wait_s = reply_address(header), float(header.get("wait_s", 0.0))
        await relay.reply(reply, json.dumps({"state": "queued"}))
        state = ""
        target = await self._moved_to(relay, str(header["bot"]), time.time() + min(wait_s + 0.5, HANDOVER_START_S))
        if target is not None:
            key = relay.new_reply_key()
            await relay.push(target, encode(readdressed(header, ReplyAddress(key)), body))
            raw = await relay.wait_reply(key, min(HANDOVER_MARGIN_S, wait_s + 0.5))
            if raw is not None and json.loads(raw).get("state") == "queued":
                raw = await relay.wait_reply(key, wait_s + HANDOVER_MARGIN_S)
            if raw is not None:
                state = str(json.loads(raw).get("state", ""))
        await relay.reply(reply, json.dumps({"state": state}))
