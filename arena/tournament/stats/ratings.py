"""Multiplayer ratings with uncertainty: OpenSkill's Plackett-Luce model, kept as plain data.

A :class:`RatingPool` holds one ``(mu, sigma)`` per bot for one rating pool
(:func:`arena.tournament.spec.rating_pool_key`); it is immutable, and applies results in ``match_id`` order whatever
order they arrive in, so the same set of results gives the same ratings. Drift is off (``tau = 0``): bots do not
change between matches as people do. The rating shown is :meth:`Rating.fact`, computed here only; ``ordinal``
(``mu - 3 sigma``) remains for the exports. A pool also keeps per-bot counters (:class:`Tally`) and the tournaments
counted, so each tournament counts once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import astuple, dataclass, field, replace
from typing import Any

from openskill.models import PlackettLuce

from ..results import MatchResult, dedupe
from .intervals import RateSums

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
DEFAULT_BETA = 25.0 / 6.0
DEFAULT_TAU = 0.0
ORDINAL_Z = 3.0
POOL_FORMAT = 1
Z95 = 1.959963984540054
"""The two-sided 95 % normal critical value: the interval of every rating shown."""


@dataclass(frozen=True)
class RatingFact:
    """A rating as every reader shows it: ``value`` (``mu``), ``sigma`` and ``[low, high]`` = ``value -/+ z sigma``."""

    value: float
    sigma: float
    low: float
    high: float
    matches: int


@dataclass(frozen=True)
class Rating:
    """One bot's rating: skill estimate ``mu``, its standard deviation ``sigma``, matches rated."""

    mu: float
    sigma: float
    matches: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative estimate ``mu - 3*sigma`` (OpenSkill's ordinal)."""
        return self.mu - ORDINAL_Z * self.sigma

    def interval(self, z: float = Z95) -> tuple[float, float]:
        return (self.mu - z * self.sigma, self.mu + z * self.sigma)

    def fact(self, z: float = Z95) -> RatingFact:
        """The rating as shown (the one place it is computed)."""
        low, high = self.interval(z)
        return RatingFact(self.mu, self.sigma, low, high, self.matches)

    def to_dict(self) -> dict[str, Any]:
        return {"mu": self.mu, "sigma": self.sigma, "matches": self.matches}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rating:
        return cls(mu=float(data["mu"]), sigma=float(data["sigma"]), matches=int(data.get("matches", 0)))


@dataclass(frozen=True)
class Tally:
    """One bot's counters in a rating pool: matches, wins and points of its scored matches, forfeits, and the
    timeouts, refusals and decisions of its recorded matches; ``groups``: its deal groups. The win rate's running
    sums: over all its tables (``group_matches_sq``, ``group_wins_sq``, ``group_cross``) and per table, ``win_strata``
    (by :func:`arena.tournament.standings.table_key`, up to :data:`MAX_TABLES` tables)."""

    matches: int = 0
    wins: int = 0
    points: int = 0
    forfeits: int = 0
    timeouts: int = 0
    refusals: int = 0
    decisions: int = 0
    groups: int = 0
    group_matches_sq: int = 0
    group_wins_sq: int = 0
    group_cross: int = 0
    win_strata: Mapping[str, RateSums] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "win_strata", dict(self.win_strata))

    @classmethod
    def summing(cls, strata: Mapping[str, RateSums], **counters: int) -> Tally:
        sums = sum(strata.values(), RateSums())
        return cls(**counters, group_matches_sq=sums.matches_sq, group_wins_sq=sums.total_sq, group_cross=sums.cross,
                   win_strata=strata)

    def win_sums(self) -> RateSums:
        """The running sums of the win rate's clusters over all tables."""
        return RateSums(self.groups, self.matches, self.wins, self.group_matches_sq, self.group_wins_sq,
                        self.group_cross)

    def win_sums_by_table(self) -> list[RateSums] | None:
        """The running sums per table, ``None`` once they were dropped (past :data:`MAX_TABLES`)."""
        if sum(cell.clusters for cell in self.win_strata.values()) != self.groups:
            return None
        return list(self.win_strata.values())

    def plus(self, other: Tally) -> Tally:
        """The sum of two tallies; the sums per table are dropped for good past :data:`MAX_TABLES` tables."""
        counts = {name: getattr(self, name) + getattr(other, name) for name in _COUNTERS}
        strata: dict[str, RateSums] = {}
        if self.win_sums_by_table() is not None and other.win_sums_by_table() is not None:
            strata = dict(self.win_strata)
            for key, cell in other.win_strata.items():
                strata[key] = strata.get(key, RateSums()) + cell
        return Tally(**counts, win_strata=strata if len(strata) <= MAX_TABLES else {})

    def to_dict(self) -> dict[str, Any]:
        return {**{name: getattr(self, name) for name in _COUNTERS},
                "win_strata": {key: list(astuple(self.win_strata[key])) for key in sorted(self.win_strata)}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tally:
        strata = {str(key): RateSums(*(int(v) for v in values))
                  for key, values in dict(data.get("win_strata") or {}).items()}
        return cls(**{name: int(data.get(name, 0) or 0) for name in _COUNTERS}, win_strata=strata)


MAX_TABLES = 256
"""The most tables a bot's :class:`Tally` keeps sums for, so a pool's size does not grow with its groups (tables
seated afresh every deal give a bot a new table nearly every group)."""

_COUNTERS = tuple(name for name in Tally.__dataclass_fields__ if name != "win_strata")
"""The whole-number counters of a :class:`Tally`."""


@dataclass(frozen=True)
class RatingPool:
    """Ratings of every bot in one rating pool, plus the model parameters. ``applied``: results applied;
    ``tournaments``: those applied, in order; ``tallies``: per-bot counters of the tournaments in ``counted``;
    ``seat_counts``: the table sizes of the matches applied."""

    key: str = ""
    ratings: Mapping[str, Rating] = field(default_factory=dict, hash=False)
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    beta: float = DEFAULT_BETA
    tau: float = DEFAULT_TAU
    applied: int = 0
    tournaments: tuple[str, ...] = ()
    tallies: Mapping[str, Tally] = field(default_factory=dict, hash=False)
    counted: tuple[str, ...] = ()
    seat_counts: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.sigma <= 0 or self.beta <= 0 or self.tau < 0:
            raise ValueError("rating pool needs sigma > 0, beta > 0 and tau >= 0")
        object.__setattr__(self, "ratings", dict(self.ratings))
        object.__setattr__(self, "tournaments", tuple(self.tournaments))
        object.__setattr__(self, "tallies", dict(self.tallies))
        object.__setattr__(self, "counted", tuple(self.counted))
        object.__setattr__(self, "seat_counts", tuple(sorted(set(self.seat_counts))))

    def rating(self, bot: str) -> Rating:
        """The bot's rating, or the prior ``(mu, sigma)`` for a bot not yet rated."""
        found = self.ratings.get(bot)
        return found if found is not None else Rating(self.mu, self.sigma, 0)

    def updated(self, results: Iterable[MatchResult]) -> RatingPool:
        """A new pool with ``results`` applied one by one in ``match_id`` order (a match id once; two different
        results with one id raise ``ValueError``)."""
        ordered = dedupe(results)
        if not ordered:
            return self
        model = PlackettLuce(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau)
        ratings = dict(self.ratings)
        for result in ordered:
            current = [ratings.get(bot) or Rating(self.mu, self.sigma, 0) for bot in result.seats]
            teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in current]
            ranks = [float(r) for r in result.ranks()]
            new = model.rate(teams, ranks=ranks)
            for bot, old, team in zip(result.seats, current, new, strict=True):
                ratings[bot] = Rating(float(team[0].mu), float(team[0].sigma), old.matches + 1)
        seat_counts = (*self.seat_counts, *(len(result.seats) for result in ordered))
        return replace(self, ratings=ratings, applied=self.applied + len(ordered), seat_counts=seat_counts)

    def with_tournament(self, tournament_id: str, results: Iterable[MatchResult],
                        tallies: Mapping[str, Tally] | None = None) -> RatingPool:
        """Apply a finished tournament's results (and its ``tallies``) once: again is a no-op, so safe to retry."""
        if tournament_id in self.tournaments:
            return self
        pool = replace(self.updated(results), tournaments=(*self.tournaments, tournament_id))
        if tallies is None:
            return pool
        summed = dict(self.tallies)
        for bot, tally in tallies.items():
            summed[bot] = summed.get(bot, Tally()).plus(tally)
        return replace(pool, tallies=summed, counted=(*self.counted, tournament_id))

    def without(self, bots: Iterable[str]) -> RatingPool:
        """The pool with ``bots`` forgotten (ratings and counters): a new version of them starts from nothing."""
        gone = set(bots)
        return replace(self, ratings={b: r for b, r in self.ratings.items() if b not in gone},
                       tallies={b: t for b, t in self.tallies.items() if b not in gone})

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": POOL_FORMAT,
            "key": self.key,
            "model": "plackett-luce",
            "mu": self.mu,
            "sigma": self.sigma,
            "beta": self.beta,
            "tau": self.tau,
            "applied": self.applied,
            "tournaments": list(self.tournaments),
            "ratings": {bot: self.ratings[bot].to_dict() for bot in sorted(self.ratings)},
            "tallies": {bot: self.tallies[bot].to_dict() for bot in sorted(self.tallies)},
            "counted": list(self.counted),
            "seat_counts": list(self.seat_counts),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RatingPool:
        if data.get("format", POOL_FORMAT) != POOL_FORMAT:
            raise ValueError(f"unsupported rating pool format {data.get('format')!r}")
        if data.get("model", "plackett-luce") != "plackett-luce":
            raise ValueError(f"unsupported rating model {data.get('model')!r}")
        return cls(
            key=str(data.get("key", "")),
            ratings={str(b): Rating.from_dict(r) for b, r in dict(data.get("ratings", {})).items()},
            mu=float(data.get("mu", DEFAULT_MU)),
            sigma=float(data.get("sigma", DEFAULT_SIGMA)),
            beta=float(data.get("beta", DEFAULT_BETA)),
            tau=float(data.get("tau", DEFAULT_TAU)),
            applied=int(data.get("applied", 0)),
            tournaments=tuple(str(t) for t in data.get("tournaments", ())),
            tallies={str(b): Tally.from_dict(t) for b, t in dict(data.get("tallies") or {}).items()},
            counted=tuple(str(t) for t in data.get("counted") or ()),
            seat_counts=tuple(int(k) for k in data.get("seat_counts") or ()),
        )
