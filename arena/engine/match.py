"""The rules engine: one match of UNO Flip or classic UNO as a deterministic state machine.

Every rule of RULES.md that governs play lives in this module, and each is marked with its id. The state
is plain data (lists of card ids); nothing here does I/O, reads a clock or touches a global. The same
(players, seed, rules, actions) always give the same match, bit for bit: the dealer draw comes from the
match seed, and each round's deal and reshuffles from (match seed, round number), so a duplicate-deal
tournament can replay one deal with the seats rotated.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from functools import cache
from typing import Any, cast

from .actions import ACCEPT, CHALLENGE, DRAW, NEXT_ROUND, PASS, Action, parse_action
from .cards import (
    DARK,
    DARK_COLORS,
    LIGHT,
    LIGHT_COLORS,
    SIDE_NAMES,
    Card,
    Face,
    classic_deck,
    parse_card,
    physical_flip_deck,
    shuffled_flip_deck,
)
from .errors import IllegalAction
from .events import PARTLY_HIDDEN_KINDS, Event, draw_event, event_for_seat, pass_event, play_event
from .observation import Observation, OpponentView, new_observation, new_opponent_view
from .rules import Rules

HAND_SIZE = 7  # S2
# Every decision an observation can carry: `Match.decision` is one of the first six; "catch" is that of a seat asked
# out of turn whether to catch a missed UNO (U1, `Match.catch_observation`).
DECISIONS = ("play", "after_draw", "respond", "choose_color", "round_over", "match_over", "catch")
_DECISION_FIELD = Observation._fields.index("decision")

# The fixed part of each wild draw's penalty (A6, C3); wild-draw-color draws until a colour (A7).
_WILD_DRAW_COUNT = {"wild-draw2": 2, "wild-draw4": 4}
_CHALLENGE_EXTRA = {"wild-draw2": 2, "wild-draw4": 2, "wild-draw-color": 2}  # X3, X4, C3
_DRAW_CARD_COUNT = {"draw1": 1, "draw2": 2, "draw5": 5}  # A1, C3


@cache
def _play_actions(card: Card, colors: tuple[str | None, ...], call: int) -> tuple[Action, ...]:
    """The plays of `card` (one per colour for a wild; `call` as in Match._uno_calls), the same objects in every
    match."""
    calls = ((False,), (True,), (True, False))[call]
    return tuple(Action("play", card, color, uno) for uno in calls for color in colors)


def _round_rng(seed: int, round_number: int) -> random.Random:
    return random.Random(f"uno-arena:{seed}:round:{round_number}")


def _blank(cls: type[Match]) -> Match:
    """A match object with no state yet, for the other constructors to fill in."""
    # Not `cls.__new__(cls)`: a compiled Match (mypyc, arena.engine.build) runs __init__ in its __new__.
    return cls(_empty=True)


class Match:
    """A match of UNO: rounds are dealt and played until a player reaches the target (E4).

    `Match(players=4, seed=7, rules=Rules(variant="flip"))` deals the first round at once.
    """

    # `players` and `seed` are typed `object` because they are checked here: a compiled Match (mypyc) would refuse a
    # non-int with its own TypeError before the check could name the problem (a ValueError, as in the pure engine).
    def __init__(self, players: int | object = 4, seed: int | object = 0, rules: Rules | None = None, *,
                 _empty: bool = False) -> None:
        if _empty:
            return  # for _blank: the alternative constructors and copy() set every attribute themselves
        rules = rules or Rules()
        self._setup(players, seed, rules, self._standard_deck(rules, seed))
        self.dealer = self._draw_for_dealer()
        self._start_round(self._shuffled_order(), self.dealer)

    # Construction

    @classmethod
    def from_deal(
        cls,
        players: int,
        deck: Sequence[Card | str],
        dealer: int,
        rules: Rules | None = None,
        seed: int = 0,
        scores: Sequence[int] | None = None,
    ) -> Match:
        """A match whose first round is dealt by S2-S4 from exactly `deck` (top card first)."""
        rules = rules or Rules()
        cards = [cls._card(card, rules) for card in deck]
        match = _blank(cls)
        match._setup(players, seed, rules, cards)
        if not 0 <= dealer < players:
            raise ValueError(f"dealer {dealer} is not a seat of a {players}-player match")
        if len(cards) < HAND_SIZE * players + 1:
            raise ValueError(f"a stacked deck of {len(cards)} cards cannot deal {players} hands and a start card")
        if scores is not None:
            match.scores = match._checked_scores(scores)
        match.dealer = dealer
        match._start_round(list(range(len(cards))), dealer)
        return match

    @classmethod
    def from_position(
        cls,
        players: int,
        hands: Sequence[Sequence[Card | str]],
        draw: Sequence[Card | str],
        discard: Sequence[Card | str],
        current: int,
        rules: Rules | None = None,
        seed: int = 0,
        side: str = "light",
        dealer: int | None = None,
        direction: str = "cw",
        color: str | None = None,
        scores: Sequence[int] | None = None,
    ) -> Match:
        """A match in the middle of a round, `current` on the "play" decision; piles top card first. `color` only when
        the top face is a wild. It holds exactly the position's cards: a next round only when they can deal one."""
        rules = rules or Rules()
        cls._check_position(players, hands, discard, rules, side, direction)
        piles = [[cls._card(card, rules) for card in pile] for pile in (*hands, draw, discard)]
        match = _blank(cls)
        match._setup(players, seed, rules, [card for pile in piles for card in pile])
        for seat in (current, dealer):
            if seat is not None and not 0 <= seat < players:
                raise ValueError(f"seat {seat} is not a seat of a {players}-player match")
        # Card ids in the order the piles were given: each hand, then the draw and the discard pile (top card last).
        numbers = itertools.count()
        ids = [[next(numbers) for _ in pile] for pile in piles]
        match.hands = ids[:players]
        match.draw = ids[players][::-1]
        match.discard = ids[players + 1][::-1]
        match.side = DARK if side == "dark" else LIGHT
        match.direction = 1 if direction == "cw" else -1
        match.dealer = (current - 1) % players if dealer is None else dealer
        if scores is not None:
            match.scores = match._checked_scores(scores)
        match.color = match._position_color(color)
        match.current = current
        match.decision = "play"
        match.round_number = 1
        return match

    @staticmethod
    def _check_position(players: int, hands: Sequence[Sequence[Card | str]], discard: Sequence[Card | str],
                        rules: Rules, side: str, direction: str) -> None:
        """The shape of a position for :meth:`from_position`, before any card is read."""
        if len(hands) != players:
            raise ValueError(f"{len(hands)} hands given for {players} players")
        if not discard:
            raise ValueError("the discard pile needs at least its top card")
        if side not in SIDE_NAMES or (side == "dark" and rules.variant == "classic"):
            raise ValueError(f"side {side!r} does not exist in variant {rules.variant}")
        if direction not in ("cw", "ccw"):
            raise ValueError(f"direction must be 'cw' or 'ccw', got {direction!r}")

    def _position_color(self, color: str | None) -> str:
        """The colour in play of a position: the top card's, or `color` when the top card is a wild."""
        top = self._top_face()
        if top.color is None:
            if color not in self._side_colors():
                raise ValueError(f"the top card is a wild: color must be a {self.side_name} colour, got {color!r}")
            return color
        if color is not None and color != top.color:
            raise ValueError(f"color {color!r} contradicts the top card {top}")
        return top.color

    @classmethod
    def from_replay(cls, record: dict[str, Any]) -> Match:
        """Rebuild a match from `replay()`: the same rules, seed and actions give the identical match."""
        rules = Rules.from_dict(record["rules"])
        match = cls(players=record["players"], seed=record["seed"], rules=rules)
        for seat, text in record["actions"]:
            match.apply(seat, parse_action(text, rules.variant))
        return match

    @staticmethod
    def _card(card: Card | str, rules: Rules) -> Card:
        return parse_card(card, rules.variant) if isinstance(card, str) else card

    @staticmethod
    def _standard_deck(rules: Rules, seed: int | object) -> list[Card]:
        if rules.variant == "classic":
            return classic_deck()
        if rules.pairing == "shuffled":
            return shuffled_flip_deck(random.Random(f"uno-arena:{seed}:pairing"))
        return physical_flip_deck()

    def _setup(self, players: int | object, seed: int | object, rules: Rules, cards: list[Card]) -> None:
        if not isinstance(players, int) or not 2 <= players <= 10:
            raise ValueError(f"players must be 2 to 10, got {players!r}")
        if not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        self.players = players
        self.seed = seed
        self.rules = rules
        self.variant: str = rules.variant.value  # a plain str: it keys per-decision lookups (an enum hashes slower)
        self._classic = rules.variant == "classic"
        # Identical cards share one Card object, so legal actions can be listed once per distinct card.
        interned: dict[Card, Card] = {}
        self.cards: list[Card] = [interned.setdefault(card, card) for card in cards]
        self._faces: tuple[list[Face], list[Face]] = (
            [card.light for card in self.cards],
            [card.face(DARK) for card in self.cards],
        )
        # The same faces as plain lists of colours and kinds: the hot loop of legal_actions reads these.
        self._colors = tuple([face.color for face in faces] for faces in self._faces)
        self._kinds = tuple([face.kind for face in faces] for faces in self._faces)
        # A one-card draw, the usual kind, logs one of these shared 1-tuples instead of new ones: a match logs
        # thousands of draws, and every object it keeps for good is one more for the garbage collector to walk.
        self._one_card = [(card,) for card in self.cards]
        self._one_face = tuple([(face,) for face in faces] for faces in self._faces)
        self.scores: list[int] = [0] * players
        self.round_number = 0
        self.round_winner: int | None = None
        self.round_points: int | None = None
        self.match_winner: int | None = None
        self.events: list[Event] = []
        self._seen_as: dict[int, Event] = {}  # event index -> the event as the seats that may not see all of it see it
        # The last view of each seat as an opponent, and of the discard pile, with what they were made from: an
        # unchanged hand or pile gives the same object again (its encoding on the wire is then cached).
        self._views: list[tuple[tuple[int, bool, tuple[int, ...]], OpponentView] | None] = [None] * players
        self._discard_view: tuple[tuple[int, tuple[int, ...]], tuple[Face, ...]] | None = None
        # (seat, notation) of every accepted action: what a replay needs, as tuples of a number and a string, which
        # the garbage collector stops tracking (a match logs thousands).
        self.actions: list[tuple[int, str]] = []
        type_ids: dict[Card, int] = {}
        self._type_of: list[int] = [type_ids.setdefault(card, len(type_ids)) for card in self.cards]
        # The play actions of each card type, per (active side, UNO-call choice): see _play_table.
        self._play_cache: list[dict[int, tuple[Action, ...]]] = [{} for _ in range(6)]
        # Card ids by the id() of their interned Card: a play built by legal_actions() finds its card at once.
        cids_of: dict[int, list[int]] = {}
        for cid, card in enumerate(self.cards):
            cids_of.setdefault(id(card), []).append(cid)
        self._cids_of = {key: tuple(cids) for key, cids in cids_of.items()}
        self._decision_cap = rules.max_decisions_per_round
        self._uno_call_choices = 2 if rules.uno_penalty == "catch" else 1  # see _uno_calls
        self._rng = _round_rng(seed, 1)
        self._clear_round_state()

    def _clear_round_state(self) -> None:
        self.hands: list[list[int]] = [[] for _ in range(self.players)]
        self.draw: list[int] = []  # top card last
        self.discard: list[int] = []  # top card last
        self.side = LIGHT
        self.direction = 1
        self.color: str | None = None
        self.current: int | None = None
        self.decision = "play"
        self.drawn: int | None = None
        self._respond: tuple[int, str, bool] | None = None  # (attacker, wild kind, was illegal)
        self._color_then_next = False  # after choose_color: the next seat plays (F5) or the same (S4)
        self.catchable: int | None = None  # U1 catch window
        self._p2_passes = 0
        self.decisions_this_round = 0

    def _checked_scores(self, scores: Sequence[int]) -> list[int]:
        if len(scores) != self.players:
            raise ValueError(f"{len(scores)} scores given for {self.players} players")
        return [int(score) for score in scores]

    # Setting up a round (S1-S5)

    def _draw_for_dealer(self) -> int:
        """S1: each seat draws a card; highest light number deals (actions and wilds count 0); ties redraw."""
        rng = random.Random(f"uno-arena:{self.seed}:dealer")
        candidates = list(range(self.players))
        while len(candidates) > 1:
            order = list(range(len(self.cards)))
            rng.shuffle(order)
            numbers = {seat: self._faces[LIGHT][order[i]].number for i, seat in enumerate(candidates)}
            best = max(numbers.values())
            candidates = [seat for seat in candidates if numbers[seat] == best]
        self.events.append(Event("dealer", seat=candidates[0], detail="S1"))
        return candidates[0]

    def _shuffled_order(self) -> list[int]:
        """S5: every card of the match gathered in a fixed order and shuffled from (seed, round)."""
        order = list(range(len(self.cards)))
        _round_rng(self.seed, self.round_number + 1).shuffle(order)
        return order

    def _start_round(self, order: list[int], dealer: int) -> None:
        """Deal (S2), turn the start card (S3) and apply it (S4). `order` is the deck, top card first."""
        self._clear_round_state()
        # Reduced events are shared only while the seats catch up on them, within a turn or so; a memo kept for
        # the whole match would keep a second copy of every draw alive (a view asked for later is merely rebuilt).
        self._seen_as.clear()
        self.round_number += 1
        self.round_winner = self.round_points = None
        self._rng = _round_rng(self.seed, self.round_number)
        self.dealer = dealer
        n = self.players
        dealt = HAND_SIZE * n
        for i in range(dealt):
            self.hands[(dealer + 1 + i) % n].append(order[i])
        self.draw = order[dealt:][::-1]
        self.events.append(Event("round_started", seat=dealer, count=self.round_number))
        self.discard.append(self.draw.pop())
        while self._start_card_goes_back(self._top_face()):
            # S4 / C4: the start card goes back, the draw pile is shuffled, a new one is turned.
            self.events.append(Event("start_card_replaced", faces=(self._top_face(),), detail="S4"))
            self.draw.append(self.discard.pop())
            self._rng.shuffle(self.draw)
            self.discard.append(self.draw.pop())
        self._apply_start_card()

    def _deal_problem(self, order: list[int]) -> str | None:
        """Why `order` cannot be dealt (S2-S4), or None: a match built from a position may hold too few cards for the
        hands, or none left that may stay as the start card (it would turn them back for ever)."""
        dealt = HAND_SIZE * self.players
        if len(order) <= dealt:
            return (f"the match holds {len(order)} cards, too few to deal {self.players} hands of {HAND_SIZE} "
                    f"and a start card (at least {dealt + 1})")
        faces = self._faces[LIGHT]
        if all(self._start_card_goes_back(faces[cid]) for cid in order[dealt:]):
            return "none of the cards left after the deal may stay as the start card (S4)"
        return None

    def _start_card_goes_back(self, face: Face) -> bool:
        if self._classic:
            return not face.is_number  # C4
        return face.kind == "wild-draw2" or (face.kind == "flip" and self.rules.start_flip == "replace")

    def _apply_start_card(self) -> None:
        face = self._top_face()
        first = (self.dealer + 1) % self.players
        self.events.append(Event("start_card", card=self.cards[self.discard[-1]], faces=(face,)))
        self.color = face.color
        self.current = first
        self.decision = "play"
        if face.kind == "flip":  # option start_flip "flip": F2 before the first turn, reference card only
            self._turn_table()
            face = self._top_face()
            self.color = face.color
            if face.is_wild:
                self._ask_color(first, then_next=False)
        elif face.kind in ("draw1", "draw2"):
            self._draw_cards(first, _DRAW_CARD_COUNT[face.kind], "S4")
            self.current = self._next(first)
        elif face.kind == "skip":
            self.events.append(Event("skip", seat=first, detail="S4"))
            self.current = self._next(first)
        elif face.kind == "reverse":
            self.direction = -1
            self.events.append(Event("reverse", detail="ccw"))
            self.current = self.dealer
        elif face.is_wild:
            self._ask_color(first, then_next=False)

    def next_round(self) -> list[Event]:
        """S5: after `round_over`, gather every card, pass the deal to the left and deal the next round."""
        return self.apply(None, NEXT_ROUND)

    # Reading the state

    def _top_face(self) -> Face:
        return self._faces[self.side][self.discard[-1]]

    def _side_colors(self) -> tuple[str, ...]:
        return DARK_COLORS if self.side == DARK else LIGHT_COLORS

    def _next(self, seat: int, steps: int = 1) -> int:
        return (seat + self.direction * steps) % self.players

    @property
    def side_name(self) -> str:
        return SIDE_NAMES[self.side]

    @property
    def direction_name(self) -> str:
        return "cw" if self.direction == 1 else "ccw"

    @property
    def top(self) -> Face:
        """The active face of the top discard card."""
        return self._top_face()

    def hand(self, seat: int) -> list[Card]:
        return [self.cards[cid] for cid in self.hands[seat]]

    def draw_pile(self) -> list[Card]:
        """The draw pile, top card first."""
        return [self.cards[cid] for cid in reversed(self.draw)]

    def discard_pile(self) -> list[Card]:
        """The discard pile, top card first."""
        return [self.cards[cid] for cid in reversed(self.discard)]

    def hand_value(self, seat: int) -> int:
        """E2/E3/C5: the value of a hand, read on the active side."""
        faces = self._faces[self.side]
        return sum(faces[cid].value(self.variant) for cid in self.hands[seat])

    def _can_draw(self) -> bool:
        return bool(self.draw) or len(self.discard) > 1  # P2

    def _playable(self, cid: int) -> bool:
        """T1/T2/F1: matches the colour in force, or the number or symbol of the top face, or is a wild."""
        face = self._faces[self.side][cid]
        return face.color is None or face.color == self.color or face.kind == self._top_face().kind

    def _holds_color_in_force(self, seat: int, except_cid: int) -> bool:
        """X2/T3: does the rest of the hand hold a card whose active face has the colour in force?"""
        faces = self._faces[self.side]
        color = self.color
        return any(faces[cid].color == color for cid in self.hands[seat] if cid != except_cid)

    def _wild_draw_allowed(self, seat: int, cid: int) -> bool:
        face = self._faces[self.side][cid]
        if face.kind not in _CHALLENGE_EXTRA or self.rules.bluffing:
            return True
        return not self._holds_color_in_force(seat, cid)

    # Legal actions

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every legal action of `seat` (default: the seat to decide), wild colours and UNO calls spelled out; with
        `uno_penalty: "catch"` a play that leaves one card is listed without the call too (U1)."""
        if seat is None:
            seat = self.current
        decision = self.decision
        if seat is None or decision in ("round_over", "match_over"):
            return []
        actions: list[Action] = []
        if self.catchable is not None and seat != self.catchable:
            actions.append(Action("catch", target=self.catchable))
        if seat != self.current:
            return actions
        if decision == "play":
            hand = self.hands[seat]
            colors = self._colors[self.side]
            kinds = self._kinds[self.side]
            color = self.color
            top_kind = kinds[self.discard[-1]]
            type_of = self._type_of
            call = 0 if len(hand) != 2 else self._uno_call_choices
            restricted = not self.rules.bluffing
            cache = self._play_table(call)
            seen: list[int] = []
            for cid in hand:
                face_color = colors[cid]
                if face_color is None or face_color == color or kinds[cid] == top_kind:
                    card_type = type_of[cid]
                    if card_type in seen:
                        continue
                    seen.append(card_type)
                    if restricted and not self._wild_draw_allowed(seat, cid):
                        continue
                    plays = cache.get(card_type)
                    actions.extend(plays if plays is not None else self._plays(cid, call))
            if self._can_draw():
                actions.append(DRAW)
            elif not seen:
                actions.append(PASS)  # P2
        elif decision == "after_draw":
            assert self.drawn is not None
            actions.extend(self._plays(self.drawn, self._uno_calls(len(self.hands[seat]))))
            actions.append(PASS)
        elif decision == "respond":
            actions.append(ACCEPT)
            if self.rules.bluffing:
                actions.append(CHALLENGE)
        elif decision == "choose_color":
            actions.extend(Action("choose_color", color=color) for color in self._side_colors())
        return actions

    def _uno_calls(self, hand_size: int) -> int:
        """0: no call; 1: the play leaves one card and calls UNO; 2: with and without the call (catch)."""
        return 0 if hand_size != 2 else self._uno_call_choices

    def _play_table(self, call: int) -> dict[int, tuple[Action, ...]]:
        """The memo of play actions by card type for the active side and the UNO-call choice ``call`` (0-2)."""
        return self._play_cache[self.side * 3 + call]

    def _plays(self, cid: int, call: int) -> tuple[Action, ...]:
        """The play actions of a card on the active side (one per colour for a wild), memoised per match."""
        table = self._play_table(call)
        card_type = self._type_of[cid]
        plays = table.get(card_type)
        if plays is None:
            colors = self._side_colors() if self._faces[self.side][cid].color is None else (None,)
            plays = table[card_type] = _play_actions(self.cards[cid], colors, call)
        return plays

    # Applying an action

    # `seat` and `action` are typed `object` because they are checked here: a compiled Match (mypyc) would refuse a
    # mistyped one with its own TypeError, where the pure engine raises IllegalAction.
    def apply(self, seat: int | object | None, action: Action | object) -> list[Event]:
        """Apply `seat`'s action and return the events it caused. Anything illegal raises IllegalAction naming the
        RULES.md id, and changes nothing: every check runs before the first change."""
        if not isinstance(action, Action):
            raise IllegalAction("T1", f"not an action: {action!r}")
        events = self.events
        start = len(events)
        kind = action.kind
        decision = self.decision
        if kind == "next_round":
            self._next_round(cast(int | None, seat), action)
            return events[start:]
        if decision == "round_over" or decision == "match_over":
            raise IllegalAction("E1", f"the round is over ({decision}); no seat is to act")
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalAction("T1", f"seat {seat!r} is not a seat of this {self.players}-player match")
        if kind == "play":
            cid = self._check_play(seat, action)
            self._record(seat, action, reset_passes=True)
            self.catchable = None  # U1: the window closes with the next accepted action of any seat
            self._play(seat, cid, action.color, action.uno)
        elif kind == "catch":
            self._check_catch(seat, action)
            self._record(seat, action, reset_passes=True)
            self._catch(action.target)  # type: ignore[arg-type]
        else:
            self._check(seat, action)
            self._record(seat, action, reset_passes=kind != "pass" or decision != "play")
            self.catchable = None
            if kind == "draw":
                self._draw_for_turn(seat)
            elif kind == "pass":
                self._pass(seat)
            elif kind == "accept":
                self._accept(seat)
            elif kind == "challenge":
                self._challenge(seat)
            else:
                self._choose_color(seat, action.color)  # type: ignore[arg-type]
        decision = self.decision
        if decision != "round_over" and decision != "match_over":
            if self._p2_passes >= self.players:
                self._adjudicate("P3: every player passed with nothing to draw")
            elif self.decisions_this_round >= self._decision_cap:
                self._adjudicate(f"P3: decision cap {self._decision_cap} reached")
        return events[start:]

    def _next_round(self, seat: int | None, action: Action) -> None:
        """S5: deal the next round, once the round is over and if the match's cards can deal one."""
        self._check_next_round()
        order = self._shuffled_order()
        problem = self._deal_problem(order)
        if problem is not None:
            raise IllegalAction("S5", f"there is no next round: {problem}")
        self.actions.append((-1 if seat is None else seat, action.text))
        self._start_round(order, (self.dealer + 1) % self.players)

    def _record(self, seat: int, action: Action, reset_passes: bool) -> None:
        """Log an accepted action; any action but a P2 pass breaks a run of passes."""
        self.actions.append((seat, action.text))
        self.decisions_this_round += 1
        if reset_passes:
            self._p2_passes = 0

    def _check_next_round(self) -> None:
        if self.decision == "match_over":
            raise IllegalAction("E4", "the match is over; there is no next round")
        if self.decision != "round_over":
            raise IllegalAction("S5", f"the round is not over (decision {self.decision!r})")

    def _check_catch(self, seat: int, action: Action) -> None:
        if self.rules.uno_penalty != "catch":
            raise IllegalAction("U1", "catch is only played with option uno_penalty: \"catch\"")
        if self.catchable is None:
            raise IllegalAction("U1", "there is nobody to catch: no play left one card without an UNO call")
        if action.target != self.catchable:
            raise IllegalAction("U1", f"seat {action.target} cannot be caught; only seat {self.catchable} can")
        if seat == self.catchable:
            raise IllegalAction("U1", "a player cannot catch themselves")

    def _check(self, seat: int, action: Action) -> None:
        """Validate a draw, pass, accept, challenge or colour choice without changing anything."""
        decision = self.decision
        kind = action.kind
        if seat != self.current:
            raise IllegalAction("T1", f"it is seat {self.current}'s decision ({decision}), not seat {seat}'s")
        if kind == "draw":
            if decision != "play":
                raise IllegalAction(self._decision_rule(), f"cannot draw on the {decision!r} decision")
            if not self._can_draw():
                raise IllegalAction("P2", "no card can be drawn: the draw pile is empty and nothing to reshuffle")
        elif kind == "pass":
            if decision == "after_draw":
                return
            if decision != "play":
                raise IllegalAction(self._decision_rule(), f"cannot pass on the {decision!r} decision")
            if self._can_draw():
                raise IllegalAction("T1", "pass is only allowed after a draw or when nothing can be drawn (P2)")
            if any(self._playable(cid) and self._wild_draw_allowed(seat, cid) for cid in self.hands[seat]):
                raise IllegalAction("P2", "nothing can be drawn, so a player with a playable card must play")
        elif kind in ("accept", "challenge"):
            if decision != "respond":
                raise IllegalAction("A6", f"{kind} answers a wild draw; the decision is {decision!r}")
            if kind == "challenge" and not self.rules.bluffing:
                raise IllegalAction("T3", "with bluffing: false a wild draw cannot be challenged; accept it")
        elif kind == "choose_color":
            if decision != "choose_color":
                raise IllegalAction("F5", f"no colour is to be named now (decision {decision!r})")
            if action.color not in self._side_colors():
                raise IllegalAction(
                    "F5", f"{action.color!r} is not a colour of the {self.side_name} side "
                    f"({', '.join(self._side_colors())})")
        else:
            raise IllegalAction("T1", f"unknown action kind {kind!r}")

    def _decision_rule(self) -> str:
        return {"respond": "A6", "choose_color": "F5", "after_draw": "T4"}.get(self.decision, "T1")

    def _check_play(self, seat: int, action: Action) -> int:
        """Validate a play without changing anything; return the id of the card to play."""
        decision = self.decision
        card = action.card
        if seat != self.current:
            raise IllegalAction("T1", f"it is seat {self.current}'s decision ({decision}), not seat {seat}'s")
        if decision != "play" and decision != "after_draw":
            raise IllegalAction(self._decision_rule(), f"cannot play a card on the {decision!r} decision")
        if card is None:
            raise IllegalAction("T1", "a play must name a card")
        cid: int | None
        if decision == "after_draw":
            cid = self.drawn
            assert cid is not None
            drawn = self.cards[cid]
            if drawn is not card and drawn != card:
                raise IllegalAction("T4", f"after drawing only the drawn card {drawn} may be played, not {card}")
        else:
            cid = self._held(self.hands[seat], card)
            if cid is None:
                raise IllegalAction("T1", f"seat {seat} does not hold {card}")
        face = self._faces[self.side][cid]
        if not self._playable(cid):
            rule = "F1" if face.kind == "flip" else "T1"
            raise IllegalAction(rule, f"{face} matches neither the colour in force ({self.color}) "
                                      f"nor the top card {self._top_face()}")
        if face.color is None:
            if action.color is None:
                raise IllegalAction("T8", f"{face} needs a colour of the {self.side_name} side")
            if action.color not in self._side_colors():
                raise IllegalAction("T2", f"{action.color} is not a colour of the {self.side_name} side "
                                          f"({', '.join(self._side_colors())})")
            if not self._wild_draw_allowed(seat, cid):
                raise IllegalAction("T3", f"{face} may not be played while holding a {self.color} card "
                                          "(bluffing: false)")
        elif action.color is not None:
            raise IllegalAction("T8", f"a colour is named only with a wild, not with {face}")
        return cid

    def _held(self, hand: list[int], card: Card) -> int | None:
        """The id of the first card in `hand` equal to `card`, or None."""
        cids = self._cids_of.get(id(card))  # the interned Card of this match, as legal_actions() gives it
        if cids is None:
            cards = self.cards
            return next((cid for cid in hand if cards[cid] == card), None)
        if len(cids) == 1:
            return cids[0] if cids[0] in hand else None
        return next((cid for cid in hand if cid in cids), None)

    # Carrying actions out

    def _play(self, seat: int, cid: int, named: str | None, uno: bool) -> None:
        hand = self.hands[seat]
        face = self._faces[self.side][cid]
        kind = face.kind
        illegal_wild_draw = kind in _CHALLENGE_EXTRA and self._holds_color_in_force(seat, cid)  # X2
        hand.remove(cid)
        self.discard.append(cid)
        self.drawn = None
        color = self.color = named if face.color is None else face.color
        left = len(hand)
        calls_uno = uno and left == 1  # T8: a call that does not leave one card is ignored
        self.events.append(play_event(seat, self.cards[cid], color, "uno" if calls_uno else ""))
        if left == 1 and not uno:
            if self.rules.uno_penalty == "auto":
                self._draw_cards(seat, 2, "U1")
            else:
                self.catchable = seat
        elif not left:
            self._finish_with_last_card(seat, face)
            return
        self.decision = "play"
        following = (seat + self.direction) % self.players
        if kind in _DRAW_CARD_COUNT:  # A1, C3, A5
            self._draw_cards(following, _DRAW_CARD_COUNT[kind], kind)
            self.current = (following + self.direction) % self.players
        elif kind == "skip":  # A2, A5
            self.events.append(Event("skip", seat=self._next(seat)))
            self.current = self._next(seat, 2)
        elif kind == "reverse":  # A3
            self.direction = -self.direction
            self.events.append(Event("reverse", detail=self.direction_name))
            self.current = seat if self.players == 2 else self._next(seat)
        elif kind == "skip-all":  # A4
            self.events.append(Event("skip", detail="all"))
            self.current = seat
        elif kind == "flip":  # F1-F5
            self._turn_table()
            top = self._top_face()
            if top.color is None:
                self._ask_color(seat, then_next=True)
            else:
                self.color = top.color
                self.current = self._next(seat)
        elif kind in _CHALLENGE_EXTRA:  # A6, A7, C3: the next player responds
            self._respond = (seat, kind, illegal_wild_draw)
            self.current = following
            self.decision = "respond"
        else:
            self.current = following

    def _finish_with_last_card(self, seat: int, face: Face) -> None:
        """E1: the last card's effect still happens (draws, X6, A3, F6), then the round ends. Only effects that change
        the table are carried out: a skip has nothing left to do, as no one takes another turn."""
        kind = face.kind
        if kind in _DRAW_CARD_COUNT:
            self._draw_cards(self._next(seat), _DRAW_CARD_COUNT[kind], kind)
        elif kind in _CHALLENGE_EXTRA:
            self._wild_draw_penalty(self._next(seat), kind, "X6")
        elif kind == "reverse":  # A3: the direction changes, with any number of players (as in _play)
            self.direction = -self.direction
            self.events.append(Event("reverse", detail=self.direction_name))
        elif kind == "flip":
            self._turn_table()  # F6: no colour is named even if a wild is revealed
        self._end_round(seat, "E1")

    def _turn_table(self) -> None:
        """F2: the discard pile, the draw pile and every hand are turned over; the active side changes."""
        self.discard.reverse()
        self.draw.reverse()
        self.side = DARK if self.side == LIGHT else LIGHT
        self.events.append(Event("flip", faces=(self._top_face(),), detail=self.side_name))

    def _ask_color(self, seat: int, then_next: bool) -> None:
        self.current = seat
        self.decision = "choose_color"
        self._color_then_next = then_next

    def _choose_color(self, seat: int, color: str) -> None:
        self.color = color
        self.events.append(Event("color", seat=seat, color=color))
        self.decision = "play"
        self.current = self._next(seat) if self._color_then_next else seat

    def _draw_for_turn(self, seat: int) -> None:
        """T1/T4: draw one card; a playable one may be played at once, otherwise the turn ends."""
        drawn = self._draw_cards(seat, 1, "T1")
        if drawn and self._playable(drawn[0]) and self._wild_draw_allowed(seat, drawn[0]):
            self.drawn = drawn[0]
            self.decision = "after_draw"
        else:
            self.current = (seat + self.direction) % self.players

    def _pass(self, seat: int) -> None:
        if self.decision == "play":  # P2: nothing to draw and nothing to play
            self._p2_passes += 1
        self.events.append(pass_event(seat))
        self.drawn = None
        self.decision = "play"
        self.current = (seat + self.direction) % self.players

    def _accept(self, seat: int) -> None:
        attacker, kind, _ = self._respond  # type: ignore[misc]
        self._respond = None
        self.events.append(Event("accept", seat=seat, target=attacker))
        self._wild_draw_penalty(seat, kind, "A6" if kind != "wild-draw-color" else "A7")
        self.decision = "play"
        self.current = self._next(seat)

    def _challenge(self, seat: int) -> None:
        """X1-X5: the challenger sees the hand; the play is judged by the hand as it was when played."""
        attacker, kind, illegal = self._respond  # type: ignore[misc]
        self._respond = None
        faces = self._faces[self.side]
        self.events.append(Event("reveal", seat=attacker, target=seat,
                                 faces=tuple(faces[cid] for cid in self.hands[attacker]), detail="X1"))
        self.events.append(Event("challenge", seat=seat, target=attacker,
                                 detail="illegal" if illegal else "legal"))
        self.decision = "play"
        rule = "X4" if kind == "wild-draw-color" else "X3"
        if illegal:
            self._wild_draw_penalty(attacker, kind, rule)
            self.current = seat
        else:
            self._wild_draw_penalty(seat, kind, rule)
            self._draw_cards(seat, _CHALLENGE_EXTRA[kind], rule)
            self.current = self._next(seat)

    def _wild_draw_penalty(self, seat: int, kind: str, rule: str) -> None:
        if kind == "wild-draw-color":
            self._draw_until_color(seat, rule)
        else:
            self._draw_cards(seat, _WILD_DRAW_COUNT[kind], rule)

    def _catch(self, target: int) -> None:
        self.catchable = None
        self.events.append(Event("catch", target=target, detail="U1"))
        self._draw_cards(target, 2, "U1")

    # Drawing (P1, P2, V4)

    def _take_from_pile(self) -> int | None:
        if not self.draw:
            if len(self.discard) < 2:
                return None  # P2: nothing left to draw
            top = self.discard.pop()
            pile, self.discard = self.discard, [top]
            self._rng.shuffle(pile)  # P1
            self.draw = pile
            self.events.append(Event("reshuffle", count=len(pile), detail="P1"))
        return self.draw.pop()

    def _draw_cards(self, seat: int, count: int, reason: str) -> list[int]:
        pile = self.draw
        if len(pile) >= count:  # no reshuffle on the way: take the top `count` cards, top card first
            drawn = pile[-count:][::-1]
            del pile[-count:]
            self._give(seat, drawn, reason)
            return drawn
        drawn = []
        for _ in range(count):
            cid = self._take_from_pile()
            if cid is None:
                break
            drawn.append(cid)
        self._give(seat, drawn, reason)
        return drawn

    def _draw_until_color(self, seat: int, reason: str) -> None:
        """A7: draw until a card whose active face has the colour in force; that card is kept too."""
        faces = self._faces[self.side]
        drawn: list[int] = []
        while True:
            cid = self._take_from_pile()
            if cid is None:
                break
            drawn.append(cid)
            if faces[cid].color == self.color:
                break
        self._give(seat, drawn, reason)

    def _give(self, seat: int, drawn: list[int], reason: str) -> None:
        self.hands[seat].extend(drawn)
        cards: tuple[Card, ...]
        faces: tuple[Face, ...] = ()
        if len(drawn) == 1:
            cards = self._one_card[drawn[0]]
            if not self._classic:
                faces = self._one_face[1 - self.side][drawn[0]]
        else:
            cards = tuple(map(self.cards.__getitem__, drawn))
            if not self._classic:
                faces = tuple(map(self._faces[1 - self.side].__getitem__, drawn))
        self.events.append(draw_event(seat, cards, faces, reason))

    # End of round and scoring (E1-E5, P3)

    def _from_dealers_left(self) -> list[int]:
        return [(self.dealer + 1 + i) % self.players for i in range(self.players)]

    def _adjudicate(self, reason: str) -> None:
        """P3: the lowest hand value wins the round (ties: earliest seat from the dealer's left)."""
        winner = min(self._from_dealers_left(), key=self.hand_value)
        self._end_round(winner, reason)

    def _end_round(self, winner: int, reason: str) -> None:
        values = [self.hand_value(seat) for seat in range(self.players)]
        points = sum(values) - values[winner]
        if self.rules.scoring == "lowest":  # E5
            for seat in range(self.players):
                if seat != winner:
                    self.scores[seat] += values[seat]
        else:  # E2
            self.scores[winner] += points
        self.round_winner = winner
        self.round_points = points
        self.current = None
        self.drawn = None
        self._respond = None
        self.catchable = None
        self.events.append(Event("round_over", seat=winner, count=points, detail=reason))
        if max(self.scores) >= self.rules.target:  # E4
            if self.rules.scoring == "lowest":
                self.match_winner = min(self._from_dealers_left(), key=lambda seat: self.scores[seat])
            else:
                self.match_winner = winner
            self.decision = "match_over"
            self.events.append(Event("match_over", seat=self.match_winner))
        else:
            self.decision = "round_over"

    # Views

    def observation(self, seat: int, since: int = 0) -> Observation:
        """What `seat` may see (V1-V6), with the events from index `since` on as that seat sees them.

        Identity guarantee (encoders memoise by `id()`; tests check it): an `OpponentView` is the same object while
        that hand, the side and the round state are unchanged; the discard's faces the same tuple while the pile and
        side are; a reduced event (V4) the same object for every seat; faces and cards the deck's interned objects.
        """
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is not a seat of this {self.players}-player match")
        side = self.side
        active, other = self._faces[side], self._faces[1 - side]
        cards = self.cards
        over = self.decision in ("round_over", "match_over")
        classic = self._classic
        opponents = []
        views = self._views
        for other_seat, hand in enumerate(self.hands):
            if other_seat != seat:
                made_of = (side, over, tuple(hand))
                last = views[other_seat]
                if last is not None and last[0] == made_of:
                    opponents.append(last[1])
                    continue
                view = new_opponent_view((
                    other_seat, len(hand), () if classic else tuple(map(other.__getitem__, hand)),
                    tuple(map(cards.__getitem__, hand)) if over else ()))
                views[other_seat] = (made_of, view)
                opponents.append(view)
        events = []
        seen_as = self._seen_as
        for index, event in enumerate(self.events[since:], since):
            if event[0] in PARTLY_HIDDEN_KINDS:
                seen = event_for_seat(event, seat)
                if seen is not event:
                    if seen is None:
                        continue
                    # Every other seat sees the same reduced event: one object, so encoders can cache it.
                    seen = seen_as.setdefault(index, seen)
                event = seen
            events.append(event)
        discard = self.discard
        pile = (side, tuple(discard))
        last_pile = self._discard_view
        if last_pile is not None and last_pile[0] == pile:
            discard_faces = last_pile[1]
        else:
            if last_pile is not None and last_pile[0][0] == side and last_pile[0][1] == pile[1][:-1]:
                discard_faces = (active[discard[-1]], *last_pile[1])  # one card played since: the usual case
            else:
                discard_faces = tuple(map(active.__getitem__, reversed(discard)))
            self._discard_view = (pile, discard_faces)
        return new_observation((
            seat, self.players, self.variant, self.side_name, self.direction_name, self.decision,
            self.current, self.color, active[discard[-1]],
            discard_faces,
            tuple(map(cards.__getitem__, self.hands[seat])),
            tuple(opponents), len(self.draw),
            None if classic or not self.draw else other[self.draw[-1]],
            tuple(self.scores), self.round_number, self.dealer, tuple(events),
            cards[self.drawn] if self.drawn is not None and seat == self.current else None,
            self.round_winner, self.match_winner,
        ))

    def catch_order(self) -> tuple[int, ...]:
        """The seats that may catch out of turn (U1), in the order they are offered the catch: every seat but the one
        that can be caught and the seat to decide (whose `legal_actions()` carry it), in turn order after it; empty
        when no window is open. The window holds until the next accepted action; a declined offer changes nothing."""
        target = self.catchable
        current = self.current
        if target is None or current is None:
            return ()
        players, direction = self.players, self.direction
        return tuple(seat for seat in ((current + direction * step) % players for step in range(1, players))
                     if seat != target)

    def catch_observation(self, seat: int, since: int = 0) -> Observation:
        """`observation(seat, since)` with decision "catch", for a seat offered a catch out of turn (`current` still
        names the seat to decide); ValueError when `seat` is not in `catch_order()`."""
        if seat not in self.catch_order():
            raise ValueError(f"seat {seat} is not offered a catch (catch order {list(self.catch_order())})")
        view = self.observation(seat, since)
        return new_observation((*view[:_DECISION_FIELD], "catch", *view[_DECISION_FIELD + 1:]))

    def replay(self) -> dict[str, Any]:
        """The record (rules, players, seed, actions) from which `Match.from_replay` rebuilds this match."""
        return {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "actions": [[seat, text] for seat, text in self.actions],
        }

    def position(self) -> dict[str, Any]:
        """The round's state in the scenario `state` notation (piles top card first), for logs and tests."""
        return {
            "side": self.side_name,
            "dealer": self.dealer,
            "current": self.current,
            "direction": self.direction_name,
            "color": self.color,
            "hands": [[str(card) for card in self.hand(seat)] for seat in range(self.players)],
            "draw": [str(card) for card in self.draw_pile()],
            "discard": [str(card) for card in self.discard_pile()],
            "scores": list(self.scores),
        }

    def copy(self) -> Match:
        """An independent copy that plays on separately (for search bots and for tests)."""
        twin = _blank(Match)
        # Every attribute, one by one (a compiled Match has no __dict__ to copy): the immutable and the per-match
        # shared ones as they are, the mutable state as copies.
        twin.players, twin.seed, twin.rules, twin.variant = self.players, self.seed, self.rules, self.variant
        twin._classic, twin.cards, twin._faces = self._classic, self.cards, self._faces
        twin._colors, twin._kinds = self._colors, self._kinds
        twin._one_card, twin._one_face = self._one_card, self._one_face
        twin._type_of, twin._play_cache, twin._cids_of = self._type_of, self._play_cache, self._cids_of
        twin._decision_cap, twin._uno_call_choices = self._decision_cap, self._uno_call_choices
        twin._discard_view = self._discard_view
        twin.hands = [list(hand) for hand in self.hands]
        twin.draw, twin.discard, twin.scores = list(self.draw), list(self.discard), list(self.scores)
        twin.events, twin.actions = list(self.events), list(self.actions)
        twin._seen_as = dict(self._seen_as)
        twin._views = list(self._views)
        twin.side, twin.direction, twin.color, twin.current = self.side, self.direction, self.color, self.current
        twin.decision, twin.drawn, twin._respond = self.decision, self.drawn, self._respond
        twin._color_then_next, twin.catchable, twin._p2_passes = self._color_then_next, self.catchable, self._p2_passes
        twin.decisions_this_round, twin.round_number = self.decisions_this_round, self.round_number
        twin.round_winner, twin.round_points = self.round_winner, self.round_points
        twin.match_winner, twin.dealer = self.match_winner, self.dealer
        twin._rng = random.Random()
        twin._rng.setstate(self._rng.getstate())
        return twin

    def snapshot(self) -> tuple[Any, ...]:
        """Every piece of mutable state as one comparable value, to prove a refused action changed nothing (the logs
        only ever grow, so their lengths stand for them)."""
        return (
            tuple(tuple(hand) for hand in self.hands), tuple(self.draw), tuple(self.discard), self.side,
            self.direction, self.color, self.current, self.decision, self.drawn, self._respond,
            self._color_then_next, self.catchable, self._p2_passes, self.decisions_this_round,
            tuple(self.scores), self.round_number, self.dealer, self.round_winner, self.round_points,
            self.match_winner, len(self.events), len(self.actions), self._rng.getstate(),
        )
