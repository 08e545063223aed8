"""Faces, cards and decks of UNO Flip and classic UNO, with their notation (RULES.md D1-D5, C1, E3, C5).

A *face* is one printed side (`red-7`, `teal-skip-all`, `wild-draw2`); a *card* is a flip card with a light
and a dark face (`red-9/teal-6`) or a classic card with one face (`red-9`). Parsing and formatting of the
notation live here, next to the types, so every other module reads and writes cards the same way.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from importlib import resources

LIGHT = 0
DARK = 1
SIDE_NAMES = ("light", "dark")

LIGHT_COLORS = ("red", "yellow", "green", "blue")
DARK_COLORS = ("pink", "teal", "orange", "purple")
ALL_COLORS = LIGHT_COLORS + DARK_COLORS

NUMBER_KINDS = tuple(str(n) for n in range(10))
WILD_KINDS = ("wild", "wild-draw2", "wild-draw4", "wild-draw-color")
LIGHT_ACTION_KINDS = ("draw1", "reverse", "skip", "flip")
DARK_ACTION_KINDS = ("draw5", "reverse", "skip-all", "flip")
CLASSIC_ACTION_KINDS = ("draw2", "reverse", "skip")

# E3 (flip, both sides) and C5 (classic): the value of a face in a hand at the end of a round.
FLIP_VALUES = {
    "draw1": 10, "reverse": 20, "skip": 20, "flip": 20, "wild": 40, "wild-draw2": 50,
    "draw5": 20, "skip-all": 30, "wild-draw-color": 60,
}
CLASSIC_VALUES = {"skip": 20, "reverse": 20, "draw2": 20, "wild": 50, "wild-draw4": 50}

# Which coloured kinds and wild kinds exist on which face family; used to reject impossible faces.
_COLOURED_KINDS = {
    "flip-light": set(NUMBER_KINDS[1:]) | set(LIGHT_ACTION_KINDS),
    "flip-dark": set(NUMBER_KINDS[1:]) | set(DARK_ACTION_KINDS),
    "classic": set(NUMBER_KINDS) | set(CLASSIC_ACTION_KINDS),
}
_WILDS = {"flip-light": {"wild", "wild-draw2"}, "flip-dark": {"wild", "wild-draw-color"},
          "classic": {"wild", "wild-draw4"}}


@dataclass(frozen=True, slots=True)
class Face:
    """One printed face: a colour (None for wilds) and a kind (a number "0".."9", an action or a wild)."""

    color: str | None
    kind: str

    def __str__(self) -> str:
        return self.kind if self.color is None else f"{self.color}-{self.kind}"

    @property
    def is_wild(self) -> bool:
        return self.color is None

    @property
    def is_number(self) -> bool:
        return self.kind in NUMBER_KINDS

    @property
    def number(self) -> int:
        """The number printed on the face; 0 for action and wild faces (S1: they count as 0)."""
        return int(self.kind) if self.kind in NUMBER_KINDS else 0

    def value(self, variant: str = "flip") -> int:
        """Hand value of this face at the end of a round (E3 / C5)."""
        if self.kind in NUMBER_KINDS:
            return int(self.kind)
        return (CLASSIC_VALUES if variant == "classic" else FLIP_VALUES)[self.kind]


@dataclass(frozen=True, slots=True)
class Card:
    """A physical card: a light and a dark face (flip), or one face in `light` and `dark` None (classic)."""

    light: Face
    dark: Face | None = None

    def __str__(self) -> str:
        return str(self.light) if self.dark is None else f"{self.light}/{self.dark}"

    def face(self, side: int) -> Face:
        """The face on `side` (LIGHT or DARK); a classic card shows its one face on either."""
        if side == DARK and self.dark is not None:
            return self.dark
        return self.light


def parse_face(text: str) -> Face:
    """Parse a face such as `red-7`, `pink-skip-all` or `wild-draw2`; raise ValueError naming what is wrong."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"malformed face {text!r}: expected text such as 'red-7' or 'wild'")
    if text in WILD_KINDS:
        return Face(None, text)
    color, sep, kind = text.partition("-")
    if not sep or not kind:
        raise ValueError(f"malformed face {text!r}: expected COLOUR-KIND such as 'red-7', or a wild kind")
    if color not in ALL_COLORS:
        raise ValueError(f"malformed face {text!r}: unknown colour {color!r} (D2: {', '.join(ALL_COLORS)})")
    known = set(NUMBER_KINDS) | set(LIGHT_ACTION_KINDS) | set(DARK_ACTION_KINDS) | set(CLASSIC_ACTION_KINDS)
    if kind not in known:
        raise ValueError(f"malformed face {text!r}: unknown kind {kind!r}")
    return Face(color, kind)


def _check_flip_face(face: Face, side: int, text: str) -> None:
    family = "flip-light" if side == LIGHT else "flip-dark"
    side_name = SIDE_NAMES[side]
    if face.is_wild:
        if face.kind not in _WILDS[family]:
            raise ValueError(f"malformed card {text!r}: {face} is not a {side_name} face (D3/D4)")
        return
    colors = LIGHT_COLORS if side == LIGHT else DARK_COLORS
    if face.color not in colors:
        raise ValueError(f"malformed card {text!r}: {face.color} is not a {side_name} colour (D2)")
    if face.kind not in _COLOURED_KINDS[family]:
        raise ValueError(f"malformed card {text!r}: {face.kind} does not exist on the {side_name} side (D3/D4)")


def parse_card(text: str, variant: str = "flip") -> Card:
    """Parse card notation (`red-9/teal-6` for flip, `red-9` for classic); raise ValueError naming the problem."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"malformed card {text!r}: expected text such as 'red-9/teal-6'")
    if variant == "classic":
        if "/" in text:
            raise ValueError(f"malformed card {text!r}: a classic card has one face (C1)")
        try:
            face = parse_face(text)
        except ValueError as error:
            raise ValueError(f"malformed card {text!r}: {error}") from None
        if face.is_wild:
            if face.kind not in _WILDS["classic"]:
                raise ValueError(f"malformed card {text!r}: {face} is not a classic card (C1)")
        elif face.color not in LIGHT_COLORS or face.kind not in _COLOURED_KINDS["classic"]:
            raise ValueError(f"malformed card {text!r}: {face} is not a classic card (C1)")
        return Card(face, None)
    light_text, sep, dark_text = text.partition("/")
    if not sep or "/" in dark_text:
        raise ValueError(f"malformed card {text!r}: a flip card is LIGHT/DARK, e.g. 'red-9/teal-6' (D1)")
    try:
        light, dark = parse_face(light_text), parse_face(dark_text)
    except ValueError as error:
        raise ValueError(f"malformed card {text!r}: {error}") from None
    _check_flip_face(light, LIGHT, text)
    _check_flip_face(dark, DARK, text)
    return Card(light, dark)


def flip_light_faces() -> list[Face]:
    """The 112 light faces of D3."""
    return _flip_faces(LIGHT_COLORS, LIGHT_ACTION_KINDS, "wild-draw2")


def flip_dark_faces() -> list[Face]:
    """The 112 dark faces of D4."""
    return _flip_faces(DARK_COLORS, DARK_ACTION_KINDS, "wild-draw-color")


def _flip_faces(colors: tuple[str, ...], action_kinds: tuple[str, ...], wild_draw: str) -> list[Face]:
    faces = []
    for color in colors:
        for _ in range(2):
            faces += [Face(color, str(n)) for n in range(1, 10)]
            faces += [Face(color, kind) for kind in action_kinds]
    return faces + [Face(None, "wild")] * 4 + [Face(None, wild_draw)] * 4


def physical_flip_deck() -> list[Card]:
    """The default deck (D5): the physical pairing of faces, shipped in the package as `data/flip-deck.txt`."""
    return list(_physical_flip_deck())


@cache
def _physical_flip_deck() -> tuple[Card, ...]:
    # Read and parsed once per process: the file is package data and Cards are immutable.
    text = resources.files("arena.engine").joinpath("data/flip-deck.txt").read_text(encoding="utf-8")
    return tuple(parse_card(line.strip()) for line in text.splitlines()
                 if line.strip() and not line.startswith("#"))


def shuffled_flip_deck(rng: random.Random) -> list[Card]:
    """Option `pairing: "shuffled"` (D5): light and dark faces paired at random from the match's stream."""
    dark = flip_dark_faces()
    rng.shuffle(dark)
    return [Card(light, face) for light, face in zip(flip_light_faces(), dark, strict=True)]


def classic_deck() -> list[Card]:
    """The 108 classic cards of C1."""
    return list(_classic_deck())


@cache
def _classic_deck() -> tuple[Card, ...]:
    # Built once per process, like the flip deck: every match shares the same (immutable) Card objects.
    cards = []
    for color in LIGHT_COLORS:
        cards.append(Card(Face(color, "0")))
        for _ in range(2):
            cards += [Card(Face(color, str(n))) for n in range(1, 10)]
            cards += [Card(Face(color, kind)) for kind in CLASSIC_ACTION_KINDS]
    cards += [Card(Face(None, "wild"))] * 4 + [Card(Face(None, "wild-draw4"))] * 4
    return tuple(cards)
