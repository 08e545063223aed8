"""Verdicts adjusted for who met whom and that explain themselves (issue 36 item 2, issue 38 item 3): a 2-bot field
uses the exact sign test (4-0 is p = 0.125, 7-1 p = 0.07), larger fields the batch model, every pair not told
apart says about how many more matches would tell it apart, and a field where nothing is told apart says so in one
sentence."""

from __future__ import annotations

from arena.tournament import MatchResult, standings
from arena.tournament.adjusted import fitted_standings
from arena.tournament.stats.intervals import more_samples, sign_test_more, sign_test_p_value
from arena.tournament.stats.plackett_luce import refit
from arena.tournament.stats.verdicts import SIGN_TEST, PairVerdict, Verdicts, summary


def duel(wins_a: int, wins_b: int, a: str = "heuristic", b: str = "random") -> list[MatchResult]:
    """Single 2-seat matches, seats alternating: ``a`` wins ``wins_a`` of them, ``b`` the rest."""
    results = []
    for i in range(wins_a + wins_b):
        seats = (a, b) if i % 2 == 0 else (b, a)
        winner_name = a if i < wins_a else b
        winner = seats.index(winner_name)
        scores = tuple(100 if seat == winner else 0 for seat in range(2))
        results.append(MatchResult(f"m{i:03d}", seats, scores, winner))
    return results


def test_the_sign_test_is_exact_and_two_sided() -> None:
    assert sign_test_p_value(4, 0) == 0.125
    assert abs(sign_test_p_value(7, 1) - 0.0703125) < 1e-12
    assert abs(sign_test_p_value(1, 7) - 0.0703125) < 1e-12
    assert sign_test_p_value(6, 0) < 0.05 < sign_test_p_value(5, 0)
    assert sign_test_p_value(3, 3) == 1.0 and sign_test_p_value(0, 0) == 1.0
    # More decided groups at the current split: 4-0 needs 6-0 (2 more), 7-1 needs 8-1 or so; an even split never.
    assert sign_test_more(4, 0, 0.05) == 2
    assert sign_test_more(7, 1, 0.05) == 1
    assert sign_test_more(6, 0, 0.05) == 0
    assert sign_test_more(5, 5, 0.05) is None


def test_more_samples_scales_the_error_with_the_root_of_the_samples() -> None:
    # z = 1.96: a gap of one error needs 1.96**2 = 3.84 times the samples.
    assert more_samples(1.0, 1.0, 100, 0.05) == 285
    assert more_samples(3.0, 1.0, 100, 0.05) == 0
    assert more_samples(0.0, 1.0, 100, 0.05) is None


def test_two_bots_of_single_matches_use_the_exact_sign_test() -> None:
    for wins, told in ((4, False), (7, False), (6, True)):
        results = duel(wins, 1 if wins == 7 else 0)
        fit = refit(results, ("heuristic", "random"))
        assert fit.test == SIGN_TEST
        table, _ = fitted_standings(standings(results), results, ("heuristic", "random"))
        assert [row.bot for row in table.rows] == ["heuristic", "random"]
        pair = table.verdicts.pairs[0]
        assert pair.told_apart is told and pair.test == SIGN_TEST
        assert [row.tier for row in table.rows] == ([1, 2] if told else [1, 1])
        if not told:
            assert pair.more_matches is not None and pair.more_matches >= 1
            assert table.verdicts.summary.startswith("No two bots are told apart yet: at the current differences, "
                                                     "heuristic vs random needs about ")
            assert "more matches between them" in table.verdicts.summary


def test_a_larger_field_is_judged_by_the_batch_model_and_says_what_would_split_it() -> None:
    results = []
    bots = ("heuristic", "heuristic#2", "random")
    number = 0
    for a, b in (("heuristic", "random"), ("heuristic#2", "random"), ("heuristic", "heuristic#2")):
        for deal in range(12):
            strong = a if b == "random" and deal % 6 else (a if deal % 2 else b)
            seats = (a, b) if deal % 2 else (b, a)
            winner = seats.index(strong)
            results.append(MatchResult(f"m{number:03d}", seats, tuple(100 if s == winner else 0 for s in range(2)),
                                       winner))
            number += 1
    table, rated = fitted_standings(standings(results), results, bots)
    assert [row.bot for row in table.rows][-1] == "random"
    assert [row.rank for row in table.rows] == [1, 2, 3]
    by_pair = {(p.bot_a, p.bot_b): p for p in table.verdicts.pairs}
    assert len(by_pair) == 3 and all(p.test == "batch" for p in by_pair.values())
    copies = next(p for (a, b), p in by_pair.items() if {a, b} == {"heuristic", "heuristic#2"})
    assert not copies.told_apart and copies.more_matches is None  # 6-6: even, no number of matches would do
    # The rows' tiers are the batch ratings' (one computation): the same tier and "not told apart" in both.
    assert [(r.bot, r.tier) for r in table.rows] == [(r.bot, r.tier) for r in rated]
    assert dict(table.to_dict()["verdicts"]) == table.verdicts.to_dict()
    assert Verdicts.from_dict(table.verdicts.to_dict()) == table.verdicts


def test_the_summary_reads_as_one_sentence() -> None:
    waiting = PairVerdict("heuristic", "random", False, 0.2, 40, "batch")
    even = PairVerdict("random", "random#2", False, 1.0, None, "batch")
    apart = PairVerdict("heuristic", "random#2", True, 0.001, None, "batch")
    assert summary([waiting, even], 30) == ("No two bots are told apart yet: at the current differences, heuristic "
                                            "vs random needs about 40 more matches of this field, played as so far.")
    assert summary([even], 30) == ("No two bots are told apart yet: they are even so far: no number of matches at "
                                   "the current difference would tell them apart.")
    assert summary([apart, waiting, even], 30).startswith("1 of 3 pairs are told apart (95 %); of the rest")
    assert summary([apart], 30) == "heuristic and random#2 are told apart (95 %)."
    assert summary([waiting], 0) == "No match is recorded yet: no two bots are told apart."
    assert summary([], 0) == ""
