"""The Redis relay between match runners (Celery workers) and the gateway that holds a bot's stream.

A worker plays a remote bot through :class:`RelaySeat`; the gateway runs a
:class:`arena.server.relay_consumer.RelayConsumer` on its own queue. Neither the runner nor the gateway knows
the relay is there: the seat has the runner's interface, the consumer calls the same gateway methods as an
in-process :class:`arena.server.remote_seat.RemoteSeat`.

The package: :mod:`arena.relay.messages` (the message format), :mod:`arena.relay.seat` (:class:`RelaySeat`, the
workers' side) and :mod:`arena.relay.hub` (the one :class:`arena.store.RelayHub` per event loop and process that
every seat of the loop shares: one Redis client, one reader of the answers).

Keys (under the store prefix, ``uno:`` by default; built by :class:`arena.store.keys.Keys`):

=================================  ======  =================================================================
``uno:relay:{gateway}``            list    messages for the gateway ``{gateway}`` (the ``gateway`` field of
                                           the bot's session, :mod:`arena.store.sessions`); RPUSH / BLPOP,
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

A message is one line of JSON (the header), a newline, then protobuf bytes. A message that asks for an answer
names where it goes: ``reply`` (the list) and ``rid`` (the id the answer is framed with; without ``rid``, as
from workers before the hub, the answer is pushed as it is to a list of its own):

- ``{"op": "start", "bot", "match_id", "seat", "reply", "rid", "wait_s", "casual"}`` + ``MatchStarted``: seat the bot
  once it plays fewer matches than its Hello offered; the gateway replies ``{"state": "queued"}`` at once when it
  must wait, then ``{"state": "admitted"}`` or, after ``wait_s``, ``{"state": "refused"}`` (the seat raises
  :class:`~arena.runner.SeatNotAdmitted`: the match is aborted, no strike). Without ``reply``: seat it at
  once (a match already seated on another gateway whose bot moved); ``{"op": "release", ...}`` frees a slot
  of a start given up. ``"casual": true`` (absent: false) marks a game against a person (``RelaySeat(...,
  casual=True)``, the web front's "play against the bots"): the gateway seats it only if the bot has a slot free
  right now and fewer casual matches than half its capacity (at least one), never queues it (``refused`` at once,
  ``wait_s`` is not used), and gives its slot to a rated (tournament, ladder, gauntlet) start that finds the bot
  full: the bot gets MatchEnded (aborted) and the match's next ``decide`` is answered ``evicted``
  (:mod:`arena.server.gateway.admission`). A hand-over of a casual match keeps the field;
- ``{"op": "close", "bot", "match_id", "seat", "reply", "rid"}``: the match is over, late answers no longer count in
  it; the reply ``{"late": N}`` is the seat's final count of late refusals (asked before MatchEnded is built);
- ``{"op": "decide", "bot", "match_id", "seat", "number", "legal", "deadline_s", "reply", "rid", "sent"}`` + a
  serialized ``DecisionRequest`` without request id and times (the gateway adds them and starts the bot's
  clock when it sends the request, :mod:`arena.protocol.encoding`);
- ``{"op": "events", ...}`` + ``MatchEvents``; ``{"op": "end", ...}`` + ``MatchEnded``;
- ``{"op": "drop", "bot", "sessions", "reason"}`` (no body): close those sessions of the bot with
  ``UNAUTHENTICATED`` (sent by the organizer API to every gateway holding the bot when its token is rotated or
  revoked or the bot deleted).

The reply to ``decide`` is JSON ``{"status": "answered"|"timeout"|"gone"|"evicted", "index", "refusals",
"reasons", "wire_s", "late", "version"}`` (``evicted``: the casual match gave its slot to a rated match, the seat
raises :class:`~arena.runner.SeatEvicted` and the match is aborted, no strike). The seat waits
``decision_deadline_s + margin_s`` for it. No reply (the gateway died) or
Redis unreachable is the arena's fault: :class:`~arena.runner.SeatUnreachable`, no strike (the runner asks again
until the bot is back within its grace period, else aborts the match). No live session of the bot
(``store.sessions.for_bot``), or a ``gone`` answer without ``moved``, first waits for the bot to come back
within the decision's time (its time bank included, as on a chess clock) and asks again with the time left;
still away then, :class:`~arena.runner.SeatGone`: the runner plays the fallback, counts a strike, and a bot gone
for good forfeits after ``max_strikes``. A
``decide`` message that waited in the queue longer than its deadline is answered ``timeout`` unsent.

A draining gateway (SIGTERM of ``serve``) hands what reaches it over to the gateway its bot moved to
(:mod:`arena.server.relay_consumer`): a ``decide`` is relayed there with the time it has left and its answer
carries ``"gateway"``, the new one, which the seat uses from then on; a ``start`` with ``reply`` is relayed
there too (answered ``queued`` at once, then the new gateway's answer, or ``""`` when the bot did not move in
time). The queue ``uno:relay:{gateway}`` expires 60 s after it was created unless its gateway keeps refreshing it.

Batching (issue 22, item 4): what the seats of one loop send in the same loop tick is one Redis pipeline (one
round trip); several messages for one gateway are one ``PUBLISH`` of a frame (the byte 0x1E, their lengths,
a newline, the messages: :func:`arena.store.batching.pack_messages`; a single message goes as it is), which the
gateway splits; the gateway's answers of one tick are one pipeline too, one ``RPUSH`` per list. A frame is heard,
or not, as a whole. Answers come back on the hub's list, not Pub/Sub: an answer pushed while the hub's reader
reconnects waits there. Gateways must be upgraded before workers (an older gateway does not read frames or
``rid``). Each side counts its Redis commands and their bytes: ``uno_arena_relay_redis_commands_total{side}`` and
``uno_arena_relay_redis_bytes_total{side,direction}`` (:mod:`arena.metrics`).

Redis clients are made in the running event loop (never at import, never before a fork); a hub closes with its
loop (``loop.shutdown_asyncgens()``).
"""

from .seat import DEFAULT_MARGIN_S, RelaySeat

__all__ = ["DEFAULT_MARGIN_S", "RelaySeat"]
