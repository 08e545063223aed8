"""The match runner without a network: seats, fallbacks, strikes, forfeits, records and metrics."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from prometheus_client import CollectorRegistry

from arena.engine import Action, Match, Observation, Rules, parse_action
from arena.metrics import create_metrics
from arena.players import DecideStatus
from arena.runner import (
    EVICTED_TEXT,
    LocalSeat,
    MatchConfig,
    MatchRecord,
    Seat,
    SeatEvicted,
    SeatGone,
    SeatRequest,
    SeatTimeout,
    fallback_action,
    run_match_sync,
    settle,
)
from bots import Bot, make_bot


class Scripted(Seat):
    """Raises the given exceptions for its first decisions, then answers 0."""

    def __init__(self, name: str, failures: Sequence[type[Exception]] = (), refusals: int = 0) -> None:
        self.name = name
        self.version = "scripted-1"
        self.failures = list(failures)
        self.refusals = refusals
        self.asked = 0

    async def decide(self, request: SeatRequest) -> int:
        self.asked += 1
        if self.refusals:
            request.refusals = self.refusals
            request.refusal_reasons = ["out_of_range: test"] * self.refusals
        if self.failures:
            raise self.failures.pop(0)("scripted")
        return 0


class Broken(Bot):
    name = "broken"

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        return len(legal) + 3


def config(seed: int = 1, **options: object) -> MatchConfig:
    return MatchConfig(f"unit-{seed}", seed, Rules(), **options)  # type: ignore[arg-type]


def test_fallback_is_the_documented_safest_action() -> None:
    def idx(*texts: str) -> int:
        return fallback_action([parse_action(t) for t in texts])

    assert idx("play red-9/teal-6", "draw") == 1
    assert idx("play red-9/teal-6", "pass") == 1
    assert idx("accept", "challenge") == 0
    assert idx("catch 2", "play red-9/teal-6", "draw") == 2
    assert idx("choose_color pink", "choose_color teal") == 0
    assert idx("play red-9/teal-6") == 0
    with pytest.raises(ValueError):
        fallback_action([])


def test_timeouts_then_forfeit_keeps_the_seat_on_fallbacks() -> None:
    seat = Scripted("flaky", [SeatTimeout, SeatGone, SeatTimeout])
    record = run_match_sync(config(3, max_strikes=3), [seat, LocalSeat(make_bot("random", 1))],
                            metrics=create_metrics(None))
    mine = [d for d in record.decisions if d.seat == 0]
    assert [d.outcome for d in mine[:3]] == ["timeout", "fallback", "timeout"]
    assert {d.outcome for d in mine[3:]} == {"forfeited"}
    assert seat.asked == 3  # never asked again after the forfeit
    assert record.strikes[0] == 3 and record.timeouts[0] == 2
    assert record.end_reason == "forfeit" and record.forfeits == [0]
    assert record.detail == "seat 0 (flaky) forfeited: 3 strikes (1 disconnects, 2 timeouts)"
    assert record.winner != 0
    result = record.to_result()
    assert result.forfeits == (0,) and result.strikes == (3, 0)


def test_a_seat_evicted_for_a_rated_match_aborts_the_match_without_a_strike() -> None:
    """A casual match (a game against a person) whose bot was called to a rated match (the transport answers
    ``evicted``): aborted, not scored, nobody struck, the reason told in plain words."""

    class CalledAway(Scripted):
        async def decide(self, request: SeatRequest) -> int:
            if self.asked >= 2:
                settle(request, DecideStatus.EVICTED, None, 0, [], None)
            return await super().decide(request)

    guest = CalledAway("guest")
    record = run_match_sync(config(3), [guest, LocalSeat(make_bot("random", seed=1))])
    assert record.end_reason == "aborted" and record.winner is None
    assert record.strikes == [0, 0] and record.timeouts == [0, 0] and not record.forfeits
    assert record.detail.endswith(EVICTED_TEXT) and guest.asked == 2
    with pytest.raises(SeatEvicted, match="called to a tournament match"):
        settle(SeatRequest("m", 0, 1, Match(players=2, seed=1).observation(0), [], 1.0), DecideStatus.EVICTED, None,
               0, [], None)


def test_a_strike_below_the_limit_is_no_forfeit() -> None:
    record = run_match_sync(config(4, max_strikes=3), [Scripted("once", [SeatTimeout]), LocalSeat(make_bot("random"))],
                            metrics=create_metrics(None))
    assert record.end_reason == "target" and record.forfeits == [] and record.strikes == [1, 0]


def test_refusals_are_recorded_per_decision() -> None:
    record = run_match_sync(config(5), [Scripted("picky", refusals=2), LocalSeat(make_bot("random"))],
                            metrics=create_metrics(None))
    mine = [d for d in record.decisions if d.seat == 0]
    assert all(d.refusals == 2 and d.outcome == "answered" for d in mine)
    assert record.refusals[0] == 2 * len(mine)


def test_a_broken_local_bot_is_refused_and_struck() -> None:
    record = run_match_sync(config(6, max_strikes=2), [LocalSeat(Broken()), LocalSeat(make_bot("random"))],
                            metrics=create_metrics(None))
    assert record.forfeits == [0] and record.end_reason == "forfeit"
    assert record.decisions[0].reasons[0].startswith("error: index")
    mine = [d for d in record.decisions if d.seat == 0]
    assert [d.outcome for d in mine[:2]] == ["error", "error"]  # a bot that raises is no timeout
    assert record.timeouts[0] == 0 and record.strikes[0] == 2
    assert record.detail == "seat 0 (broken) forfeited: 2 strikes (2 errors)"


def test_record_round_trips_through_json_and_replays() -> None:
    seats = [LocalSeat(make_bot("heuristic", 1)), LocalSeat(make_bot("random", 2))]
    record = run_match_sync(config(7, tournament_id="t-1", group="g-1"), seats, metrics=create_metrics(None))
    again = MatchRecord.from_dict(json.loads(json.dumps(record.to_dict())))
    assert again.to_dict() == record.to_dict()
    assert again.decisions[5].action == record.decisions[5].action
    assert Match.from_replay(record.replay).scores == record.scores
    assert record.seed == 7 and record.tournament_id == "t-1" and record.group == "g-1"
    assert len(record.decisions) == len([a for a in record.replay["actions"] if a[0] >= 0])


def test_same_seed_same_match() -> None:
    def play() -> MatchRecord:
        return run_match_sync(config(8), [LocalSeat(make_bot("heuristic", 1)), LocalSeat(make_bot("random", 2))],
                              metrics=create_metrics(None))

    assert play().replay == play().replay


def test_metrics_count_decisions_latency_and_matches() -> None:
    metrics = create_metrics(CollectorRegistry())
    seats = [Scripted("counted", [SeatTimeout]), LocalSeat(make_bot("random"))]
    record = run_match_sync(config(9), seats, metrics=metrics)
    registry = metrics.registry
    assert registry is not None
    answered = registry.get_sample_value("uno_arena_decisions_total", {"bot": "counted", "outcome": "answered"})
    timeouts = registry.get_sample_value("uno_arena_decisions_total", {"bot": "counted", "outcome": "timeout"})
    mine = [d for d in record.decisions if d.seat == 0]
    assert answered == len(mine) - 1 and timeouts == 1
    assert registry.get_sample_value("uno_arena_decision_latency_seconds_count", {"bot": "counted"}) == len(mine)
    assert registry.get_sample_value("uno_arena_matches_total", {"variant": "flip", "reason": "target"}) == 1
    assert registry.get_sample_value("uno_arena_strikes_total", {"bot": "counted"}) == 1


def test_config_is_checked() -> None:
    with pytest.raises(ValueError):
        MatchConfig("", 1, Rules())
    with pytest.raises(ValueError):
        MatchConfig("m", 1, Rules(), decision_deadline_s=0)
    with pytest.raises(ValueError):
        MatchConfig("m", 1, Rules(), max_strikes=0)


@pytest.mark.parametrize(("variant", "players", "seed"), [("flip", 2, 3), ("flip", 4, 9), ("classic", 3, 5)])
def test_the_runner_keeps_every_rounds_hands_as_the_replay_has_them(variant: str, players: int, seed: int) -> None:
    """The hands are taken while the match runs (at each deal and round end), never by replaying it afterwards."""
    from arena.engine.hands import round_hands
    from arena.runner.record import hands_to_json

    seats = [LocalSeat(make_bot("heuristic" if i % 2 else "random", i + 1)) for i in range(players)]
    record = run_match_sync(MatchConfig(f"hands-{seed}", seed, Rules(variant=variant, target=200)), seats,
                            metrics=create_metrics(None))
    assert record.hands is not None and len(record.hands) == record.rounds
    assert record.hands == hands_to_json(round_hands(record.replay))
