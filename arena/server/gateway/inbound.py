"""Reading a bot's stream (:class:`Inbound`): every message through the stream's rate limit, parsed, and passed on by
kind (a Decision to :class:`~arena.server.gateway.decisions.Decisions`, a Pong checked against the Pings sent); a
``BotBatch``'s messages one by one as if each had come alone; anything else refused in-band, naming the problem."""

from __future__ import annotations

import contextlib
import time

import grpc
import grpc.aio
from google.protobuf.message import DecodeError

from arena.protocol import bot_pb2
from arena.server.gateway.decisions import Decisions
from arena.server.gateway.links import BotLink
from arena.server.gateway.stream import BotSession


class Inbound:
    """Reads the streams of this gateway's sessions."""

    def __init__(self, decisions: Decisions) -> None:
        self.decisions = decisions
        self._answer = decisions.answer  # bound once: called for every answer

    async def read(self, session: BotSession, link: BotLink, context: grpc.aio.ServicerContext) -> None:
        """Read ``session``'s stream until it ends, breaks (or the session does); the session is finished then."""
        try:
            with contextlib.suppress(Exception):  # a cancellation is no Exception: it propagates
                while True:
                    data = await context.read()
                    if data is grpc.aio.EOF:
                        break
                    session.t_read = time.perf_counter()
                    session.last_seen = time.monotonic()
                    self._on_message(session, link, data)
                    if session.done.done():
                        break
        finally:
            session.finish()

    def _on_message(self, session: BotSession, link: BotLink, data: bytes) -> None:
        if session.bucket.take(1) < 1:
            self._rate_limited(session, 1)
            return
        try:
            message = bot_pb2.BotMessage.FromString(data)
        except DecodeError:
            session.refuse(grpc.StatusCode.INVALID_ARGUMENT, "malformed",
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
                self._on_payload(session, link, inner, inner.WhichOneof("payload"), in_batch=True)
                if session.done.done():
                    return
        else:
            self._on_payload(session, link, message, kind)

    @staticmethod
    def _rate_limited(session: BotSession, refused: int) -> None:
        """``refused`` messages over the stream's rate: one in-band Error for all of them (counts toward the flood
        limit once: a stream that keeps flooding is closed with RESOURCE_EXHAUSTED)."""
        cfg = session.config
        session.refuse(grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited",
                       f"rate limit: {refused} message(s) refused: a stream may send {cfg.message_rate:g} messages/s "
                       f"(bursts of {cfg.message_burst}; each message of a batch counts); slow down")

    def _on_payload(self, session: BotSession, link: BotLink, message: bot_pb2.BotMessage, kind: str | None,
                    in_batch: bool = False) -> None:
        if kind == "decision":
            self._answer(session, link, message.decision)
        elif kind == "pong":
            nonce = message.pong.nonce
            sent = session.pings.pop(nonce, None)
            if sent is not None:
                session.round_trips.append(time.monotonic() - sent)
            else:
                session.refuse(grpc.StatusCode.INVALID_ARGUMENT, "bad_pong",
                               f"pong nonce {nonce} does not echo a Ping sent on this stream (or was answered already)")
        elif kind == "hello":
            session.refuse(grpc.StatusCode.FAILED_PRECONDITION, "malformed",
                           "Hello is only allowed as the first message of the stream")
        elif in_batch:
            session.refuse(grpc.StatusCode.INVALID_ARGUMENT, "malformed",
                           f"{'a batch inside a batch' if kind == 'batch' else 'an empty message in a batch'}: "
                           "a BotBatch holds Decision and Pong messages only")
        else:
            session.refuse(grpc.StatusCode.INVALID_ARGUMENT, "malformed",
                           "empty message: set one of hello, decision, pong, batch")
