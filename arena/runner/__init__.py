"""The match runner: one match of the engine between seats (local bots, or remote ones through the relay), with
deadlines, fallbacks, strikes, forfeits and a record: the seat interface (:mod:`~arena.runner.seats`), what a match
is and leaves behind (:mod:`~arena.runner.record`) and the match loop (:mod:`~arena.runner.loop`).
"""

from arena.players import DecisionOutcome, EndReason, MatchSummary, SeatStart, fallback_action

from .loop import LET_GO, MatchRunner, TimingProbe, run_match, run_match_sync
from .record import DecisionLog, MatchConfig, MatchRecord
from .seats import (
    DEFAULT_ADMIT_TIMEOUT_S,
    DEFAULT_DECISION_DEADLINE_S,
    DEFAULT_INFRA_GRACE_S,
    DEFAULT_MAX_STRIKES,
    EVICTED_TEXT,
    LocalSeat,
    Seat,
    SeatEvicted,
    SeatGone,
    SeatNotAdmitted,
    SeatRequest,
    SeatTimeout,
    SeatUnreachable,
    settle,
)

__all__ = [
    "DEFAULT_ADMIT_TIMEOUT_S",
    "DEFAULT_DECISION_DEADLINE_S",
    "DEFAULT_INFRA_GRACE_S",
    "DEFAULT_MAX_STRIKES",
    "EVICTED_TEXT",
    "LET_GO",
    "DecisionLog",
    "DecisionOutcome",
    "EndReason",
    "LocalSeat",
    "MatchConfig",
    "MatchRecord",
    "MatchRunner",
    "MatchSummary",
    "Seat",
    "SeatEvicted",
    "SeatGone",
    "SeatNotAdmitted",
    "SeatRequest",
    "SeatStart",
    "SeatTimeout",
    "SeatUnreachable",
    "TimingProbe",
    "fallback_action",
    "run_match",
    "run_match_sync",
    "settle",
]
