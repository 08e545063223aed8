"""`uno-arena bench search` plays its levels against the heuristic bot and prints each level's figures."""

from __future__ import annotations

import io

import pytest

from arena.bench.search import run_search_bench
from arena.engine import Rules
from bots import make_bot


def test_each_level_gets_its_win_rate_and_times() -> None:
    out = io.StringIO()
    figures = run_search_bench(["ismcts:2"], matches=2, rules=Rules(variant="classic", target=20), seed=3,
                               make=make_bot, out=out)
    level = figures[0]
    assert level.matches == 2 and 0 <= level.wins <= 2
    assert level.wall_s and len(level.wall_s) == len(level.cpu_s) and level.simulations == 2 * len(level.wall_s)
    text = out.getvalue()
    assert "ismcts:2: " in text and "95% interval" in text and "simulations each" in text


def test_an_unknown_level_is_named_before_any_match() -> None:
    with pytest.raises(ValueError, match="ismcts:N"):
        run_search_bench(["ismcts:x"], matches=1, rules=Rules(), seed=1, make=make_bot, out=io.StringIO())
