"""Pure tournament logic: schedules (round robin, balanced designs, duplicate deals), results,
standings with confidence intervals, persistent multiplayer ratings, ladder matchmaking
(:mod:`~arena.tournament.matchmaking`) and the gauntlet's sequential test (:mod:`~arena.tournament.stats.sprt`).

No I/O, no global state, no clock: every function takes data and returns data, and the same
inputs give the same outputs in every process (seeds and ids come from SHA-256, never ``hash()``).

Typical use::

    spec = TournamentSpec("t1", ("alpha", "beta", "gamma"), seats=2, deals=4, duplicate=True, seed=7)
    matches = schedule(spec)                 # list[MatchSpec]
    for batch in batches(matches, 50): ...   # hand to workers
    results: list[MatchResult] = ...         # one per match id
    table = standings(results, participants=spec.participants, pool=prior_pool)
    new_pool = table.pool                    # persist under spec.rating_pool
"""

from .export import results_to_csv
from .matchmaking import (
    Entrant,
    Evidence,
    MatchmakingConfig,
    PairEvidence,
    RateLimit,
    Table,
    choose_tables,
    evidence_of,
    meeting_value,
)
from .results import EndReason, MatchResult, dedupe
from .schedule import (
    MatchSpec,
    batches,
    count_matches,
    deal_group_id,
    match_id,
    schedule,
    tables,
)
from .spec import TournamentSpec, normalize_rules, rating_pool_key
from .standings import (
    HeadToHead,
    StandingRow,
    Standings,
    standings,
)
from .stats.intervals import mean_interval, t_quantile, wilson_interval, z_quantile
from .stats.ratings import Rating, RatingPool
from .stats.sprt import SprtConfig, SprtFinished, SprtState, block_score, finish_points
from .stats.tiers import indistinguishable

__all__ = [
    "EndReason",
    "Entrant",
    "Evidence",
    "HeadToHead",
    "MatchResult",
    "MatchSpec",
    "MatchmakingConfig",
    "PairEvidence",
    "RateLimit",
    "Rating",
    "RatingPool",
    "SprtConfig",
    "SprtFinished",
    "SprtState",
    "StandingRow",
    "Standings",
    "Table",
    "TournamentSpec",
    "batches",
    "block_score",
    "choose_tables",
    "count_matches",
    "deal_group_id",
    "dedupe",
    "evidence_of",
    "finish_points",
    "indistinguishable",
    "match_id",
    "mean_interval",
    "meeting_value",
    "normalize_rules",
    "rating_pool_key",
    "results_to_csv",
    "schedule",
    "standings",
    "t_quantile",
    "tables",
    "wilson_interval",
    "z_quantile",
]
