"""Rule options: defaults, validation and (de)serialisation."""

from __future__ import annotations

import pytest

from arena.engine import Rules


def test_defaults_are_those_of_rules_md() -> None:
    rules = Rules()
    assert (rules.variant, rules.bluffing, rules.uno_penalty, rules.target, rules.scoring) == (
        "flip", True, "auto", 500, "winner")
    assert (rules.start_flip, rules.pairing, rules.max_decisions_per_round) == ("replace", "physical", 10_000)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"variant": "flop"}, "variant='flop'"),
        ({"uno_penalty": "never"}, "uno_penalty"),
        ({"target": 0}, "target must be a positive integer"),
        ({"max_decisions_per_round": -1}, "max_decisions_per_round"),
        ({"bluffing": "yes"}, "bluffing must be true or false"),
        ({"stacking": True}, "T7"),
    ],
)
def test_bad_options_are_refused_with_the_option_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Rules(**options)  # type: ignore[arg-type]


def test_round_trip_and_unknown_option() -> None:
    rules = Rules(variant="classic", target=200, scoring="lowest")
    assert Rules.from_dict(rules.to_dict()) == rules
    with pytest.raises(ValueError, match="unknown rule option"):
        Rules.from_dict({"colour_blind": True})
