"""The conformance checks run against a connected bot (``uno-arena bot check``, :func:`arena.conformance.check_bot`).

Each check (:data:`CHECKS`; what each asks of a bot is in docs/writing-a-bot.md) plays real matches on the gateway the
bot is connected to, its seat the production one (a :class:`arena.relay.RelaySeat`, through Redis, as a tournament's
worker does). A check cannot be told from a tournament by what the bot sees (:class:`CheckMatches`: a fresh
tournament id, match ids of a tournament's shape, fresh random seeds, built-in opponents under their own names).
Every check ends in bounded time whatever the bot does (strikes forfeit a match, and budgets per match and for the
scripted phase); :class:`CheckProgress` gives a verdict for every check when a caller stops the run early.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.engine import Action, Observation, Rules, UnoPenalty, Variant
from arena.players import Bot, BotFactory
from arena.relay import RelaySeat
from arena.runner import DecisionOutcome, EndReason, LocalSeat, MatchConfig, MatchRecord, Seat, SeatRequest, run_match
from arena.server.gateway import Gateway
from arena.service.seating import check_bot_seed, seat_for
from arena.store.tournament_store import new_tournament_id
from arena.tournament.schedule import match_id

DECISION_KINDS = ("play", "after_draw", "respond", "choose_color", "catch")
CHECKS = ("connects", "answers-in-time", "legal-choices", "decision-kinds", "concurrent-matches", "reconnect",
          "code-errors")
"""Every check, in the order they run."""

MAX_STRIKES = 3  # strikes (timeouts, gone) after which the bot forfeits a match: the rest is played for it, fast
MATCH_BUDGET_S = 60.0  # a match of a check still running after this is given up, and its check fails
PHASE_BUDGET_S = 150.0  # the scripted matches (answers-in-time, legal-choices, decision-kinds) together
ADMIT_TIMEOUT_S = 30.0  # how long a match of a check waits for the bot to have a free match slot
CONCURRENT = 4  # matches at once in concurrent-matches, at most (never more than the bot's Hello offered)
RECONNECT_DEADLINE_S = 10.0  # the decision deadline of the reconnect check's match: time to come back
DROP_DETAILS = "the arena closed the session; reconnect"  # the words of any session the arena closes


@dataclass
class CheckMatches:
    """The ids and seeds of one check's matches, shaped as one tournament's: a deal per match, a table per concurrent
    match, seeds drawn at random for each check (``seed`` fixes them, for tests)."""

    seed: int = field(default_factory=lambda: secrets.randbelow(2**31))
    tournament_id: str = field(default_factory=new_tournament_id)
    deals: int = 0

    def next(self, tables: int = 1) -> list[tuple[str, int]]:
        """The (match id, seed) of the next deal, at ``tables`` tables at once."""
        deal, self.deals = self.deals, self.deals + 1
        return [(match_id(self.tournament_id, deal, table, 0), (self.seed + 1009 * deal + table) % 2**31)
                for table in range(tables)]


@dataclass(frozen=True)
class CheckResult:
    name: str
    passed: bool
    detail: str

    def line(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'} {self.name}: {self.detail}"


@dataclass
class CheckProgress:
    """The results so far and the checks under way of one run of :func:`run_checks`."""

    results: list[CheckResult] = field(default_factory=list)
    running: tuple[str, ...] = ("connects",)

    def verdicts(self, reason: str) -> list[CheckResult]:
        """A verdict for every check of :data:`CHECKS` when the run stopped early for ``reason``: the results so
        far, a FAIL naming ``reason`` for each check under way, and a FAIL ``not run`` for the others."""
        done = {r.name: r for r in self.results}
        return [done.get(name) or CheckResult(name, False, reason if name in self.running else f"not run: {reason}")
                for name in CHECKS]


class _Watched(RelaySeat):
    """The bot's seat, noting the kinds of decisions asked; it can drop the bot's stream on ``gateway`` before one."""

    def __init__(self, gateway: Gateway, bot: str, kinds: Counter[str], drop_before: int = 0) -> None:
        super().__init__(gateway.store, bot, admit_timeout_s=ADMIT_TIMEOUT_S)
        self.gateway = gateway
        self.kinds = kinds
        self.drop_before = drop_before
        self.asked = 0
        self.dropped = False

    async def decide(self, request: SeatRequest) -> int:
        self.asked += 1
        if self.drop_before and self.asked == self.drop_before:
            self.dropped = self.gateway.registry.drop_session(self.name, details=DROP_DETAILS)
        index = await super().decide(request)
        self.kinds[request.observation.decision] += 1
        return index


class _ForgetsUno(Bot):
    """The built-in ``weakened`` bot (and under its name), leaving out the UNO call whenever it may (catch mode), so
    that the bot under test gets catch offers."""

    name = "weakened"

    def __init__(self, seed: int, make_bot: BotFactory) -> None:
        super().__init__(seed)
        self.inner = make_bot("weakened", seed)

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        index = self.inner.choose(observation, legal)
        chosen = legal[index]
        if chosen.kind == "play" and chosen.uno:
            silent = Action("play", chosen.card, chosen.color, uno=False)
            return next((i for i, action in enumerate(legal) if action == silent), index)
        return index


def _others(count: int, seed: int, make_bot: BotFactory) -> list[Seat]:
    """Local opponents, each a different built-in bot as at a tournament's table: heuristic, weakened, random."""
    return [LocalSeat(_ForgetsUno(check_bot_seed(seed, i), make_bot)) if i == 1
            else seat_for("random" if i == 2 else "heuristic", seed=check_bot_seed(seed, i), make_bot=make_bot)
            for i in range(count)]


def _problems(record: MatchRecord, seat: int) -> str:
    reasons = sorted({r.split(':', 1)[0] for d in record.decisions if d.seat == seat for r in d.reasons})
    gone = sum(1 for d in record.decisions if d.seat == seat and d.outcome == DecisionOutcome.FALLBACK)
    problems = (
        f"{record.timeouts[seat]} timeouts" if record.timeouts[seat] else "",
        f"{record.refusals[seat]} refused answers ({', '.join(reasons) or 'late'})" if record.refusals[seat] else "",
        f"{gone} decisions while the bot was not connected" if gone else "",
        f"{record.strikes[seat]} strikes" if record.strikes[seat] else "",
        "forfeited the match" if seat in record.forfeits else "",
        record.detail if record.end_reason is EndReason.ABORTED else "",
    )
    return "; ".join(problem for problem in problems if problem)


async def _play(config: MatchConfig, seats: list[Seat], budget_s: float) -> MatchRecord | str:
    """The record of the match, or why there is none (it ran past ``budget_s`` and was given up)."""
    try:
        async with asyncio.timeout(max(budget_s, 0.001)):
            return await run_match(config, seats)
    except TimeoutError:
        return f"{config.match_id}: did not end within {budget_s:.0f} s (given up)"


async def run_checks(gateway: Gateway, bot: str, *, make_bot: BotFactory, decision_deadline_s: float = 1.0,
                     wait_s: float = 30.0, progress: CheckProgress | None = None,
                     matches: CheckMatches | None = None) -> list[CheckResult]:
    """Run every check against ``bot`` (connected, or connecting within ``wait_s``) and return the results."""
    progress = progress if progress is not None else CheckProgress()
    progress.running = ("connects",)
    try:
        await gateway.registry.wait_for_bot(bot, wait_s)
    except TimeoutError as error:
        progress.results.append(CheckResult("connects", False, str(error)))
        return progress.verdicts("the bot never connected")
    version = gateway.registry.link(bot).version
    progress.results.append(CheckResult("connects", True, f"session open (bot_version {version!r})"))
    checks = _Checks(gateway, bot, make_bot, decision_deadline_s, progress, matches or CheckMatches())
    await checks.scripted()
    await checks.concurrent()
    if any(r.name == "answers-in-time" and r.passed for r in progress.results):
        await checks.reconnect()
    else:  # its long deadline (a reconnect's time) would only make a bot that does not answer wait longer
        progress.results.append(CheckResult("reconnect", False,
                                            "not run: the bot did not answer in time (see answers-in-time)"))
    progress.results.append(code_errors_check(gateway, bot))
    progress.running = ()
    return list(progress.results)


@dataclass
class _Scripted:
    """What the scripted matches found about the bot under check."""

    kinds: Counter[str] = field(default_factory=Counter)
    timed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    given_up: list[str] = field(default_factory=list)
    answered: int = 0


_Planned = tuple[Rules, int, int]


MAX_EXTRA_MATCHES = 24
"""Scripted matches played after the two fixed ones, at most, until every decision kind came up (the deals are
random: 10 left one run in a few hundred of a first-legal-action bot without one kind). Each is short."""


def _next_scripted(scripted: list[_Planned], found: _Scripted, extra: int) -> _Planned | None:
    """The next scripted match (rules, players, the bot's seat): the two fixed ones, then more until every decision
    kind came up: 3 seats while no catch came up, else 2 seats of UNO Flip (where colours are chosen most often)."""
    if scripted:
        return scripted.pop(0)
    if extra >= MAX_EXTRA_MATCHES or all(found.kinds[k] for k in DECISION_KINDS):
        return None
    players = 3 if found.kinds["catch"] == 0 else 2
    return Rules(variant=Variant.FLIP, uno_penalty=UnoPenalty.CATCH), players, extra % players


@dataclass
class _Checks:
    """The checks after ``connects``, against one connected bot."""

    gateway: Gateway
    bot: str
    make_bot: BotFactory
    decision_deadline_s: float
    progress: CheckProgress
    matches: CheckMatches

    def config(self, match: str, seed: int, rules: Rules, deadline_s: float | None = None) -> MatchConfig:
        return MatchConfig(match, seed, rules, decision_deadline_s=deadline_s or self.decision_deadline_s,
                           max_strikes=MAX_STRIKES, tournament_id=self.matches.tournament_id)

    async def scripted(self) -> None:
        """``answers-in-time``, ``legal-choices`` and ``decision-kinds``."""
        self.progress.running = ("answers-in-time", "legal-choices", "decision-kinds")
        found = _Scripted()
        scripted = [
            (Rules(variant=Variant.FLIP, uno_penalty=UnoPenalty.CATCH), 4, 0),
            (Rules(variant=Variant.CLASSIC, uno_penalty=UnoPenalty.CATCH, bluffing=False), 2, 1),
        ]
        fixed = len(scripted)
        played = 0
        phase_ends = time.monotonic() + PHASE_BUDGET_S
        while time.monotonic() < phase_ends:
            planned = _next_scripted(scripted, found, max(0, played - fixed))
            if planned is None:
                break
            rules, players, seat = planned
            ((match, seed),) = self.matches.next()
            seats: list[Seat] = _others(players - 1, seed, self.make_bot)
            watched = _Watched(self.gateway, self.bot, found.kinds)
            seats.insert(seat, watched)
            config = self.config(match, seed, rules)
            record = await _play(config, seats, min(MATCH_BUDGET_S, phase_ends - time.monotonic()))
            played += 1
            if isinstance(record, str):
                found.given_up.append(record)
                break
            found.answered += watched.asked - record.timeouts[seat]
            problems = _problems(record, seat)
            if record.timeouts[seat] or seat in record.forfeits:
                found.timed.append(f"{config.match_id}: {problems}")
            if record.refusals[seat]:
                found.refused.append(f"{config.match_id}: {problems}")
        if scripted and not found.given_up:
            found.given_up.append(f"the scripted matches did not end within {PHASE_BUDGET_S:.0f} s")
        slow = found.timed + found.given_up
        results = self.progress.results
        results.append(CheckResult("answers-in-time", not slow, "; ".join(slow) or
                                   f"{found.answered} decisions answered within {self.decision_deadline_s:g} s"))
        results.append(CheckResult("legal-choices", not found.refused and not found.given_up,
                                   "; ".join(found.refused + found.given_up) or "no answer refused"))
        missing = [k for k in DECISION_KINDS if found.kinds[k] == 0]
        seen = ", ".join(f"{k} {found.kinds[k]}" for k in DECISION_KINDS)
        results.append(CheckResult("decision-kinds", not missing,
                                   f"asked {seen}" + (f"; never came up: {', '.join(missing)}" if missing else "")))

    async def concurrent(self) -> None:
        """``concurrent-matches``: never more at once than the bot's Hello offered (the others would wait)."""
        self.progress.running = ("concurrent-matches",)
        concurrent = max(1, min(CONCURRENT, self.gateway.registry.link(self.bot).capacity or CONCURRENT))
        configs = [self.config(match, seed, Rules()) for match, seed in self.matches.next(tables=concurrent)]
        records = await asyncio.gather(*(
            _play(c, [RelaySeat(self.gateway.store, self.bot, admit_timeout_s=ADMIT_TIMEOUT_S),
                      *_others(2, c.seed, self.make_bot)], MATCH_BUDGET_S) for c in configs))
        bad = [r if isinstance(r, str) else f"{r.match_id}: {_problems(r, 0)}"
               for r in records if isinstance(r, str) or _problems(r, 0)]
        self.progress.results.append(CheckResult("concurrent-matches", not bad, "; ".join(bad) or
                                                 f"{concurrent} matches at once, all answered in time"))

    async def reconnect(self) -> None:
        """``reconnect``: the stream is dropped before decision 5; the bot must come back and answer."""
        self.progress.running = ("reconnect",)
        watched = _Watched(self.gateway, self.bot, Counter(), drop_before=5)
        ((match, seed),) = self.matches.next()
        config = self.config(match, seed, Rules(), RECONNECT_DEADLINE_S)
        played = await _play(config, [watched, *_others(2, seed, self.make_bot)], MATCH_BUDGET_S)
        connected = self.gateway.registry.is_connected(self.bot)
        if isinstance(played, str):
            detail = played
        elif not watched.dropped:
            detail = "the bot was not connected when the stream was to be dropped"
        else:
            detail = _problems(played, 0) or ("" if connected else "the bot did not stay connected")
        self.progress.results.append(CheckResult("reconnect", not detail, detail or
                                                 "stream dropped at decision 5; the bot reconnected and answered the "
                                                 "pending decision"))


def code_errors_check(gateway: Gateway, bot: str) -> CheckResult:
    """``code-errors``: the decisions on which the bot reported its own code failed (``Decision.bot_error``) during
    the checks; the first one's traceback, indented, in the detail."""
    reported = gateway.code_errors(bot)
    if reported.first is None:
        return CheckResult("code-errors", True, "the bot's code raised on no decision")
    first = reported.first
    trace = "".join(f"\n  | {line}" for line in first.traceback.splitlines())
    return CheckResult("code-errors", False,
                       f"the bot's code raised on {reported.count} decision(s) (its kit answered the safe legal action "
                       f"each time); the first, {first.summary()}{trace}")


def all_passed(results: Sequence[CheckResult]) -> bool:
    return bool(results) and all(r.passed for r in results)
