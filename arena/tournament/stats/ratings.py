"""Multiplayer ratings with uncertainty: OpenSkill's Plackett-Luce model, kept as plain data.

A :class:`RatingPool` holds one ``(mu, sigma)`` per bot for one *rating pool* (a variant plus
rule options, see :func:`arena.tournament.spec.rating_pool_key`), with the model parameters it
was built with. It is immutable: :meth:`RatingPool.updated` returns a new pool. Results are
applied in ``match_id`` order, whatever order they arrive in, so the same set of results
always gives the same ratings; a match id already seen in the same call is applied once.

Drift is off by default (``tau = 0``): bots do not change between matches the way people do, so
sigma only shrinks with evidence. A new version of a bot should enter under a new name.

The rating fact (:meth:`Rating.fact`) is computed here and nowhere else: the rating *is* the estimate ``mu``,
shown with its standard deviation and its interval ``mu -/+ z sigma`` (95 % by default), so a rating always lies
inside its interval; leaderboards and ladders rank by it. ``ordinal`` (``mu - 3 sigma``) remains only as the
conservative number of the tournament exports.

A pool also keeps per-bot counters (:class:`Tally`: matches, wins, points, forfeits, timeouts, refusals,
decisions, deal groups) over every tournament applied with tallies, and the tournaments counted (``counted``),
so that the counters, like the ratings, count each tournament once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
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
    """A rating as every reader shows it: ``value`` (the estimate ``mu``), its ``sigma`` and its interval
    ``[low, high]`` = ``value -/+ z sigma``, which always holds ``value``."""

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
        """``mu -/+ z*sigma`` (95% by default)."""
        return (self.mu - z * self.sigma, self.mu + z * self.sigma)

    def fact(self, z: float = Z95) -> RatingFact:
        """The rating as shown: value ``mu`` inside its interval ``mu -/+ z sigma`` (the one place it is
        computed)."""
        low, high = self.interval(z)
        return RatingFact(self.mu, self.sigma, low, high, self.matches)

    def to_dict(self) -> dict[str, Any]:
        return {"mu": self.mu, "sigma": self.sigma, "matches": self.matches}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rating:
        return cls(mu=float(data["mu"]), sigma=float(data["sigma"]), matches=int(data.get("matches", 0)))


@dataclass(frozen=True)
class Tally:
    """One bot's counters in a rating pool: matches, wins and points of its scored matches, the matches it
    forfeited, and the timeouts, refusals and decisions of its recorded matches; ``groups`` is the number of
    independent deal groups it played. The win-rate interval takes its deal groups as clusters in strata (its
    tables) from their running sums per table, ``win_strata`` (:class:`arena.tournament.stats.intervals.RateSums` by
    :func:`arena.tournament.standings.table_key`, up to :data:`MAX_TABLES` tables); ``summed_groups`` groups are also
    in ``group_matches_sq``, ``group_wins_sq`` and ``group_cross``, the sums over all its tables (tournaments
    counted before pools kept them are not in either)."""

    matches: int = 0
    wins: int = 0
    points: int = 0
    forfeits: int = 0
    timeouts: int = 0
    refusals: int = 0
    decisions: int = 0
    groups: int = 0
    summed_groups: int = 0
    group_matches_sq: int = 0
    group_wins_sq: int = 0
    group_cross: int = 0
    win_strata: Mapping[str, RateSums] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "win_strata", dict(self.win_strata))

    @classmethod
    def summing(cls, strata: Mapping[str, RateSums], **counters: int) -> Tally:
        """A tally with ``counters`` and the win rate's running sums per table, ``strata``."""
        sums = sum(strata.values(), RateSums())
        return cls(**counters, summed_groups=sums.clusters, group_matches_sq=sums.matches_sq,
                   group_wins_sq=sums.total_sq, group_cross=sums.cross, win_strata=strata)

    def win_sums(self) -> RateSums | None:
        """The running sums of the win rate's clusters over all tables, ``None`` when some of the bot's groups are
        not in them (counted before pools kept them)."""
        if self.summed_groups != self.groups:
            return None
        return RateSums(self.groups, self.matches, self.wins, self.group_matches_sq, self.group_wins_sq,
                        self.group_cross)

    def win_sums_by_table(self) -> list[RateSums] | None:
        """The running sums per table, ``None`` when some of the bot's groups are not in them (counted before pools
        kept them per table, 2026-12-03)."""
        if sum(cell.clusters for cell in self.win_strata.values()) != self.groups:
            return None
        return list(self.win_strata.values())

    def plus(self, other: Tally) -> Tally:
        """The sum of two tallies. The sums per table are kept while both cover all their groups and they hold at
        most :data:`MAX_TABLES` tables; past that, none (the interval then takes the sums over all tables)."""
        counts = {name: getattr(self, name) + getattr(other, name) for name in _COUNTERS}
        strata: dict[str, RateSums] = {}
        if self.win_sums_by_table() is not None and other.win_sums_by_table() is not None:
            strata = dict(self.win_strata)
            for key, cell in other.win_strata.items():
                strata[key] = strata.get(key, RateSums()) + cell
        return Tally(**counts, win_strata=strata if len(strata) <= MAX_TABLES else {})

    def to_dict(self) -> dict[str, Any]:
        return {**{name: getattr(self, name) for name in _COUNTERS},
                "win_strata": {key: list(self.win_strata[key].as_tuple()) for key in sorted(self.win_strata)}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tally:
        strata = {str(key): RateSums(*(int(v) for v in values))
                  for key, values in dict(data.get("win_strata") or {}).items()}
        return cls(**{name: int(data.get(name, 0) or 0) for name in _COUNTERS}, win_strata=strata)


MAX_TABLES = 256
"""The most tables a bot's :class:`Tally` keeps sums for. A pool's size grows with them: 2-seat round robins give
a bot one table per opponent, but tournaments that seat 3 or 4 bots afresh every deal give it a new table nearly
every group, whose sums (one group each) the interval pools into one anyway."""

_COUNTERS = tuple(name for name in Tally.__dataclass_fields__ if name != "win_strata")
"""The whole-number counters of a :class:`Tally`."""


def added(tallies: Mapping[str, Tally], more: Mapping[str, Tally]) -> dict[str, Tally]:
    """``tallies`` plus ``more``, bot by bot."""
    out = dict(tallies)
    for bot, tally in more.items():
        out[bot] = out.get(bot, Tally()).plus(tally)
    return out


@dataclass(frozen=True)
class RatingPool:
    """Ratings of every bot in one rating pool, plus the model parameters (plain data).

    ``applied`` counts the results applied since the pool was created; ``tournaments`` lists
    the tournaments applied with :meth:`with_tournament`, in order. ``tallies`` are the per-bot counters of
    the tournaments listed in ``counted``; ``seat_counts`` the table sizes of the matches applied.
    """

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

    def _model(self) -> PlackettLuce:
        return PlackettLuce(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau)

    def updated(self, results: Iterable[MatchResult]) -> RatingPool:
        """A new pool with ``results`` applied one by one in ``match_id`` order.

        Identical duplicates (same match id) are applied once; two different results with the
        same match id raise ``ValueError``.
        """
        ordered = dedupe(results)
        if not ordered:
            return self
        model = self._model()
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
        """Apply a finished tournament's results (and its per-bot ``tallies``, when given) once: a tournament
        already applied is a no-op.

        This makes persisting ``pool.with_tournament(...)`` safe to retry.
        """
        if tournament_id in self.tournaments:
            return self
        pool = self.updated(results)
        pool = replace(pool, tournaments=(*self.tournaments, tournament_id))
        if tallies is None:
            return pool
        return replace(pool, tallies=added(self.tallies, tallies), counted=(*self.counted, tournament_id))

    def without(self, bots: Iterable[str]) -> RatingPool:
        """The pool with ``bots`` forgotten (ratings and counters): a new version of them starts from nothing."""
        gone = set(bots)
        return replace(self, ratings={b: r for b, r in self.ratings.items() if b not in gone},
                       tallies={b: t for b, t in self.tallies.items() if b not in gone})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (bots sorted); :meth:`from_dict` gives back an equal pool."""
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
        """Inverse of :meth:`to_dict`."""
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

    def to_json(self) -> str:
        """Canonical JSON text (sorted keys)."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> RatingPool:
        """Inverse of :meth:`to_json`."""
        return cls.from_dict(json.loads(text))
