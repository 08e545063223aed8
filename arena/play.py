"""`uno-arena play`: a whole match on this machine among built-in bots and, if asked, a person at a seat."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from arena.engine import Action, Match, Observation, Rules
from arena.terminal import Painter
from bots import Bot, make_bot


class HumanSeat(Bot):
    """A person at the terminal: the legal actions are listed and a number is read; bad input is re-asked."""

    name = "human"

    def __init__(self, painter: Painter, read: Callable[[str], str], out: TextIO) -> None:
        super().__init__(0)
        self.painter, self.read, self.out = painter, read, out

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        obs, paint = observation, self.painter
        print(f"\nYour hand (seat {obs.seat}): "
              + "  ".join(paint.card(card, obs.side) for card in obs.hand), file=self.out)
        print(f"Top: {paint.face(obs.top)}  colour in force: {obs.color}  direction: {obs.direction}  "
              f"draw pile: {obs.draw_size}", file=self.out)
        for opp in obs.opponents:
            backs = " ".join(paint.face(face) for face in opp.visible)
            print(f"  seat {opp.seat}: {opp.count} cards {backs}", file=self.out)
        for index, action in enumerate(legal):
            print(f"  [{index}] {paint.action(action, obs.side)}", file=self.out)
        while True:
            try:
                text = self.read(f"your choice (0-{len(legal) - 1}): ").strip()
            except EOFError:
                print("\nno more input: taking the first legal action", file=self.out)
                return 0
            if text.isdigit() and int(text) < len(legal):
                return int(text)
            print(f"{text!r} is not a number from 0 to {len(legal) - 1}; try again", file=self.out)


def play_match(
    bots: Sequence[Bot], seed: int, rules: Rules, out: TextIO, painter: Painter, quiet: bool = False
) -> Match:
    """Play one match to the end, printing it move by move unless `quiet`; return the finished match."""
    match = Match(players=len(bots), seed=seed, rules=rules)
    seen = [0] * len(bots)  # how many events each seat has been shown
    printed = 0
    side = "light"
    while True:
        for event in match.events[printed:]:
            if not quiet:
                print(painter.event(event, side), file=out)
            if event.type == "flip":
                side = event.detail
            elif event.type == "round_started":
                side = "light"
        printed = len(match.events)
        if match.decision == "match_over":
            break
        if match.decision == "round_over":
            if not quiet:
                print(f"scores: {match.scores}", file=out)
            match.next_round()
            continue
        seat = match.current
        assert seat is not None
        legal = match.legal_actions()
        observation = match.observation(seat, since=seen[seat])
        seen[seat] = len(match.events)
        index = bots[seat].choose(observation, legal)
        match.apply(seat, legal[index])
    if not quiet:
        print(f"final scores: {match.scores}; seat {match.match_winner} "
              f"({bots[match.match_winner or 0].name}) wins", file=out)
    return match


def build_bots(names: Sequence[str], seed: int, human: int | None, painter: Painter,
               read: Callable[[str], str], out: TextIO) -> list[Bot]:
    bots: list[Bot] = []
    for seat, name in enumerate(names):
        if seat == human:
            bots.append(HumanSeat(painter, read, out))
        else:
            bots.append(make_bot(name, seed=seed * 1000 + seat))
    return bots
