"""The gateway's admission policy for games against people (casual matches), on the admission and decision objects
themselves (no server, no Redis): a casual start never waits, a bot plays at most :func:`casual_cap` of them at once,
and a rated start that finds the bot full takes the slot of the newest casual match, which the bot is told ended
(aborted) and whose decisions end ``evicted``."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from arena.protocol import bot_pb2, game_pb2
from arena.runner import EVICTED_TEXT
from arena.server.gateway.admission import Admissions, casual_cap
from arena.server.gateway.bot_sessions import SessionRegistry
from arena.server.gateway.config import GatewayConfig
from arena.server.gateway.decisions import Decisions
from arena.server.gateway.links import BotLink
from arena.server.gateway.records import FreshSandbox
from arena.server.gateway.stream import BotSession
from arena.store import Store

BOT = "guest"


class FakeSession:
    """What the gateway sends the bot, decoded; and the refusals it would send."""

    lag_s = 0.0
    fresh_sandbox: FreshSandbox | None = None

    def __init__(self) -> None:
        self.sent: list[bot_pb2.ArenaMessage] = []
        self.refused: list[str] = []

    def send(self, data: bytes, pending: Any = None) -> None:
        self.sent.append(bot_pb2.ArenaMessage.FromString(data))

    def refuse(self, code: Any, reason: str, text: str, *args: Any, **kwargs: Any) -> None:
        self.refused.append(reason)

    def ended(self) -> list[bot_pb2.MatchEnded]:
        return [m.match_ended for m in self.sent if m.WhichOneof("payload") == "match_ended"]

    def started(self) -> list[str]:
        return [m.match_started.match_id for m in self.sent if m.WhichOneof("payload") == "match_started"]


def gateway_parts(capacity: int) -> tuple[Admissions, Decisions, BotLink, FakeSession]:
    registry = SessionRegistry(cast(Store, None), GatewayConfig(), "gw-test")  # the store is never used here
    admissions = Admissions(registry, registry.config)
    link = registry.link(BOT)
    link.capacity = capacity
    session = FakeSession()
    link.session = cast(BotSession, session)
    return admissions, Decisions(registry, admissions), link, session


def started(match_id: str) -> bot_pb2.MatchStarted:
    return bot_pb2.MatchStarted(match_id=match_id, seat=1, decision_time_limit_ms=1000, attempt=1)


async def admit(admissions: Admissions, match_id: str, *, casual: bool, seat: int = 1, wait_s: float = 0.05) -> bool:
    return await admissions.admit(BOT, match_id, seat, started(match_id), wait_s, casual=casual)


def test_the_casual_cap_is_half_the_capacity_and_at_least_one() -> None:
    assert [casual_cap(n) for n in (1, 2, 3, 4, 5, 16, 64)] == [1, 1, 1, 2, 2, 8, 32]


def test_a_casual_start_is_seated_only_with_a_slot_free_now_and_never_waits() -> None:
    async def scenario() -> None:
        admissions, _decisions, link, session = gateway_parts(capacity=2)
        assert await admit(admissions, "rated-1", casual=False)
        assert await admit(admissions, "rated-2", casual=False)
        assert not await admit(admissions, "human-1", casual=True, wait_s=30.0)  # refused at once, not queued
        assert not link.waiting and "human-1" not in session.started()
        admissions.end_match(BOT, "rated-2", 1, None)
        assert await admit(admissions, "human-1", casual=True)
        assert session.started() == ["rated-1", "rated-2", "human-1"]

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_a_fresh_sandbox_is_seated_in_one_match_and_its_end_is_told() -> None:
    """A bot host's fresh sandbox (a bot without memory) plays one match, never a person's game; the next match
    waits for the next sandbox, and the first seating and the match's end are handed to the store's writes."""
    async def scenario() -> None:
        admissions, _decisions, link, session = gateway_parts(capacity=1)
        sandbox = session.fresh_sandbox = FreshSandbox("token-id")
        told: list[tuple[str, str]] = []
        admissions.sandbox_seated = lambda bot, fresh: told.append(("seated", fresh.match_id))
        admissions.sandbox_done = lambda bot, fresh: told.append(("done", fresh.match_id))
        assert not await admit(admissions, "human-1", casual=True)
        assert await admit(admissions, "rated-1", casual=False)
        assert await admit(admissions, "rated-1", casual=False, seat=2)  # a second seat of its one match
        assert sandbox.match_id == "rated-1" and told == [("seated", "rated-1")]
        admissions.end_match(BOT, "rated-1", 1, None)
        assert told == [("seated", "rated-1")]  # its other seat still plays
        admissions.end_match(BOT, "rated-1", 2, None)
        assert told[-1] == ("done", "rated-1")
        waiting = asyncio.ensure_future(admit(admissions, "rated-2", casual=False, wait_s=10.0))
        await asyncio.sleep(0)
        assert len(link.waiting) == 1 and "rated-2" not in session.started()  # not with this sandbox
        fresh = FakeSession()
        fresh.fresh_sandbox = FreshSandbox("next-token")
        link.session = cast(BotSession, fresh)
        admissions.admit_waiting(link)
        assert await waiting and fresh.started() == ["rated-2"] and fresh.fresh_sandbox.match_id == "rated-2"

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_a_casual_start_is_refused_while_a_rated_start_waits() -> None:
    async def scenario() -> None:
        admissions, _decisions, link, _session = gateway_parts(capacity=1)
        assert await admit(admissions, "rated-1", casual=False)
        waiting = asyncio.ensure_future(admit(admissions, "rated-2", casual=False, wait_s=10.0))
        await asyncio.sleep(0)  # the second rated start queues (the bot is full of rated matches)
        assert len(link.waiting) == 1
        admissions.end_match(BOT, "rated-1", 1, None)  # its slot goes to the waiting rated start, not a person
        assert await waiting
        assert not await admit(admissions, "human-1", casual=True)

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_a_bot_plays_at_most_its_casual_cap_of_games_against_people() -> None:
    async def scenario() -> None:
        admissions, _decisions, link, _session = gateway_parts(capacity=4)
        assert await admit(admissions, "human-1", casual=True)
        assert await admit(admissions, "human-2", casual=True)
        assert not await admit(admissions, "human-3", casual=True)  # 2 of 4 slots free, but 2 casual already
        assert await admit(admissions, "human-2", casual=True, seat=2)  # a second seat of one game: no new slot
        assert link.casual_matches() == {"human-1", "human-2"}
        assert await admit(admissions, "rated-1", casual=False)
        assert await admit(admissions, "rated-2", casual=False)
        assert link.open_matches() == {"human-1", "human-2", "rated-1", "rated-2"}

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_a_rated_start_takes_the_slot_of_the_newest_casual_match_at_once() -> None:
    async def scenario() -> None:
        admissions, _decisions, link, session = gateway_parts(capacity=4)
        assert await admit(admissions, "human-old", casual=True)
        assert await admit(admissions, "rated-1", casual=False)
        assert await admit(admissions, "human-new", casual=True)
        assert await admit(admissions, "human-new", casual=True, seat=2)
        assert await admit(admissions, "rated-2", casual=False)  # the bot is full now: 4 matches
        assert await admit(admissions, "rated-3", casual=False, wait_s=0.0)  # seated at once, without waiting
        assert link.open_matches() == {"human-old", "rated-1", "rated-2", "rated-3"}
        assert link.casual_matches() == {"human-old"}
        ends = session.ended()
        assert [(e.match_id, e.reason, e.detail) for e in ends] == [("human-new", game_pb2.END_REASON_ABORTED,
                                                                      EVICTED_TEXT)] * 2  # one per seat
        assert await admit(admissions, "rated-4", casual=False, wait_s=0.0)
        assert link.casual_matches() == set() and session.ended()[-1].match_id == "human-old"
        assert not await admit(admissions, "rated-5", casual=False, wait_s=0.0)  # nothing casual left to give way

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_what_comes_for_a_casual_match_after_it_gave_way_is_dropped() -> None:
    async def scenario() -> None:
        admissions, decisions, link, session = gateway_parts(capacity=2)
        assert await admit(admissions, "human-1", casual=True)
        assert await admit(admissions, "rated-1", casual=False)
        asking = asyncio.ensure_future(decisions.decide(BOT, "human-1", 1, 5, b"", 3, 30.0, attempt=1))
        await asyncio.sleep(0)
        request_id = next(iter(link.pending))
        assert await admit(admissions, "rated-2", casual=False, wait_s=0.0)
        outcome = await asyncio.wait_for(asking, 1.0)  # the pending decision ends at once, unanswered
        assert outcome.status == "evicted" and outcome.index is None
        later = await decisions.decide(BOT, "human-1", 1, 6, b"", 3, 30.0, attempt=1)
        assert later.status == "evicted"
        sent_before = len(session.sent)
        admissions.send_events(BOT, "human-1", 1, bot_pb2.MatchEvents(match_id="human-1"), 1)
        answer = bot_pb2.Decision(match_id="human-1", request_id=request_id, action_index=0)
        decisions.answer(cast(BotSession, session), link, answer)  # the bot's answer on its way: no Error
        ended = bot_pb2.MatchEnded(match_id="human-1", reason=game_pb2.END_REASON_ABORTED, attempt=1)
        assert admissions.end_match(BOT, "human-1", 1, ended, 1) == 0  # the bot was told already
        assert len(session.sent) == sent_before and session.refused == []
        assert not await admit(admissions, "human-1", casual=True)  # never seated again
        assert admissions.close_match(BOT, "human-1", 1, 1) == 0

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_a_bot_away_at_the_eviction_gets_the_runners_end_of_the_match() -> None:
    async def scenario() -> None:
        admissions, _decisions, link, session = gateway_parts(capacity=1)
        assert await admit(admissions, "human-1", casual=True)
        link.session = None
        assert await admit(admissions, "rated-1", casual=False, wait_s=0.0)
        link.session = cast(BotSession, session)
        ended = bot_pb2.MatchEnded(match_id="human-1", reason=game_pb2.END_REASON_ABORTED, attempt=1)
        admissions.end_match(BOT, "human-1", 1, ended, 1)
        assert [e.match_id for e in session.ended()] == ["human-1"]
        assert link.evicted == {}

    asyncio.run(asyncio.wait_for(scenario(), 10))


@pytest.mark.parametrize("casual", [False, True])
def test_a_handed_over_start_keeps_whether_the_match_is_casual(casual: bool) -> None:
    admissions, _decisions, _link, _session = gateway_parts(capacity=2)
    admissions.start_match(BOT, "moved", 1, started("moved"), casual)
    assert admissions.is_casual(BOT, "moved", 1) is casual
