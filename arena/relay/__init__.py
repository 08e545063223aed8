"""The Redis relay between match runners (Celery workers) and the gateway that holds a bot's stream.

A worker plays a remote bot through :class:`RelaySeat`; the gateway runs a
:class:`arena.server.relay_consumer.RelayConsumer` on its own queue. Neither the runner nor the gateway knows
the relay is there: the seat has the runner's interface, the consumer calls the gateway's parts. It is the one
remote seat: `uno-arena match` and `bot check` seat bots through it too, on their in-process gateway.

The package: :mod:`arena.relay.envelope` (the messages: ``proto/uno_arena/relay/v1/relay.proto``, described in
docs/architecture.md, "The relay envelope"), :mod:`arena.relay.relay_seat` (:class:`RelaySeat`, the workers' side) and
:mod:`arena.relay.hub` (the one :class:`arena.store.RelayHub` per event loop and process that every seat of the loop
shares: one Redis client, one reader of the answers).

Keys (under the store prefix, ``uno:`` by default; built by :class:`arena.store.keys.Keys`):

=================================  ======  =================================================================
``uno:relay:{gateway}``            list    messages for the gateway ``{gateway}`` (the ``gateway`` field of
                                           the bot's session, :mod:`arena.store.session_store`); RPUSH / BLPOP,
                                           the messages waiting behind the first in the same round trip
``uno:relay:replies:{hub}``        list    the answers to the messages of one worker process's hub, each
                                           ``"{rid} {answer}"``; read by the hub's one reader, which hands each
                                           to the seat waiting for ``rid``; expires 60 s after the latest answer
``uno:relay:reply:{id}``           list    the answer to one message a draining gateway hands over to another
                                           (expires after 60 s)
``uno:bot:{name}:ended``           hash    ends of the bot's matches that ended while it had no session
                                           (``MatchEnded`` by match, seat and attempt; expires after an hour):
                                           the gateway opening its next session frees their slots
=================================  ======  =================================================================

A ``Start`` seats the bot once it plays fewer matches than its Hello offered (answered ``QUEUED`` at once when it
must wait, then ``ADMITTED``, or ``REFUSED`` after ``wait_s``: the seat raises :class:`~arena.runner.SeatNotAdmitted`,
the match is aborted, no strike); a casual start (a game against a person) is seated only with a slot free now and
gives way to a rated start (:mod:`arena.server.gateway.admission`; its next decision is answered ``EVICTED``, the
seat raises :class:`~arena.runner.SeatEvicted`). A ``Decide`` is answered by a ``DecideReply``, for which the seat
waits ``decision_deadline_s`` plus the lag cap and ``margin_s``. No answer (the gateway died), Redis unreachable, a
request that reached the gateway past its deadline (``undelivered``) or a draining gateway's ``moved`` are the
arena's fault: :class:`~arena.runner.SeatUnreachable`, no strike (the runner asks again until the bot is back within
its grace period, else aborts the match). No live session of the bot (``store.sessions.for_bot``), or a ``GONE``
answer, first waits for the bot to come back within the decision's time (its time bank included, as on a chess
clock) and asks again with the time left; still away then, :class:`~arena.runner.SeatGone`: the runner plays the
fallback, counts a strike, and a bot gone for good forfeits after ``max_strikes``. ``Drop`` (no answer) is sent by
the organizer API to every gateway holding a bot whose token was rotated or revoked, or which was deleted.

A draining gateway (SIGTERM of ``serve``) hands what reaches it over to the gateway its bot moved to
(:mod:`arena.server.relay_consumer`): a ``decide`` is relayed there with the time it has left and its answer
carries ``gateway``, the new one, which the seat uses from then on; a ``start`` with ``reply_to`` is relayed
there too (answered ``QUEUED`` at once, then the new gateway's answer, or ``DRAINING`` when the bot did not move in
time). The queue ``uno:relay:{gateway}`` expires 60 s after it was created unless its gateway keeps refreshing it.

Batching (issue 22, item 4): what the seats of one loop send in the same loop tick is one Redis pipeline (one
round trip); several messages for one gateway are one ``PUBLISH`` of a frame (the byte 0x1E, their lengths,
a newline, the messages: :func:`arena.store.batching.pack_messages`; a single message goes as it is), which the
gateway splits; the gateway's answers of one tick are one pipeline too, one ``RPUSH`` per list. A frame is heard,
or not, as a whole. Answers come back on the hub's list, not Pub/Sub: an answer pushed while the hub's reader
reconnects waits there. Each side counts its Redis commands and their bytes:
``uno_arena_relay_redis_commands_total{side}`` and ``uno_arena_relay_redis_bytes_total{side,direction}``
(:mod:`arena.metrics`).

Redis clients are made in the running event loop (never at import, never before a fork); a hub closes with its
loop (``loop.shutdown_asyncgens()``).
"""

from .relay_seat import DEFAULT_MARGIN_S, RelaySeat

__all__ = ["DEFAULT_MARGIN_S", "RelaySeat"]
