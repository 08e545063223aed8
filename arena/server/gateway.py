"""The bot gateway: a ``grpc.aio`` server that holds bot streams and multiplexes every match of a bot on it.

One :class:`BotSession` per open ``BotService/Connect`` stream; one :class:`BotLink` per bot name on this
gateway, which outlives its sessions: the matches the bot sits in and its pending decisions belong to the
link, so a bot that reconnects gets ``MatchStarted`` again for its running matches and every decision still
pending (with the time left), and can answer them.

The conversation (see ``proto/uno_arena/v1/bot.proto``):

1. the token (``authorization: Bearer …``) is checked before the handler runs (:mod:`arena.server.auth`);
2. the first message must be ``Hello`` within ``hello_timeout_s`` with protocol version 1, else an in-band
   ``Error`` and the call ends (``FAILED_PRECONDITION``, or ``DEADLINE_EXCEEDED`` when nothing came);
3. ``Welcome``, the session is recorded in Redis (``uno:session:{id}``, TTL refreshed by the heartbeat), so
   workers find which gateway holds which bot (:mod:`arena.relay`);
4. decision requests go out (full observation, legal actions, ``request_id``, ``time_limit_ms``); a
   ``Decision`` is matched by request id. Refused, each with an in-band ``Error`` naming the problem:
   unknown request id (``NOT_FOUND``), late answer (``DEADLINE_EXCEEDED``), duplicate (``ALREADY_EXISTS``),
   ``action_index`` out of range (``OUT_OF_RANGE``), wrong match id, a malformed or empty message, a second
   Hello (``INVALID_ARGUMENT``/``FAILED_PRECONDITION``). A refused answer to a pending request leaves it
   pending: the bot may answer again until the deadline. A request left unanswered at its deadline gets a
   ``DEADLINE_EXCEEDED`` Error (the runner plays the fallback and counts a strike);
5. every refused message (but the first ``RETRIES_PER_REQUEST`` refused answers to a pending request) counts
   toward a flood limit (``flood_limit`` in ``flood_window_s``): past it the session is closed with
   ``RESOURCE_EXHAUSTED``. Messages larger than ``max_message_bytes`` (64 KiB) are
   refused by gRPC itself (``grpc.max_receive_message_length``): the call ends with ``RESOURCE_EXHAUSTED``;
   Before anything else, every stream has a token bucket (``message_rate`` messages/s, ``message_burst`` at
   once; a batch counts each inner message): messages over it are refused with one ``RESOURCE_EXHAUSTED``
   Error for the lot (which counts toward the flood limit), unparsed. New streams are limited per token
   (``new_streams_per_token`` in ``new_streams_window_s``, checked by the interceptor before the token is):
   past it the call ends ``RESOURCE_EXHAUSTED`` with a retry hint (``grpc-retry-pushback-ms``);
6. ``Ping`` every ``heartbeat_interval_s``; a ``Pong`` must echo the nonce of a Ping sent on its stream (once;
   ``INVALID_ARGUMENT`` otherwise); a session silent for ``heartbeat_misses`` intervals is closed; a
   session that ended while its writer waits on a bot that stopped reading (HTTP/2 flow control) has its RPC
   cancelled after as long, so the bot stops counting as connected and its record leaves Redis;
7. batches: a bot whose Hello sets ``accepts_batches`` gets every message waiting when the writer wakes up in one
   ``ArenaBatch`` (``Welcome.batches`` says so); any bot may answer with a ``BotBatch``, whose messages are
   handled one by one as if each had come alone (a refused one is refused alone; a nested batch, a Hello or an
   empty message inside is refused). With many matches in flight on a stream this saves most of gRPC's and the
   event loop's per-message work on both sides (``uno-arena bench gateway`` measures with and without).

One session per bot and gateway: a new Hello of the same bot takes over (the older stream ends with
``ABORTED``; the kit then stops that older process). ``Hello.max_concurrent_matches`` is recorded in the
session (``capacity``, capped by ``max_concurrent_matches``) and honoured: a match start (:meth:`Gateway.admit`,
from a RemoteSeat or a relayed ``start``) waits, first come first served, until the bot sits in fewer matches
than that (a second seat of a match it already plays needs no slot); a start that waited too long is given up
and its match aborted, with no strike. At match end the runner first closes the match to late answers
(:meth:`Gateway.close_match`) and collects its late refusals, so MatchEnded tells the stored count. A bot
that reconnects to *another* gateway loses the decisions pending on the first one (they time out there, and
the relay then finds the new session), unless the first one drains (:meth:`GatewayServer.drain`, SIGTERM of
``serve``): it says Goodbye to every bot and hands its relayed decisions over to the bot's new gateway.

Per-decision deadlines are the application's: a gRPC deadline would cover the whole stream. Keepalive is
20 s / 10 s and there is no ``max_connection_age`` (it would cut long streams). Nothing here blocks the
event loop on Redis (sessions are written from a thread), and a slow or hostile bot only ever delays its
own decisions: every match waits on its own futures, bounded by its own deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import socket
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from arena.metrics import ArenaMetrics, get_metrics
from arena.protocol import PROTOCOL_VERSION, SERVICE_NAMES, bot_pb2
from arena.protocol.convert import error_message
from arena.protocol.encoding import MAX_BATCH_BYTES, MAX_BATCH_MESSAGES, batch_bytes, request_bytes
from arena.server.auth import BotAuthInterceptor
from arena.server.deadlines import Deadlines
from arena.server.relay_consumer import RelayConsumer
from arena.service.incidents import log_incidents
from arena.store import BotRecord, Incident, Store
from arena.store.sessions import DEFAULT_TTL as DEFAULT_SESSION_TTL

log = logging.getLogger(__name__)

DEFAULT_ADDRESS = "127.0.0.1:50051"
"""Loopback unless told otherwise (``--address`` or ``$UNO_ARENA_GRPC_ADDR``): the deploy files give 0.0.0.0."""
ADDRESS_ENV = "UNO_ARENA_GRPC_ADDR"
GATEWAY_ID_ENV = "UNO_ARENA_GATEWAY_ID"
MAX_MESSAGE_BYTES = 64 * 1024
RETRIES_PER_REQUEST = 5
PINGS_REMEMBERED = 8
RTT_SAMPLES = 5
"""Ping -> Pong round trips kept per stream (:attr:`BotSession.rtt_s` is their least)."""
"""Unanswered Ping nonces kept per stream: a Pong echoing an older one is refused."""
CLOSED_SESSIONS_KEPT = 10_000
STOP_TASKS_TIMEOUT_S = 3.0
"""How long stopping waits for the heartbeat and relay tasks to end (they end within a second)."""
DRAIN_TIMEOUT_S = 6.0
"""How long a draining gateway (:meth:`GatewayServer.drain`, SIGTERM of ``serve``) goes on handing relayed
decisions over to the gateways its bots moved to, at most; with the final stop it exits within 10 s."""
DRAIN_IDLE_S = 1.0
"""A draining gateway stops handing over sooner, once its relay queue has been quiet this long."""
GOODBYE_WRITE_S = 1.0
"""How long a draining gateway waits for its Goodbye messages to be written before it ends the streams."""
"""Ended session ids remembered so that a heartbeat running meanwhile does not re-create them in Redis."""
"""Refused answers to one pending request that do not count toward the flood limit."""

_CODE = {code: code.value[0] for code in grpc.StatusCode}


class Drained(Exception):
    """The gateway drains: a pending decision or a waiting match start is handed over to another gateway."""


class Superseded(Exception):
    """A newer attempt of the match started: a pending decision of an older attempt is dropped (never sent again)."""


def grpc_address(flag: str | None = None) -> str:
    """The listen address: the flag, else ``$UNO_ARENA_GRPC_ADDR``, else ``0.0.0.0:50051``."""
    if flag:
        return flag
    return os.environ.get(ADDRESS_ENV, "").strip() or DEFAULT_ADDRESS


def new_gateway_id() -> str:
    """``$UNO_ARENA_GATEWAY_ID`` or ``gw-<host>-<pid>-<random>`` (unique per process)."""
    configured = os.environ.get(GATEWAY_ID_ENV, "").strip()
    if configured:
        return configured
    host = "".join(c if c.isalnum() or c in "-_." else "-" for c in socket.gethostname())[:40] or "host"
    return f"gw-{host}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


@dataclass
class GatewayConfig:
    """Settings of one gateway; every field has a working default."""

    address: str = DEFAULT_ADDRESS
    gateway_id: str = ""
    """Identifies this gateway in Redis sessions and its relay queue; empty: :func:`new_gateway_id`."""
    hello_timeout_s: float = 10.0
    heartbeat_interval_s: float = 10.0
    heartbeat_misses: int = 3
    session_ttl_s: float = DEFAULT_SESSION_TTL
    """A session's life in Redis without a refresh (refreshed every third of it): a dead gateway's sessions stop
    counting this soon."""
    max_message_bytes: int = MAX_MESSAGE_BYTES
    max_concurrent_matches: int = 64
    """The most matches a session is offered (Welcome says min(this, what Hello offered))."""
    flood_limit: int = 50
    flood_window_s: float = 10.0
    max_outgoing: int = 4096
    """Messages queued for a bot that does not read its stream before it is disconnected."""
    relay: bool = True
    """Consume this gateway's Redis relay queue (workers reach bots through it)."""
    message_rate: float = 50_000.0
    """Messages per second a stream may send on average (a token bucket; a batch counts its inner messages)."""
    message_burst: int = 50_000
    """The bucket's size: messages a stream may send at once before ``message_rate`` applies."""
    new_streams_per_token: int = 20
    """New streams one token may open in ``new_streams_window_s``; more are refused (``RESOURCE_EXHAUSTED``)."""
    new_streams_window_s: float = 10.0
    slot_idle_s: float = 900.0
    """A match slot unused this long (and 20 decision time limits) is dropped: its runner is gone (a worker
    that died); it no longer counts toward the bot's capacity."""
    tls_cert: str = ""
    """PEM certificate chain file: serve TLS (with ``tls_key``) instead of plaintext."""
    tls_key: str = ""
    """PEM private key file of ``tls_cert``."""
    keepalive_time_ms: int = 20_000
    keepalive_timeout_ms: int = 10_000
    drain_timeout_s: float = DRAIN_TIMEOUT_S
    """Draining (SIGTERM): how long relayed decisions are handed over to the bots' new gateways, at most."""
    goodbye_reconnect_ms: int = 0
    """``Goodbye.reconnect_after_ms``: the pause a drained bot makes before reconnecting (0: at once)."""


@dataclass(slots=True)
class DecideOutcome:
    """How one decision request ended on the gateway."""

    status: str  # "answered" | "timeout" | "gone"
    index: int | None
    refusals: int
    reasons: list[str]
    wire_s: float | None
    late_refusals: int
    version: str
    arena_s: float = 0.0
    """Time the gateway's code ran for this request (sending it, reading and checking the answer)."""
    moved: bool = False
    """``gone`` because this gateway drains: the relay hands the request over to the bot's new gateway."""
    lag_s: float = 0.0
    """Lag compensation granted: the stream's round trip (:attr:`BotSession.rtt_s`), at most the caller's cap."""


@dataclass(eq=False)
class PendingDecision:
    request_id: str
    match_id: str
    seat: int
    decision_number: int
    body: bytes
    legal_count: int
    future: asyncio.Future[int]
    deadline_at: float
    refusals: int = 0
    reasons: list[str] = field(default_factory=list)
    t_written: float | None = None
    t_answer: float | None = None
    arena_s: float = 0.0
    attempt: int = 0


@dataclass(eq=False)
class MatchSlot:
    """A match the bot sits in (one per match and seat, holding the newest attempt seen): what to tell it again
    after a reconnect."""

    started: bytes
    attempt: int = 0
    """``MatchStarted.attempt``: a start, request, event or end of an older attempt is stale (that attempt was
    aborted and its runner is gone or stopping)."""
    late_refusals: int = 0
    last_used: float = field(default_factory=time.monotonic)
    idle_limit_s: float = 600.0
    closed: bool = False
    """The match is over: late answers are refused but no longer counted in it (see Gateway.close_match)."""


@dataclass(eq=False)
class Admission:
    """A match start waiting for the bot to have a free match slot (Gateway.admit)."""

    match_id: str
    seat: int
    started: bot_pb2.MatchStarted
    idle_limit_s: float
    future: asyncio.Future[None]


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; :meth:`take` as many as there are, up to ``n``."""

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.level = float(burst)
        self.stamp = time.monotonic()

    def take(self, n: int) -> int:
        """Take up to ``n`` tokens; returns how many were taken."""
        now = time.monotonic()
        level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        taken = min(n, int(level))
        self.level = level - taken
        return taken


class StreamLimiter:
    """At most ``limit`` new streams per token in any ``window_s`` (sliding window, memory bounded)."""

    MAX_TOKENS = 100_000

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit, self.window_s = limit, window_s
        self._opened: OrderedDict[str, deque[float]] = OrderedDict()

    def check(self, token: str) -> float:
        """0.0 when a new stream of ``token`` is allowed now (and counted), else the seconds to wait."""
        if self.limit <= 0:
            return 0.0
        now = time.monotonic()
        times = self._opened.get(token)
        if times is None:
            times = self._opened[token] = deque()
            if len(self._opened) > self.MAX_TOKENS:
                self._opened.popitem(last=False)
        else:
            self._opened.move_to_end(token)
        while times and times[0] <= now - self.window_s:
            times.popleft()
        if len(times) >= self.limit:
            return max(0.001, times[0] + self.window_s - now)
        times.append(now)
        return 0.0


class BotSession:
    """One open stream of one bot: an outgoing queue drained by a writer task, and the reader's state."""

    def __init__(self, gateway: Gateway, link: BotLink, context: grpc.aio.ServicerContext, session_id: str,
                 capacity: int, version: str, batches: bool = False) -> None:
        self.gateway = gateway
        self.batches = batches
        """The bot's Hello set ``accepts_batches``: several waiting messages go out as one ArenaBatch."""
        self.link = link
        self.context = context
        self.session_id = session_id
        self.capacity = capacity
        self.version = version
        self.queue: asyncio.Queue[tuple[bytes, PendingDecision | None]] = asyncio.Queue()
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.handler = asyncio.current_task()
        """The RPC's own task: cancelled when the session ended but a write to a bot that stopped reading
        keeps it from finishing (see Gateway.heartbeat_loop)."""
        self.ended_at: float | None = None
        self.kill_code: grpc.StatusCode | None = None
        self.kill_details = ""
        self.last_seen = time.monotonic()
        self.t_read = 0.0
        self.refused: deque[float] = deque()
        self.bucket = TokenBucket(gateway.config.message_rate, gateway.config.message_burst)
        self.pings: dict[int, float] = {}
        """Nonces of the Pings sent on this stream and not yet answered (a Pong must echo one), with the time each
        was sent (at most ``PINGS_REMEMBERED``, the oldest forgotten first)."""
        self.round_trips: deque[float] = deque(maxlen=RTT_SAMPLES)
        """The last Ping -> Pong round trips of this stream, in seconds."""

    @property
    def rtt_s(self) -> float:
        """The stream's round trip as lag compensation sees it: the least of the last few Ping -> Pong times (a bot
        busy deciding answers a Ping late; the least is the network's share). 0 before the first Pong."""
        return min(self.round_trips, default=0.0)

    @property
    def open(self) -> bool:
        return not self.done.done()

    def send(self, data: bytes, pending: PendingDecision | None = None) -> None:
        if self.done.done():
            return
        if self.queue.qsize() >= self.gateway.config.max_outgoing:
            self.kill(grpc.StatusCode.RESOURCE_EXHAUSTED,
                      f"{self.queue.qsize()} messages waiting: the bot does not read its stream")
            return
        self.queue.put_nowait((data, pending))

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
                    await context.write(batch_bytes(messages) if len(messages) > 1 else messages[0])
                    now = perf()
                    for item in waiting:
                        item.t_written = now
                    continue
                await context.write(data)
                if pending is not None:
                    pending.t_written = perf()
        except asyncio.CancelledError:
            raise
        except Exception:  # the stream broke: the session ends
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


class BotLink:
    """Everything this gateway holds for one bot name: its session (if connected), matches, pending decisions."""

    RETIRED_MAX = 20_000

    def __init__(self, name: str) -> None:
        self.name = name
        self.session: BotSession | None = None
        self.version = ""
        self.pending: dict[str, PendingDecision] = {}
        self.retired: OrderedDict[str, tuple[str, int, str]] = OrderedDict()
        self.matches: dict[tuple[str, int], MatchSlot] = {}
        self.connected = asyncio.Event()
        self.capacity = 0
        """Matches at once the bot's latest Hello offered (0: it never connected here)."""
        self.waiting: deque[Admission] = deque()
        """Match starts waiting for a free slot, first come first served."""

    def open_matches(self) -> set[str]:
        return {match_id for match_id, _seat in self.matches}

    def retire(self, request_id: str, match_id: str, seat: int, status: str) -> None:
        self.retired[request_id] = (match_id, seat, status)
        if len(self.retired) > self.RETIRED_MAX:
            self.retired.popitem(last=False)

    def attach(self, session: BotSession) -> None:
        """A new session takes over the bot: an older one is closed; running matches and pending
        decisions are sent again (with the time each has left)."""
        old = self.session
        if old is not None and old is not session:
            old.kill(grpc.StatusCode.ABORTED, "replaced by a newer session of the same bot")
        self.session = session
        self.version = session.version
        self.capacity = session.capacity
        self.connected.set()
        for slot in self.matches.values():
            session.send(slot.started)
        now_mono, now_ms = time.monotonic(), int(time.time() * 1000)
        for pending in self.pending.values():
            left_ms = max(1, int((pending.deadline_at - now_mono) * 1000))
            session.send(request_bytes(pending.body, pending.request_id, left_ms, now_ms + left_ms), pending)

    def detach(self, session: BotSession) -> None:
        if self.session is session:
            self.session = None
            self.connected.clear()


def _envelope(**payload: Any) -> bytes:
    return bot_pb2.ArenaMessage(**payload).SerializeToString()


def _error_bytes(code: grpc.StatusCode, message: str, match_id: str = "", request_id: str = "") -> bytes:
    return _envelope(error=error_message(_CODE[code], message, match_id=match_id, request_id=request_id))


class Gateway:
    """The BotService logic and the match-side API (used by RemoteSeat in process and by the relay consumer)."""

    def __init__(self, store: Store, config: GatewayConfig | None = None, metrics: ArenaMetrics | None = None) -> None:
        self.store = store
        self.config = config or GatewayConfig()
        if not self.config.gateway_id:
            self.config.gateway_id = new_gateway_id()
        self.gateway_id = self.config.gateway_id
        self.metrics = metrics or get_metrics()
        self.links: dict[str, BotLink] = {}
        self.sessions: dict[str, BotSession] = {}
        self._ids = itertools.count(1)
        self._prefix = uuid.uuid4().hex[:4]
        self._ping_nonce = itertools.count(1)
        self._deadlines = Deadlines()
        self._closed_sessions: set[str] = set()
        self._closed_order: deque[str] = deque()
        self.stream_limiter = StreamLimiter(self.config.new_streams_per_token, self.config.new_streams_window_s)
        self.draining = False
        """Set by :meth:`drain`: no new session, no new decision; pending ones are handed over (``moved``)."""
        self.drained: dict[str, str] = {}
        """Sessions ended by :meth:`drain` still in Redis (id -> bot), until :meth:`release_drained`."""

    # -- registry ---------------------------------------------------------------------------------
    def link(self, bot: str) -> BotLink:
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
        if link is None or link.session is None:
            return False
        link.session.kill(code, details)
        return True

    # -- the stream -------------------------------------------------------------------------------
    async def connect(self, requests: Any, context: grpc.aio.ServicerContext, bot: BotRecord) -> None:
        """The body of BotService/Connect for an authenticated bot."""
        cfg = self.config
        if self.draining:
            await self._end(context, grpc.StatusCode.UNAVAILABLE,
                            "the gateway is draining: reconnect (another gateway takes over)")
            return
        try:
            async with asyncio.timeout(cfg.hello_timeout_s):
                data = await context.read()
        except TimeoutError:
            await self._end(context, grpc.StatusCode.DEADLINE_EXCEEDED,
                            f"no Hello within {cfg.hello_timeout_s:g} s: the first message must be Hello")
            return
        if data is grpc.aio.EOF:
            return
        try:
            first = bot_pb2.BotMessage.FromString(data)
        except DecodeError:
            await self._end(context, grpc.StatusCode.INVALID_ARGUMENT,
                            "malformed message: the first message must be a BotMessage with Hello")
            return
        kind = first.WhichOneof("payload")
        if kind != "hello":
            await self._end(context, grpc.StatusCode.FAILED_PRECONDITION,
                            f"the first message on the stream must be Hello, got {kind or 'an empty message'}")
            return
        hello = first.hello
        if hello.protocol_version != PROTOCOL_VERSION:
            await self._end(context, grpc.StatusCode.FAILED_PRECONDITION,
                            f"unsupported protocol version {hello.protocol_version}: this arena speaks "
                            f"PROTOCOL_VERSION_1 (package uno_arena.v1)")
            return
        capacity = min(max(int(hello.max_concurrent_matches), 1), cfg.max_concurrent_matches)
        version = "".join(c for c in hello.bot_version if c.isprintable())[:64] or "unknown"
        session_id = uuid.uuid4().hex
        try:
            await asyncio.to_thread(self._open_session, bot.name, session_id, capacity, version,
                                    hello.accepts_human_games)
        except Exception as error:
            await self._end(context, grpc.StatusCode.UNAVAILABLE, f"cannot open the session now: {error}")
            return
        link = self.link(bot.name)
        session = BotSession(self, link, context, session_id, capacity, version, batches=hello.accepts_batches)
        self.sessions[session_id] = session
        self.metrics.bot_connected()
        reader = None
        try:
            await context.write(_envelope(welcome=bot_pb2.Welcome(
                session_id=session_id, protocol_version=PROTOCOL_VERSION,  # type: ignore[arg-type]
                heartbeat_interval_ms=int(cfg.heartbeat_interval_s * 1000), bot_id=bot.name, bot_name=bot.name,
                max_concurrent_matches=capacity, batches=session.batches)))
            reader = asyncio.create_task(self._reader(session, context))
            link.attach(session)
            self._admit_waiting(link)
            await session.write_until_done()
        finally:
            if reader is not None:
                reader.cancel()
            link.detach(session)
            self.sessions.pop(session_id, None)
            self.metrics.bot_disconnected()
            self._mark_closed(session_id)
            self._log_disconnect(link, session)
            if not self.draining:  # a draining gateway deletes it once the bot has a newer one (release_drained)
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(self.store.sessions.close, session_id)
        if session.kill_code is not None:
            await self._end(context, session.kill_code, session.kill_details)

    def _log_disconnect(self, link: BotLink, session: BotSession) -> None:
        """A ``disconnect`` incident in the bot's incident log (written off the event loop, never raising): why
        the stream ended and the decisions it left pending."""
        if session.kill_code is not None:
            why = f"{session.kill_code.name}: {session.kill_details}"
        else:
            why = "the gateway is draining" if self.draining else "the stream ended from the bot's side"
        pending = list(link.pending.values())
        incident = Incident("disconnect", pending[0].match_id if pending else "",
                            pending[0].decision_number if len(pending) == 1 else 0,
                            request_id=",".join(p.request_id for p in pending[:5]),
                            detail=f"{why} ({len(link.matches)} matches in play, {len(pending)} decisions pending)")
        with contextlib.suppress(RuntimeError):  # a loop whose executor is shut down already: nothing to log on
            asyncio.get_running_loop().run_in_executor(None, log_incidents, self.store, link.name, [incident],
                                                       self.metrics)

    def _open_session(self, bot: str, session_id: str, capacity: int, version: str, human_games: bool) -> None:
        self.store.sessions.open(bot, self.gateway_id, capacity=capacity, ttl=self.config.session_ttl_s,
                                 session_id=session_id)
        try:
            record = self.store.bots.get(bot)
            if record.version != version:
                self.store.bots.set_version(bot, version)
            if record.human_games != human_games:
                self.store.bots.set_human_games(bot, human_games)
            self.store.bots.note_version(bot, version)
        except Exception:  # the history is a nicety: a failure here never refuses the session
            log.warning("could not record version %r of bot %s", version, bot, exc_info=True)

    async def _end(self, context: grpc.aio.ServicerContext, code: grpc.StatusCode, details: str) -> None:
        """An in-band Error, then end the call with the same status."""
        try:
            async with asyncio.timeout(1.0):
                await context.write(_error_bytes(code, details))
        except Exception:
            pass
        await context.abort(code, details)

    async def _reader(self, session: BotSession, context: grpc.aio.ServicerContext) -> None:
        try:
            while True:
                data = await context.read()
                if data is grpc.aio.EOF:
                    break
                session.t_read = time.perf_counter()
                session.last_seen = time.monotonic()
                self._on_message(session, data)
                if session.done.done():
                    break
        except asyncio.CancelledError:
            raise
        except Exception:
            pass
        finally:
            session.finish()

    def _on_message(self, session: BotSession, data: bytes) -> None:
        if session.bucket.take(1) < 1:
            self._rate_limited(session, 1)
            return
        try:
            message = bot_pb2.BotMessage.FromString(data)
        except DecodeError:
            self._refuse(session, grpc.StatusCode.INVALID_ARGUMENT, "malformed",
                         f"malformed message: {len(data)} bytes that do not parse as a BotMessage")
            return
        kind = message.WhichOneof("payload")
        if kind == "batch":
            inner_messages = message.batch.messages
            count = len(inner_messages)
            # The batch's own message was counted above; its inner messages count one each.
            allowed = session.bucket.take(count - 1) + 1 if count > 1 else count
            for position, inner in enumerate(inner_messages):
                if position >= allowed:
                    self._rate_limited(session, count - allowed)
                    return
                self._on_payload(session, inner, inner.WhichOneof("payload"), in_batch=True)
                if session.done.done():
                    return
        else:
            self._on_payload(session, message, kind)

    def _rate_limited(self, session: BotSession, refused: int) -> None:
        """``refused`` messages over the stream's rate: one in-band Error for all of them (counts toward the flood
        limit once: a stream that keeps flooding is closed with RESOURCE_EXHAUSTED)."""
        cfg = self.config
        self._refuse(session, grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited",
                     f"rate limit: {refused} message(s) refused: a stream may send {cfg.message_rate:g} messages/s "
                     f"(bursts of {cfg.message_burst}; each message of a batch counts); slow down")

    def _on_payload(self, session: BotSession, message: bot_pb2.BotMessage, kind: str | None,
                    in_batch: bool = False) -> None:
        if kind == "decision":
            self._on_decision(session, message.decision)
        elif kind == "pong":
            nonce = message.pong.nonce
            sent = session.pings.pop(nonce, None)
            if sent is not None:
                session.round_trips.append(time.monotonic() - sent)
            else:
                self._refuse(session, grpc.StatusCode.INVALID_ARGUMENT, "bad_pong",
                             f"pong nonce {nonce} does not echo a Ping sent on this stream (or was answered already)")
        elif kind == "hello":
            self._refuse(session, grpc.StatusCode.FAILED_PRECONDITION, "malformed",
                         "Hello is only allowed as the first message of the stream")
        elif in_batch:
            self._refuse(session, grpc.StatusCode.INVALID_ARGUMENT, "malformed",
                         f"{'a batch inside a batch' if kind == 'batch' else 'an empty message in a batch'}: "
                         "a BotBatch holds Decision and Pong messages only")
        else:
            self._refuse(session, grpc.StatusCode.INVALID_ARGUMENT, "malformed",
                         "empty message: set one of hello, decision, pong, batch")

    def _on_decision(self, session: BotSession, decision: bot_pb2.Decision) -> None:
        link = session.link
        request_id = decision.request_id
        pending = link.pending.get(request_id)
        if pending is None:
            retired = link.retired.get(request_id)
            if retired is None:
                self._refuse(session, grpc.StatusCode.NOT_FOUND, "unknown_request",
                             f"unknown request id {request_id!r}: no decision is pending with that id",
                             decision.match_id, request_id)
                return
            match_id, seat, status = retired
            slot = link.matches.get((match_id, seat))
            if status == "answered":
                code, reason = grpc.StatusCode.ALREADY_EXISTS, "duplicate"
                text = f"match {match_id}, request {request_id}: already answered; a duplicate answer is refused"
            else:
                code, reason = grpc.StatusCode.DEADLINE_EXCEEDED, "late"
                text = (f"match {match_id}, request {request_id}: the answer came after the deadline; "
                        "the fallback action was played")
            if slot is not None and slot.closed:
                slot = None  # the match is over: refused, but no longer counted in it
            if slot is not None:
                slot.late_refusals += 1
            self._refuse(session, code, reason, text, match_id, request_id, counted=slot is not None)
            return
        if decision.match_id != pending.match_id:
            self._refuse_pending(session, pending, grpc.StatusCode.INVALID_ARGUMENT, "wrong_match",
                                 f"request {request_id} belongs to match {pending.match_id}, "
                                 f"not {decision.match_id!r}")
            return
        index = decision.action_index
        if index >= pending.legal_count:
            self._refuse_pending(session, pending, grpc.StatusCode.OUT_OF_RANGE, "out_of_range",
                                 f"match {pending.match_id}, decision {pending.decision_number}: action_index "
                                 f"{index} is out of range ({pending.legal_count} legal actions)")
            return
        pending.t_answer = time.perf_counter()
        if not pending.future.done():
            pending.future.set_result(index)
            pending.arena_s += time.perf_counter() - session.t_read

    def _refuse_pending(self, session: BotSession, pending: PendingDecision, code: grpc.StatusCode, reason: str,
                        text: str) -> None:
        pending.refusals += 1
        pending.reasons.append(f"{reason}: {text}")
        # A bot may correct itself: the first few refusals of a pending request do not count as flooding.
        self._refuse(session, code, reason, text, pending.match_id, pending.request_id, counted=True,
                     flood=pending.refusals > RETRIES_PER_REQUEST)

    def _refuse(self, session: BotSession, code: grpc.StatusCode, reason: str, text: str, match_id: str = "",
                request_id: str = "", counted: bool = False, flood: bool = True) -> None:
        """An in-band Error; `counted`: the match runner counts it (else the metric is counted here).
        `flood`: it counts toward the flood limit (every refused message does, but for the first
        RETRIES_PER_REQUEST refused answers to a pending request)."""
        if not counted:
            self.metrics.record_refusal(session.link.name, reason)
        session.send(_error_bytes(code, text, match_id, request_id))
        if not flood:
            return
        now = time.monotonic()
        window = self.config.flood_window_s
        refused = session.refused
        refused.append(now)
        while refused and refused[0] < now - window:
            refused.popleft()
        if len(refused) > self.config.flood_limit:
            session.kill(grpc.StatusCode.RESOURCE_EXHAUSTED,
                         f"flood: {len(refused)} refused messages in {window:g} s "
                         "(answers without a request, or malformed); disconnected")

    # -- the match side ---------------------------------------------------------------------------
    def start_match(self, bot: str, match_id: str, seat: int, started: bot_pb2.MatchStarted) -> None:
        """Seat the bot in a match at once, whatever its capacity (for a match already admitted elsewhere: a
        relayed match whose bot moved to this gateway). New matches go through :meth:`admit`. A match the bot
        is already seated in here is left as it is (a hand-over and the seat's own start may both come)."""
        link = self.link(bot)
        slot = link.matches.get((match_id, seat))
        if slot is not None and slot.attempt >= started.attempt:
            return
        self._open_slot(link, match_id, seat, started, _idle_limit(self, started))

    def started_body(self, bot: str, match_id: str, seat: int) -> bytes | None:
        """The serialized MatchStarted of a match the bot is seated in here (to hand it over), or None."""
        link = self.links.get(bot.casefold())
        slot = link.matches.get((match_id, seat)) if link is not None else None
        if slot is None:
            return None
        return bot_pb2.ArenaMessage.FromString(slot.started).match_started.SerializeToString()

    def _open_slot(self, link: BotLink, match_id: str, seat: int, started: bot_pb2.MatchStarted,
                   idle_limit_s: float) -> None:
        """Seat the bot (send MatchStarted); a newer attempt replaces the slot of an older one, whose pending
        decisions are dropped (:class:`Superseded`), so a reconnect never sends them to the new attempt's bot."""
        attempt = started.attempt
        old = link.matches.get((match_id, seat))
        if old is not None and old.attempt < attempt:
            for pending in list(link.pending.values()):
                if (pending.match_id == match_id and pending.seat == seat and pending.attempt < attempt
                        and not pending.future.done()):
                    pending.future.set_exception(Superseded())
        data = _envelope(match_started=started)
        link.matches[(match_id, seat)] = MatchSlot(data, attempt=attempt, idle_limit_s=idle_limit_s)
        if link.session is not None:
            link.session.send(data)

    def _stale(self, link: BotLink, match_id: str, seat: int, attempt: int) -> bool:
        """Whether ``attempt`` (0: not said) is older than the attempt the bot is seated in for this match."""
        slot = link.matches.get((match_id, seat))
        return bool(attempt) and slot is not None and slot.attempt > attempt

    def _has_room(self, link: BotLink, match_id: str) -> bool:
        open_matches = link.open_matches()
        capacity = link.capacity or self.config.max_concurrent_matches
        return match_id in open_matches or len(open_matches) < capacity

    async def admit(self, bot: str, match_id: str, seat: int, started: bot_pb2.MatchStarted,
                    timeout_s: float) -> bool:
        """Seat the bot in a match (send MatchStarted) once it plays fewer matches than its Hello offered (a second
        seat of a match it already plays needs no slot). Match starts wait first come first served; False when
        none was free within ``timeout_s`` (nothing was sent: the caller aborts the match, no strike)."""
        link = self.link(bot)
        idle = _idle_limit(self, started)
        if self._stale(link, match_id, seat, started.attempt):
            return False  # a start of an attempt that a newer one replaced: nothing to seat
        if match_id in link.open_matches() or (not link.waiting and self._has_room(link, match_id)):
            self._open_slot(link, match_id, seat, started, idle)
            return True
        entry = Admission(match_id, seat, started, idle, asyncio.get_running_loop().create_future())
        link.waiting.append(entry)
        try:
            async with asyncio.timeout(timeout_s):
                await asyncio.shield(entry.future)
            return True
        except Drained:
            return False
        except TimeoutError:
            return entry.future.done() and not entry.future.cancelled() and entry.future.exception() is None
        finally:
            if not entry.future.done():
                entry.future.cancel()
            with contextlib.suppress(ValueError):
                link.waiting.remove(entry)

    def _admit_waiting(self, link: BotLink) -> None:
        """Seat waiting match starts, in order, while the bot has room."""
        waiting = link.waiting
        while waiting:
            entry = waiting[0]
            if entry.future.done():
                waiting.popleft()
                continue
            if not self._has_room(link, entry.match_id):
                return
            waiting.popleft()
            self._open_slot(link, entry.match_id, entry.seat, entry.started, entry.idle_limit_s)
            entry.future.set_result(None)

    def open_matches(self, bot: str) -> int:
        """Matches the bot is seated in on this gateway now."""
        link = self.links.get(bot.casefold())
        return len(link.open_matches()) if link is not None else 0

    def send_events(self, bot: str, match_id: str, seat: int, events: bot_pb2.MatchEvents, attempt: int = 0) -> None:
        link = self.link(bot)
        if self._stale(link, match_id, seat, attempt):
            return
        slot = link.matches.get((match_id, seat))
        if slot is not None:
            slot.last_used = time.monotonic()
        if link.session is not None:
            link.session.send(_envelope(match_events=events))

    def end_match(self, bot: str, match_id: str, seat: int, ended: bot_pb2.MatchEnded | None,
                  attempt: int = 0) -> int:
        """Tell the bot its match ended; returns the seat's late refusals (the slot is dropped, which frees a match
        slot of the bot). ``ended`` None: release the slot without telling the bot (a start given up). The end of
        an older attempt than the slot's (``attempt``, else ``ended.attempt``) leaves the newer attempt's slot."""
        link = self.link(bot)
        if self._stale(link, match_id, seat, attempt or (ended.attempt if ended is not None else 0)):
            if link.session is not None and ended is not None:
                link.session.send(_envelope(match_ended=ended))
            return 0
        slot = link.matches.pop((match_id, seat), None)
        if link.session is not None and ended is not None:
            link.session.send(_envelope(match_ended=ended))
        if link.waiting:
            self._admit_waiting(link)
        return slot.late_refusals if slot is not None else 0

    def close_match(self, bot: str, match_id: str, seat: int, attempt: int = 0) -> int:
        """The match is over: later answers to its requests are refused without counting in it; returns the seat's
        late refusals, final from now on (so the MatchEnded the runner builds next tells the stored count)."""
        link = self.links.get(bot.casefold())
        slot = link.matches.get((match_id, seat)) if link is not None else None
        if slot is None or (attempt and slot.attempt > attempt):
            return 0
        slot.closed = True
        return slot.late_refusals

    def late_refusals(self, bot: str, match_id: str, seat: int) -> int:
        link = self.links.get(bot.casefold())
        slot = link.matches.get((match_id, seat)) if link is not None else None
        return slot.late_refusals if slot is not None else 0

    def new_request_id(self) -> str:
        return f"{self._prefix}-{next(self._ids)}"

    async def decide(self, bot: str, match_id: str, seat: int, decision_number: int, body: bytes, legal_count: int,
                     deadline_s: float, attempt: int = 0, lag_cap_s: float = 0.0) -> DecideOutcome:
        """Send the DecisionRequest ``body`` (serialized without request id and times, see
        :func:`arena.protocol.encoding.request_body`) to the bot and wait for a valid answer up to ``deadline_s``.
        The bot need not be connected now: the request waits for it (a reconnect picks it up). On a draining
        gateway it is ``gone`` with ``moved`` set, unsent or at once (the relay hands it over). A request of an
        older ``attempt`` than the bot's newest start of the match is ``gone`` unsent, and a pending one is
        dropped when a newer attempt starts (:class:`Superseded`). The wait is ``deadline_s`` plus the stream's
        round trip up to ``lag_cap_s`` (lag compensation; the bot is told ``deadline_s``)."""
        t_start = time.perf_counter()
        link = self.link(bot)
        if self.draining:
            return DecideOutcome("gone", None, 0, [], None, self.late_refusals(bot, match_id, seat), link.version,
                                 moved=True)
        if self._stale(link, match_id, seat, attempt):
            return DecideOutcome("gone", None, 0, [], None, 0, link.version)
        request_id = self.new_request_id()
        limit_ms = max(1, int(deadline_s * 1000))
        session = link.session
        lag = min(lag_cap_s, session.rtt_s) if session is not None and lag_cap_s > 0 else 0.0
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        pending = PendingDecision(request_id, match_id, seat, decision_number, body, legal_count, future,
                                  self._deadlines.add(future, deadline_s + lag), attempt=attempt)
        link.pending[request_id] = pending
        slot = link.matches.get((match_id, seat))
        if slot is not None:
            slot.last_used = pending.deadline_at
        if session is not None:
            session.send(request_bytes(body, request_id, limit_ms, int(time.time() * 1000) + limit_ms), pending)
        index: int | None = None
        status = "cancelled"
        moved = False
        pending.arena_s += time.perf_counter() - t_start
        try:
            index = await future
            status = "answered"
        except Drained:
            status, moved = "gone", True
        except Superseded:
            status = "gone"
        except TimeoutError:
            status = "timeout" if link.session is not None else "gone"
            if link.session is not None:
                link.session.send(_error_bytes(
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                    f"match {match_id}, decision {decision_number}: no valid answer within {limit_ms} ms; "
                    "the fallback action was played", match_id, request_id))
        finally:
            if not future.done():  # cancelled: the deadline queue drops it
                future.cancel()
            link.pending.pop(request_id, None)
            link.retire(request_id, match_id, seat, status)
        wire = None
        if pending.t_answer is not None and pending.t_written is not None:
            wire = pending.t_answer - pending.t_written
        return DecideOutcome(status, index, pending.refusals, pending.reasons, wire,
                             slot.late_refusals if slot is not None else 0, link.version, pending.arena_s, moved, lag)

    # -- housekeeping -----------------------------------------------------------------------------
    async def heartbeat_loop(self) -> None:
        """Ping every session, close silent ones, refresh the sessions' TTL in Redis, drop stale slots."""
        cfg = self.config
        period = min(cfg.heartbeat_interval_s, cfg.session_ttl_s / 3)
        last_ping = time.monotonic()
        while True:
            await asyncio.sleep(period)
            now = time.monotonic()
            silent_after = cfg.heartbeat_interval_s * cfg.heartbeat_misses
            ping = now - last_ping >= cfg.heartbeat_interval_s * 0.99
            if ping:
                last_ping = now
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
                    nonce = next(self._ping_nonce)
                    session.pings[nonce] = now
                    if len(session.pings) > PINGS_REMEMBERED:
                        del session.pings[next(iter(session.pings))]
                    session.send(_envelope(ping=bot_pb2.Ping(nonce=nonce, sent_unix_ms=int(time.time() * 1000))))
            live = [(s.session_id, s.link.name, s.capacity) for s in self.sessions.values() if s.open]
            if live:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(self._refresh_sessions, live)
            for link in self.links.values():
                stale = [key for key, slot in link.matches.items() if now - slot.last_used > slot.idle_limit_s]
                for key in stale:
                    del link.matches[key]
                if stale and link.waiting:
                    self._admit_waiting(link)

    def _refresh_sessions(self, live: Sequence[tuple[str, str, int]]) -> None:
        """Refresh the TTL of the sessions open here; re-create one Redis lost (a restart). Runs in a thread
        while sessions may close: one that closed is never re-created (it would outlive its stream in Redis
        for a whole TTL), and one that closed while it was being re-created is closed again."""
        ttl = self.config.session_ttl_s
        closed = self._closed_sessions
        live = [entry for entry in live if entry[0] not in closed]
        refreshed = self.store.sessions.heartbeat_many([session_id for session_id, _bot, _cap in live], ttl)
        for (session_id, bot, capacity), alive in zip(live, refreshed, strict=True):
            if not alive and session_id not in closed:
                self.store.sessions.open(bot, self.gateway_id, capacity=capacity, ttl=ttl, session_id=session_id)
                if session_id in closed:
                    self.store.sessions.close(session_id)

    def _mark_closed(self, session_id: str) -> None:
        """Remember that ``session_id`` ended (before its Redis record is deleted), for _refresh_sessions."""
        self._closed_sessions.add(session_id)
        self._closed_order.append(session_id)
        if len(self._closed_order) > CLOSED_SESSIONS_KEPT:
            self._closed_sessions.discard(self._closed_order.popleft())

    def close_all(self, details: str = "the gateway is shutting down") -> None:
        for session in list(self.sessions.values()):
            session.kill(grpc.StatusCode.UNAVAILABLE, details)

    async def drain(self, reason: str = "the gateway is draining") -> None:
        """Stop taking sessions and decisions; tell every bot to move (Goodbye, then the stream ends with
        UNAVAILABLE); end pending decisions and waiting match starts with :class:`Drained` (the relay hands them
        over to the bot's new gateway, :mod:`arena.server.relay_consumer`). The sessions stay in Redis until
        the bot has a newer one on another gateway (:meth:`release_drained`): meanwhile the relay still finds
        this gateway, which hands the bot's decisions over, instead of no gateway at all."""
        self.draining = True
        sessions = list(self.sessions.values())
        goodbye = _envelope(goodbye=bot_pb2.Goodbye(reason=reason,
                                                    reconnect_after_ms=max(0, self.config.goodbye_reconnect_ms)))
        for session in sessions:
            session.send(goodbye)
        deadline = time.monotonic() + GOODBYE_WRITE_S
        while any(s.open and not s.queue.empty() for s in sessions) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        for session in sessions:
            self._mark_closed(session.session_id)
            self.drained[session.session_id] = session.link.name
            session.kill(grpc.StatusCode.UNAVAILABLE, f"{reason}: reconnect (another gateway takes over)")
        for link in self.links.values():
            for pending in link.pending.values():
                if not pending.future.done():
                    pending.future.set_exception(Drained())
            for entry in link.waiting:
                if not entry.future.done():
                    entry.future.set_exception(Drained())

    async def release_drained(self) -> None:
        """Delete from Redis the drained sessions whose bot has a newer session on another gateway."""
        if self.drained:
            with contextlib.suppress(Exception):  # Redis away: the next look tries again, the sessions expire
                await asyncio.to_thread(self._release_drained, False)

    def release_everything_now(self) -> None:
        """Delete every drained session from Redis at once, in this thread (a gateway on its way out)."""
        self._release_drained(True)

    def _release_drained(self, everything: bool) -> None:
        if everything:  # leaving: delete every drained session first (that is what must happen before the exit)
            stranded = set()
            for session_id, bot in list(self.drained.items()):
                self.store.sessions.close(session_id)
                self.drained.pop(session_id, None)
                stranded.add(bot)
            for bot in stranded:  # told to move, it had not yet when this gateway left: not its fault
                if not self.store.sessions.for_bot(bot):
                    self.store.sessions.mark_lost(bot)
            return
        moved: dict[str, bool] = {}
        for session_id, bot in list(self.drained.items()):
            if bot not in moved:
                moved[bot] = any(s.gateway != self.gateway_id for s in self.store.sessions.for_bot(bot))
            if moved[bot]:
                self.store.sessions.close(session_id)
                self.drained.pop(session_id, None)


def _idle_limit(gateway: Gateway, started: bot_pb2.MatchStarted) -> float:
    return max(gateway.config.slot_idle_s, 20 * started.decision_time_limit_ms / 1000.0)


def server_credentials(config: GatewayConfig) -> grpc.ServerCredentials | None:
    """TLS credentials from ``tls_cert``/``tls_key`` (PEM files), or None for plaintext."""
    if not config.tls_cert and not config.tls_key:
        return None
    if not (config.tls_cert and config.tls_key):
        raise ValueError("TLS needs both a certificate and a key (--tls-cert FILE --tls-key FILE)")
    with open(config.tls_key, "rb") as key, open(config.tls_cert, "rb") as cert:
        return grpc.ssl_server_credentials([(key.read(), cert.read())])


def server_options(config: GatewayConfig) -> list[tuple[str, int]]:
    """Channel arguments of the gateway: small receive limit, keepalive 20 s / 10 s, no max_connection_age."""
    return [
        ("grpc.max_receive_message_length", config.max_message_bytes),
        ("grpc.keepalive_time_ms", config.keepalive_time_ms),
        ("grpc.keepalive_timeout_ms", config.keepalive_timeout_ms),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_recv_ping_interval_without_data_ms", 10_000),
        ("grpc.http2.max_ping_strikes", 0),
    ]


def _bot_service_handler(gateway: Gateway) -> grpc.GenericRpcHandler:
    async def unauthenticated(_requests: Any, context: grpc.aio.ServicerContext) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "no credentials were checked")

    # Raw bytes both ways: the gateway parses requests itself, so a malformed message gets an in-band error
    # instead of ending the call, and outgoing messages are serialised once.
    handler = grpc.stream_stream_rpc_method_handler(unauthenticated)
    return grpc.method_handlers_generic_handler("uno_arena.v1.BotService", {"Connect": handler})


class GatewayServer:
    """The gateway process's server: BotService (authenticated), health, reflection, heartbeat, relay.

    ``services``: callables ``add(server)`` adding more servicers (e.g. the organizer API) before start.
    """

    def __init__(self, store: Store, config: GatewayConfig | None = None, *, metrics: ArenaMetrics | None = None,
                 services: Sequence[Callable[[grpc.aio.Server], None]] = ()) -> None:
        self.store = store
        self.config = config or GatewayConfig()
        self.gateway = Gateway(store, self.config, metrics)
        self.metrics = self.gateway.metrics
        self.services = list(services)
        self.port = 0
        self.server: grpc.aio.Server | None = None
        self.health = HealthServicer()
        self._tasks: list[asyncio.Task[None]] = []
        self._relay: RelayConsumer | None = None

    async def start(self) -> None:
        server = grpc.aio.server(
            interceptors=[BotAuthInterceptor(self.store, self.gateway.connect, self.gateway.stream_limiter)],
            options=server_options(self.config),
        )
        server.add_generic_rpc_handlers((_bot_service_handler(self.gateway),))
        health_pb2_grpc.add_HealthServicer_to_server(self.health, server)
        for add in self.services:
            add(server)
        reflection.enable_server_reflection((*SERVICE_NAMES, health_pb2.DESCRIPTOR.services_by_name["Health"]
                                             .full_name, reflection.SERVICE_NAME), server)
        credentials = server_credentials(self.config)
        if credentials is None:
            port = server.add_insecure_port(self.config.address)
        else:
            port = server.add_secure_port(self.config.address, credentials)
        if not port:
            raise OSError(f"cannot listen on {self.config.address}")
        self.port = port
        await server.start()
        self.server = server
        for name in ("", *SERVICE_NAMES):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        self._tasks.append(asyncio.create_task(self.gateway.heartbeat_loop()))
        if self.config.relay:
            self._relay = RelayConsumer(self.store, self.gateway)
            self._tasks.append(asyncio.create_task(self._relay.run()))
        self.metrics.set_gateway_up(True)
        self.metrics.set_build_info("gateway")

    async def stop(self, grace: float | None = 5.0) -> None:
        """Stop serving: health NOT_SERVING, sessions closed (bots reconnect elsewhere), tasks ended."""
        self.metrics.set_gateway_up(False)
        with contextlib.suppress(Exception):
            await self.health.enter_graceful_shutdown()
        self.gateway.close_all()
        if self._relay is not None:
            self._relay.stop()  # its loop ends at its next pop even if redis-py swallows the cancellation
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=STOP_TASKS_TIMEOUT_S)
        self._tasks.clear()
        if self.server is not None:
            await self.server.stop(grace)

    async def drain(self, grace: float = 2.0, reason: str = "the gateway is draining") -> None:
        """Drain, then stop (what SIGTERM of ``uno-arena serve`` does); returns within about
        ``drain_timeout_s`` + 4.5 s, whatever the bots and Redis do:

        1. health NOT_SERVING, no new stream (the listening socket closes: a gateway started on the same port,
           gRPC binds with SO_REUSEPORT, gets every new connection), no new decision or match start here;
        2. every bot gets a Goodbye (reconnect at once to the same address) and its stream ends (UNAVAILABLE);
           each of this gateway's sessions is deleted from Redis as soon as its bot has a newer one elsewhere
           (meanwhile the relay still finds this gateway, which hands over, rather than no gateway), the rest
           on the way out;
        3. relayed decisions pending here, and those that still come, are handed over to the gateway the bot
           moved to, with the time they have left (:class:`~arena.server.relay_consumer.RelayConsumer`), until
           every bot moved and the relay queue is quiet for ``DRAIN_IDLE_S``, or ``drain_timeout_s`` passed;
        4. every background task ends (each honours cancellation; the relay consumer at its next pop), the
           server stops.
        """
        loop = asyncio.get_running_loop()
        until = loop.time() + max(0.0, self.config.drain_timeout_s)
        self.metrics.set_gateway_up(False)
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1.0):
                await self.health.enter_graceful_shutdown()
        stopping: asyncio.Task[None] | None = None
        if self.server is not None:  # stop listening now; running streams get `grace` to end
            stopping = asyncio.create_task(self.server.stop(grace))
        for task in self._tasks[:1]:  # the heartbeat: it must not re-create the sessions deleted next
            task.cancel()
        gateway = self.gateway
        await gateway.drain(reason)
        relay = self._relay
        if relay is not None:
            relay.draining_since(loop.time())
        releasing: asyncio.Task[None] | None = None
        while loop.time() < until:
            # One look at a time (in a thread): a slow Redis must not pile looks up in the loop's executor.
            if releasing is None or releasing.done():
                releasing = asyncio.create_task(gateway.release_drained())
            if relay is None or (relay.idle(DRAIN_IDLE_S) and not gateway.drained):
                break
            await asyncio.sleep(0.05)
        if relay is not None:
            relay.stop()
        if releasing is not None:
            releasing.cancel()  # its thread finishes by itself; what it leaves is deleted next
        # On the way out the sessions left are deleted here and now, not through the executor (which a look still
        # running may hold): blocking the loop no longer matters, and the Redis client's timeouts bound it.
        try:
            gateway.release_everything_now()
        except Exception:
            log.warning("could not delete the drained sessions from Redis; they expire by themselves", exc_info=True)
        gateway.close_all(reason)
        for task in self._tasks:
            task.cancel()
        if self._tasks:  # the relay consumer ends at its next pop (POP_TIMEOUT_S)
            await asyncio.wait(self._tasks, timeout=min(STOP_TASKS_TIMEOUT_S, 1.5))
        self._tasks.clear()
        if stopping is not None:
            await asyncio.wait({stopping}, timeout=grace + 1.0)

    async def wait(self) -> None:
        if self.server is not None:
            await self.server.wait_for_termination()
