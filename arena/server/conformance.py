"""Conformance checks the arena runs against a connected bot (``uno-arena bot check``).

Scripted situations, each a real match on the gateway the bot is connected to, that tell a bot author:

- ``connects``: the bot opens a session (token, Hello, protocol version) within the wait;
- ``answers-in-time`` / ``legal-choices``: a 4-player UNO Flip match and a 2-player classic match (both in
  UNO catch mode, the second without bluffing) with no timeout and no refused answer;
- ``decision-kinds``: it was asked, and answered, every kind of decision (play, after_draw, respond,
  choose_color, and catch: an out-of-turn catch offer; a few more seeds are played until each kind came up);
- ``concurrent-matches``: several matches at once on its one stream, all answered in time;
- ``reconnect``: the arena drops the bot's stream in the middle of a match; the bot must reconnect and
  answer the decision that was pending (it is sent again), with no strike.

Each check yields a :class:`CheckResult` with a one-line explanation; a bot passes when all pass.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine import Action, Observation, Rules
from arena.runner import EndReason, LocalSeat, MatchConfig, MatchRecord, Seat, SeatRequest, run_match
from arena.server.gateway import Gateway
from arena.server.remote_seat import RemoteSeat
from bots import Bot, make_bot

DECISION_KINDS = ("play", "after_draw", "respond", "choose_color", "catch")


@dataclass(frozen=True)
class CheckResult:
    name: str
    passed: bool
    detail: str

    def line(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'} {self.name}: {self.detail}"


class _Watched(RemoteSeat):
    """A RemoteSeat that notes the kinds of decisions asked, and can drop the stream before one of them."""

    def __init__(self, gateway: Gateway, bot: str, kinds: Counter[str], drop_before: int = 0) -> None:
        super().__init__(gateway, bot)
        self.kinds = kinds
        self.drop_before = drop_before
        self.asked = 0
        self.dropped = False

    async def decide(self, request: SeatRequest) -> int:
        self.asked += 1
        if self.drop_before and self.asked == self.drop_before:
            self.dropped = self.gateway.drop_session(self.name, details="conformance check: reconnect, please")
        index = await super().decide(request)
        self.kinds[request.observation.decision] += 1
        return index


class _ForgetsUno(Bot):
    """A local opponent that plays like the heuristic bot but leaves out the UNO call whenever it may (catch
    mode), so that the bot under test gets catch offers."""

    name = "forgets-uno"

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.inner = make_bot("heuristic", seed)

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        index = self.inner.choose(observation, legal)
        chosen = legal[index]
        if chosen.kind == "play" and chosen.uno:
            silent = Action("play", chosen.card, chosen.color, uno=False)
            return next((i for i, action in enumerate(legal) if action == silent), index)
        return index


def _others(count: int, seed: int) -> list[Seat]:
    """Local opponents: heuristic and random bots, and one that forgets its UNO calls."""
    return [LocalSeat(_ForgetsUno(seed + i) if i == 1 else make_bot("random" if i % 2 else "heuristic", seed + i))
            for i in range(count)]


def _problems(record: MatchRecord, seat: int) -> str:
    problems = []
    if record.timeouts[seat]:
        problems.append(f"{record.timeouts[seat]} timeouts")
    if record.refusals[seat]:
        reasons = sorted({r.split(':', 1)[0] for d in record.decisions if d.seat == seat for r in d.reasons})
        problems.append(f"{record.refusals[seat]} refused answers ({', '.join(reasons) or 'late'})")
    if record.strikes[seat]:
        problems.append(f"{record.strikes[seat]} strikes")
    if record.end_reason is EndReason.ABORTED:
        problems.append(record.detail)
    return "; ".join(problems)


async def run_checks(gateway: Gateway, bot: str, *, deadline_s: float = 1.0, wait_s: float = 30.0,
                     concurrent: int = 4, reconnect_deadline_s: float = 10.0) -> list[CheckResult]:
    """Run every check against ``bot`` (connected, or connecting within ``wait_s``) and return the results."""
    results: list[CheckResult] = []
    try:
        await gateway.wait_for_bot(bot, wait_s)
    except TimeoutError as error:
        return [CheckResult("connects", False, str(error))]
    version = gateway.link(bot).version
    results.append(CheckResult("connects", True, f"session open (bot_version {version!r})"))

    kinds: Counter[str] = Counter()
    timed: list[str] = []
    refused: list[str] = []
    answered = 0
    scripted = [
        (Rules(variant="flip", uno_penalty="catch"), 4, 0),
        (Rules(variant="classic", uno_penalty="catch", bluffing=False), 2, 1),
    ]
    seed = 11
    extra = 0
    while True:
        if scripted:
            rules, players, seat = scripted.pop(0)
        elif extra < 6 and any(kinds[k] == 0 for k in DECISION_KINDS):
            rules, players, seat = Rules(variant="flip", uno_penalty="catch"), 3, extra % 3
            extra += 1
        else:
            break
        seats: list[Seat] = _others(players - 1, seed)
        watched = _Watched(gateway, bot, kinds)
        seats.insert(seat, watched)
        config = MatchConfig(f"check-{bot}-{seed}", seed, rules, deadline_s=deadline_s, max_strikes=1000)
        record = await run_match(config, seats)
        seed += 1
        answered += watched.asked - record.timeouts[seat]
        problems = _problems(record, seat)
        if record.timeouts[seat]:
            timed.append(f"{config.match_id}: {problems}")
        if record.refusals[seat]:
            refused.append(f"{config.match_id}: {problems}")
    results.append(CheckResult("answers-in-time", not timed,
                               "; ".join(timed) or f"{answered} decisions answered within {deadline_s:g} s"))
    results.append(CheckResult("legal-choices", not refused, "; ".join(refused) or "no answer refused"))
    missing = [k for k in DECISION_KINDS if kinds[k] == 0]
    seen = ", ".join(f"{k} {kinds[k]}" for k in DECISION_KINDS)
    results.append(CheckResult("decision-kinds", not missing,
                               f"asked {seen}" + (f"; never came up: {', '.join(missing)}" if missing else "")))

    # Never more matches at once than the bot's Hello offered (the gateway would make the others wait).
    concurrent = max(1, min(concurrent, gateway.link(bot).capacity or concurrent))
    configs = [MatchConfig(f"check-{bot}-c{i}", 100 + i, Rules(), deadline_s=deadline_s, max_strikes=1000)
               for i in range(concurrent)]
    records = await asyncio.gather(*(run_match(c, [RemoteSeat(gateway, bot), *_others(2, c.seed)]) for c in configs))
    bad = [f"{r.match_id}: {_problems(r, 0)}" for r in records if _problems(r, 0)]
    results.append(CheckResult("concurrent-matches", not bad,
                               "; ".join(bad) or f"{concurrent} matches at once, all answered in time"))

    watched = _Watched(gateway, bot, Counter(), drop_before=5)
    config = MatchConfig(f"check-{bot}-reconnect", 7, Rules(), deadline_s=reconnect_deadline_s, max_strikes=1000)
    record = await run_match(config, [watched, *_others(2, 7)])
    if not watched.dropped:
        results.append(CheckResult("reconnect", False, "the bot was not connected when the stream was to be dropped"))
    else:
        problems = _problems(record, 0)
        results.append(CheckResult(
            "reconnect", not problems and gateway.is_connected(bot),
            problems or ("stream dropped at decision 5; the bot reconnected and answered the pending decision"
                         if gateway.is_connected(bot) else "the bot did not stay connected")))
    return results


def all_passed(results: Sequence[CheckResult]) -> bool:
    return bool(results) and all(r.passed for r in results)
