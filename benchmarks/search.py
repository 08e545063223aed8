"""`python -m benchmarks search`: the search bot's levels against the heuristic bot, and what each decision costs.

For each level, ``matches`` 2-player matches against the heuristic bot, in process through the engine (no deadline,
as ``uno-arena play`` plays built-in bots), seats alternating; every decision of the search bot is timed (wall clock
and this process's CPU time). Printed per level: wins, the win rate with its 95% Wilson interval
(:func:`arena.tournament.stats.intervals.wilson_interval`), simulations a decision, the search bot's decisions per
second, and
the time per decision (mean, median, 99th percentile, most) of the decisions it searched (a decision with one legal
action, or a catch, is answered without searching and not counted in the times).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from arena.engine import Match, Rules
from arena.players import BotFactory
from arena.tournament.stats.intervals import wilson_interval
from bots.ismcts import IsmctsBot


@dataclass
class LevelFigures:
    """What one level did: its matches and wins, and the wall and CPU seconds of each searched decision."""

    level: str
    matches: int = 0
    wins: int = 0
    simulations: int = 0
    wall_s: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)


def _play_match(level: str, rules: Rules, seed: int, search_seat: int, make: BotFactory,
                figures: LevelFigures, time_cap: bool) -> None:
    match = Match(players=2, seed=seed, rules=rules)
    bots = [make(level if seat == search_seat else "heuristic", seed * 2 + seat) for seat in range(2)]
    for bot in bots:
        if isinstance(bot, IsmctsBot) and not time_cap:
            bot.time_s = math.inf
    while match.decision != "match_over":
        if match.decision == "round_over":
            match.next_round()
            continue
        seat = match.current
        assert seat is not None
        legal = match.legal_actions()
        bot = bots[seat]
        wall, cpu = time.perf_counter(), time.process_time()
        index = bot.choose(match.observation(seat), legal)
        if seat == search_seat and isinstance(bot, IsmctsBot) and bot.last_simulations:
            figures.wall_s.append(time.perf_counter() - wall)
            figures.cpu_s.append(time.process_time() - cpu)
            figures.simulations += bot.last_simulations
        match.apply(seat, legal[index])
    figures.matches += 1
    figures.wins += match.match_winner == search_seat


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def level_lines(figures: LevelFigures) -> list[str]:
    """The printed lines of one level."""
    low, high = wilson_interval(figures.wins, figures.matches) or (0.0, 1.0)
    lines = [f"{figures.level}: {figures.wins}/{figures.matches} wins against heuristic, "
             f"{figures.wins / max(1, figures.matches):.1%} (95% interval {low:.1%}-{high:.1%})"]
    return lines + timing_lines(figures)


def timing_lines(figures: LevelFigures) -> list[str]:
    """The lines on the searched decisions of a level: how many, their simulations, decisions/s, time per decision
    (none when the level searched no decision)."""
    searched = len(figures.wall_s)
    lines: list[str] = []
    if searched:
        wall, cpu = sum(figures.wall_s), sum(figures.cpu_s)
        lines.append(f"  {searched} searched decisions, {figures.simulations / searched:.0f} simulations each, "
                     f"{searched / cpu:.1f} decisions/s of CPU ({searched / wall:.1f}/s wall)")
        cpus, walls = figures.cpu_s, figures.wall_s
        lines.append(f"  per decision, CPU: mean {cpu / searched:.3f} s, median {_quantile(cpus, 0.5):.3f} s, "
                     f"p99 {_quantile(cpus, 0.99):.3f} s, max {max(cpus):.3f} s; wall: mean {wall / searched:.3f} s, "
                     f"p99 {_quantile(walls, 0.99):.3f} s, max {max(walls):.3f} s")
    return lines


def run_search_bench(levels: Sequence[str], *, matches: int, rules: Rules, seed: int, make: BotFactory,
                     out: TextIO, time_cap: bool = True) -> list[LevelFigures]:
    """Play and print every level (module docstring); the figures, for a caller that wants them. Without
    ``time_cap`` every decision runs its level's simulations however long they take (the strength of a level on a
    core of its own, measured on a busy machine)."""
    if matches < 1:
        raise ValueError(f"--matches must be at least 1, not {matches}")
    seeds = random.Random(seed)
    results = []
    cap = "" if time_cap else ", no time cap"
    print(f"search bot against heuristic: {matches} matches a level, 2 players, {rules.variant}, target "
          f"{rules.target}, seed {seed}{cap}", file=out)
    for level in levels:
        make(level, 0)  # an unknown level fails before any match
        figures = LevelFigures(level)
        for index in range(matches):
            _play_match(level, rules, seeds.randrange(2**31), index % 2, make, figures, time_cap)
        results.append(figures)
        for line in level_lines(figures):
            print(line, file=out, flush=True)
    return results
