"""The engine's public API: dealing, decisions, refusals that change nothing, determinism and replays."""

from __future__ import annotations

import random

import pytest

from arena.engine import DECISIONS, Action, IllegalAction, Match, Rules, parse_action, parse_card

from .helpers import card_count, play_random, snapshot


def test_match_deals_the_first_round_at_once() -> None:
    match = Match(players=4, seed=7, rules=Rules(variant="flip"))
    first = (match.dealer + 1) % 4
    extra = 1 if match.top.kind == "draw1" else 0  # S4: a draw1 start card hits the first player
    assert [len(hand) for hand in match.hands] == [7 + (extra if seat == first else 0) for seat in range(4)]
    assert len(match.discard) == 1 and len(match.draw) == 112 - 29 - extra
    assert match.decision in ("play", "choose_color")
    assert match.side_name == "light"
    assert match.round_number == 1


def test_classic_deals_108_and_starts_on_a_number() -> None:
    for seed in range(30):
        match = Match(players=3, seed=seed, rules=Rules(variant="classic"))
        assert card_count(match) == 108
        assert match.top.is_number  # C4


def test_start_card_is_never_wild_draw2_or_flip_by_default() -> None:
    for seed in range(200):
        match = Match(players=2, seed=seed)
        assert match.top.kind not in ("wild-draw2", "flip")  # S4


def test_start_flip_option_starts_on_the_dark_side_when_a_flip_is_turned() -> None:
    dark_starts = 0
    for seed in range(300):
        match = Match(players=3, seed=seed, rules=Rules(start_flip="flip"))
        if match.side_name == "dark":
            dark_starts += 1
            assert match.current == (match.dealer + 1) % 3
            assert match.direction_name == "cw"
    assert dark_starts > 0


def test_same_seed_same_match_and_deal_depends_on_seed_and_round_only() -> None:
    a, b = Match(players=4, seed=11), Match(players=4, seed=11)
    assert a.position() == b.position()
    assert Match(players=4, seed=12).position() != a.position()


def test_dealer_passes_left_in_later_rounds() -> None:
    match = Match(players=3, seed=5)
    first = match.dealer
    play_random(match, random.Random(1), rounds=False)
    if match.decision == "round_over":
        match.next_round()
        assert match.dealer == (first + 1) % 3
        assert match.round_number == 2
        assert card_count(match) == 112
        assert match.side_name == "light"


def test_illegal_actions_raise_with_the_rule_id_and_change_nothing() -> None:
    match = Match.from_position(
        2, hands=[["red-2/teal-8", "green-4/purple-3"], ["yellow-1/orange-6"]],
        draw=["red-9/pink-5"], discard=["red-7/orange-1"], current=0)
    before = snapshot(match)
    cases = [
        (1, Action("draw"), "T1"),  # not seat 1's turn
        (0, Action("play", parse_card("green-4/purple-3")), "T1"),  # no match
        (0, Action("play", parse_card("blue-9/teal-4")), "T1"),  # not held
        (0, Action("accept"), "A6"),
        (0, Action("choose_color", color="red"), "F5"),
        (0, Action("play", parse_card("red-2/teal-8"), color="blue"), "T8"),
        (0, Action("pass"), "T1"),
        (0, Action("catch", target=1), "U1"),
        (0, Action("next_round"), "S5"),
        (7, Action("draw"), "T1"),
    ]
    for seat, action, rule in cases:
        with pytest.raises(IllegalAction) as error:
            match.apply(seat, action)
        assert error.value.rule == rule, (action, error.value)
        assert str(error.value).startswith(rule + ":")
        assert snapshot(match) == before


def test_wild_needs_a_colour_of_the_active_side() -> None:
    match = Match.from_position(
        2, hands=[["wild/pink-4", "green-4/purple-3"], ["yellow-1/orange-6"]],
        draw=["red-9/pink-5"], discard=["red-7/orange-1"], current=0)
    with pytest.raises(IllegalAction, match="T8"):
        match.apply(0, Action("play", parse_card("wild/pink-4")))
    with pytest.raises(IllegalAction, match="T2"):
        match.apply(0, Action("play", parse_card("wild/pink-4"), color="pink"))
    match.apply(0, Action("play", parse_card("wild/pink-4"), color="red", uno=True))
    assert match.color == "red" and match.current == 1


def test_bluffing_false_refuses_an_illegal_wild_draw_and_offers_only_accept() -> None:
    rules = Rules(bluffing=False)
    match = Match.from_position(
        3, hands=[["wild-draw2/pink-4", "red-9/teal-2", "blue-6/purple-5"], ["blue-2/pink-1"], ["green-3/orange-2"]],
        draw=["yellow-1/pink-3"] * 3, discard=["red-6/orange-1"], current=0, rules=rules)
    assert all(a.card != parse_card("wild-draw2/pink-4") for a in match.legal_actions())
    with pytest.raises(IllegalAction, match="T3"):
        match.apply(0, Action("play", parse_card("wild-draw2/pink-4"), color="blue"))
    legal = Match.from_position(
        3, hands=[["wild-draw2/pink-4", "blue-6/purple-5"], ["blue-2/pink-1"], ["green-3/orange-2"]],
        draw=["yellow-1/pink-3"] * 3, discard=["red-6/orange-1"], current=0, rules=rules)
    legal.apply(0, Action("play", parse_card("wild-draw2/pink-4"), color="blue", uno=True))
    assert legal.decision == "respond"
    assert [str(a) for a in legal.legal_actions()] == ["accept"]
    with pytest.raises(IllegalAction, match="T3"):
        legal.apply(1, Action("challenge"))


def test_catch_window_opens_and_closes() -> None:
    rules = Rules(uno_penalty="catch")
    match = Match.from_position(
        3, hands=[["red-3/pink-1", "blue-4/teal-2"], ["green-1/orange-1", "yellow-1/purple-4"],
                  ["green-2/teal-6", "yellow-2/orange-8"]],
        draw=["yellow-6/pink-3", "green-7/teal-4", "blue-9/orange-2"], discard=["red-7/purple-5"],
        current=0, rules=rules)
    plays = [a for a in match.legal_actions() if a.kind == "play"]
    assert {a.uno for a in plays} == {True, False}  # the call is a real choice with catch
    match.apply(0, Action("play", parse_card("red-3/pink-1")))
    assert [len(h) for h in match.hands] == [1, 2, 2]
    assert Action("catch", target=0) in match.legal_actions(2)
    with pytest.raises(IllegalAction, match="U1"):
        match.apply(0, Action("catch", target=0))
    match.apply(2, Action("catch", target=0))
    assert [len(h) for h in match.hands] == [3, 2, 2]
    assert match.current == 1  # a catch changes whose turn it is not
    with pytest.raises(IllegalAction, match="nobody to catch"):
        match.apply(2, Action("catch", target=0))


def test_replay_rebuilds_the_identical_match() -> None:
    for variant in ("flip", "classic"):
        match = Match(players=3, seed=99, rules=Rules(variant=variant, target=150))
        play_random(match, random.Random(3))
        rebuilt = Match.from_replay(match.replay())
        assert rebuilt.position() == match.position()
        assert rebuilt.scores == match.scores and rebuilt.match_winner == match.match_winner
        assert rebuilt.events == match.events


def test_parse_action_round_trips_every_legal_action() -> None:
    match = Match(players=4, seed=3)
    rng = random.Random(0)
    for _ in range(300):
        if match.decision in ("round_over", "match_over"):
            break
        for action in match.legal_actions():
            assert parse_action(str(action)) == action
        legal = match.legal_actions()
        match.apply(match.current, legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("text", ["", "jump", "play", "play red-9/teal-6 colour=red", "catch x",
                                  "choose_color mauve", "draw 2"])
def test_malformed_actions_are_named(text: str) -> None:
    with pytest.raises(ValueError, match="malformed action"):
        parse_action(text)


def test_p3_decision_cap_adjudicates_the_lowest_hand() -> None:
    match = Match(players=2, seed=4, rules=Rules(max_decisions_per_round=5))
    play_random(match, random.Random(2), rounds=False)
    assert match.decision in ("round_over", "match_over")
    assert match.round_winner is not None
    assert match.decisions_this_round <= 5


def test_bad_constructor_arguments() -> None:
    with pytest.raises(ValueError, match="players must be 2 to 10"):
        Match(players=11)
    with pytest.raises(ValueError, match="seed must be an integer"):
        Match(players=2, seed="x")
    with pytest.raises(ValueError, match="contradicts"):
        Match.from_position(2, [["red-1/pink-1"], ["red-2/pink-2"]], [], ["red-7/orange-1"], 0, color="blue")
    with pytest.raises(ValueError, match="top card is a wild"):
        Match.from_position(2, [["red-1/pink-1"], ["red-2/pink-2"]], [], ["wild/orange-1"], 0)


@pytest.mark.parametrize(("variant", "players", "direction"), [
    ("flip", 2, "cw"), ("flip", 3, "cw"), ("flip", 4, "ccw"), ("classic", 2, "ccw"), ("classic", 3, "cw")])
def test_last_card_reverse_changes_the_direction_before_the_round_ends(variant: str, players: int,
                                                                        direction: str) -> None:
    """E1 with A3: the reverse still happens, in the state, the events and every seat's observation."""
    reverse, other = ("red-reverse/pink-3", "blue-2/teal-1") if variant == "flip" else ("red-reverse", "blue-2")
    match = Match.from_position(
        players, hands=[[reverse]] + [[other]] * (players - 1), draw=[other], discard=[other.replace("blue", "red")],
        current=0, direction=direction, rules=Rules(variant=variant))
    seen = len(match.events)
    match.apply(0, Action("play", parse_card(reverse, variant)))
    turned = "ccw" if direction == "cw" else "cw"
    assert match.decision == "round_over" and match.round_winner == 0
    assert match.direction_name == turned
    events = [(e.type, e.detail) for e in match.events[seen:]]
    assert events == [("play", ""), ("reverse", turned), ("round_over", "E1")]
    for seat in range(players):
        assert match.observation(seat).direction == turned


def test_last_card_reverse_event_is_logged_like_a_played_reverse() -> None:
    """The last-card reverse is the same effect as an ordinary one: same event, same direction change."""
    others = [["blue-2/teal-1"], ["blue-3/teal-2"]]
    ordinary, last = (
        Match.from_position(3, hands=[hand, *others], draw=["blue-5/teal-5"], discard=["red-7/orange-1"], current=0)
        for hand in (["red-reverse/pink-3", "red-4/pink-4"], ["red-reverse/pink-3"]))
    reverse = parse_card("red-reverse/pink-3")
    by_play = ordinary.apply(0, Action("play", reverse, uno=True))
    by_last_card = last.apply(0, Action("play", reverse))
    assert [e for e in by_play if e.type == "reverse"] == [e for e in by_last_card if e.type == "reverse"]
    assert ordinary.direction == last.direction == -1
    assert ordinary.current == 2 and last.current is None


def _won_by_seat_0(hands: list[list[str]], draw: list[str], discard: list[str], variant: str) -> Match:
    """A position whose round seat 0 ends by playing its one card."""
    match = Match.from_position(2, hands=hands, draw=draw, discard=discard, current=0, rules=Rules(variant=variant))
    match.apply(0, match.legal_actions(0)[0])
    assert match.decision == "round_over" and match.round_winner == 0
    return match


def test_a_position_with_too_few_cards_to_deal_has_no_next_round_and_stays_as_it_was() -> None:
    """S5 after from_position: the match holds only the position's 5 cards, fewer than two hands of 7 and a start
    card: next_round refuses (it raised IndexError half-way through the deal) and changes nothing."""
    match = _won_by_seat_0([["red-1/pink-1"], ["red-2/pink-2", "blue-3/teal-3"]], ["green-4/orange-4"],
                           ["red-7/orange-1"], "flip")
    before = snapshot(match)
    with pytest.raises(IllegalAction, match="S5: there is no next round: the match holds 5 cards, too few to deal "
                                            r"2 hands of 7 and a start card \(at least 15\)") as refused:
        match.next_round()
    assert refused.value.rule == "S5"
    assert snapshot(match) == before


def test_a_position_whose_cards_left_after_the_deal_cannot_start_a_round_has_no_next_round() -> None:
    """S4 (C4): with 15 classic action cards every start card goes back; next_round refuses instead of turning
    start cards back for ever."""
    actions = ["blue-skip", "blue-reverse", "blue-draw2", "green-skip", "green-reverse", "green-draw2", "yellow-skip",
               "yellow-reverse", "yellow-draw2", "wild", "wild-draw4", "red-draw2", "red-skip"]
    match = _won_by_seat_0([["red-skip"], actions], [], ["red-reverse"], "classic")
    before = snapshot(match)
    with pytest.raises(IllegalAction, match="none of the cards left after the deal may stay as the start card"):
        match.next_round()
    assert snapshot(match) == before


def test_a_position_holding_a_whole_deck_deals_the_next_round() -> None:
    deck = [str(card) for card in Match(players=2, seed=0, rules=Rules(variant="classic")).cards]
    for card in ("red-1", "red-5", "blue-2"):
        deck.remove(card)
    match = _won_by_seat_0([["red-1"], ["blue-2"]], deck, ["red-5"], "classic")
    match.next_round()
    assert match.round_number == 2 and card_count(match) == 108
    assert [len(hand) for hand in match.hands] == [7, 7] and match.top.is_number


# --------------------------------------------------------------------------------------------------------------
# U1 catch window: Match.catch_order and Match.catch_observation
# --------------------------------------------------------------------------------------------------------------

def _missed_uno(players: int, direction: str = "cw", card: str = "red-3/pink-1", side: str = "light",
                top: str = "red-7/purple-5", uno_penalty: str = "catch") -> Match:
    """Seat 0 plays `card` and keeps one card without calling UNO."""
    hands = [[card, "blue-4/teal-2"]] + [["green-1/orange-1", "yellow-1/purple-4"]] * (players - 1)
    match = Match.from_position(players, hands=hands, draw=["yellow-6/pink-3", "green-7/teal-4", "blue-9/orange-2"],
                                discard=[top], current=0, direction=direction, side=side,
                                rules=Rules(uno_penalty=uno_penalty))
    assert match.catch_order() == ()
    match.apply(0, Action("play", parse_card(card)))
    return match


@pytest.mark.parametrize(("players", "direction", "current", "order"), [
    (3, "cw", 1, (2,)), (3, "ccw", 2, (1,)), (4, "cw", 1, (2, 3)), (4, "ccw", 3, (2, 1)), (5, "ccw", 4, (3, 2, 1)),
    (2, "cw", 1, ()),  # two players: the only other seat is the one to decide; its own legal actions hold the catch
])
def test_catch_order_is_every_other_seat_in_turn_order_after_the_seat_to_decide(
        players: int, direction: str, current: int, order: tuple[int, ...]) -> None:
    match = _missed_uno(players, direction)
    assert match.catchable == 0 and match.current == current
    assert match.catch_order() == order
    for seat in order:
        assert match.legal_actions(seat) == [Action("catch", target=0)]
    assert Action("catch", target=0) in match.legal_actions(current)


def test_catch_order_follows_the_card_just_played() -> None:
    skipped = _missed_uno(4, card="red-skip/pink-1")  # A2: seat 1 is skipped, seat 2 decides
    assert skipped.current == 2 and skipped.catch_order() == (3, 1)
    reversed_ = _missed_uno(4, card="red-reverse/pink-1")  # A3: now counter-clockwise, seat 3 decides
    assert reversed_.current == 3 and reversed_.catch_order() == (2, 1)
    again = _missed_uno(3, card="red-1/pink-skip-all", side="dark", top="red-7/pink-5")  # A4: seat 0 decides again
    assert again.current == 0 and again.catchable == 0 and again.catch_order() == (1, 2)
    assert again.legal_actions(1) == [Action("catch", target=0)]


def test_catch_window_closes_with_the_next_accepted_action_only() -> None:
    match = _missed_uno(4)
    before = snapshot(match)
    assert match.catch_order() == (2, 3)
    match.catch_observation(2)  # offering a catch changes nothing
    with pytest.raises(IllegalAction):
        match.apply(2, Action("draw"))  # a refused action leaves the window open
    assert snapshot(match) == before and match.catch_order() == (2, 3)
    match.apply(1, Action("draw"))  # the seat to decide acts: the window closes
    assert match.catchable is None and match.catch_order() == ()

    caught = _missed_uno(4)
    caught.apply(3, Action("catch", target=0))
    assert caught.catch_order() == () and caught.current == 1

    assert _missed_uno(4, uno_penalty="auto").catch_order() == ()  # auto: the penalty is drawn, nothing to catch


def test_catch_observation_is_the_observation_with_decision_catch() -> None:
    assert "catch" in DECISIONS
    match = _missed_uno(4)
    events = len(match.events)
    for seat in match.catch_order():
        offer = match.catch_observation(seat, since=events - 2)
        plain = match.observation(seat, since=events - 2)
        assert offer.decision == "catch" and plain.decision == "play"
        assert offer._replace(decision="play") == plain
        assert offer.current == 1 and offer.drawn is None
    for seat in (0, 1, 7):  # the caught seat, the seat to decide, no seat
        with pytest.raises(ValueError, match="not offered a catch"):
            match.catch_observation(seat)
    match.apply(1, Action("draw"))
    with pytest.raises(ValueError, match="not offered a catch"):
        match.catch_observation(2)


def test_a_copy_has_every_attribute_and_plays_on_alone() -> None:
    """copy() sets each attribute by name (a compiled Match has no __dict__ to copy): none may be forgotten."""
    match = Match(players=3, seed=11, rules=Rules(variant="flip"))
    play_random(match, random.Random(2), max_decisions=60)
    twin = match.copy()
    if hasattr(match, "__dict__"):  # the pure engine; a compiled one would fail below on a missing attribute
        assert set(vars(twin)) == set(vars(match))
    assert twin.snapshot() == match.snapshot() and twin.observation(0) == match.observation(0)
    before = match.snapshot()
    play_random(twin, random.Random(3), max_decisions=30)
    assert match.snapshot() == before
    assert Match.from_replay(twin.replay()).snapshot() == twin.snapshot()


@pytest.mark.parametrize(("seat", "action"), [("x", "draw"), (1.0, "draw"), (None, "draw"), (0, "draw as text")])
def test_a_mistyped_seat_or_action_is_an_illegal_action(seat: object, action: str) -> None:
    """IllegalAction (T1) in both builds: a compiled apply() takes any object and checks it as the pure one does."""
    match = Match(players=2, seed=1)
    before = match.snapshot()
    with pytest.raises(IllegalAction, match=r"T1: (seat .* is not a seat|not an action)"):
        match.apply(seat, "draw" if action == "draw as text" else parse_action(action))
    assert match.snapshot() == before
