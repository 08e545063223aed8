"""`python -m arena.bench.remembering`: the premise it measures (a rotated duplicate deal deals the opponent, round
by round, the hand this bot was dealt before) holds, and the harness runs (figures printed, not asserted)."""

from __future__ import annotations

import pytest

from arena.bench.remembering import RememberingBot, _play, main
from arena.engine import Match, Rules
from bots.heuristic import HeuristicBot


def test_the_second_rotation_deals_the_opponent_the_hand_the_bot_remembers() -> None:
    rules = Rules.from_dict({"variant": "classic", "target": 50})
    for seed in (3, 11, 29):
        bot = RememberingBot()
        _play(seed, rules, bot, HeuristicBot(), "r0")
        # The opponent sits at seat 0 in the second rotation: the engine deals it the first round's seat-0 hand.
        assert sorted(map(str, bot.dealt[1])) == sorted(map(str, Match(players=2, seed=seed, rules=rules).hand(0)))


def test_the_harness_prints_the_gain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--deals", "2", "--variant", "classic", "--target", "50"]) == 0
    out = capsys.readouterr().out
    assert "2 rotated pairs, classic, target 50" in out and "gain" in out
