"""`python -m benchmarks search` plays its levels against the heuristic bot and prints each level's figures."""

from __future__ import annotations

import io

import pytest

from arena.engine import Rules
from benchmarks.search import run_search_bench
from bots import Bot, make_bot


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


def test_the_gauntlet_gives_its_verdict_and_times_the_search_bot() -> None:
    from arena.tournament.stats.sprt import SprtConfig
    from arena.tournament.status import GauntletStatus
    from benchmarks.search_gauntlet import run_search_gauntlet
    from bots.ismcts import IsmctsFastBot

    def make(name: str, seed: int) -> Bot:  # the fast level, with 2 simulations a decision: a short test
        return IsmctsFastBot(seed=seed, simulations=2) if name == "ismctsfast" else make_bot(name, seed)

    out = io.StringIO()
    outcome, times = run_search_gauntlet("ismctsfast", rules=Rules(variant="classic", target=20), seed=4, make=make,
                                         out=out, sprt=SprtConfig(min_blocks=2, max_blocks=2, min_nonzero=1))
    assert outcome.status in (GauntletStatus.ACCEPTED, GauntletStatus.REJECTED, GauntletStatus.INCONCLUSIVE)
    assert len(outcome.blocks) == outcome.state.n == 2
    assert times.wall_s and len(times.wall_s) == len(times.cpu_s) and times.simulations == 2 * len(times.wall_s)
    text = out.getvalue()
    assert "gauntlet ismctsfast (candidate) vs heuristic (baseline)" in text and "block    2" in text
    assert f"verdict: {outcome.status.value}" in text and "95% interval" in text and "ms deadline" in text


def test_the_gauntlet_takes_built_in_levels_only() -> None:
    from benchmarks.search_gauntlet import run_search_gauntlet

    with pytest.raises(ValueError, match="candidate"):
        run_search_gauntlet("ismcts:400", rules=Rules(), seed=1, make=make_bot, out=io.StringIO())


def test_an_interrupted_gauntlet_prints_what_it_measured() -> None:
    from benchmarks.search_gauntlet import run_search_gauntlet
    from bots.ismcts import IsmctsFastBot

    made = 0

    def make(name: str, seed: int) -> Bot:  # Ctrl-C once the first block's 4 matches (8 seats) are seated
        nonlocal made
        made += 1
        if made > 8:
            raise KeyboardInterrupt
        return IsmctsFastBot(seed=seed, simulations=2) if name == "ismctsfast" else make_bot(name, seed)

    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        run_search_gauntlet("ismctsfast", rules=Rules(variant="classic", target=20), seed=4, make=make, out=out)
    text = out.getvalue()
    assert "block    1" in text and "interrupted after 1 blocks" in text and "simulations each" in text
