"""Duplicate deals against the real engine: every rotation of a deal deals the same hands per seat."""

from __future__ import annotations

from collections import defaultdict

import pytest

from arena.engine import Match
from arena.tournament import MatchSpec, TournamentSpec, schedule


@pytest.mark.parametrize(("variant", "seats"), [("flip", 2), ("flip", 3), ("classic", 4)])
def test_every_bot_holds_every_hand_of_a_deal(variant: str, seats: int) -> None:
    spec = TournamentSpec(
        "eng", ("a", "b", "c", "d", "e"), variant=variant, seats=seats, deals=2, duplicate=True
    )
    groups: dict[str, list[MatchSpec]] = defaultdict(list)
    for m in schedule(spec):
        groups[m.group].append(m)
    assert len(groups) >= 4
    for members in list(groups.values())[:4]:
        held: dict[str, set[tuple[str, ...]]] = defaultdict(set)
        hands_per_seat = None
        for m in members:
            match = Match(players=m.players, seed=m.seed, rules=m.rules)
            hands = [tuple(sorted(str(c) for c in match.hand(s))) for s in range(m.players)]
            if hands_per_seat is None:
                hands_per_seat = hands
            assert hands == hands_per_seat  # same seed: the same hand in the same seat
            for seat, bot in enumerate(m.seats):
                held[bot].add(hands[seat])
        assert hands_per_seat is not None
        for bot in members[0].seats:
            assert held[bot] == set(hands_per_seat)  # each bot held every hand of the deal
