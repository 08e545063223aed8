"""Seating: every pair sits in both next-seat orders (who takes whose skips and draws) as equally as the design
allows."""

from __future__ import annotations

import pytest

from arena.tournament import TournamentSpec, schedule, tables
from arena.tournament.design import complete_tables, next_seat_imbalance, orient_developed
from arena.tournament.schedule import reversed_round, uses_cyclic_design
from benchmarks.seating import circular_schedule, schedule_stats

from .tournament_helpers import pair_spread


def bots(n: int) -> tuple[str, ...]:
    return tuple(f"bot{i:02d}" for i in range(n))


def unreversed_deals(spec: TournamentSpec) -> int:
    """Deals (counted as the matches one table plays per deal) not cancelled by a reversed one."""
    forward = sum(1 for d in range(spec.deals) if not reversed_round(spec, d))
    return abs(2 * forward - spec.deals)


# (n, k, deals, duplicate, max_tables): n up to 30, k 3..6, both designs
CASES = [
    (4, 3, 1, False, 2000), (5, 3, 2, False, 2000), (6, 3, 6, False, 2000), (7, 4, 3, False, 2000),
    (8, 4, 8, False, 2000), (9, 3, 1, False, 2000), (10, 5, 3, True, 2000), (6, 6, 2, False, 2000),
    (12, 3, 2, True, 2000), (11, 5, 1, False, 2000), (13, 3, 2, False, 1), (16, 4, 3, False, 1),
    (20, 5, 1, False, 1), (30, 6, 2, False, 1), (27, 3, 3, True, 1),
]


@pytest.mark.parametrize(("n", "k", "deals", "duplicate", "max_tables"), CASES)
def test_balanced_seating_bounds(n: int, k: int, deals: int, duplicate: bool, max_tables: int) -> None:
    for seed in (0,) if max_tables == 1 else (0, 1):
        spec = TournamentSpec("s", bots(n), seats=k, deals=deals, duplicate=duplicate, seed=seed,
                              max_tables=max_tables)
        matches = schedule(spec)
        stats = schedule_stats(matches, spec.participants)
        per_deal = k if duplicate else 1
        net = unreversed_deals(spec) * per_deal
        # exact when the reversed rounds cancel the others: even deals with duplicates or in the cyclic design,
        # 2k deals in the complete design
        if net == 0:
            assert stats.next_seat_imbalance == 0 and stats.one_way_pairs == 0
        # otherwise a pair is off by at most 1 table (cyclic) / 3 tables (complete design) per unreversed deal,
        # whatever the seed: the figures the docs give (python -m benchmarks seating measures more)
        bound = 1 if uses_cyclic_design(spec) and k != 3 else 3
        assert stats.next_seat_imbalance <= bound * net
        # what the seat balance already guaranteed still holds
        assert stats.matches_per_bot[0] == stats.matches_per_bot[1]
        assert stats.seat_spread <= 2


def test_circular_seating_had_one_way_pairs() -> None:
    # the case: 12 bots at 6 seats: a pair sat in one order at all its 210 shared tables (with 6 deals, in
    # all its 1,260 shared matches: python -m benchmarks seating)
    old = complete_tables(12, 6, 0, None)
    new = complete_tables(12, 6, 0, None, balance_direction=True)
    assert max(max(row) for row in next_seat_imbalance(12, old)) == 210
    imbalance = next_seat_imbalance(12, new)
    assert max(max(row) for row in imbalance) <= 1
    assert sorted(tuple(sorted(t)) for t in new) == sorted(tuple(sorted(t)) for t in old)


def test_orientation_keeps_tables_and_development() -> None:
    blocks = [(0, 1, 3), (0, 4, 9), (2, 5, 11)]
    turned = orient_developed(blocks, 13)
    assert [sorted(b) for b in turned] == [sorted(b) for b in blocks]
    tables = complete_tables(9, 3, 0, None, balance_direction=True)
    assert sorted(tuple(sorted(t)) for t in tables) == sorted(
        tuple(sorted(t)) for t in complete_tables(9, 3, 0, None))
    imbalance = next_seat_imbalance(9, tables)
    assert max(max(row) for row in imbalance) <= 1


def test_reversed_deals_keep_duplicates_whole() -> None:
    spec = TournamentSpec("d", bots(5), seats=3, deals=2, duplicate=True, seed=4)
    first, second = (m for m in schedule(spec) if m.table == 0 and m.rotation == 0)
    assert second.seats == first.seats[::-1]
    assert len({(bot, seat) for m in schedule(spec) if m.table == 0 and m.deal == 1
                for seat, bot in enumerate(m.seats)}) == 9  # every bot holds every hand of the reversed deal


def test_two_seats_are_unchanged() -> None:
    for deals in (1, 4, 5):
        spec = TournamentSpec("two", bots(6), seats=2, deals=deals, seed=9)
        assert schedule(spec) == circular_schedule(spec)


def test_the_circular_seating_is_the_same_tables_in_another_order() -> None:
    for spec in (TournamentSpec("c", bots(7), seats=3, deals=3, seed=2),
                 TournamentSpec("d", bots(13), seats=3, deals=2, seed=5, max_tables=1)):
        balanced, circular = schedule(spec), circular_schedule(spec)
        assert [sorted(m.seats) for m in balanced] == [sorted(m.seats) for m in circular]
        assert schedule_stats(circular, spec.participants).one_way_pairs > 0
        assert schedule_stats(balanced, spec.participants).one_way_pairs == 0


def test_longer_search_closes_the_pair_spread_gap() -> None:
    # n=30, k=6, seed 332: the search before ended with pairs meeting once or three times (spread 2); the balanced
    # seating's longer search (run only where that one failed) finds a design where every pair meets 2 or 3 times
    spec = TournamentSpec("b", bots(30), seats=6, seed=332, max_tables=1)
    number = {bot: i for i, bot in enumerate(spec.participants)}
    low, high = pair_spread(30, [[number[b] for b in t] for t in tables(spec)])
    assert low >= 1 and high - low <= 1
