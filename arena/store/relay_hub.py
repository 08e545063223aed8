"""One worker process's end of the relay: :class:`RelayHub`, shared by every remote seat of one event loop.

A hub holds one :class:`~arena.store.RelayChannel` (one asyncio client, one connection pool: one connection for
the batched commands, one for the blocking pop) and one reader task. The answers to every message its seats send
come to one list of the hub's own, ``uno:relay:replies:{hub}``, each framed with the id of the message it answers
(:func:`~arena.store.relay.reply_frame`); the reader pops them (several per round trip when several are awaited)
and hands each to the seat waiting for that id (:meth:`RelayHub.expect`). An answer nobody waits for any more
(its seat gave up) is dropped and counted (:attr:`RelayHub.dropped`).

A list rather than Pub/Sub: an answer pushed while the reader reconnects (a Redis restart, a dropped connection)
waits in the list, where a Pub/Sub message would be lost without anyone knowing. An answer that never comes (its
gateway died, Redis lost it) is found out by its seat's own wait running out, as before: the arena's fault.

The hub's life is an asynchronous generator the loop knows of (:meth:`RelayHub.start`): the shutdown of the loop
(``loop.shutdown_asyncgens()``, which ``asyncio.run`` and every loop of the arena's runs before closing) or
:meth:`RelayHub.close` ends it, stopping the reader (waiting seats get ``None``) and closing the client, so no
task or connection outlives the loop even when the loop's tasks were only cancelled, never awaited. The reader
retries Redis with a back-off and never takes a cancellation for a Redis error (PRACTICE.md); should it fail
otherwise, the hub closes and the next seat gets a new one. Make a hub inside the running loop that uses it,
never before a fork (:mod:`arena.relay.hub` keeps one per loop and process).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import deque
from collections.abc import AsyncGenerator, Callable
from types import TracebackType

from .relay import WAIT_CHUNK_S, RelayChannel, ReplyAddress, parse_reply_frame
from .store_errors import StoreFailure

log = logging.getLogger(__name__)

READ_CHUNK_S = 5.0
"""The longest single blocking pop of the reader (shorter than the client's read timeout)."""
BACKOFF_S = (0.05, 1.0)
"""The reader's first and longest pause after a Redis failure."""
CLOSE_TIMEOUT_S = 2.0
"""How long closing the client may take at most."""
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
        """The next answer, waiting up to ``timeout_s``; ``None`` when none came in time (or the hub closed)."""
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

    def close(self) -> None:
        self._hub.forget(self.rid)

    def __enter__(self) -> Replies:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class RelayHub:
    """One event loop's relay: its :attr:`channel` for commands, one reader of its answers (``await``
    :meth:`start` once, in the loop that uses it)."""

    def __init__(self, channel: RelayChannel, *, on_closed: Callable[[RelayHub], None] | None = None) -> None:
        self.channel = channel
        self.hub_id = uuid.uuid4().hex
        self.key = channel.replies_key(self.hub_id)
        self.dropped = 0
        """Answers that came for no waiting seat (it gave up, or the answer came twice)."""
        self._on_closed = on_closed
        self._waiting: dict[str, Replies] = {}
        self._next = 0
        self._closed = False
        self._last_failure = -QUIET_S
        self._reader: asyncio.Task[None] | None = None
        self._life = self._lifetime()

    async def start(self) -> RelayHub:
        """Start the reader, and tie the hub's end to its loop's shutdown."""
        self._reader = asyncio.get_running_loop().create_task(self._read(), name=f"relay-hub-{self.hub_id[:8]}")
        await anext(self._life)  # first iterated in this loop: its shutdown_asyncgens() ends the generator
        return self

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def waiting(self) -> int:
        """Messages whose answers are awaited."""
        return len(self._waiting)

    def expect(self) -> Replies:
        """Wait for the answers to a message about to be sent (give its :attr:`Replies.address` to the gateway);
        :data:`~arena.store.StoreFailure` when the hub is closed."""
        if self._closed:
            raise StoreFailure("the relay hub is closed (its event loop is shutting down)")
        self._next += 1
        replies = Replies(self, format(self._next, "x"))
        self._waiting[replies.rid] = replies
        return replies

    def forget(self, rid: str) -> None:
        self._waiting.pop(rid, None)

    async def close(self) -> None:
        """Stop the reader (waiting seats get ``None``) and close the client."""
        await self._life.aclose()

    async def _lifetime(self) -> AsyncGenerator[None, None]:
        """Suspended for as long as the hub lives; closing it (the loop's shutdown, :meth:`close`) closes all."""
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
        except asyncio.CancelledError:
            raise
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
        """No new waiter; the waiting ones get ``None``; the registry forgets the hub (synchronous: a loop
        closing may not run another step)."""
        if self._closed:
            return
        self._closed = True
        waiting, self._waiting = list(self._waiting.values()), {}
        for replies in waiting:
            replies.deliver(None)
        if self._on_closed is not None:
            self._on_closed(self)
