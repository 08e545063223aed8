"""Ladder matchmaking (arena.tournament.matchmaking): tables chosen for the ranking the ladder publishes (meetings
graph joined first, a floor of direct meetings per pair, then the expected reduction of wrong verdicts, so copies get
few blocks), duplicate blocks with seat rotation, the fairness floor, capacity and the rate limit. The policy against
uniform pairing on recorded games is benchmarks/tests/test_bench_ladder.py."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from arena.engine import Rules
from arena.runner import LocalSeat, MatchConfig, run_match_sync
from arena.tournament import MatchResult
from arena.tournament.matchmaking import (
    Entrant,
    Evidence,
    EvidenceTally,
    MatchmakingConfig,
    PairEvidence,
    RateLimit,
    Table,
    choose_tables,
    evidence_of,
    meeting_value,
)
from bots import WeakenedHeuristicBot, make_bot


def entrants(*names: str, capacity: int = 1, games: int = 10) -> list[Entrant]:
    return [Entrant(name, capacity, games) for name in names]


def evidence(**pairs: tuple[float, float, float]) -> Evidence:
    """Evidence from ``a_b=(gap, error, meetings)`` keywords (the pair's names in order, joined by ``_``)."""
    found = {}
    for key, (gap, error, meetings) in pairs.items():
        a, b = key.split("_")
        assert a < b
        found[(a, b)] = PairEvidence(gap, error, meetings)
    return Evidence(found)


def met_everywhere(names: Sequence[str], meetings: float = 20.0, **pairs: tuple[float, float, float]) -> Evidence:
    """Every pair of ``names`` met ``meetings`` times with a settled order (gap 3, error 0.3), except ``pairs``."""
    base = {f"{a}_{b}": (3.0, 0.3, meetings) for a, b in itertools.combinations(sorted(names), 2)}
    return evidence(**{**base, **pairs})


def pair_of(table: Table) -> tuple[str, ...]:
    return tuple(sorted(table.bots))


def test_copies_are_worth_next_to_nothing_once_they_met_often() -> None:
    copies_early = meeting_value(PairEvidence(0.0, 0.6, 3))
    copies_late = meeting_value(PairEvidence(0.02, 0.1, 150))
    open_pair = meeting_value(PairEvidence(0.4, 0.2, 20))
    settled = meeting_value(PairEvidence(3.0, 0.2, 20))
    assert copies_late < copies_early
    assert copies_late < open_pair / 50
    assert settled < open_pair / 50
    assert meeting_value(PairEvidence(0.4, 0.2, 20)) == meeting_value(PairEvidence(-0.4, 0.2, 20))  # symmetric


def test_past_the_floor_the_open_pair_gets_the_blocks_not_the_copies() -> None:
    """Two copies (a1, a2) that met 30 times at a difference within noise, an unequal pair (b, c) whose order is
    still open, every other pair settled: the tables go to b and c, none to the copies."""
    known = met_everywhere(("a1", "a2", "b", "c"), a1_a2=(0.05, 0.2, 30.0), b_c=(0.4, 0.25, 6.0))
    field = entrants("a1", "a2", "b", "c", capacity=3)
    tables = choose_tables(known, field, MatchmakingConfig(seats=2), max_tables=3, seed=1)
    pairs = [pair_of(t) for t in tables]
    assert pairs[0] == ("b", "c")
    assert ("a1", "a2") not in pairs


def test_the_floor_of_direct_meetings_comes_before_information() -> None:
    """Every pair has met often except d with a (once, at a difference within noise): d-a is seated first, whatever
    the information elsewhere; with the floor off the open pair b-c is."""
    names = ("a", "b", "c", "d")
    known = met_everywhere(names, a_d=(0.0, 0.3, 1.0), b_c=(0.4, 0.25, 6.0))
    field = entrants(*names)
    assert pair_of(choose_tables(known, field, MatchmakingConfig(seats=2), max_tables=1, seed=1)[0]) == ("a", "d")
    no_floor = MatchmakingConfig(seats=2, min_meetings=0)
    assert pair_of(choose_tables(known, field, no_floor, max_tables=1, seed=1)[0]) == ("b", "c")


def test_a_close_pair_whose_first_meetings_split_is_not_taken_for_copies() -> None:
    """A pair 0.6 apart with an error of 0.7 after its 2 floor meetings: one block cannot settle it, a dozen can, so
    it is worth far more than copies that met 30 times, and more than a far pair nearly settled (4 apart, error 0.8,
    8 meetings), which the one-block value preferred, starving the close pair at its floor."""
    close = PairEvidence(0.6, 0.7, 2.0)
    assert meeting_value(close) > 50 * meeting_value(PairEvidence(0.05, 0.2, 30.0))
    known = met_everywhere(("a", "b", "c", "d"), a_b=(4.0, 0.8, 8.0), c_d=(0.6, 0.7, 2.0))
    tables = choose_tables(known, entrants("a", "b", "c", "d"), MatchmakingConfig(seats=2), max_tables=1, seed=1)
    assert pair_of(tables[0]) == ("c", "d")


def test_the_floor_holds_for_every_pair_in_a_fresh_ladder() -> None:
    """A fresh ladder of 5 (no evidence yet), one table a call, each call's evidence counting the tables before: the
    first 2 x 10 tables give every pair exactly its 2 meetings."""
    names = ("a", "b", "c", "d", "e")
    met: dict[tuple[str, str], int] = {}
    for round_number in range(20):
        known = Evidence({pair: PairEvidence(0.0, 1.0, count) for pair, count in met.items()})
        (table,) = choose_tables(known, entrants(*names), MatchmakingConfig(seats=2, fairness_floor=0.0),
                                 max_tables=1, seed=3, round_number=round_number)
        a, b = pair_of(table)
        met[(a, b)] = met.get((a, b), 0) + 1
    assert sorted(met.values()) == [2] * 10


def test_a_table_that_joins_two_components_of_the_meetings_graph_comes_first() -> None:
    """{a, b} and {c, d} met only within themselves (past the floor, the floor off) and b-a is wide open: the first
    table still joins the two groups."""
    known = evidence(a_b=(0.3, 0.3, 5.0), c_d=(3.0, 0.3, 20.0))
    field = entrants("a", "b", "c", "d")
    table = choose_tables(known, field, MatchmakingConfig(seats=2, min_meetings=0), max_tables=1, seed=2)[0]
    assert len({"a", "b"} & set(table.bots)) == 1 and len({"c", "d"} & set(table.bots)) == 1


def test_with_nothing_left_to_learn_the_least_met_pair_plays() -> None:
    known = met_everywhere(("a", "b", "c"), a_c=(3.0, 0.3, 25.0), a_b=(3.0, 0.3, 30.0))
    table = choose_tables(known, entrants("a", "b", "c"), MatchmakingConfig(seats=2), max_tables=1, seed=1)[0]
    assert pair_of(table) == ("b", "c")


def test_the_fairness_floor_seats_a_bot_whose_place_is_clear() -> None:
    names = ("a", "b", "c", "d")
    known = met_everywhere(names, b_c=(0.4, 0.25, 6.0))
    field = [Entrant("a", 1, 40), Entrant("b", 1, 40), Entrant("c", 1, 40), Entrant("d", 1, 4)]
    first = choose_tables(known, field, MatchmakingConfig(seats=2), max_tables=1, seed=1)[0]
    assert "d" in first.bots and first.starved
    no_floor = choose_tables(known, field, MatchmakingConfig(seats=2, fairness_floor=0.0), max_tables=1, seed=1)[0]
    assert pair_of(no_floor) == ("b", "c") and not no_floor.starved


def test_capacity_and_max_tables_bound_what_is_chosen() -> None:
    field = [Entrant("a", 2), Entrant("b", 0), Entrant("c", 1), Entrant("d", 1), Entrant("e", 3)]
    tables = choose_tables(Evidence(), field, MatchmakingConfig(seats=2), max_tables=10, seed=3)
    seated = [bot for table in tables for bot in table.bots]
    assert "b" not in seated
    assert seated.count("a") <= 2 and seated.count("c") <= 1 and seated.count("d") <= 1 and seated.count("e") <= 3
    assert all(len(set(t.bots)) == 2 for t in tables)
    assert len(choose_tables(Evidence(), field, MatchmakingConfig(seats=2), max_tables=1, seed=3)) == 1
    assert choose_tables(Evidence(), entrants("a", "b"), MatchmakingConfig(seats=3), max_tables=5, seed=3) == []


def test_one_call_spreads_its_tables_over_pairs() -> None:
    names = ("a", "b", "c", "d")
    known = met_everywhere(names, a_b=(0.4, 0.25, 6.0), c_d=(0.4, 0.25, 6.0))
    tables = choose_tables(known, entrants(*names, capacity=4), MatchmakingConfig(seats=2), max_tables=4, seed=2)
    pairs = [pair_of(t) for t in tables]
    assert pairs.count(("a", "b")) == 2 and pairs.count(("c", "d")) == 2


def test_tables_are_deterministic_and_deals_differ() -> None:
    field = entrants("a", "b", "c", "d", "e", "f")
    known = evidence(a_b=(0.4, 0.25, 6.0), c_d=(0.1, 0.5, 2.0))
    config = MatchmakingConfig(seats=3)
    one = choose_tables(known, field, config, max_tables=2, seed=9, round_number=4)
    assert one == choose_tables(known, field, config, max_tables=2, seed=9, round_number=4)
    assert one == choose_tables(known, list(reversed(field)), config, max_tables=2, seed=9, round_number=4)
    assert len({t.deal_seed for t in one}) == 2
    assert {t.deal_seed for t in one} != {t.deal_seed for t in choose_tables(known, field, config, max_tables=2,
                                                                             seed=9, round_number=5)}


def test_a_large_field_is_filled_seat_by_seat_and_keeps_the_floor() -> None:
    """Past EXHAUSTIVE_TABLES possible tables (40 entrants at 4 seats) the tables are built around the least-met
    entrant: a fresh field's first tables seat 40 different entrants."""
    names = [f"bot{i:02d}" for i in range(40)]
    tables = choose_tables(Evidence(), entrants(*names), MatchmakingConfig(seats=4), max_tables=10, seed=1)
    assert len(tables) == 10 and len({bot for t in tables for bot in t.bots}) == 40


def test_evidence_comes_from_the_batch_fit_and_counts_blocks() -> None:
    def block(a: str, b: str, index: int, a_wins: int) -> list[MatchResult]:
        return [MatchResult(f"{index}-0", (a, b), (500, 100) if a_wins > 0 else (100, 500), 0 if a_wins > 0 else 1,
                            group=str(index)),
                MatchResult(f"{index}-1", (b, a), (100, 500) if a_wins > 1 else (500, 100), 1 if a_wins > 1 else 0,
                            group=str(index))]

    results = [r for i in range(6) for r in block("strong", "weak", i, 2)] + block("strong", "new", 9, 1)
    found = evidence_of(results, ["new", "strong", "weak", "absent"], matches_per_block=2)
    assert found.meetings("strong", "weak") == 6.0 and found.meetings("weak", "strong") == 6.0
    assert found.meetings("new", "strong") == 1.0 and found.meetings("absent", "weak") == 0.0
    assert found.of("strong", "weak").gap > 1.0 and found.of("weak", "strong").gap < -1.0
    assert found.of("strong", "weak").error > 0
    # the same evidence from running sums, the results added block by block (a ladder adds each block once)
    tally = EvidenceTally()
    for start in range(0, len(results), 2):
        tally.add(results[start:start + 2])
    summed = tally.evidence(["new", "strong", "weak", "absent"], matches_per_block=2)
    assert summed.pairs.keys() == found.pairs.keys()
    for pair, evidence in found.pairs.items():
        assert (summed.pairs[pair].gap, summed.pairs[pair].error, summed.pairs[pair].meetings) == pytest.approx(
            (evidence.gap, evidence.error, evidence.meetings))


def test_a_duplicate_block_rotates_every_bot_through_every_seat() -> None:
    table = Table(("a", "b", "c"), deal_seed=77)
    matches = table.matches()
    assert [seats for seats, _ in matches] == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    assert {seed for _, seed in matches} == {77}
    for bot in "abc":
        assert sorted(seats.index(bot) for seats, _ in matches) == [0, 1, 2]
    assert Table(("a", "b"), 5, duplicate=False).matches() == [(("a", "b"), 5)]


def test_the_rate_limit_is_a_token_bucket() -> None:
    bucket = RateLimit(per_second=2.0, burst=10.0)
    assert bucket.tables_allowed(100.0, matches_per_table=3) == 3  # full at first use
    bucket = bucket.spent(100.0, 9)
    assert bucket.tables_allowed(100.0, 3) == 0
    assert bucket.tables_allowed(101.0, 3) == 1  # 1 + 2 tokens
    assert bucket.tables_allowed(200.0, 3) == 3  # never above the burst
    with pytest.raises(ValueError, match="rate limit: 5 matches asked"):
        bucket.spent(100.5, 5)
    with pytest.raises(ValueError, match="per_second > 0"):
        RateLimit(per_second=0.0, burst=5.0)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MatchmakingConfig(seats=1), "at least 2 seats"),
        (lambda: MatchmakingConfig(fairness_floor=1.5), "fairness_floor"),
        (lambda: MatchmakingConfig(min_meetings=-1), "min_meetings"),
        (lambda: MatchmakingConfig(policy="best"), "unknown policy"),  # type: ignore[arg-type]
        (lambda: Entrant("a", capacity=-1), "must not be negative"),
        (lambda: choose_tables(Evidence(), entrants("a", "a"), MatchmakingConfig(), max_tables=1, seed=0),
         "listed twice"),
    ],
)
def test_bad_input_is_refused(make: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()  # type: ignore[operator]


def test_the_weakened_bot_is_the_heuristic_one_with_slips() -> None:
    """slip 0 plays exactly as the heuristic bot; a slip outside [0, 1] is refused."""
    rules = Rules(target=100)

    def record(slip: float) -> list[str]:
        seats = [LocalSeat(WeakenedHeuristicBot(seed=3, slip=slip), name="w"), LocalSeat(make_bot("random", 4),
                                                                                         name="r")]
        return [d.action for d in run_match_sync(MatchConfig("weak-1", 12, rules), seats).decisions]

    heuristic = [LocalSeat(make_bot("heuristic", 3), name="w"), LocalSeat(make_bot("random", 4), name="r")]
    assert record(0.0) == [d.action for d in run_match_sync(MatchConfig("weak-1", 12, rules), heuristic).decisions]
    assert record(0.5) != record(0.0)
    with pytest.raises(ValueError, match="slip must be a probability"):
        WeakenedHeuristicBot(slip=1.5)
