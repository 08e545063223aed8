"""Engine <-> protocol conversions on real matches: every legal action and every seat's observation
round-trips through the messages (and their wire bytes), and the engine accepts the converted actions."""

from __future__ import annotations

import dataclasses
import random

import pytest

from arena.engine import ACTION_KINDS, DECISIONS, Action, Card, Event, Face, Match, Rules, parse_action
from arena.protocol import bot_pb2, cards_pb2, convert, game_pb2


def _roundtrip_action(action: Action) -> Action:
    msg = convert.action_to_proto(action)
    assert msg.text == str(action)
    assert parse_action(msg.text, "classic" if action.card and action.card.dark is None else "flip") == action
    wire = cards_pb2.Action.FromString(msg.SerializeToString())
    return convert.action_from_proto(wire)


def _check_position(match: Match, since: list[int]) -> None:
    for seat in range(match.players):
        for action in match.legal_actions(seat):
            assert _roundtrip_action(action) == action
        obs = match.observation(seat, since[seat])
        msg = convert.observation_to_proto(obs)
        wire = game_pb2.Observation.FromString(msg.SerializeToString())
        assert convert.observation_from_proto(wire) == obs
        assert len(msg.hand) == len(obs.hand) and msg.seat == seat
        since[seat] = len(match.events)


def _play(players: int, seed: int, rules: Rules, decisions: int) -> Match:
    """Plays a real match with random legal choices, checking every position on the way."""
    rng = random.Random(seed)
    match = Match(players=players, seed=seed, rules=rules)
    since = [0] * players
    for _ in range(decisions):
        _check_position(match, since)
        if match.decision == "match_over":
            break
        if match.decision == "round_over":
            match.next_round()
            continue
        movers = [seat for seat in range(players) if match.legal_actions(seat)]
        seat = rng.choice(movers)
        action = rng.choice(match.legal_actions(seat))
        # The engine gets the action back from its message, as the gateway will hand it over.
        events = match.apply(seat, convert.action_from_proto(convert.action_to_proto(action)))
        for event in events:
            assert convert.event_from_proto(convert.event_to_proto(event)) == event
    return match


@pytest.mark.slow
@pytest.mark.parametrize(
    ("players", "seed", "rules"),
    [
        (2, 1, Rules()),
        (4, 7, Rules()),
        (3, 11, Rules(uno_penalty="catch", target=100)),
        (5, 3, Rules(variant="classic", target=100)),
        (2, 5, Rules(variant="classic", uno_penalty="catch", bluffing=False)),
        (10, 9, Rules(pairing="shuffled", start_flip="flip", scoring="lowest", target=150)),
    ],
)
def test_real_matches_round_trip(players: int, seed: int, rules: Rules) -> None:
    match = _play(players, seed, rules, decisions=700)
    assert match.round_number >= 1


def test_a_long_flip_match_reaches_the_dark_side_and_round_ends() -> None:
    """Covers dark faces, revealed hands (V5) and winners, so those fields are converted too."""
    seen_dark = seen_revealed = False
    for seed in range(20):
        match = _play(3, seed, Rules(target=60), decisions=400)
        obs = match.observation(0)
        seen_dark |= any(e.type == "flip" for e in match.events) or obs.side == "dark"
        if match.decision in ("round_over", "match_over"):
            msg = convert.observation_to_proto(obs)
            seen_revealed |= any(len(view.revealed) for view in msg.opponents)
            assert msg.HasField("round_winner")
            assert not msg.HasField("current") or obs.current is not None
        if seen_dark and seen_revealed:
            break
    assert seen_dark and seen_revealed


def test_classic_messages_leave_the_dark_face_and_draw_top_unset() -> None:
    match = Match(players=3, seed=4, rules=Rules(variant="classic"))
    msg = convert.observation_to_proto(match.observation(1))
    assert msg.variant == game_pb2.VARIANT_CLASSIC
    assert not msg.HasField("draw_top")
    assert all(not card.HasField("dark") and card.text == card.light.text for card in msg.hand)
    assert all(len(view.visible) == 0 for view in msg.opponents)


def test_message_fields_carry_the_notation() -> None:
    card = Card(Face(None, "wild"), Face("pink", "4"))
    msg = convert.action_to_proto(Action("play", card, "blue", True))
    assert msg.kind == cards_pb2.ACTION_KIND_PLAY
    assert msg.text == "play wild/pink-4 color=blue uno"
    assert (msg.card.text, msg.card.light.color, msg.card.light.kind) == ("wild/pink-4", "", "wild")
    assert (msg.card.dark.color, msg.card.dark.kind, msg.card.dark.text) == ("pink", "4", "pink-4")
    assert not msg.HasField("target")
    catch = convert.action_to_proto(Action("catch", target=0))
    assert catch.HasField("target") and catch.target == 0 and catch.text == "catch 0"
    assert convert.action_from_proto(catch) == Action("catch", target=0)
    event = Event("draw", seat=0, count=2, faces=(Face("teal", "5"),), detail="U1")
    emsg = convert.event_to_proto(event)
    assert emsg.seat == 0 and emsg.HasField("seat") and not emsg.HasField("target")
    assert emsg.text == str(event)


def test_cached_messages_are_never_shared() -> None:
    face = Face("red", "7")
    first = convert.face_to_proto(face)
    first.text = "mutated"
    assert convert.face_to_proto(face).text == "red-7"
    card = Card(face, Face("teal", "6"))
    msg = convert.card_to_proto(card)
    msg.light.kind = "9"
    assert convert.card_to_proto(card).light.kind == "7"
    assert convert.card_from_proto(convert.card_to_proto(card)) == card


def test_every_engine_kind_and_decision_has_an_enum_value() -> None:
    assert set(ACTION_KINDS) <= set(convert.ACTION_KIND_TO_PROTO)
    assert set(DECISIONS) <= set(convert.DECISION_TO_PROTO)
    assert set(convert.VARIANT_TO_PROTO) == {"flip", "classic"}
    assert set(convert.SIDE_TO_PROTO) == {"light", "dark"}
    assert set(convert.DIRECTION_TO_PROTO) == {"cw", "ccw"}


def test_every_rule_option_is_in_the_contract() -> None:
    """A new engine option must get a field in game.proto's Rules (or be listed as not in the proto)."""
    names = {f.name for f in dataclasses.fields(Rules)} - set(convert.RULES_NOT_IN_PROTO)
    assert names == set(game_pb2.Rules.DESCRIPTOR.fields_by_name)


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(variant="classic", bluffing=False, uno_penalty="catch", target=1, scoring="lowest"),
        Rules(start_flip="flip", pairing="shuffled", max_decisions_per_round=50),
    ],
)
def test_rules_round_trip(rules: Rules) -> None:
    msg = convert.rules_to_proto(rules)
    assert all(msg.HasField(name) for name in ("bluffing", "target", "max_decisions_per_round"))
    assert convert.rules_from_proto(game_pb2.Rules.FromString(msg.SerializeToString())) == rules


def test_unset_rules_take_the_engine_defaults() -> None:
    assert convert.rules_from_proto(game_pb2.Rules()) == Rules()
    assert convert.rules_from_proto(game_pb2.Rules(bluffing=False)) == Rules(bluffing=False)


def test_invalid_messages_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="target"):
        convert.rules_from_proto(game_pb2.Rules(target=0))
    with pytest.raises(ValueError, match="variant"):
        convert.rules_from_proto(game_pb2.Rules(variant=99))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="action kind"):
        convert.action_from_proto(cards_pb2.Action())
    with pytest.raises(ValueError, match="needs a card"):
        convert.action_from_proto(cards_pb2.Action(kind=cards_pb2.ACTION_KIND_PLAY))
    with pytest.raises(ValueError, match="light face"):
        convert.card_from_proto(cards_pb2.Card(text="x"))
    with pytest.raises(ValueError, match="top"):
        convert.observation_from_proto(game_pb2.Observation())


def test_decision_request_error_and_choice() -> None:
    match = Match(players=2, seed=3, rules=Rules())
    seat = match.current
    assert seat is not None
    legal = match.legal_actions()
    request = convert.decision_request(
        match_id="m-1", request_id="r-1", observation=match.observation(seat), legal_actions=legal,
        time_limit_ms=1000, deadline_unix_ms=1_700_000_000_000, decision_number=1,
    )
    envelope = bot_pb2.ArenaMessage(decision_request=request)
    decoded = bot_pb2.ArenaMessage.FromString(envelope.SerializeToString())
    assert decoded.WhichOneof("payload") == "decision_request"
    assert [a.text for a in decoded.decision_request.legal_actions] == [str(a) for a in legal]
    assert convert.action_from_proto(decoded.decision_request.legal_actions[-1]) == legal[-1]
    error = convert.error_message(3, "match m-1, decision 1: action_index 9 is out of range", match_id="m-1",
                                  request_id="r-1")
    assert error.status.code == 3 and "decision 1" in error.status.message and error.request_id == "r-1"
