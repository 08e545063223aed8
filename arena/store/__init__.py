"""Redis store of uno-arena: bots, sessions, tournaments, results, replays, standings, ratings, schedules.

Start with :class:`Store` (``Store.from_url()`` reads ``REDIS_URL``); the key scheme is documented
in :mod:`arena.store.keys`, and :mod:`arena.store.embedded` runs a private Redis server when no
``REDIS_URL`` is given.
"""

from .bots import BotRecord, BotStore
from .canary import CanaryBeat, CanaryStore
from .client import Store, connect, kombu_url, redis_py_url, redis_url_from_env
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
from .keys import DEFAULT_PREFIX, Keys
from .ratings import RatingStore
from .relay import RelayChannel
from .replays import ReplayStore
from .results import Progress, ResultRecord, ResultStore, UnscheduledMatch
from .schedules import Schedule, ScheduleStore
from .sessions import Session, SessionStore
from .standings import CachedStandings, StandingsStore
from .tournaments import STATUSES, CreateResult, TournamentRecord, TournamentStore, new_tournament_id

__all__ = [
    "DEFAULT_PREFIX",
    "STATUSES",
    "BotRecord",
    "BotStore",
    "CachedStandings",
    "CanaryBeat",
    "CanaryStore",
    "CreateResult",
    "DeletedBot",
    "DuplicateBotName",
    "DuplicateSchedule",
    "DuplicateTournament",
    "IdempotencyConflict",
    "InvalidName",
    "InvalidToken",
    "Keys",
    "Progress",
    "RatingStore",
    "RelayChannel",
    "ReplayStore",
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
    "TournamentRecord",
    "TournamentStore",
    "UnknownBot",
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
