"""The hands of each round of a match: as dealt (S2) and as shown at the round's end (V5).

For records and replays; nothing here runs while a match is played: :func:`round_hands` walks a finished replay.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .actions import Action, parse_action
from .cards import Card
from .match import HAND_SIZE, Match
from .rules import Rules

Hands = tuple[tuple[Card, ...], ...]  # one hand per seat, in seat order


class RoundHands(NamedTuple):
    """One round's hands: ``dealt`` by S2 (before any start-card draw, S4) and ``shown`` at its end (V5), read on
    ``side``, the side up when it ended. ``shown`` is None for a round that never ended (an aborted match)."""

    round: int
    dealer: int
    dealt: Hands
    shown: Hands | None = None
    side: str = "light"


def dealt_hands(match: Match) -> Hands:
    """The hands as just dealt, read right after a deal and before the round's first action: until then a hand can
    only grow at its end (the start card's draw, S4), so its first :data:`HAND_SIZE` cards are the dealt ones."""
    return tuple(tuple(match.hand(seat)[:HAND_SIZE]) for seat in range(match.players))


def current_hands(match: Match) -> Hands:
    """Every seat's hand right now (at a round's end: the hands V5 reveals)."""
    return tuple(tuple(match.hand(seat)) for seat in range(match.players))


def round_hands(replay: dict[str, Any]) -> list[RoundHands]:
    """The dealt and shown hands of every round of the match ``replay`` rebuilds, at about the cost of
    ``Match.from_replay``; ValueError (``IllegalAction`` is one) when the replay is malformed or does not replay."""
    try:
        rules = Rules.from_dict(replay["rules"])
        match = Match(players=int(replay["players"]), seed=int(replay["seed"]), rules=rules)
        actions = [(int(seat), str(text)) for seat, text in replay["actions"]]
    except (KeyError, TypeError) as error:
        raise ValueError(f"malformed replay: {error!r} (expected rules, players, seed and actions)") from None
    parsed: dict[str, Action] = {}
    # Plays name the match's own Card objects, which the engine finds in a hand by identity (no comparisons).
    interned = {card: card for card in match.cards}
    rounds = [RoundHands(match.round_number, match.dealer, dealt_hands(match))]
    for seat, text in actions:
        action = parsed.get(text)
        if action is None:
            action = parse_action(text, rules.variant)
            if action.card is not None and action.card in interned:
                action = Action(action.kind, interned[action.card], action.color, action.uno, action.target)
            parsed[text] = action
        match.apply(None if seat < 0 else seat, action)
        if action.kind == "next_round":
            rounds.append(RoundHands(match.round_number, match.dealer, dealt_hands(match)))
        elif match.decision in ("round_over", "match_over"):
            rounds[-1] = rounds[-1]._replace(shown=current_hands(match), side=match.side_name)
    return rounds
