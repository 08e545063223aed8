"""`uno-arena play`: a whole match on this machine among built-in bots and, if asked, a person at a seat, played by
the arena's match runner, the table printed as it goes (docs/getting-started.md, Playing in the terminal). With a
person at a seat only that seat's view is printed, the very view a remote bot gets (V4), and every hand at a round's
end (V5).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TextIO

from arena.engine import Action, Match, Observation, Rules
from arena.players import Bot, BotFactory, EndReason
from arena.runner import MatchConfig, MatchRunner, Seat, SeatRequest
from arena.terminal import Narrator, Painter, hand_value, score_table

QUIT_WORDS = frozenset({"q", "quit", "exit"})
_DECISION_TITLES = {
    "play": "your turn",
    "after_draw": "you drew a card you can play: play it or keep it",
    "respond": "a wild draw is played at you: accept it or challenge it",
    "choose_color": "name a colour",
    "catch": "someone did not call UNO: catch them or let it go",
}


class PlayerLeft(Exception):
    """The person at the terminal left the match (a quit word, or Ctrl-D): abandoned unfinished."""

    exit_code = 1


def action_words(action: Action, painter: Painter, side: str = "light", names: Sequence[str] = ()) -> str:
    """An action in plain words: ``draw a card``, ``play wild, naming blue, calling UNO``, ``catch random (seat
    2)``; ``names``: the players by seat."""
    kind = action.kind
    if kind == "play" and action.card is not None:
        naming = f", naming {action.color}" if action.color else ""
        return f"play {painter.card(action.card, side)}{naming}" + (", calling UNO" if action.uno else "")
    if kind == "choose_color":
        return f"name {action.color}"
    if kind == "catch":
        return f"catch {_seat_name(action.target, names)} (draws 2 for not calling UNO)"
    return {"draw": "draw a card", "pass": "pass (keep the card)", "accept": "accept the wild draw",
            "challenge": "challenge the wild draw"}.get(kind, str(action))


def _seat_name(seat: int | None, names: Sequence[str]) -> str:
    """A seat by its player's name and number (``random#2 (seat 3)``), or its number when names are unknown."""
    if seat is not None and 0 <= seat < len(names):
        return f"{names[seat]} (seat {seat})"
    return f"seat {seat}"


def numbered(names: Sequence[str]) -> list[str]:
    """The players' names by seat, as they are told: a second of one name is ``name#2``."""
    seen: dict[str, int] = {}
    told = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        told.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return told


class HumanSeat(Bot):
    """A person at the terminal: the table as the seat sees it, the legal actions numbered, a number read (bad
    input is asked again). A single legal action is taken without asking. ``names``: the players by seat (set by
    :func:`play_match`), so opponents are told by name."""

    name = "human"

    def __init__(self, painter: Painter, read: Callable[[str], str], out: TextIO) -> None:
        super().__init__(0)
        self.painter, self.read, self.out = painter, read, out
        self.names: Sequence[str] = ()

    def ask(self, prompt: str) -> str:
        """One line of input; :class:`PlayerLeft` on a quit word or at the end of the input (Ctrl-D)."""
        try:
            text = self.read(prompt).strip()
        except EOFError:
            raise PlayerLeft("end of input (Ctrl-D): you left the match") from None
        if text.lower() in QUIT_WORDS:
            raise PlayerLeft("you left the match (q)")
        return text

    def pause(self) -> None:
        """Wait for Enter before the next round."""
        self.ask("press Enter for the next round (q to quit) ")

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        obs, paint, out = observation, self.painter, self.out
        print(f"\n-- {_DECISION_TITLES.get(obs.decision, obs.decision)} --", file=out)
        print(f"Your hand (seat {obs.seat}): " + "  ".join(paint.card(card, obs.side) for card in obs.hand),
              file=out)
        pile = f"draw pile: {obs.draw_size}" + (f" (top shows {paint.face(obs.draw_top)})" if obs.draw_top else "")
        side = f"side: {obs.side}  " if obs.variant != "classic" else ""
        print(f"Top: {paint.face(obs.top)}  colour in force: {obs.color}  {side}"
              f"direction: {'clockwise' if obs.direction == 'cw' else 'counter-clockwise'}  {pile}", file=out)
        for opp in obs.opponents:
            showing = f", showing {' '.join(paint.face(face) for face in opp.visible)}" if opp.visible else ""
            print(f"  {_seat_name(opp.seat, self.names)}: {opp.count} card{'s' if opp.count != 1 else ''}{showing}",
                  file=out)
        if len(legal) == 1:
            print(f"your only choice: {action_words(legal[0], paint, obs.side, self.names)}", file=out)
            return 0
        for index, action in enumerate(legal):
            print(f"  [{index}] {action_words(action, paint, obs.side, self.names)}", file=out)
        while True:
            text = self.ask(f"your choice (0-{len(legal) - 1}, q to quit): ")
            if text.isdigit() and int(text) < len(legal):
                return int(text)
            print(f"{text!r} is not a number from 0 to {len(legal) - 1}; try again", file=out)


class _Table:
    """What the terminal shows of the match the runner plays, and what stopped it (the person left, the output
    closed: the runner would take it for a bot's fault), raised again once the runner is done."""

    def __init__(self, match: Match, names: Sequence[str], viewer: int | None, painter: Painter, out: TextIO,
                 quiet: bool, pause: Callable[[], None] | None) -> None:
        self.match, self.names, self.viewer, self.painter, self.out = match, names, viewer, painter, out
        self.quiet, self.pause = quiet, pause
        self.narrator = Narrator(painter, viewer, names)
        self.told = 0  # how many events have been printed
        self.round_start_scores = list(match.scores)
        self.ended_round = 0
        self.stopped: Exception | None = None

    def show(self) -> None:
        match = self.match
        events = match.events[self.told:] if self.viewer is None else match.observation(self.viewer,
                                                                                         since=self.told).events
        self.told = len(match.events)
        if not self.quiet:
            for line in self.narrator.lines(events):
                print(line, file=self.out)

    def round_end(self, last: bool = False) -> None:
        """The round is over: the rest of its events, every hand and the scores (once), then the pause."""
        if self.ended_round == self.match.round_number:
            return
        self.ended_round = self.match.round_number
        self.show()
        if not self.quiet:
            self._print_hands_and_scores()
        self.round_start_scores = list(self.match.scores)
        if self.pause is not None and not last:
            self.pause()

    def _print_hands_and_scores(self) -> None:
        """Every hand as the round ended (from the viewer's own view, which reveals them now, V5) and the scores."""
        match, names, viewer, out = self.match, self.names, self.viewer, self.out
        if viewer is None:
            side = match.side_name
            hands = {seat: tuple(match.hand(seat)) for seat in range(match.players)}
        else:
            view = match.observation(viewer, since=len(match.events))
            side = view.side
            hands = {opp.seat: opp.revealed for opp in view.opponents}
            hands[viewer] = view.hand
        print(f"hands at the end of the round{f' ({side} side up)' if match.variant != 'classic' else ''}:", file=out)
        width = max(len(name) for name in names)
        for seat in range(match.players):
            hand = hands[seat]
            cards = "  ".join(self.painter.card(card, side) for card in hand) if hand else "no cards"
            who = "you" if seat == viewer else names[seat]
            print(f"  {who:<{width}} {cards}  ({hand_value(hand, side, match.variant)} points)", file=out)
        gained = [score - old for score, old in zip(match.scores, self.round_start_scores, strict=True)]
        print(f"scores after round {match.round_number} (target {match.rules.target}):", file=out)
        for line in score_table(match.scores, names, viewer, gained):
            print(line, file=out)


class _TableSeat(Seat):
    """A player at the table: the table is shown before it is asked, and at each round's end."""

    wants_events = True

    def __init__(self, bot: Bot, name: str, table: _Table) -> None:
        self.bot, self.name, self.table = bot, name, table

    async def decide(self, request: SeatRequest) -> int:
        table = self.table
        if table.stopped is not None:  # at a round's end (the person left at the pause)
            raise table.stopped
        try:
            table.show()
            return self.bot.choose(request.observation, request.legal)
        except Exception as error:
            table.stopped = error
            raise

    async def events(self, match_id: str, observation: Observation) -> None:
        try:
            self.table.round_end()
        except Exception as error:
            self.table.stopped = error


def play_match(
    bots: Sequence[Bot], seed: int, rules: Rules, out: TextIO, painter: Painter, quiet: bool = False, *,
    viewer: int | None = None, pause: Callable[[], None] | None = None, match: Match | None = None,
) -> Match:
    """Play one match to the end through the arena's runner and return it, printing it move by move unless ``quiet``:
    the whole table's log, or only what seat ``viewer`` may see. ``pause`` is called at each round's end before the
    next deal; ``match``: play on this match (dealt from ``seed`` and ``rules``). :class:`PlayerLeft` when the person
    left; what a bot or the output raised, as it was raised."""
    if match is None:
        match = Match(players=len(bots), seed=seed, rules=rules)
    if len(bots) != match.players:
        raise ValueError(f"{len(bots)} bots for a {match.players}-player match")
    if viewer is not None and not 0 <= viewer < match.players:
        raise ValueError(f"seat {viewer} is not a seat of a {match.players}-player match")
    names = numbered([bot.name for bot in bots])
    for bot in bots:
        if isinstance(bot, HumanSeat):
            bot.names = names
    table = _Table(match, names, viewer, painter, out, quiet, pause)
    seats = [_TableSeat(bot, name, table) for bot, name in zip(bots, names, strict=True)]
    runner = MatchRunner(MatchConfig(f"play-{seed}", seed, match.rules), seats, match=match)
    # A loop of its own without asyncio.run's SIGINT handler: Ctrl-C at a prompt interrupts at once.
    loop = asyncio.new_event_loop()
    try:
        record = loop.run_until_complete(runner.run())
    finally:
        loop.close()
    if table.stopped is not None:
        raise table.stopped
    if record.end_reason is EndReason.ABORTED:
        raise RuntimeError(record.detail)
    table.round_end(last=True)
    if not quiet:
        winner = match.match_winner
        who = "you win" if winner is not None and winner == viewer else f"seat {winner} ({names[winner or 0]}) wins"
        print(f"final scores: {', '.join(map(str, match.scores))}; {who}", file=out)
    return match


def build_bots(names: Sequence[str], seed: int, human: int | None, painter: Painter,
               read: Callable[[str], str], out: TextIO, make_bot: BotFactory) -> list[Bot]:
    """The bots of a local match: built-in bots by name (made by ``make_bot``, the CLI passes ``bots.make_bot``),
    cycled over the seats, and a person at seat ``human``."""
    return [HumanSeat(painter, read, out) if seat == human else make_bot(name, seed * 1000 + seat)
            for seat, name in enumerate(names)]
