"""Readable text for people: cards in colour on a terminal (ANSI), plain notation when piped."""

from __future__ import annotations

from arena.engine import Action, Card, Event, Face

_ANSI = {
    "red": "31", "yellow": "33", "green": "32", "blue": "34",
    "pink": "95", "teal": "36", "orange": "38;5;208", "purple": "35",
}


class Painter:
    """Formats faces, cards, actions and events; `color=False` gives the plain RULES.md notation."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def face(self, face: Face) -> str:
        text = str(face)
        if not self.color:
            return text
        if face.color is None:
            return f"\x1b[1m{text}\x1b[0m"
        return f"\x1b[{_ANSI[face.color]}m{text}\x1b[0m"

    def card(self, card: Card, side: str = "light") -> str:
        """The card with its active face first-class and its other face dimmed (flip), or its one face."""
        if card.dark is None:
            return self.face(card.light)
        if not self.color:
            return str(card)
        active, other = (card.dark, card.light) if side == "dark" else (card.light, card.dark)
        return f"{self.face(active)}\x1b[2m/{other}\x1b[0m" if side == "light" else \
            f"\x1b[2m{other}/\x1b[0m{self.face(active)}"

    def action(self, action: Action, side: str = "light") -> str:
        if action.kind != "play" or action.card is None:
            return str(action)
        text = f"play {self.card(action.card, side)}"
        if action.color:
            text += f" color={action.color}"
        return text + " uno" if action.uno else text

    def event(self, event: Event, side: str = "light") -> str:
        seat = f"seat {event.seat}" if event.seat is not None else ""
        kind = event.type
        if kind == "play" and event.card is not None:
            played = event.card.dark if side == "dark" and event.card.dark is not None else event.card.light
            named = f" (names {event.color})" if played.color is None else ""
            uno = "  UNO!" if event.detail == "uno" else ""
            return f"{seat} plays {self.card(event.card, side)}{named}{uno}"
        if kind == "draw":
            shown = ", ".join(self.card(c, side) for c in event.cards) if event.cards else ""
            why = "" if event.detail == "T1" else f" [{event.detail}]"
            return f"{seat} draws {event.count}{why}" + (f": {shown}" if shown else "")
        if kind == "flip":
            return f"FLIP! the {event.detail} side is up; top is {self.face(event.faces[0])}"
        if kind == "color":
            return f"{seat} names {event.color}"
        if kind == "challenge":
            return f"{seat} challenges seat {event.target}: the play was {event.detail}"
        if kind == "round_over":
            return f"round over: seat {event.seat} wins {event.count} points ({event.detail})"
        if kind == "match_over":
            return f"match over: seat {event.seat} wins the match"
        if kind == "start_card":
            return f"start card {self.face(event.faces[0])}"
        if kind == "dealer":
            return f"seat {event.seat} deals first (highest card in the draw for dealer, S1)"
        if kind == "round_started":
            return f"round {event.count}, dealer seat {event.seat}"
        return str(event)
