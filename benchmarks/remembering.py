"""What a bot that remembers gains from duplicate deals, format by format (issue 23, item 6): ``python -m
benchmarks.remembering [--format rotate|across|gauntlet|gauntlet-shared|ladder]``.

Every round of a match is dealt from (match seed, round number), so two matches on one deal deal the same cards to
the same seats, round by round. :class:`RememberingBot` is the heuristic bot plus a memory of every hand it was
dealt, per deal and round: when it plays a deal again and now holds another hand of a round, it takes the
remembered hand (less the cards the opponent has played) as the opponent's, naming colours and playing colours the
opponent cannot follow. It links matches perfectly: the harness tells it the deal (:meth:`RememberingBot.begin`),
the strongest linking there is (a remote bot reads it from the match id in a rotated duplicate deal, whose deal
group it names); otherwise it uses nothing but its own observations, as a remote bot could.

The harness plays the remembering bot's matches of one format in schedule order, its memory kept across all of
them, against the heuristic bot; and every match again from the same seed with the plain heuristic bot in its seat.
It prints the mean finishing points both ways, the paired gain per match with its 95% interval (Student t over the
matches), and the share of matches in which the memory linked a round to one it had seen. Formats (2 seats):

- ``rotate``: a tournament of the bot and three heuristic bots with rotated duplicate deals (the second rotation
  deals the opponent the hand the bot held in the first);
- ``across``: the same with ``duplicate_orders="across"`` (the default with remote bots: no bot sees a deal twice);
- ``gauntlet``: the bot as a gauntlet's candidate (a deal per seat of every block);
- ``gauntlet-shared``: the same with one deal for every seat of a block (gauntlets created before secrets);
- ``ladder``: the bot, a remote process that may remember, on a competition's 2-seat ladder against a built-in
  bot (its blocks as the ladder plans them: each seat rotation on a deal of its own).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine import Action, Card, Observation, Rules
from arena.runner import LocalSeat, MatchConfig
from arena.runner.loop import run_match_sync
from arena.service.gauntlet_runs import block_plan, build_spec
from arena.tournament import RatingPool, TournamentSpec, schedule
from arena.tournament._rng import derive_seed
from arena.tournament.competition import CompetitionSpec, Connected, block_spec, new_rate_limit, plan_round
from bots.heuristic import HeuristicBot

FORMATS = ("rotate", "across", "gauntlet", "gauntlet-shared", "ladder")
BOT = "mem"


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
    """The heuristic bot with a memory of every hand it was dealt, keyed by (deal, round)."""

    name = "remembering"

    def __init__(self) -> None:
        self.dealt: dict[tuple[int, int], list[tuple[Card, ...]]] = {}
        self.deal = 0
        """The deal of the match being played (:meth:`begin`)."""
        self.linked = 0
        """Rounds in which the memory named a hand for the opponent."""
        self._round = -1
        self._known: list[Card] = []

    def begin(self, deal: int) -> None:
        """A new match, on deal ``deal`` (its match seed)."""
        self.deal = deal
        self._round = -1

    def _start_round(self, obs: Observation) -> None:
        self._round = obs.round
        mine = _as_dealt(obs)
        seen = self.dealt.setdefault((self.deal, obs.round), [])
        others = [hand for hand in seen if sorted(map(str, hand)) != sorted(map(str, mine))]
        self._known = list(others[0]) if others else []
        self.linked += bool(others)
        seen.append(mine)

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        obs = observation
        if obs.round != self._round:
            self._start_round(obs)
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
        if not self._known or action.kind != "play" or action.card is None:
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


def bot_matches(fmt: str, deals: int, seed: int) -> list[tuple[int, int]]:
    """The remembering bot's matches in one format, in the order the arena plays them: ``(match seed, its seat)``.
    ``deals``: deals per table (tournaments) or blocks (gauntlets). Built by the arena's own schedule code."""
    secret = f"{derive_seed('uno-arena/bench/remembering/secret', seed):064x}"[-64:]
    if fmt in ("rotate", "across"):
        spec = TournamentSpec("remember", (BOT, "h1", "h2", "h3"), seats=2, deals=deals, duplicate=True,
                              duplicate_orders=fmt, seed=seed, seed_secret=secret)
        return [(m.seed, m.seats.index(BOT)) for m in schedule(spec) if BOT in m.seats]
    if fmt == "ladder":
        return _ladder_matches(deals, seed)
    gauntlet = build_spec(candidate=BOT, baseline="weakened", seats=2, seed=seed, gauntlet_id="remember",
                          seed_secret=secret)
    return [(_shared_deal(seed, block) if fmt == "gauntlet-shared" else m.seed, m.tested_seat)
            for block in range(deals) for m in block_plan(gauntlet, block) if m.role == "candidate"]


def _shared_deal(seed: int, block: int) -> int:
    """The one deal of every seat of a block of the gauntlets created before secrets, from the seed alone."""
    return int.from_bytes(hashlib.sha256(f"uno-arena/gauntlet-deal/{seed}/{block}".encode()).digest()[:8], "big") >> 1


def _ladder_matches(blocks: int, seed: int) -> list[tuple[int, int]]:
    """The bot's matches in ``blocks`` blocks of a 2-seat ladder against the built-in heuristic bot, each block
    planned by the ladder's own round (:func:`arena.tournament.competition.plan_round`) with the bot connected as a
    remote process (not a fresh sandbox)."""
    spec = CompetitionSpec("remember", seats=2, entrants=(BOT, "heuristic"), matches_per_minute=1000, seed=seed)
    connected = [Connected(BOT, "1"), Connected("heuristic", "builtin", without_memory=True)]
    out: list[tuple[int, int]] = []
    for number in range(blocks):
        planned = plan_round(spec, RatingPool(key=spec.pool), {}, connected, 0, new_rate_limit(spec), now=0.0,
                             round_number=number)
        for table in planned.tables:
            out += [(m.seed, m.seats.index(BOT)) for m in schedule(block_spec(spec, table, number))]
    return out


@dataclass(frozen=True)
class Gain:
    """The bot's finishing points in each of its matches, without and with memory, and the matches in which the
    memory linked a round to one the bot had seen."""

    plain: tuple[float, ...]
    remembering: tuple[float, ...]
    linked: int = 0

    def difference(self) -> tuple[float, float]:
        """Mean paired difference and the half-width of its 95% interval (Student t, normal quantile 1.96)."""
        diffs = [r - p for p, r in zip(self.plain, self.remembering, strict=True)]
        half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
        return statistics.fmean(diffs), half


def measure(fmt: str, deals: int, rules: Rules, seed: int = 1) -> Gain:
    """Play the bot's matches of ``fmt`` (see the module docstring), remembering and plain."""
    plain: list[float] = []
    remembering: list[float] = []
    linked = 0
    bot = RememberingBot()
    for index, (match_seed, seat) in enumerate(bot_matches(fmt, deals, seed)):
        before = bot.linked
        seats = [HeuristicBot(), HeuristicBot()]
        seats[seat] = bot
        bot.begin(match_seed)
        remembering.append(_points(_play(match_seed, rules, seats[0], seats[1], f"{index}-m"), seat))
        linked += bot.linked > before
        plain.append(_points(_play(match_seed, rules, HeuristicBot(), HeuristicBot(), f"{index}-p"), seat))
    return Gain(tuple(plain), tuple(remembering), linked)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.remembering", description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=FORMATS, default="rotate")
    parser.add_argument("--deals", type=int, default=50, help="deals per table, or gauntlet blocks (default 50)")
    parser.add_argument("--variant", choices=("flip", "classic"), default="flip")
    parser.add_argument("--target", type=int, default=0, help="the match's target score (0: the rules' default)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    rules = Rules.from_dict({"variant": args.variant, **({"target": args.target} if args.target else {})})
    gain = measure(args.format, args.deals, rules, args.seed)
    mean, half = gain.difference()
    print(f"{args.format}, {len(gain.plain)} matches of the bot, {args.variant}, target {rules.target}: finishing "
          f"points against the heuristic bot: plain {statistics.fmean(gain.plain):.3f}, remembering "
          f"{statistics.fmean(gain.remembering):.3f}; gain {mean:+.3f} ± {half:.3f} per match (95%); memory linked "
          f"a round in {gain.linked} matches ({gain.linked / len(gain.plain):.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
