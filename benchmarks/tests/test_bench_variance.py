"""`python -m benchmarks duplicates` and `bench control-variate`, smaller and seeded: the variance ratio of duplicate
deals, the latent model's deal luck calibrated from it, and the control variate's cross-fitted reduction
(benchmarks.duplicates, benchmarks.control_variate). The ladder benchmark is benchmarks/tests/test_bench_ladder.py."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmarks import duplicates
from benchmarks.cli import main
from benchmarks.control_variate import cross_fitted_reduction, features, in_sample_reduction
from benchmarks.tiers_sample import DealGroup, PlayedMatch


def group(first_winner: int, second_winner: int, seed: int = 0) -> DealGroup:
    """A deal group of ``a`` and ``b``: the first match won by seat ``first_winner``, the second (swapped) by
    seat ``second_winner``."""
    return DealGroup(("a", "b"), seed, PlayedMatch(first_winner, (500, 0) if first_winner == 0 else (0, 500)),
                     PlayedMatch(second_winner, (500, 0) if second_winner == 0 else (0, 500)))


def test_the_variance_ratio_of_a_deal_that_decides_everything_is_zero() -> None:
    """Seat 0 wins both matches of every deal: each duplicate pair splits 1-1, so duplicates cancel it all."""
    recorded = duplicates.Recorded("flip", tuple(group(0, 0, i) if i % 2 else group(1, 1, i) for i in range(40)))
    found = duplicates.reduction(recorded, "win", resamples=50)
    assert found.ratio == pytest.approx(0.0)


def test_the_variance_ratio_of_independent_matches_is_about_one() -> None:
    rng = random.Random(3)
    recorded = duplicates.Recorded("flip", tuple(group(rng.randrange(2), rng.randrange(2), i) for i in range(1000)))
    found = duplicates.reduction(recorded, "win", resamples=100)
    assert found.ratio is not None and found.interval95 is not None
    assert found.interval95[0] < 1.0 < found.interval95[1]
    assert abs(found.ratio - 1.0) < 0.1


def test_a_bot_that_always_wins_has_no_variance_to_reduce() -> None:
    recorded = duplicates.Recorded("flip", tuple(group(0, 1, i) for i in range(10)))
    assert duplicates.reduction(recorded, "win", resamples=10).ratio is None


def test_the_deal_luck_reproduces_the_share_it_was_solved_for() -> None:
    for share in (0.05, 0.2, 0.5):
        assert duplicates.latent_reduction(duplicates.deal_luck(share)) == pytest.approx(share, abs=1e-6)
    assert duplicates.deal_luck(0.0) == 0.0
    assert duplicates.latent_reduction(1.0) > duplicates.latent_reduction(0.5) > 0.0


def test_the_shipped_sample_gives_a_small_reduction_and_deal_luck() -> None:
    """The recorded real matches: every pair and variant, and duplicates cancel far less than in poker (measured:
    about nothing, docs/benchmarks.md)."""
    data = duplicates.load()
    assert {(r.variant, r.bots) for r in data} == {(v, p) for v in duplicates.VARIANTS for p in duplicates.PAIRS}
    assert all(len(r.groups) >= 200 for r in data)
    share = duplicates.equal_bots_share(data)
    low, high = duplicates.equal_bots_interval(data, resamples=200)
    assert -0.2 < low <= share <= high < 0.3
    assert 0.0 <= duplicates.deal_luck(share) <= duplicates.deal_luck(high) < 0.6


def test_a_new_sample_can_be_recorded_and_read(tmp_path: Path) -> None:
    data = duplicates.record(1, variants=["classic"], pairs=[("weakened", "random")])
    path = tmp_path / "dup.json"
    duplicates.save(data, 1, path)
    again = duplicates.load(path)
    assert [(r.variant, r.bots, r.groups) for r in again] == [(r.variant, r.bots, r.groups) for r in data]


def test_a_bad_sample_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nope.json"
    path.write_text("{}")
    assert main(["duplicates", "--sample", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "python -m benchmarks duplicates --record" in err


def test_the_control_variate_finds_a_covariate_that_explains_the_score() -> None:
    """Synthetic blocks whose score is the covariate plus as much noise: about half the variance goes."""
    rng = random.Random(2)
    xs = [(rng.gauss(0, 1), rng.gauss(0, 1)) for _ in range(600)]
    ys = [x[0] + rng.gauss(0, 1) for x in xs]
    assert 0.4 < cross_fitted_reduction(xs, ys, rng, splits=4) < 0.6
    assert 0.4 < in_sample_reduction(xs, ys) < 0.6
    noise = [rng.gauss(0, 1) for _ in xs]
    assert cross_fitted_reduction(xs, noise, rng, splits=4) < 0.05


def test_the_covariates_of_a_block_come_from_its_seats_deals() -> None:
    first = features(2, "flip", 0)
    assert len(first) == 6 and first == features(2, "flip", 0)
    assert first[2] >= 0 and first[3] >= 0 and 0 <= first[5] <= 1  # squares; the share of seats acting first
    assert features(3, "classic", 1) != features(3, "classic", 2)
    assert features(2, "flip", 0) != features(2, "flip", 0, secret="another secret")  # the deals come from it
