"""Actions a seat can take, and their text notation (`play red-9/teal-6`, `play wild/pink-4 color=blue uno`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import ALL_COLORS, Card, parse_card

ACTION_KINDS = ("play", "draw", "pass", "accept", "challenge", "choose_color", "catch", "next_round")


@dataclass(frozen=True, slots=True)
class Action:
    """One decision: a play, draw, pass, accept, challenge, colour choice, catch (U1) or the next round's deal."""

    kind: str
    card: Card | None = None
    color: str | None = None
    uno: bool = False
    target: int | None = None
    # The notation, made once: every action is logged and replayed as text, many of them thousands of times.
    text: str = field(init=False, repr=False, compare=False, default="")

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", self._notation())

    def __str__(self) -> str:
        return self.text

    def _notation(self) -> str:
        if self.kind == "play":
            text = f"play {self.card}"
            if self.color is not None:
                text += f" color={self.color}"
            return text + " uno" if self.uno else text
        if self.kind == "choose_color":
            return f"choose_color {self.color}"
        if self.kind == "catch":
            return f"catch {self.target}"
        return self.kind


DRAW = Action("draw")
PASS = Action("pass")
ACCEPT = Action("accept")
CHALLENGE = Action("challenge")
NEXT_ROUND = Action("next_round")
_BARE = {"draw": DRAW, "pass": PASS, "accept": ACCEPT, "challenge": CHALLENGE, "next_round": NEXT_ROUND}


def parse_action(text: str, variant: str = "flip") -> Action:
    """Parse action notation (the inverse of `str(action)`); raise ValueError naming the problem."""
    if not isinstance(text, str):
        raise ValueError(f"malformed action {text!r}: expected text")
    words = text.split()
    if not words:
        raise ValueError("malformed action '': expected play/draw/pass/accept/challenge/choose_color/catch")
    kind, rest = words[0], words[1:]
    if kind in _BARE:
        if rest:
            raise ValueError(f"malformed action {text!r}: {kind} takes nothing after it")
        return _BARE[kind]
    if kind == "play":
        if not rest:
            raise ValueError(f"malformed action {text!r}: play needs a card")
        card = parse_card(rest[0], variant)
        color = None
        uno = False
        for word in rest[1:]:
            if word == "uno":
                uno = True
            elif word.startswith("color="):
                color = _parse_color(word[6:], text)
            else:
                raise ValueError(f"malformed action {text!r}: unexpected {word!r}")
        return Action("play", card, color, uno)
    if kind == "choose_color":
        if len(rest) != 1:
            raise ValueError(f"malformed action {text!r}: choose_color needs one colour")
        return Action("choose_color", color=_parse_color(rest[0], text))
    if kind == "catch":
        if len(rest) != 1 or not rest[0].isdigit():
            raise ValueError(f"malformed action {text!r}: catch needs one seat number")
        return Action("catch", target=int(rest[0]))
    raise ValueError(f"malformed action {text!r}: unknown action {kind!r} (one of {', '.join(ACTION_KINDS)})")


def _parse_color(color: str, text: str) -> str:
    if color not in ALL_COLORS:
        raise ValueError(f"malformed action {text!r}: unknown colour {color!r}")
    return color
