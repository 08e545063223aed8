"""The result of one match (:class:`MatchResult`) and the finishing order derived from it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.players import EndReason

SCORINGS = ("winner", "lowest")


@dataclass(frozen=True)
class MatchResult:
    """What a finished match reports; plain data, JSON-ready through :meth:`to_dict`.

    Fields:
      match_id: the :class:`~arena.tournament.schedule.MatchSpec` id (a match is counted once).
      seats: bot names, seat 0 first.
      scores: final match score per seat.
      winner: the winning seat, or ``None`` (e.g. every seat forfeited).
      rounds: rounds played.
      end_reason: why the match ended (:class:`EndReason`).
      forfeits: seats that forfeited (they finish last, tied).
      strikes: per-seat count of refused/late decisions (empty means none).
      group: the deal group (``MatchSpec.group``); empty means the match is its own group.
      scoring: ``"winner"`` (higher score is better) or ``"lowest"`` (lower is better), as in
        the match's rules; it orders the seats that neither won nor forfeited.
    """

    match_id: str
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    winner: int | None
    rounds: int = 0
    end_reason: EndReason = EndReason.TARGET
    forfeits: tuple[int, ...] = ()
    strikes: tuple[int, ...] = ()
    group: str = ""
    scoring: str = "winner"

    def __post_init__(self) -> None:
        object.__setattr__(self, "seats", tuple(self.seats))
        object.__setattr__(self, "scores", tuple(self.scores))
        object.__setattr__(self, "forfeits", tuple(sorted(set(self.forfeits))))
        object.__setattr__(self, "strikes", tuple(self.strikes))
        object.__setattr__(self, "end_reason", EndReason.parse(self.end_reason))
        k = len(self.seats)
        if not self.match_id:
            raise ValueError("match_id must not be empty")
        if k < 2:
            raise ValueError(f"match {self.match_id}: a match has at least 2 seats, got {k}")
        if len(set(self.seats)) != k:
            raise ValueError(f"match {self.match_id}: a bot holds more than one seat: {list(self.seats)}")
        if len(self.scores) != k:
            raise ValueError(f"match {self.match_id}: {len(self.scores)} scores for {k} seats")
        if self.strikes and len(self.strikes) != k:
            raise ValueError(f"match {self.match_id}: {len(self.strikes)} strike counts for {k} seats")
        if self.winner is not None and not 0 <= self.winner < k:
            raise ValueError(f"match {self.match_id}: winner seat {self.winner} out of range 0..{k - 1}")
        for seat in self.forfeits:
            if not 0 <= seat < k:
                raise ValueError(f"match {self.match_id}: forfeit seat {seat} out of range 0..{k - 1}")
        if self.winner is not None and self.winner in self.forfeits:
            raise ValueError(f"match {self.match_id}: the winner (seat {self.winner}) cannot have forfeited")
        if self.scoring not in SCORINGS:
            raise ValueError(
                f"match {self.match_id}: scoring must be 'winner' or 'lowest', got {self.scoring!r}"
            )

    @property
    def deal_group(self) -> str:
        """The deal group id (``group``, or the match id when empty)."""
        return self.group or self.match_id

    def strikes_of(self, seat: int) -> int:
        """Strikes of one seat (0 when not reported)."""
        return self.strikes[seat] if self.strikes else 0

    def ranks(self) -> tuple[int, ...]:
        """Finishing rank per seat, 0 = first; ties share a rank (competition ranking).

        The winner is first; then the seats that did not forfeit, by score (higher first with
        ``scoring="winner"``, lower first with ``"lowest"``); the forfeited seats share the last
        rank. Used by the ratings (Plackett-Luce takes a full finishing order).
        """
        k = len(self.seats)
        sign = -1 if self.scoring == "winner" else 1

        def key(seat: int) -> tuple[int, int]:
            if seat == self.winner:
                return (0, 0)
            if seat in self.forfeits:
                return (2, 0)
            return (1, sign * self.scores[seat])

        keys = [key(s) for s in range(k)]
        return tuple(sum(1 for other in keys if other < keys[s]) for s in range(k))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_dict` gives back an equal result."""
        return {
            "match_id": self.match_id,
            "seats": list(self.seats),
            "scores": list(self.scores),
            "winner": self.winner,
            "rounds": self.rounds,
            "end_reason": self.end_reason,
            "forfeits": list(self.forfeits),
            "strikes": list(self.strikes),
            "group": self.group,
            "scoring": self.scoring,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchResult:
        """Inverse of :meth:`to_dict` (missing optional keys take their defaults)."""
        winner = data.get("winner")
        return cls(
            match_id=str(data["match_id"]),
            seats=tuple(str(s) for s in data["seats"]),
            scores=tuple(int(s) for s in data["scores"]),
            winner=None if winner is None else int(winner),
            rounds=int(data.get("rounds", 0)),
            end_reason=EndReason.parse(data.get("end_reason", EndReason.TARGET)),
            forfeits=tuple(int(s) for s in data.get("forfeits", ())),
            strikes=tuple(int(s) for s in data.get("strikes", ())),
            group=str(data.get("group", "")),
            scoring=str(data.get("scoring", "winner")),
        )


def dedupe(results: Iterable[MatchResult]) -> list[MatchResult]:
    """Results sorted by match id, identical duplicates dropped; conflicting ones raise ``ValueError``.

    A match id is counted once, whatever retries or redeliveries happened upstream.
    """
    unique: dict[str, MatchResult] = {}
    for result in results:
        seen = unique.get(result.match_id)
        if seen is None:
            unique[result.match_id] = result
        elif seen != result:
            raise ValueError(f"two different results for match {result.match_id}")
    return [unique[m] for m in sorted(unique)]
