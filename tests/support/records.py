"""Typed store records for tests: a stored result and a replay of a match, with only what a test sets."""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import Rules
from arena.store import EngineReplay, Replay, StoredResult, TournamentStandings
from arena.tournament import EndReason, MatchResult


def stored_result(match_id: str, *, seats: Sequence[str] = ("a", "b"), scores: Sequence[int] = (500, 120),
                  winner: int | None = 0, tournament_id: str = "t-1", seed: int = 0,
                  end_reason: EndReason = EndReason.TARGET, detail: str = "") -> StoredResult:
    """A stored result of ``match_id`` (no timeouts, no refusals)."""
    k = len(seats)
    result = MatchResult(match_id=match_id, seats=tuple(seats), scores=tuple(scores), winner=winner, rounds=1,
                         end_reason=end_reason)
    return StoredResult(result, tournament_id, seed, (0,) * k, (0,) * k, detail=detail)


def stored_replay(match_id: str, *, seed: int = 1, actions: Sequence[tuple[int, str]] = (),
                  seats: Sequence[str] = ("a", "b"), outcomes: str = "") -> Replay:
    """A replay of ``match_id`` with the given engine actions (and one answered decision per letter of
    ``outcomes``)."""
    rules = Rules().to_dict()
    return Replay(match_id=match_id, tournament_id=match_id.split(".", 1)[0], group="", seed=seed, rules=rules,
                  players=len(seats), seats=tuple(seats), scores=(0,) * len(seats), winner=None, rounds=1,
                  end_reason=EndReason.TARGET, engine=EngineReplay(rules, len(seats), seed, tuple(actions)),
                  latency_us=(1000,) * len(outcomes), outcomes=outcomes)


def standings_of(points: int) -> TournamentStandings:
    """Standings with one row, ``a`` on ``points`` points."""
    return TournamentStandings(False, {"rows": [{"bot": "a", "points": points}]}, {"a": 0}, {"a": 0}, {"a": points})
