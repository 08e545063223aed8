"""The information-set search bot (``ismcts``): single-observer information-set Monte Carlo tree search.

Each simulation samples a match consistent with the seat's observation (:class:`arena.engine.search.Determinizer`),
walks one tree of actions shared by every sample (UCT, each action's chances counted only in the samples where it was
legal), adds one node, plays the round out (:func:`arena.engine.search.rollout`) and scores it. The answer is the most
visited legal action. Levels: ``ismctsfast`` (50 simulations), ``ismcts`` (200), ``ismctsstrong`` (800), and
``ismcts:N`` / ``ismcts:Nms`` in ``play --bots``; every level stops at :data:`TIME_CAP_S`. With a deck whose pairs the
seat cannot know (``pairing: "shuffled"``) it plays as the heuristic bot.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from arena.engine import Action, Event, Match, Observation, Rules
from arena.engine.search import Determinizer, infer_rules, rollout, round_rewards
from arena.players import Bot

from .heuristic import HeuristicBot

TIME_CAP_S = 0.8  # the most a decision thinks, whatever its level: the arena's default deadline is 1 s
EXPLORATION = 0.7  # UCT's exploration constant, for rewards in [0, 1]
_OVER = ("round_over", "match_over")


class _Node:
    """One action in the tree: who took it, how often it was tried and was available, its rewards' sum."""

    __slots__ = ("available", "children", "reward", "seat", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        self.children: dict[str, _Node] = {}

    def score(self) -> float:
        return self.reward / self.visits + EXPLORATION * math.sqrt(math.log(self.available) / self.visits)


class IsmctsBot(Bot):
    """The search bot: ``simulations`` a decision, at most ``time_s``; ``rules`` default to what the view tells."""

    name = "ismcts"
    simulations = 200

    def __init__(self, seed: int = 0, simulations: int | None = None, time_s: float = TIME_CAP_S,
                 rules: Rules | None = None) -> None:
        super().__init__(seed)
        if simulations is not None:
            if simulations < 1:
                raise ValueError(f"simulations must be at least 1, got {simulations}")
            self.simulations = simulations
        if not time_s > 0:
            raise ValueError(f"time_s must be positive, got {time_s}")
        self.time_s = time_s
        self.rules = rules
        self._rng = random.Random(seed)
        self._fallback = HeuristicBot(seed)
        self.last_simulations = 0  # how many simulations the last decision ran (0 when it needed none)
        self._history: list[Event] = []

    def _whole(self, observation: Observation) -> Observation:
        """The observation with every event of its match (the arena sends only those since the seat's previous
        decision; a match's first events start with its ``dealer`` event, which starts the log afresh)."""
        events = observation.events
        if events and events[0].type == "dealer":
            self._history = list(events)
        else:
            self._history.extend(events)
        return observation._replace(events=tuple(self._history))

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        self.last_simulations = 0
        observation = self._whole(observation)
        if len(legal) == 1:
            return 0
        catch = next((i for i, action in enumerate(legal) if action.kind == "catch"), None)
        if catch is not None:
            return catch  # the caught seat draws two: never worse than letting it go
        try:
            sampler = Determinizer(observation, self.rules or infer_rules(observation, legal))
        except ValueError:
            return self._fallback.choose(observation, legal)
        texts = [action.text for action in legal]
        root = self.search(sampler, frozenset(texts))
        visits = [root.children[text].visits if text in root.children else -1 for text in texts]
        return max(range(len(legal)), key=lambda i: (visits[i], -i))

    def search(self, sampler: Determinizer, allowed: frozenset[str]) -> _Node:
        """The tree of one decision: :attr:`simulations` simulations, or fewer when :attr:`time_s` runs out."""
        root = _Node(sampler.observation.seat)
        stop = time.perf_counter() + self.time_s
        for done in range(self.simulations):
            if done and time.perf_counter() >= stop:
                break
            self._simulate(root, sampler.sample(self._rng), allowed)
            self.last_simulations = done + 1
        return root

    def _simulate(self, root: _Node, match: Match, allowed: frozenset[str]) -> None:
        rng = self._rng
        node = root
        path: list[_Node] = []
        while match.decision not in _OVER:
            seat = match.current
            assert seat is not None
            legal = match.legal_actions(seat)
            if node is root:
                legal = [action for action in legal if action.text in allowed]
            untried: list[Action] = []
            best: tuple[float, Action, _Node] | None = None
            for action in legal:
                child = node.children.get(action.text)
                if child is None:
                    untried.append(action)
                    continue
                child.available += 1
                score = child.score()
                if best is None or score > best[0]:
                    best = (score, action, child)
            if untried:
                action = untried[rng.randrange(len(untried))]
                child = node.children[action.text] = _Node(seat)
                child.available += 1
                match.apply(seat, action)
                path.append(child)
                break
            assert best is not None
            match.apply(seat, best[1])
            node = best[2]
            path.append(node)
        rollout(match, rng)
        rewards = round_rewards(match)
        for visited in path:
            visited.visits += 1
            visited.reward += rewards[visited.seat]


class IsmctsFastBot(IsmctsBot):
    name = "ismctsfast"
    simulations = 50


class IsmctsStrongBot(IsmctsBot):
    name = "ismctsstrong"
    simulations = 800


LEVELS: dict[str, type[IsmctsBot]] = {"ismctsfast": IsmctsFastBot, "ismcts": IsmctsBot,
                                      "ismctsstrong": IsmctsStrongBot}


def ismcts_spec(name: str, seed: int) -> IsmctsBot | None:
    """The search bot of ``ismcts:N`` (N simulations a decision) or ``ismcts:Nms`` (as many as N milliseconds allow),
    or None for any other name; ValueError for anything else after the colon."""
    base, colon, budget = name.partition(":")
    if not colon or base != "ismcts":
        return None
    millis = budget.endswith("ms")
    count = budget[:-2] if millis else budget
    if not count.isdigit() or int(count) < 1:
        raise ValueError(f"bot {name!r}: give ismcts:N with N simulations a decision (e.g. ismcts:400) or "
                         "ismcts:Nms with N milliseconds a decision (e.g. ismcts:500ms)")
    if millis:
        return IsmctsBot(seed=seed, simulations=10**9, time_s=int(count) / 1000)
    return IsmctsBot(seed=seed, simulations=int(count))
