"""TournamentSpec validation, serialisation and the rating-pool key."""

from __future__ import annotations

import pytest

from arena.tournament import TournamentSpec, rating_pool_key
from arena.tournament._rng import stable_digest

BOTS = ("a", "b", "c", "d")


def test_defaults_are_valid() -> None:
    spec = TournamentSpec("t1", BOTS)
    assert spec.seats == 2 and spec.deals == 1 and not spec.duplicate
    assert spec.rules.variant == "flip"
    assert spec.rules.target == 500


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"participants": ("a",)}, "at least 2 participants"),
        ({"participants": ()}, "at least 2 participants"),
        ({"participants": ("a", "b", "a")}, "duplicate participant name"),
        ({"participants": ("a", "")}, "non-empty"),
        ({"participants": ("a", " b")}, "outer spaces"),
        ({"participants": "ab"}, "list of bot names"),
        ({"seats": 5}, "table size 5 is larger than the field of 4"),
        ({"seats": 1}, "seats must be between 2 and 10"),
        ({"seats": 11}, "seats must be between 2 and 10"),
        ({"seats": 2.0}, "seats must be an integer"),
        ({"deals": 0}, "deals must be at least 1"),
        ({"seed": -1}, "seed must be at least 0"),
        ({"decision_deadline_ms": 0}, "decision_deadline_ms must be at least 1"),
        ({"variant": "mega"}, "variant must be"),
        ({"options": {"target": 0}}, "target"),
        ({"options": {"colour": "red"}}, "unknown rule option"),
        ({"options": {"variant": "classic"}}, "name variant"),
        ({"duplicate_orders": "some"}, "duplicate_orders"),
        ({"tournament_id": "has space"}, "tournament_id"),
        ({"tournament_id": ""}, "tournament_id"),
        ({"tournament_id": "a:b"}, "tournament_id"),
        ({"pair_meetings": 0}, "pair_meetings"),
        ({"duplicate": 1}, "duplicate must be true or false"),
    ],
)
def test_validation_errors(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"tournament_id": "t1", "participants": BOTS}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        TournamentSpec(**args)  # type: ignore[arg-type]


def test_all_orders_limited_to_small_tables() -> None:
    bots = tuple(f"b{i}" for i in range(6))
    TournamentSpec("t", bots, seats=4, duplicate=True, duplicate_orders="all")
    with pytest.raises(ValueError, match="k! seat orders"):
        TournamentSpec("t", bots, seats=5, duplicate=True, duplicate_orders="all")


def test_table_size_equal_to_field_is_allowed() -> None:
    spec = TournamentSpec("t", BOTS, seats=4)
    assert spec.seats == 4


def test_round_trip_through_dict() -> None:
    spec = TournamentSpec(
        "t-9",
        BOTS,
        variant="classic",
        options={"target": 300},
        seats=3,
        deals=5,
        duplicate=True,
        seed=42,
        decision_deadline_ms=250,
    )
    again = TournamentSpec.from_dict(spec.to_dict())
    assert again == spec
    assert again.options == {"target": 300}


def test_from_dict_rejects_unknown_and_missing_fields() -> None:
    with pytest.raises(ValueError, match="unknown tournament field"):
        TournamentSpec.from_dict({"tournament_id": "t", "participants": ["a", "b"], "colour": 1})
    with pytest.raises(ValueError, match="missing tournament field"):
        TournamentSpec.from_dict({"tournament_id": "t"})


def test_pool_key_normalises_defaults() -> None:
    assert rating_pool_key("flip", {}) == rating_pool_key("flip", {"target": 500})
    assert rating_pool_key("flip", {}) == rating_pool_key("flip", {"bluffing": True, "variant": "flip"})
    assert rating_pool_key("flip", {}) != rating_pool_key("flip", {"target": 300})
    assert rating_pool_key("flip", {}) != rating_pool_key("classic", {})
    assert rating_pool_key("classic", {}).startswith("classic:")


def test_pool_key_is_a_fixed_string() -> None:
    # SHA-256 of canonical JSON: the same in every process and release; changing it splits pools.
    key = rating_pool_key("flip", {})
    assert key == "flip:" + stable_digest({"variant": "flip"})
    assert key == "flip:e7dde3e167c8fd4c"
    assert key == TournamentSpec("t", BOTS).rating_pool
    assert len(key) == len("flip:") + 16
    assert key == rating_pool_key("flip", {"scoring": "winner", "pairing": "physical"})


def test_matches_per_deal() -> None:
    assert TournamentSpec("t", BOTS, seats=3).matches_per_deal == 1
    assert TournamentSpec("t", BOTS, seats=3, duplicate=True).matches_per_deal == 3
    assert TournamentSpec("t", BOTS, seats=3, duplicate=True, duplicate_orders="all").matches_per_deal == 6
    across = TournamentSpec("t", BOTS, seats=3, duplicate=True, duplicate_orders="across")
    assert across.matches_per_deal == 1 and across.shared_across_tables and not across.rotated
