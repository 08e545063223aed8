"""The organizer API's one road (issue 20), over real gRPC, Redis and Celery workers: GetTournament, ListMatches
(pages, filters), ListRatingPools and GetLeaderboard (the stored pool's numbers, the rating fact, the batch
Plackett-Luce rating), CreateCompetition / SetCompetitionState, and gauntlets started
through the API and played by a worker."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from arena.protocol import arena_pb2, game_pb2
from arena.service.pool_batch import pool_version
from arena.store import Store
from arena.tournament import RatingPool
from arena.tournament.stats.plackett_luce import batch_ratings
from tests.support.organizer import OrganizerServer
from tests.support.waiting import wait_until

from .helpers import spec_msg, status_of, wait_finished

PARTICIPANTS = ["random", "heuristic", "random#2", "weakened"]


def played(organizer: OrganizerServer, store: Store, name: str) -> arena_pb2.Tournament:
    """A finished tournament of four built-in bots, two deals per table (12 matches)."""
    spec = spec_msg(name=name, participants=PARTICIPANTS, deals_per_table=2, rules=game_pb2.Rules(target=60))
    created = organizer.stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=spec), timeout=30).tournament
    wait_finished(store, created.tournament_id)
    return created


def all_pages(organizer: OrganizerServer, size: int, **fields: Any) -> list[list[arena_pb2.MatchSummary]]:
    pages: list[list[arena_pb2.MatchSummary]] = []
    token = ""
    while True:
        answer = organizer.stub.ListMatches(arena_pb2.ListMatchesRequest(page_size=size, page_token=token, **fields),
                                            timeout=10)
        pages.append(list(answer.matches))
        token = answer.next_page_token
        if not token:
            return pages


def test_get_tournament_and_list_matches(organizer: OrganizerServer, store: Store, worker: Any) -> None:
    created = played(organizer, store, "t-matches")
    tid = created.tournament_id
    got = organizer.stub.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=tid), timeout=10).tournament
    assert got.tournament_id == tid and got.state == arena_pb2.TOURNAMENT_STATE_FINISHED
    assert got.matches_done == got.matches_total == len(store.results.all(tid)) == 12
    assert got == organizer.stub.ListTournaments(arena_pb2.ListTournamentsRequest(), timeout=10).tournaments[0]

    recorded = sorted(store.results.all(tid))
    pages = all_pages(organizer, 5, tournament_id=tid)
    assert [len(page) for page in pages] == [5, 5, 2]
    assert [m.match_id for page in pages for m in page] == recorded  # every match once, in match id order
    assert all_pages(organizer, 0, tournament_id=tid)[0][0].seed  # the default page; a finished tournament's seeds
    heuristic = [m for page in all_pages(organizer, 4, tournament_id=tid, bot="HEURISTIC") for m in page]
    assert heuristic and {m.match_id for m in heuristic} == {
        mid for mid, r in store.results.all(tid).items() if "heuristic" in r.seats}
    target = all_pages(organizer, 100, tournament_id=tid, reasons=[game_pb2.END_REASON_COMPLETED])[0]
    assert len(target) == 12 and all(m.reason == game_pb2.END_REASON_COMPLETED for m in target)
    assert all_pages(organizer, 100, tournament_id=tid, reasons=[game_pb2.END_REASON_ABORTED]) == [[]]

    for request, code, words in (
        (arena_pb2.ListMatchesRequest(tournament_id="t-nope"), grpc.StatusCode.NOT_FOUND, "t-nope"),
        (arena_pb2.ListMatchesRequest(tournament_id=tid, page_token="garbage"), grpc.StatusCode.INVALID_ARGUMENT,
         "page_token"),
        (arena_pb2.ListMatchesRequest(tournament_id=tid, reasons=[99]), grpc.StatusCode.INVALID_ARGUMENT, "reasons"),
        (arena_pb2.ListMatchesRequest(), grpc.StatusCode.INVALID_ARGUMENT, "tournament_id"),
    ):
        got_code, details = status_of(lambda r=request: organizer.stub.ListMatches(r, timeout=10))  # type: ignore[misc]
        assert got_code == code and words in details, (request, details)
    code, details = status_of(lambda: organizer.stub.GetTournament(
        arena_pb2.GetTournamentRequest(tournament_id="t-nope"), timeout=10))
    assert code == grpc.StatusCode.NOT_FOUND


def check_leaderboard(organizer: OrganizerServer, store: Store, pool_id: str) -> arena_pb2.GetLeaderboardResponse:
    """The leaderboard equals the stored pool: its ratings, counters, rank by rating, ratings in their intervals."""
    board = organizer.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(pool_id=pool_id), timeout=30)
    pool = store.ratings.get(pool_id) or RatingPool(key=pool_id)
    assert {e.bot_name for e in board.entries} == set(pool.ratings)
    assert [e.rank for e in board.entries] == list(range(1, len(board.entries) + 1))
    # ranked by the batch rating (its rank, then OpenSkill's), tiers from the batch ratings' own tests
    assert board.ranked_by == arena_pb2.LEADERBOARD_RANKING_BATCH
    assert [(e.batch.rank, -e.rating) for e in board.entries] == sorted((e.batch.rank, -e.rating)
                                                                        for e in board.entries)
    for entry in board.entries:
        rating, tally = pool.ratings[entry.bot_name], pool.tallies[entry.bot_name]
        assert (entry.rating, entry.rating_sigma) == (rating.mu, rating.sigma)
        assert entry.rating_low < entry.rating < entry.rating_high
        assert entry.rating_high - entry.rating == pytest.approx(1.96 * rating.sigma, rel=1e-3)
        assert (entry.matches, entry.wins, entry.points, entry.forfeits, entry.decisions) == (
            tally.matches, tally.wins, tally.points, tally.forfeits, tally.decisions)
        assert entry.win_rate_low <= entry.win_rate == tally.wins / tally.matches <= entry.win_rate_high
        assert entry.tier >= 1 and entry.connected and entry.bot_version == "builtin"
    assert board.entries[0].tier == 1
    assert board.pool.bots == len(pool.ratings) and board.pool.matches == pool.applied
    # The batch rating: Plackett-Luce over every scored match of the pool's tournaments, computed by the pure core.
    scored = [r.result for tid in pool.tournaments for r in store.results.all(tid).values() if r.scored]
    expected = {b.bot: b for b in batch_ratings(scored)}
    for entry in board.entries:
        b = expected[entry.bot_name]
        assert (entry.batch.rating, entry.batch.low, entry.batch.high) == (b.rating, b.low, b.high)
        assert (entry.batch.rank, entry.batch.best_rank, entry.batch.worst_rank, entry.batch.matches) == (
            b.rank, b.best_rank, b.worst_rank, b.matches)
        assert entry.batch.low <= entry.batch.rating <= entry.batch.high and entry.win_rate_clustered
        assert (entry.tier, set(entry.indistinguishable)) == (b.tier, set(b.indistinguishable))
    return board


def test_leaderboard_shows_the_stored_pool(organizer: OrganizerServer, store: Store, worker: Any) -> None:
    first = played(organizer, store, "t-pool-1")
    played(organizer, store, "t-pool-2")
    pool_id = first.rating_pool
    # The worker that finished the tournament cached the pool's batch ratings: no reader computes them.
    finished = store.ratings.get(pool_id) or RatingPool(key=pool_id)
    warm = wait_until(lambda: store.ratings.batch(pool_id, pool_version(finished)), what="the warmed batch ratings")
    assert {b.bot for b in warm} == set(PARTICIPANTS)
    pools = {p.pool_id: p for p in organizer.stub.ListRatingPools(arena_pb2.ListRatingPoolsRequest(), timeout=10).pools}
    assert pools[pool_id].label == "UNO Flip · target 60 · 2 seats" and pools[pool_id].seats_per_table == 2
    assert pools[pool_id].matches == 24 and pools[pool_id].updated_at.seconds > 0
    board = check_leaderboard(organizer, store, pool_id)
    # Two tournaments: each bot's counters are the sums of its two standings rows.
    for entry in board.entries:
        rows = [next(r for r in organizer.stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id=tid),
                                                            timeout=10).standings if r.bot_name == entry.bot_name)
                for tid in ("t-pool-1", "t-pool-2")]
        assert entry.matches == sum(r.matches for r in rows) and entry.wins == sum(r.wins for r in rows)
        assert entry.points == sum(r.points for r in rows) and entry.decisions == sum(r.decisions for r in rows)
        # each tournament's standings carry the batch rating of its own matches
        assert all(r.HasField("batch") and r.batch.matches == r.matches for r in rows)

    assert (store.ratings.get(pool_id) or RatingPool(key=pool_id)).counted == ("t-pool-1", "t-pool-2")

    code, details = status_of(lambda: organizer.stub.GetLeaderboard(
        arena_pb2.GetLeaderboardRequest(pool_id="flip:nothing"), timeout=10))
    assert code == grpc.StatusCode.NOT_FOUND and "flip:nothing" in details


def test_competitions_through_the_api(organizer: OrganizerServer, store: Store) -> None:
    stub = organizer.stub
    request = arena_pb2.CreateCompetitionRequest(competition_id="weekly", entrants=["random", "heuristic"],
                                                 rules=game_pb2.Rules(target=50), seats_per_table=2)
    made = stub.CreateCompetition(request, timeout=10).competition
    assert made.competition_id == "weekly" and made.state == arena_pb2.COMPETITION_STATE_ACTIVE
    assert made.rating_pool == "competition:weekly" and list(made.entrants) == ["random", "heuristic"]
    assert made.matches_per_minute == 60.0 and made.rules.target == 50
    for bad, code, words in (
        (request, grpc.StatusCode.ALREADY_EXISTS, "exists"),
        (arena_pb2.CreateCompetitionRequest(competition_id="c2", entrants=["random", "nobody"]),
         grpc.StatusCode.NOT_FOUND, "nobody"),
        (arena_pb2.CreateCompetitionRequest(competition_id="bad id"), grpc.StatusCode.INVALID_ARGUMENT,
         "competition id"),
        (arena_pb2.CreateCompetitionRequest(competition_id="c3", seats_per_table=11),
         grpc.StatusCode.INVALID_ARGUMENT, "seats"),
    ):
        got, details = status_of(lambda b=bad: stub.CreateCompetition(b, timeout=10))  # type: ignore[misc]
        assert got == code and words in details, (bad, details)

    def set_state(state: int, cid: str = "weekly") -> arena_pb2.SetCompetitionStateResponse:
        return stub.SetCompetitionState(arena_pb2.SetCompetitionStateRequest(competition_id=cid, state=state),
                                        timeout=10)

    paused = set_state(arena_pb2.COMPETITION_STATE_PAUSED)
    assert paused.previous_state == arena_pb2.COMPETITION_STATE_ACTIVE
    assert paused.competition.state == arena_pb2.COMPETITION_STATE_PAUSED
    assert set_state(arena_pb2.COMPETITION_STATE_ACTIVE).competition.state == arena_pb2.COMPETITION_STATE_ACTIVE
    closed = set_state(arena_pb2.COMPETITION_STATE_CLOSED)
    assert closed.competition.state == arena_pb2.COMPETITION_STATE_CLOSED
    assert set_state(arena_pb2.COMPETITION_STATE_CLOSED).previous_state == arena_pb2.COMPETITION_STATE_CLOSED
    for state, cid, code in ((arena_pb2.COMPETITION_STATE_ACTIVE, "weekly", grpc.StatusCode.FAILED_PRECONDITION),
                             (arena_pb2.COMPETITION_STATE_PAUSED, "nope", grpc.StatusCode.NOT_FOUND),
                             (arena_pb2.COMPETITION_STATE_UNSPECIFIED, "weekly", grpc.StatusCode.INVALID_ARGUMENT)):
        assert status_of(lambda s=state, c=cid: set_state(s, c))[0] == code  # type: ignore[misc]
    assert store.competitions.get("weekly").status == "closed"

    pools = {p.pool_id: p for p in stub.ListRatingPools(arena_pb2.ListRatingPoolsRequest(), timeout=10).pools}
    assert pools["competition:weekly"].label == "weekly" and pools["competition:weekly"].competition_id == "weekly"
    board = stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(pool_id="competition:weekly"), timeout=10)
    assert board.pool.rules.target == 50 and list(board.entries) == []


def test_a_gauntlet_started_through_the_api_is_played_by_a_worker(organizer: OrganizerServer, store: Store,
                                                                  worker: Any) -> None:
    spec = arena_pb2.GauntletSpec(candidate="heuristic", baseline="random", seats_per_table=2, min_blocks=4,
                                  max_blocks=60, mu1=0.05, alpha=0.1, beta=0.1, seed=17)
    spec.rules.target = 40
    request = arena_pb2.StartGauntletRequest(spec=spec, idempotency_key="nightly-gauntlet")
    started = organizer.stub.StartGauntlet(request, timeout=10).gauntlet
    gid = started.gauntlet_id
    assert started.state == arena_pb2.GAUNTLET_STATE_RUNNING and started.spec.candidate == "heuristic"
    assert started.llr_lower < 0 < started.llr_upper
    assert organizer.stub.StartGauntlet(request, timeout=10).gauntlet.gauntlet_id == gid  # a retry: the same one

    def ended() -> bool:
        got = organizer.stub.GetGauntlet(arena_pb2.GetGauntletRequest(gauntlet_id=gid), timeout=10).gauntlet
        return got.state != arena_pb2.GAUNTLET_STATE_RUNNING

    wait_until(ended, 240, "the gauntlet to end")
    answer = organizer.stub.GetGauntlet(arena_pb2.GetGauntletRequest(gauntlet_id=gid), timeout=10)
    final = answer.gauntlet
    assert final.state == arena_pb2.GAUNTLET_STATE_ACCEPTED, final.detail  # heuristic is far better than random
    assert final.llr >= final.llr_upper and final.blocks >= 4 and final.spec.seed == 17
    blocks = list(answer.blocks)
    assert [b.block for b in blocks] == list(range(1, final.blocks + 1))  # each block once, though sent twice
    assert len(store.gauntlets.blocks(gid)) == final.blocks
    assert blocks[-1].llr == pytest.approx(final.llr)
    assert final.mean_score == pytest.approx(sum(b.score for b in blocks) / len(blocks))
    later = organizer.stub.GetGauntlet(arena_pb2.GetGauntletRequest(gauntlet_id=gid, after_block=2), timeout=10)
    assert [b.block for b in later.blocks] == list(range(3, final.blocks + 1))
    listed = organizer.stub.ListGauntlets(arena_pb2.ListGauntletsRequest(), timeout=10).gauntlets
    assert [g.gauntlet_id for g in listed] == [gid] and listed[0] == final

    ghost = arena_pb2.GauntletSpec(candidate="ghost", baseline="random")
    for bad, code in ((arena_pb2.StartGauntletRequest(spec=arena_pb2.GauntletSpec(candidate="heuristic")),
                       grpc.StatusCode.INVALID_ARGUMENT),
                      (arena_pb2.StartGauntletRequest(spec=ghost), grpc.StatusCode.NOT_FOUND),
                      (arena_pb2.StartGauntletRequest(spec=spec, gauntlet_id=gid), grpc.StatusCode.ALREADY_EXISTS)):
        assert status_of(lambda b=bad: organizer.stub.StartGauntlet(b, timeout=10))[0] == code  # type: ignore[misc]
    assert status_of(lambda: organizer.stub.GetGauntlet(arena_pb2.GetGauntletRequest(gauntlet_id="g-nope"),
                                                        timeout=10))[0] == grpc.StatusCode.NOT_FOUND
