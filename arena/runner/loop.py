"""The match loop: one match of the engine between seats, with deadlines, fallbacks, strikes and a record.

A timeout, a bot gone or an in-process bot that fails gets the fallback and a strike, and ``max_strikes`` strikes
forfeit the match; a fault of the arena's (``SeatUnreachable``) is asked again without a strike, then aborts the
match, as does an evicted casual match or an unexpected error (a bug, not a bot's fault). A catch window (U1) asks
each seat that may catch, out of turn, before the seat to play.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from arena.engine import Action, Match, Observation
from arena.engine.actions import PASS
from arena.engine.hands import RoundHands, current_hands, dealt_hands
from arena.metrics import ArenaMetrics, get_metrics
from arena.players import DecisionOutcome, EndReason, SeatStart, fallback_action

from .record import MatchConfig, MatchRecord, hands_to_json, new_decision_log
from .seats import (
    Seat,
    SeatEvicted,
    SeatGone,
    SeatNotAdmitted,
    SeatRequest,
    SeatTimeout,
    SeatUnreachable,
)

LET_GO = PASS
"""The answer that declines a catch offer (decision ``catch``); the runner never applies it to the engine."""

_ANSWERED, _TIMEOUT, _ERROR = DecisionOutcome.ANSWERED, DecisionOutcome.TIMEOUT, DecisionOutcome.ERROR
_FALLBACK, _FORFEITED = DecisionOutcome.FALLBACK, DecisionOutcome.FORFEITED
_UNREACHABLE, _REFUSED = DecisionOutcome.UNREACHABLE, DecisionOutcome.REFUSED

YIELD_EVERY = 32
"""In-process answers between two yields to the event loop: a match of built-in bots never waits for anything, so
without them it would hold the loop (and every remote match on it) from its first decision to its last."""

INFRA_RETRY_S = 0.5
"""The pause between two tries of a decision the arena could not get to the bot (at most a tenth of the grace)."""
_ABORT_WHY = {SeatNotAdmitted: "", SeatUnreachable: "infrastructure fault, not the bots': ", SeatEvicted: ""}
"""What an aborted match's detail says of the arena's faults before the error (any other error is a bug)."""


class TimingProbe:
    """The gateway benchmark's timing: one ``(own, wall)`` pair in seconds per answered remote decision while
    :attr:`open`: the time the arena's code ran for it (not gRPC's send and receive, which a bare echo pays too),
    and the wall time since the previous decision applied, minus the time the request spent outside the arena."""

    def __init__(self, *, open: bool = True) -> None:
        self.open = open
        self.samples: list[tuple[float, float]] = []

    def record(self, own: float, wall: float) -> None:
        if self.open:
            self.samples.append((own, wall))


class _Tally:
    """Per-seat counters of one match, flushed into the metrics at the end (one call per label set)."""

    __slots__ = ("forfeited", "forfeits", "latency", "outcomes", "reasons", "refusals", "strike_why", "strikes",
                 "timeouts")

    def __init__(self, n: int) -> None:
        self.strikes = [0] * n
        self.timeouts = [0] * n
        self.refusals = [0] * n
        self.reasons: list[list[str]] = [[] for _ in range(n)]
        self.outcomes: list[defaultdict[DecisionOutcome, int]] = [defaultdict(int) for _ in range(n)]
        self.latency: list[list[float]] = [[] for _ in range(n)]
        self.strike_why: list[defaultdict[str, int]] = [defaultdict(int) for _ in range(n)]
        self.forfeited = [False] * n
        self.forfeits: list[int] = []


class MatchRunner:
    """One match between ``seats``: :meth:`run` plays it to the end and returns its :class:`MatchRecord`.
    ``match``: play this one (dealt from the config's seed and rules), for a caller that watches it (`uno-arena
    play`)."""

    def __init__(self, config: MatchConfig, seats: Sequence[Seat], *, metrics: ArenaMetrics | None = None,
                 probe: TimingProbe | None = None, match: Match | None = None) -> None:
        self.config = config
        self.seats = list(seats)
        self.names = [seat.name for seat in seats]
        self.metrics = metrics
        self.probe = probe
        self.match = match or Match(players=len(seats), seed=config.seed, rules=config.rules)
        self.tally = _Tally(len(seats))
        self.number = 0
        self.end_reason = EndReason.TARGET
        self.detail = ""
        # One plain tuple of atomic values per decision while the match runs (the garbage collector untracks
        # such tuples, so thousands of them cost its collections nothing); made DecisionLogs at the end.
        self._logged: list[tuple[int, int, str, float, str, int, tuple[str, ...], bool, float, float]] = []
        self._bank = [config.time_bank_s] * len(seats)  # each seat's time bank left (MatchConfig.time_bank_s)
        self._seen = [0] * len(seats)  # events each seat has been shown
        self._offers: list[int] = []  # seats still to be asked whether to catch, in order
        self._unyielded = 0  # in-process answers since the last yield to the event loop (YIELD_EVERY)
        self._step_start = 0.0
        self._probe_times: tuple[float, float, float] | None = None  # the probe's pending sample (recorded in ask)
        # Every round's hands, taken at its deal and its end (off the per-decision path) for the record.
        self._rounds = [RoundHands(self.match.round_number, self.match.dealer, dealt_hands(self.match))]

    # -- the match -----------------------------------------------------------------------------------------
    async def run(self) -> MatchRecord:
        started = time.perf_counter()
        try:
            await self._tell_start()
            await self._play()
        except Exception as error:  # never the bots' fault: the match is aborted, not scored
            self.end_reason = EndReason.ABORTED
            at = "before the first decision" if isinstance(error, SeatNotAdmitted) else f"at decision {self.number}"
            why = _ABORT_WHY.get(type(error), f"{type(error).__name__}: ")  # a bug: name the exception
            self.detail = f"aborted {at}: {why}{error}"
        await self._collect_late()
        record = self.finish(time.perf_counter() - started)
        await self._tell_end(record)
        self._count(record)
        return record

    async def _play(self) -> None:
        match = self.match
        event_seats = [(index, seat) for index, seat in enumerate(self.seats) if seat.wants_events]
        self._step_start = time.perf_counter()
        while True:
            decision = match.decision
            if decision == "round_over":
                self._round_shown()
                if event_seats:
                    await self._tell_round_end(event_seats)
                match.next_round()
                self._rounds.append(RoundHands(match.round_number, match.dealer, dealt_hands(match)))
            elif decision == "match_over":
                self._round_shown()
                return
            elif self._offers:
                await self.ask(self._offers.pop(0), catch_offer=True)
            else:
                current = match.current
                assert current is not None
                await self.ask(current)
            if self._unyielded >= YIELD_EVERY:
                self._unyielded = 0
                await asyncio.sleep(0)

    def _draw_bank(self, seat_no: int, request: SeatRequest, latency: float, timed_out: bool) -> float:
        """Take what the decision spent over its deadline and lag compensation from the seat's time bank (a timeout
        empties it); the time spent is the request's time outside the arena when measured, else the latency."""
        left = self._bank[seat_no]
        spent = request.wire_s if request.wire_s is not None else latency
        used = left if timed_out else min(left, max(0.0, spent - self.config.decision_deadline_s - request.lag_s))
        self._bank[seat_no] = left - used
        return used

    def _round_shown(self) -> None:
        """The round ended: keep the hands it shows (V5)."""
        self._rounds[-1] = self._rounds[-1]._replace(shown=current_hands(self.match), side=self.match.side_name)

    async def ask(self, seat_no: int, *, catch_offer: bool = False) -> None:
        """Ask one seat for one decision (or play the fallback for a forfeited seat) and apply the answer. The
        common path (a local bot answering a legal index) runs straight through here; the rest has its own steps."""
        match = self.match
        tally = self.tally
        legal: list[Action] = [*match.legal_actions(seat_no), LET_GO] if catch_offer else match.legal_actions(seat_no)
        self.number += 1
        reasons: Sequence[str]
        if tally.forfeited[seat_no]:  # not asked: the fallback is played for it
            tally.outcomes[seat_no][_FALLBACK] += 1
            index = fallback_action(legal)
            outcome, latency, refused, reasons, lag, banked = _FORFEITED, 0.0, 0, (), 0.0, 0.0
        else:
            seen = self._seen[seat_no]
            observation = match.catch_observation(seat_no, seen) if catch_offer else match.observation(seat_no, seen)
            self._seen[seat_no] = len(match.events)
            seat = self.seats[seat_no]
            if seat.synchronous:
                t0 = time.perf_counter()
                try:
                    index = seat.choose_now(observation, legal)
                    if not (isinstance(index, int) and 0 <= index < len(legal)):
                        raise IndexError(f"index {index!r} out of range ({len(legal)} legal actions)")
                    outcome, refused, reasons = _ANSWERED, 0, ()
                except Exception as error:
                    index, outcome, refused, reasons = self._local_failed(seat_no, legal, error)
                latency = time.perf_counter() - t0
                lag = banked = 0.0
                self._unyielded += 1
                tally.outcomes[seat_no][outcome] += 1
                tally.latency[seat_no].append(latency)
            else:
                index, outcome, latency, refused, reasons, lag, banked = await self._ask_remote(
                    seat_no, seat, observation, legal)
        action = legal[index]
        applied = not (catch_offer and action is LET_GO)
        if applied:
            match.apply(seat_no, action)
            # Every accepted action closes a catch window and may open a new one (U1).
            if match.catchable is not None:
                self._offers = [s for s in match.catch_order() if not tally.forfeited[s]]
            elif self._offers:
                self._offers = []
        self._logged.append((seat_no, self.number, action.text, latency * 1000.0, outcome, refused, tuple(reasons),
                             applied, lag * 1000.0, banked * 1000.0))
        now = time.perf_counter()
        if self._probe_times is not None and self.probe is not None:  # the probe's sample of this decision
            (before, t_back, wire), self._probe_times = self._probe_times, None
            self.probe.record(before + (now - t_back), max(0.0, now - self._step_start - wire))
        self._step_start = now

    async def _ask_remote(self, seat_no: int, seat: Seat, observation: Observation, legal: list[Action]
                          ) -> tuple[int, DecisionOutcome, float, int, Sequence[str], float, float]:
        """Ask a remote seat and count its answer: the index to play, the outcome, the latency, the refusals and
        their reasons, the lag and the time drawn from the bank."""
        t0 = time.perf_counter()
        config = self.config
        request = SeatRequest(config.match_id, seat_no, self.number, observation, legal,
                              config.decision_deadline_s + self._bank[seat_no],
                              lag_compensation_cap_s=config.lag_compensation_cap_s)
        try:
            index = await seat.decide(request)
            outcome = _ANSWERED
        except SeatUnreachable as error:
            index, outcome = await self._ask_again(seat_no, seat, request, error)
        except (SeatTimeout, SeatGone) as error:
            index, outcome = self._remote_failed(seat_no, legal, error)
        if not (isinstance(index, int) and 0 <= index < len(legal)):
            index, outcome = self._remote_failed(seat_no, legal,
                                                 SeatTimeout(f"seat answered index {index!r} of {len(legal)}"))
        t_back = time.perf_counter()
        latency = t_back - t0
        refused, reasons = request.refusals, request.refusal_reasons
        timed_out = outcome == _TIMEOUT
        banked = self._draw_bank(seat_no, request, latency, timed_out) if self._bank[seat_no] else 0.0
        if self.probe is not None and request.wire_s is not None:
            self._probe_times = (t0 - self._step_start + (request.arena_s or 0.0), t_back, request.wire_s)
        tally = self.tally
        tally.outcomes[seat_no][_REFUSED if timed_out and refused else outcome] += 1
        tally.latency[seat_no].append(latency)
        if timed_out:
            tally.timeouts[seat_no] += 1
        if refused:
            tally.refusals[seat_no] += refused
            tally.reasons[seat_no].extend(reasons)
        return index, outcome, latency, refused, reasons, request.lag_s, banked

    def _local_failed(self, seat_no: int, legal: Sequence[Action], error: Exception
                      ) -> tuple[int, DecisionOutcome, int, list[str]]:
        """An in-process bot raised or answered out of range: the fallback, a refusal and a strike."""
        reasons = [f"error: {error}"]
        self.tally.refusals[seat_no] += 1
        self.tally.reasons[seat_no].extend(reasons)
        self.strike(seat_no, "errors")
        return fallback_action(legal), _ERROR, 1, reasons

    def _remote_failed(self, seat_no: int, legal: Sequence[Action], error: SeatTimeout | SeatGone
                       ) -> tuple[int, DecisionOutcome]:
        """A remote seat timed out (or answered out of range) or is gone: the fallback and a strike."""
        index = fallback_action(legal)
        if isinstance(error, SeatTimeout):
            self.strike(seat_no, "timeouts")
            return index, _TIMEOUT
        self.strike(seat_no, "disconnects")
        return index, _FALLBACK

    async def _ask_again(self, seat_no: int, seat: Seat, request: SeatRequest, error: SeatUnreachable
                         ) -> tuple[int, DecisionOutcome]:
        """Ask a decision the arena could not get to the bot again until the bot is back, for at most
        ``infra_grace_s``, then end the match (aborted); no strike meanwhile, even for a seat still without a
        session (:class:`SeatGone`). The index and the outcome (``unreachable``, or the fallback of a timeout)."""
        grace = self.config.infra_grace_s
        since = time.monotonic()
        last: Exception = error
        while True:
            now = time.monotonic()
            left = grace - (now - since)
            if left <= 0:
                raise SeatUnreachable(f"seat {seat_no} ({self.names[seat_no]}) could not be reached for "
                                      f"{now - since:.1f} s (grace {grace:g} s): {last}") from None
            await asyncio.sleep(min(INFRA_RETRY_S, grace / 10, left))
            try:
                return await seat.decide(request), _UNREACHABLE
            except SeatTimeout as timeout:
                return self._remote_failed(seat_no, request.legal, timeout)
            except (SeatUnreachable, SeatGone) as again:
                last = again

    def strike(self, seat_no: int, why: str) -> None:
        """Charge one strike to a seat; at ``max_strikes`` it forfeits."""
        tally = self.tally
        tally.strikes[seat_no] += 1
        tally.strike_why[seat_no][why] += 1
        if tally.strikes[seat_no] >= self.config.max_strikes and not tally.forfeited[seat_no]:
            tally.forfeited[seat_no] = True  # it keeps its chair; the runner plays the fallback for it from now on
            tally.forfeits.append(seat_no)

    def finish(self, duration_s: float) -> MatchRecord:
        """The record of the match as it stands: winner, end reason and why."""
        match, tally, names = self.match, self.tally, self.names
        aborted = self.end_reason is EndReason.ABORTED
        winner = None if aborted else match.match_winner
        if not aborted and tally.forfeits:
            self.end_reason = EndReason.FORFEIT
            parts = []
            for seat_no in tally.forfeits:
                why = ", ".join(f"{count} {what}" for what, count in sorted(tally.strike_why[seat_no].items()))
                parts.append(f"seat {seat_no} ({names[seat_no]}) forfeited: {tally.strikes[seat_no]} strikes ({why})")
            self.detail = "; ".join(parts)
            if winner in tally.forfeits:
                winner = None
        elif not aborted:
            self.detail = f"seat {winner} ({names[winner]}) reached the target" if winner is not None else "match over"
        config = self.config
        return MatchRecord(
            match_id=config.match_id,
            tournament_id=config.tournament_id,
            group=config.group,
            seed=config.seed,
            rules=config.rules.to_dict(),
            players=len(self.seats),
            seats=names,
            bot_versions=[seat.version for seat in self.seats],
            scores=list(match.scores),
            winner=winner,
            rounds=match.round_number,
            end_reason=self.end_reason,
            forfeits=sorted(tally.forfeits),
            strikes=tally.strikes,
            timeouts=tally.timeouts,
            refusals=tally.refusals,
            decisions=list(map(new_decision_log, self._logged)),
            replay=match.replay(),
            duration_s=duration_s,
            detail=self.detail,
            hands=hands_to_json(self._rounds),
        )

    # -- telling the seats ---------------------------------------------------------------------------------
    async def _tell_start(self) -> None:
        """Start the remote seats one by one in the order of their bot names (slots taken in one global order: two
        matches never each hold a slot the other waits for). :class:`SeatNotAdmitted` aborts the match; any other
        failure is found out at the seat's next decision."""
        config, names = self.config, tuple(self.names)
        remote = sorted((seat.name.casefold(), index) for index, seat in enumerate(self.seats) if not seat.synchronous)
        for _name, index in remote:
            info = SeatStart(config.match_id, index, names, config.rules, config.decision_deadline_s,
                             config.tournament_id, config.attempt)
            try:
                await self.seats[index].start(info)
            except SeatNotAdmitted:
                raise
            except Exception:
                continue

    async def _tell_round_end(self, event_seats: Sequence[tuple[int, Seat]]) -> None:
        match, seen, match_id = self.match, self._seen, self.config.match_id
        await asyncio.gather(*(_quiet(seat.events, match_id, match.observation(index, seen[index]))
                               for index, seat in event_seats))
        for index, _seat in event_seats:
            seen[index] = len(match.events)

    async def _tell_end(self, record: MatchRecord) -> None:
        lifecycle = [seat for seat in self.seats if not seat.synchronous]
        if not lifecycle:
            return
        summary = dataclasses.replace(record.summary(), attempt=self.config.attempt)
        await asyncio.gather(*(_quiet(seat.end, record.match_id, summary) for seat in lifecycle))

    async def _collect_late(self) -> None:
        """Close every remote seat to late answers and tally the late refusals before the record and the
        MatchEnded summary are built, so what a bot is told equals what is stored."""
        remote = [(seat_no, seat) for seat_no, seat in enumerate(self.seats) if not seat.synchronous]
        if not remote:
            return
        counts = await asyncio.gather(*(_late_of(seat, self.config.match_id) for _seat_no, seat in remote))
        for (seat_no, _seat), late in zip(remote, counts, strict=True):
            if late:
                self.tally.refusals[seat_no] += late
                self.tally.reasons[seat_no].extend(["late"] * late)

    # -- metrics -------------------------------------------------------------------------------------------
    def _count(self, record: MatchRecord) -> None:
        metrics = self.metrics or get_metrics()
        tally = self.tally
        for seat_no, name in enumerate(self.names):
            if not name:
                continue
            for outcome, count in tally.outcomes[seat_no].items():
                metrics.record_decision(name, outcome, count=count)
            metrics.record_decision_latencies(name, tally.latency[seat_no])
            for reason in tally.reasons[seat_no]:
                metrics.record_refusal(name, reason.split(":", 1)[0].strip().replace(" ", "_"))
            if tally.strikes[seat_no]:
                metrics.record_strike(name, tally.strikes[seat_no])
            if seat_no in record.forfeits:
                metrics.record_forfeit(name)
        metrics.record_match(self.config.rules.variant, record.end_reason, record.duration_s)


async def run_match(config: MatchConfig, seats: Sequence[Seat], *, metrics: ArenaMetrics | None = None,
                    probe: TimingProbe | None = None) -> MatchRecord:
    """Play one match to the end and return its record (:class:`MatchRunner`)."""
    return await MatchRunner(config, seats, metrics=metrics, probe=probe).run()


def run_match_sync(config: MatchConfig, seats: Sequence[Seat], **options: Any) -> MatchRecord:
    """:func:`run_match` on a fresh event loop (``asyncio.run``), for synchronous callers such as workers."""
    return asyncio.run(run_match(config, seats, **options))


async def _late_of(seat: Seat, match_id: str) -> int:
    """The seat's late refusals once it takes no more late answers (its last known count if that fails)."""
    try:
        return int(await seat.close_answers(match_id))
    except Exception:
        return seat.late_refusals()


async def _quiet(notify: Callable[..., Awaitable[None]], *args: Any) -> None:
    """Tell a seat something (a failure is found out at its next decision); the coroutine is made here, so a
    match cancelled first leaves none that was never awaited."""
    with contextlib.suppress(Exception):
        await notify(*args)

