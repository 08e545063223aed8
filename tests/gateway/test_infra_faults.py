"""Infrastructure faults are not the bot's (issue 13, item 2): a decision the arena could not get to the bot
(:class:`SeatUnreachable`: gateway gone, Redis unreachable, relay lost) is no strike and no timeout; the runner asks
again until the bot is back within ``infra_grace_s``, else the match is aborted (not scored, played again)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from arena.engine import Rules
from arena.metrics import DECISION_OUTCOMES
from arena.relay import RelaySeat
from arena.runner import (
    DecisionOutcome,
    EndReason,
    LocalSeat,
    MatchConfig,
    MatchRecord,
    Seat,
    SeatGone,
    SeatRequest,
    SeatUnreachable,
    run_match,
)
from arena.service.replays import stored_record
from arena.store import Store
from bots import HeuristicBot, RandomBot
from tests.support import free_port
from tests.support.seats import RestartAt


class FlakySeat(Seat):
    """A deterministic bot behind a transport that fails: from decision ``first`` on, the arena cannot reach it
    (``faults`` times per affected decision, or forever with ``faults=None``), then (optionally) it finds no
    session a few times while it reconnects (``gone_after``), then answers."""

    def __init__(self, first: int = 0, faults: int | None = 3, decisions: int = 1, gone_after: int = 0) -> None:
        self.bot = RandomBot(seed=7)
        self.name, self.version = "flaky", "1"
        self.first, self.faults, self.decisions, self.gone_after = first, faults, decisions, gone_after
        self.asked: dict[int, int] = {}
        self.affected = 0

    async def decide(self, request: SeatRequest) -> int:
        tries = self.asked[request.decision_number] = self.asked.get(request.decision_number, 0) + 1
        if request.decision_number >= self.first and (self.affected < self.decisions or tries > 1):
            if tries == 1:
                self.affected += 1
            if self.faults is None or tries <= self.faults:
                raise SeatUnreachable("cannot reach Redis: connection refused")
            if tries <= self.faults + self.gone_after:
                raise SeatGone("the bot has not reconnected yet")
        return self.bot.choose(request.observation, request.legal)


def _config(grace: float = 5.0) -> MatchConfig:
    return MatchConfig("infra-1", 21, Rules(), decision_deadline_s=1.0, infra_grace_s=grace)


def _play(seat: Seat, grace: float = 5.0) -> MatchRecord:
    return asyncio.run(run_match(_config(grace), [seat, LocalSeat(HeuristicBot(seed=3), name="heuristic")]))


def test_a_seat_unreachable_for_a_while_is_asked_again_no_strike_same_result() -> None:
    clean = _play(FlakySeat(faults=0, decisions=0))
    flaky = FlakySeat(first=5, faults=3, decisions=4, gone_after=2)
    record = _play(flaky, grace=1.0)  # tries every 0.1 s; the answer comes after 0.5 s
    assert record.end_reason is clean.end_reason is not EndReason.ABORTED
    assert record.replay == clean.replay and record.scores == clean.scores and record.winner == clean.winner
    assert record.strikes == [0, 0] and record.timeouts == [0, 0] and record.forfeits == []
    outcomes = [d.outcome for d in record.decisions if d.seat == 0]
    assert outcomes.count(DecisionOutcome.UNREACHABLE) == 4 and set(outcomes) == {"answered", "unreachable"}
    assert max(flaky.asked.values()) == 6  # three unreachable, two not reconnected yet, then the answer
    # The record says which happened, in the stored replay too.
    assert [d.outcome for d in stored_record(record).decisions()].count("unreachable") == 4
    assert "unreachable" in DECISION_OUTCOMES


def test_a_seat_that_never_comes_back_aborts_the_match_no_strike_no_forfeit() -> None:
    record = _play(FlakySeat(first=3, faults=None), grace=0.3)
    assert record.end_reason is EndReason.ABORTED and record.winner is None
    assert record.strikes == [0, 0] and record.timeouts == [0, 0] and record.forfeits == []
    assert "infrastructure fault" in record.detail and "grace 0.3 s" in record.detail
    assert not record.to_result().end_reason.scored


def test_a_seat_without_a_session_from_the_start_is_still_the_bots_fault() -> None:
    class Gone(Seat):
        name = "gone"

        async def decide(self, request: SeatRequest) -> int:
            raise SeatGone("no session")

    record = _play(Gone())
    assert record.end_reason is EndReason.FORFEIT and record.strikes[0] == 3


@pytest.mark.integration
def test_the_relay_seat_says_unreachable_when_redis_is_down() -> None:
    store = Store.from_url(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    try:
        seat = RelaySeat(store, "remote")
        request = SeatRequest("m", 0, 1, None, [], 1.0)  # type: ignore[arg-type]
        with pytest.raises(SeatUnreachable, match="cannot reach Redis"):
            asyncio.run(seat.decide(request))
    finally:
        store.close()


def test_a_gateway_lost_mid_match_is_no_strike_and_the_match_ends_as_a_clean_run(redis_server: Any) -> None:
    """The bot's gateway stops mid-match (a relayed decision goes unanswered) and a new one starts on its address;
    the kit bot reconnects there, the decision is asked again: no strike, the same play as a clean run."""
    from arena.store import Store
    from bots.kit import match_seed
    from tests.support.bots import ThreadBot
    from tests.support.gateway import GatewayHarness

    gateways = [GatewayHarness(redis_server.url)]
    token = gateways[0].register_bot("kitbot")
    bot = ThreadBot(gateways[0].address, token)
    bot.client.factory = lambda match_id, seat: RandomBot(seed=match_seed(match_id, seat))
    store = Store.from_url(redis_server.url)
    config = MatchConfig("infra-gw", 5, Rules(target=150), decision_deadline_s=1.0, infra_grace_s=20.0)

    def restart() -> None:
        address = gateways[-1].address
        gateways[-1].close()
        gateways.append(GatewayHarness(redis_server.url, address=address))

    async def play(restart_at: int | None) -> MatchRecord:
        remote: Seat = RelaySeat(store, "kitbot")
        if restart_at is not None:
            remote = RestartAt(remote, restart_at, restart)  # type: ignore[arg-type]
        return await run_match(config, [remote, LocalSeat(HeuristicBot(seed=3), name="heuristic")])

    try:
        gateways[0].wait_for_bot("kitbot", 10)
        clean = asyncio.run(play(None))
        assert clean.strikes == [0, 0] and clean.end_reason is not EndReason.ABORTED
        faulty = asyncio.run(play(10))
        assert len(gateways) == 2
        assert faulty.strikes == [0, 0] and faulty.timeouts == [0, 0] and faulty.forfeits == []
        assert faulty.replay == clean.replay and faulty.scores == clean.scores and faulty.winner == clean.winner
        assert DecisionOutcome.UNREACHABLE in [d.outcome for d in faulty.decisions]
    finally:
        bot.stop()
        store.close()
        for gateway in gateways:
            gateway.close()
