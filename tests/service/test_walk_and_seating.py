"""The one replay walk (round changes re-inserted or kept) and the one participant->seat rule."""

from __future__ import annotations

import pytest

from arena.engine import Match, Rules
from arena.engine.actions import NEXT_ROUND
from arena.engine.walk import WalkError, walk
from arena.runner import LocalSeat
from arena.service.replays import engine_actions
from arena.service.seating import UnreachableParticipant, bot_seed, make_seat, seat_for
from arena.store import EngineReplay
from bots import make_bot


def played(seed: int = 7) -> Match:
    match = Match(players=3, seed=seed, rules=Rules())
    bots = [make_bot("heuristic", seed + i) for i in range(3)]
    while match.decision != "match_over":
        if match.decision == "round_over":
            match.next_round()
            continue
        seat = match.current
        assert seat is not None
        legal = match.legal_actions(seat)
        match.apply(seat, legal[bots[seat].choose(match.observation(seat, 0), legal)])
    return match


def test_the_walk_rebuilds_a_match_with_or_without_its_round_changes() -> None:
    original = played()
    replay = original.replay()
    assert original.round_number > 1  # the walk has round changes to make
    engine = EngineReplay.from_dict(replay)
    actions = engine_actions(engine)
    kept = Match(players=3, seed=engine.seed, rules=Rules.from_dict(engine.rules))
    steps = list(walk(kept, actions))
    bare = Match(players=3, seed=engine.seed, rules=Rules.from_dict(engine.rules))
    decisions = [(seat, action) for seat, action in actions if seat is not None]
    reinserted = list(walk(bare, decisions))
    assert [(s.number, s.seat, s.action, s.start) for s in steps] == [
        (s.number, s.seat, s.action, s.start) for s in reinserted]
    assert kept.events == bare.events == original.events and bare.scores == original.scores
    changes = [s for s in reinserted if s.round_change]
    assert len(changes) == original.round_number - 1 and all(s.action == NEXT_ROUND for s in changes)
    assert reinserted[-1].number == len(decisions)


def test_the_walk_names_the_decision_the_engine_refuses() -> None:
    engine = EngineReplay.from_dict(played().replay())
    decisions = [(seat, action) for seat, action in engine_actions(engine) if seat is not None]
    wrong = (decisions[3][0] + 1) % 3
    bad = [*decisions[:3], (wrong, decisions[3][1])]
    with pytest.raises(WalkError) as caught:
        list(walk(Match(players=3, seed=engine.seed, rules=Rules.from_dict(engine.rules)), bad))
    assert caught.value.number == 4 and caught.value.seat == wrong


def test_a_seat_for_each_kind_of_participant() -> None:
    seat = make_seat(None, "random#2", "t-1.m0", make_bot)
    assert isinstance(seat, LocalSeat) and seat.name == "random#2" and seat.bot.name == "random"
    same = make_bot("random", bot_seed("t-1.m0", "random#2"))
    observed = Match(players=2, seed=3)
    legal = observed.legal_actions(observed.current or 0)
    view = observed.observation(observed.current or 0, 0)
    assert [seat.bot.choose(view, legal) for _ in range(5)] == [same.choose(view, legal) for _ in range(5)]
    with pytest.raises(UnreachableParticipant, match="set REDIS_URL"):
        seat_for("alpha", seed=0, make_bot=make_bot)
