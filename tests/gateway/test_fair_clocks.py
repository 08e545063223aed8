"""Fair clocks for remote bots (issue 16, item 5; issue 23, item 5), with an artificially delayed client over real
gRPC: lag compensation from the kernel's round trip of the stream's connection (never from the bot's own Pong
timing), capped and recorded per decision, and a time bank per match (time over the deadline comes out of it until
it is empty)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator

import pytest

from arena.engine import Rules
from arena.protocol import bot_pb2
from arena.runner import MatchConfig, MatchRecord
from arena.service.replays import stored_record
from tests.support.bots import RawBot, play_raw
from tests.support.gateway import GatewayHarness, running_gateway
from tests.support.waiting import wait_until

DELAY_S = 0.08
"""The delayed client's uplink: every message it sends reaches the arena this much later."""


class DelayedBot:
    """A raw bot whose every message (Pong or Decision) reaches the arena ``delay_s`` after it was written, as over
    a slow network; it answers each request with the first legal action after ``think_s``."""

    def __init__(self, address: str, token: str, *, delay_s: float, think_s: float = 0.0) -> None:
        self.raw = RawBot(address, token)
        self.delay_s, self.think_s = delay_s, think_s
        self._uplink: queue.Queue[tuple[float, bot_pb2.BotMessage] | None] = queue.Queue()
        self._stop = threading.Event()
        threading.Thread(target=self._send_late, daemon=True).start()
        self.raw.hello(capacity=4)
        play_raw(self.raw, self._answer, self._stop, send=self._later)

    def _answer(self, _request: bot_pb2.DecisionRequest) -> list[int]:
        time.sleep(self.think_s)
        return [0]

    def _later(self, message: bot_pb2.BotMessage) -> None:
        self._uplink.put((time.monotonic() + self.delay_s, message))

    def _send_late(self) -> None:
        while (item := self._uplink.get()) is not None:
            due, message = item
            time.sleep(max(0.0, due - time.monotonic()))
            self.raw.send(message)

    def close(self) -> None:
        self._stop.set()
        self._uplink.put(None)
        self.raw.close()


@pytest.fixture
def gw() -> Iterator[GatewayHarness]:
    with running_gateway(heartbeat_interval_s=0.2) as harness:
        yield harness


def _play(gw: GatewayHarness, name: str, config: MatchConfig) -> MatchRecord:
    from arena.runner import LocalSeat, run_match
    from bots import make_bot

    seats = [gw.seats([name])[0], LocalSeat(make_bot("random", seed=3))]
    return gw.run(run_match(config, seats), 120)


def _far_bot(gw: GatewayHarness, name: str, **options: float) -> DelayedBot:
    bot = DelayedBot(gw.address, gw.register_bot(name), **options)
    gw.wait_for_bot(name)
    session = gw.server.gateway.registry.link(name).session
    assert session is not None
    wait_until(lambda: len(session.round_trips) >= 2, 10, "two Ping -> Pong round trips measured")
    assert DELAY_S <= min(session.round_trips) < DELAY_S + 0.1
    return bot


def _kernel_says(monkeypatch: pytest.MonkeyPatch, rtt_s: float) -> None:
    """Every connection's kernel round trip reads ``rtt_s`` (as over a network ``rtt_s`` long: loopback has none)."""
    from arena.server.gateway import bot_sessions, transport

    def measured(port: int) -> dict[transport.Peer, float]:
        return {peer: rtt_s for peer in transport.tcp_round_trips(port)}

    monkeypatch.setattr(bot_sessions, "tcp_round_trips", measured)


@pytest.mark.integration
def test_lag_compensation_keeps_a_far_bot_in_time_and_is_recorded(gw: GatewayHarness,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _kernel_says(monkeypatch, DELAY_S)
    bot = _far_bot(gw, "far", delay_s=DELAY_S)
    try:
        rules = Rules(target=60)
        fair = _play(gw, "far", MatchConfig("lag-on", 5, rules, decision_deadline_s=0.05, lag_compensation_cap_s=0.25))
        unfair = _play(gw, "far", MatchConfig("lag-off", 5, rules, decision_deadline_s=0.05,
                                              lag_compensation_cap_s=0.0))
    finally:
        bot.close()
    asked = [d for d in fair.decisions if d.seat == 0]
    assert fair.timeouts[0] == 0 and fair.strikes[0] == 0, fair.detail
    assert asked and all(d.lag_ms == pytest.approx(DELAY_S * 1000) for d in asked)  # the kernel's, not the Pongs'
    stored = stored_record(fair).decisions()  # the lag compensation is kept in the replay
    compensated = {i for i, d in enumerate(stored) if d.lag_ms or d.bank_ms}
    assert compensated == {i for i, d in enumerate(fair.decisions) if d.seat == 0}
    # The same bot without lag compensation: every answer comes after the deadline.
    assert unfair.timeouts[0] >= 1 and 0 in unfair.forfeits
    assert all(d.lag_ms == 0 for d in unfair.decisions)


@pytest.mark.integration
def test_slow_pongs_earn_no_lag_compensation(gw: GatewayHarness) -> None:
    """A bot whose messages leave late (its Pongs too) is as far as the kernel says: loopback, no time at all."""
    bot = _far_bot(gw, "stretcher", delay_s=DELAY_S)
    session = gw.server.gateway.registry.link("stretcher").session
    assert session is not None and session.transport_rtt_s is not None
    assert session.transport_rtt_s < DELAY_S / 4 and session.lag_s == session.transport_rtt_s
    try:
        record = _play(gw, "stretcher", MatchConfig("stretch", 5, Rules(target=60), decision_deadline_s=0.05,
                                                    lag_compensation_cap_s=0.25))
    finally:
        bot.close()
    assert record.timeouts[0] >= 1 and 0 in record.forfeits
    assert all(d.lag_ms < DELAY_S * 1000 / 4 for d in record.decisions)


@pytest.mark.integration
def test_the_time_bank_pays_for_slow_decisions_until_it_is_empty(gw: GatewayHarness) -> None:
    bot = DelayedBot(gw.address, gw.register_bot("ponder"), delay_s=0.0, think_s=0.08)
    gw.wait_for_bot("ponder")
    try:
        config = MatchConfig("bank", 7, Rules(target=60), decision_deadline_s=0.05, lag_compensation_cap_s=0.0,
                             time_bank_s=0.3)
        record = _play(gw, "ponder", config)
        without = _play(gw, "ponder", MatchConfig("no-bank", 7, Rules(target=60), decision_deadline_s=0.05,
                                                  lag_compensation_cap_s=0.0))
    finally:
        bot.close()
    asked = [d for d in record.decisions if d.seat == 0 and d.outcome != "forfeited"]
    paid = [d for d in asked if d.outcome == "answered"]
    # Each answer came about 30 ms late: the bank paid for several of them, then ran out.
    assert len(paid) >= 4 and all(d.bank_ms > 0 for d in paid)
    assert sum(d.bank_ms for d in asked) == pytest.approx(300.0, abs=1.0)
    assert record.timeouts[0] >= 1 and asked.index(next(d for d in asked if d.outcome == "timeout")) == len(paid)
    # Without a bank the first slow answer is already a timeout.
    first = next(d for d in without.decisions if d.seat == 0)
    assert first.outcome == "timeout" and first.bank_ms == 0


def test_the_clocks_are_checked() -> None:
    for bad in ({"time_bank_s": -1.0}, {"lag_compensation_cap_s": -0.1}, {"lag_compensation_cap_s": 11.0},
                {"time_bank_s": 4000.0}):
        with pytest.raises(ValueError, match=r"time_bank_s|lag_compensation_cap_s"):
            MatchConfig("m", 1, Rules(), **bad)  # type: ignore[arg-type]


def test_a_tournaments_clocks_reach_every_match() -> None:
    from arena.service.matches import match_config
    from arena.tournament import TournamentSpec, schedule

    spec = TournamentSpec("t-clock", ("random", "heuristic"), time_bank_ms=2500, lag_compensation_cap_ms=100)
    match = schedule(spec)[0]
    config = match_config(match)
    assert (config.time_bank_s, config.lag_compensation_cap_s) == (2.5, 0.1)
    assert TournamentSpec.from_dict(spec.to_dict()) == spec
    plain = TournamentSpec("t-plain", ("random", "heuristic"))
    assert TournamentSpec.from_dict(plain.to_dict()) == plain
    assert match_config(schedule(plain)[0]).lag_compensation_cap_s == 0.25
    with pytest.raises(ValueError, match="time_bank_ms"):
        TournamentSpec("t-bad", ("random", "heuristic"), time_bank_ms=-1)


def test_tournament_create_sends_the_clocks() -> None:
    from arena.cli import build_parser
    from arena.commands.tournaments import spec_message

    args = build_parser().parse_args(["tournament", "create", "--bots", "a,b", "--time-bank-ms", "3000",
                                      "--lag-cap-ms", "0"])
    message = spec_message(args)
    assert message.time_bank_ms == 3000 and message.HasField("lag_compensation_cap_ms")
    assert message.lag_compensation_cap_ms == 0
    unset = spec_message(build_parser().parse_args(["tournament", "create", "--bots", "a,b"]))
    assert not unset.HasField("lag_compensation_cap_ms") and unset.time_bank_ms == 0
    with pytest.raises(ValueError, match="--lag-cap-ms must not be negative"):
        spec_message(build_parser().parse_args(["tournament", "create", "--bots", "a,b", "--lag-cap-ms", "-5"]))
