"""What a bot that remembers gains from rotated duplicate deals (issue 23, item 6): ``python -m
arena.bench.remembering``.

In a rotated duplicate pair of a 2-seat table, the second match deals the same cards to the same seats with the
bots swapped, and every round of a match is dealt from (match seed, round number): in the second match the
opponent is dealt, round by round, the hand this bot was dealt in the first. :class:`RememberingBot` is the
heuristic bot plus that memory: it keeps the hand it was dealt in every round of the first match, and in the
second one treats those cards (less the ones the opponent has played) as the opponent's, naming colours and
playing colours the opponent cannot follow. It uses nothing but its own observations, as a remote bot could.

The harness plays, for every deal, the first rotation (the bot at seat 0, recording) and then the second
rotation twice, from the same seed: once remembering and once not (the plain heuristic); the opponent is the
heuristic bot. It prints the bot's mean finishing points and win rate in the second rotation both ways, and the
paired difference with its 95% interval (Student t over the deals).
"""

from __future__ import annotations

import argparse
import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine import Action, Card, Observation, Rules
from arena.runner import LocalSeat, MatchConfig
from arena.runner.loop import run_match_sync
from arena.tournament._rng import derive_seed
from bots.heuristic import HeuristicBot


def _color(card: Card, side: str) -> str | None:
    face = card.dark if side == "dark" and card.dark is not None else card.light
    return face.color


def _as_dealt(obs: Observation) -> tuple[Card, ...]:
    """The hand this seat was dealt in the round: the hand at its first decision less what it drew before."""
    starts = [i for i, event in enumerate(obs.events) if event.type == "round_started"]
    hand = list(obs.hand)
    for event in obs.events[starts[-1] if starts else 0:]:
        if event.type == "draw" and event.seat == obs.seat:
            for card in event.cards:
                if card in hand:
                    hand.remove(card)
    return tuple(hand)


class RememberingBot(HeuristicBot):
    """The heuristic bot with a memory of the hands it was dealt, round by round, in the first match of a deal."""

    name = "remembering"

    def __init__(self) -> None:
        self.recording = True
        self.dealt: dict[int, tuple[Card, ...]] = {}
        self._round = -1
        self._known: list[Card] = []

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        obs = observation
        if obs.round != self._round:
            self._round = obs.round
            if self.recording:
                self.dealt.setdefault(obs.round, _as_dealt(obs))
            self._known = [] if self.recording else list(self.dealt.get(obs.round, ()))
        for event in obs.events:
            if event.type == "play" and event.seat != obs.seat and event.card in self._known:
                self._known.remove(event.card)
        if not self._known or obs.decision == "respond":
            return super().choose(observation, legal)
        theirs = Counter(_color(card, obs.side) for card in self._known)
        if obs.decision == "choose_color":
            mine = Counter(_color(card, obs.side) for card in obs.hand)
            options = [i for i, a in enumerate(legal) if a.color is not None]
            if options:
                return max(options, key=lambda i: mine[legal[i].color] - 2 * theirs[legal[i].color])
        return super().choose(observation, legal)

    def _score(self, obs: Observation, action: Action) -> float:
        score = super()._score(obs, action)
        if self.recording or not self._known or action.kind != "play" or action.card is None:
            return score
        color = action.color or _color(action.card, obs.side)
        held = sum(1 for card in self._known if _color(card, obs.side) == color)
        return score + (8.0 if held == 0 else -2.0 * held)


def _points(scores: Sequence[int], seat: int) -> float:
    """Finishing points of ``seat`` in a 2-seat match: 1 for the higher score, 0 for the lower, 0.5 for a tie."""
    mine, theirs = scores[seat], scores[1 - seat]
    return 1.0 if mine > theirs else 0.0 if mine < theirs else 0.5


def _play(seed: int, rules: Rules, seat0: HeuristicBot, seat1: HeuristicBot, tag: str) -> tuple[int, ...]:
    config = MatchConfig(f"remember-{tag}", seed, rules, decision_deadline_s=60.0)
    record = run_match_sync(config, [LocalSeat(seat0, name="a"), LocalSeat(seat1, name="b")])
    return tuple(record.scores)


@dataclass(frozen=True)
class Gain:
    """The second rotation's finishing points of the bot, per deal, without and with memory."""

    plain: tuple[float, ...]
    remembering: tuple[float, ...]

    def difference(self) -> tuple[float, float]:
        """Mean paired difference and the half-width of its 95% interval (Student t, normal quantile 1.96)."""
        diffs = [r - p for p, r in zip(self.plain, self.remembering, strict=True)]
        half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
        return statistics.fmean(diffs), half


def measure(deals: int, rules: Rules, seed: int = 1) -> Gain:
    """Play ``deals`` rotated pairs (see the module docstring) and return the bot's points in the second one."""
    plain: list[float] = []
    remembering: list[float] = []
    for deal in range(deals):
        match_seed = derive_seed("uno-arena/bench/remembering", seed, deal)
        bot = RememberingBot()
        _play(match_seed, rules, bot, HeuristicBot(), f"{deal}-r0")
        bot.recording = False
        remembering.append(_points(_play(match_seed, rules, HeuristicBot(), bot, f"{deal}-r1"), 1))
        plain.append(_points(_play(match_seed, rules, HeuristicBot(), HeuristicBot(), f"{deal}-r1p"), 1))
    return Gain(tuple(plain), tuple(remembering))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.bench.remembering", description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--variant", choices=("flip", "classic"), default="flip")
    parser.add_argument("--target", type=int, default=0, help="the match's target score (0: the rules' default)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error("--deals must be at least 2")
    rules = Rules.from_dict({"variant": args.variant, **({"target": args.target} if args.target else {})})
    gain = measure(args.deals, rules, args.seed)
    mean, half = gain.difference()
    print(f"{args.deals} rotated pairs, {args.variant}, target {rules.target}: second rotation, finishing points "
          f"of the bot against the heuristic bot: plain {statistics.fmean(gain.plain):.3f}, remembering "
          f"{statistics.fmean(gain.remembering):.3f}; gain {mean:+.3f} ± {half:.3f} (95%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
