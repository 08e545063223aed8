"""Running tournaments: the public names of the tournament machinery, re-exported from one module per job (runtime,
tournaments, batches, batch_runner, recovery, standings_cache). Written against a :class:`arena.store.Store` and an
:class:`Enqueuer`, so it runs without Celery. Every step (create, start, a batch, the completeness check, finish)
may run twice, concurrently or after a crash, without changing the outcome: results are written once, the check is
idempotent, the ratings update is keyed by tournament id (docs/architecture.md, "The path of one tournament").
"""

from __future__ import annotations

from .batch_runner import run_batch
from .batches import GUIDED_FLOOR, auto_batch_size, split_guided, start_tournament
from .enqueuer import Enqueuer
from .recovery import check_tournament, sweep
from .runtime import Settings
from .standings_cache import cached_standings, finish_tournament, tournament_table
from .tournaments import (
    SeedReveal,
    UnknownParticipants,
    cancel_tournament,
    check_participants,
    choose_seed,
    create_tournament,
    duplicate_orders_for,
    seed_reveal,
    spec_of,
)

__all__ = [
    "GUIDED_FLOOR", "Enqueuer", "SeedReveal", "Settings", "UnknownParticipants", "auto_batch_size", "cached_standings",
    "cancel_tournament", "check_participants", "check_tournament", "choose_seed", "create_tournament",
    "duplicate_orders_for", "finish_tournament", "run_batch", "seed_reveal", "spec_of", "split_guided",
    "start_tournament", "sweep", "tournament_table",
]
