"""The organizer API's competitions and rating pools: list, create, pause/resume/close, ladders, leaderboards.

Thin over :mod:`arena.service.competitions` and :mod:`arena.service.leaderboards`: a request is checked and
mapped to the service's typed inputs, the answer built by :mod:`arena.server.api_messages`.
"""

from __future__ import annotations

import secrets

import grpc

from arena.protocol import arena_pb2
from arena.protocol.convert import rules_from_proto
from arena.protocol.statuses import COMPETITION_STATE_OF, competition_status
from arena.service.competitions import create_competition, ladder, set_competition_status
from arena.service.leaderboards import UnknownPool, pool_ids, pool_leaderboard, rating_pools
from arena.store import CompetitionRecord, InvalidName, Store, UnknownBot, UnknownCompetition
from arena.store.keys import check_id, check_name
from arena.tournament import limits
from arena.tournament.competition import CompetitionSpec
from arena.tournament.spec import DEFAULT_DECISION_DEADLINE_MS
from arena.tournament.status import CompetitionStatus

from .api_messages import (
    competition_message,
    ladder_entry,
    leaderboard_message,
    pool_message,
    ranking_of,
    verdicts_message,
)
from .refusals import OrganizerError, invalid, not_found

MAX_COMPETITION_ID = 48
DEFAULT_MATCHES_PER_MINUTE = 60.0
DEFAULT_MAX_BLOCKS = 8
DEFAULT_BLOCKS_PER_BOT = 1


class Ladders:
    """Competitions and rating pools over one store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def _record(self, competition_id: str) -> CompetitionRecord:
        try:
            return self.store.competitions.get(check_name(competition_id, "competition id", MAX_COMPETITION_ID))
        except UnknownCompetition as error:
            raise not_found(f"{error} (ListCompetitions lists them)") from None

    def list_competitions(self, request: arena_pb2.ListCompetitionsRequest) -> arena_pb2.ListCompetitionsResponse:
        records = [self.store.competitions.get(cid) for cid in self.store.competitions.ids()]
        return arena_pb2.ListCompetitionsResponse(competitions=[competition_message(r) for r in records])

    def get_competition_standings(
        self, request: arena_pb2.GetCompetitionStandingsRequest
    ) -> arena_pb2.GetCompetitionStandingsResponse:
        """The ladder: entries ranked as the competition pool's leaderboard ranks them (by the batch rating over
        the current entries), retired versions with rank 0."""
        record = self._record(request.competition_id)
        board = ladder(self.store, record.competition_id)
        return arena_pb2.GetCompetitionStandingsResponse(
            competition=competition_message(record), entries=[ladder_entry(row) for row in board.entries],
            retired=[ladder_entry(row) for row in board.retired], ranked_by=ranking_of(board.ranked_by_batch),
            verdicts=verdicts_message(board.verdicts) if board.ranked_by_batch else None)

    def create_competition(self, request: arena_pb2.CreateCompetitionRequest) -> arena_pb2.CreateCompetitionResponse:
        """A new, active competition (the scheduler starts its blocks while entrants are connected)."""
        spec = competition_spec(request)
        try:
            create_competition(self.store, spec)
        except InvalidName as error:
            raise invalid(f"entrants: {error}") from None
        except UnknownBot as error:
            raise not_found(f"entrants: {error} (or name a built-in bot)") from None
        return arena_pb2.CreateCompetitionResponse(competition=competition_message(
            self.store.competitions.get(spec.competition_id)))

    def set_competition_state(
        self, request: arena_pb2.SetCompetitionStateRequest
    ) -> arena_pb2.SetCompetitionStateResponse:
        """Pause, resume or close; closing a closed competition again changes nothing."""
        status = competition_status(request.state)
        if status is None:
            raise invalid(f"state: {request.state} is not one of ACTIVE (resume), PAUSED or CLOSED")
        record = self._record(request.competition_id)
        cid = request.competition_id
        if record.status is CompetitionStatus.CLOSED and status is not CompetitionStatus.CLOSED:
            raise OrganizerError(grpc.StatusCode.FAILED_PRECONDITION,
                                 f"competition {cid!r} is closed; a closed competition cannot be reopened or paused")
        try:
            old = set_competition_status(self.store, cid, status)
        except ValueError as error:  # closed meanwhile
            raise OrganizerError(grpc.StatusCode.FAILED_PRECONDITION, str(error)) from None
        return arena_pb2.SetCompetitionStateResponse(
            competition=competition_message(self.store.competitions.get(cid)),
            previous_state=COMPETITION_STATE_OF[old])

    def list_rating_pools(self, request: arena_pb2.ListRatingPoolsRequest) -> arena_pb2.ListRatingPoolsResponse:
        return arena_pb2.ListRatingPoolsResponse(pools=[pool_message(info) for info in rating_pools(self.store)])

    def get_leaderboard(self, request: arena_pb2.GetLeaderboardRequest) -> arena_pb2.GetLeaderboardResponse:
        if not request.pool_id:
            raise invalid("pool_id is required (`uno-arena pools` lists the pools)")
        try:
            check_id(request.pool_id, "pool id")
            return leaderboard_message(pool_leaderboard(self.store, request.pool_id))
        except UnknownPool as error:
            known = len(pool_ids(self.store))
            raise not_found(f"{error}; {known} pool(s) exist") from None


def competition_spec(request: arena_pb2.CreateCompetitionRequest) -> CompetitionSpec:
    """The checked spec of a create request (INVALID_ARGUMENT naming the problem)."""
    try:
        check_name(request.competition_id, "competition id", MAX_COMPETITION_ID)
        rules = rules_from_proto(request.rules)
        options = {k: v for k, v in rules.to_dict().items() if k != "variant"}
        limits.check_numbers(participants=2, seats=2, deals=1,
                             decision_deadline_ms=request.decision_deadline_ms or DEFAULT_DECISION_DEADLINE_MS,
                             rules=rules.to_dict())
        return CompetitionSpec(
            request.competition_id, rules.variant, options,
            int(request.seats_per_table) if request.HasField("seats_per_table") else 2,
            tuple(name.strip() for name in request.entrants if name.strip()),
            int(request.decision_deadline_ms or DEFAULT_DECISION_DEADLINE_MS),
            float(request.matches_per_minute or DEFAULT_MATCHES_PER_MINUTE),
            int(request.max_blocks or DEFAULT_MAX_BLOCKS), int(request.blocks_per_bot or DEFAULT_BLOCKS_PER_BOT),
            seed=int(request.seed) or secrets.randbits(32), bots_without_memory=request.bots_without_memory)
    except (ValueError, InvalidName) as error:
        raise invalid(str(error)) from None
