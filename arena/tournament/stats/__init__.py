"""The arena's statistics, pure like the rest of :mod:`arena.tournament`: intervals, ratings, the
Plackett-Luce batch fit, tiers and verdicts, and the gauntlet's sequential test."""
