"""The gateway's side of the Redis relay (:mod:`arena.relay`): :class:`RelayConsumer` reads the gateway's queue and
channel and drives its match side (:class:`~arena.server.match_api.MatchApi`) for every remote seat
(:class:`arena.relay.RelaySeat`); the envelope and the path of a decision are in docs/architecture.md.

A draining gateway hands over what it cannot send any more: it waits, within the decision's time, for the bot's
session on another gateway, seats the bot there and relays the decision (or match start), and passes the answer back
naming the new gateway; a bot that did not move in time is answered ``GONE`` with ``moved`` (no strike). A Redis
failure drops that answer (the seat asks again), counted and logged once per burst (:class:`FailureLog`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine
from typing import Any

import grpc

from arena.metrics import ArenaMetrics, get_metrics
from arena.players import Admission, DecideStatus
from arena.protocol import bot_pb2, relay_pb2
from arena.relay.envelope import admission_reply, read_admission, reply_address, reply_to, wire_status
from arena.server.match_api import DecideOutcome, MatchApi
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
HANDOVER_RID = "0"
"""The id the answer to a handed-over message is framed with (on a list of its own: one answer)."""
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
        request = relay_pb2.RelayRequest.FromString(raw)
        op = request.WhichOneof("op")
        if op == "decide":
            self._spawn(self._decide(relay, request.decide), "answering a decision")
        elif op == "events":
            ref = request.events.seat
            self.gateway.admissions.send_events(ref.bot, ref.match_id, ref.seat, request.events.events, ref.attempt)
        elif op == "start":
            self._start(relay, request.start)
        elif op == "end":
            ref = request.end.seat
            self.gateway.admissions.end_match(ref.bot, ref.match_id, ref.seat, request.end.ended, ref.attempt)
        elif op == "release":
            ref = request.release.seat
            self.gateway.admissions.end_match(ref.bot, ref.match_id, ref.seat, None, ref.attempt)
        elif op == "close":
            ref = request.close.seat
            late = self.gateway.admissions.close_match(ref.bot, ref.match_id, ref.seat, ref.attempt)
            self._spawn(relay.reply(reply_address(request.close.reply_to),
                                    relay_pb2.CloseReply(late_refusals=late).SerializeToString()),
                        "answering a match close")
        elif op == "drop":  # the bot's token was rotated or revoked, or the bot deleted: its streams end now
            for session_id in request.drop.sessions:
                self.gateway.registry.end_session(session_id, grpc.StatusCode.UNAUTHENTICATED,
                                                  request.drop.reason or "invalid token")

    def _start(self, relay: RelayChannel, start: relay_pb2.Start) -> None:
        """A match start: a new match (with ``reply_to``) is seated when the bot has a free slot, or passed on by a
        draining gateway; one without is a match already seated on another gateway, whose bot moved here."""
        if start.HasField("reply_to") and self.gateway.registry.draining:
            self._spawn(self._hand_over_start(relay, start), "handing a match start over")
        elif start.HasField("reply_to"):
            self._spawn(self._admit(relay, start), "answering a match start")
        elif not self.gateway.registry.draining:
            ref = start.seat
            self.gateway.admissions.start_match(ref.bot, ref.match_id, ref.seat, start.started, start.casual)

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

    async def _admit(self, relay: RelayChannel, start: relay_pb2.Start) -> None:
        ref, reply = start.seat, reply_address(start.reply_to)
        gateway = self.gateway
        admission = asyncio.ensure_future(gateway.admissions.admit(ref.bot, ref.match_id, ref.seat, start.started,
                                                                   start.wait_s, start.casual))
        await asyncio.sleep(0)
        if not admission.done():
            await relay.reply(reply, admission_reply(Admission.QUEUED))
        if await admission:
            state = Admission.ADMITTED
        else:
            state = Admission.DRAINING if gateway.registry.draining else Admission.REFUSED
        await relay.reply(reply, admission_reply(state))

    async def _decide(self, relay: RelayChannel, decide: relay_pb2.Decide) -> None:
        ref = decide.seat
        if time.time() - decide.sent_at > decide.deadline_s:
            # It reached this gateway past its deadline (Redis slow or restarting): never sent to the bot, the
            # arena's fault. "undelivered" tells the seat so (no strike: it asks again).
            late = self.gateway.admissions.late_refusals(ref.bot, ref.match_id, ref.seat)
            reply = relay_pb2.DecideReply(status=wire_status(DecideStatus.GONE), undelivered=True, late_refusals=late)
        else:
            outcome = await self.gateway.decisions.decide(ref.bot, ref.match_id, ref.seat, decide.decision_number,
                                                decide.request, decide.legal_count, decide.deadline_s, ref.attempt,
                                                decide.lag_cap_s)
            reply = decide_reply(outcome)
            if outcome.moved:  # handed over, or "moved": the seat knows it is the drain's doing (no strike)
                handed = await self._hand_over(relay, decide)
                if handed is None:
                    reply.moved = True
                else:
                    reply = handed
        await relay.reply(reply_address(decide.reply_to), reply.SerializeToString())

    async def _hand_over(self, relay: RelayChannel, decide: relay_pb2.Decide) -> relay_pb2.DecideReply | None:
        """Relay a decision this draining gateway cannot send to the gateway the bot moved to, within its time left;
        the answer (``gateway`` naming the new one), or None when the bot or the new gateway did not answer in time."""
        ref = decide.seat
        end = decide.sent_at + decide.deadline_s
        target = await self._moved_to(relay, ref.bot, end)
        if target is None:
            return None
        admissions = self.gateway.admissions
        started = admissions.started_body(ref.bot, ref.match_id, ref.seat)
        if started is not None:  # seat the bot there at once: the match was admitted here
            start = relay_pb2.Start(seat=ref, started=bot_pb2.MatchStarted.FromString(started),
                                    casual=admissions.is_casual(ref.bot, ref.match_id, ref.seat))
            await relay.push(target, relay_pb2.RelayRequest(start=start).SerializeToString())
        key = relay.new_reply_key()
        left = max(0.001, end - time.time())
        passed_on = relay_pb2.Decide()
        passed_on.CopyFrom(decide)
        passed_on.reply_to.CopyFrom(reply_to(ReplyAddress(key, HANDOVER_RID)))
        passed_on.deadline_s, passed_on.sent_at = left, time.time()
        if not await relay.publish(target, relay_pb2.RelayRequest(decide=passed_on).SerializeToString()):
            return None
        raw = await relay.wait_reply(key, left + HANDOVER_MARGIN_S)
        if raw is None:
            return None
        answer = relay_pb2.DecideReply.FromString(raw)
        answer.gateway = target
        return answer

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

    async def _hand_over_start(self, relay: RelayChannel, start: relay_pb2.Start) -> None:
        """A new match start reached this draining gateway: pass it on to the gateway the bot moves to, and its
        answer back (``QUEUED`` at once, so the seat waits; then the new gateway's; ``DRAINING`` when the bot did
        not move in time: the seat then looks for it again at its first decision)."""
        reply = reply_address(start.reply_to)
        await relay.reply(reply, admission_reply(Admission.QUEUED))
        state = Admission.DRAINING
        target = await self._moved_to(relay, start.seat.bot, time.time() + min(start.wait_s + 0.5, HANDOVER_START_S))
        if target is not None:
            key = relay.new_reply_key()
            passed_on = relay_pb2.Start()
            passed_on.CopyFrom(start)
            passed_on.reply_to.CopyFrom(reply_to(ReplyAddress(key, HANDOVER_RID)))
            await relay.push(target, relay_pb2.RelayRequest(start=passed_on).SerializeToString())
            raw = await relay.wait_reply(key, min(HANDOVER_MARGIN_S, start.wait_s + 0.5))
            if raw is not None and read_admission(raw) == Admission.QUEUED:
                raw = await relay.wait_reply(key, start.wait_s + HANDOVER_MARGIN_S)
            if raw is not None:
                state = read_admission(raw)
        await relay.reply(reply, admission_reply(state))


def decide_reply(outcome: DecideOutcome) -> relay_pb2.DecideReply:
    """The ``DecideReply`` of a decision request's outcome on this gateway (a None leaves its field unset)."""
    return relay_pb2.DecideReply(status=wire_status(outcome.status), index=outcome.index, refusals=outcome.refusals,
                                 reasons=outcome.reasons, wire_s=outcome.wire_s, late_refusals=outcome.late_refusals,
                                 version=outcome.version, lag_s=outcome.lag_s)
