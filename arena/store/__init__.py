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
from .competition_store import CompetitionRecord, CompetitionStore, DuplicateCompetition, UnknownCompetition
from .gauntlet_store import DuplicateGauntlet, GauntletRecord, GauntletStore, UnknownGauntlet
from .incident_store import INCIDENT_KINDS, Incident, IncidentStore
from .keys import DEFAULT_PREFIX, Keys
from .rating_store import RatingStore
from .relay import RelayChannel, ReplyAddress
from .relay_hub import RelayHub, Replies
from .replay_store import DecisionNote, EngineReplay, Replay, ReplayStore
from .result_store import Progress, ResultRecord, ResultStore, StoredResult, UnscheduledMatch
from .schedule_store import Schedule, ScheduleStore
from .session_store import PendingEnd, Session, SessionStore
from .standings_store import CachedStandings, StandingsStore, TournamentStandings
from .store_errors import (
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
from .tournament_store import CreateResult, TournamentRecord, TournamentStore, new_tournament_id

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
