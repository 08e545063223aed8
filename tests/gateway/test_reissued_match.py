"""Reissued matches reproduce (issue 13, item 3): every attempt of a match is distinct for the bots.

A match the arena gave up on (a worker child killed mid-match, an aborted attempt) is played again from the same
seed as the next attempt (``MatchStarted.attempt``); the kit starts a fresh bot for it, so a deterministic kit bot
ends the replayed match exactly as in a clean run.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from arena.engine import Match, Rules
from arena.protocol import bot_pb2, game_pb2
from arena.protocol.convert import action_to_proto, observation_to_proto
from arena.protocol.messages import match_ended, match_started
from arena.relay.hub import loop_hubs
from arena.runner import EndReason, MatchConfig, MatchRecord, MatchSummary, Seat, SeatRequest, SeatStart, run_match
from arena.service.matches import match_config
from arena.tournament import MatchSpec
from bots import Bot, RandomBot
from bots.kit import BotClient, match_seed
from tests.support.bots import ThreadBot
from tests.support.gateway import GatewayHarness, running_gateway
from tests.support.waiting import wait_until, wait_until_async

MATCH_ID = "reissue-1"
SEED = 11


@pytest.fixture
def gw() -> Iterator[GatewayHarness]:
    with running_gateway() as harness:
        yield harness


class CountingFactory:
    """A deterministic kit bot (RandomBot seeded per match and seat) that counts the bots it made."""

    def __init__(self) -> None:
        self.made: Counter[tuple[str, int]] = Counter()

    def __call__(self, match_id: str, seat: int) -> Bot:
        self.made[(match_id, seat)] += 1
        return RandomBot(seed=match_seed(match_id, seat))


class Interrupting(Seat):
    """A remote seat that, at decision ``at``, hangs (``mode="kill"``: the worker child dies, nothing more is said)
    or raises (``mode="abort"``: the runner aborts the match and tells the seats)."""

    def __init__(self, inner: Seat, at: int, mode: str) -> None:
        self.inner, self.at, self.mode = inner, at, mode
        self.name, self.version, self.wants_events = inner.name, inner.version, inner.wants_events
        self.reached = threading.Event()
        self.asked = 0

    async def start(self, info: SeatStart) -> None:
        await self.inner.start(info)

    async def decide(self, request: SeatRequest) -> int:
        self.asked += 1
        if self.asked >= self.at:
            self.reached.set()
            if self.mode == "kill":
                await asyncio.Event().wait()
            raise RuntimeError("the arena broke down mid-match")
        return await self.inner.decide(request)

    async def events(self, match_id: str, observation: Any) -> None:
        await self.inner.events(match_id, observation)

    async def end(self, match_id: str, summary: MatchSummary) -> None:
        await self.inner.end(match_id, summary)

    async def close_answers(self, match_id: str) -> int:
        return await self.inner.close_answers(match_id)


def _config(attempt: int) -> MatchConfig:
    return MatchConfig(MATCH_ID, SEED, Rules(target=150), decision_deadline_s=5.0, attempt=attempt)


def _seats(gw: GatewayHarness) -> list[Seat]:
    """The kit bot through Redis and the gateway (as a worker reaches it), and a built-in bot seeded the same way
    every time."""
    return gw.seats(["kitbot", "random"], SEED)


def _play(gw: GatewayHarness, attempt: int) -> MatchRecord:
    return gw.run(run_match(_config(attempt), _seats(gw)), 60)


def _same_play(a: MatchRecord, b: MatchRecord) -> None:
    assert a.replay == b.replay
    assert (a.scores, a.winner, a.rounds, a.end_reason) == (b.scores, b.winner, b.rounds, b.end_reason)
    assert a.strikes == b.strikes == [0, 0]
    assert [(d.seat, d.action, d.outcome) for d in a.decisions] == [(d.seat, d.action, d.outcome) for d in b.decisions]


@pytest.mark.integration
@pytest.mark.parametrize("mode", ["kill", "abort"])
def test_a_reissued_match_of_a_deterministic_kit_bot_ends_as_a_clean_run(gw: GatewayHarness, mode: str) -> None:
    factory = CountingFactory()
    bot = ThreadBot(gw.address, gw.register_bot("kitbot"))
    bot.client.factory = factory  # before any match starts
    try:
        gw.wait_for_bot("kitbot", 10)
        clean = _play(gw, 1)
        assert clean.end_reason is not EndReason.ABORTED and clean.strikes == [0, 0]
        wait_until(lambda: bot.stats.matches_ended == 1, timeout=10)

        # Attempt 1, interrupted a few decisions of the kit bot in: its bot has moved on from the clean start.
        seats = _seats(gw)
        interrupted = Interrupting(seats[0], at=12, mode=mode)
        future = gw.submit(run_match(_config(1), [interrupted, seats[1]]))
        assert interrupted.reached.wait(30)
        if mode == "kill":
            future.cancel()  # the worker child is gone: no MatchEnded reaches the bot
            gw.run(_close_relay_hubs())  # the child's relay hub (its connections, its reader) dies with it
        else:
            aborted = future.result(30)
            assert aborted.end_reason is EndReason.ABORTED and aborted.strikes == [0, 0]
            # The aborted attempt is ended for the bot (MatchEnded, reason aborted): it drops its bot at once.
            wait_until(lambda: bot.stats.matches_ended == 2, timeout=10)
            assert not bot.client._bots

        replayed = _play(gw, 2)
        _same_play(replayed, clean)
        assert factory.made[(MATCH_ID, 0)] == 3  # clean run, the interrupted attempt, the reissued one
    finally:
        bot.stop()


def test_kit_keeps_the_bot_of_the_same_attempt_and_replaces_it_for_a_new_one() -> None:
    factory = CountingFactory()
    client = BotClient("127.0.0.1:1", "t", factory)
    info = SeatStart("m-1", 0, ("a", "b"), Rules(), 1.0, attempt=1)

    def handle(**payload: Any) -> None:
        client._handle(None, bot_pb2.ArenaMessage(**payload), [], asyncio.Lock(), set())

    handle(match_started=match_started(info))
    first = client._bots[("m-1", 0)]
    handle(match_started=match_started(info))  # sent again after a reconnect: same attempt, same bot
    assert client._bots[("m-1", 0)] is first
    handle(match_started=match_started(SeatStart("m-1", 0, ("a", "b"), Rules(), 1.0, attempt=2)))
    second = client._bots[("m-1", 0)]
    assert second is not first and factory.made[("m-1", 0)] == 2
    summary = MatchSummary("m-1", (0, 0), None, 0, EndReason.ABORTED, (), (), (), "aborted", attempt=1)
    handle(match_ended=match_ended("m-1", summary))  # the late end of attempt 1 ends nothing of attempt 2
    assert client._bots[("m-1", 0)] is second
    ended = match_ended("m-1", MatchSummary("m-1", (0, 0), None, 0, EndReason.ABORTED, (), (), (), "", attempt=2))
    assert ended.attempt == 2 and ended.reason == game_pb2.END_REASON_ABORTED
    handle(match_ended=ended)
    assert not client._bots


def test_the_attempt_reaches_the_match_config_and_match_started() -> None:
    spec = MatchSpec("m-2", "t-1", 0, 0, 0, ("a", "b"), 5, Rules(), 1000, attempt=3)
    config = match_config(spec)
    assert config.attempt == 3
    assert spec == MatchSpec("m-2", "t-1", 0, 0, 0, ("a", "b"), 5, Rules(), 1000)  # run state, not schedule
    started = match_started(SeatStart("m-2", 1, ("a", "b"), config.rules, 1.0, "t-1", config.attempt))
    assert started.attempt == 3


def _started(attempt: int) -> bot_pb2.MatchStarted:
    return match_started(SeatStart("m-s", 0, ("kitbot", "random"), Rules(), 30.0, attempt=attempt))


def _ended(attempt: int) -> bot_pb2.MatchEnded:
    return match_ended("m-s", MatchSummary("m-s", (0, 0), None, 0, EndReason.ABORTED, (), (), (), "", attempt=attempt))


@pytest.mark.integration
def test_a_newer_attempt_drops_the_pending_requests_of_the_older_one_on_the_gateway(gw: GatewayHarness) -> None:
    """The gateway keeps the newest attempt per match and seat: a pending request of an older attempt ends
    ``gone`` (never sent again on a reconnect), and a late request, event or end of it leaves the new one alone."""
    gateway = gw.server.gateway

    async def scenario() -> list[Any]:
        gateway.admissions.start_match("kitbot", "m-s", 0, _started(1))
        old = asyncio.ensure_future(gateway.decisions.decide("kitbot", "m-s", 0, 1, b"", 2, 30.0, attempt=1))
        link = gateway.registry.link("kitbot")
        await wait_until_async(lambda: link.pending, 5, "the old attempt's request to be pending")
        pending_before = len(link.pending)
        gateway.admissions.start_match("kitbot", "m-s", 0, _started(2))
        old_outcome = await asyncio.wait_for(old, 5.0)
        late = await gateway.decisions.decide("kitbot", "m-s", 0, 2, b"", 2, 30.0, attempt=1)
        readmitted = await gateway.admissions.admit("kitbot", "m-s", 0, _started(1), 0.1)
        gateway.admissions.end_match("kitbot", "m-s", 0, _ended(1))
        slot_after_old_end = gateway.registry.link("kitbot").matches.get(("m-s", 0))
        gateway.admissions.end_match("kitbot", "m-s", 0, _ended(2))
        return [pending_before, old_outcome.status, dict(link.pending), late.status, readmitted,
                slot_after_old_end.attempt if slot_after_old_end else None,
                ("m-s", 0) in link.matches]

    pending_before, old_status, pending_after, late_status, readmitted, kept_attempt, still_open = gw.run(scenario())
    assert pending_before == 1 and old_status == "gone" and pending_after == {}
    assert late_status == "gone" and readmitted is False
    assert kept_attempt == 2 and still_open is False


def test_the_kit_never_passes_a_request_of_an_aborted_attempt_to_the_new_bot() -> None:
    factory = CountingFactory()
    client = BotClient("127.0.0.1:1", "t", factory)
    asked: list[int] = []

    class Recording(Bot):
        def choose(self, observation: Any, legal: Any) -> int:
            asked.append(1)
            return 0

    client.factory = lambda match_id, seat: Recording()
    replies: list[bot_pb2.BotMessage] = []

    def handle(**payload: Any) -> None:
        client._handle(None, bot_pb2.ArenaMessage(**payload), replies, asyncio.Lock(), set())

    handle(match_started=_started(1))
    handle(match_started=_started(2))
    stale = bot_pb2.DecisionRequest(match_id="m-s", request_id="r-1", attempt=1)
    handle(decision_request=stale)
    assert asked == [] and replies == []


def test_the_kit_answers_a_decision_asked_again_as_before_without_asking_the_bot_twice() -> None:
    """A decision whose first request was lost with a gateway comes again with a new request id and the same
    decision number: the kit answers as before, so a seeded bot's random numbers are as in a clean run."""
    asked: list[int] = []

    class Counting(Bot):
        def choose(self, observation: Any, legal: Any) -> int:
            asked.append(1)
            return len(asked) % 2

    client = BotClient("127.0.0.1:1", "t", lambda match_id, seat: Counting())
    match = Match(2, seed=5)
    observation = observation_to_proto(match.observation(match.current or 0))
    legal = [action_to_proto(a) for a in match.legal_actions()]
    replies: list[bot_pb2.BotMessage] = []

    async def scenario() -> None:
        def handle(**payload: Any) -> None:
            client._handle(None, bot_pb2.ArenaMessage(**payload), replies, asyncio.Lock(), set())

        handle(match_started=_started(1))
        for request_id in ("r-1", "r-2"):
            handle(decision_request=bot_pb2.DecisionRequest(match_id="m-s", request_id=request_id, attempt=1,
                                                            decision_number=3, observation=observation,
                                                            legal_actions=legal))
        handle(decision_request=bot_pb2.DecisionRequest(match_id="m-s", request_id="r-3", attempt=1,
                                                        decision_number=4, observation=observation,
                                                        legal_actions=legal))

    asyncio.run(scenario())
    assert len(asked) == 2
    assert [r.decision.request_id for r in replies] == ["r-1", "r-2", "r-3"]
    assert replies[0].decision.action_index == replies[1].decision.action_index == 1
    assert replies[2].decision.action_index == 0


async def _close_relay_hubs() -> None:
    for hub in loop_hubs():
        await hub.close()
