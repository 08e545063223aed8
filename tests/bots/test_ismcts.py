"""The search bot (bots.ismcts): legal moves in both variants, in process and through the kit, a time budget it
keeps to, the same choices under the same seed, and its levels by name."""

from __future__ import annotations

import random

import pytest

from arena.engine import Match, Rules
from arena.local_play import entrants, kit_bot, play_series
from bots import BUILTIN_BOTS, HeuristicBot, IsmctsBot, make_bot
from bots.ismcts import LEVELS


def play_round(rules: Rules, bot: IsmctsBot, seed: int) -> list[int]:
    """One round, the search bot at seat 0 against the heuristic; the search bot's choices (each applied, so an
    illegal one would raise). The bot is shown the events since its previous decision, as the arena shows them."""
    match = Match(players=2, seed=seed, rules=rules)
    other = HeuristicBot(seed)
    chosen = []
    seen = 0
    while match.decision not in ("round_over", "match_over"):
        seat = match.current
        assert seat is not None
        legal = match.legal_actions()
        if seat == 0:
            observation = match.observation(seat, seen)
            seen = len(match.events)
            index = bot.choose(observation, legal)
            assert 0 <= index < len(legal)
            chosen.append(index)
        else:
            index = other.choose(match.observation(seat), legal)
        match.apply(seat, legal[index])
    return chosen


@pytest.mark.parametrize("rules", [Rules(variant="flip"), Rules(variant="classic", uno_penalty="catch"),
                                   Rules(variant="flip", bluffing=False)])
def test_it_plays_legal_moves(rules: Rules) -> None:
    bot = IsmctsBot(seed=1, simulations=2, rules=rules if not rules.bluffing else None)
    assert play_round(rules, bot, seed=2)


def test_it_keeps_the_events_of_its_match() -> None:
    match = Match(players=2, seed=4)
    bot = IsmctsBot(seed=0, simulations=1)
    seat = match.current or 0
    first = match.observation(seat)
    assert bot._whole(first) == first
    match.apply(seat, match.legal_actions()[-1])
    later = match.observation(seat, len(first.events))
    assert bot._whole(later).events == first.events + later.events
    assert bot._whole(first) == first, "a new match starts the log afresh"


def test_the_same_seed_makes_the_same_choices() -> None:
    rules = Rules(variant="classic")
    first = play_round(rules, IsmctsBot(seed=5, simulations=3), seed=3)
    again = play_round(rules, IsmctsBot(seed=5, simulations=3), seed=3)
    assert first == again


def test_it_stops_when_its_time_is_up() -> None:
    match = Match(players=4, seed=1)
    bot = IsmctsBot(seed=0, simulations=10**9, time_s=0.02)
    bot.choose(match.observation(match.current or 0), match.legal_actions())
    assert 1 <= bot.last_simulations < 10**9


def test_it_runs_its_simulations_and_skips_forced_choices() -> None:
    match = Match(players=3, seed=2)
    bot = IsmctsBot(seed=0, simulations=7)
    legal = match.legal_actions()
    bot.choose(match.observation(match.current or 0), legal)
    assert bot.last_simulations == (7 if len(legal) > 1 else 0)
    assert bot.choose(match.observation(match.current or 0), legal[:1]) == 0 and bot.last_simulations == 0


def test_an_unknown_pairing_falls_back_on_the_heuristic() -> None:
    match = Match(players=2, seed=1, rules=Rules(pairing="shuffled"))
    observation, legal = match.observation(match.current or 0), match.legal_actions()
    expected = HeuristicBot(0).choose(observation, legal)
    assert IsmctsBot(seed=0, simulations=3).choose(observation, legal) == expected


def test_levels_by_name() -> None:
    assert {name: BUILTIN_BOTS[name] for name in LEVELS} == LEVELS
    counts = [make_bot(name, 0).simulations for name in ("ismctsfast", "ismcts", "ismctsstrong")]
    assert counts == sorted(counts) and len(set(counts)) == 3
    bot = make_bot("ismcts:37", 4)
    assert isinstance(bot, IsmctsBot) and bot.simulations == 37 and bot.seed == 4
    timed = make_bot("ismcts:250ms", 0)
    assert isinstance(timed, IsmctsBot) and timed.time_s == 0.25 and timed.simulations >= 10**6
    for bad in ("ismcts:0", "ismcts:x", "ismcts:", "ismcts:0ms", "ismcts:1.5"):
        with pytest.raises(ValueError, match="ismcts:N"):
            make_bot(bad, 0)


def test_it_plays_through_the_kit() -> None:
    rules = Rules(variant="classic", target=20)
    table = entrants([kit_bot("search", IsmctsBot(seed=0, simulations=2))], ["heuristic"], 2)
    series = play_series(table, matches=1, seed=random.Random(3).randrange(100), rules=rules)
    record = series.records[0]
    assert record.end_reason == "target" and not any(record.refusals)
