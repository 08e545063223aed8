"""The hands of every round, as dealt and as shown at its end (arena.engine.hands), checked against play."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.engine import Match, Rules
from arena.engine.hands import RoundHands, current_hands, dealt_hands, round_hands
from arena.engine.match import HAND_SIZE
from arena.terminal import hand_value


def played_match(rules: Rules, players: int, seed: int) -> tuple[Match, list[RoundHands]]:
    """A random match to its end, with each round's hands taken while it is played (the oracle)."""
    rng = random.Random(seed)
    match = Match(players=players, seed=seed, rules=rules)
    rounds: list[RoundHands] = []

    def dealt_now() -> RoundHands:
        # What was dealt: the hands now minus the cards drawn for the start card (S4) since the deal.
        start = max(i for i, e in enumerate(match.events) if e.type == "round_started")
        s4 = {e.seat: Counter(e.cards) for e in match.events[start:] if e.type == "draw" and e.detail == "S4"}
        hands = []
        for seat in range(players):
            left = Counter(match.hand(seat)) - s4.get(seat, Counter())
            hands.append(tuple(card for card in match.hand(seat) if left[card] and not left.subtract([card])))
        return RoundHands(match.round_number, match.dealer, tuple(hands))

    rounds.append(dealt_now())
    while match.decision != "match_over":
        if match.decision == "round_over":
            match.next_round()
            rounds.append(dealt_now())
            continue
        legal = match.legal_actions()
        match.apply(match.current, legal[rng.randrange(len(legal))])
        if match.decision in ("round_over", "match_over"):
            rounds[-1] = rounds[-1]._replace(shown=tuple(tuple(match.hand(s)) for s in range(players)),
                                             side=match.side_name)
    return match, rounds


CASES = [
    (Rules(variant="flip", target=300), 4, 11),
    (Rules(variant="flip", target=300, start_flip="flip", pairing="shuffled"), 3, 12),
    (Rules(variant="classic", target=300), 5, 13),
    (Rules(variant="flip", target=200, uno_penalty="catch", scoring="lowest"), 2, 14),
]


@pytest.mark.parametrize(("rules", "players", "seed"), CASES)
def test_round_hands_replays_the_deals_and_the_ends(rules: Rules, players: int, seed: int) -> None:
    match, expected = played_match(rules, players, seed)
    got = round_hands(match.replay())
    assert got == expected
    assert len(got) == match.round_number > 0
    for number, hands in enumerate(got, 1):
        assert hands.round == number
        assert all(len(hand) == HAND_SIZE for hand in hands.dealt)
        assert hands.shown is not None


def test_shown_hands_score_the_round() -> None:
    """E2: the round winner scores the other hands, read on the side up at the end."""
    match, _ = played_match(Rules(variant="flip", target=400), 3, 21)
    rounds = round_hands(match.replay())
    ends = [e for e in match.events if e.type == "round_over"]
    assert len(ends) == len(rounds)
    for hands, end in zip(rounds, ends, strict=True):
        assert hands.shown is not None and end.seat is not None
        values = [hand_value(hand, hands.side, "flip") for hand in hands.shown]
        assert sum(values) - values[end.seat] == end.count


def test_an_unfinished_round_has_no_shown_hands() -> None:
    match = Match(players=3, seed=5)
    for _ in range(10):
        match.apply(match.current, match.legal_actions()[0])
    [only] = round_hands(match.replay())
    assert only.shown is None and only.dealt == dealt_hands(Match(players=3, seed=5))
    assert current_hands(match) != only.dealt


def test_a_malformed_replay_is_named() -> None:
    with pytest.raises(ValueError, match="malformed replay"):
        round_hands({"rules": {}, "players": 3})
    with pytest.raises(ValueError, match="malformed action"):
        round_hands({"rules": {}, "players": 2, "seed": 1, "actions": [[0, "fly away"]]})
