"""The conformance checks run against a connected bot (``uno-arena bot check``, :func:`arena.conformance.check_bot`).

Scripted situations, each a real match on the gateway the bot is connected to, its seat the production one (a
:class:`arena.relay.RelaySeat` reaching the bot through Redis and that gateway, as a tournament's worker does), that
tell a bot author:

- ``connects``: the bot opens a session (token, Hello, protocol version) within the wait;
- ``answers-in-time`` / ``legal-choices``: a 4-player UNO Flip match and a 2-player classic match (both in
  UNO catch mode, the second without bluffing) with no timeout and no refused answer;
- ``decision-kinds``: it was asked, and answered, every kind of decision (play, after_draw, respond,
  choose_color, and catch: an out-of-turn catch offer; a few more seeds are played until each kind came up);
- ``concurrent-matches``: several matches at once on its one stream, all answered in time;
- ``reconnect``: the arena drops the bot's stream in the middle of a match; the bot must reconnect and
  answer the decision that was pending (it is sent again), with no strike;
- ``code-errors``: the bot's own code never failed on a decision. A kit that catches an exception of the bot's
  ``choose`` answers the safe legal action (so the match goes on) and says so with the answer
  (``Decision.bot_error``); any such report fails this check, whose detail shows the first traceback.

Each check yields a :class:`CheckResult` with a one-line explanation; a bot passes when all pass.

A check cannot be told from a tournament by what the bot sees (:class:`CheckMatches`): its matches carry a fresh
tournament id and match ids of a tournament's shape, are dealt from fresh random seeds (never the same deals twice),
and its opponents are built-in bots under their own names (``heuristic``, ``weakened``, ``random``); the stream the
reconnect check drops ends as any session the arena closes does.

Every check ends in bounded time, whatever the bot does: a bot forfeits a match after ``max_strikes`` strikes
(timeouts, or being gone), so a silent or vanished bot costs a few deadlines per match, not one per decision; a
match that still runs past ``match_budget_s`` is given up (the check fails, saying so); the scripted matches
together get at most ``phase_budget_s``. :class:`CheckProgress` keeps the results so far and the checks under
way, so a caller that stops the run early (the bot process exited, Ctrl-C) still gives a verdict for every
check (:meth:`CheckProgress.verdicts`).
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

MAX_STRIKES = 3
"""Strikes (timeouts, gone) after which the bot under check forfeits a match: the rest is played for it, fast."""
MATCH_BUDGET_S = 60.0
"""A match of a check still running after this is given up, and its check fails."""
PHASE_BUDGET_S = 150.0
"""The scripted matches (answers-in-time, legal-choices, decision-kinds) together get at most this."""
ADMIT_TIMEOUT_S = 30.0
"""How long a match of a check waits for the bot to have a free match slot."""
DROP_DETAILS = "the arena closed the session; reconnect"
"""What the reconnect check's dropped stream ends with: the words of any session the arena closes."""


@dataclass
class CheckMatches:
    """The ids and seeds of one check's matches, shaped as one tournament's: a fresh tournament id (as
    :func:`arena.store.tournament_store.new_tournament_id` makes them), match ids of
    :func:`arena.tournament.schedule.match_id`, a deal per match and a table per concurrent match, and seeds drawn
    at random for each check (``seed`` fixes them, for tests)."""

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

    def add(self, result: CheckResult) -> None:
        self.results.append(result)

    def passed(self, name: str) -> bool:
        """Whether check ``name`` ran and passed."""
        return any(r.name == name and r.passed for r in self.results)

    def verdicts(self, reason: str) -> list[CheckResult]:
        """A verdict for every check of :data:`CHECKS` when the run stopped early for ``reason``: the results so
        far, a FAIL naming ``reason`` for each check under way, and a FAIL ``not run`` for the others."""
        done = {r.name: r for r in self.results}
        out = []
        for name in CHECKS:
            if name in done:
                out.append(done[name])
            elif name in self.running:
                out.append(CheckResult(name, False, reason))
            else:
                out.append(CheckResult(name, False, f"not run: {reason}"))
        return out


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
    """A local opponent that plays like the built-in ``weakened`` bot (and under its name) but leaves out the UNO
    call whenever it may (catch mode), so that the bot under test gets catch offers."""

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
    """Local opponents, each a different built-in bot (of ``make_bot``) as at a tournament's table: heuristic, a
    weakened one that forgets its UNO calls, random."""
    return [LocalSeat(_ForgetsUno(check_bot_seed(seed, i), make_bot)) if i == 1
            else seat_for("random" if i == 2 else "heuristic", seed=check_bot_seed(seed, i), make_bot=make_bot)
            for i in range(count)]


def _problems(record: MatchRecord, seat: int) -> str:
    problems = []
    if record.timeouts[seat]:
        problems.append(f"{record.timeouts[seat]} timeouts")
    if record.refusals[seat]:
        reasons = sorted({r.split(':', 1)[0] for d in record.decisions if d.seat == seat for r in d.reasons})
        problems.append(f"{record.refusals[seat]} refused answers ({', '.join(reasons) or 'late'})")
    gone = sum(1 for d in record.decisions if d.seat == seat and d.outcome == DecisionOutcome.FALLBACK)
    if gone:
        problems.append(f"{gone} decisions while the bot was not connected")
    if record.strikes[seat]:
        problems.append(f"{record.strikes[seat]} strikes")
    if seat in record.forfeits:
        problems.append("forfeited the match")
    if record.end_reason is EndReason.ABORTED:
        problems.append(record.detail)
    return "; ".join(problems)


async def _play(config: MatchConfig, seats: list[Seat], budget_s: float) -> MatchRecord | str:
    """The record of the match, or why there is none (it ran past ``budget_s`` and was given up)."""
    try:
        async with asyncio.timeout(max(budget_s, 0.001)):
            return await run_match(config, seats)
    except TimeoutError:
        return f"{config.match_id}: did not end within {budget_s:.0f} s (given up)"


async def run_checks(gateway: Gateway, bot: str, *, make_bot: BotFactory, decision_deadline_s: float = 1.0,
                     wait_s: float = 30.0, concurrent: int = 4, reconnect_deadline_s: float = 10.0,
                     max_strikes: int = MAX_STRIKES,
                     match_budget_s: float = MATCH_BUDGET_S, phase_budget_s: float = PHASE_BUDGET_S,
                     progress: CheckProgress | None = None, matches: CheckMatches | None = None
                     ) -> list[CheckResult]:
    """Run every check against ``bot`` (connected, or connecting within ``wait_s``) and return the results; the
    local opponents are built-in bots of ``make_bot``.
    ``progress`` (when given) follows the run: the results so far and the checks under way. ``matches``: the ids
    and seeds of the matches (default: a fresh tournament id and random seeds)."""
    progress = progress if progress is not None else CheckProgress()
    matches = matches if matches is not None else CheckMatches()
    progress.running = ("connects",)
    try:
        await gateway.registry.wait_for_bot(bot, wait_s)
    except TimeoutError as error:
        progress.add(CheckResult("connects", False, str(error)))
        return progress.verdicts("the bot never connected")
    version = gateway.registry.link(bot).version
    progress.add(CheckResult("connects", True, f"session open (bot_version {version!r})"))

    await _scripted_checks(gateway, bot, progress, matches, make_bot=make_bot, decision_deadline_s=decision_deadline_s,
                           max_strikes=max_strikes, match_budget_s=match_budget_s, phase_budget_s=phase_budget_s)
    await _concurrent_check(gateway, bot, progress, matches, make_bot=make_bot, concurrent=concurrent,
                            decision_deadline_s=decision_deadline_s, max_strikes=max_strikes,
                            match_budget_s=match_budget_s)
    if progress.passed("answers-in-time"):
        await _reconnect_check(gateway, bot, progress, matches, make_bot=make_bot,
                               decision_deadline_s=reconnect_deadline_s,
                               max_strikes=max_strikes, match_budget_s=match_budget_s)
    else:  # its long deadline (a reconnect's time) would only make a bot that does not answer wait longer
        progress.add(CheckResult("reconnect", False, "not run: the bot did not answer in time (see answers-in-time)"))
    progress.add(code_errors_check(gateway, bot))
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
random: a bot that seldom plays a wild may need a few to be asked ``choose_color``; 10 left one run in a few hundred
of a bot that plays the first legal action without one kind). Each is short, and only a bot still missing a kind
plays them."""


def _next_scripted(scripted: list[_Planned], found: _Scripted, extra: int) -> _Planned | None:
    """The next scripted match (rules, players, the bot's seat): the two fixed ones, then up to
    :data:`MAX_EXTRA_MATCHES` more until every decision kind came up: 3 seats (one opponent forgets its UNO calls)
    while no catch came up, else 2 seats of UNO Flip (a bot is asked to choose a colour there most often)."""
    if scripted:
        return scripted.pop(0)
    if extra >= MAX_EXTRA_MATCHES or all(found.kinds[k] for k in DECISION_KINDS):
        return None
    players = 3 if found.kinds["catch"] == 0 else 2
    return Rules(variant=Variant.FLIP, uno_penalty=UnoPenalty.CATCH), players, extra % players


async def _scripted_checks(gateway: Gateway, bot: str, progress: CheckProgress, matches: CheckMatches, *,
                           make_bot: BotFactory,
                           decision_deadline_s: float,
                           max_strikes: int, match_budget_s: float, phase_budget_s: float) -> None:
    """``answers-in-time``, ``legal-choices`` and ``decision-kinds``."""
    progress.running = ("answers-in-time", "legal-choices", "decision-kinds")
    found = _Scripted()
    scripted = [
        (Rules(variant=Variant.FLIP, uno_penalty=UnoPenalty.CATCH), 4, 0),
        (Rules(variant=Variant.CLASSIC, uno_penalty=UnoPenalty.CATCH, bluffing=False), 2, 1),
    ]
    fixed = len(scripted)
    played = 0
    phase_ends = time.monotonic() + phase_budget_s
    while time.monotonic() < phase_ends:
        planned = _next_scripted(scripted, found, max(0, played - fixed))
        if planned is None:
            break
        rules, players, seat = planned
        ((match, seed),) = matches.next()
        seats: list[Seat] = _others(players - 1, seed, make_bot)
        watched = _Watched(gateway, bot, found.kinds)
        seats.insert(seat, watched)
        config = MatchConfig(match, seed, rules, decision_deadline_s=decision_deadline_s,
                             max_strikes=max_strikes, tournament_id=matches.tournament_id)
        record = await _play(config, seats, min(match_budget_s, phase_ends - time.monotonic()))
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
        found.given_up.append(f"the scripted matches did not end within {phase_budget_s:.0f} s")
    slow = found.timed + found.given_up
    progress.add(CheckResult("answers-in-time", not slow,
                             "; ".join(slow)
                             or f"{found.answered} decisions answered within {decision_deadline_s:g} s"))
    progress.add(CheckResult("legal-choices", not found.refused and not found.given_up,
                             "; ".join(found.refused + found.given_up) or "no answer refused"))
    missing = [k for k in DECISION_KINDS if found.kinds[k] == 0]
    seen = ", ".join(f"{k} {found.kinds[k]}" for k in DECISION_KINDS)
    progress.add(CheckResult("decision-kinds", not missing,
                             f"asked {seen}" + (f"; never came up: {', '.join(missing)}" if missing else "")))


async def _concurrent_check(gateway: Gateway, bot: str, progress: CheckProgress, matches: CheckMatches, *,
                            make_bot: BotFactory,
                            concurrent: int,
                            decision_deadline_s: float, max_strikes: int, match_budget_s: float) -> None:
    """``concurrent-matches``: never more matches at once than the bot's Hello offered (the gateway would make the
    others wait)."""
    progress.running = ("concurrent-matches",)
    concurrent = max(1, min(concurrent, gateway.registry.link(bot).capacity or concurrent))
    configs = [MatchConfig(match, seed, Rules(), decision_deadline_s=decision_deadline_s,
                           max_strikes=max_strikes, tournament_id=matches.tournament_id)
               for match, seed in matches.next(tables=concurrent)]

    records = await asyncio.gather(*(
        _play(c, [RelaySeat(gateway.store, bot, admit_timeout_s=ADMIT_TIMEOUT_S), *_others(2, c.seed, make_bot)],
              match_budget_s) for c in configs))
    bad = [r if isinstance(r, str) else f"{r.match_id}: {_problems(r, 0)}"
           for r in records if isinstance(r, str) or _problems(r, 0)]
    progress.add(CheckResult("concurrent-matches", not bad,
                             "; ".join(bad) or f"{concurrent} matches at once, all answered in time"))


async def _reconnect_check(gateway: Gateway, bot: str, progress: CheckProgress, matches: CheckMatches, *,
                           make_bot: BotFactory,
                           decision_deadline_s: float,
                           max_strikes: int, match_budget_s: float) -> None:
    """``reconnect``: the stream is dropped before decision 5; the bot must come back and answer."""
    progress.running = ("reconnect",)
    watched = _Watched(gateway, bot, Counter(), drop_before=5)
    ((match, seed),) = matches.next()
    config = MatchConfig(match, seed, Rules(), decision_deadline_s=decision_deadline_s,
                         max_strikes=max_strikes, tournament_id=matches.tournament_id)
    played = await _play(config, [watched, *_others(2, seed, make_bot)], match_budget_s)
    if isinstance(played, str):
        progress.add(CheckResult("reconnect", False, played))
    elif not watched.dropped:
        progress.add(CheckResult("reconnect", False, "the bot was not connected when the stream was to be dropped"))
    else:
        problems = _problems(played, 0)
        progress.add(CheckResult(
            "reconnect", not problems and gateway.registry.is_connected(bot),
            problems or ("stream dropped at decision 5; the bot reconnected and answered the pending decision"
                         if gateway.registry.is_connected(bot) else "the bot did not stay connected")))


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
