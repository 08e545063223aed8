"""Out-of-turn catches (U1, option uno_penalty "catch"): the runner asks every other seat, not only the one
whose turn it is, and the remote protocol says so with the decision kind CATCH."""

from __future__ import annotations

import random
from collections.abc import Sequence

from prometheus_client import CollectorRegistry

from arena.engine import Action, Match, Observation, Rules
from arena.metrics import create_metrics
from arena.protocol import bot_pb2, cards_pb2, game_pb2
from arena.protocol.encoding import request_body, request_bytes
from arena.runner import LET_GO, DecisionLog, LocalSeat, MatchConfig, MatchRecord, run_match_sync
from arena.service.replays import stored_record
from bots import Bot

CATCH_RULES = Rules(variant="flip", uno_penalty="catch", target=150)


def _missed_call() -> Match:
    """Seat 0 of 4 holds two cards and plays one without the UNO call: a catch window opens."""
    match = Match.from_position(
        4, [["red-5/pink-2", "blue-7/teal-3"], ["yellow-1/orange-1"] * 3, ["green-2/purple-2"] * 3,
            ["green-3/purple-3"] * 3], draw=["yellow-9/teal-9"] * 6, discard=["red-4/pink-4"], current=0,
        rules=CATCH_RULES)
    play = next(a for a in match.legal_actions() if a.kind == "play" and not a.uno and str(a.card).startswith("red"))
    match.apply(0, play)
    return match


def test_the_other_seats_are_offered_the_catch_in_turn_order() -> None:
    match = _missed_call()
    assert match.catchable == 0 and match.current == 1
    assert match.catch_order() == (2, 3)  # seat 1 has the catch in its own legal actions
    assert match.legal_actions(1)[0] == Action("catch", target=0)
    assert match.legal_actions(2) == [Action("catch", target=0)]
    match.apply(3, Action("catch", target=0))
    assert match.catch_order() == () and len(match.hands[0]) == 3


def test_no_window_no_offers() -> None:
    match = Match(players=4, seed=3, rules=CATCH_RULES)
    assert match.catchable is None and match.catch_order() == ()


class OfferSpy(Bot):
    """Random play; catches half the catch offers and records every offer it gets."""

    name = "spy"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.offers: list[tuple[Observation, list[str]]] = []

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        if observation.decision == "catch":
            self.offers.append((observation, [a.kind for a in legal]))
            return self.rng.randrange(2)
        return self.rng.randrange(len(legal))


def test_the_runner_asks_other_seats_and_records_their_catches() -> None:
    out_of_turn = offers_seen = declines = 0
    for seed in range(12):
        bots = [OfferSpy(seed * 10 + i) for i in range(4)]
        config = MatchConfig(f"catch-{seed}", seed, CATCH_RULES, decision_deadline_s=1.0)
        record = run_match_sync(config, [LocalSeat(bot, name=f"spy{i}") for i, bot in enumerate(bots)],
                                metrics=create_metrics(CollectorRegistry()))
        assert record.end_reason == "target", record.detail
        for seat, bot in enumerate(bots):
            for observation, kinds in bot.offers:
                offers_seen += 1
                assert kinds == ["catch", "pass"]
                assert observation.seat == seat != observation.current
        # Every decision is logged; declines are the decisions that are no action of the replay.
        declined = sum(1 for d in record.decisions if not d.applied)
        declines += declined
        assert all(d.action == "pass" for d in record.decisions if not d.applied)
        played = sum(1 for seat, _ in record.replay["actions"] if seat >= 0)
        assert len(record.decisions) == played + declined
        assert [d.applied for d in stored_record(record).decisions()] == [d.applied for d in record.decisions]
        def key(d: DecisionLog) -> tuple[int, str, bool]:
            return d.seat, d.action, d.applied

        assert list(map(key, MatchRecord.from_dict(record.to_dict()).decisions)) == list(map(key, record.decisions))
        # The replay holds the catches (declines are not actions) and rebuilds the same match.
        replayed = Match.from_replay(record.replay)
        assert replayed.scores == record.scores
        rebuilt = Match(players=4, seed=seed, rules=CATCH_RULES)
        for seat, text in record.replay["actions"]:
            action = next((a for a in rebuilt.legal_actions(None if seat < 0 else seat) if str(a) == text), None)
            if text.startswith("catch") and seat != rebuilt.current:
                out_of_turn += 1
            if seat < 0:
                rebuilt.next_round()
            else:
                assert action is not None, (seat, text)
                rebuilt.apply(seat, action)
        assert rebuilt.scores == record.scores
    assert offers_seen > 0 and out_of_turn > 0 and declines > 0


def test_a_catch_offer_travels_as_decision_kind_catch() -> None:
    match = _missed_call()
    legal = [*match.legal_actions(2), LET_GO]
    observation = match.catch_observation(2)
    message = bot_pb2.ArenaMessage.FromString(request_bytes(request_body("m-1", 7, observation, legal), "r-1", 1000, 0))
    request = message.decision_request
    assert request.observation.decision == game_pb2.DECISION_KIND_CATCH
    assert request.observation.current == 1 and request.observation.seat == 2
    kinds = [cards_pb2.ActionKind.Name(action.kind) for action in request.legal_actions]
    assert kinds == ["ACTION_KIND_CATCH", "ACTION_KIND_PASS"]


def test_a_stored_replay_pairs_each_step_with_its_own_decision() -> None:
    """Declined offers are decisions but no steps: the replay view skips them, so every step is paired
    with its own decision (seat, latency, fallback)."""
    from arena.server.api_messages import replay_message

    class Decliner(OfferSpy):
        def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
            return 1 if observation.decision == "catch" else super().choose(observation, legal)  # always declines

    bots = [Decliner(i) for i in range(4)]
    config = MatchConfig("catch-replay", 3, CATCH_RULES, decision_deadline_s=1.0)
    record = run_match_sync(config, [LocalSeat(bot, name=f"s{i}") for i, bot in enumerate(bots)],
                            metrics=create_metrics(CollectorRegistry()))
    stored = stored_record(record)
    assert stored.declined
    replay = replay_message(stored, None, None)
    applied = [d for d in record.decisions if d.applied]
    assert len(replay.steps) == len(applied)
    for step, decision in zip(replay.steps, applied, strict=True):
        assert step.seat == decision.seat
