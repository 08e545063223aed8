"""What a match is and what it leaves behind: :class:`MatchConfig` (what to play), :class:`DecisionLog` (one
decision asked) and :class:`MatchRecord` (the seed, every action, each decision's latency and outcome, the
strikes, and every round's hands as dealt and as shown at its end).

The hands' JSON form (:func:`hands_to_json`) is one object per round: ``{"round": 1, "dealer": 2, "side": "dark",
"dealt": [[card, ...] per seat], "shown": [[card, ...] per seat]}``, ``shown`` null for a round that never ended."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import partial
from typing import Any, NamedTuple, cast

from arena.engine import Rules
from arena.engine.hands import Hands, RoundHands
from arena.players import DecisionOutcome, EndReason, MatchSummary
from arena.tournament import MatchResult

from .seats import (
    DEFAULT_DECISION_DEADLINE_S,
    DEFAULT_INFRA_GRACE_S,
    DEFAULT_LAG_COMPENSATION_CAP_S,
    DEFAULT_MAX_STRIKES,
)


@dataclass(frozen=True)
class MatchConfig:
    """What to play: the match id, the seed, the rules and the per-decision limits."""

    match_id: str
    seed: int
    rules: Rules
    decision_deadline_s: float = DEFAULT_DECISION_DEADLINE_S
    max_strikes: int = DEFAULT_MAX_STRIKES
    tournament_id: str = ""
    group: str = ""
    attempt: int = 1
    """Which attempt of the match this is (from 1): a match the arena aborted is played again as the next one."""
    infra_grace_s: float = DEFAULT_INFRA_GRACE_S
    """How long a decision the arena could not get to the bot (``SeatUnreachable``) is asked again before the match
    is aborted."""
    time_bank_s: float = 0.0
    """Each seat's time bank for the match: time a decision takes over its deadline comes out of it, and a decision
    times out only once it is empty. 0: none."""
    lag_compensation_cap_s: float = DEFAULT_LAG_COMPENSATION_CAP_S
    """The most lag compensation per decision (a remote bot's measured round trip, up to this, is added to its
    deadline). 0: none."""

    def __post_init__(self) -> None:
        if not self.match_id:
            raise ValueError("match_id must not be empty")
        if not self.decision_deadline_s > 0:
            raise ValueError(f"decision_deadline_s must be positive, got {self.decision_deadline_s}")
        if not self.infra_grace_s >= 0:
            raise ValueError(f"infra_grace_s must not be negative, got {self.infra_grace_s}")
        if not 0 <= self.time_bank_s <= 3600:
            raise ValueError(f"time_bank_s must be between 0 and 3600, got {self.time_bank_s}")
        if not 0 <= self.lag_compensation_cap_s <= 10:
            raise ValueError(f"lag_compensation_cap_s must be between 0 and 10, got {self.lag_compensation_cap_s}")
        if self.max_strikes < 1:
            raise ValueError(f"max_strikes must be at least 1, got {self.max_strikes}")


class DecisionLog(NamedTuple):
    """One decision asked (or played for a forfeited seat); a NamedTuple, as a match logs thousands."""

    seat: int
    decision_number: int
    action: str
    latency_ms: float
    outcome: DecisionOutcome
    refusals: int = 0
    reasons: tuple[str, ...] = ()
    applied: bool = True
    """False for a declined catch offer: asked and answered, but no action of the match (not in the replay)."""
    lag_ms: float = 0.0
    """Lag compensation granted to this decision."""
    bank_ms: float = 0.0
    """Time this decision took from the seat's time bank (``MatchConfig.time_bank_s``)."""


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
    hands: list[dict[str, Any]]
    """Every round's hands in their JSON form (:func:`hands_to_json`)."""
    detail: str = ""
    """Why the match ended as it did, e.g. `seat 2 (mybot) forfeited: 3 strikes (3 timeouts)`."""

    def to_dict(self) -> dict[str, Any]:
        # Field by field: dataclasses.asdict would deep-copy thousands of DecisionLogs one by one.
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["rules"], data["replay"] = dict(self.rules), dict(self.replay)
        data["decisions"] = [
            [d.seat, d.decision_number, d.action, round(d.latency_ms, 3), d.outcome, d.refusals, d.reasons,
             d.applied, round(d.lag_ms, 3), round(d.bank_ms, 3)]
            for d in self.decisions
        ]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchRecord:
        values = dict(data)
        values["decisions"] = [
            DecisionLog(int(seat), int(number), str(action), float(latency), DecisionOutcome(outcome), int(refusals),
                        tuple(reasons), bool(applied), float(lag), float(bank))
            for seat, number, action, latency, outcome, refusals, reasons, applied, lag, bank in values["decisions"]
        ]
        values["end_reason"] = EndReason.parse(values["end_reason"])
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


def _hands_to_json(hands: Hands) -> list[list[str]]:
    return [[str(card) for card in hand] for hand in hands]


def hands_to_json(rounds: list[RoundHands]) -> list[dict[str, Any]]:
    """The JSON form of every round's hands (see the module docstring)."""
    return [{"round": r.round, "dealer": r.dealer, "side": r.side, "dealt": _hands_to_json(r.dealt),
             "shown": None if r.shown is None else _hands_to_json(r.shown)} for r in rounds]
