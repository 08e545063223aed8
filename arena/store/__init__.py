"""Redis store of uno-arena: bots, sessions, tournaments, results, replays, standings, ratings, schedules,
bots' incident logs, gauntlets, competitions.

Start with :class:`Store` (``Store.from_url()`` reads ``REDIS_URL``); the key scheme is documented
in :mod:`arena.store.keys`, and :mod:`arena.store.embedded` runs a private Redis server when no
``REDIS_URL`` is given.
"""

from .batching import TrafficMeter
from .bots import BotRecord, BotStore
from .canary import CanaryBeat, CanaryStore
from .client import Store, connect, kombu_url, redis_py_url, redis_url_from_env
from .competitions import CompetitionRecord, CompetitionStore, DuplicateCompetition, UnknownCompetition
from .errors import (
    DeletedBot,
    DuplicateBotName,
    DuplicateSchedule,
    DuplicateTournament,
    IdempotencyConflict,
    InvalidName,
    InvalidToken,
    StoreConfigError,
    StoreError,
    StoreFailure,
    StoreUnavailable,
    UnknownBot,
    UnknownSchedule,
    UnknownTournament,
    failure_kind,
)
from .gauntlets import DuplicateGauntlet, GauntletRecord, GauntletStore, UnknownGauntlet
from .incidents import INCIDENT_KINDS, Incident, IncidentStore
from .keys import DEFAULT_PREFIX, Keys
from .ratings import RatingStore
from .relay import RelayChannel, ReplyAddress
from .relay_hub import RelayHub, Replies
from .replays import DecisionNote, EngineReplay, Replay, ReplayStore
from .results import Progress, ResultRecord, ResultStore, StoredResult, UnscheduledMatch
from .schedules import Schedule, ScheduleStore
from .sessions import PendingEnd, Session, SessionStore
from .standings import CachedStandings, StandingsStore, TournamentStandings
from .tournaments import CreateResult, TournamentRecord, TournamentStore, new_tournament_id

__all__ = [
    "DEFAULT_PREFIX",
    "INCIDENT_KINDS",
    "BotRecord",
    "BotStore",
    "CachedStandings",
    "CanaryBeat",
    "CanaryStore",
    "CompetitionRecord",
    "CompetitionStore",
    "CreateResult",
    "DecisionNote",
    "DeletedBot",
    "DuplicateBotName",
    "DuplicateCompetition",
    "DuplicateGauntlet",
    "DuplicateSchedule",
    "DuplicateTournament",
    "EngineReplay",
    "GauntletRecord",
    "GauntletStore",
    "IdempotencyConflict",
    "Incident",
    "IncidentStore",
    "InvalidName",
    "InvalidToken",
    "Keys",
    "PendingEnd",
    "Progress",
    "RatingStore",
    "RelayChannel",
    "RelayHub",
    "Replay",
    "ReplayStore",
    "Replies",
    "ReplyAddress",
    "ResultRecord",
    "ResultStore",
    "Schedule",
    "ScheduleStore",
    "Session",
    "SessionStore",
    "StandingsStore",
    "Store",
    "StoreConfigError",
    "StoreError",
    "StoreFailure",
    "StoreUnavailable",
    "StoredResult",
    "TournamentRecord",
    "TournamentStandings",
    "TournamentStore",
    "TrafficMeter",
    "UnknownBot",
    "UnknownCompetition",
    "UnknownGauntlet",
    "UnknownSchedule",
    "UnknownTournament",
    "UnscheduledMatch",
    "connect",
    "failure_kind",
    "kombu_url",
    "new_tournament_id",
    "redis_py_url",
    "redis_url_from_env",
]
