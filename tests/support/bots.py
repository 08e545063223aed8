"""Bots for tests against a real gateway: a kit bot on its own thread, a kit bot in a subprocess, and a raw
protocol client that can misbehave on purpose (wrong token, no Hello, bad index, flood, oversized messages,
silence)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import subprocess
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from arena.protocol import PROTOCOL_VERSION, bot_pb2
from bots import RandomBot
from bots.kit import BotClient, KitStats, bot_factory
from tests.support.cli import spawn_cli
from tests.support.loop_thread import LoopThread

CONNECT = "/uno_arena.v1.BotService/Connect"


class ThreadBot:
    """A Python-kit bot (RandomBot by default) running on its own event loop in a daemon thread."""

    def __init__(self, address: str, token: str, bot: Any = RandomBot, **options: Any) -> None:
        self.client = BotClient(address, token, bot_factory(bot), max_backoff_s=0.5, **options)
        self.loop_thread = LoopThread("thread-bot")
        self.loop = self.loop_thread.loop
        self._stop = asyncio.Event()  # bound to the loop that first waits on it: the bot's
        self.done: concurrent.futures.Future[None] = self.loop_thread.submit(self.client.run(self._stop))

    @property
    def stats(self) -> KitStats:
        return self.client.stats

    @property
    def error(self) -> BaseException | None:
        """What ended the bot's run (None while it runs, or when it stopped cleanly)."""
        if not self.done.done() or self.done.cancelled():
            return None
        return self.done.exception()

    def wait_stopped(self, timeout: float = 20.0) -> bool:
        """Wait until the bot's run ended by itself (a fatal error, or stop()); True if it did."""
        finished, _ = concurrent.futures.wait([self.done], timeout)
        return bool(finished)

    def disconnect(self) -> None:
        """Drop the stream from the bot's side (the kit reconnects)."""
        if self.loop_thread.running:
            self.loop_thread.call_soon(self.client.disconnect)

    def stop(self) -> None:
        if self.loop_thread.running:
            self.loop_thread.call_soon(self._stop.set)
            self.wait_stopped(10)
        self.loop_thread.close()

    def __enter__(self) -> ThreadBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def process_bot(address: str, token: str, kind: str = "random") -> subprocess.Popen[str]:
    """`uno-arena bot run KIND` in a subprocess (a real separate bot process; its output not captured)."""
    return spawn_cli("bot", "run", kind, "--target", address, "--token", token, stdout=None, stderr=None)


def stop_process(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


_END = object()


class RawBot:
    """A hand-driven BotService client: send any message or bytes, read what the arena sends."""

    def __init__(self, address: str, token: str | None, *, metadata: list[tuple[str, str]] | None = None) -> None:
        self.channel = grpc.insecure_channel(address)
        self._outbox: queue.Queue[Any] = queue.Queue()
        self.inbox: queue.Queue[Any] = queue.Queue()
        md = metadata if metadata is not None else ([("authorization", f"Bearer {token}")] if token else [])
        method = self.channel.stream_stream(CONNECT, request_serializer=lambda b: b,
                                            response_deserializer=bot_pb2.ArenaMessage.FromString)
        self.call = method(iter(self._next_out, _END), metadata=md)
        self.code: grpc.StatusCode | None = None
        self.details = ""
        self.ended = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _next_out(self) -> Any:
        return self._outbox.get()

    def _read(self) -> None:
        try:
            for message in self.call:
                self.inbox.put(message)
        except grpc.RpcError:
            pass
        self.code = self.call.code()
        self.details = self.call.details() or ""
        self.ended.set()
        self.inbox.put(_END)

    # -- sending -------------------------------------------------------------------------------
    def send(self, message: bot_pb2.BotMessage | bytes) -> None:
        self._outbox.put(message if isinstance(message, bytes) else message.SerializeToString())

    def hello(self, version: int = PROTOCOL_VERSION, bot_version: str = "raw-test", capacity: int = 8,
              batches: bool = False) -> None:
        self.send(bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=version,  # type: ignore[arg-type]
                                                         bot_version=bot_version,
                                                         max_concurrent_matches=capacity,
                                                         accepts_batches=batches)))

    def decide(self, match_id: str, request_id: str, index: int) -> None:
        self.send(bot_pb2.BotMessage(decision=bot_pb2.Decision(match_id=match_id, request_id=request_id,
                                                               action_index=index)))

    def close(self) -> None:
        self._outbox.put(_END)
        self.call.cancel()
        self.channel.close()

    # -- receiving -----------------------------------------------------------------------------
    def recv(self, timeout: float = 10.0) -> bot_pb2.ArenaMessage | None:
        """The next message, or None when the stream has ended."""
        item = self.inbox.get(timeout=timeout)
        if item is _END:
            self.inbox.put(_END)
            return None
        message: bot_pb2.ArenaMessage = item
        return message

    def messages(self, timeout: float = 10.0) -> Iterator[bot_pb2.ArenaMessage]:
        while True:
            message = self.recv(timeout)
            if message is None:
                return
            yield message

    def welcome(self, timeout: float = 10.0) -> bot_pb2.Welcome:
        message = self.recv(timeout)
        assert message is not None and message.WhichOneof("payload") == "welcome", message
        return message.welcome

    def wait_end(self, timeout: float = 10.0) -> tuple[grpc.StatusCode | None, str]:
        assert self.ended.wait(timeout), "the stream did not end"
        return self.code, self.details

    def errors(self) -> list[bot_pb2.Error]:
        """Errors received so far (drains the inbox of everything else)."""
        out: list[bot_pb2.Error] = []
        while True:
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                return out
            if item is _END:
                self.inbox.put(_END)
                return out
            if item.WhichOneof("payload") == "error":
                out.append(item.error)


def play_raw(bot: RawBot, answer: Callable[[bot_pb2.DecisionRequest], list[int] | None],
             stop: threading.Event, send: Callable[[bot_pb2.BotMessage], None] | None = None,
             on_other: Callable[[bot_pb2.ArenaMessage], None] | None = None) -> threading.Thread:
    """Play on a RawBot in a thread: Pong every Ping; for each request, send the indices `answer` returns
    (None: send nothing); the messages of a batch one by one. Every Error received is kept in `thread.errors`;
    any other message goes to ``on_other``. ``send``: how a Pong or a Decision goes out (default ``bot.send``;
    e.g. later, for a slow network)."""
    errors: list[bot_pb2.Error] = []
    out = send or bot.send

    def handle(message: bot_pb2.ArenaMessage) -> None:
        kind = message.WhichOneof("payload")
        if kind == "ping":
            out(bot_pb2.BotMessage(pong=bot_pb2.Pong(nonce=message.ping.nonce)))
        elif kind == "error":
            errors.append(message.error)
        elif kind == "decision_request":
            request = message.decision_request
            for index in answer(request) or []:
                out(bot_pb2.BotMessage(decision=bot_pb2.Decision(match_id=request.match_id,
                                                                 request_id=request.request_id,
                                                                 action_index=index)))
        elif on_other is not None:
            on_other(message)

    def run() -> None:
        while not stop.is_set():
            try:
                message = bot.recv(timeout=0.2)
            except queue.Empty:
                continue
            if message is None:
                return
            for item in message.batch.messages if message.WhichOneof("payload") == "batch" else [message]:
                handle(item)

    thread = threading.Thread(target=run, daemon=True)
    thread.errors = errors  # type: ignore[attr-defined]
    thread.start()
    return thread
