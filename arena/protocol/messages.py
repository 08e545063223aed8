"""Builders of the bot stream's lifecycle messages (``MatchStarted``, ``MatchEvents``, ``MatchEnded``), shared by
the gateway's remote seat and the Redis relay's seat (the decision request itself: :mod:`arena.protocol.encoding`)."""

from __future__ import annotations

from arena.engine import Observation
from arena.players import MatchSummary, SeatStart
from arena.protocol import bot_pb2
from arena.protocol.convert import end_reason_to_proto, events_to_proto, observation_to_proto, rules_to_proto


def match_started(info: SeatStart) -> bot_pb2.MatchStarted:
    started = bot_pb2.MatchStarted(match_id=info.match_id, seat=info.seat,
                                   decision_time_limit_ms=max(1, int(info.decision_deadline_s * 1000)),
                                   tournament_id=info.tournament_id, attempt=max(0, info.attempt))
    started.rules.CopyFrom(rules_to_proto(info.rules))
    for index, name in enumerate(info.seats):
        started.seats.add(seat=index, bot_id=name, bot_name=name)
    return started


def match_events(match_id: str, observation: Observation) -> bot_pb2.MatchEvents:
    events = bot_pb2.MatchEvents(match_id=match_id)
    events.events.extend(events_to_proto(observation.events))
    events.observation.CopyFrom(observation_to_proto(observation))
    return events


def match_ended(match_id: str, summary: MatchSummary) -> bot_pb2.MatchEnded:
    ended = bot_pb2.MatchEnded(match_id=match_id, reason=end_reason_to_proto(summary.end_reason),
                               detail=summary.detail, attempt=max(0, summary.attempt))
    result = ended.result
    result.scores.extend(summary.scores)
    if summary.winner is not None:
        result.winner = summary.winner
    result.rounds = summary.rounds
    result.forfeited_seats.extend(summary.forfeits)
    result.timeouts.extend(summary.timeouts)
    result.refusals.extend(summary.refusals)
    return ended
