"""One open bot stream (:class:`BotSession`): its outgoing queue and the writer that drains it, why it ended, its
Pings and round trips, its rate and flood limits and in-band refusals; and the arena's messages as bytes
(:func:`envelope`, :func:`error_bytes`)."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

import grpc
import grpc.aio

from arena.metrics import ArenaMetrics
from arena.protocol import bot_pb2
from arena.protocol.convert import error_message
from arena.protocol.encoding import MAX_BATCH_BYTES, MAX_BATCH_MESSAGES, batch_bytes
from arena.server.gateway.config import GatewayConfig
from arena.server.gateway.records import FreshSandbox, PendingDecision
from arena.server.gateway.stream_limits import FloodWindow, TokenBucket
from arena.server.gateway.transport import Peer, lag_s, peer_address

PINGS_REMEMBERED = 8
"""Unanswered Ping nonces kept per stream: a Pong echoing an older one is refused."""
RTT_SAMPLES = 5
"""Ping -> Pong round trips kept per stream (:func:`arena.server.gateway.transport.lag_s` reads their least)."""

_CODE = {code: code.value[0] for code in grpc.StatusCode}


def envelope(**payload: Any) -> bytes:
    """An ArenaMessage with ``payload`` (one of its fields), serialized."""
    return bot_pb2.ArenaMessage(**payload).SerializeToString()


def error_bytes(code: grpc.StatusCode, message: str, match_id: str = "", request_id: str = "") -> bytes:
    """An in-band Error, serialized."""
    return envelope(error=error_message(_CODE[code], message, match_id=match_id, request_id=request_id))


class BotSession:
    """One open stream of one bot: an outgoing queue drained by a writer task, and the reader's state."""

    def __init__(self, bot: str, context: grpc.aio.ServicerContext, session_id: str, capacity: int, version: str,
                 config: GatewayConfig, metrics: ArenaMetrics, batches: bool = False) -> None:
        self.bot = bot
        """The bot's name as its :class:`~arena.server.gateway.links.BotLink` has it."""
        self.config = config
        self.metrics = metrics
        self.batches = batches
        """The bot's Hello set ``accepts_batches``: several waiting messages go out as one ArenaBatch."""
        self.context = context
        self.session_id = session_id
        self.capacity = capacity
        self.version = version
        self.fresh_sandbox: FreshSandbox | None = None
        """Set for a fresh sandbox's session: one match only (:class:`FreshSandbox`)."""
        self.queue: asyncio.Queue[tuple[bytes, PendingDecision | None]] = asyncio.Queue()
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.handler = asyncio.current_task()
        """The RPC's own task: cancelled when the session ended but a write to a bot that stopped reading
        keeps it from finishing (see :meth:`arena.server.gateway.bot_sessions.SessionRegistry.sweep`)."""
        self.ended_at: float | None = None
        self.kill_code: grpc.StatusCode | None = None
        self.kill_details = ""
        self.last_seen = time.monotonic()
        self.t_read = 0.0
        self.flood = FloodWindow(config.flood_limit, config.flood_window_s)
        self.bucket = TokenBucket(config.message_rate, config.message_burst)
        self.pings: dict[int, float] = {}
        """Nonces of the Pings sent on this stream and not yet answered (a Pong must echo one), with the time each
        was sent (at most ``PINGS_REMEMBERED``, the oldest forgotten first)."""
        self.round_trips: deque[float] = deque(maxlen=RTT_SAMPLES)
        """The last Ping -> Pong round trips of this stream, in seconds."""
        self.peer: Peer | None = peer_address(context.peer())
        """The stream's remote end (None off TCP): how the kernel's round trip of its connection is found."""
        self.transport_rtt_s: float | None = None
        """The least round trip the kernel measured on the stream's TCP connection, in seconds (see
        :mod:`arena.server.gateway.transport`); None until measured, or where it cannot be."""

    @property
    def lag_s(self) -> float:
        """The round trip lag compensation grants (before its cap): the kernel's own measure of the connection,
        which no message of the bot moves (see :func:`arena.server.gateway.transport.lag_s`)."""
        return lag_s(self.transport_rtt_s, self.round_trips)

    @property
    def open(self) -> bool:
        return not self.done.done()

    def send(self, data: bytes, pending: PendingDecision | None = None) -> None:
        if self.done.done():
            return
        if self.queue.qsize() >= self.config.max_outgoing:
            self.kill(grpc.StatusCode.RESOURCE_EXHAUSTED,
                      f"{self.queue.qsize()} messages waiting: the bot does not read its stream")
            return
        self.queue.put_nowait((data, pending))

    def ping(self, nonce: int, now: float) -> None:
        """Send a Ping; its Pong must echo ``nonce`` (the oldest unanswered one past ``PINGS_REMEMBERED`` is
        forgotten)."""
        self.pings[nonce] = now
        if len(self.pings) > PINGS_REMEMBERED:
            del self.pings[next(iter(self.pings))]
        self.send(envelope(ping=bot_pb2.Ping(nonce=nonce, sent_unix_ms=int(time.time() * 1000))))

    def kill(self, code: grpc.StatusCode, details: str) -> None:
        """End the session with ``code`` (an in-band Error first, then the call's status)."""
        if not self.done.done():
            self.kill_code, self.kill_details = code, details
            self.finish()

    def finish(self) -> None:
        if not self.done.done():
            self.ended_at = time.monotonic()
            self.done.set_result(None)
            self.queue.put_nowait((b"", None))  # wakes the writer up: it stops at an empty message

    def refuse(self, code: grpc.StatusCode, reason: str, text: str, match_id: str = "", request_id: str = "",
               counted: bool = False, flood: bool = True) -> None:
        """An in-band Error; `counted`: the match runner counts it (else the metric is counted here); `flood`: it
        counts toward the flood limit, past which the session is closed."""
        if not counted:
            self.metrics.record_refusal(self.bot, reason)
        self.send(error_bytes(code, text, match_id, request_id))
        if not flood:
            return
        refused = self.flood.hit()
        if refused:
            self.kill(grpc.StatusCode.RESOURCE_EXHAUSTED,
                      f"flood: {refused} refused messages in {self.flood.window_s:g} s "
                      "(answers without a request, or malformed); disconnected")

    async def write_until_done(self) -> None:
        """Write queued messages until the session ends (run by the RPC handler itself: measured faster in
        grpc.aio than a separate writer task). With ``batches``, every message waiting when the writer wakes
        up goes out in one ArenaBatch (up to MAX_BATCH_MESSAGES / MAX_BATCH_BYTES)."""
        context, queue, perf, done = self.context, self.queue, time.perf_counter, self.done
        try:
            while True:
                data, pending = await queue.get()
                if done.done():
                    return
                if self.batches and not queue.empty():
                    messages, waiting = self._take_batch(data, pending)
                    if done.done():
                        return
                    data = batch_bytes(messages) if len(messages) > 1 else messages[0]
                else:
                    waiting = [pending] if pending is not None else []
                await context.write(data)
                now = perf()
                for item in waiting:
                    item.t_written = now
        except Exception:  # the stream broke: the session ends (a cancellation is no Exception: it propagates)
            self.finish()

    def _take_batch(self, data: bytes, pending: PendingDecision | None) -> tuple[list[bytes], list[PendingDecision]]:
        """``data`` and the messages queued behind it, as many as one batch holds."""
        messages, waiting, size = [data], [pending] if pending is not None else [], len(data)
        queue = self.queue
        while not queue.empty() and len(messages) < MAX_BATCH_MESSAGES and size < MAX_BATCH_BYTES:
            data, pending = queue.get_nowait()
            if not data:  # the end of the session
                break
            messages.append(data)
            size += len(data)
            if pending is not None:
                waiting.append(pending)
        return messages, waiting
