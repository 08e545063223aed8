"""The Python bot kit: write a function from observation to choice, call one function to play.

    from bots.kit import play

    def choose(observation, legal):          # arena.engine Observation, list of arena.engine Action
        return 0                             # the index of the chosen action in `legal`

    if __name__ == "__main__":
        play(choose, target="arena.example.org:50051", token="mybot.XXXX")

Without ``target``, the arena is ``$UNO_ARENA_TARGET`` (what ``uno-arena demo --keep-running`` prints to export),
else ``localhost:50051``. A bot that has not reached its arena :data:`UNREACHABLE_NOTICE_S` after it started says so
in one line naming the address and the fix, and keeps trying. The token may also come from a file
(``token_file="~/.config/mybot.token"``) or, when neither is given, from ``$UNO_ARENA_BOT_TOKEN`` or the file
``$UNO_ARENA_BOT_TOKEN_FILE`` names (:func:`bot_token`): a token in a command line (``--token``) is visible to every
user of the machine (``ps``), a file (mode 0600) or an environment variable is not.

``play`` also takes a :class:`bots.Bot` instance (shared by every match), a ``Bot`` subclass (one fresh
instance per match and seat, seeded from the match id), any other class with a ``choose(observation, legal)`` method
(one fresh instance per match and seat, made with no arguments), any object with such a method (shared), or
``factory=`` a callable ``(match_id, seat) -> Bot``.
A per-match bot is made afresh for every attempt of a match (``MatchStarted.attempt``: a match the arena aborted,
e.g. a worker that died, is played again from the same seed), so a replayed match plays out as a clean run.
Observations arrive as protobuf and are converted back to engine types, so ``bots.Bot`` subclasses work
unchanged, remote or local.

What the kit does for you: the token in the call metadata; Hello / Welcome; many matches at once over the
one stream (each decision request names its match); Pong for every Ping; reconnects with jittered
exponential backoff when the stream drops (the arena re-sends the decisions still pending, so none is lost
to a short outage), and at once, without backoff, to the same target when a draining gateway says Goodbye
(another gateway behind the address takes over; the following attempts back off to at most
``MOVE_BACKOFF_S``); gives up at once on errors that a retry cannot fix (``UNAUTHENTICATED``, unsupported
protocol version, ``ABORTED`` when a newer process of the same bot took the session over); a clean
shutdown on SIGINT/SIGTERM (``play``) or when ``stop`` is set (``play_async``).

TLS: ``play(..., tls=True)`` for an arena served with TLS (the system's roots), or ``tls_ca="ca.pem"`` to trust
a private CA or the arena's self-signed certificate (:func:`tls_credentials`); plaintext otherwise.

``BotClient(..., raw=fn)`` hands ``fn`` the DecisionRequest message itself (no conversion), for bots that
work from the protobuf fields.

Batches: the kit's Hello sets ``accepts_batches`` (``BotClient(..., batches=False)`` turns it off), so the arena
may send several waiting messages in one ArenaBatch; the kit handles them in order and sends the answers to
one stream message back in one BotBatch. With many matches in flight this halves the per-decision cost on
both sides (the gateway benchmark, docs/benchmarks.md).

Your bug costs one decision, not the stream: when ``choose`` raises (or returns something that is not the index
of a legal action), the kit logs it at ERROR with the traceback, the match id, the decision number and the
observation's short form, and answers that one decision with the *safe legal action*, the same one the arena's
fallback would play (:func:`arena.players.fallback_action`: draw or pass, accept, the first colour offered, never a
catch or a challenge), in time and without a strike; the other matches go on, and ``KitStats.choose_errors``
counts them. The answer tells the arena what happened (``Decision.bot_error``: the exception's type, message and
traceback): the arena records an ``error`` incident in the bot's log (``uno-arena bot log``, the web's bot page)
and ``uno-arena bot check`` fails the bot, so the bug is not hidden by the safe answer. (The kit answers rather
than staying silent: a silent bot waits out the deadline and collects a strike, and three strikes forfeit the
match.) Connecting, disconnecting and reconnecting are logged at INFO on the ``uno_arena.kit`` logger. ``play``
ends a bot the arena refuses for good (a wrong token) with one line on stderr and exit status 1 (``SystemExit``),
no traceback; ``play_async`` raises :class:`KitError` instead.

``choose`` runs on the kit's event loop: keep it fast, or pass ``threaded=True`` to run each decision in a
worker thread (then several matches are decided at the same time). The gRPC channel is created inside
``play``/``play_async``, never at import, so forking before playing is safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import logging
import os
import random
import signal
import sys
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import grpc
import grpc.aio

from arena.client.connection import TARGET_ENV, default_target, read_token_file, tls_credentials
from arena.engine import Action, Observation
from arena.players import Bot, fallback_action
from arena.protocol import AUTH_METADATA_KEY, AUTH_SCHEME, PROTOCOL_VERSION, bot_pb2, game_pb2
from arena.protocol.card_cache import CARDS
from arena.protocol.convert import (
    action_from_proto,
    observation_from_proto,
)

log = logging.getLogger("uno_arena.kit")

Chooser = Callable[[Observation, Sequence[Action]], int]
RawChooser = Callable[[bot_pb2.DecisionRequest], int]
BotFactory = Callable[[str, int], Bot]


class ChoosingBot(Protocol):
    """Any object with a ``choose(observation, legal) -> index`` method: a bot by duck typing (no ``bots.Bot``)."""

    def choose(self, observation: Observation, legal: Sequence[Action], /) -> int: ...


Playable = Bot | type[Bot] | Chooser | ChoosingBot | type[ChoosingBot]
"""What :func:`play` takes (see :func:`bot_factory`)."""

CONNECT_METHOD = "/uno_arena.v1.BotService/Connect"
# Retrying cannot help: a bad token, an unsupported protocol version, or ABORTED (another process of the same
# bot connected and took over: the newest session wins, the older process stops instead of fighting back).
FATAL_CODES = frozenset({grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
                         grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNIMPLEMENTED,
                         grpc.StatusCode.ABORTED})

STOP_GRACE_S = 2.0
"""How long a stopping client waits for its stream to close before it cancels it."""
MOVE_BACKOFF_S = 1.0
"""After a Goodbye (the gateway drains), reconnection attempts back off to at most this for ``MOVE_WINDOW_S``:
the gateway that takes over may still be starting."""
MOVE_WINDOW_S = 30.0
UNREACHABLE_NOTICE_S = 5.0
"""A bot that has not reached its arena this long after it started says so in one WARNING line naming the address
and the fix, once, and keeps trying (an arena started after its bots is found as soon as it listens). A bot that was
connected and lost its arena reconnects as before, logged at INFO."""

CHANNEL_OPTIONS: list[tuple[str, int]] = [
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.max_receive_message_length", 16 * 1024 * 1024),
]


BOT_TOKEN_ENV = "UNO_ARENA_BOT_TOKEN"
BOT_TOKEN_FILE_ENV = "UNO_ARENA_BOT_TOKEN_FILE"


def bot_token(token: str | None = None, token_file: str | os.PathLike[str] | None = None) -> str:
    """The bot's token: ``token``, else the contents of ``token_file``, else ``$UNO_ARENA_BOT_TOKEN``, else the
    contents of the file ``$UNO_ARENA_BOT_TOKEN_FILE`` names. ValueError when there is none, or a token file
    cannot be read or holds no single token, or the token has characters no token has (gRPC could not send it)."""
    found = _given_token(token, token_file)
    if not (found.isascii() and found.isprintable()):
        raise ValueError("the token has characters no token has (not printable ASCII): copy it again from what "
                         "`uno-arena bots register` printed")
    return found


def _given_token(token: str | None, token_file: str | os.PathLike[str] | None) -> str:
    if token:
        return token.strip()
    path = token_file or None
    if path is None and os.environ.get(BOT_TOKEN_ENV, "").strip():
        return os.environ[BOT_TOKEN_ENV].strip()
    if path is None:
        path = os.environ.get(BOT_TOKEN_FILE_ENV) or None
    if path is None:
        raise ValueError(f"no token: pass --token-file FILE (or --token TOKEN, visible in `ps`), or set "
                         f"${BOT_TOKEN_ENV} or ${BOT_TOKEN_FILE_ENV}")
    return read_token_file(os.path.expanduser(path))


def _pushback_s(error: grpc.aio.AioRpcError) -> float:
    """The pause the arena asked for in the trailers (``grpc-retry-pushback-ms``), in seconds; 0 if none."""
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-retry-pushback-ms":
            with contextlib.suppress(ValueError, TypeError):
                return min(60.0, max(0.0, int(value) / 1000.0))
    return 0.0


class _StatusLost(Exception):
    """The arena ended the stream while the kit's Hello was on its way (a refused token is refused as the stream
    opens): gRPC then fails the write with its own ``INTERNAL: Internal error from Core`` and the arena's status is
    lost for this stream. The next stream, opened at once, gets it (:meth:`BotClient._session_with_status`)."""

    def __init__(self, error: grpc.aio.AioRpcError) -> None:
        super().__init__(str(error))
        self.error = error


CORE_INTERNAL = "Internal error from Core"
"""The details of gRPC's own INTERNAL status for a write the transport refused (the stream had ended)."""
STATUS_LOST_RETRIES = 3
"""Streams opened again at once, quietly, when one ended before its Hello got there (:class:`_StatusLost`)."""


class KitError(RuntimeError):
    """The arena refused the bot for good (bad token, unsupported protocol version): retrying cannot help."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code


class _ChooserBot(Bot):
    name = "function"

    def __init__(self, choose: Chooser) -> None:
        super().__init__(0)
        self._choose = choose

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        return self._choose(observation, legal)


def has_choose(thing: object) -> bool:
    """Whether ``thing`` (a class or an object) has a callable ``choose``: a bot by duck typing, no ``bots.Bot``
    needed (``choose(observation, legal) -> index``)."""
    return callable(getattr(thing, "choose", None))


def match_seed(match_id: str, seat: int) -> int:
    """A stable seed for a per-match bot instance."""
    return int.from_bytes(hashlib.blake2b(f"{match_id}:{seat}".encode(), digest_size=8).digest(), "big")


def bot_factory(bot: Playable | None = None,
                factory: BotFactory | None = None) -> BotFactory:
    """How the kit gets the bot of a (match, seat) from what ``play`` was given: a ``bots.Bot`` (shared), a ``Bot``
    subclass (a fresh one per match and seat, seeded from the match id), any other class with a ``choose(observation,
    legal)`` method (a fresh one per match and seat, made with no arguments), any other object with such a method
    (shared), or a function ``(observation, legal) -> index``."""
    if factory is not None:
        return factory
    if isinstance(bot, Bot):
        shared = bot
        return lambda _match_id, _seat: shared
    if isinstance(bot, type) and issubclass(bot, Bot):
        cls = bot
        return lambda match_id, seat: cls(seed=match_seed(match_id, seat))
    if isinstance(bot, type) and has_choose(bot):
        plain: type[ChoosingBot] = bot
        return lambda _match_id, _seat: _ChooserBot(plain().choose)
    if has_choose(bot):
        shared_choose = _ChooserBot(cast(ChoosingBot, bot).choose)
        return lambda _match_id, _seat: shared_choose
    if callable(bot) and not isinstance(bot, type):
        wrapped = _ChooserBot(cast(Chooser, bot))
        return lambda _match_id, _seat: wrapped
    raise TypeError("play() needs a function (observation, legal) -> index, an object or class with a "
                    "choose(observation, legal) method, a bots.Bot subclass or factory=")


@dataclass
class KitStats:
    """What a client did, for logs and tests."""

    sessions: int = 0
    decisions: int = 0
    matches_started: int = 0
    matches_ended: int = 0
    batches: int = 0
    """ArenaBatch messages received (several arena messages in one)."""
    errors: deque[str] = field(default_factory=lambda: deque(maxlen=100))
    welcome: bot_pb2.Welcome | None = None
    last_status: str = ""
    goodbyes: int = 0
    """Goodbye messages received (a draining gateway told the bot to reconnect)."""
    choose_errors: int = 0
    """Decisions where the bot's ``choose`` raised or gave no legal index: answered with the safe legal action."""


class BotClient:
    """One bot process's connection to the arena (reconnecting); ``run()`` until ``stop`` is set."""

    def __init__(self, target: str, token: str, factory: BotFactory, *, bot_version: str = "python-kit",
                 max_concurrent_matches: int = 16, reconnect: bool = True, max_backoff_s: float = 10.0,
                 threaded: bool = False, raw: RawChooser | None = None, batches: bool = True, tls: bool = False,
                 tls_ca: str | None = None, human_games: bool = False, think_s: float = 0.0) -> None:
        self.target = target
        self.think_s = think_s
        """Seconds to wait before each answer, asynchronously (the other matches go on meanwhile): a simulated
        think time, for benchmarks and tests; 0: answer at once."""
        self.human_games = human_games
        """Hello.accepts_human_games: the web front may seat the bot against people."""
        self.credentials = tls_credentials(tls, tls_ca)
        """TLS (``tls``, or a CA file ``tls_ca`` to trust): :func:`tls_credentials`; None: plaintext."""
        self.batches = batches
        self.raw = raw
        self.token = token
        self.factory = factory
        self.bot_version = bot_version
        self.max_concurrent_matches = max_concurrent_matches
        self.reconnect = reconnect
        self.max_backoff_s = max_backoff_s
        self.threaded = threaded
        self.stats = KitStats()
        self.connected = asyncio.Event()
        self._bots: dict[tuple[str, int], Bot] = {}
        self._attempts: dict[str, int] = {}
        """The attempt (``MatchStarted.attempt``) each match's bots belong to: a new attempt gets fresh bots."""
        self._answers: dict[str, tuple[int, int, asyncio.Future[Choice]]] = {}
        """Per match, the last decision asked (attempt, decision number) and its answer: the same decision asked
        again (its first request was lost with a gateway) gets the same answer without asking the bot twice, so
        the bot's state (its random numbers) is as in a run without the fault."""
        self._call: Any = None
        self._goodbye: bot_pb2.Goodbye | None = None
        self._moving_until = 0.0
        self._told_unreachable = False

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Play until ``stop`` is set (or, with ``reconnect=False``, until the stream ends)."""
        stop = stop or asyncio.Event()
        attempt = 0
        started = asyncio.get_running_loop().time()
        while not stop.is_set():
            welcomed = False
            pushback = 0.0
            try:
                welcomed = await self._session_with_status(stop)
            except KitError:
                raise
            except grpc.aio.AioRpcError as error:
                self.stats.last_status = f"{error.code().name}: {error.details()}"
                if error.code() in FATAL_CODES:
                    raise KitError(error.code(), error.details() or "") from None
                pushback = _pushback_s(error)
                # Before the first connection each failed try is DEBUG: the one line of _tell_unreachable says it.
                log.log(logging.INFO if self.stats.sessions else logging.DEBUG, "disconnected from %s: %s",
                        self.target, self.stats.last_status)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self.stats.last_status = f"{type(error).__name__}: {error}"
                log.error("disconnected from %s: the kit failed: %s", self.target, self.stats.last_status,
                          exc_info=True)
            else:
                if not stop.is_set():
                    log.info("disconnected from %s: %s", self.target, self.stats.last_status or "stream closed")
            self.connected.clear()
            if not self.reconnect or stop.is_set():
                return
            attempt, delay = self._next_try(attempt, welcomed)
            delay = max(delay, pushback)  # the arena asked for a pause (too many new streams of this token)
            if not self.stats.sessions and asyncio.get_running_loop().time() - started >= UNREACHABLE_NOTICE_S:
                self._tell_unreachable()
            log.log(logging.INFO if self.stats.sessions else logging.DEBUG, "reconnecting to %s in %.1f s",
                    self.target, delay)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await stop.wait()

    def _next_try(self, attempt: int, welcomed: bool) -> tuple[int, float]:
        """The attempt number and the pause before the next stream: at once after a Goodbye (a draining gateway;
        another one takes over), else jittered exponential backoff, capped lower for a while after a Goodbye."""
        goodbye, self._goodbye = self._goodbye, None
        loop_time = asyncio.get_running_loop().time()
        if goodbye is not None:
            self._moving_until = loop_time + MOVE_WINDOW_S
            return 0, goodbye.reconnect_after_ms / 1000.0
        attempt = 0 if welcomed else attempt + 1
        cap = min(self.max_backoff_s, MOVE_BACKOFF_S) if loop_time < self._moving_until else self.max_backoff_s
        return attempt, min(cap, 0.1 * 2 ** min(attempt, 10)) * (0.5 + random.random() / 2)

    def _tell_unreachable(self) -> None:
        """Once: the arena has not been reached since the start; where the kit dials and how to get an arena there."""
        if self._told_unreachable:
            return
        self._told_unreachable = True
        code = self.stats.last_status.partition(":")[0] or "no answer"
        log.warning("cannot reach an arena at %s (%s) after %.0f s: start one (`uno-arena demo --keep-running` "
                    "prints the `export UNO_ARENA_TARGET=...` line to paste, or `uno-arena serve`) or set "
                    "$%s to its HOST:PORT; still trying", self.target, code, UNREACHABLE_NOTICE_S, TARGET_ENV)

    async def _session_until_stopped(self, stop: asyncio.Event) -> bool:
        """:meth:`_session`, but once ``stop`` is set its teardown gets :data:`STOP_GRACE_S`, not forever: a
        grpc.aio call cancelled while it is still being set up can leave a write waiting for good."""
        session = asyncio.ensure_future(self._session(stop))
        stopping = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({session, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if not session.done():
                await asyncio.wait({session}, timeout=STOP_GRACE_S)
            if not session.done():
                session.cancel()
                await asyncio.wait({session}, timeout=STOP_GRACE_S)
                if not session.done():
                    log.warning("the stream did not close within %.0f s of the stop; left behind", 2 * STOP_GRACE_S)
                return False
            return session.result()
        except asyncio.CancelledError:
            session.cancel()
            raise
        finally:
            stopping.cancel()

    def disconnect(self) -> None:
        """Drop the current stream (the client reconnects if ``reconnect``): for tests of reconnection."""
        if self._call is not None:
            self._call.cancel()

    async def _session(self, stop: asyncio.Event) -> bool:
        welcomed = False
        if self.credentials is None:
            channel = grpc.aio.insecure_channel(self.target, options=CHANNEL_OPTIONS)
        else:
            channel = grpc.aio.secure_channel(self.target, self.credentials, options=CHANNEL_OPTIONS)
        async with channel:
            connect = channel.stream_stream(CONNECT_METHOD, request_serializer=bot_pb2.BotMessage.SerializeToString,
                                            response_deserializer=bot_pb2.ArenaMessage.FromString)
            call = connect(metadata=((AUTH_METADATA_KEY, f"{AUTH_SCHEME} {self.token}"),))
            self._call = call
            stopper = asyncio.create_task(stop.wait())
            stopper.add_done_callback(lambda _t: call.cancel())
            lock = asyncio.Lock()
            tasks: set[asyncio.Task[None]] = set()
            try:
                await self._say_hello(call)
                while True:
                    message = await call.read()
                    if message is grpc.aio.EOF:
                        break
                    replies: list[bot_pb2.BotMessage] = []
                    if message.WhichOneof("payload") == "batch":
                        self.stats.batches += 1
                        for inner in message.batch.messages:
                            welcomed = self._handle(call, inner, replies, lock, tasks) or welcomed
                    else:
                        welcomed = self._handle(call, message, replies, lock, tasks) or welcomed
                    if self._goodbye is not None:  # the gateway drains: leave now, reconnect at once
                        log.info("goodbye from the arena: %s; reconnecting", self._goodbye.reason)
                        self.stats.last_status = f"GOODBYE: {self._goodbye.reason}"
                        call.cancel()
                        return welcomed
                    if replies:  # every answer to one stream message goes back in one
                        reply = replies[0] if len(replies) == 1 else bot_pb2.BotMessage(
                            batch=bot_pb2.BotBatch(messages=replies))
                        await self._write(call, reply, lock)
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise
                # our own call.cancel() (stop, or disconnect()): the stream is over
                self.stats.last_status = "CANCELLED: closed by the bot"
                return welcomed
            finally:
                stopper.cancel()
                for task in tasks:
                    task.cancel()
                self._call = None
            if stop.is_set():
                return welcomed
            # The arena closed the stream; read the status (raises AioRpcError for a non-OK one).
            code = await call.code()
            if code in FATAL_CODES:
                raise KitError(code, await call.details())
            self.stats.last_status = f"{code.name}: {await call.details()}"
        return welcomed

    async def _say_hello(self, call: Any) -> None:
        """Write the Hello; :class:`_StatusLost` when the stream ended before it got there (the reason lost)."""
        try:
            await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(
                protocol_version=PROTOCOL_VERSION,  # type: ignore[arg-type]
                bot_version=self.bot_version,
                max_concurrent_matches=self.max_concurrent_matches,
                accepts_batches=self.batches, accepts_human_games=self.human_games)))
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.INTERNAL and error.details() == CORE_INTERNAL:
                raise _StatusLost(error) from None
            raise

    async def _session_with_status(self, stop: asyncio.Event) -> bool:
        """:meth:`_session_until_stopped`, opened again at once (at most :data:`STATUS_LOST_RETRIES` times) when a
        stream ended before its Hello got there, so what is reported is the arena's reason (``UNAUTHENTICATED:
        ...``), never gRPC's own INTERNAL in its place."""
        for _ in range(STATUS_LOST_RETRIES):
            try:
                return await self._session_until_stopped(stop)
            except _StatusLost:
                log.debug("the stream to %s ended before the Hello got there; opening another", self.target)
                if stop.is_set():
                    return False
        try:
            return await self._session_until_stopped(stop)
        except _StatusLost as lost:
            raise lost.error from None

    def _handle(self, call: Any, message: bot_pb2.ArenaMessage, replies: list[bot_pb2.BotMessage],
                lock: asyncio.Lock, tasks: set[asyncio.Task[None]]) -> bool:
        """Act on one arena message; answers to send go to ``replies``. True for the Welcome."""
        kind = message.WhichOneof("payload")
        if kind == "decision_request":
            request = message.decision_request
            known = self._attempts.get(request.match_id, 0)
            if request.attempt and known and request.attempt < known:
                # A request of an aborted attempt: its bot is gone, and the new attempt's bot must not see it.
                log.info("match %s: ignoring a request of attempt %d (attempt %d is on)", request.match_id,
                         request.attempt, known)
                return False
            if self._answers_apart:
                task = asyncio.create_task(self._decide_apart(call, message.decision_request, lock))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            else:
                replies.append(self._decide(message.decision_request))
        elif kind == "ping":
            replies.append(bot_pb2.BotMessage(pong=bot_pb2.Pong(nonce=message.ping.nonce)))
        elif kind == "goodbye":
            self.stats.goodbyes += 1
            self._goodbye = message.goodbye
        elif kind == "welcome":
            self.stats.sessions += 1
            self.stats.welcome = message.welcome
            self.connected.set()
            log.info("%s %s as bot %s (session %s, up to %d matches at once)",
                     "connected to" if self.stats.sessions == 1 else "reconnected to", self.target,
                     message.welcome.bot_name, message.welcome.session_id, message.welcome.max_concurrent_matches)
            return True
        elif kind == "match_started":
            started = message.match_started
            self.stats.matches_started += 1
            self._on_started(started.match_id, started.seat, started.attempt)
        elif kind == "match_ended":
            self.stats.matches_ended += 1
            ended = message.match_ended
            known = self._attempts.get(ended.match_id, 0)
            # The end of an older attempt (it may arrive after the next attempt started) ends nothing of this one.
            if not (ended.attempt and known and ended.attempt < known):
                self._forget(ended.match_id)
        elif kind == "error":
            status = message.error.status
            text = f"{_code(status.code).name}: {status.message}"
            self.stats.errors.append(text)
            log.warning("arena refused: %s", text)
        return False

    def _on_started(self, match_id: str, seat: int, attempt: int) -> None:
        """A match starts: a fresh bot for a new attempt of the match (every bot of an older attempt is dropped, so a
        match the arena plays again after aborting it plays out as a clean run); the same attempt again (sent after
        a reconnect, or when the bot moved to another gateway) keeps the bot it has."""
        known = self._attempts.get(match_id)
        if known is not None and known != attempt:
            self._forget(match_id)
        self._attempts[match_id] = attempt
        key = (match_id, seat)
        if key not in self._bots:
            self._bots[key] = self.factory(match_id, seat)

    def _forget(self, match_id: str) -> None:
        """Drop the bots of a match (ended, or replaced by a new attempt)."""
        self._attempts.pop(match_id, None)
        self._answers.pop(match_id, None)
        for key in [k for k in self._bots if k[0] == match_id]:
            del self._bots[key]

    @property
    def _answers_apart(self) -> bool:
        """Whether each decision is answered by a task of its own (in a thread, or after the think time), its answer
        written on its own (under the lock), rather than at once in the reply to the arena's message."""
        return self.threaded or self.think_s > 0

    async def _write(self, call: Any, message: bot_pb2.BotMessage, lock: asyncio.Lock | None) -> None:
        if lock is None or not self._answers_apart:
            await call.write(message)
            return
        async with lock:
            await call.write(message)

    def _bot_and_inputs(self, request: bot_pb2.DecisionRequest) -> tuple[Bot, Observation, list[Action]]:
        observation = observation_from_message(request.observation)
        legal = actions_from_request(request)
        key = (request.match_id, observation.seat)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = self.factory(request.match_id, observation.seat)
        return bot, observation, legal

    def _asked_before(self, request: bot_pb2.DecisionRequest) -> asyncio.Future[Choice] | None:
        """The answer (maybe still being decided) to the same decision of the same attempt, asked again."""
        entry = self._answers.get(request.match_id)
        if entry is not None and request.decision_number and entry[:2] == (request.attempt, request.decision_number):
            return entry[2]
        return None

    def _remember(self, request: bot_pb2.DecisionRequest, answer: asyncio.Future[Choice]) -> None:
        self._answers[request.match_id] = (request.attempt, request.decision_number, answer)

    def _chooser(self, request: bot_pb2.DecisionRequest) -> Callable[[], Any]:
        """The bot's choice for ``request``, to call: the raw function on the message, or the match's bot on the
        observation and legal actions converted to engine types."""
        if self.raw is not None:
            raw = self.raw
            return lambda: raw(request)
        bot, observation, legal = self._bot_and_inputs(request)
        return lambda: bot.choose(observation, legal)

    def _decide(self, request: bot_pb2.DecisionRequest) -> bot_pb2.BotMessage:
        """The answer to ``request``, decided on the event loop."""
        before = self._asked_before(request)
        if before is not None and before.done() and not before.cancelled() and before.exception() is None:
            return _answer(request, before.result())
        choice = self._choose_safely(request, self._chooser(request))
        answer: asyncio.Future[Choice] = asyncio.get_running_loop().create_future()
        answer.set_result(choice)
        self._remember(request, answer)
        self.stats.decisions += 1
        return _answer(request, choice)

    async def _decide_apart(self, call: Any, request: bot_pb2.DecisionRequest, lock: asyncio.Lock) -> None:
        """Decide ``request`` in a task of its own (in a worker thread with ``threaded=True``, after ``think_s``)
        and send the answer on its own. The work outlives this task (a stream that ends cancels it): the same
        decision asked again on the next stream waits for that work instead of asking the bot twice."""
        answer = self._asked_before(request)
        if answer is None or answer.cancelled() or (answer.done() and answer.exception() is not None):
            answer = asyncio.ensure_future(self._think_and_choose(request, self._chooser(request)))
            self._remember(request, answer)
            self.stats.decisions += 1
        choice = await asyncio.shield(answer)
        await self._write(call, _answer(request, choice), lock)

    async def _think_and_choose(self, request: bot_pb2.DecisionRequest, choose: Callable[[], Any]) -> Choice:
        if self.think_s > 0:
            await asyncio.sleep(self.think_s)
        if self.threaded:
            return await asyncio.get_running_loop().run_in_executor(None, self._choose_safely, request, choose)
        return self._choose_safely(request, choose)

    def _choose_safely(self, request: bot_pb2.DecisionRequest, choose: Callable[[], Any]) -> Choice:
        """``choose()`` when it gives the index of a legal action; else (it raised, or gave something else) the
        safe legal action's index, logged at ERROR with the traceback, the match, the decision and the
        observation's short form, and reported to the arena with the answer (``Decision.bot_error``): the
        author's bug costs this one decision, not the stream, and the arena still sees it."""
        try:
            index = choose()
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(request.legal_actions):
                raise ValueError(f"choose() returned {index!r}: not an index into the "
                                 f"{len(request.legal_actions)} legal actions")
            return Choice(index)
        except Exception as error:
            safe = fallback_action(actions_from_request(request))
            self.stats.choose_errors += 1
            self.stats.errors.append(f"match {request.match_id}, decision {request.decision_number}: "
                                     f"{type(error).__name__}: {error}")
            log.error("match %s, decision %d (%s): choose() failed: %s: %s; answered with the safe legal action "
                      "%d (%s) instead", request.match_id, request.decision_number, short_form(request),
                      type(error).__name__, error, safe, action_from_proto(request.legal_actions[safe]),
                      exc_info=error)
            return Choice(safe, bot_error(error))


def short_form(request: bot_pb2.DecisionRequest) -> str:
    """One line about a decision request for a log: the bot's own view only (its seat, the decision, the top card,
    its hand size, the legal actions), never anything another seat hides."""
    legal = len(request.legal_actions)
    try:
        o = observation_from_message(request.observation)
    except Exception:
        return f"seat {request.observation.seat}, {legal} legal actions"
    return (f"seat {o.seat}, {o.decision} decision, round {o.round}, top {o.top}, {len(o.hand)} cards in hand, "
            f"{legal} legal actions")


@dataclass(frozen=True)
class Choice:
    """The kit's answer to one decision: the index sent, and what the bot's code raised when it is the safe legal
    action played instead (None: the bot's code chose it)."""

    index: int
    error: bot_pb2.BotError | None = None


MAX_TRACEBACK_CHARS = 4000
"""The kit sends at most the last this many characters of a traceback (``BotError.traceback``)."""


def bot_error(error: BaseException) -> bot_pb2.BotError:
    """What the bot's code raised, as the kit reports it with its answer (``Decision.bot_error``): the exception's
    type and message and the end of its traceback."""
    frames = error.__traceback__
    while frames is not None and frames.tb_next is not None and frames.tb_frame.f_code.co_filename == __file__:
        frames = frames.tb_next  # the kit's own frames first: the bot's code is what its author needs to see
    text = "".join(traceback.format_exception(type(error), error, frames))
    return bot_pb2.BotError(type=type(error).__name__, message=str(error)[:MAX_TRACEBACK_CHARS],
                            traceback=text[-MAX_TRACEBACK_CHARS:])


def _answer(request: bot_pb2.DecisionRequest, choice: Choice) -> bot_pb2.BotMessage:
    decision = bot_pb2.Decision(match_id=request.match_id, request_id=request.request_id, action_index=choice.index)
    if choice.error is not None:
        decision.bot_error.CopyFrom(choice.error)
    return bot_pb2.BotMessage(decision=decision)


# ------------------------------------------------------------------------------------------------
# Messages -> engine types, fast: faces, cards and actions are few, so each distinct one is built once
# (faces and cards in the one card cache, arena.protocol.card_cache).
# (Same results as arena.protocol.convert.observation_from_proto / action_from_proto, which the tests check.)
# ------------------------------------------------------------------------------------------------

_ACTIONS: dict[bytes, Action] = {}
_ACTION_LIMIT = 20_000


def actions_from_request(request: bot_pb2.DecisionRequest) -> list[Action]:
    """The legal actions of a request as engine Actions."""
    out = []
    for msg in request.legal_actions:
        raw = msg.SerializeToString()
        action = _ACTIONS.get(raw)
        if action is None:
            action = action_from_proto(msg)
            if len(_ACTIONS) < _ACTION_LIMIT:
                _ACTIONS[raw] = action
        out.append(action)
    return out


def observation_from_message(msg: game_pb2.Observation) -> Observation:
    """The engine Observation of a message: ``convert.observation_from_proto`` with cached faces and cards."""
    return observation_from_proto(msg, face_of=CARDS.face_of, card_of=CARDS.card_of)


def _code(number: int) -> Any:
    for code in grpc.StatusCode:
        if code.value[0] == number:
            return code
    return grpc.StatusCode.UNKNOWN


class InProcessSession:
    """The kit without a network, for playing in process (``uno-arena play --bot``, :mod:`arena.local_play`): the
    arena's messages go in as the bytes a gateway would send, the kit's answers come out as the bytes it would
    write, through the same handling as on a stream (a bot per match and seat, seeded from the match id; the safe
    legal action, and the report, when the bot's code fails). Call :meth:`exchange` on a running event loop."""

    def __init__(self, bot: Playable | None = None, factory: BotFactory | None = None) -> None:
        self.client = BotClient("in-process", "", bot_factory(bot, factory), reconnect=False)
        self._lock = asyncio.Lock()

    @property
    def stats(self) -> KitStats:
        return self.client.stats

    def exchange(self, data: bytes) -> list[bytes]:
        """Handle one serialized ArenaMessage; the serialized BotMessages the kit answers with (maybe none)."""
        replies: list[bot_pb2.BotMessage] = []
        self.client._handle(None, bot_pb2.ArenaMessage.FromString(data), replies, self._lock, set())
        return [reply.SerializeToString() for reply in replies]


async def play_async(bot: Playable | None = None, *, target: str | None = None,
                     token: str | None = None,
                     token_file: str | os.PathLike[str] | None = None, factory: BotFactory | None = None,
                     stop: asyncio.Event | None = None, bot_version: str = "python-kit",
                     max_concurrent_matches: int = 16, reconnect: bool = True,
                     max_backoff_s: float = 10.0, threaded: bool = False, tls: bool = False,
                     tls_ca: str | None = None, human_games: bool = False) -> KitStats:
    """Play on ``target`` (None: ``$UNO_ARENA_TARGET``, else ``localhost:50051``) until ``stop`` is set; returns what
    happened. Raises KitError when refused for good,
    ValueError when there is no token (:func:`bot_token`: ``token``, ``token_file`` or the environment).
    ``tls``/``tls_ca``: an arena served with TLS (:func:`tls_credentials`). ``human_games``: offer to play against
    people on the web front (``Hello.accepts_human_games``)."""
    if _skipped_at_local_import("play_async()"):
        return KitStats()
    client = BotClient(target or default_target(), bot_token(token, token_file), bot_factory(bot, factory),
                       bot_version=bot_version, max_concurrent_matches=max_concurrent_matches, reconnect=reconnect,
                       max_backoff_s=max_backoff_s, threaded=threaded, tls=tls, tls_ca=tls_ca,
                       human_games=human_games)
    await client.run(stop)
    return client.stats


def play(bot: Playable | None = None, *, target: str | None = None,
         token: str | None = None, exit_on_refusal: bool = True, **options: Any) -> KitStats:
    """Play on ``target`` (None: ``$UNO_ARENA_TARGET``, else ``localhost:50051``) until SIGINT/SIGTERM (clean
    shutdown), reconnecting as needed; see ``play_async``.
    When the arena refuses the bot for good (a wrong token, an unsupported protocol version, another process
    took the bot over) or there is no token: one line on stderr and ``SystemExit(1)``, no traceback
    (``exit_on_refusal=False``: :class:`KitError` / ``ValueError`` as ``play_async`` raises them).

    Called while ``uno-arena play --bot FILE.py:NAME`` imports the file (a call not guarded by
    ``if __name__ == "__main__":``), it dials nothing: one line on stderr says the call is skipped, and the file's
    bot plays in process (:func:`importing_for_local_play`)."""
    if _skipped_at_local_import("play()"):
        return KitStats()
    _log_to_stderr()
    if not exit_on_refusal:
        return _play(bot, target=target, token=token, **options)
    try:
        return _play(bot, target=target, token=token, **options)
    except KitError as error:
        print(f"error: the arena refused the bot: {error}", file=sys.stderr, flush=True)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr, flush=True)
    raise SystemExit(1)


_LOCAL_PLAY_IMPORT: contextvars.ContextVar[str | None] = contextvars.ContextVar("uno_arena_local_play_import",
                                                                                 default=None)


@contextlib.contextmanager
def importing_for_local_play(what: str) -> Iterator[None]:
    """While ``uno-arena play --bot`` imports an author's file (``what``: its name for the note), :func:`play` called
    at import dials nothing and returns at once, so the import ends and the bot it defines plays in process."""
    reset = _LOCAL_PLAY_IMPORT.set(what)
    try:
        yield
    finally:
        _LOCAL_PLAY_IMPORT.reset(reset)


def _skipped_at_local_import(call: str) -> bool:
    """Whether ``call`` is made while ``uno-arena play --bot`` imports the file (:func:`importing_for_local_play`):
    then it dials nothing, and one line on stderr says so."""
    importer = _LOCAL_PLAY_IMPORT.get()
    if importer is None:
        return False
    print(f"note: {importer} calls {call} when imported; `uno-arena play --bot` plays the bot in process, so that "
          "call dials nothing (guard it with `if __name__ == \"__main__\":`)", file=sys.stderr, flush=True)
    return True


def _log_to_stderr() -> None:
    """When the program configured no logging, the kit's log (INFO and up) goes to stderr, so a bot author sees
    connects, disconnects and the tracebacks of ``choose`` without setting anything up."""
    if logging.getLogger().handlers or log.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)


def _play(bot: Playable | None, *, target: str | None, token: str | None,
          **options: Any) -> KitStats:

    async def main() -> KitStats:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
        return await play_async(bot, target=target, token=token, stop=stop, **options)

    return asyncio.run(main())
