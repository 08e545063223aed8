"""The match runner: one match of the engine between seats, with deadlines, fallbacks, strikes and a record.

A seat (:class:`Seat`) is whoever plays one chair of one match: a local bot in this process
(:class:`LocalSeat`, a ``bots.Bot``, no deadline cost, no protobuf), a bot behind the gateway on the same
event loop (:class:`arena.seats.RemoteSeat`) or a bot reached through Redis and whichever gateway holds
its stream (:class:`arena.relay.RelaySeat`, for Celery workers). The runner sees only this interface.

Per decision the runner builds the seat's full observation (events since its previous request included)
and the legal actions, and asks the seat for an index into them:

- a seat answers with an index (its refused answers, if any, are counted on the request: a remote seat
  refuses an unknown request id, an index out of range or a malformed message in-band and lets the bot
  answer again until the deadline);
- :class:`SeatTimeout` (no valid answer in time) or :class:`SeatGone` (no connection): the runner plays
  :func:`fallback_action` for the seat and charges it a *strike*;
- once a seat has ``max_strikes`` strikes it *forfeits*: it keeps its chair, the runner plays the fallback
  for it without asking any more, and the record says so (``end_reason="forfeit"``, ``forfeits``, ``detail``).

Nothing a seat does can stall the runner past the seat's own deadline, and a match never waits on another
match: each is its own coroutine. An unexpected error (a bug, not a bot's fault) ends the match with
``end_reason="aborted"`` (not scored) rather than charging anyone.

The :class:`MatchRecord` keeps the seed, every action (the engine replay), per-decision latency and
outcome, timeouts, refusals and strikes: the replay shows who did what and why.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from functools import partial
from typing import Any, NamedTuple, cast

from arena.engine import Action, Match, Observation, Rules
from arena.engine.actions import PASS
from arena.metrics import ArenaMetrics, get_metrics
from bots import Bot

DEFAULT_DEADLINE_S = 1.0
DEFAULT_MAX_STRIKES = 3
END_REASONS = ("target", "forfeit", "aborted")
DECISION_LOG_OUTCOMES = ("answered", "timeout", "fallback", "forfeited")


class SeatTimeout(Exception):
    """The seat gave no valid answer before its deadline."""


class SeatGone(Exception):
    """The seat has no live connection (disconnected, never connected, or its gateway is gone)."""


@dataclass(frozen=True)
class MatchConfig:
    """What to play: the match id, the seed, the rules and the per-decision limits."""

    match_id: str
    seed: int
    rules: Rules
    deadline_s: float = DEFAULT_DEADLINE_S
    max_strikes: int = DEFAULT_MAX_STRIKES
    tournament_id: str = ""
    group: str = ""

    def __post_init__(self) -> None:
        if not self.match_id:
            raise ValueError("match_id must not be empty")
        if not self.deadline_s > 0:
            raise ValueError(f"deadline_s must be positive, got {self.deadline_s}")
        if self.max_strikes < 1:
            raise ValueError(f"max_strikes must be at least 1, got {self.max_strikes}")


@dataclass(frozen=True)
class SeatStart:
    """Told to every seat when its match starts."""

    match_id: str
    seat: int
    seats: tuple[str, ...]
    rules: Rules
    deadline_s: float
    tournament_id: str = ""


@dataclass(slots=True)
class SeatRequest:
    """One decision asked of a seat. The seat fills the request-scoped counters (refusals, wire time)."""

    match_id: str
    seat: int
    decision_number: int
    observation: Observation
    legal: Sequence[Action]
    deadline_s: float
    refusals: int = 0
    refusal_reasons: list[str] = field(default_factory=list)
    wire_s: float | None = None
    """Time the request spent outside the arena (written to the stream -> answer read), if measured."""
    arena_s: float | None = None
    """Time the seat's own code ran for this request (encoding, bookkeeping, reading the answer), if measured."""


@dataclass(frozen=True)
class MatchSummary:
    """Told to every seat when its match ends."""

    match_id: str
    scores: tuple[int, ...]
    winner: int | None
    rounds: int
    end_reason: str
    forfeits: tuple[int, ...]
    timeouts: tuple[int, ...]
    refusals: tuple[int, ...]
    detail: str = ""


class DecisionLog(NamedTuple):
    """One decision asked (or played for a forfeited seat). A NamedTuple: a match logs thousands, made at once
    from the runner's plain tuples when the match ends."""

    seat: int
    decision_number: int
    action: str
    latency_ms: float
    outcome: str  # "answered" | "timeout" | "fallback" | "forfeited"
    refusals: int = 0
    reasons: tuple[str, ...] = ()
    applied: bool = True
    """False for a declined catch offer: asked and answered, but no action of the match (not in the replay)."""


_new_decision_log = cast(Callable[[tuple[Any, ...]], DecisionLog], partial(tuple.__new__, DecisionLog))


@dataclass
class MatchRecord:
    """What a match leaves behind; JSON-able via :meth:`to_dict` / :meth:`from_dict`."""

    match_id: str
    tournament_id: str
    group: str
    seed: int
    rules: dict[str, Any]
    players: int
    seats: list[str]
    bot_versions: list[str]
    scores: list[int]
    winner: int | None
    rounds: int
    end_reason: str
    forfeits: list[int]
    strikes: list[int]
    timeouts: list[int]
    refusals: list[int]
    decisions: list[DecisionLog]
    replay: dict[str, Any]
    duration_s: float
    detail: str = ""
    """Why the match ended as it did, e.g. `seat 2 (mybot) forfeited: 3 strikes (3 timeouts)`."""

    def to_dict(self) -> dict[str, Any]:
        # Field by field: dataclasses.asdict would deep-copy thousands of DecisionLogs one by one.
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["rules"], data["replay"] = dict(self.rules), dict(self.replay)
        data["decisions"] = [
            [d.seat, d.decision_number, d.action, round(d.latency_ms, 3), d.outcome, d.refusals, d.reasons,
             d.applied]
            for d in self.decisions
        ]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchRecord:
        values = dict(data)
        decisions = []
        for item in values.get("decisions", []):
            if isinstance(item, dict):
                decisions.append(DecisionLog(**{**item, "reasons": tuple(item.get("reasons", ()))}))
            else:
                seat, number, action, latency, outcome, refusals, *rest = item
                reasons = tuple(rest[0]) if rest else ()
                applied = bool(rest[1]) if len(rest) > 1 else True
                decisions.append(DecisionLog(int(seat), int(number), str(action), float(latency), str(outcome),
                                             int(refusals), reasons, applied))
        values["decisions"] = decisions
        values.setdefault("detail", "")
        return cls(**values)

    def to_result(self) -> Any:
        """The :class:`arena.tournament.MatchResult` for standings (forfeits, strikes, scoring)."""
        from arena.tournament import MatchResult

        return MatchResult(
            match_id=self.match_id,
            seats=tuple(self.seats),
            scores=tuple(self.scores),
            winner=self.winner,
            rounds=self.rounds,
            end_reason=self.end_reason,
            forfeits=tuple(self.forfeits),
            strikes=tuple(self.strikes),
            group=self.group,
            scoring=str(self.rules.get("scoring", "winner")),
        )

    def summary(self) -> MatchSummary:
        return MatchSummary(self.match_id, tuple(self.scores), self.winner, self.rounds, self.end_reason,
                            tuple(self.forfeits), tuple(self.timeouts), tuple(self.refusals), self.detail)


class Seat(ABC):
    """One chair of one match. Subclasses: LocalSeat, arena.seats.RemoteSeat, arena.relay.RelaySeat.

    ``synchronous`` seats (in-process bots) are asked through :meth:`choose_now` without a coroutine,
    a request object or a clock; ``wants_events`` seats are told about round ends (:meth:`events`).
    """

    name: str = "seat"
    version: str = ""
    synchronous: bool = False
    wants_events: bool = False

    async def start(self, info: SeatStart) -> None:  # noqa: B027 - optional hook
        """The match started."""

    @abstractmethod
    async def decide(self, request: SeatRequest) -> int:
        """The index of the chosen action in ``request.legal``; raise SeatTimeout or SeatGone."""

    def choose_now(self, observation: Observation, legal: Sequence[Action]) -> int:
        """Synchronous seats only: the index of the chosen action."""
        raise NotImplementedError

    async def events(self, match_id: str, observation: Observation) -> None:  # noqa: B027 - optional hook
        """Things happened outside a decision (a round ended); ``observation`` carries them."""

    async def end(self, match_id: str, summary: MatchSummary) -> None:  # noqa: B027 - optional hook
        """The match ended."""

    def late_refusals(self) -> int:
        """Answers refused after their request was settled (late, duplicate), charged to this seat."""
        return 0


class LocalSeat(Seat):
    """An in-process bot: no deadline, no protobuf, no await; a bot that raises or answers out of range
    is refused (the fallback is played and the seat gets a strike)."""

    synchronous = True

    def __init__(self, bot: Bot, name: str | None = None, version: str = "builtin") -> None:
        self.bot = bot
        self.name = name or bot.name
        self.version = version

    def choose_now(self, observation: Observation, legal: Sequence[Action]) -> int:
        return self.bot.choose(observation, legal)

    async def decide(self, request: SeatRequest) -> int:
        return self.bot.choose(request.observation, request.legal)


LET_GO = PASS
"""The answer that declines a catch offer (decision ``catch``); the runner never applies it to the engine."""


def catch_offers(match: Match) -> list[int]:
    """The seats to ask, out of turn, whether to catch (U1, option ``uno_penalty: "catch"``): every seat but
    the one that can be caught and the seat to decide (whose own legal actions carry the catch), in turn
    order after the seat to decide. Empty when no catch window is open. The first seat that catches closes
    the window; a catch is worth the same to every seat that may make it, so the order decides nothing."""
    target, current = match.catchable, match.current
    if target is None or current is None:
        return []
    others = ((current + match.direction * step) % match.players for step in range(1, match.players))
    return [seat for seat in others if seat != target]


# The fallback preference per action kind: the least committal legal action, never a bluff, a challenge,
# a catch or a card the bot might have wanted to keep.
_FALLBACK_ORDER = {"pass": 0, "draw": 1, "accept": 2, "choose_color": 3, "play": 4, "challenge": 5, "catch": 6}


def fallback_action(legal: Sequence[Action]) -> int:
    """The documented *safest legal action*, played for a seat that timed out, is gone or forfeited.

    By decision: ``after_draw`` -> pass (keep the drawn card); ``play`` -> draw (pass when nothing can be
    drawn; the first legal play when neither is offered); ``respond`` -> accept (a challenge can cost more
    cards); ``choose_color`` -> the first colour offered. Never a catch or a challenge when anything else
    is legal. Deterministic: the same legal list gives the same index.
    """
    if not legal:
        raise ValueError("no legal action to fall back on")
    best = 0
    best_rank = _FALLBACK_ORDER.get(legal[0].kind, 9)
    for index in range(1, len(legal)):
        rank = _FALLBACK_ORDER.get(legal[index].kind, 9)
        if rank < best_rank:
            best, best_rank = index, rank
    return best


class _Tally:
    """Per-seat counters of one match, with the metric children resolved once."""

    __slots__ = ("latency", "n", "names", "outcomes", "reasons", "refusals", "strikes", "timeouts")

    def __init__(self, names: Sequence[str]) -> None:
        n = len(names)
        self.n = n
        self.names = list(names)
        self.strikes = [0] * n
        self.timeouts = [0] * n
        self.refusals = [0] * n
        self.reasons: list[list[str]] = [[] for _ in range(n)]
        # outcome counts per seat, flushed into the counters at the end (one inc per label set)
        self.outcomes: list[dict[str, int]] = [{} for _ in range(n)]
        self.latency: list[list[float]] = [[] for _ in range(n)]


async def run_match(
    config: MatchConfig,
    seats: Sequence[Seat],
    *,
    metrics: ArenaMetrics | None = None,
    profile: list[tuple[float, float]] | None = None,
) -> MatchRecord:
    """Play one match to the end and return its record.

    ``metrics``: where to count (default: the process-wide :func:`arena.metrics.get_metrics`).
    ``profile``: if given, one ``(own, wall)`` pair per answered remote decision is appended, in seconds (for
    ``uno-arena bench gateway``): ``own`` is the time the arena's code ran for the decision (runner, engine,
    observation, encoding, the gateway's bookkeeping and reading of the answer; not gRPC's own send and
    receive, which a bare echo pays as well); ``wall`` is the wall time from the previous decision applied to
    this one applied minus the time the request spent outside the arena, i.e. ``own`` plus every wait for the
    event loop and the stream.
    """
    players = len(seats)
    started = time.perf_counter()
    match = Match(players=players, seed=config.seed, rules=config.rules)
    names = [seat.name for seat in seats]
    tally = _Tally(names)
    forfeited = [False] * players
    forfeits: list[int] = []
    strike_why: list[dict[str, int]] = [{} for _ in range(players)]
    # One plain tuple of atomic values per decision while the match runs (the garbage collector untracks such
    # tuples, so thousands of them cost its collections nothing); made DecisionLogs, in C, at the end.
    logged: list[tuple[int, int, str, float, str, int, tuple[str, ...], bool]] = []
    seen = [0] * players
    lifecycle = [seat for seat in seats if not seat.synchronous]
    event_seats = [(index, seat) for index, seat in enumerate(seats) if seat.wants_events]
    end_reason = "target"
    detail = ""
    deadline_s = config.deadline_s
    max_strikes = config.max_strikes
    match_id = config.match_id
    number = 0
    offers: list[int] = []  # seats still to be asked whether to catch, in order
    perf = time.perf_counter
    step_start = perf()

    def strike(seat: int, why: str) -> None:
        tally.strikes[seat] += 1
        strike_why[seat][why] = strike_why[seat].get(why, 0) + 1
        if tally.strikes[seat] >= max_strikes and not forfeited[seat]:
            forfeited[seat] = True
            forfeits.append(seat)

    if lifecycle:
        names_t = tuple(names)
        await asyncio.gather(
            *(
                _quiet(seat.start(SeatStart(match_id, index, names_t, config.rules, deadline_s, config.tournament_id)))
                for index, seat in enumerate(seats)
                if not seat.synchronous
            )
        )
    try:
        while True:
            decision = match.decision
            if decision == "round_over":
                if event_seats:
                    await asyncio.gather(*(_quiet(seat.events(match_id, match.observation(index, seen[index])))
                                           for index, seat in event_seats))
                    for index, _seat in event_seats:
                        seen[index] = len(match.events)
                match.next_round()
                continue
            if decision == "match_over":
                break
            offer = bool(offers)
            if offer:  # a catch window is open (U1): the other seats are asked first, out of turn
                seat_no = offers.pop(0)
                legal = [*match.legal_actions(seat_no), LET_GO]
            else:
                current = match.current
                assert current is not None
                seat_no, legal = current, match.legal_actions()
            number += 1
            seat = seats[seat_no]
            reasons: Sequence[str] = ()
            refused = 0
            wire = None
            if forfeited[seat_no]:
                index = fallback_action(legal)
                outcome = "forfeited"
                latency = 0.0
                counts = tally.outcomes[seat_no]
                counts["fallback"] = counts.get("fallback", 0) + 1
            else:
                observation = match.observation(seat_no, seen[seat_no])
                if offer:
                    observation = observation._replace(decision="catch")
                seen[seat_no] = len(match.events)
                t0 = perf()
                outcome = "answered"
                if seat.synchronous:
                    try:
                        index = seat.choose_now(observation, legal)
                        if not (isinstance(index, int) and 0 <= index < len(legal)):
                            raise IndexError(f"index {index!r} out of range ({len(legal)} legal actions)")
                    except Exception as error:
                        refused, reasons = 1, [f"error: {error}"]
                        index = fallback_action(legal)
                        outcome = "timeout"
                        strike(seat_no, "errors")
                    latency = perf() - t0
                else:
                    request = SeatRequest(match_id, seat_no, number, observation, legal, deadline_s)
                    try:
                        index = await seat.decide(request)
                        if not (isinstance(index, int) and 0 <= index < len(legal)):
                            raise SeatTimeout(f"seat answered index {index!r} of {len(legal)}")
                    except SeatTimeout:
                        index = fallback_action(legal)
                        outcome = "timeout"
                        strike(seat_no, "timeouts")
                    except SeatGone:
                        index = fallback_action(legal)
                        outcome = "fallback"
                        strike(seat_no, "disconnects")
                    latency = perf() - t0
                    refused, reasons = request.refusals, request.refusal_reasons
                    wire = request.wire_s
                    t_back = perf()
                if outcome == "timeout":
                    tally.timeouts[seat_no] += 1
                counts = tally.outcomes[seat_no]
                metric_outcome = outcome if outcome != "timeout" or not refused else "refused"
                counts[metric_outcome] = counts.get(metric_outcome, 0) + 1
                tally.latency[seat_no].append(latency)
                if refused:
                    tally.refusals[seat_no] += refused
                    tally.reasons[seat_no].extend(reasons)
            action = legal[index]
            applied = not (offer and action is LET_GO)
            if applied:
                match.apply(seat_no, action)
                # Every accepted action closes a catch window and may open a new one (U1).
                offers = [s for s in catch_offers(match) if not forfeited[s]] if match.catchable is not None else []
            logged.append((seat_no, number, action.text, latency * 1000.0, outcome, refused, tuple(reasons), applied))
            if wire is not None and profile is not None:
                now = perf()
                own = (t0 - step_start) + (request.arena_s or 0.0) + (now - t_back)
                profile.append((own, max(0.0, now - step_start - wire)))
                step_start = now
            else:
                step_start = perf()
    except Exception as error:
        end_reason = "aborted"
        detail = f"aborted at decision {number}: {type(error).__name__}: {error}"

    winner = match.match_winner if end_reason != "aborted" else None
    if end_reason != "aborted" and forfeits:
        end_reason = "forfeit"
        parts = []
        for seat_no in forfeits:
            why = ", ".join(f"{count} {what}" for what, count in sorted(strike_why[seat_no].items()))
            parts.append(f"seat {seat_no} ({names[seat_no]}) forfeited: {tally.strikes[seat_no]} strikes ({why})")
        detail = "; ".join(parts)
        if winner in forfeits:
            winner = None
    elif end_reason == "target":
        detail = f"seat {winner} ({names[winner]}) reached the target" if winner is not None else "match over"
    duration = time.perf_counter() - started
    record = MatchRecord(
        match_id=match_id,
        tournament_id=config.tournament_id,
        group=config.group,
        seed=config.seed,
        rules=config.rules.to_dict(),
        players=players,
        seats=names,
        bot_versions=[seat.version for seat in seats],
        scores=list(match.scores),
        winner=winner,
        rounds=match.round_number,
        end_reason=end_reason,
        forfeits=sorted(forfeits),
        strikes=tally.strikes,
        timeouts=tally.timeouts,
        refusals=tally.refusals,
        decisions=list(map(_new_decision_log, logged)),
        replay=match.replay(),
        duration_s=duration,
        detail=detail,
    )
    if lifecycle:
        summary = record.summary()
        await asyncio.gather(*(_quiet(seat.end(match_id, summary)) for seat in lifecycle))
        for seat_no, seat in enumerate(seats):
            late = seat.late_refusals()
            if late:
                tally.refusals[seat_no] += late
                tally.reasons[seat_no].extend(["late"] * late)
    _count(metrics or get_metrics(), config, record, tally)
    return record


def run_match_sync(config: MatchConfig, seats: Sequence[Seat], **options: Any) -> MatchRecord:
    """:func:`run_match` on a fresh event loop (``asyncio.run``), for synchronous callers such as workers."""
    return asyncio.run(run_match(config, seats, **options))


async def _quiet(awaitable: Any) -> None:
    """Await a seat's notification; a seat that fails to be told is found out at its next decision."""
    with contextlib.suppress(Exception):
        await awaitable


def _count(metrics: ArenaMetrics, config: MatchConfig, record: MatchRecord, tally: _Tally) -> None:
    for seat_no, name in enumerate(tally.names):
        if not name:
            continue
        for outcome, count in tally.outcomes[seat_no].items():
            metrics.decisions.labels(name, outcome).inc(count)
        metrics.record_decision_latencies(name, tally.latency[seat_no])
        for reason in tally.reasons[seat_no]:
            metrics.record_refusal(name, reason.split(":", 1)[0].strip().replace(" ", "_"))
        if tally.strikes[seat_no]:
            metrics.strikes.labels(name).inc(tally.strikes[seat_no])
        if seat_no in record.forfeits:
            metrics.record_forfeit(name)
    metrics.record_match(config.rules.variant, record.end_reason, record.duration_s)
