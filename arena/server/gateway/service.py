"""The gateway (:class:`Gateway`): its parts put together, the handler of an authenticated ``BotService/Connect``
stream (Hello, Welcome, the session's life until its stream ends) and the heartbeat. A bot's report that its own
code failed on a decision (``Decision.bot_error``) becomes an ``error`` incident in its log, and is kept per bot
(:meth:`Gateway.code_errors`, which ``bot check`` reads). Callers use each part directly (the relay consumer through
:class:`arena.server.match_api.MatchApi`): a decision costs no extra call through this class.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio
from google.protobuf.message import DecodeError

from arena.metrics import ArenaMetrics, get_metrics
from arena.protocol import PROTOCOL_VERSION, bot_pb2
from arena.server.gateway.admission import Admissions
from arena.server.gateway.bot_sessions import SessionRegistry
from arena.server.gateway.config import GatewayConfig, new_gateway_id
from arena.server.gateway.decisions import Decisions
from arena.server.gateway.drain import Drain
from arena.server.gateway.inbound import Inbound
from arena.server.gateway.links import BotLink
from arena.server.gateway.records import FreshSandbox, PendingDecision
from arena.server.gateway.stream import BotSession, envelope, error_bytes
from arena.server.gateway.stream_limits import StreamLimiter
from arena.server.gateway.transport import peer_address
from arena.service.incidents import MAX_PER_MATCH, CodeError, code_error, log_incidents
from arena.store import BotRecord, Incident, Store

log = logging.getLogger(__name__)

CODE_ERROR_MATCHES = 10_000
"""Matches per bot whose logged code errors are counted (:attr:`CodeErrors.logged`)."""
END_WRITE_S = 1.0
"""How long the in-band Error that ends a call may take to be written."""
DRAINING_REFUSAL = "the gateway is draining: reconnect (another gateway takes over)"
"""Why a stream that starts (or finishes its Hello) on a draining gateway ends at once."""
SANDBOX_SPENT = ("this sandbox's one match is over: the bot host starts a fresh one for the next (the competition "
                 "asks for bots without memory)")
"""Why a fresh sandbox whose match ended while it was away cannot open a session again."""
SANDBOXES_ONLY = ("bot {bot} plays in a competition without memory: only the bot host's fresh sandboxes connect it "
                  "(submit its code with `uno-arena bot submit`), not a process of its own")
"""Why a bot's own process is refused while a competition without memory admits it."""


async def end_call(context: grpc.aio.ServicerContext, code: grpc.StatusCode, details: str) -> None:
    """An in-band Error, then end the call with the same status."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(END_WRITE_S):
            await context.write(error_bytes(code, details))
    await context.abort(code, details)


@dataclass
class CodeErrors:
    """The decisions on which a bot's own code failed, as it reported them (``Decision.bot_error``): how many, and
    the first (with its traceback)."""

    count: int = 0
    first: CodeError | None = None
    logged: dict[str, int] = field(default_factory=dict)
    """Incidents logged per match (at most :data:`MAX_PER_MATCH` each: a bot failing every decision gets a
    readable log, not a flood); the oldest matches are forgotten past :data:`CODE_ERROR_MATCHES`."""


class Gateway:
    """The BotService logic and its parts, which callers use directly: :attr:`registry` (sessions and links),
    :attr:`admissions` (match slots, starts, events, ends), :attr:`decisions` and :attr:`drainer`."""

    def __init__(self, store: Store, config: GatewayConfig | None = None, metrics: ArenaMetrics | None = None) -> None:
        self.store = store
        self.config = config or GatewayConfig()
        if not self.config.gateway_id:
            self.config.gateway_id = new_gateway_id()
        self.gateway_id = self.config.gateway_id
        self.metrics = metrics or get_metrics()
        self.stream_limiter = StreamLimiter(self.config.new_streams_per_token, self.config.new_streams_window_s)
        self.registry = SessionRegistry(store, self.config, self.gateway_id)
        self.admissions = Admissions(self.registry, self.config)
        self.admissions.sandbox_seated = self._bind_sandbox
        self.admissions.sandbox_done = self._spend_sandbox
        self._store_writes: set[asyncio.Task[None]] = set()
        self.decisions = Decisions(self.registry, self.admissions)
        self.decisions.on_code_error = self._code_error
        self._code_errors: dict[str, CodeErrors] = {}
        self.inbound = Inbound(self.decisions)
        self.drainer = Drain(store, self.registry, self.config)
        self.sessions = self.registry.sessions
        """Open sessions by id."""

    # -- the stream -------------------------------------------------------------------------------
    async def connect(self, requests: Any, context: grpc.aio.ServicerContext, bot: BotRecord) -> None:
        """The body of BotService/Connect for an authenticated bot."""
        if self.registry.draining:
            await end_call(context, grpc.StatusCode.UNAVAILABLE, DRAINING_REFUSAL)
            return
        if bot.sandboxes_only and not bot.fresh_sandbox:
            await end_call(context, grpc.StatusCode.FAILED_PRECONDITION, SANDBOXES_ONLY.format(bot=bot.name))
            return
        hello = await self._hello(context)
        if hello is None:
            return
        cfg = self.config
        capacity, human_games, sandbox = self._terms(bot, hello)
        # A process of the bot host has the version of the submission it runs (its token says which), so a new
        # submission is a new version on the ladders whatever its code's Hello says.
        version = bot.host_version or "".join(c for c in hello.bot_version if c.isprintable())[:64] or "unknown"
        # Before the session exists anywhere: its first decision's lag compensation needs it.
        kernel_rtt_s = await self.registry.round_trip(peer_address(context.peer()))
        session_id = uuid.uuid4().hex
        if self.registry.draining:  # it began during the Hello
            await end_call(context, grpc.StatusCode.UNAVAILABLE, DRAINING_REFUSAL)
            return
        try:
            ended = await asyncio.to_thread(self.registry.record_open, bot.name, session_id, capacity, version,
                                            human_games, sandbox is not None)
        except Exception as error:
            await end_call(context, grpc.StatusCode.UNAVAILABLE, f"cannot open the session now: {error}")
            return
        link = self.registry.link(bot.name)
        for end in ended:  # matches that ended while it was away: their slots are freed, never seated again
            self.admissions.end_match(bot.name, end.match_id, end.seat, None, end.attempt)
        if self._spent_while_away(bot.name, sandbox, [end.match_id for end in ended]):
            await self.registry.delete_record(session_id)
            await end_call(context, grpc.StatusCode.FAILED_PRECONDITION, SANDBOX_SPENT)
            return
        if self.registry.draining:  # the drain began while the record was written: it never saw this session, so its
            await self.registry.delete_record(session_id)  # record goes now (else it outlives the gateway)
            await end_call(context, grpc.StatusCode.UNAVAILABLE, DRAINING_REFUSAL)
            return
        # From here to the registry, no await: a drain starting later sees this session and takes it over.
        session = BotSession(link.name, context, session_id, capacity, version, cfg, self.metrics,
                             batches=hello.accepts_batches)
        session.transport_rtt_s = kernel_rtt_s
        session.fresh_sandbox = sandbox
        self.sessions[session_id] = session
        self.metrics.bot_connected()
        reader = None
        try:
            await context.write(envelope(welcome=bot_pb2.Welcome(
                session_id=session_id, protocol_version=PROTOCOL_VERSION,  # type: ignore[arg-type]
                heartbeat_interval_ms=int(cfg.heartbeat_interval_s * 1000), bot_id=bot.name, bot_name=bot.name,
                max_concurrent_matches=capacity, batches=session.batches)))
            reader = asyncio.create_task(self.inbound.read(session, link, context))
            link.attach(session)
            if sandbox is not None:
                self._bind_left_match(link, sandbox)
            self.admissions.admit_waiting(link)
            await session.write_until_done()
        finally:
            if reader is not None:
                reader.cancel()
            self.registry.forget(link, session)
            self.metrics.bot_disconnected()
            self._log_disconnect(link, session)
            if not self.registry.draining:  # a draining gateway deletes it once the bot has a newer one (Drain.release)
                await self.registry.delete_record(session_id)
        if session.kill_code is not None:
            await end_call(context, session.kill_code, session.kill_details)

    async def _hello(self, context: grpc.aio.ServicerContext) -> bot_pb2.Hello | None:
        """The stream's first message, a Hello of this protocol version within ``hello_timeout_s``; None when it
        is not (the call is ended, with an in-band Error saying why) or the stream ended first."""
        timeout_s = self.config.hello_timeout_s
        try:
            async with asyncio.timeout(timeout_s):
                data = await context.read()
        except TimeoutError:
            await end_call(context, grpc.StatusCode.DEADLINE_EXCEEDED,
                           f"no Hello within {timeout_s:g} s: the first message must be Hello")
            return None
        if data is grpc.aio.EOF:
            return None
        try:
            first = bot_pb2.BotMessage.FromString(data)
        except DecodeError:
            await end_call(context, grpc.StatusCode.INVALID_ARGUMENT,
                           "malformed message: the first message must be a BotMessage with Hello")
            return None
        kind = first.WhichOneof("payload")
        if kind != "hello":
            await end_call(context, grpc.StatusCode.FAILED_PRECONDITION,
                           f"the first message on the stream must be Hello, got {kind or 'an empty message'}")
            return None
        if first.hello.protocol_version != PROTOCOL_VERSION:
            await end_call(context, grpc.StatusCode.FAILED_PRECONDITION,
                           f"unsupported protocol version {first.hello.protocol_version}: this arena speaks "
                           f"PROTOCOL_VERSION_1 (package uno_arena.v1)")
            return None
        return first.hello

    def code_errors(self, bot: str) -> CodeErrors:
        """The decisions on which ``bot``'s own code failed, as it reported them (``Decision.bot_error``) here."""
        return self._code_errors.get(bot) or CodeErrors()

    def _code_error(self, link: BotLink, pending: PendingDecision, report: bot_pb2.BotError) -> None:
        """The bot answered ``pending`` with the safe action because its code failed: an ``error`` incident in its
        log (written off the event loop, never raising, counted in ``uno_arena_bot_incidents_total``)."""
        error = code_error(pending.match_id, pending.decision_number, pending.request_id, report.type,
                           report.message, report.traceback)
        known = self._code_errors.setdefault(link.name, CodeErrors())
        known.count += 1
        if known.first is None:
            known.first = error
        logged = known.logged.pop(error.match_id, 0)
        if len(known.logged) >= CODE_ERROR_MATCHES:
            del known.logged[next(iter(known.logged))]
        known.logged[error.match_id] = logged + 1  # the match moves to the newest end
        if logged >= MAX_PER_MATCH:
            return
        with contextlib.suppress(RuntimeError):  # a loop whose executor is shut down already: nothing to log on
            asyncio.get_running_loop().run_in_executor(None, log_incidents, self.store, link.name,
                                                       [error.incident()], self.metrics)

    def _terms(self, bot: BotRecord, hello: bot_pb2.Hello) -> tuple[int, bool, FreshSandbox | None]:
        """A new session's capacity, whether it takes games against people, and its fresh sandbox (a bot host's
        process for a bot without memory: one match, never a person's game), else None."""
        if bot.fresh_sandbox:
            return 1, False, FreshSandbox(bot.host_token_id, bot.sandbox_match)
        capacity = min(max(int(hello.max_concurrent_matches), 1), self.config.max_concurrent_matches)
        return capacity, hello.accepts_human_games, None

    def _spent_while_away(self, bot: str, sandbox: FreshSandbox | None, ended: list[str]) -> bool:
        """Whether a fresh sandbox's one match ended while it was away (then its token is spent now)."""
        if sandbox is None or not sandbox.match_id or sandbox.match_id not in ended:
            return False
        self._spend_sandbox(bot, sandbox)
        return True

    def _bind_left_match(self, link: BotLink, sandbox: FreshSandbox) -> None:
        """A fresh sandbox that finds the bot seated here in a match its crashed predecessor left finishes it."""
        if not sandbox.match_id and link.open_matches():
            sandbox.match_id = min(link.open_matches())
            self._bind_sandbox(link.name, sandbox)

    def _bind_sandbox(self, bot: str, sandbox: FreshSandbox) -> None:
        """Remember in the store the one match a fresh sandbox is seated in (a session it opens again is bound
        to it)."""
        self._write_later(f"binding bot {bot}'s fresh sandbox to match {sandbox.match_id}",
                          self.store.bots.bind_host_token, bot, sandbox.token_id, sandbox.match_id)

    def _spend_sandbox(self, bot: str, sandbox: FreshSandbox) -> None:
        """A fresh sandbox's one match ended: its token works no more (the bot host then starts a fresh one)."""
        self._write_later(f"spending the token of bot {bot}'s fresh sandbox", self.store.bots.spend_host_token,
                          bot, sandbox.token_id)

    def _write_later(self, what: str, write: Callable[..., object], *args: object) -> None:
        """A store write off the event loop, tried three times; a failure is logged once, never raised."""

        async def attempt() -> None:
            last: Exception | None = None
            for pause in (0.0, 0.5, 2.0):
                await asyncio.sleep(pause)
                try:
                    await asyncio.to_thread(write, *args)
                    return
                except RuntimeError:  # the loop's executor is shut down: the gateway is stopping
                    return
                except Exception as error:
                    last = error
            log.warning("%s failed: %s", what, last)

        task = asyncio.get_running_loop().create_task(attempt())
        self._store_writes.add(task)
        task.add_done_callback(self._store_writes.discard)

    def _log_disconnect(self, link: BotLink, session: BotSession) -> None:
        """A ``disconnect`` incident in the bot's incident log (written off the event loop, never raising): why
        the stream ended and the decisions it left pending."""
        if session.kill_code is not None:
            why = f"{session.kill_code.name}: {session.kill_details}"
        else:
            why = "the gateway is draining" if self.registry.draining else "the stream ended from the bot's side"
        pending = list(link.pending.values())
        incident = Incident("disconnect", pending[0].match_id if pending else "",
                            pending[0].decision_number if len(pending) == 1 else 0,
                            request_id=",".join(p.request_id for p in pending[:5]),
                            detail=f"{why} ({len(link.matches)} matches in play, {len(pending)} decisions pending)")
        with contextlib.suppress(RuntimeError):  # a loop whose executor is shut down already: nothing to log on
            asyncio.get_running_loop().run_in_executor(None, log_incidents, self.store, link.name, [incident],
                                                       self.metrics)

    # -- housekeeping -----------------------------------------------------------------------------
    async def heartbeat_loop(self) -> None:
        """Ping every session, close silent ones, read their connections' round trips (with each Ping), refresh
        the sessions' TTL in Redis, drop stale slots."""
        cfg = self.config
        period = min(cfg.heartbeat_interval_s, cfg.session_ttl_s / 3)
        last_ping = time.monotonic()
        while True:
            await asyncio.sleep(period)
            now = time.monotonic()
            ping = now - last_ping >= cfg.heartbeat_interval_s * 0.99
            if ping:
                last_ping = now
            self.registry.sweep(now, ping)
            if ping:
                await self.registry.measure()
            await self.registry.refresh()
            self.admissions.drop_idle_slots(now)
