"""The position search API (arena.engine.search): a sampled determinization looks to its seat exactly like the real
match, holds exactly the deck's cards, offers the seat to decide the same legal actions and plays on to the round's
end; a copy plays on separately."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import Match, Rules
from arena.engine.search import Determinizer, discard_cards, rollout, round_rewards

options = st.fixed_dictionaries({
    "variant": st.sampled_from(["flip", "classic"]),
    "bluffing": st.booleans(),
    "uno_penalty": st.sampled_from(["auto", "catch"]),
    "start_flip": st.sampled_from(["replace", "flip"]),
    "target": st.sampled_from([60, 500]),
})


def played_to(rules: Rules, players: int, seed: int, decisions: int) -> Match:
    """A match played at random for up to ``decisions`` decisions (dealing the next rounds on the way)."""
    match = Match(players=players, seed=seed, rules=rules)
    rng = random.Random(seed)
    for _ in range(decisions):
        if match.decision == "match_over":
            break
        if match.decision == "round_over":
            match.next_round()
            continue
        legal = match.legal_actions()
        match.apply(match.current, legal[rng.randrange(len(legal))])
    return match


def all_cards(match: Match) -> Counter[str]:
    piles = [*match.hands, match.draw, match.discard]
    return Counter(str(match.cards[cid]) for pile in piles for cid in pile)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=options, players=st.integers(min_value=2, max_value=6), seed=st.integers(0, 10_000),
       decisions=st.integers(0, 250))
def test_a_determinization_looks_the_same_to_its_seat(options: dict[str, object], players: int, seed: int,
                                                      decisions: int) -> None:
    rules = Rules(**options)  # type: ignore[arg-type]
    match = played_to(rules, players, seed, decisions)
    rng = random.Random(seed)
    for seat in range(players):
        seen = match.observation(seat)
        sampled = Determinizer(seen, rules).sample(rng)
        assert sampled.observation(seat) == seen
        assert all_cards(sampled) == all_cards(match), "the sample holds exactly the deck's cards"
        if seat == match.current and match.decision not in ("round_over", "match_over"):
            assert [a.text for a in sampled.legal_actions()] == [a.text for a in match.legal_actions()]
            rollout(sampled, rng)
            assert sampled.decision in ("round_over", "match_over")
            assert len(round_rewards(sampled)) == players
        recent = match.observation(seat, max(0, len(match.events) - 5))  # few events: the discard read from its faces
        assert Determinizer(recent, rules).sample(rng).observation(seat)._replace(events=()) == recent._replace(
            events=())


def test_samples_differ_in_what_the_seat_cannot_see() -> None:
    match = played_to(Rules(variant="classic"), 3, 4, 10)
    seat = match.current
    assert seat is not None
    sampler = Determinizer(match.observation(seat), match.rules)
    rng = random.Random(1)
    hands = {tuple(str(card) for card in sampler.sample(rng).hand((seat + 1) % 3)) for _ in range(20)}
    assert len(hands) > 10, "the other hands are dealt afresh each time"
    assert {tuple(sampler.sample(rng).hand(seat)) for _ in range(5)} == {tuple(match.hand(seat))}


def test_in_flip_each_hidden_card_shows_the_back_the_seat_saw() -> None:
    match = played_to(Rules(variant="flip"), 2, 9, 30)
    seat = match.current
    assert seat is not None
    other = 1 - seat
    sampled = Determinizer(match.observation(seat), match.rules).sample(random.Random(2))
    back = 1 - match.side
    assert [c.face(back) for c in sampled.hand(other)] == [c.face(back) for c in match.hand(other)]
    assert sampled.draw_pile()[0].face(back) == match.draw_pile()[0].face(back)


def test_the_discard_pile_is_read_whole_from_the_plays() -> None:
    match = played_to(Rules(variant="flip"), 3, 5, 60)
    assert discard_cards(match.observation(0)) == match.discard_pile()[::-1]
    assert discard_cards(match.observation(0, since=len(match.events))) is None


def test_sampling_is_deterministic_under_a_seed() -> None:
    match = played_to(Rules(), 4, 3, 40)
    seen = match.observation(0)
    first = Determinizer(seen, match.rules).sample(random.Random(5))
    again = Determinizer(seen, match.rules).sample(random.Random(5))
    assert first.position() == again.position()


def test_a_copy_plays_on_separately() -> None:
    match = played_to(Rules(), 2, 1, 20)
    before = match.snapshot()
    twin = match.copy()
    rollout(twin, random.Random(0))
    assert twin.decision in ("round_over", "match_over")
    assert match.snapshot() == before


def test_an_unknown_pairing_or_a_wrong_deck_is_refused() -> None:
    match = played_to(Rules(pairing="shuffled"), 2, 1, 5)
    with pytest.raises(ValueError, match="shuffled"):
        Determinizer(match.observation(0), match.rules)
    with pytest.raises(ValueError, match="variant"):
        Determinizer(match.observation(0), Rules(variant="classic"))
