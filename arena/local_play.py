"""Your bot in process against the built-in bots, with no gateway, Redis or token (``uno-arena play --bot``,
:func:`play_local`; docs/kit-api.md). An author's bot plays through the Python kit exactly as it does remotely: its
seat (:class:`KitSeat`) turns the runner's requests into the very bytes a gateway sends and reads the kit's answer
back from the bytes it writes; the arena's runner plays the matches.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from arena.engine import Match, Observation, Rules
from arena.play import numbered
from arena.players import Bot, BotFactory, EndReason, MatchSummary, SeatStart
from arena.protocol import bot_pb2
from arena.protocol.encoding import request_body, request_bytes
from arena.protocol.messages import match_ended, match_events, match_started
from arena.runner import LocalSeat, MatchConfig, MatchRecord, Seat, SeatRequest, SeatTimeout, run_match
from arena.service.incidents import CodeError, code_error
from arena.terminal import Narrator, Painter
from arena.tournament.stats.intervals import wilson_interval
from bots import make_bot
from bots.kit import InProcessSession, Playable

DEADLINE_S = 1.0
"""The time limit each request tells the bot (``time_limit_ms``), as the arena's default; in process nothing waits."""


@dataclass
class KitBot:
    """An author's bot for a whole series: one kit session (as one bot process would be) and what its code raised."""

    name: str
    session: InProcessSession
    errors: int = 0
    first_error: CodeError | None = None

    def reported(self, match_id: str, decision: int, request_id: str, report: bot_pb2.BotError) -> None:
        self.errors += 1
        if self.first_error is None:
            self.first_error = code_error(match_id, decision, request_id, report.type, report.message,
                                          report.traceback)


def kit_bot(name: str, bot: Playable) -> KitBot:
    """An author's bot (what :func:`bots.kit.play` takes) behind an in-process kit session."""
    return KitBot(name, InProcessSession(bot))


class KitSeat(Seat):
    """A seat of an author's bot: the arena's messages to it as a gateway's bytes, through the kit (see the module)."""

    wants_events = True
    version = "in-process kit"

    def __init__(self, bot: KitBot, name: str = "") -> None:
        self.bot = bot
        self.name = name or bot.name
        self._attempt = 0
        self._ids = itertools.count(1)

    def _send(self, message: bot_pb2.ArenaMessage) -> list[bytes]:
        return self.bot.session.exchange(message.SerializeToString())

    async def start(self, info: SeatStart) -> None:
        self._attempt = info.attempt
        self._send(bot_pb2.ArenaMessage(match_started=match_started(info)))

    async def decide(self, request: SeatRequest) -> int:
        body = request_body(request.match_id, request.decision_number, request.observation, request.legal,
                            self._attempt)
        request_id = f"local-{next(self._ids)}"
        limit_ms = max(1, int(request.decision_deadline_s * 1000))
        sent = request_bytes(body, request_id, limit_ms, int(time.time() * 1000) + limit_ms)
        for data in self.bot.session.exchange(sent):
            decision = bot_pb2.BotMessage.FromString(data).decision
            if decision.request_id == request_id:
                if decision.HasField("bot_error"):
                    self.bot.reported(request.match_id, request.decision_number, request_id, decision.bot_error)
                return decision.action_index
        raise SeatTimeout(f"match {request.match_id}, decision {request.decision_number}: the kit gave no answer")

    async def events(self, match_id: str, observation: Observation) -> None:
        self._send(bot_pb2.ArenaMessage(match_events=match_events(match_id, observation)))

    async def end(self, match_id: str, summary: MatchSummary) -> None:
        self._send(bot_pb2.ArenaMessage(match_ended=match_ended(match_id, summary)))


@dataclass(frozen=True)
class Entrant:
    """One chair-holder of a series: a built-in bot by name (``kind``) or an author's bot (``kit``)."""

    name: str
    kind: str = ""
    kit: KitBot | None = None

    def seat(self, seed: int, make: BotFactory) -> Seat:
        if self.kit is not None:
            return KitSeat(self.kit, self.name)
        return LocalSeat(make(self.kind, seed), name=self.name)


def entrants(kits: Sequence[KitBot], builtins: Sequence[str], players: int) -> list[Entrant]:
    """The table: the author's bots, then built-in bots cycled over the other seats; a second bot of one name is
    ``name#2``. ValueError when they do not fit ``players`` seats."""
    if not 2 <= players <= 10:
        raise ValueError(f"a match has 2 to 10 players, not {players}")
    if len(kits) > players:
        raise ValueError(f"{len(kits)} bots do not fit a {players}-player match: give --players {len(kits)} or more")
    if len(kits) < players and not builtins:
        raise ValueError("--bots needs at least one built-in bot for the other seats")
    table: list[Entrant] = [Entrant(kit.name, kit=kit) for kit in kits]
    table += [Entrant(name, kind=name) for name in itertools.islice(itertools.cycle(builtins), players - len(kits))]
    names = numbered([entrant.name for entrant in table])
    return [Entrant(name, entrant.kind, entrant.kit) for name, entrant in zip(names, table, strict=True)]


def match_seed(seed: int, index: int) -> int:
    """The seed of match ``index`` (from 0) of a series seeded ``seed``."""
    return int.from_bytes(hashlib.blake2b(f"local:{seed}:{index}".encode(), digest_size=6).digest(), "big")


@dataclass
class Series:
    """The matches of a series, each with its table (entrants in seat order)."""

    table: list[Entrant]
    rules: Rules
    seed: int
    records: list[MatchRecord] = field(default_factory=list)


async def _play_all(series: Series, matches: int, make: BotFactory) -> None:
    table = series.table
    for index in range(matches):
        shift = index % len(table)
        seated = table[shift:] + table[:shift]
        seed = match_seed(series.seed, index)
        seats = [entrant.seat(seed * 16 + position, make) for position, entrant in enumerate(seated)]
        config = MatchConfig(f"local-{series.seed}-{index + 1}", seed, series.rules, decision_deadline_s=DEADLINE_S)
        series.records.append(await run_match(config, seats))


def play_series(table: Sequence[Entrant], *, matches: int, seed: int, rules: Rules,
                make: BotFactory = make_bot) -> Series:
    """Play ``matches`` matches among ``table``, the seats rotated. The kit's per-decision log of a bot's errors is
    held back meanwhile: :func:`summary_lines` shows how many there were and the first traceback."""
    if matches < 1:
        raise ValueError(f"--matches must be at least 1, not {matches}")
    series = Series(list(table), rules, seed)
    kit_log = logging.getLogger("uno_arena.kit")
    level = kit_log.level
    kit_log.setLevel(logging.CRITICAL)
    try:
        asyncio.run(_play_all(series, matches, make))
    finally:
        kit_log.setLevel(level)
    return series


def summary_lines(series: Series) -> list[str]:
    """Per bot: matches, wins, win rate with its 95% interval, mean points; then what an author's code raised."""
    played = len(series.records)
    wins = {entrant.name: 0 for entrant in series.table}
    points: dict[str, list[int]] = {entrant.name: [] for entrant in series.table}
    aborted = 0
    for record in series.records:
        aborted += record.end_reason is EndReason.ABORTED
        if record.winner is not None:
            wins[record.seats[record.winner]] += 1
        for name, score in zip(record.seats, record.scores, strict=True):
            points[name].append(score)
    rules = series.rules
    lines = [f"{played} match{'es' if played != 1 else ''}, {len(series.table)} players, {rules.variant.value}, "
             f"target {rules.target} (seeds from --seed {series.seed})",
             f"{'bot':<20} {'wins':>5} {'win rate (95% interval)':>26} {'mean points':>12}"]
    for entrant in series.table:
        name = entrant.name
        low, high = wilson_interval(wins[name], played) or (0.0, 1.0)
        rate = f"{wins[name] / played:.1%} ({low:.1%}-{high:.1%})"
        mean = sum(points[name]) / len(points[name]) if points[name] else 0.0
        lines.append(f"{name:<20} {wins[name]:>5} {rate:>26} {mean:>12.1f}")
    if aborted:
        first = next(record for record in series.records if record.end_reason is EndReason.ABORTED)
        lines.append(f"{aborted} matches were aborted (no winner): {first.match_id}: {first.detail}")
    for entrant in series.table:
        lines.extend(_errors_lines(entrant))
    return lines


def _errors_lines(entrant: Entrant) -> list[str]:
    kit = entrant.kit
    if kit is None or kit.first_error is None:
        return []
    first = kit.first_error
    return [f"{entrant.name}: its code raised on {kit.errors} decision(s) (the kit answered the safe legal action each "
            f"time); the first, {first.summary()}", *(f"  | {line}" for line in first.traceback.splitlines())]


def print_match(record: MatchRecord, painter: Painter, out: TextIO) -> None:
    """A played match move by move, the whole table's log (from its replay), and the final scores."""
    match = Match.from_replay(record.replay)
    for line in Narrator(painter, names=record.seats).lines(match.events):
        print(line, file=out)
    winner = record.winner
    who = f"seat {winner} ({record.seats[winner]}) wins" if winner is not None else record.detail
    print(f"final scores: {', '.join(map(str, record.scores))}; {who}", file=out)


def play_local(bot: Playable, opponents: Sequence[str] = ("heuristic", "random"), *,
               matches: int = 20, players: int | None = None, seed: int = 1, rules: Rules | None = None,
               name: str | None = None, out: TextIO | None = None) -> Series:
    """Play ``bot`` (what :func:`bots.kit.play` takes) in process against the built-in ``opponents``, ``matches``
    times, and print the summary to ``out`` (default stdout); the series (docs/kit-api.md)."""
    seats = players if players is not None else len(opponents) + 1
    kit = kit_bot(name or _default_name(bot), bot)
    series = play_series(entrants([kit], opponents, seats), matches=matches, seed=seed, rules=rules or Rules())
    for line in summary_lines(series):
        print(line, file=out or sys.stdout)
    return series


def _default_name(bot: object) -> str:
    own = getattr(bot, "name", None)
    if isinstance(own, str) and own and own != Bot.name:
        return own
    return str(getattr(bot, "__name__", type(bot).__name__))
