"""The match runner: one match of the engine between seats (local bots, remote bots through a gateway or the
Redis relay), with deadlines, fallbacks, strikes, forfeits and a record.

- :mod:`arena.runner.seats`: the :class:`Seat` interface, what a seat is asked and how it fails (what it is told at
  the start and the end, the fallback rule and the end reasons come from :mod:`arena.players`, re-exported here);
- :mod:`arena.runner.record`: :class:`MatchConfig` (what to play) and :class:`MatchRecord` (what a match
  leaves behind);
- :mod:`arena.runner.loop`: :class:`MatchRunner`, the match loop with its named steps.

A remote bot is seated through the relay (:class:`arena.relay.RelaySeat`, the one remote seat).
"""

from arena.players import DecisionOutcome, EndReason, MatchSummary, SeatStart, fallback_action

from .loop import LET_GO, MatchRunner, TimingProbe, run_match, run_match_sync
from .record import DecisionLog, MatchConfig, MatchRecord
from .seats import (
    DEFAULT_ADMIT_TIMEOUT_S,
    DEFAULT_DECISION_DEADLINE_S,
    DEFAULT_INFRA_GRACE_S,
    DEFAULT_LAG_COMPENSATION_CAP_S,
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
    "DEFAULT_LAG_COMPENSATION_CAP_S",
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
