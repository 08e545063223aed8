"""A live check that printed text holds no card a seat may not see: every card notation written is compared, at
the moment it is written, with everything the seat's views (``Match.observation``) have held so far."""

from __future__ import annotations

import io
import re

from arena.engine import Card, Face, Match, Observation, parse_face

# A card painted in colour (Painter(color=True)): the active face coloured, the other dimmed, light face first.
_LIGHT_UP = re.compile(r"\x1b\[[0-9;]+m([a-z0-9-]+)\x1b\[0m\x1b\[2m/([a-z0-9-]+)\x1b\[0m")
_DARK_UP = re.compile(r"\x1b\[2m([a-z0-9-]+)/\x1b\[0m\x1b\[[0-9;]+m([a-z0-9-]+)\x1b\[0m")
_PAINTED = re.compile(r"\x1b\[[0-9;]+m([^\x1b]*)\x1b\[0m")
_WORD = re.compile(r"[a-z0-9/-]+")


def _is_face(text: str) -> bool:
    try:
        parse_face(text)
    except ValueError:
        return False
    return True


class SeatKnowledge:
    """Every card (both faces) and every single face one seat's observations have held."""

    def __init__(self) -> None:
        self.cards: set[str] = set()
        self.faces: set[str] = set()

    def _card(self, card: Card) -> None:
        self.cards.add(str(card))
        self.faces.update(str(face) for face in (card.light, card.dark) if face is not None)

    def _face(self, face: Face | None) -> None:
        if face is not None:
            self.faces.add(str(face))

    def learn(self, view: Observation) -> None:
        for card in view.hand:
            self._card(card)
        for face in (view.top, view.draw_top, *view.discard):
            self._face(face)
        for opponent in view.opponents:
            for face in opponent.visible:
                self._face(face)
            for card in opponent.revealed:
                self._card(card)
        for event in view.events:
            if event.card is not None:
                self._card(event.card)
            for card in event.cards:
                self._card(card)
            for face in event.faces:
                self._face(face)

    def unseen_in(self, text: str) -> list[str]:
        """The card notations in ``text`` (plain or painted) that the seat has not seen."""
        unseen: list[str] = []
        if "\x1b[" in text:
            for pattern in (_LIGHT_UP, _DARK_UP):
                unseen += [f"{a}/{b}" for a, b in pattern.findall(text) if f"{a}/{b}" not in self.cards]
            for segment in _PAINTED.findall(text):
                face = segment.strip("/")
                if _is_face(face) and face not in self.faces:
                    unseen.append(face)
            return unseen
        for word in _WORD.findall(text):
            parts = word.split("/")
            if len(parts) == 2 and all(map(_is_face, parts)):
                if word not in self.cards:
                    unseen.append(word)
            elif len(parts) == 1 and word != "wild" and _is_face(word) and word not in self.faces:
                unseen.append(word)  # a bare "wild" is also a word of the prose ("the wild draw")
        return unseen


class WatchedOutput(io.StringIO):
    """Output that learns the seat's view and checks the text at every write; ``leaks`` lists what it caught."""

    def __init__(self, match: Match, seat: int) -> None:
        super().__init__()
        self.match, self.seat = match, seat
        self.knowledge = SeatKnowledge()
        self.leaks: list[tuple[str, str]] = []
        self.checked = 0
        self.since = 0  # the seat's events learnt so far

    def write(self, text: str) -> int:
        self.knowledge.learn(self.match.observation(self.seat, since=self.since))
        self.since = len(self.match.events)
        for card in self.knowledge.unseen_in(text):
            self.leaks.append((card, text))
        self.checked += 1
        return super().write(text)
