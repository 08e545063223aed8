"""`python -m benchmarks intervals`, smaller and seeded: on resampled real results the standings' win-rate and points
intervals (deal groups as clusters) hold the truth near their nominal 95 %, where the previous win-rate interval
over-covered (benchmarks.intervals); the truth it measures against is the recorded groups' own (for the batch
rating: the fit on the field's expected results)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arena.tournament import standings
from arena.tournament.standings import group_intervals
from arena.tournament.stats.plackett_luce import refit
from benchmarks.cli import main
from benchmarks.intervals import batch_truth, draw, measure, run_intervals_bench, truths
from benchmarks.tiers import replicate
from benchmarks.tiers_sample import load_sample

REPLICATES = 100


def test_the_truth_is_the_recorded_groups_mean() -> None:
    sample = load_sample()
    copies = truths(sample, ("random", "random"))
    assert set(copies) == {"random", "random#2"}
    assert copies["random"] == copies["random#2"]
    assert copies["random"].win_rate == pytest.approx(0.5, abs=0.01)  # a copy wins half, bar matches without winner
    pair = sample.of("heuristic", "weakened")
    side = 0 if pair[0].bots[0] == "heuristic" else 1
    expected = sum(g.wins()[side] for g in pair) / (2 * len(pair))
    assert truths(sample, ("heuristic", "weakened"))["heuristic"].win_rate == pytest.approx(expected)
    field = truths(sample, ("heuristic", "weakened", "random"))
    assert field["heuristic"].win_rate == pytest.approx((expected + 1.0) / 2)  # heuristic wins every random match


@pytest.mark.parametrize("duplicate", [True, False])
def test_the_drawn_groups_are_the_standings_own(duplicate: bool) -> None:
    """The benchmark tallies a replicate's deal groups directly; the standings of the same replicate, played as
    match results, give every entrant the same intervals."""
    sample = load_sample()
    field = ("weakened", "weakened", "heuristic", "random")
    drawn = draw(sample, field, 5, random.Random(11), duplicate)
    table = standings(replicate(sample, field, 5, random.Random(11), duplicate), ratings=False)
    for row in table.rows:
        groups = drawn[row.bot]
        assert (row.groups, row.matches, row.wins) == (len(groups), sum(g[0] for g in groups),
                                                       sum(g[1] for g in groups))
        win_ci, points_ci = group_intervals(groups)
        assert row.win_rate_ci == pytest.approx(win_ci) and row.points_ci == pytest.approx(points_ci)


def test_the_cluster_intervals_cover_near_their_nominal_level() -> None:
    sample = load_sample()
    figures = measure(sample, ("weakened",) * 4, 8, REPLICATES, random.Random(7))
    assert figures.groups == 24
    rate, previous = figures.coverage["win rate"], figures.coverage["win rate (previous)"]
    assert rate.replicates == REPLICATES and rate.intervals == 4 * REPLICATES
    assert 0.90 <= rate.share <= 0.99, rate
    assert previous.share > rate.share  # Wilson over groups ignores that a duplicate pair's matches barely correlate
    assert 0.90 <= figures.coverage["points"].share <= 0.99, figures.coverage["points"]
    assert "rating difference" not in figures.coverage


def test_the_runner_measures_every_field_and_deal_count_and_ratings_on_request() -> None:
    figures = run_intervals_bench(fields=(("random", "random"),), deals=(2, 4), replicates=4)
    assert [(f.field, f.deals, f.groups) for f in figures] == [(("random", "random"), 2, 2),
                                                                (("random", "random"), 4, 4)]
    # 2 duplicate pairs are 4 matches per bot: no interval is published, so none is scored (not a miss)
    assert figures[0].coverage["win rate"].intervals == 0 and figures[0].coverage["points"].intervals == 0
    assert figures[0].coverage["win rate"].text().startswith("not published (fewer than 8 matches per bot")
    assert figures[1].coverage["win rate"].intervals == figures[1].coverage["points"].intervals == 8
    figures = run_intervals_bench(fields=(("random", "random"),), deals=(2, 3), replicates=4, ratings=True,
                                  batch=10)
    assert all("win rate" not in f.coverage for f in figures)
    assert all(f.coverage["rating difference"].intervals == 4 for f in figures)
    assert all(f.coverage["batch difference"].intervals == 4 for f in figures)
    assert all(f.coverage["batch rating"].intervals == 8 for f in figures)  # each copy's own interval
    assert all(f.coverage["batch rank range"].intervals == 8 for f in figures)


def test_a_rank_range_holds_the_truth_when_it_meets_the_true_ranks() -> None:
    from benchmarks.intervals import _rank_held, true_ranks

    truth = {"a": 1.0, "a#2": 1.0 + 1e-9, "b": 0.2, "c": -0.5}
    assert true_ranks(truth, "a") == (1, 2) == true_ranks(truth, "a#2")  # copies tie: either may be first
    assert true_ranks(truth, "b") == (3, 3) and true_ranks(truth, "c") == (4, 4)
    assert _rank_held(2, 2, truth, "a") and _rank_held(2, 4, truth, "b") and not _rank_held(1, 2, truth, "c")


def test_the_batch_truth_is_what_the_estimate_targets() -> None:
    sample = load_sample()
    field = ("random", "random", "weakened")
    truth = batch_truth(sample, field, 8)
    assert truth["random"] == pytest.approx(truth["random#2"], abs=1e-9) and truth["weakened"] > truth["random"]
    # the fit on many resampled deals lands on the truth at that size (the expected results' fit)
    many = refit(replicate(sample, field, 300, random.Random(5)), bootstrap=0).estimate
    assert many == pytest.approx([batch_truth(sample, field, 300)[b] for b in ("random", "random#2", "weakened")],
                                 abs=0.15)
    with pytest.raises(ValueError, match="at least 1"):
        run_intervals_bench(deals=(0,), replicates=1)


def test_bad_deals_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["intervals", "--deals", "4,x"])
    assert stopped.value.code == 2
    assert "--deals: must be a whole number, got 'x'" in capsys.readouterr().err
    assert main(["intervals", "--field", "random,robot", "--replicates", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "random vs robot" in err and "heuristic, random, weakened" in err
    assert main(["intervals", "--validation", "--sample", "x.json"]) == 2
    assert "not both" in capsys.readouterr().err


def test_the_exact_coverage_of_copies_weighs_every_outcome_of_the_groups() -> None:
    """Single matches between copies: a copy wins each with chance 1/2, so the exact coverage is the binomial sum
    over the win counts whose published interval holds 1/2; duplicate pairs of a deterministic bot always split,
    so its interval always holds; below 8 matches nothing is published."""
    import math

    from arena.tournament.stats.intervals import Cluster, cluster_rate_interval
    from benchmarks.intervals import _compositions, copies_win_rate_coverage, exact_lines

    sample = load_sample()
    assert sorted(_compositions(5, 3)) == sorted({(a, b, 5 - a - b) for a in range(6) for b in range(6 - a)})
    for groups in (8, 13, 16):
        binomial = sum(math.comb(groups, wins) / 2**groups for wins in range(groups + 1)
                       if _in(cluster_rate_interval([Cluster(1, 1)] * wins + [Cluster(1, 0)] * (groups - wins))))
        assert copies_win_rate_coverage(sample, "random", groups, duplicate=False) == pytest.approx(binomial)
    assert copies_win_rate_coverage(sample, "weakened", 16, duplicate=False) == pytest.approx(0.979, abs=5e-4)
    assert copies_win_rate_coverage(sample, "heuristic", 6) == pytest.approx(1.0)
    assert copies_win_rate_coverage(sample, "random", 4, duplicate=False) is None
    # the lattice of 5 duplicate pairs of weakened: 98.9 % (the next outcome down would leave 92.8 %)
    assert copies_win_rate_coverage(sample, "weakened", 5) == pytest.approx(0.989, abs=5e-4)
    lines = exact_lines(sample, ["weakened"], [4, 5])
    assert lines[-2].split()[0] == "4" and "not published" in lines[-2] and "98.9%" in lines[-1]


def _in(interval: tuple[float, float] | None) -> bool:
    return interval is not None and interval[0] - 1e-9 <= 0.5 <= interval[1] + 1e-9


def test_the_exact_table_is_printed_without_replicates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["intervals", "--exact", "--deals", "8,9", "--field", "random,random"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "random duplicate" in out[1] and "random single" in out[1] and "weakened" not in out[1]
    assert [line.split()[0] for line in out[2:]] == ["8", "9"]


def test_each_entrant_is_measured_alone_on_request() -> None:
    """The field's figure pools its entrants; ``by_entrant`` adds each one's, and together they are the field's."""
    figures = measure(load_sample(), ("heuristic", "weakened", "random"), 8, 20, random.Random(5), by_entrant=True)
    alone = {name: c for name, c in figures.coverage.items() if name.startswith("win rate: ")}
    assert sorted(alone) == ["win rate: heuristic", "win rate: random", "win rate: weakened"]
    assert sum(c.hits for c in alone.values()) == figures.coverage["win rate"].hits
    assert sum(c.intervals for c in alone.values()) == figures.coverage["win rate"].intervals == 60
    assert "points: random" in figures.coverage
    assert not any(": " in name for name in measure(load_sample(), ("random", "random"), 8, 5,
                                                    random.Random(5)).coverage if not name.startswith("batch"))


def test_the_exact_coverage_of_copies_is_a_function_of_their_share_of_split_pairs() -> None:
    """The figures of issue 36: at 4 duplicate pairs the exact coverage moves 89.7-94.5 % as the share of 1-1 pairs
    moves 0.40-0.55; a bot's exact coverage is the one at its recorded shares."""
    from benchmarks.intervals import copies_win_rate_coverage, coverage_at_share, share_lines, split_share

    assert coverage_at_share(0.40, 4) == pytest.approx(0.897, abs=5e-4)
    assert coverage_at_share(0.55, 4) == pytest.approx(0.945, abs=5e-4)
    assert coverage_at_share(1.0, 6) == pytest.approx(1.0)  # every pair split: the rate is 1/2 every time
    assert coverage_at_share(0.5, 3) is None  # 6 matches: not published
    sample = load_sample()
    share = split_share(sample, "random")
    wins = [group.wins() for group in sample.of("random", "random")]
    if sum(w == (2, 0) for w in wins) == sum(w == (0, 2) for w in wins):  # 2-0 and 0-2 alike: the same chances
        assert copies_win_rate_coverage(sample, "random", 8) == pytest.approx(coverage_at_share(share, 8))
    assert share_lines([4], (0.4, 0.55))[-1].split() == ["4", "89.7%", "94.5%"]
    with pytest.raises(ValueError, match="between 0 and 1"):
        coverage_at_share(1.5, 4)


def test_the_validation_recording_is_apart_from_the_calibration_sample() -> None:
    """Other deal seeds, the search bot among its bots, every field of --validation held."""
    from benchmarks.intervals import VALIDATION_FIELDS
    from benchmarks.validation_sample import SEARCH_BOT, VALIDATION_PATH

    validation, calibration = load_sample(VALIDATION_PATH), load_sample()
    seeds = {g.seed for groups in validation.groups.values() for g in groups}
    assert not seeds & {g.seed for groups in calibration.groups.values() for g in groups}
    assert any(SEARCH_BOT in pair for pair in validation.groups)
    for field in VALIDATION_FIELDS:
        assert measure(validation, field, 4, 2, random.Random(3)).coverage["points"].replicates == 2


def test_a_validation_recording_is_played_by_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tiny recording (1 group a pair, no search bot) through the documented command, then played on."""
    from benchmarks.validation_sample import record_validation

    out = tmp_path / "v.json"
    assert main(["intervals", "--record-validation", str(out), "--seed", "5", "--groups", "1",
                 "--search-groups", "0"]) == 0
    sample = load_sample(out)
    assert {len(groups) for groups in sample.groups.values()} == {1} and len(sample.groups) == 6
    assert min(g.seed for groups in sample.groups.values() for g in groups) == 5
    assert sample == record_validation(5, 1, 0)  # the same seed plays the same deals
    assert main(["intervals", "--sample", str(out), "--field", "random,random", "--deals", "4",
                 "--replicates", "3"]) == 0
    assert "random, random" in capsys.readouterr().out
    with pytest.raises(ValueError, match="at least"):
        record_validation(-1, 1, 0)


def test_each_pair_of_the_batch_fit_is_measured_alone_on_request() -> None:
    """Issue 36: the difference interval's coverage per pair, never only pooled."""
    figures = measure(load_sample(), ("random", "random", "weakened"), 4, 2, random.Random(5), batch=5,
                      by_entrant=True)
    pairs = {name: c for name, c in figures.coverage.items() if name.startswith("batch difference: ")}
    assert sorted(pairs) == ["batch difference: random#2-weakened", "batch difference: random-random#2",
                             "batch difference: random-weakened"]
    assert sum(c.hits for c in pairs.values()) == figures.coverage["batch difference"].hits
    assert "batch rating: random#2" in figures.coverage
