"""The narrator's plain words, event by event, for a seat's view and for the whole table."""

from __future__ import annotations

from arena.engine import Event, parse_card, parse_face
from arena.terminal import Narrator, Painter, hand_value, score_table

RED_SKIP = parse_card("red-skip/teal-5")
GREEN_9 = parse_card("green-9/pink-skip-all")
WILD = parse_card("wild-draw2/orange-1")


def test_an_accepted_wild_draw_and_its_draw_are_one_line() -> None:
    events = [Event("play", seat=0, card=WILD, color="blue"), Event("accept", seat=1, target=0),
              Event("draw", seat=1, count=2, cards=(RED_SKIP, GREEN_9),
                    faces=(parse_face("teal-5"), parse_face("pink-skip-all")), detail="A6")]
    assert Narrator(Painter(False), viewer=1).lines(events) == [
        "seat 0 plays wild-draw2/orange-1 and names blue",
        "you accept the wild draw and draw 2 cards: red-skip/teal-5, green-9/pink-skip-all",
    ]
    seen_by_seat_0 = [*events[:2], events[2]._replace(cards=())]  # V4: the engine's view of seat 0
    assert Narrator(Painter(False), viewer=0).lines(seen_by_seat_0) == [
        "you play wild-draw2/orange-1 and name blue",
        "seat 1 accepts the wild draw and draws 2 cards (the table sees teal-5, pink-skip-all)",
    ]


def test_the_side_up_follows_flips_and_new_rounds() -> None:
    narrator = Narrator(Painter(True), viewer=None)
    flip = Event("flip", faces=(parse_face("teal-5"),), detail="dark")
    [_, played] = narrator.lines([flip, Event("play", seat=2, card=RED_SKIP)])
    assert played.startswith("seat 2 plays \x1b[2mred-skip/\x1b[0m")  # dark side up: the light face dimmed
    narrator.lines([Event("round_started", seat=1, count=2)])
    assert narrator.side == "light"


def test_reasons_and_ends_in_words() -> None:
    narrator = Narrator(Painter(False), viewer=2)
    assert narrator.line(Event("draw", seat=2, count=2, cards=(RED_SKIP, GREEN_9), detail="U1")).startswith(
        "you draw 2 cards for not calling UNO: ")
    assert narrator.line(Event("draw", seat=0, count=1, detail="T1")) == "seat 0 draws a card"
    assert narrator.line(Event("draw", seat=0, count=0, detail="T1")) == "seat 0 draws nothing: no card is left to draw"
    assert narrator.line(Event("skip", seat=2)) == "you are skipped"
    assert narrator.line(Event("catch", target=1, detail="U1")) == "seat 1 is caught without UNO"
    assert narrator.line(Event("round_over", seat=2, count=40, detail="E1")) == (
        "round over: you win the round by going out; the other hands hold 40 points")


def test_hand_values_and_the_score_table() -> None:
    assert hand_value([RED_SKIP, GREEN_9], "light", "flip") == 29
    assert hand_value([RED_SKIP, GREEN_9], "dark", "flip") == 35
    assert score_table([10, 0], ["human", "random"], you=0, gained=[10, 0]) == [
        "  seat  player       score  this round",
        "     0  human (you)     10         +10",
        "     1  random           0",
    ]
