"""The position search API: matches a seat may imagine from what it sees, to search on (determinized search).

:class:`Determinizer` reads one :class:`Observation` once and then samples, as often as a search wants, a
:class:`Match` that deals the cards the seat has not seen at random, each consistent with the face of it the seat
has seen (in UNO Flip, the other side of the other hands and of the draw pile's top); the sample's
``observation(seat)`` equals the one it came from. The discard pile's whole cards are read from the events when they
go back to the round's start, else dealt like hidden ones. What a sample cannot know is left at its plain value (the
run of P2 passes; a wild draw's bluff is judged from the sampled hand). The dealing is uniform among the cards that fit
each place, not an exact posterior. :func:`rollout` plays a round to its end with a fast default policy and
:func:`round_rewards` scores it.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .actions import Action
from .cards import DARK, LIGHT, Card, Face
from .events import Event
from .match import Match
from .observation import Observation
from .rules import Pairing, Rules, UnoPenalty, Variant

_OVER = ("round_over", "match_over")
# The events that are a seat's own accepted action (a draw only when it is the turn's draw, T1).
_ACTION_EVENTS = frozenset({"play", "pass", "accept", "challenge", "color", "catch"})


class _Template:
    """A match of one deck and player count, dealt once: every sample is a copy of it with the cards moved, so
    the per-card tables a match builds are built once per decision, not once per sample."""

    def __init__(self, players: int, rules: Rules) -> None:
        self.match = Match(players=players, seed=0, rules=rules)
        self.cards: list[Card] = self.match.cards
        self.cids: dict[Card, list[int]] = {}
        self.by_face: tuple[dict[Face, list[int]], dict[Face, list[int]]] = ({}, {})
        for cid, card in enumerate(self.cards):
            self.cids.setdefault(card, []).append(cid)
            for side in (LIGHT, DARK):
                self.by_face[side].setdefault(card.face(side), []).append(cid)


@functools.lru_cache(maxsize=64)
def _template(players: int, rules: Rules) -> _Template:
    return _Template(players, rules)


def discard_cards(observation: Observation) -> list[Card] | None:
    """The discard pile's whole cards, bottom card first, read from the observation's events (the start card and
    every play name their card; a flip turns the pile over, a reshuffle keeps its top card); None when the events
    do not account for the pile the observation shows (an observation made with ``since`` > 0)."""
    pile: list[Card] = []
    side = LIGHT
    for event in observation.events:
        kind = event.type
        if kind == "play" and event.card is not None:
            pile.append(event.card)
        elif kind == "start_card" and event.card is not None:
            pile = [event.card]
            side = LIGHT
        elif kind == "flip":
            pile.reverse()
            side = DARK if side == LIGHT else LIGHT
        elif kind == "reshuffle":
            pile = pile[-1:]
    active = DARK if observation.side == "dark" else LIGHT
    if len(pile) != len(observation.discard):
        return None
    if any(card.face(active) != face for card, face in zip(reversed(pile), observation.discard, strict=True)):
        return None
    return pile


def infer_rules(observation: Observation, legal: Sequence[Action] = ()) -> Rules:
    """The rules a seat can tell from its view: the variant, and the catch option when a catch or a play without
    the UNO call is offered; every other option at its default (a bot that knows the rules passes them instead)."""
    catch = any(a.kind == "catch" for a in legal) or any(e.type == "catch" for e in observation.events)
    if not catch and len(observation.hand) == 2:
        plays = [a for a in legal if a.kind == "play"]
        catch = any(a.uno for a in plays) and any(not a.uno for a in plays)
    return Rules(variant=Variant(observation.variant), uno_penalty=UnoPenalty.CATCH if catch else UnoPenalty.AUTO)


class Determinizer:
    """Samples matches consistent with one seat's observation; ``rules`` default to :func:`infer_rules`.

    ValueError with ``pairing: "shuffled"`` (the seat does not know which faces are paired) or when the observation
    cannot come from the rules' deck.
    """

    def __init__(self, observation: Observation, rules: Rules | None = None) -> None:
        obs = observation
        self.observation = obs
        self.rules = rules if rules is not None else infer_rules(obs)
        if self.rules.variant != obs.variant:
            raise ValueError(f"rules of variant {self.rules.variant} for an observation of {obs.variant}")
        if self.rules.variant == "flip" and self.rules.pairing == Pairing.SHUFFLED:
            raise ValueError("pairing: shuffled: the seat does not know the deck's pairs, so it cannot be sampled")
        template = self.template = _template(obs.players, self.rules)
        self.side = DARK if obs.side == "dark" else LIGHT
        self._free = [True] * len(template.cards)
        self.hand = [self._take(card) for card in obs.hand]
        # Each hidden place: (pile, position, the (side, face) its card must show there, or None: any card left).
        self.hands: list[list[int]] = [[] for _ in range(obs.players)]
        self.hands[obs.seat] = self.hand
        self._places: list[tuple[list[int], int, tuple[int, Face] | None]] = []
        self._place_hands(obs)
        self.draw = [-1] * obs.draw_size  # top card last
        for index in range(obs.draw_size):
            self._place(self.draw, index, 1 - self.side, obs.draw_top if index == obs.draw_size - 1 else None)
        self.discard = self._place_discard(obs)
        self._left = [cid for cid, free in enumerate(self._free) if free]
        if len(self._left) != len(self._places):
            raise ValueError(f"the observation shows {len(template.cards) - len(self._places)} cards' places for "
                             f"{len(template.cards) - len(self._left)} known cards: not a deal of this deck")
        # Tightest places first: the most constrained places are dealt before the cards they need run out.
        self._constrained = sorted((p for p in self._places if p[2] is not None),
                                   key=lambda place: len(self._candidates(place)))
        self._options = [self._candidates(place) for place in self._constrained]
        self._open = [p for p in self._places if p[2] is None]
        self._state = _state_of(obs, self.rules)

    def _place_hands(self, obs: Observation) -> None:
        for opponent in obs.opponents:
            hand = self.hands[opponent.seat] = [-1] * opponent.count
            for index in range(opponent.count):
                if opponent.revealed:
                    hand[index] = self._take(opponent.revealed[index])
                else:
                    face = opponent.visible[index] if opponent.visible else None
                    self._place(hand, index, 1 - self.side, face)

    def _place_discard(self, obs: Observation) -> list[int]:
        discard = [-1] * len(obs.discard)  # top card last
        known = discard_cards(obs)
        for index in range(len(obs.discard)):
            if known is not None:
                discard[index] = self._take(known[index])
            else:
                self._place(discard, index, self.side, obs.discard[len(obs.discard) - 1 - index])
        return discard

    def _take(self, card: Card) -> int:
        for cid in self.template.cids.get(card, ()):
            if self._free[cid]:
                self._free[cid] = False
                return cid
        raise ValueError(f"the observation shows more {card} cards than the deck holds")

    def _place(self, pile: list[int], index: int, side: int, face: Face | None) -> None:
        self._places.append((pile, index, None if face is None else (side, face)))

    def _candidates(self, place: tuple[list[int], int, tuple[int, Face] | None]) -> list[int]:
        """The unseen cards that may fill a place."""
        need = place[2]
        if need is None:
            return [cid for cid, free in enumerate(self._free) if free]
        return [cid for cid in self.template.by_face[need[0]].get(need[1], ()) if self._free[cid]]

    def sample(self, rng: random.Random) -> Match:
        """A match the seat cannot tell from the real one: the hidden cards dealt at random (see the class)."""
        if not self._deal(rng):
            raise ValueError("no deal of the unseen cards fits the faces this seat has seen")
        return self._build(rng)

    def _deal(self, rng: random.Random) -> bool:
        """Deal the constrained places (a matching of places to cards, found by augmenting paths, each search started
        at a random candidate), then the rest of the unseen cards at random; False when no matching exists."""
        owner: dict[int, int] = {}  # cid -> index in self._constrained
        for place in range(len(self._constrained)):
            if not self._augment(place, owner, set(), rng):
                return False
        for cid, place in owner.items():
            pile, index, _ = self._constrained[place]
            pile[index] = cid
        rest = [cid for cid in self._left if cid not in owner]
        rng.shuffle(rest)
        for (pile, index, _), cid in zip(self._open, rest, strict=True):
            pile[index] = cid
        return True

    def _augment(self, place: int, owner: dict[int, int], visited: set[int], rng: random.Random) -> bool:
        options = self._options[place]
        start = rng.randrange(len(options)) if options else 0
        for step in range(len(options)):
            cid = options[(start + step) % len(options)]
            if cid in visited:
                continue
            visited.add(cid)
            holder = owner.get(cid)
            if holder is None or self._augment(holder, owner, visited, rng):
                owner[cid] = place
                return True
        return False

    def _build(self, rng: random.Random) -> Match:
        obs = self.observation
        match = self.template.match.copy()
        match.seed = rng.getrandbits(62)
        match._rng = random.Random(match.seed)
        match.hands = [list(hand) for hand in self.hands]
        match.draw = list(self.draw)
        match.discard = list(self.discard)
        match.events = list(obs.events)
        match.actions = []
        match._seen_as = {}
        match._views = [None] * obs.players
        match._discard_view = None
        state = self._state
        match.side = self.side
        match.direction = 1 if obs.direction == "cw" else -1
        match.color = obs.color
        match.current = obs.current
        match.decision = state.decision
        match.scores = list(obs.scores)
        match.round_number = obs.round
        match.dealer = obs.dealer
        match.round_winner = obs.round_winner
        match.match_winner = obs.match_winner
        match.round_points = state.round_points
        match.catchable = state.catchable
        match.decisions_this_round = state.decisions
        match._p2_passes = 0
        match._color_then_next = state.color_then_next
        match.drawn = None
        current = obs.current
        if state.decision == "after_draw" and current is not None:
            match.drawn = match.hands[current][-1]  # a drawn card joins the end of its hand
        match._respond = None
        if state.decision == "respond" and state.attacker is not None:
            faces = match._faces[match.side]
            before = state.color_before  # None when the events do not go back far enough: judged no bluff
            bluff = before is not None and any(faces[cid].color == before for cid in match.hands[state.attacker])
            match._respond = (state.attacker, state.wild_kind, bluff)
        return match


@dataclass
class _State:
    """What the events tell of the round's state beyond the observation's fields."""

    decision: str = "play"
    attacker: int | None = None
    wild_kind: str = ""
    color_before: str | None = None
    color_then_next: bool = False
    catchable: int | None = None
    decisions: int = 0
    round_points: int | None = None


def _state_of(obs: Observation, rules: Rules) -> _State:
    state = _State(decision=obs.decision if obs.decision != "catch" else "play")
    last_play, last_action = _walk_events(obs, state)
    if state.decision == "respond" and last_play is not None and last_play.card is not None:
        state.attacker = last_play.seat
        state.wild_kind = last_play.card.face(DARK if obs.side == "dark" else LIGHT).kind
    if (rules.uno_penalty == "catch" and last_play is not None and last_action is last_play
            and last_play.detail != "uno" and obs.decision not in _OVER):
        seat = last_play.seat
        count = len(obs.hand) if seat == obs.seat else next((o.count for o in obs.opponents if o.seat == seat), 0)
        if count == 1:
            state.catchable = seat
    return state


def _walk_events(obs: Observation, state: _State) -> tuple[Event | None, Event | None]:
    """Fill ``state`` from the events (the colour before the last play, the round's decisions, whether the round saw
    a play, the points of an ended round); the last play and the last accepted action."""
    color: str | None = None
    last_play: Event | None = None
    last_action: Event | None = None
    for event in obs.events:
        kind = event.type
        if kind == "round_started":
            state.decisions, state.color_then_next = 0, False
        elif kind == "start_card" or kind == "flip":
            color = event.faces[0].color if event.faces else None
        elif kind == "play":
            state.color_before, color, last_play, state.color_then_next = color, event.color, event, True
        elif kind == "color":
            color = event.color
        elif kind == "round_over":
            state.round_points = event.count
        if kind in _ACTION_EVENTS or (kind == "draw" and event.detail == "T1"):
            state.decisions += 1
            last_action = event
    return last_play, last_action


def rollout(match: Match, rng: random.Random, max_decisions: int = 2000) -> int:
    """Play ``match`` on to the end of its round with a fast default policy; the number of decisions played.

    The policy: catch a missed UNO, play a random card that fits (a wild only when nothing else does, naming the
    colour most held), call UNO, play a drawn card that fits, draw otherwise, accept wild draws.
    """
    played = 0
    while played < max_decisions and match.decision not in _OVER:
        seat = match.current
        assert seat is not None
        legal = match.legal_actions(seat)
        match.apply(seat, _default_action(match, seat, legal, rng))
        played += 1
    return played


def _default_action(match: Match, seat: int, legal: list[Action], rng: random.Random) -> Action:
    first = legal[0]
    if len(legal) == 1 or first.kind == "catch" or match.decision == "respond":
        return first  # the only action, a catch, or accepting a wild draw
    if first.kind == "choose_color":
        best = _most_held_color(match, seat)
        return next((a for a in legal if a.color == best), first)
    plays = [a for a in legal if a.kind == "play"]
    if not plays:
        return first  # draw, or pass
    if any(a.uno for a in plays):
        plays = [a for a in plays if a.uno]
    colored = [a for a in plays if a.color is None]
    if colored:
        return colored[rng.randrange(len(colored))]
    best = _most_held_color(match, seat)
    return next((a for a in plays if a.color == best), plays[rng.randrange(len(plays))])


def _most_held_color(match: Match, seat: int) -> str | None:
    colors = match._colors[match.side]
    counts = Counter(colors[cid] for cid in match.hands[seat] if colors[cid] is not None)
    return max(counts, key=counts.__getitem__) if counts else None


def round_rewards(match: Match) -> list[float]:
    """Each seat's reward in [0, 1] for the round ``match`` ended: the winner 0.6 and up with the points it scored,
    the others below 0.4, less the more their hands are worth; 0.5 for everyone while the round is not over."""
    winner = match.round_winner
    if winner is None or match.decision not in _OVER:
        return [0.5] * match.players
    points = match.round_points or 0
    return [0.6 + 0.4 * min(points, 300) / 300 if seat == winner
            else 0.4 * (1.0 - min(match.hand_value(seat), 200) / 200) for seat in range(match.players)]
