"""`uno-arena bench engine`: random legal play through the public API, and RLCard's UNO env when installed.

Each configuration plays whole matches (random legal actions via `legal_actions()` and `apply()`) for a
fixed CPU time on one core and reports rounds/s and decisions/s per CPU second (process time, so other
load on a shared machine does not skew the figures). RLCard (optional extra `bench`) is measured in
the same run so the ratio is meaningful on a noisy machine.
"""

from __future__ import annotations

import random
import time
from typing import TextIO

from arena.engine import Match, Rules


def engine_rate(players: int, variant: str, seconds: float) -> tuple[float, float]:
    """(rounds/s, decisions/s) of random legal play for about `seconds`."""
    random_unit = random.Random(12345).random  # the same cheap uniform choice for both engines
    rules = Rules(variant=variant)
    decisions = rounds = 0
    seed = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        match = Match(players=players, seed=seed, rules=rules)
        seed += 1
        while True:
            decision = match.decision
            if decision == "round_over":
                rounds += 1
                match.next_round()
            elif decision == "match_over":
                rounds += 1
                break
            else:
                legal = match.legal_actions()
                match.apply(match.current, legal[int(random_unit() * len(legal))])
                decisions += 1
    elapsed = time.process_time() - start
    return rounds / elapsed, decisions / elapsed


def rlcard_rate(players: int, seconds: float) -> tuple[float, float] | None:
    """(games/s, decisions/s) of RLCard's UNO env with random legal actions, or None if not installed."""
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": 1, "game_num_players": players})
    random_unit = random.Random(1).random
    decisions = games = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _ = env.step(legal[int(random_unit() * len(legal))])
            decisions += 1
        games += 1
    elapsed = time.process_time() - start
    return games / elapsed, decisions / elapsed


def run_engine_bench(seconds: float, out: TextIO, rlcard: bool = True) -> dict[str, float]:
    figures: dict[str, float] = {}
    print(f"{'configuration':<28}{'rounds/s':>12}{'decisions/s':>14}", file=out)
    for variant in ("flip", "classic"):
        for players in (2, 4):
            rounds, decisions = engine_rate(players, variant, seconds)
            figures[f"{variant}-{players}p"] = decisions
            print(f"{'uno-arena ' + variant + f' {players}p':<28}{rounds:>12,.0f}{decisions:>14,.0f}", file=out)
    if rlcard:
        for players in (2, 4):
            try:
                rates = rlcard_rate(players, seconds)
            except Exception as error:  # RLCard refuses some player counts; say so, keep going
                print(f"{'rlcard uno ' + str(players) + 'p':<28}  failed: {error}", file=out)
                continue
            if rates is None:
                print("rlcard not installed (pip install 'uno-arena[bench]'): no comparison", file=out)
                break
            games, decisions = rates
            figures[f"rlcard-{players}p"] = decisions
            ours = figures[f"classic-{players}p"]
            print(f"{'rlcard uno ' + str(players) + 'p':<28}{games:>12,.0f}{decisions:>14,.0f}"
                  f"   uno-arena classic is {ours / decisions:.1f}x", file=out)
    return figures
