"""Multiplayer ratings with uncertainty: OpenSkill's Plackett-Luce model, kept as plain data.

A :class:`RatingPool` holds one ``(mu, sigma)`` per bot for one *rating pool* (a variant plus
rule options, see :func:`arena.tournament.spec.rating_pool_key`), with the model parameters it
was built with. It is immutable: :meth:`RatingPool.updated` returns a new pool. Results are
applied in ``match_id`` order, whatever order they arrive in, so the same set of results
always gives the same ratings; a match id already seen in the same call is applied once.

Drift is off by default (``tau = 0``): bots do not change between matches the way people do, so
sigma only shrinks with evidence. A new version of a bot should enter under a new name.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from openskill.models import PlackettLuce

from .results import MatchResult, dedupe

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
DEFAULT_BETA = 25.0 / 6.0
DEFAULT_TAU = 0.0
ORDINAL_Z = 3.0
POOL_FORMAT = 1


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

    def interval(self, z: float = 1.959963984540054) -> tuple[float, float]:
        """``mu -/+ z*sigma`` (95% by default)."""
        return (self.mu - z * self.sigma, self.mu + z * self.sigma)

    def to_dict(self) -> dict[str, Any]:
        return {"mu": self.mu, "sigma": self.sigma, "matches": self.matches}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rating:
        return cls(mu=float(data["mu"]), sigma=float(data["sigma"]), matches=int(data.get("matches", 0)))


@dataclass(frozen=True)
class RatingPool:
    """Ratings of every bot in one rating pool, plus the model parameters (plain data).

    ``applied`` counts the results applied since the pool was created; ``tournaments`` lists
    the tournaments applied with :meth:`with_tournament`, in order.
    """

    key: str = ""
    ratings: Mapping[str, Rating] = field(default_factory=dict, hash=False)
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    beta: float = DEFAULT_BETA
    tau: float = DEFAULT_TAU
    applied: int = 0
    tournaments: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.sigma <= 0 or self.beta <= 0 or self.tau < 0:
            raise ValueError("rating pool needs sigma > 0, beta > 0 and tau >= 0")
        object.__setattr__(self, "ratings", dict(self.ratings))
        object.__setattr__(self, "tournaments", tuple(self.tournaments))

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
        return replace(self, ratings=ratings, applied=self.applied + len(ordered))

    def with_tournament(self, tournament_id: str, results: Iterable[MatchResult]) -> RatingPool:
        """Apply a finished tournament's results once: a tournament already applied is a no-op.

        This makes persisting ``pool.with_tournament(...)`` safe to retry.
        """
        if tournament_id in self.tournaments:
            return self
        pool = self.updated(results)
        return replace(pool, tournaments=(*self.tournaments, tournament_id))

    def with_bots(self, bots: Iterable[str]) -> RatingPool:
        """A pool in which every bot of ``bots`` has an entry (the prior for new ones)."""
        ratings = dict(self.ratings)
        for bot in bots:
            ratings.setdefault(bot, Rating(self.mu, self.sigma, 0))
        return replace(self, ratings=ratings)

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
        )

    def to_json(self) -> str:
        """Canonical JSON text (sorted keys)."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> RatingPool:
        """Inverse of :meth:`to_json`."""
        return cls.from_dict(json.loads(text))
