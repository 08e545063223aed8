"""The result of one match (:class:`MatchResult`) and the finishing order derived from it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from arena.players import EndReason

SCORINGS = ("winner", "lowest")


@dataclass(frozen=True)
class MatchResult:
    """What a finished match reports. ``winner``: a seat or ``None`` (every seat forfeited, say); ``forfeits``:
    seats that finish last, tied; ``strikes``: refused or late decisions per seat (empty: none); ``group``: the deal
    group (empty: its own); ``scoring``: ``"winner"`` (higher is better) or ``"lowest"``, ordering the seats that
    neither won nor forfeited."""

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
        return self.group or self.match_id

    def strikes_of(self, seat: int) -> int:
        return self.strikes[seat] if self.strikes else 0

    def ranks(self) -> tuple[int, ...]:
        """Finishing rank per seat, 0 = first, ties sharing a rank: the winner, then the seats that did not forfeit
        by score, then the forfeited seats."""
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
        data = asdict(self)
        for name in ("seats", "scores", "forfeits", "strikes"):
            data[name] = list(data[name])
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchResult:
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
    """Results sorted by match id, identical duplicates dropped (a match counts once, whatever retries happened);
    conflicting ones raise ``ValueError``."""
    unique: dict[str, MatchResult] = {}
    for result in results:
        seen = unique.get(result.match_id)
        if seen is None:
            unique[result.match_id] = result
        elif seen != result:
            raise ValueError(f"two different results for match {result.match_id}")
    return [unique[m] for m in sorted(unique)]
