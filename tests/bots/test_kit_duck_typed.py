"""What the kit plays (:func:`bots.kit.bot_factory`): a function, a ``bots.Bot`` subclass, or any class or object with a
``choose(observation, legal)`` method (a plain class made with no arguments, one instance per match and seat)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from arena.engine import Action, Match, Observation, Rules
from bots.kit import bot_factory


class Plain:
    def __init__(self) -> None:
        self.asked = 0

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        self.asked += 1
        return len(legal) - 1


def _first_decision() -> tuple[Observation, list[Action]]:
    match = Match(3, seed=5, rules=Rules())
    assert match.current is not None
    return match.observation(match.current), list(match.legal_actions())


def test_a_plain_class_is_made_afresh_for_every_match_and_seat() -> None:
    factory = bot_factory(Plain)
    first, again, other = factory("m1", 0), factory("m1", 0), factory("m2", 0)
    assert first is not again and first is not other
    observation, legal = _first_decision()
    assert first.choose(observation, legal) == len(legal) - 1


def test_an_object_with_a_choose_method_is_shared() -> None:
    shared = Plain()
    factory = bot_factory(shared)
    observation, legal = _first_decision()
    factory("m1", 0).choose(observation, legal)
    factory("m2", 1).choose(observation, legal)
    assert shared.asked == 2


def test_a_function_still_is_a_bot_and_a_class_without_choose_is_not() -> None:
    observation, legal = _first_decision()
    assert bot_factory(lambda _o, _legal: 0)("m", 0).choose(observation, legal) == 0

    class Nothing:
        pass

    with pytest.raises(TypeError, match="choose"):
        bot_factory(Nothing)  # type: ignore[arg-type]
