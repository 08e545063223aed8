"""Rating pools: order independence, idempotence, persistence as plain data."""

from __future__ import annotations

import json
import random

import pytest

from arena.tournament import MatchResult, Rating, RatingPool, TournamentSpec, schedule

from .tournament_helpers import play

STRENGTH = {"ace": 8.0, "bee": 4.0, "cat": 2.0, "dog": 1.0, "eel": 1.0}


def results(seats: int = 3, seed: int = 1, deals: int = 6) -> list[MatchResult]:
    spec = TournamentSpec("rt", tuple(STRENGTH), seats=seats, deals=deals, duplicate=True, seed=seed)
    return play(schedule(spec), STRENGTH, seed=seed)


def test_order_of_arrival_does_not_matter() -> None:
    base = results()
    expected = RatingPool("flip:x").updated(base).to_dict()
    for seed in range(5):
        shuffled = list(base)
        random.Random(seed).shuffle(shuffled)
        assert RatingPool("flip:x").updated(shuffled).to_dict() == expected


def test_duplicates_count_once_and_conflicts_raise() -> None:
    base = results(seats=2)
    once = RatingPool().updated(base)
    assert RatingPool().updated(base + base[:10]) == once
    assert once.applied == len(base)
    changed = MatchResult(base[0].match_id, base[0].seats, base[0].scores, 1 - (base[0].winner or 0))
    with pytest.raises(ValueError, match="two different results"):
        RatingPool().updated([*base, changed])


def test_stronger_bots_rate_higher() -> None:
    pool = RatingPool().updated(results(seats=3, deals=20))
    mus = {bot: pool.rating(bot).mu for bot in STRENGTH}
    assert mus["ace"] > mus["bee"] > mus["cat"]
    assert mus["cat"] > min(mus["dog"], mus["eel"])
    assert all(pool.rating(b).matches == 20 * 6 * 3 for b in STRENGTH)  # C(4,2) tables each x 20 deals x 3


def test_sigma_never_grows_without_drift() -> None:
    pool = RatingPool()
    previous = {b: pool.rating(b).sigma for b in STRENGTH}
    played = sorted(results(seats=2), key=lambda r: r.match_id)
    assert played
    for r in played:
        pool = pool.updated([r])
        for bot in r.seats:
            assert pool.rating(bot).sigma <= previous[bot] + 1e-12
            previous[bot] = pool.rating(bot).sigma


def test_multiplayer_winner_up_last_down() -> None:
    r = MatchResult("m", ("a", "b", "c", "d"), (520, 90, 60, 10), winner=0)
    pool = RatingPool().updated([r])
    prior = RatingPool().rating("zzz")
    assert pool.rating("a").mu > prior.mu > pool.rating("d").mu
    assert pool.rating("b").mu > pool.rating("c").mu > pool.rating("d").mu
    assert prior == Rating(25.0, 25.0 / 3.0, 0)


def test_carry_over_between_tournaments() -> None:
    base = sorted(results(seats=2), key=lambda r: r.match_id)
    half = len(base) // 2
    stepwise = RatingPool().updated(base[:half]).updated(base[half:])
    assert stepwise.to_dict() == RatingPool().updated(base).to_dict()


def test_tournament_applied_once() -> None:
    base = results(seats=2)
    pool = RatingPool("k").with_tournament("rt", base)
    assert pool.tournaments == ("rt",)
    assert pool.with_tournament("rt", base) is pool
    assert pool.ratings == RatingPool("k").updated(base).ratings
    again = pool.with_tournament("rt2", base[:5])
    assert again.tournaments == ("rt", "rt2") and again.applied == len(base) + 5


def test_serialisation_round_trip() -> None:
    pool = RatingPool("classic:abc", beta=3.0).updated(results()).with_tournament("t", [])
    text = json.dumps(pool.to_dict(), sort_keys=True)
    again = RatingPool.from_dict(json.loads(text))
    assert again == pool
    assert json.dumps(again.to_dict(), sort_keys=True) == text
    assert RatingPool.from_dict(json.loads(json.dumps(pool.to_dict()))) == pool
    assert list(pool.to_dict()["ratings"]) == sorted(STRENGTH)


def test_bad_pool_data() -> None:
    with pytest.raises(ValueError, match="format"):
        RatingPool.from_dict({"format": 99})
    with pytest.raises(ValueError, match="model"):
        RatingPool.from_dict({"model": "elo"})
    with pytest.raises(ValueError, match="sigma"):
        RatingPool(sigma=0.0)


def test_rating_helpers() -> None:
    r = Rating(30.0, 2.0, 5)
    assert r.ordinal == pytest.approx(24.0)
    lo, hi = r.interval()
    assert lo == pytest.approx(30 - 1.96 * 2, abs=1e-3) and hi == pytest.approx(30 + 1.96 * 2, abs=1e-3)
    assert RatingPool().rating("x") == Rating(25.0, 25.0 / 3.0, 0)
