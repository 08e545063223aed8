"""Readable text for people: cards in colour on a terminal (ANSI), plain notation when piped; events told in plain
words (:class:`Narrator`). Only what the events and views given hold is printed: which cards a reader may see is
decided before, by the engine's per-seat view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.engine import Card, Event, Face

_ANSI = {
    "red": "31", "yellow": "33", "green": "32", "blue": "34",
    "pink": "95", "teal": "36", "orange": "38;5;208", "purple": "35",
}


class Painter:
    """Formats faces and cards; `color=False` gives the plain RULES.md notation."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def face(self, face: Face) -> str:
        if not self.color:
            return str(face)
        code = "1" if face.color is None else _ANSI[face.color]  # bold for a face without a colour (wilds)
        return f"\x1b[{code}m{face}\x1b[0m"

    def card(self, card: Card, side: str = "light") -> str:
        """The card by its face on ``side``, the side in play: a player sees only that face of a card in hand (the
        other one faces the table), so a flip card is never shown as both its faces."""
        return self.face(active_face(card, side))


_DRAWN_BECAUSE = {
    "S4": "for the start card",
    "U1": "for not calling UNO",
    "A6": "for the wild draw",
    "A7": "for the wild draw",
    "X3": "as the challenge's penalty",
    "X4": "as the challenge's penalty",
    "X6": "for the wild draw that ended the round",
}


def active_face(card: Card, side: str) -> Face:
    """The face of ``card`` that counts on ``side`` (a classic card has one)."""
    return card.dark if side == "dark" and card.dark is not None else card.light


def hand_value(hand: Sequence[Card], side: str, variant: str) -> int:
    """What a hand scores at a round's end (E2/E3/C5): its faces on the side up, summed."""
    return sum(active_face(card, side).value(variant) for card in hand)


def score_table(scores: Sequence[int], names: Sequence[str], you: int | None = None,
                gained: Sequence[int] | None = None) -> list[str]:
    """The scores as a table: one row per seat with its name (``you`` marks the reader's seat) and, when
    ``gained`` is given, the points of the round just played."""
    labels = [f"{name} (you)" if seat == you else name for seat, name in enumerate(names)]
    width = max(len("player"), *(len(label) for label in labels))
    head = f"  seat  {'player':<{width}}  score" + ("  this round" if gained is not None else "")
    rows = [head]
    for seat, (label, score) in enumerate(zip(labels, scores, strict=True)):
        row = f"  {seat:>4}  {label:<{width}}  {score:>5}"
        if gained is not None:
            row += f"  {gained[seat]:>+10}" if gained[seat] else ""
        rows.append(row)
    return rows


class Narrator:
    """Tells events in plain words, e.g. ``seat 1 accepts the wild draw and draws 2``, for the terminal and the web's
    replay viewer. ``viewer``: the seat whose view the events are ("you"), or None for the whole table's log;
    ``names``: the players by seat. It shows exactly the cards the events carry (V4) and follows the side up through
    the flips it is told about.
    """

    def __init__(self, painter: Painter, viewer: int | None = None, names: Sequence[str] = ()) -> None:
        self.painter = painter
        self.viewer = viewer
        self.names = tuple(names)
        self.side = "light"
        self._challenge_lost: int | None = None
        """The seat whose challenge of a legal wild draw was just told: its first draw is the wild draw's, the
        second the challenge's penalty (X3/X4)."""

    def who(self, seat: int | None) -> str:
        return "you" if seat is not None and seat == self.viewer else self.named(seat)

    def named(self, seat: int | None) -> str:
        """The seat by its player's name when known (never "you")."""
        return self.names[seat] if seat is not None and 0 <= seat < len(self.names) else f"seat {seat}"

    def _verb(self, seat: int | None, verb: str, third: str | None = None) -> str:
        """``who`` and the verb agreeing with it: "you draw", "seat 2 draws"."""
        if seat is not None and seat == self.viewer:
            return f"you {verb}"
        return f"{self.who(seat)} {third or verb + 's'}"

    def cards(self, cards: Sequence[Card]) -> str:
        return ", ".join(self.painter.card(card, self.side) for card in cards)

    def faces(self, faces: Sequence[Face]) -> str:
        return ", ".join(self.painter.face(face) for face in faces)

    def lines(self, events: Sequence[Event]) -> list[str]:
        """One line per event (an accepted wild draw and its draw make one line)."""
        out: list[str] = []
        index = 0
        while index < len(events):
            event = events[index]
            following = events[index + 1] if index + 1 < len(events) else None
            if (event.type == "accept" and following is not None and following.type == "draw"
                    and following.seat == event.seat):
                out.append(f"{self._verb(event.seat, 'accept')} the wild draw and "
                           f"{self._drawn(following, subject=False, reason=False)}")
                index += 2
                continue
            out.append(self.line(event))
            if event.type == "challenge":
                self._challenge_lost = event.seat if event.detail == "legal" else None
            elif event.type == "draw" and event.seat == self._challenge_lost:
                self._challenge_lost = None
            if event.type == "flip":
                self.side = event.detail
            elif event.type == "round_started":
                self.side = "light"
            index += 1
        return out

    def _drawn(self, event: Event, subject: bool = True, reason: bool = True) -> str:
        """A draw: how many and why, and the cards when the event shows them (the drawer's own, or the whole
        table's log), else the faces the table saw."""
        count = event.count
        verb = self._verb(event.seat, "draw") if subject else ("draw" if event.seat == self.viewer else "draws")
        amount = "nothing: no card is left to draw" if not count else "a card" if count == 1 else f"{count} cards"
        rule = event.detail
        if not reason or not rule or rule == "T1":
            why = ""
        elif rule in ("X3", "X4") and event.seat == self._challenge_lost:
            why = " for the wild draw, the challenge lost"  # the penalty's own draw follows
        elif rule in _DRAWN_BECAUSE:
            why = f" {_DRAWN_BECAUSE[rule]}"
        else:
            why = f" because of the {rule}"
        text = f"{verb} {amount}{why}"
        if event.cards:
            return f"{text}: {self.cards(event.cards)}"
        if event.faces:
            return f"{text} (the table sees {self.faces(event.faces)})"
        return text

    def line(self, event: Event) -> str:
        """One event in words (an event type the narrator does not know: the event's log line)."""
        if event.type == "play" and event.card is not None:
            return self._played(event, event.card)
        if event.type == "draw":
            return self._drawn(event)
        tell = self._TELLERS.get(event.type)
        return tell(self, event) if tell is not None else str(event)

    def _played(self, event: Event, card: Card) -> str:
        seat = event.seat
        face = active_face(card, self.side)
        you = seat is not None and seat == self.viewer
        named = f" and name{'' if you else 's'} {event.color}" if face.color is None and event.color else ""
        uno = f" and call{'' if you else 's'} UNO!" if event.detail == "uno" else ""
        return f"{self._verb(seat, 'play')} {self.painter.card(card, self.side)}{named}{uno}"

    def _is(self, seat: int | None) -> str:
        return "are" if seat == self.viewer else "is"

    def _skipped(self, event: Event) -> str:
        if event.detail == "all":
            return "everyone else is skipped (skip-all): the same player goes again"
        return f"{self.who(event.seat)} {self._is(event.seat)} skipped"

    def _round_over(self, event: Event) -> str:
        how = "going out" if event.detail == "E1" else f"adjudication ({event.detail})"
        win = "win" if event.seat == self.viewer else "wins"
        return f"round over: {self.who(event.seat)} {win} the round by {how}; the other hands hold {event.count} points"

    def _hand(self, event: Event) -> str:
        """A replay's hand: dealt (V1) or shown at a round's end (V5)."""
        shown = "dealt" if event.detail == "dealt" else "shown at the round's end"
        return f"{self.who(event.seat)}: hand {shown}: {self.cards(event.cards)}"

    _TELLERS: dict[str, Callable[[Narrator, Event], str]] = {
        "pass": lambda n, e: n._verb(e.seat, "pass", "passes"),
        "skip": lambda n, e: n._skipped(e),
        "reverse": lambda n, e: "the direction reverses: now " + (
            "clockwise" if e.detail == "cw" else "counter-clockwise"),
        "flip": lambda n, e: f"FLIP! the {e.detail} side is up; top is {n.painter.face(e.faces[0])}",
        "color": lambda n, e: f"{n._verb(e.seat, 'name')} {e.color}",
        "accept": lambda n, e: f"{n._verb(e.seat, 'accept')} the wild draw",
        "reveal": lambda n, e: f"{n._verb(e.seat, 'show')} {n.who(e.target)} the hand (X1): {n.faces(e.faces)}",
        "challenge": lambda n, e: f"{n._verb(e.seat, 'challenge')} {n.who(e.target)}: the wild draw was {e.detail}",
        "catch": lambda n, e: f"{n.who(e.target)} {n._is(e.target)} caught without UNO",
        "reshuffle": lambda n, e: f"the discard pile is shuffled into a new draw pile of {e.count} cards",
        "round_over": lambda n, e: n._round_over(e),
        "match_over": lambda n, e: f"match over: {n.who(e.seat)} {'win' if e.seat == n.viewer else 'wins'} the match",
        "start_card": lambda n, e: f"start card {n.painter.face(e.faces[0])}",
        "start_card_replaced": lambda n, e: f"the start card {n.painter.face(e.faces[0])} goes back into the pile "
                                            "(S4)",
        "dealer": lambda n, e: f"{n.named(e.seat)} deals first (highest card in the draw for dealer, S1)",
        "round_started": lambda n, e: f"round {e.count}, dealer {n.named(e.seat)}" + (
            " (you)" if e.seat == n.viewer else ""),
        "hand": lambda n, e: n._hand(e),
    }
    """How each event type is told (``play`` and ``draw`` have their own methods)."""
