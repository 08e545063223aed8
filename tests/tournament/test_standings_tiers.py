"""Tiers that people can trust: a bot that never beat the winner at a shared table is not tied with it, while
a handful of matches still ties bots the data cannot separate (arena.tournament.standings, .stats)."""

from __future__ import annotations

import pytest

from arena.tournament import MatchResult, RatingPool, TournamentSpec, schedule, standings
from arena.tournament.standings import (
    direct_differences,
    rate_difference_p_value,
    ratings_p_value,
    tiers_of,
)
from arena.tournament.stats.intervals import differences_p_value, holm, z_quantile
from arena.tournament.stats.ratings import Rating
from tests.tournament.previous_tier_rule import rates_apart, rates_p_value


def _results(spec: TournamentSpec, winners: list[str]) -> list[MatchResult]:
    """The matches of ``spec`` (in schedule order), the i-th won by ``winners[i]``."""
    matches = schedule(spec)
    assert len(matches) == len(winners)
    out = []
    for m, name in zip(matches, winners, strict=True):
        winner = m.seats.index(name)
        scores = tuple(500 if seat == winner else 40 for seat in range(len(m.seats)))
        out.append(MatchResult(match_id=m.match_id, seats=m.seats, scores=scores, winner=winner, group=m.group))
    return out


def test_four_deal_groups_at_one_three_seat_table_cannot_tell_anyone_apart() -> None:
    # 3 bots, one 3-seat table, 4 duplicate deals: 12 matches in 4 deal groups.
    spec = TournamentSpec("t-readme", ("random", "heuristic", "mybot"), seats=3, deals=4, duplicate=True, seed=7)
    winners = ["mybot", "mybot", "heuristic"] * 2 + ["mybot", "heuristic", "heuristic"] + ["mybot"] * 2 + ["heuristic"]
    results = _results(spec, winners)
    assert len({r.group for r in results}) == 4
    table = standings(results, participants=spec.participants)
    rows = {r.bot: r for r in table.rows}
    assert (rows["mybot"].wins, rows["heuristic"].wins, rows["random"].wins) == (7, 5, 0)
    assert rows["random"].groups == 4 and rows["random"].matches == 12
    # The overall rates cannot tell 7 of 12 from 0 of 12 with 4 deal groups as the sample ...
    z = z_quantile(0.95)
    assert not rates_apart(7, 12, 4, 0, 12, 4, z)
    # ... nor can their direct meetings, exactly: mybot won more in each of the 4 groups, and 4 groups all one way
    # happen by chance once in 8 (a t-test on these values claimed p = 0.006).
    differences = direct_differences(results)[("mybot", "random")]
    assert sorted(differences) == pytest.approx([1 / 3, 2 / 3, 2 / 3, 2 / 3])
    assert differences_p_value(differences) == pytest.approx(0.125)
    assert not differences_p_value(differences) < 0.05
    assert [r.bot for r in table.rows] == ["mybot", "heuristic", "random"]
    assert table.tiers == (("mybot", "heuristic", "random"),)


def test_a_bot_that_never_won_against_the_winner_in_eight_groups_is_told_apart() -> None:
    spec = TournamentSpec("t-eight", ("random", "heuristic", "mybot"), seats=3, deals=8, duplicate=True, seed=7)
    winners = (["mybot", "mybot", "heuristic"] * 2 + ["mybot", "heuristic", "heuristic"] + ["mybot"] * 2
               + ["heuristic"]) * 2
    table = standings(_results(spec, winners), participants=spec.participants)
    rows = {r.bot: r for r in table.rows}
    assert "random" not in rows["mybot"].indistinguishable
    assert rows["random"].tier > rows["mybot"].tier


def test_a_bot_with_no_win_in_twelve_two_seat_matches_against_the_winner_is_in_another_tier() -> None:
    spec = TournamentSpec("t-pair", ("alpha", "random"), seats=2, deals=6, duplicate=True, seed=3)
    table = standings(_results(spec, ["alpha"] * 12), participants=spec.participants)
    assert [(r.bot, r.wins, r.matches, r.tier) for r in table.rows] == [("alpha", 12, 12, 1), ("random", 0, 12, 2)]
    assert table.tiers == (("alpha",), ("random",))


def test_too_few_matches_still_tie() -> None:
    # 2 matches, both won by alpha: no test at 95 % separates them (the rates test did before it had its
    # continuity correction; an exact test gives p = 0.33).
    spec = TournamentSpec("t-few", ("alpha", "beta"), seats=2, deals=2, seed=3)
    table = standings(_results(spec, ["alpha", "alpha"]), participants=spec.participants)
    assert [r.tier for r in table.rows] == [1, 1]
    assert table.row("alpha").indistinguishable == ("beta",)


def test_an_even_record_ties() -> None:
    spec = TournamentSpec("t-even", ("alpha", "beta"), seats=2, deals=20, seed=3)
    table = standings(_results(spec, ["alpha", "beta"] * 10), participants=spec.participants)
    assert len(table.tiers) == 1 and sorted(table.tiers[0]) == ["alpha", "beta"]


@pytest.mark.parametrize(
    ("differences", "apart"),
    [
        ([], False),
        ([1.0], False),  # one sample: nothing to compare its spread with
        ([1.0] * 5, False),  # all one way, but a sign test needs 6 at 95 %
        ([1.0] * 6, True),
        ([-1 / 3] * 6, True),  # the direction does not matter
        ([0.0] * 10, False),
        ([1.0, -1.0] * 6, False),
        ([1.0] * 10 + [-1.0] * 2, True),  # 10 to 2: the exact sign test says p = 0.039 as well
        ([1.0] * 8 + [-1.0] * 4, False),  # 8 to 4: p = 0.39
        ([0.0] * 20 + [1.0] * 3, False),
    ],
)
def test_differences_apart(differences: list[float], apart: bool) -> None:
    assert (differences_p_value(differences) < 0.05) is apart


def test_rates_apart_with_continuity_correction() -> None:
    z = z_quantile(0.95)
    assert not rates_apart(2, 2, 2, 0, 2, 2, z)
    assert rates_apart(12, 12, 12, 0, 12, 12, z)
    assert rates_apart(7, 12, 12, 0, 12, 12, z)  # without duplicate deals every match is a sample
    assert not rates_apart(7, 12, 4, 0, 12, 4, z)  # with 4 duplicate groups the rates alone are not enough


def test_a_bot_that_forfeited_everything_ranks_below_one_that_played_whatever_its_pool_rating() -> None:
    # One 3-seat table: ace wins every match; random plays and loses without a point; away never connected and
    # forfeits. Same win rate, same points: the carried-over pool rating (away's is high) must not decide.
    spec = TournamentSpec("t-away", ("ace", "random", "away"), seats=3, deals=4, seed=3)
    results = []
    for m in schedule(spec):
        winner = m.seats.index("ace")
        scores = tuple(100 if seat == winner else 0 for seat in range(3))
        results.append(MatchResult(match_id=m.match_id, seats=m.seats, scores=scores, winner=winner,
                                   forfeits=(m.seats.index("away"),), group=m.group))
    prior = RatingPool(ratings={"away": Rating(mu=40.0, sigma=2.0)})
    table = standings(results, participants=spec.participants, pool=prior)
    assert table.row("away").mu > table.row("random").mu  # the carried-over rating still favours away
    assert (table.row("random").win_rate, table.row("away").win_rate) == (0.0, 0.0)
    assert (table.row("random").points, table.row("away").points) == (0, 0)
    assert [r.bot for r in table.rows] == ["ace", "random", "away"]


def test_holm_holds_the_smallest_p_value_to_alpha_over_m() -> None:
    assert holm([0.01, 0.04, 0.03], 0.05) == [True, False, False]  # 0.01 < 0.05/3, then 0.03 >= 0.05/2
    assert holm([0.01, 0.02, 0.024], 0.05) == [True, True, True]
    assert holm([0.04], 0.05) == [True]
    assert holm([0.05], 0.05) == [False]
    assert holm([], 0.05) == []


def test_a_tier_ends_only_where_every_bot_above_is_told_apart_from_every_bot_below() -> None:
    def matrix(pairs: set[tuple[int, int]], n: int) -> list[list[bool]]:
        return [[(min(i, j), max(i, j)) in pairs for j in range(n)] for i in range(n)]

    everything = {(i, j) for i in range(4) for j in range(i + 1, 4)}
    assert tiers_of(matrix(everything, 4)) == [1, 2, 3, 4]
    assert tiers_of(matrix(set(), 4)) == [1, 1, 1, 1]
    # 0 and 2 are told apart, but 1 is told apart from neither: no boundary can hold
    assert tiers_of(matrix({(0, 2)}, 3)) == [1, 1, 1]
    # 1 and 2 tie; every other pair is told apart: {0}, {1, 2}, {3}
    assert tiers_of(matrix(everything - {(1, 2)}, 4)) == [1, 2, 2, 3]
    # a tie that reaches back over a boundary (0 with 2) keeps the rows between together
    assert tiers_of(matrix(everything - {(0, 2)}, 4)) == [1, 1, 1, 2]
    assert tiers_of([]) == []


def test_p_values_agree_with_the_single_tests() -> None:
    z = z_quantile(0.95)
    for args in [(7, 12, 4, 0, 12, 4), (7, 12, 12, 0, 12, 12), (2, 2, 2, 0, 2, 2), (5, 10, 10, 6, 10, 10)]:
        assert (rates_p_value(*args) < 0.05) == rates_apart(*args, z)
    assert ratings_p_value(25.0, 1.0, 25.0, 1.0) == 1.0
    assert ratings_p_value(27.0, 1.0, 25.0, 0.0) == pytest.approx(0.0455, abs=1e-4)


def test_the_rate_difference_takes_deal_groups_as_clusters_table_by_table() -> None:
    # Two bots that beat a third every time and split 6 to 2 between themselves (8 single matches): not told apart.
    a = {f"ab{i}": [1, 1 if i < 6 else 0] for i in range(8)} | {f"ac{i}": [1, 1] for i in range(16)}
    b = {f"ab{i}": [1, 0 if i < 6 else 1] for i in range(8)} | {f"bc{i}": [1, 1] for i in range(16)}
    table_of = {g: g[:2] for g in set(a) | set(b)}
    assert rate_difference_p_value(a, b, table_of) > 0.05
    # 8 duplicate pairs split 1 to 1: the same rate, whatever the matches' count
    even = {f"ab{i}": [2, 1] for i in range(8)}
    assert rate_difference_p_value(even, even, dict.fromkeys(even, "ab")) == 1.0
    # one bot won all 16 of its matches against a third, the other none of its 16: told apart
    c = {f"ac{i}": [2, 2] for i in range(16)}
    d = {f"dc{i}": [2, 0] for i in range(16)}
    assert rate_difference_p_value(c, d, {g: g[:2] for g in set(c) | set(d)}) < 0.001
    assert rate_difference_p_value(c, {}, {}) == 1.0
