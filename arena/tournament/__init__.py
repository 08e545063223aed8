"""Pure tournament logic: schedules (round robin, balanced designs, duplicate deals), results, standings with
confidence intervals, persistent multiplayer ratings, ladder matchmaking and the gauntlet's sequential test.

No I/O, no global state, no clock: the same inputs give the same outputs in every process (seeds and ids come from
SHA-256, never ``hash()``).
"""

from .export import results_to_csv
from .results import EndReason, MatchResult, dedupe
from .schedule import MatchSpec, batches, count_matches, schedule, tables
from .spec import TournamentSpec, rating_pool_key
from .standings import Standings, standings
from .stats.intervals import mean_interval, t_quantile, wilson_interval, z_quantile
from .stats.ratings import Rating, RatingPool

__all__ = [
    "EndReason",
    "MatchResult",
    "MatchSpec",
    "Rating",
    "RatingPool",
    "Standings",
    "TournamentSpec",
    "batches",
    "count_matches",
    "dedupe",
    "mean_interval",
    "rating_pool_key",
    "results_to_csv",
    "schedule",
    "standings",
    "t_quantile",
    "tables",
    "wilson_interval",
    "z_quantile",
]
