"""The narrator's plain words, event by event, for a seat's view and for the whole table."""

from __future__ import annotations

import pytest

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
        "seat 0 plays wild-draw2 and names blue",
        "you accept the wild draw and draw 2 cards: red-skip, green-9",
    ]
    seen_by_seat_0 = [*events[:2], events[2]._replace(cards=())]  # V4: the engine's view of seat 0
    assert Narrator(Painter(False), viewer=0).lines(seen_by_seat_0) == [
        "you play wild-draw2 and name blue",
        "seat 1 accepts the wild draw and draws 2 cards (the table sees teal-5, pink-skip-all)",
    ]


@pytest.mark.parametrize("color", [False, True], ids=["plain", "painted"])
def test_a_card_shows_only_the_face_of_the_side_in_play(color: bool) -> None:
    narrator = Narrator(Painter(color), viewer=None)
    flip = Event("flip", faces=(parse_face("teal-5"),), detail="dark")
    [_, played] = narrator.lines([flip, Event("play", seat=2, card=RED_SKIP)])
    assert "teal-5" in played and "red-skip" not in played and "/" not in played
    narrator.lines([Event("round_started", seat=1, count=2)])
    assert narrator.side == "light"
    [played] = narrator.lines([Event("play", seat=2, card=RED_SKIP)])
    assert "red-skip" in played and "teal-5" not in played and "/" not in played


def test_a_legal_wild_draw_challenged_tells_the_penalty_once() -> None:
    """X3: the challenger of a legal wild draw two draws its 2 cards, then 2 more as the challenge's penalty: two
    draws, told as what each is (the penalty once)."""
    events = [Event("challenge", seat=2, target=1, detail="legal"),
              Event("draw", seat=2, count=2, cards=(RED_SKIP, GREEN_9), detail="X3"),
              Event("draw", seat=2, count=2, cards=(GREEN_9, RED_SKIP), detail="X3"),
              Event("challenge", seat=0, target=2, detail="illegal"),
              Event("draw", seat=2, count=2, cards=(RED_SKIP, GREEN_9), detail="X3")]
    lines = Narrator(Painter(False), viewer=None, names=["ann", "bob", "cy"]).lines(events)
    assert lines[1] == "cy draws 2 cards for the wild draw, the challenge lost: red-skip, green-9"
    assert lines[2] == "cy draws 2 cards as the challenge's penalty: green-9, red-skip"
    assert lines[4] == "cy draws 2 cards as the challenge's penalty: red-skip, green-9"
    assert sum("penalty" in line for line in lines) == 2


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
