"""The Python bot kit: write a function from observation to choice, call one function to play.

    from bots.kit import play

    def choose(observation, legal):          # arena.engine Observation, list of arena.engine Action
        return 0                             # the index of the chosen action in `legal`

    if __name__ == "__main__":
        play(choose, target="arena.example.org:50051", token_file="mybot.token")

What the kit does (reconnects, batches, the safe legal action when ``choose`` fails, tokens, TLS) is in
docs/writing-a-bot.md and docs/kit-api.md. ``choose`` runs on the kit's event loop unless ``threaded=True``; the
gRPC channel is created inside ``play``/``play_async``, never at import, so forking before playing is safe.
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
from arena.protocol.convert import action_from_proto, observation_from_proto

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
_CODES = {code.value[0]: code for code in grpc.StatusCode}  # an in-band Error's status code by number

STOP_GRACE_S = 2.0  # how long a stopping client waits for its stream to close before it cancels it
MOVE_BACKOFF_S = 1.0  # after a Goodbye, reconnections back off to at most this for MOVE_WINDOW_S
MOVE_WINDOW_S = 30.0
UNREACHABLE_NOTICE_S = 5.0
"""A bot that has not reached its arena this long after it started says so once, in one WARNING line."""

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
    """The bot's token: ``token``, else ``token_file``'s, else ``$UNO_ARENA_BOT_TOKEN``, else the file
    ``$UNO_ARENA_BOT_TOKEN_FILE`` names. ValueError when there is none or it is not printable ASCII."""
    if token:
        found = token.strip()
    elif not token_file and os.environ.get(BOT_TOKEN_ENV, "").strip():
        found = os.environ[BOT_TOKEN_ENV].strip()
    else:
        path = token_file or os.environ.get(BOT_TOKEN_FILE_ENV)
        if not path:
            raise ValueError(f"no token: pass --token-file FILE (or --token TOKEN, visible in `ps`), or set "
                             f"${BOT_TOKEN_ENV} or ${BOT_TOKEN_FILE_ENV}")
        found = read_token_file(os.path.expanduser(path))
    if not (found.isascii() and found.isprintable()):
        raise ValueError("the token has characters no token has (not printable ASCII): copy it again from what "
                         "`uno-arena bots register` printed")
    return found


def _pushback_s(error: grpc.aio.AioRpcError) -> float:
    """The pause the arena asked for in the trailers (``grpc-retry-pushback-ms``), in seconds; 0 if none."""
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-retry-pushback-ms":
            with contextlib.suppress(ValueError, TypeError):
                return min(60.0, max(0.0, int(value) / 1000.0))
    return 0.0


class _StatusLost(Exception):
    """The stream ended while the Hello was on its way: gRPC fails the write with its own INTERNAL and the arena's
    status (e.g. a refused token) is lost; the next stream, opened at once, gets it."""

    def __init__(self, error: grpc.aio.AioRpcError) -> None:
        super().__init__(str(error))
        self.error = error


CORE_INTERNAL = "Internal error from Core"  # gRPC's INTERNAL details for a write to a stream that had ended
STATUS_LOST_RETRIES = 3


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
    """Whether ``thing`` (a class or an object) is a bot by duck typing: it has a callable ``choose``."""
    return callable(getattr(thing, "choose", None))


def match_seed(match_id: str, seat: int) -> int:
    """A stable seed for a per-match bot instance."""
    return int.from_bytes(hashlib.blake2b(f"{match_id}:{seat}".encode(), digest_size=8).digest(), "big")


def bot_factory(bot: Playable | None = None,
                factory: BotFactory | None = None) -> BotFactory:
    """The bot of a (match, seat) from what ``play`` was given: a ``Bot`` or an object with ``choose`` (shared), a
    class (a fresh instance per match and seat; a ``Bot`` subclass seeded from the match id), or a function."""
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
    if has_choose(bot) or (callable(bot) and not isinstance(bot, type)):
        wrapped = _ChooserBot(cast(ChoosingBot, bot).choose if has_choose(bot) else cast(Chooser, bot))
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
    errors: deque[str] = field(default_factory=lambda: deque(maxlen=100))
    welcome: bot_pb2.Welcome | None = None
    last_status: str = ""
    goodbyes: int = 0
    choose_errors: int = 0
    """Decisions where ``choose`` raised or gave no legal index: answered with the safe legal action."""


class BotClient:
    """One bot process's connection to the arena (reconnecting); ``run()`` until ``stop`` is set."""

    def __init__(self, target: str, token: str, factory: BotFactory, *, bot_version: str = "python-kit",
                 max_concurrent_matches: int = 16, reconnect: bool = True, max_backoff_s: float = 10.0,
                 threaded: bool = False, raw: RawChooser | None = None, batches: bool = True, tls: bool = False,
                 tls_ca: str | None = None, human_games: bool = False, think_s: float = 0.0) -> None:
        self.target = target
        self.think_s = think_s
        """A simulated think time before each answer, in seconds, for benchmarks and tests (0: answer at once)."""
        self.human_games = human_games
        self.credentials = tls_credentials(tls, tls_ca)  # None: plaintext
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
        again (lost with a gateway) gets the same answer without asking the bot twice, which would change its state."""
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
        """The attempt number and the pause before the next stream: at once after a Goodbye, else jittered
        exponential backoff (capped lower for a while after a Goodbye: the next gateway may still be starting)."""
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
        """:meth:`_session`, whose teardown after ``stop`` gets :data:`STOP_GRACE_S`: a grpc.aio call cancelled while
        it is being set up can leave a write waiting for good."""
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
        channel = (grpc.aio.insecure_channel(self.target, options=CHANNEL_OPTIONS) if self.credentials is None
                   else grpc.aio.secure_channel(self.target, self.credentials, options=CHANNEL_OPTIONS))
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
                    batched = message.WhichOneof("payload") == "batch"
                    self.stats.batches += batched
                    for inner in message.batch.messages if batched else (message,):
                        welcomed = self._handle(call, inner, replies, lock, tasks) or welcomed
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
        """:meth:`_session_until_stopped`, opened again at once when a stream ended before its Hello got there, so
        the arena's reason (``UNAUTHENTICATED: ...``) is reported, never gRPC's own INTERNAL."""
        for retries_left in range(STATUS_LOST_RETRIES, -1, -1):
            try:
                return await self._session_until_stopped(stop)
            except _StatusLost as lost:
                if not retries_left:
                    raise lost.error from None
                log.debug("the stream to %s ended before the Hello got there; opening another", self.target)
                if stop.is_set():
                    return False
        return False

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
            text = f"{_CODES.get(status.code, grpc.StatusCode.UNKNOWN).name}: {status.message}"
            self.stats.errors.append(text)
            log.warning("arena refused: %s", text)
        return False

    def _on_started(self, match_id: str, seat: int, attempt: int) -> None:
        """A fresh bot for a new attempt of the match (a replayed match plays out as a clean run); the same attempt
        again (after a reconnect or a move to another gateway) keeps the bot it has."""
        known = self._attempts.get(match_id)
        if known is not None and known != attempt:
            self._forget(match_id)
        self._attempts[match_id] = attempt
        key = (match_id, seat)
        if key not in self._bots:
            self._bots[key] = self.factory(match_id, seat)

    def _forget(self, match_id: str) -> None:
        self._attempts.pop(match_id, None)
        self._answers.pop(match_id, None)
        for key in [k for k in self._bots if k[0] == match_id]:
            del self._bots[key]

    @property
    def _answers_apart(self) -> bool:
        """Whether each decision is answered by a task of its own (threaded, or after a think time)."""
        return self.threaded or self.think_s > 0

    async def _write(self, call: Any, message: bot_pb2.BotMessage, lock: asyncio.Lock | None) -> None:
        async with lock if lock is not None and self._answers_apart else contextlib.nullcontext():
            await call.write(message)

    def _asked_before(self, request: bot_pb2.DecisionRequest) -> asyncio.Future[Choice] | None:
        """The answer (maybe still being decided) to the same decision of the same attempt, asked again."""
        entry = self._answers.get(request.match_id)
        if entry is not None and request.decision_number and entry[:2] == (request.attempt, request.decision_number):
            return entry[2]
        return None

    def _remember(self, request: bot_pb2.DecisionRequest, answer: asyncio.Future[Choice]) -> None:
        self._answers[request.match_id] = (request.attempt, request.decision_number, answer)

    def _chooser(self, request: bot_pb2.DecisionRequest) -> Callable[[], Any]:
        """The bot's choice for ``request``, to call: the raw function on the message, or the match's bot."""
        if self.raw is not None:
            raw = self.raw
            return lambda: raw(request)
        observation = observation_from_message(request.observation)
        legal = actions_from_request(request)
        key = (request.match_id, observation.seat)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = self.factory(request.match_id, observation.seat)
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
        """Decide ``request`` in a task of its own and send the answer. The work outlives this task (cancelled with
        its stream): the same decision asked again on the next stream waits for it instead of asking twice."""
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
        """``choose()`` when it gives a legal index; else the safe legal action's, logged at ERROR and reported to
        the arena with the answer (``Decision.bot_error``): the author's bug costs one decision, not the stream."""
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
    """One line about a decision request for a log: the bot's own view only, never anything another seat hides."""
    legal = len(request.legal_actions)
    try:
        o = observation_from_message(request.observation)
    except Exception:
        return f"seat {request.observation.seat}, {legal} legal actions"
    return (f"seat {o.seat}, {o.decision} decision, round {o.round}, top {o.top}, {len(o.hand)} cards in hand, "
            f"{legal} legal actions")


@dataclass(frozen=True)
class Choice:
    """The kit's answer to one decision, and what the bot's code raised when the safe legal action replaced it."""

    index: int
    error: bot_pb2.BotError | None = None


MAX_TRACEBACK_CHARS = 4000  # the kit sends at most the end of a traceback (``BotError.traceback``)


def bot_error(error: BaseException) -> bot_pb2.BotError:
    """What the bot's code raised, as reported with the answer (``Decision.bot_error``)."""
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


# Messages -> engine types, fast: each distinct face, card and action is built once (the tests check the results
# equal arena.protocol.convert's).

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


class InProcessSession:
    """The kit without a network (``uno-arena play --bot``): the arena's messages in as bytes, the kit's answers out
    as bytes, through the same handling as on a stream. Call :meth:`exchange` on a running event loop."""

    def __init__(self, bot: Playable) -> None:
        self.client = BotClient("in-process", "", bot_factory(bot), reconnect=False)
        self._lock = asyncio.Lock()

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
    """Play on ``target`` until ``stop`` is set; KitError when refused for good, ValueError without a token."""
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
    """:func:`play_async` until SIGINT/SIGTERM. Refused for good, or without a token: one line on stderr and
    ``SystemExit(1)`` (``exit_on_refusal=False``: the exception). Called while ``uno-arena play --bot`` imports the
    file, it dials nothing (:func:`importing_for_local_play`)."""
    if _skipped_at_local_import("play()"):
        return KitStats()
    _log_to_stderr()

    async def until_signalled() -> KitStats:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
        return await play_async(bot, target=target, token=token, stop=stop, **options)

    try:
        return asyncio.run(until_signalled())
    except (KitError, ValueError) as error:
        if not exit_on_refusal:
            raise
        refused = "the arena refused the bot: " if isinstance(error, KitError) else ""
        print(f"error: {refused}{error}", file=sys.stderr, flush=True)
    raise SystemExit(1)


_LOCAL_PLAY_IMPORT: contextvars.ContextVar[str | None] = contextvars.ContextVar("uno_arena_local_play_import",
                                                                                 default=None)


@contextlib.contextmanager
def importing_for_local_play(what: str) -> Iterator[None]:
    """While ``uno-arena play --bot`` imports an author's file, :func:`play` called at import dials nothing."""
    reset = _LOCAL_PLAY_IMPORT.set(what)
    try:
        yield
    finally:
        _LOCAL_PLAY_IMPORT.reset(reset)


def _skipped_at_local_import(call: str) -> bool:
    """Whether ``call`` is made while ``uno-arena play --bot`` imports the file; if so, one line on stderr says so."""
    importer = _LOCAL_PLAY_IMPORT.get()
    if importer is None:
        return False
    print(f"note: {importer} calls {call} when imported; `uno-arena play --bot` plays the bot in process, so that "
          "call dials nothing (guard it with `if __name__ == \"__main__\":`)", file=sys.stderr, flush=True)
    return True


def _log_to_stderr() -> None:
    """When the program configured no logging, the kit's log (INFO and up) goes to stderr."""
    if logging.getLogger().handlers or log.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
