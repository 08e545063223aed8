"""`python -m benchmarks.remembering`: the premise it measures (a rotated duplicate deal deals the opponent, round
by round, the hand this bot was dealt before) holds, the safe formats never show a bot a deal twice, and the harness
runs (figures printed, not asserted)."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.engine import Match, Rules
from benchmarks.remembering import RememberingBot, _play, bot_matches, main
from bots.heuristic import HeuristicBot


def test_the_second_rotation_deals_the_opponent_the_hand_the_bot_remembers() -> None:
    rules = Rules.from_dict({"variant": "classic", "target": 50})
    for seed in (3, 11, 29):
        bot = RememberingBot()
        bot.begin(seed)
        _play(seed, rules, bot, HeuristicBot(), "r0")
        # The opponent sits at seat 0 in the second rotation: the engine deals it the first round's seat-0 hand.
        first = bot.dealt[(seed, 1)][0]
        assert sorted(map(str, first)) == sorted(map(str, Match(players=2, seed=seed, rules=rules).hand(0)))


@pytest.mark.parametrize(("fmt", "repeated"), [("rotate", True), ("gauntlet-shared", True), ("across", False),
                                               ("gauntlet", False), ("ladder", False)])
def test_only_rotated_formats_show_the_bot_a_deal_twice(fmt: str, repeated: bool) -> None:
    seeds = Counter(seed for seed, _ in bot_matches(fmt, 4, 7))
    assert (max(seeds.values()) > 1) is repeated


def test_the_harness_prints_the_gain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--format", "across", "--deals", "1", "--variant", "classic", "--target", "50"]) == 0
    out = capsys.readouterr().out
    assert "across, 3 matches of the bot, classic, target 50" in out and "gain" in out and "in 0 matches" in out
