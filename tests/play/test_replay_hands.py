"""Replays with hands: the record keeps every round's hands (dealt, shown at its end), the omniscient replay shows
them all, a seat's replay its own dealt hands and everyone's at a round's end, and `uno-arena replay` prints them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.commands.tournaments import replay_text
from arena.engine import Card, Rules
from arena.engine.hands import round_hands
from arena.runner import LocalSeat, MatchConfig, MatchRecord, run_match_sync
from arena.runner.record import hands_to_json
from arena.server.api_messages import replay_message
from arena.service.replays import DEALT, HAND_EVENT, SHOWN, replay_steps, stored_record
from arena.store import Replay
from bots import make_bot


def record_of(rules: Rules, players: int, seed: int) -> MatchRecord:
    kinds = ["heuristic" if seat % 2 else "random" for seat in range(players)]
    seats = [LocalSeat(make_bot(kind, seed=seed + seat), name=f"{kind}{seat}") for seat, kind in enumerate(kinds)]
    return run_match_sync(MatchConfig(f"m-{seed}", seed, rules), seats)


@pytest.fixture(scope="module")
def record() -> MatchRecord:
    made = record_of(Rules(variant="flip", target=250), 3, 31)
    assert made.rounds >= 2
    return made


def hand_events(record: Replay, viewer: int | None) -> list[Any]:
    walk = replay_steps(record, viewer)
    events = [*walk.opening, *(event for step in walk.steps for event in step.events)]
    return [event for event in events if event.type == HAND_EVENT]


def test_the_record_keeps_every_round_s_hands(record: MatchRecord) -> None:
    rounds = round_hands(record.replay)
    assert record.hands == hands_to_json(rounds) and len(rounds) == record.rounds
    stored = stored_record(record)
    assert stored.hands == hands_to_json(rounds)
    assert json.loads(json.dumps(stored.to_dict()))["hands"] == stored.hands  # JSON-ready
    full = record.to_dict()
    assert full["hands"] == stored.hands
    again = MatchRecord.from_dict(json.loads(json.dumps(full)))
    assert again.hands == stored.hands




def test_the_omniscient_replay_shows_every_hand(record: MatchRecord) -> None:
    events = hand_events(stored_record(record), None)
    rounds = round_hands(record.replay)
    dealt = [e for e in events if e.detail == DEALT]
    shown = [e for e in events if e.detail == SHOWN]
    assert [(e.seat, e.cards) for e in dealt] == [(s, h) for r in rounds for s, h in enumerate(r.dealt)]
    assert [(e.seat, e.cards) for e in shown] == [(s, h) for r in rounds if r.shown for s, h in enumerate(r.shown)]


@pytest.mark.parametrize("viewer", [0, 1, 2])
def test_a_seat_s_replay_shows_its_own_dealt_hands_and_every_hand_at_round_end(record: MatchRecord,
                                                                              viewer: int) -> None:
    stored = stored_record(record)
    events = hand_events(stored, viewer)
    rounds = round_hands(record.replay)
    assert [(e.seat, e.cards) for e in events if e.detail == DEALT] == [(viewer, r.dealt[viewer]) for r in rounds]
    assert [(e.seat, e.cards) for e in events if e.detail == SHOWN] == [
        (s, h) for r in rounds if r.shown for s, h in enumerate(r.shown)]
    own: set[Card] = {c for r in rounds for c in r.dealt[viewer]}
    assert {c for e in events if e.detail == DEALT for c in e.cards} == own  # no other seat's dealt cards


def test_uno_arena_replay_prints_the_hands(record: MatchRecord) -> None:
    stored = stored_record(record)
    first = round_hands(record.replay)[0]
    text = replay_text(replay_message(stored, None, None))
    dealt = ",".join(map(str, first.dealt[1]))
    assert f"hand seat=1 count=7 cards={dealt} {DEALT}" in text
    seat_text = replay_text(replay_message(stored, None, 0))
    assert f"cards={dealt} {DEALT}" not in seat_text  # another seat's dealt hand
    own = ",".join(map(str, first.dealt[0]))
    assert f"hand seat=0 count=7 cards={own} {DEALT}" in seat_text
    assert first.shown is not None
    loser = next(seat for seat, hand in enumerate(first.shown) if seat != 0 and hand)
    shown = ",".join(map(str, first.shown[loser]))
    assert f"hand seat={loser} count={len(first.shown[loser])} cards={shown} {SHOWN}" in seat_text
