"""One worker process's end of the relay: :class:`RelayHub`, shared by every remote seat of one event loop.

The answers to every message its seats send come to one list of the hub's own, each framed with the id of the
message it answers; one reader pops them and hands each to the seat waiting for that id. A list, not Pub/Sub: an
answer pushed while the reader reconnects waits there. The hub's life is an asynchronous generator the loop knows
of, so the loop's shutdown (``shutdown_asyncgens``) stops the reader and closes the client even when the loop's
tasks were only cancelled. Make a hub inside the loop that uses it, never before a fork.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import deque
from collections.abc import AsyncGenerator, Callable

from .relay import WAIT_CHUNK_S, RelayChannel, ReplyAddress, parse_reply_frame
from .store_errors import StoreFailure

log = logging.getLogger(__name__)

READ_CHUNK_S = 5.0
"""The longest single blocking pop of the reader."""
BACKOFF_S = (0.05, 1.0)
"""The reader's first and longest pause after a Redis failure."""
CLOSE_TIMEOUT_S = 2.0
QUIET_S = 10.0
"""Reader failures less than this apart are logged once."""

assert READ_CHUNK_S <= WAIT_CHUNK_S


class Replies:
    """The answers to one relayed message (a match start gets two: ``queued``, then the outcome), in order;
    a context manager that stops waiting for them on exit."""

    def __init__(self, hub: RelayHub, rid: str) -> None:
        self._hub = hub
        self.rid = rid
        self.address = ReplyAddress(hub.key, rid)
        # A deque and one future at a time rather than an asyncio.Queue: one of these is made per decision.
        self._answers: deque[bytes | None] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def deliver(self, answer: bytes | None) -> None:
        self._answers.append(answer)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def next(self, timeout_s: float) -> bytes | None:
        """The next answer, waiting up to ``timeout_s``; ``None`` when none came (or the hub closed)."""
        if not self._answers:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:  # asyncio.timeout, not wait_for: wait_for (3.11) loses a cancellation that comes with the answer
                async with asyncio.timeout(max(0.0, timeout_s)):
                    await waiter
            except TimeoutError:
                return None
            finally:
                self._waiter = None
        return self._answers.popleft()

    def __enter__(self) -> Replies:
        return self

    def __exit__(self, *exc: object) -> None:
        self._hub.forget(self.rid)


class RelayHub:
    """One event loop's relay: its :attr:`channel` for commands, one reader of its answers (``await``
    :meth:`start` once, in the loop that uses it)."""

    def __init__(self, channel: RelayChannel, *, on_closed: Callable[[RelayHub], None] | None = None) -> None:
        self.channel = channel
        self.hub_id = uuid.uuid4().hex
        self.key = channel.replies_key(self.hub_id)
        self.dropped = 0  # answers that came for no waiting seat (it gave up, or the answer came twice)
        self._on_closed = on_closed
        self._waiting: dict[str, Replies] = {}
        self._next = 0
        self._closed = False
        self._last_failure = -QUIET_S
        self._reader: asyncio.Task[None] | None = None
        self._life = self._lifetime()

    async def start(self) -> RelayHub:
        self._reader = asyncio.get_running_loop().create_task(self._read(), name=f"relay-hub-{self.hub_id[:8]}")
        await anext(self._life)  # first iterated in this loop: its shutdown_asyncgens() ends the generator
        return self

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def expect(self) -> Replies:
        """Wait for the answers to a message about to be sent (give its :attr:`Replies.address` to the gateway)."""
        if self._closed:
            raise StoreFailure("the relay hub is closed (its event loop is shutting down)")
        self._next += 1
        replies = Replies(self, format(self._next, "x"))
        self._waiting[replies.rid] = replies
        return replies

    def forget(self, rid: str) -> None:
        self._waiting.pop(rid, None)

    async def close(self) -> None:
        await self._life.aclose()

    async def _lifetime(self) -> AsyncGenerator[None, None]:
        """Suspended as long as the hub lives; closing it (the loop's shutdown, :meth:`close`) closes all."""
        try:
            yield
        finally:
            self._mark_closed()
            reader = self._reader
            if reader is not None and reader is not asyncio.current_task():
                reader.cancel()
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await asyncio.wait([reader], timeout=CLOSE_TIMEOUT_S)
            with contextlib.suppress(Exception, asyncio.CancelledError):
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await self.channel.close()

    # -- the reader -----------------------------------------------------------------------------------------
    async def _read(self) -> None:
        pause = BACKOFF_S[0]
        task = asyncio.current_task()
        try:
            while True:
                # redis-py may swallow a cancellation that comes during a blocking pop (the pop returns, or fails
                # as a Redis error): a loop around it must look for it itself, or the loop's shutdown hangs.
                if task is not None and task.cancelling():
                    raise asyncio.CancelledError
                try:
                    raws = await self.channel.pop_replies(self.key, READ_CHUNK_S, len(self._waiting))
                except (StoreFailure, OSError) as error:
                    if task is not None and task.cancelling():
                        raise asyncio.CancelledError from error
                    self._failed(error)
                    await asyncio.sleep(pause)
                    pause = min(BACKOFF_S[1], pause * 2)
                    continue
                pause = BACKOFF_S[0]
                for raw in raws:
                    self._route(raw)
        except Exception:
            log.exception("relay hub %s: the reader of answers failed; a new hub takes over", self.hub_id)
            asyncio.get_running_loop().create_task(self.close())
        finally:
            self._mark_closed()

    def _route(self, raw: bytes) -> None:
        try:
            rid, answer = parse_reply_frame(raw)
        except ValueError:
            rid, answer = "", raw
        replies = self._waiting.get(rid)
        if replies is None:
            self.dropped += 1
            log.debug("relay hub %s: an answer for %r, which nobody waits for, dropped", self.hub_id, rid)
            return
        replies.deliver(answer)

    def _failed(self, error: BaseException) -> None:
        now = time.monotonic()
        if now - self._last_failure >= QUIET_S:
            log.warning("relay hub %s: reading answers from Redis failed (%s); retrying (answers wait in Redis)",
                        self.hub_id, error)
        self._last_failure = now

    def _mark_closed(self) -> None:
        """No new waiter, the waiting ones get ``None``, the registry forgets the hub (synchronous: a closing loop
        may not run another step)."""
        if self._closed:
            return
        self._closed = True
        waiting, self._waiting = list(self._waiting.values()), {}
        for replies in waiting:
            replies.deliver(None)
        if self._on_closed is not None:
            self._on_closed(self)
