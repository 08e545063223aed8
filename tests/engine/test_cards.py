"""Cards, faces and decks: notation round-trips, malformed text, and the deck compositions D3, D4, C1."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from arena.engine import Card, Face, classic_deck, parse_card, parse_face, physical_flip_deck
from arena.engine.cards import DARK_COLORS, LIGHT_COLORS, flip_dark_faces, flip_light_faces

DECK_FILE = Path(__file__).resolve().parents[1] / "data" / "flip-deck.txt"
"""The deck of the rules contract, shipped with the tests (a copy of ../shared/data/flip-deck.txt)."""
SHARED_DECK = Path(__file__).resolve().parents[3] / "shared" / "data" / "flip-deck.txt"


def test_physical_deck_has_112_cards_with_d3_light_and_d4_dark_faces() -> None:
    deck = physical_flip_deck()
    assert len(deck) == 112
    assert Counter(card.light for card in deck) == Counter(flip_light_faces())
    assert Counter(card.dark for card in deck) == Counter(flip_dark_faces())


def test_d3_composition_counted_by_hand() -> None:
    light = Counter(card.light for card in physical_flip_deck())
    for color in LIGHT_COLORS:
        for number in range(1, 10):
            assert light[Face(color, str(number))] == 2
        for kind in ("draw1", "reverse", "skip", "flip"):
            assert light[Face(color, kind)] == 2
        assert light[Face(color, "0")] == 0  # D2: no zeros
    assert light[Face(None, "wild")] == 4
    assert light[Face(None, "wild-draw2")] == 4


def test_d4_composition_counted_by_hand() -> None:
    dark = Counter(card.dark for card in physical_flip_deck())
    for color in DARK_COLORS:
        for number in range(1, 10):
            assert dark[Face(color, str(number))] == 2
        for kind in ("draw5", "reverse", "skip-all", "flip"):
            assert dark[Face(color, kind)] == 2
    assert dark[Face(None, "wild")] == 4
    assert dark[Face(None, "wild-draw-color")] == 4


def _deck_file(path: Path) -> list[Card]:
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return [parse_card(line) for line in lines if line and not line.startswith("#")]


def test_packaged_deck_equals_the_shared_deck_file() -> None:
    """The packaged deck is the contract's, card for card: against the copy in tests/data, and against
    ../shared/data/flip-deck.txt itself when the checkout has it beside it (then the copy must be current)."""
    assert physical_flip_deck() == _deck_file(DECK_FILE)
    if SHARED_DECK.exists():
        assert DECK_FILE.read_text(encoding="utf-8") == SHARED_DECK.read_text(encoding="utf-8"), (
            "tests/data/flip-deck.txt differs from ../shared/data/flip-deck.txt: copy it again")


def test_classic_deck_c1() -> None:
    deck = classic_deck()
    assert len(deck) == 108
    faces = Counter(card.light for card in deck)
    for color in LIGHT_COLORS:
        assert faces[Face(color, "0")] == 1
        assert all(faces[Face(color, str(n))] == 2 for n in range(1, 10))
        assert all(faces[Face(color, kind)] == 2 for kind in ("skip", "reverse", "draw2"))
    assert faces[Face(None, "wild")] == 4 and faces[Face(None, "wild-draw4")] == 4


@pytest.mark.parametrize("text", ["red-9/teal-6", "wild/pink-4", "blue-draw1/wild-draw-color",
                                  "yellow-flip/purple-skip-all", "wild-draw2/teal-5"])
def test_flip_notation_round_trips(text: str) -> None:
    card = parse_card(text)
    assert str(card) == text
    assert isinstance(card, Card)


@pytest.mark.parametrize("text", ["red-0", "wild-draw4", "blue-draw2", "green-skip", "wild"])
def test_classic_notation_round_trips(text: str) -> None:
    assert str(parse_card(text, "classic")) == text


@pytest.mark.parametrize(
    ("text", "variant", "problem"),
    [
        ("red-10/teal-6", "flip", "unknown kind '10'"),
        ("red-9", "flip", "LIGHT/DARK"),
        ("teal-6/red-9", "flip", "not a light colour"),
        ("red-9/teal-draw1", "flip", "does not exist on the dark side"),
        ("wild-draw4/pink-1", "flip", "not a light face"),
        ("red-0/teal-1", "flip", "does not exist on the light side"),
        ("magenta-3/teal-1", "flip", "unknown colour 'magenta'"),
        ("", "flip", "malformed card"),
        ("red-9/teal-6", "classic", "one face"),
        ("pink-3", "classic", "not a classic card"),
        ("wild-draw2", "classic", "not a classic card"),
        ("red", "flip", "LIGHT/DARK"),
        ("red", "classic", "malformed face"),
    ],
)
def test_malformed_cards_name_the_text_and_the_problem(text: str, variant: str, problem: str) -> None:
    with pytest.raises(ValueError) as error:
        parse_card(text, variant)
    assert problem in str(error.value)
    assert repr(text) in str(error.value) or not text


def test_face_values_e3_and_c5() -> None:
    values = {"draw1": 10, "reverse": 20, "skip": 20, "flip": 20, "wild": 40, "wild-draw2": 50,
              "draw5": 20, "skip-all": 30, "wild-draw-color": 60}
    for kind, value in values.items():
        face = parse_face(kind if kind.startswith("wild") else f"red-{kind}")
        assert face.value("flip") == value
    assert parse_face("red-7").value() == 7
    assert parse_face("wild").value("classic") == 50
    assert parse_face("wild-draw4").value("classic") == 50
    assert parse_face("red-draw2").value("classic") == 20
