"""Who may play now (:class:`Admissions`): the match slots of each bot on this gateway and its capacity.

``Hello.max_concurrent_matches`` is recorded in the session (``capacity``, capped by the gateway's
``max_concurrent_matches``) and honoured: a match start (:meth:`Admissions.admit`, from a RemoteSeat or a relayed
``start``) waits, first come first served, until the bot sits in fewer matches than that (a second seat of a match
it already plays needs no slot); a start that waited too long is given up and its match aborted, with no strike. A
slot holds the newest attempt of its match: whatever comes for an older attempt is stale. A slot is released at the
match's end, or dropped by the heartbeat once unused for long (its runner is gone). At match end the runner first
closes the match to late answers (:meth:`Admissions.close_match`) and collects its late refusals, so MatchEnded tells
the stored count.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from arena.protocol import bot_pb2
from arena.server.gateway.config import GatewayConfig
from arena.server.gateway.links import BotLink
from arena.server.gateway.records import Drained, MatchSlot, Superseded, WaitingStart
from arena.server.gateway.sessions import SessionRegistry
from arena.server.gateway.stream import envelope


class Admissions:
    """Seats bots in matches when they have room, tells them what happens in their matches, releases the slots."""

    def __init__(self, registry: SessionRegistry, config: GatewayConfig) -> None:
        self.registry = registry
        self.config = config

    def _idle_limit(self, started: bot_pb2.MatchStarted) -> float:
        return max(self.config.slot_idle_s, 20 * started.decision_time_limit_ms / 1000.0)

    def start_match(self, bot: str, match_id: str, seat: int, started: bot_pb2.MatchStarted) -> None:
        """Seat the bot in a match at once, whatever its capacity (for a match already admitted elsewhere: a
        relayed match whose bot moved to this gateway). New matches go through :meth:`admit`. A match the bot
        is already seated in here is left as it is (a hand-over and the seat's own start may both come)."""
        link = self.registry.link(bot)
        slot = link.matches.get((match_id, seat))
        if slot is not None and slot.attempt >= started.attempt:
            return
        self._open_slot(link, match_id, seat, started, self._idle_limit(started))

    def started_body(self, bot: str, match_id: str, seat: int) -> bytes | None:
        """The serialized MatchStarted of a match the bot is seated in here (to hand it over), or None."""
        link = self.registry.links.get(bot.casefold())
        slot = link.matches.get((match_id, seat)) if link is not None else None
        if slot is None:
            return None
        return bot_pb2.ArenaMessage.FromString(slot.started).match_started.SerializeToString()

    def _open_slot(self, link: BotLink, match_id: str, seat: int, started: bot_pb2.MatchStarted,
                   idle_limit_s: float) -> None:
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
        link.matches[(match_id, seat)] = MatchSlot(data, attempt=attempt, idle_limit_s=idle_limit_s)
        if link.session is not None:
            link.session.send(data)

    def stale(self, link: BotLink, match_id: str, seat: int, attempt: int) -> bool:
        """Whether ``attempt`` (0: not said) is older than the attempt the bot is seated in for this match."""
        slot = link.matches.get((match_id, seat))
        return bool(attempt) and slot is not None and slot.attempt > attempt

    def _has_room(self, link: BotLink, match_id: str) -> bool:
        open_matches = link.open_matches()
        capacity = link.capacity or self.config.max_concurrent_matches
        return match_id in open_matches or len(open_matches) < capacity

    async def admit(self, bot: str, match_id: str, seat: int, started: bot_pb2.MatchStarted,
                    timeout_s: float) -> bool:
        """Seat the bot in a match (send MatchStarted) once it plays fewer matches than its Hello offered (a second
        seat of a match it already plays needs no slot). Match starts wait first come first served; False when
        none was free within ``timeout_s`` (nothing was sent: the caller aborts the match, no strike)."""
        link = self.registry.link(bot)
        idle = self._idle_limit(started)
        if self.stale(link, match_id, seat, started.attempt):
            return False  # a start of an attempt that a newer one replaced: nothing to seat
        if match_id in link.open_matches() or (not link.waiting and self._has_room(link, match_id)):
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
            if not self._has_room(link, entry.match_id):
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
        if self.stale(link, match_id, seat, attempt):
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
        an older attempt than the slot's (``attempt``, else ``ended.attempt``) leaves the newer attempt's slot."""
        link = self.registry.link(bot)
        if self.stale(link, match_id, seat, attempt or (ended.attempt if ended is not None else 0)):
            if link.session is not None and ended is not None:
                link.session.send(envelope(match_ended=ended))
            return 0
        slot = link.matches.pop((match_id, seat), None)
        if link.session is not None and ended is not None:
            link.session.send(envelope(match_ended=ended))
        if link.waiting:
            self.admit_waiting(link)
        return slot.late_refusals if slot is not None else 0

    def close_match(self, bot: str, match_id: str, seat: int, attempt: int = 0) -> int:
        """The match is over: later answers to its requests are refused without counting in it; returns the seat's
        late refusals, final from now on (so the MatchEnded the runner builds next tells the stored count)."""
        link = self.registry.links.get(bot.casefold())
        slot = link.matches.get((match_id, seat)) if link is not None else None
        if slot is None or (attempt and slot.attempt > attempt):
            return 0
        slot.closed = True
        return slot.late_refusals

    def late_refusals(self, bot: str, match_id: str, seat: int) -> int:
        link = self.registry.links.get(bot.casefold())
        slot = link.matches.get((match_id, seat)) if link is not None else None
        return slot.late_refusals if slot is not None else 0
