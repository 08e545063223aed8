"""MatchResult validation, finishing ranks and serialisation."""

from __future__ import annotations

import json

import pytest

from arena.tournament import MatchResult


def test_ranks_winner_then_scores_then_forfeits() -> None:
    r = MatchResult("m", ("a", "b", "c", "d"), (120, 510, 300, 300), winner=1, forfeits=(0,))
    assert r.ranks() == (3, 0, 1, 1)


def test_ranks_lowest_scoring() -> None:
    r = MatchResult("m", ("a", "b", "c"), (600, 90, 250), winner=1, scoring="lowest")
    assert r.ranks() == (2, 0, 1)


def test_ranks_without_winner_are_by_score() -> None:
    r = MatchResult("m", ("a", "b"), (0, 0), winner=None, forfeits=(0, 1), end_reason="forfeit")
    assert r.ranks() == (0, 0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seats": ("a",), "scores": (1,)}, "at least 2 seats"),
        ({"seats": ("a", "a")}, "more than one seat"),
        ({"scores": (1, 2, 3)}, "3 scores for 2 seats"),
        ({"winner": 2}, "out of range"),
        ({"forfeits": (5,)}, "forfeit seat 5"),
        ({"forfeits": (0,)}, "cannot have forfeited"),
        ({"strikes": (1,)}, "strike counts"),
        ({"scoring": "highest"}, "scoring"),
        ({"match_id": ""}, "match_id"),
    ],
)
def test_validation(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"match_id": "m", "seats": ("a", "b"), "scores": (500, 20), "winner": 0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        MatchResult(**args)  # type: ignore[arg-type]


def test_round_trip_and_helpers() -> None:
    r = MatchResult(
        "t:d0000:t000001:r01",
        ("a", "b", "c"),
        (510, 20, 30),
        winner=0,
        rounds=4,
        end_reason="target",
        forfeits=(2,),
        strikes=(0, 1, 9),
        group="t:d0000:t000001",
    )
    again = MatchResult.from_dict(json.loads(json.dumps(r.to_dict())))
    assert again == r
    assert r.deal_group == "t:d0000:t000001"
    assert r.seats.index("c") == 2 and r.strikes_of(2) == 9
    bare = MatchResult("x", ("a", "b"), (1, 500), winner=1)
    assert bare.deal_group == "x" and bare.strikes_of(0) == 0
