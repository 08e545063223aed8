"""Builders of the bot stream's lifecycle messages (``MatchStarted``, ``MatchEvents``, ``MatchEnded``), shared by
the gateway's remote seat and the Redis relay's seat (the decision request itself: :mod:`arena.protocol.encoding`)."""

from __future__ import annotations

from arena.engine import Observation
from arena.players import MatchSummary, SeatStart
from arena.protocol import bot_pb2, game_pb2
from arena.protocol.convert import (
    end_reason_to_proto,
    events_to_proto,
    observation_to_proto,
    rules_to_proto,
    seats_to_proto,
)


def match_started(info: SeatStart) -> bot_pb2.MatchStarted:
    return bot_pb2.MatchStarted(match_id=info.match_id, seat=info.seat, rules=rules_to_proto(info.rules),
                                seats=seats_to_proto(info.seats),
                                decision_time_limit_ms=max(1, int(info.decision_deadline_s * 1000)),
                                tournament_id=info.tournament_id, attempt=max(0, info.attempt))


def match_events(match_id: str, observation: Observation) -> bot_pb2.MatchEvents:
    return bot_pb2.MatchEvents(match_id=match_id, events=events_to_proto(observation.events),
                               observation=observation_to_proto(observation))


def match_ended(match_id: str, summary: MatchSummary) -> bot_pb2.MatchEnded:
    result = game_pb2.MatchResult(scores=summary.scores, winner=summary.winner, rounds=summary.rounds,
                                  forfeited_seats=summary.forfeits, timeouts=summary.timeouts,
                                  refusals=summary.refusals)
    return bot_pb2.MatchEnded(match_id=match_id, reason=end_reason_to_proto(summary.end_reason),
                              detail=summary.detail, attempt=max(0, summary.attempt), result=result)
