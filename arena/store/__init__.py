"""Redis store of uno-arena: every Redis key and record. Start with :class:`Store` (``Store.from_url()`` reads
``REDIS_URL``); :mod:`arena.store.embedded` runs a private Redis server when there is none.
"""

from .batching import TrafficMeter
from .bots import BotRecord
from .client import Store, kombu_url, redis_py_url
from .competition_store import CompetitionRecord, DuplicateCompetition, UnknownCompetition
from .gauntlet_store import GauntletStore, UnknownGauntlet
from .incident_store import INCIDENT_KINDS, Incident
from .keys import InvalidName, Keys
from .relay import RelayChannel, ReplyAddress
from .relay_hub import RelayHub, Replies
from .replay_store import EngineReplay, Replay
from .result_store import StoredResult, UnscheduledMatch
from .schedule_store import Schedule
from .session_store import PendingEnd
from .standings_store import TournamentStandings
from .store_errors import (
    DeletedBot,
    DuplicateBotName,
    DuplicateSchedule,
    DuplicateTournament,
    IdempotencyConflict,
    InvalidToken,
    StoreConfigError,
    StoreFailure,
    StoreUnavailable,
    UnknownBot,
    UnknownSchedule,
    UnknownTournament,
    failure_kind,
)
from .tournament_store import CreateResult, TournamentRecord, new_tournament_id

__all__ = ["INCIDENT_KINDS", "BotRecord", "CompetitionRecord", "CreateResult", "DeletedBot", "DuplicateBotName",
           "DuplicateCompetition", "DuplicateSchedule", "DuplicateTournament", "EngineReplay", "GauntletStore",
           "IdempotencyConflict", "Incident", "InvalidName", "InvalidToken", "Keys", "PendingEnd", "RelayChannel",
           "RelayHub", "Replay", "Replies", "ReplyAddress", "Schedule", "Store", "StoreConfigError", "StoreFailure",
           "StoreUnavailable", "StoredResult", "TournamentRecord", "TournamentStandings", "TrafficMeter",
           "UnknownBot", "UnknownCompetition", "UnknownGauntlet", "UnknownSchedule", "UnknownTournament",
           "UnscheduledMatch", "failure_kind", "kombu_url", "new_tournament_id", "redis_py_url"]
