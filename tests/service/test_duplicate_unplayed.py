"""Duplicate deals are claimed only where they are played: with "across" duplicates (a remote bot in the field) a
deal is shared only by tables that share no bot (:func:`arena.service.tournaments.duplicate_unplayed`)."""

from __future__ import annotations

import pytest

from arena.service.tournaments import NO_SHARED_DEAL, duplicate_unplayed
from arena.tournament import TournamentSpec


@pytest.mark.parametrize(("participants", "seats", "played"), [
    (("random", "heuristic", "mybot"), 3, False),               # one table
    (("random", "heuristic", "mybot", "other"), 3, False),      # 4 tables, each pair shares two bots
    (("random", "heuristic", "mybot", "other"), 2, True),       # {random, heuristic} and {mybot, other}
    (("random", "heuristic", "mybot", "a", "b", "c"), 3, True),
])
def test_across_duplicates_need_two_tables_that_share_no_bot(participants: tuple[str, ...], seats: int,
                                                             played: bool) -> None:
    spec = TournamentSpec(tournament_id="t", participants=participants, seats=seats, deals=2, duplicate=True,
                          duplicate_orders="across")
    assert duplicate_unplayed(spec) == ("" if played else NO_SHARED_DEAL)


def test_rotated_duplicates_and_no_duplicates_are_always_played_as_asked() -> None:
    for duplicate, orders in ((True, "rotate"), (False, "across"), (False, "rotate")):
        spec = TournamentSpec(tournament_id="t", participants=("random", "heuristic", "mybot"), seats=3, deals=1,
                              duplicate=duplicate, duplicate_orders=orders)
        assert duplicate_unplayed(spec) == ""
