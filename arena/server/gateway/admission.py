"""Who may play now (:class:`Admissions`): the match slots of each bot on this gateway and its capacity.

A match start waits, first come first served, until the bot sits in fewer matches than its Hello offered (a second
seat of a match it already plays needs no slot); one that waited too long is given up (the match aborted, no strike).
A slot holds the newest attempt of its match: whatever comes for an older attempt is stale. It is released at the
match's end, or dropped by the heartbeat once unused for long (its runner is gone).

Casual matches (games against people) never take a slot a rated match needs: a casual start is seated now, in a free
slot, under :func:`casual_cap` and with no rated start waiting, or refused at once; a rated start that finds the bot
full takes the newest casual match's slot (:meth:`Admissions.evict`). A fresh sandbox (:class:`FreshSandbox`) is
seated in one match only, never a casual one; its token is bound to that match and spent at its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable

from arena.players import EndReason
from arena.protocol import bot_pb2
from arena.protocol.convert import end_reason_to_proto
from arena.runner import EVICTED_TEXT
from arena.server.gateway.bot_sessions import SessionRegistry
from arena.server.gateway.config import GatewayConfig
from arena.server.gateway.links import BotLink
from arena.server.gateway.records import Drained, Evicted, FreshSandbox, MatchSlot, Superseded, WaitingStart
from arena.server.gateway.stream import envelope

log = logging.getLogger(__name__)


def casual_cap(capacity: int) -> int:
    """The casual matches a bot with ``capacity`` slots sits in at once, at most: half, and at least one, so that a
    bot offering a single slot may still play a person between its rated matches."""
    return max(1, capacity // 2)


class Admissions:
    """Seats bots in matches when they have room, tells them what happens in their matches, releases the slots."""

    def __init__(self, registry: SessionRegistry, config: GatewayConfig) -> None:
        self.registry = registry
        self.config = config
        self._order = itertools.count(1)
        self.sandbox_seated: Callable[[str, FreshSandbox], None] = lambda bot, sandbox: None
        """Called with the bot and its fresh sandbox when the sandbox is seated in its one match."""
        self.sandbox_done: Callable[[str, FreshSandbox], None] = lambda bot, sandbox: None
        """Called when a fresh sandbox's one match ended (its token is to be spent)."""

    def _idle_limit(self, started: bot_pb2.MatchStarted) -> float:
        return max(self.config.slot_idle_s, 20 * started.decision_time_limit_ms / 1000.0)

    def start_match(self, bot: str, match_id: str, seat: int, started: bot_pb2.MatchStarted,
                    casual: bool = False) -> None:
        """Seat the bot at once, whatever its capacity, in a match admitted on the gateway it moved from (new matches
        go through :meth:`admit`); a seat it holds here already (a hand-over and the seat's own start may both come)
        or a casual match that gave its slot up is left as it is."""
        link = self.registry.link(bot)
        slot = link.matches.get((match_id, seat))
        if (slot is not None and slot.attempt >= started.attempt) or (match_id, seat) in link.evicted:
            return
        self._open_slot(link, match_id, seat, started, self._idle_limit(started), casual)

    def _slot(self, bot: str, match_id: str, seat: int) -> MatchSlot | None:
        """The bot's slot of this match here, without making a link for a bot this gateway never saw."""
        link = self.registry.links.get(bot.casefold())
        return link.matches.get((match_id, seat)) if link is not None else None

    def is_casual(self, bot: str, match_id: str, seat: int) -> bool:
        """Whether the bot sits in this match here as a casual one (a game against a person)."""
        slot = self._slot(bot, match_id, seat)
        return slot is not None and slot.casual

    def started_body(self, bot: str, match_id: str, seat: int) -> bytes | None:
        """The serialized MatchStarted of a match the bot is seated in here (to hand it over), or None."""
        slot = self._slot(bot, match_id, seat)
        if slot is None:
            return None
        return bot_pb2.ArenaMessage.FromString(slot.started).match_started.SerializeToString()

    def _open_slot(self, link: BotLink, match_id: str, seat: int, started: bot_pb2.MatchStarted,
                   idle_limit_s: float, casual: bool = False) -> None:
        """Seat the bot (send MatchStarted); a newer attempt replaces the slot of an older one, whose pending
        decisions are dropped (:class:`Superseded`), so a reconnect never sends them to the new attempt's bot."""
        attempt = started.attempt
        old = link.matches.get((match_id, seat))
        if old is not None and old.attempt < attempt:
            for pending in list(link.pending.values()):
                if (pending.match_id == match_id and pending.seat == seat and pending.attempt < attempt
                        and not pending.future.done()):
                    pending.future.set_exception(Superseded())
        data = envelope(match_started=started)
        sandbox = link.session.fresh_sandbox if link.session is not None else None
        if sandbox is not None and not sandbox.match_id:
            sandbox.match_id = match_id
            self.sandbox_seated(link.name, sandbox)
        link.matches[(match_id, seat)] = MatchSlot(data, attempt=attempt, idle_limit_s=idle_limit_s, casual=casual,
                                                   order=next(self._order))
        if link.session is not None:
            link.session.send(data)

    def stale(self, link: BotLink, match_id: str, seat: int, attempt: int) -> bool:
        """Whether ``attempt`` (0: not said) is older than the attempt the bot is seated in for this match."""
        slot = link.matches.get((match_id, seat))
        return bool(attempt) and slot is not None and slot.attempt > attempt

    def _capacity(self, link: BotLink) -> int:
        return link.capacity or self.config.max_concurrent_matches

    def _has_room(self, link: BotLink, match_id: str) -> bool:
        sandbox = link.session.fresh_sandbox if link.session is not None else None
        if sandbox is not None and sandbox.match_id not in ("", match_id):
            return False  # its one match is played: the next one waits for the next sandbox
        open_matches = link.open_matches()
        return match_id in open_matches or len(open_matches) < self._capacity(link)

    def _make_room(self, link: BotLink, match_id: str) -> bool:
        """Whether the bot has room for a rated match, once casual matches gave their slots up, newest first, as
        many as it takes."""
        while not self._has_room(link, match_id):
            casual = [(slot.order, key[0]) for key, slot in link.matches.items() if slot.casual]
            if not casual:
                return False
            self.evict(link, max(casual)[1])
        return True

    def evict(self, link: BotLink, match_id: str) -> None:
        """The casual match ``match_id`` gives its slot up to a rated match: the bot is told it ended (MatchEnded,
        aborted), a decision of it pending ends ``evicted``, and what comes for it later is dropped."""
        session = link.session
        for key in [key for key in link.matches if key[0] == match_id]:
            slot = link.matches.pop(key)
            link.note_evicted(key, told=session is not None)
            if session is not None:
                session.send(envelope(match_ended=bot_pb2.MatchEnded(
                    match_id=match_id, reason=end_reason_to_proto(EndReason.ABORTED), detail=EVICTED_TEXT,
                    attempt=slot.attempt)))
        for pending in list(link.pending.values()):
            if pending.match_id == match_id and not pending.future.done():
                pending.future.set_exception(Evicted())
        log.info("bot %s: casual match %s gave its slot to a rated match", link.name, match_id)

    def _admit_casual(self, link: BotLink, match_id: str, seat: int, started: bot_pb2.MatchStarted,
                      idle_limit_s: float) -> bool:
        """Seat the bot in a casual match now, or never (see the module's docstring)."""
        if link.session is not None and link.session.fresh_sandbox is not None:
            return False
        open_matches = link.open_matches()
        if match_id not in open_matches:
            capacity = self._capacity(link)
            if (link.waiting or len(open_matches) >= capacity
                    or len(link.casual_matches()) >= casual_cap(capacity)):
                return False
        self._open_slot(link, match_id, seat, started, idle_limit_s, casual=True)
        return True

    async def admit(self, bot: str, match_id: str, seat: int, started: bot_pb2.MatchStarted,
                    timeout_s: float, casual: bool = False) -> bool:
        """Seat the bot in a match (send MatchStarted) once it has a free slot (see the module's docstring); False
        when none was free within ``timeout_s`` (nothing was sent: the caller aborts the match, no strike)."""
        link = self.registry.link(bot)
        idle = self._idle_limit(started)
        if self.stale(link, match_id, seat, started.attempt) or (match_id, seat) in link.evicted:
            return False  # a start of an attempt that a newer one replaced, or of a match that gave way
        if casual:
            return self._admit_casual(link, match_id, seat, started, idle)
        if match_id in link.open_matches() or (not link.waiting and self._make_room(link, match_id)):
            self._open_slot(link, match_id, seat, started, idle)
            return True
        entry = WaitingStart(match_id, seat, started, idle, asyncio.get_running_loop().create_future())
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

    def admit_waiting(self, link: BotLink) -> None:
        """Seat waiting match starts, in order, while the bot has room."""
        waiting = link.waiting
        while waiting:
            entry = waiting[0]
            if entry.future.done():
                waiting.popleft()
                continue
            if not self._make_room(link, entry.match_id):
                return
            waiting.popleft()
            self._open_slot(link, entry.match_id, entry.seat, entry.started, entry.idle_limit_s)
            entry.future.set_result(None)

    def drop_idle_slots(self, now: float) -> None:
        """Drop the slots unused for longer than their idle limit (their runner is gone), seating waiting starts."""
        for link in self.registry.links.values():
            stale = [key for key, slot in link.matches.items() if now - slot.last_used > slot.idle_limit_s]
            for key in stale:
                del link.matches[key]
            if stale and link.waiting:
                self.admit_waiting(link)

    def open_matches(self, bot: str) -> int:
        """Matches the bot is seated in on this gateway now."""
        link = self.registry.links.get(bot.casefold())
        return len(link.open_matches()) if link is not None else 0

    def send_events(self, bot: str, match_id: str, seat: int, events: bot_pb2.MatchEvents, attempt: int = 0) -> None:
        link = self.registry.link(bot)
        if self.stale(link, match_id, seat, attempt) or (match_id, seat) in link.evicted:
            return
        slot = link.matches.get((match_id, seat))
        if slot is not None:
            slot.last_used = time.monotonic()
        if link.session is not None:
            link.session.send(envelope(match_events=events))

    def end_match(self, bot: str, match_id: str, seat: int, ended: bot_pb2.MatchEnded | None,
                  attempt: int = 0) -> int:
        """Tell the bot its match ended; returns the seat's late refusals (the slot is dropped, which frees a match
        slot of the bot). ``ended`` None: release the slot without telling the bot (a start given up). The end of
        an older attempt than the slot's (``attempt``, else ``ended.attempt``) leaves the newer attempt's slot. The
        end of a casual match that gave its slot up reaches the bot only if it was not told then."""
        link = self.registry.link(bot)
        told = link.evicted.pop((match_id, seat), None)
        if not told and link.session is not None and ended is not None:
            link.session.send(envelope(match_ended=ended))
        if told is not None or self.stale(link, match_id, seat, attempt or (ended.attempt if ended is not None else 0)):
            return 0
        slot = link.matches.pop((match_id, seat), None)
        sandbox = link.session.fresh_sandbox if link.session is not None else None
        if sandbox is not None and sandbox.match_id == match_id and match_id not in link.open_matches():
            self.sandbox_done(link.name, sandbox)
        if link.waiting:
            self.admit_waiting(link)
        return slot.late_refusals if slot is not None else 0

    def close_match(self, bot: str, match_id: str, seat: int, attempt: int = 0) -> int:
        """The match is over: later answers to its requests are refused without counting in it; returns the seat's
        late refusals, final from now on (so the MatchEnded the runner builds next tells the stored count)."""
        slot = self._slot(bot, match_id, seat)
        if slot is None or (attempt and slot.attempt > attempt):
            return 0
        slot.closed = True
        return slot.late_refusals

    def late_refusals(self, bot: str, match_id: str, seat: int) -> int:
        slot = self._slot(bot, match_id, seat)
        return slot.late_refusals if slot is not None else 0
