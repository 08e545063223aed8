"""The replay viewer's events in plain words: the terminal's narrator (:class:`arena.terminal.Narrator`, the one
``uno-arena play`` tells a game with) with the players' names and cards written as words (``Bob plays Red 7``)
instead of the notation (``red-7``)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import Card, Face
from arena.terminal import Narrator, Painter, active_face

_KIND_WORDS = {"draw1": "draw 1", "draw2": "draw 2", "draw5": "draw 5", "skip-all": "skip all",
               "wild-draw2": "wild draw 2", "wild-draw4": "wild draw 4", "wild-draw-color": "wild draw colour"}


class WordsPainter(Painter):
    """Faces as words (``Red 7``, ``Pink skip all``, ``Wild draw 4``); a two-faced card by its face up."""

    def __init__(self) -> None:
        super().__init__(color=False)

    def face(self, face: Face) -> str:
        kind = _KIND_WORDS.get(face.kind, face.kind.replace("-", " "))
        text = f"{face.color} {kind}" if face.color else kind
        return text[:1].upper() + text[1:]

    def card(self, card: Card, side: str = "light") -> str:
        return self.face(active_face(card, side))


def replay_narrator(names: Sequence[str]) -> Narrator:
    """Tells a replay's events frame after frame (the side up carries over), every seat by its player's name; the
    events are already the view of whoever watches (V4), so nothing is told that the view does not hold."""
    return Narrator(WordsPainter(), viewer=None, names=names)
