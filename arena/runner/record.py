"""What a match is and what it leaves behind: :class:`MatchConfig` (what to play), :class:`DecisionLog` (one
decision asked) and :class:`MatchRecord` (the seed, every action for the engine replay, per-decision latency
and outcome, timeouts, refusals and strikes: the replay shows who did what and why)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import StrEnum
from functools import partial
from typing import Any, NamedTuple, cast

from arena.engine import Rules
from arena.tournament import EndReason, MatchResult

from .seat import DEFAULT_DEADLINE_S, DEFAULT_INFRA_GRACE_S, DEFAULT_MAX_STRIKES, MatchSummary


class DecisionOutcome(StrEnum):
    """What became of one decision asked of a seat (stored in :class:`DecisionLog`)."""

    ANSWERED = "answered"
    """The seat answered in time with a legal index."""
    TIMEOUT = "timeout"
    """No valid answer before the deadline (a strike)."""
    ERROR = "error"
    """An in-process bot raised or answered out of range (a strike)."""
    FALLBACK = "fallback"
    """The seat was gone (no connection): the fallback was played (a strike)."""
    FORFEITED = "forfeited"
    """The seat had forfeited: the fallback was played without asking."""
    UNREACHABLE = "unreachable"
    """The arena could not reach the seat at first (an infrastructure fault: gateway gone, Redis unreachable, relay
    lost); the runner waited for the bot to be back and asked again, and it answered in time: the action is the
    bot's, no strike. (A seat still unreachable after ``infra_grace_s`` aborts the match instead.)"""


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
    attempt: int = 1
    """Which attempt of the match this is (from 1; told to the bots in ``MatchStarted``): a match aborted by the
    arena is played again, from the same seed, as the next attempt."""
    infra_grace_s: float = DEFAULT_INFRA_GRACE_S
    """How long a decision the arena could not get to the bot (:class:`~arena.runner.seat.SeatUnreachable`) is asked
    again before the match is aborted as an infrastructure fault (no strike either way)."""

    def __post_init__(self) -> None:
        if not self.match_id:
            raise ValueError("match_id must not be empty")
        if not self.deadline_s > 0:
            raise ValueError(f"deadline_s must be positive, got {self.deadline_s}")
        if not self.infra_grace_s >= 0:
            raise ValueError(f"infra_grace_s must not be negative, got {self.infra_grace_s}")
        if self.max_strikes < 1:
            raise ValueError(f"max_strikes must be at least 1, got {self.max_strikes}")


class DecisionLog(NamedTuple):
    """One decision asked (or played for a forfeited seat). A NamedTuple: a match logs thousands, made at once
    from the runner's plain tuples when the match ends."""

    seat: int
    decision_number: int
    action: str
    latency_ms: float
    outcome: str
    """A :class:`DecisionOutcome` value."""
    refusals: int = 0
    reasons: tuple[str, ...] = ()
    applied: bool = True
    """False for a declined catch offer: asked and answered, but no action of the match (not in the replay)."""


new_decision_log = cast(Callable[[tuple[Any, ...]], DecisionLog], partial(tuple.__new__, DecisionLog))


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
    end_reason: EndReason
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
        values["end_reason"] = EndReason.parse(values["end_reason"])
        values.setdefault("detail", "")
        return cls(**values)

    def to_result(self) -> MatchResult:
        """The :class:`arena.tournament.MatchResult` for standings (forfeits, strikes, scoring)."""
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


