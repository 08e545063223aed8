"""Real UNO results for the tier benchmark: duplicate deal groups of the built-in bots, recorded once with the
engine in process and kept as a data file (``benchmarks/data/tiers_sample.json``), so the benchmark resamples
real results without playing them again.

A *deal group* is one deal (one engine seed) played twice by a pair of bots, once in each seat order: the two
matches of a duplicate pair, as a tournament with ``--duplicate`` and 2 seats plays them. :func:`record_sample`
plays ``groups`` of them for every pair of ``BOTS`` (a bot with itself included: two copies of one bot) under the
default rules (UNO Flip, target 500). Each match seeds its bots afresh (from the deal seed, the seat order and
the seat, as the arena seeds a bot per match and seat): with one seed for both matches, two copies of a
deterministic bot would replay the same match in both orders and never differ. ``python -m benchmarks tiers
--record PATH --groups N`` writes a new sample.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.engine import Match, Rules
from bots import make_bot

BOTS = ("heuristic", "weakened", "random")
SAMPLE_PATH = Path(__file__).parent / "data" / "tiers_sample.json"
FIRST_SEED = 23_000


@dataclass(frozen=True)
class PlayedMatch:
    """One finished match: the winner's seat (``None`` without a winner) and every seat's final score."""

    winner: int | None
    scores: tuple[int, ...]


@dataclass(frozen=True)
class DealGroup:
    """One deal played by ``bots`` in both seat orders: ``first`` with ``bots`` as given, ``second`` swapped."""

    bots: tuple[str, str]
    seed: int
    first: PlayedMatch
    second: PlayedMatch

    def wins(self) -> tuple[int, int]:
        """The matches of the group each of ``bots`` won."""
        a = (self.first.winner == 0) + (self.second.winner == 1)
        b = (self.first.winner == 1) + (self.second.winner == 0)
        return a, b

    def points(self) -> tuple[int, int]:
        """The final scores each of ``bots`` made over the group."""
        return self.first.scores[0] + self.second.scores[1], self.first.scores[1] + self.second.scores[0]


@dataclass(frozen=True)
class Sample:
    """Recorded deal groups per pair of bots (the pair in ``BOTS`` order) and how they were made."""

    made_by: str
    rules: str
    groups: dict[tuple[str, str], tuple[DealGroup, ...]]

    def of(self, a: str, b: str) -> tuple[DealGroup, ...]:
        """The groups of bots ``a`` and ``b``, as recorded (``bots`` tells which is which)."""
        key = (a, b) if (a, b) in self.groups else (b, a)
        return self.groups[key]


def play_real(names: Sequence[str], seed: int, rules: Rules, bot_seed: int) -> PlayedMatch:
    """One whole match of built-in bots with the engine in process: the deal from ``seed``, bot ``i`` seeded from
    ``bot_seed`` and ``i``."""
    players = [make_bot(name, bot_seed * 16 + seat) for seat, name in enumerate(names)]
    match = Match(players=len(players), seed=seed, rules=rules)
    seen = [0] * len(players)
    while match.decision != "match_over":
        if match.decision == "round_over":
            match.next_round()
            continue
        seat = match.current
        assert seat is not None
        legal = match.legal_actions()
        observation = match.observation(seat, since=seen[seat])
        seen[seat] = len(match.events)
        match.apply(seat, legal[players[seat].choose(observation, legal)])
    return PlayedMatch(match.match_winner, tuple(match.scores))


def record_sample(groups: int, progress: Callable[[str], None] = lambda _line: None) -> Sample:
    """``groups`` real deal groups for every pair of ``BOTS`` (see the module docstring)."""
    rules = Rules()
    recorded: dict[tuple[str, str], tuple[DealGroup, ...]] = {}
    seed = FIRST_SEED
    for a, b in itertools.combinations_with_replacement(BOTS, 2):
        pair: list[DealGroup] = []
        for _ in range(groups):
            pair.append(DealGroup((a, b), seed, play_real((a, b), seed, rules, 2 * seed),
                                  play_real((b, a), seed, rules, 2 * seed + 1)))
            seed += 1
        recorded[(a, b)] = tuple(pair)
        progress(f"{a} vs {b}: {groups} deal groups")
    made_by = (f"benchmarks.tiers_sample.record_sample(groups={groups}): each pair of {', '.join(BOTS)} (a bot "
               f"with itself included) plays deal seeds from {FIRST_SEED} on, consecutive, in both seat orders, "
               f"bots seeded per match")
    return Sample(made_by, f"default rules: {rules.variant.value}, target {rules.target}", recorded)


def save_sample(sample: Sample, path: Path) -> None:
    """Write ``sample`` as JSON (one compact line per deal group)."""
    lines = ["{", f'  "made_by": {json.dumps(sample.made_by)},', f'  "rules": {json.dumps(sample.rules)},',
             '  "groups": [']
    rows = [json.dumps([list(g.bots), g.seed, [g.first.winner, *g.first.scores], [g.second.winner, *g.second.scores]])
            for groups in sample.groups.values() for g in groups]
    lines.append(",\n".join(f"    {row}" for row in rows))
    lines += ["  ]", "}"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def load_sample(path: Path = SAMPLE_PATH) -> Sample:
    """The sample :func:`save_sample` wrote (``ValueError`` naming the file when it is not one)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        groups: dict[tuple[str, str], list[DealGroup]] = {}
        for (a, b), seed, first, second in data["groups"]:
            group = DealGroup((str(a), str(b)), int(seed), PlayedMatch(first[0], tuple(first[1:])),
                              PlayedMatch(second[0], tuple(second[1:])))
            groups.setdefault(group.bots, []).append(group)
        return Sample(str(data["made_by"]), str(data["rules"]), {k: tuple(v) for k, v in groups.items()})
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path} is not a tier sample ({error}); write one with python -m benchmarks tiers --record "
                         f"PATH") from None
