"""The heuristic bot: plays only through the observation and the legal actions, like any remote bot.

It dumps expensive cards, keeps wilds for when nothing else fits, attacks a next player close to going
out, names the colour it holds most, bluffs wild draws rarely, challenges players likely to hold the
colour in force, and flips when the other side looks better for it than for the next player (it sees the
faces its opponents show to the table, and the other side of its own cards).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from arena.engine import Action, Card, Face, Observation
from arena.engine.cards import DARK, LIGHT
from arena.players import Bot

_ATTACKS = {"draw1", "draw2", "draw5", "skip", "skip-all", "wild-draw2", "wild-draw4", "wild-draw-color"}
_WILD_DRAWS = {"wild-draw2", "wild-draw4", "wild-draw-color"}


def _active(card: Card, side: str, flipped: bool = False) -> Face:
    """The face ``card`` shows with ``side`` up (``flipped``: with the other side up)."""
    return card.face(DARK if (side == "dark") != flipped else LIGHT)


class HeuristicBot(Bot):
    name = "heuristic"

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        obs = observation
        if obs.decision == "respond":
            return self._respond(obs, legal)
        for index, action in enumerate(legal):
            if action.kind == "catch":
                return index
        if obs.decision == "choose_color":
            best = self._best_color(obs.hand, obs.side, (a.color for a in legal))
            return next(i for i, a in enumerate(legal) if a.color == best)
        scored = [(self._score(obs, action), -index, index) for index, action in enumerate(legal)]
        return max(scored)[2]

    def _respond(self, obs: Observation, legal: Sequence[Action]) -> int:
        kinds = [a.kind for a in legal]
        if "challenge" not in kinds:
            return kinds.index("accept")
        attacker = next((e.seat for e in reversed(obs.events) if e.type == "play"), None)
        count = next((o.count for o in obs.opponents if o.seat == attacker), 0)
        # The more cards the attacker kept, the likelier one of them has the colour in force.
        return kinds.index("challenge" if count >= 5 else "accept")

    @staticmethod
    def _best_color(hand: Sequence[Card], side: str, allowed: Iterable[str | None]) -> str:
        options = [c for c in allowed if c is not None]
        counts = Counter(_active(card, side).color for card in hand)
        return max(options, key=lambda color: (counts.get(color, 0), -options.index(color)))

    def _score(self, obs: Observation, action: Action) -> float:
        if action.kind in ("draw", "pass"):
            return -1000.0
        if action.kind != "play" or action.card is None:
            return -500.0
        face = _active(action.card, obs.side)
        rest = list(obs.hand)
        if action.card in rest:
            rest.remove(action.card)
        score = float(face.value(obs.variant))
        next_seat = (obs.seat + (1 if obs.direction == "cw" else -1)) % obs.players
        next_count = next((o.count for o in obs.opponents if o.seat == next_seat), 7)
        if face.kind in _ATTACKS and next_count <= 3:
            score += 40
        if face.color is None:
            score -= 35  # keep wilds: they always fit later
            if face.kind in _WILD_DRAWS and any(_active(c, obs.side).color == obs.color for c in rest):
                score -= 60  # a bluff that a challenge would catch
            if action.color is not None:
                counts = Counter(_active(card, obs.side).color for card in rest)
                score += 3 * counts.get(action.color, 0)
        else:
            score += 3 * sum(1 for card in rest if _active(card, obs.side).color == face.color)
        if face.kind == "flip":
            score += self._flip_gain(obs, rest, next_seat)
        if action.uno:
            score += 5
        return score

    @staticmethod
    def _flip_gain(obs: Observation, rest: Sequence[Card], next_seat: int) -> float:
        """Flipping is good when my hand is cheaper on the other side and the next player's is dearer."""
        mine_now = sum(_active(c, obs.side).value(obs.variant) for c in rest)
        mine_then = sum(_active(c, obs.side, flipped=True).value(obs.variant) for c in rest)
        theirs = next((o for o in obs.opponents if o.seat == next_seat), None)
        their_then = sum(face.value(obs.variant) for face in theirs.visible) if theirs else 0
        their_wilds = sum(1 for face in theirs.visible if face.color is None) if theirs else 0
        return (mine_now - mine_then) / 4 - 10 * their_wilds + their_then / 20
