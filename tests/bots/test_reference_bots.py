"""Reference bots: they play only legal actions through the observation, and heuristic beats random clearly."""

from __future__ import annotations

import io

import pytest

from arena.engine import Rules
from arena.play import play_match
from arena.terminal import Painter
from bots import HeuristicBot, RandomBot, make_bot


@pytest.mark.parametrize("variant", ["flip", "classic"])
def test_heuristic_beats_random_heads_up(variant: str) -> None:
    wins = 0
    matches = 60
    for seed in range(matches):
        # Alternate seats so the first-seat advantage cancels out.
        bots = [HeuristicBot(seed), RandomBot(seed)] if seed % 2 == 0 else [RandomBot(seed), HeuristicBot(seed)]
        match = play_match(bots, seed, Rules(variant=variant, target=200), io.StringIO(), Painter(False), quiet=True)
        heuristic_seat = 0 if seed % 2 == 0 else 1
        wins += match.match_winner == heuristic_seat
    assert wins / matches >= 0.65, f"heuristic won only {wins} of {matches}"


def test_heuristic_wins_four_player_tables_more_than_its_share() -> None:
    wins = 0
    matches = 40
    for seed in range(matches):
        seat = seed % 4
        bots = [HeuristicBot(seed) if s == seat else RandomBot(seed * 10 + s) for s in range(4)]
        match = play_match(bots, seed, Rules(target=200), io.StringIO(), Painter(False), quiet=True)
        wins += match.match_winner == seat
    assert wins / matches > 0.4  # a random share would be 0.25


def test_make_bot_names_unknown_bots() -> None:
    with pytest.raises(ValueError, match="unknown built-in bot 'nobody'"):
        make_bot("nobody")
