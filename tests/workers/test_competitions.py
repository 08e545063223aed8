"""Continuous competitions (issue 16, items 1 and 3): a ladder that keeps starting rated blocks among the connected
entrants, through the tournament machinery and a real Celery worker; each version of a bot its own entry."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
from celery import Celery

from arena.client.legends import BATCH_NOTE, OPENSKILL_NOTE, batch_scope
from arena.protocol import arena_pb2
from arena.service.competitions import (
    create_competition,
    ladder,
    ladder_tick,
    set_competition_status,
)
from arena.service.pool_batch import COMPETITION_REFIT_S
from arena.store import Store
from arena.tournament import Rating, RatingPool
from arena.tournament.competition import (
    CompetitionSpec,
    Connected,
    Entry,
    block_id,
    block_number,
    current_results,
    new_rate_limit,
    plan_round,
)
from arena.tournament.results import MatchResult
from tests.support import wait_until
from tests.support.records import stored_result
from workers.enqueue import CeleryEnqueuer


def test_the_ladder_plays_rated_blocks_until_it_orders_the_bots(app: Celery, worker: Any, store: Store,
                                                                 organizer: Any) -> None:
    spec = CompetitionSpec("ladder-e2e", options={"target": 60}, seats=2, entrants=("random", "heuristic", "weakened"),
                           matches_per_minute=6000, max_blocks=3, seed=11)
    create_competition(store, spec)
    enqueue = CeleryEnqueuer(app)

    def played_enough() -> bool:
        ladder_tick(store, enqueue)
        pool = store.ratings.get(spec.pool) or RatingPool(key=spec.pool)
        return all(pool.rating(bot).matches >= 8 for bot in spec.entrants)

    wait_until(played_enough, 180, "every entrant to play 8 rated matches", interval=0.3)
    set_competition_status(store, spec.competition_id, "closed")
    wait_until(lambda: all(store.tournaments.status(t) == "finished"
                           for t in store.competitions.blocks(spec.competition_id)), 60, "the blocks in flight to end")
    board = ladder(store, spec.competition_id)
    rows = board.entries
    ranks = {row.bot: row.rank for row in rows}
    assert ranks["heuristic"] < ranks["random"], rows  # the strongest above the weakest after a few blocks
    assert board.retired == [] and {row.version for row in rows} == {"builtin"}
    pool = store.ratings.get(spec.pool) or RatingPool(key=spec.pool)
    blocks = [tid for tid in pool.tournaments]
    assert len(blocks) == len(set(blocks))  # each block rated once
    for tid in blocks:  # a block: one deal in each seat rotation, every match recorded once
        results = store.results.all(tid)
        assert len(results) == 2 and {r.seed for r in results.values()} == {next(iter(results.values())).seed}
    # The organizer API shows the same ladder (anyone may read it).
    answer = organizer.stub.GetCompetitionStandings(
        arena_pb2.GetCompetitionStandingsRequest(competition_id=spec.competition_id))
    assert [(e.rank, e.bot, e.matches) for e in answer.entries] == [(r.rank, r.bot, r.matches) for r in rows]
    assert answer.competition.state == arena_pb2.COMPETITION_STATE_CLOSED
    assert answer.competition.rating_pool == spec.pool
    # The ladder is its pool's leaderboard: one ranking, by the batch PL rating, the same tiers and PL numbers.
    board = organizer.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(pool_id=spec.pool))
    assert board.ranked_by == answer.ranked_by == arena_pb2.LEADERBOARD_RANKING_BATCH
    assert [(e.rank, e.tier, e.bot_name, e.batch) for e in board.entries] == [
        (e.rank, e.tier, e.bot, e.batch) for e in answer.entries]
    assert all(e.HasField("batch") and e.batch.matches == e.matches for e in answer.entries)
    assert answer.verdicts == board.verdicts and answer.verdicts.summary  # which entries are told apart, and why
    tournaments = organizer.stub.ListTournaments(arena_pb2.ListTournamentsRequest(page_size=100)).tournaments
    assert tournaments and {t.rating_pool for t in tournaments} == {spec.pool}  # the web's leaderboard reads it
    block = organizer.stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id=tournaments[0].tournament_id))
    assert all(row.decisions > 0 for row in block.standings)  # the base of the reliability rates
    listed = organizer.stub.ListCompetitions(arena_pb2.ListCompetitionsRequest()).competitions
    assert [c.competition_id for c in listed] == [spec.competition_id]
    with pytest.raises(grpc.RpcError) as missing:
        organizer.stub.GetCompetitionStandings(arena_pb2.GetCompetitionStandingsRequest(competition_id="nope"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    # Closed is final: no block starts any more.
    assert all(not outcome.started for outcome in ladder_tick(store, enqueue))
    with pytest.raises(ValueError, match="cannot be reopened"):
        set_competition_status(store, spec.competition_id, "active")


def test_a_new_version_starts_a_new_entry_once_its_old_blocks_are_done() -> None:
    spec = CompetitionSpec("versions", entrants=("alice", "bob"), seed=3)
    pool = RatingPool(key=spec.pool)
    rate = new_rate_limit(spec)
    first = plan_round(spec, pool, {}, [Connected("alice", "1.0"), Connected("bob", "7")], 0, rate, now=100.0,
                       round_number=1)
    assert [(e.bot, e.version) for e in first.started] == [("alice", "1.0"), ("bob", "7")]
    assert len(first.tables) == 1 and sorted(first.tables[0].bots) == ["alice", "bob"]
    current = {e.bot: e for e in first.started}
    rated = RatingPool(key=spec.pool, ratings={"alice": Rating(30.0, 2.0, 40), "bob": Rating(20.0, 2.0, 40)})
    # alice reconnects as 2.0 while its block still plays: nothing changes yet.
    busy = plan_round(spec, rated, current, [Connected("alice", "2.0", busy_blocks=1), Connected("bob", "7", 1)],
                      1, first.rate, now=200.0, round_number=2)
    assert busy.retired == [] and busy.started == [] and busy.tables == []
    # Its block done: the 1.0 entry retires with its rating, 2.0 starts from nothing.
    switched = plan_round(spec, rated, current, [Connected("alice", "2.0"), Connected("bob", "7")], 0, first.rate,
                          now=300.0, round_number=3)
    assert [(e.bot, e.version, e.mu, e.matches, e.retired_at) for e in switched.retired] == \
        [("alice", "1.0", 30.0, 40, 300.0)]
    assert [(e.bot, e.version) for e in switched.started] == [("alice", "2.0")]
    assert "alice" not in switched.pool.ratings and switched.pool.rating("alice").matches == 0
    assert switched.pool.rating("bob").mu == 20.0
    assert Entry.from_dict(switched.retired[0].to_dict()) == switched.retired[0]


def test_the_rate_limit_and_the_blocks_in_flight_bound_a_round() -> None:
    spec = CompetitionSpec("pace", seats=2, matches_per_minute=4, max_blocks=10, seed=1)
    bots = [Connected(f"bot{i}", "1") for i in range(8)]
    first = plan_round(spec, RatingPool(key=spec.pool), {}, bots, 0, new_rate_limit(spec), now=0.0, round_number=1)
    assert len(first.tables) == 2  # a minute's worth: 4 matches, blocks of 2
    again = plan_round(spec, RatingPool(key=spec.pool), {e.bot: e for e in first.started}, bots, 2, first.rate,
                       now=1.0, round_number=2)
    assert again.tables == []  # the bucket is empty
    later = plan_round(spec, RatingPool(key=spec.pool), {e.bot: e for e in first.started}, bots, 9, first.rate,
                       now=60.0, round_number=3)
    assert len(later.tables) == 1  # refilled, but only one block fits under max_blocks


def test_bad_competitions_are_refused_with_the_reason(store: Store) -> None:
    for fields, reason in (({"competition_id": "bad id"}, "competition id"),
                           ({"competition_id": "c", "seats": 11}, "seats"),
                           ({"competition_id": "c", "entrants": ("a", "A")}, "listed twice"),
                           ({"competition_id": "c", "entrants": ("a", "b"), "seats": 3}, "cannot fill"),
                           ({"competition_id": "c", "matches_per_minute": 0}, "matches_per_minute")):
        with pytest.raises(ValueError, match=reason):
            CompetitionSpec(**fields)  # type: ignore[arg-type]
    from arena.store import UnknownBot

    with pytest.raises(UnknownBot):
        create_competition(store, CompetitionSpec("c-nobody", entrants=("random", "nobody")))
    assert store.competitions.ids() == []


def test_the_competition_commands(store: Store, organizer: Any, capsys: Any, monkeypatch: Any) -> None:
    """Every `competition` command is a client of the organizer API (no REDIS_URL in the CLI)."""
    from .helpers import cli

    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("UNO_ARENA_TARGET", organizer.address)
    code, out, _ = cli(capsys, "competition", "create", "weekly", "--entrants", "random,heuristic",
                       "--target-score", "50")
    assert code == 0 and "rating pool competition:weekly" in out
    assert store.competitions.get("weekly").spec["options"]["target"] == 50
    code, _, err = cli(capsys, "competition", "create", "weekly")
    assert code == 1 and "ALREADY_EXISTS" in err and "weekly" in err
    ladder_tick(store, _Recorder())
    code, out, _ = cli(capsys, "competition", "list")
    assert code == 0 and "weekly" in out and "active" in out and "1 blocks" in out
    code, out, _ = cli(capsys, "competition", "standings", "weekly", "--json")
    assert code == 0 and {e["bot"] for e in json.loads(out)["entries"]} == {"random", "heuristic"}
    entries = json.loads(out)["entries"]
    code, out, _ = cli(capsys, "competition", "standings", "weekly")
    assert code == 0 and BATCH_NOTE in out and OPENSKILL_NOTE in out  # which number is which
    assert "rank and tier: by the OpenSkill rating" in out  # no block has finished: no PL rating yet
    for entry in entries:  # each row shows the entry's OpenSkill rating (its mu), without OpenSkill's interval
        assert f" {entry['rating']:.2f} " in out
        assert f"[{entry['rating_low']:.1f}, {entry['rating_high']:.1f}]" not in out
        assert entry["rating"] == entry["mu"]
    for action, state in (("pause", "paused"), ("resume", "active"), ("close", "closed")):
        code, out, _ = cli(capsys, "competition", action, "weekly")
        assert code == 0 and out.strip().endswith(state)
    code, _, err = cli(capsys, "competition", "standings", "nope")
    assert code == 1 and "NOT_FOUND" in err and "'nope'" in err
    code, out, _ = cli(capsys, "competition", "create", "amnesia", "--bots-without-memory")
    assert code == 0 and "hosted bots only, each match in a fresh sandbox" in out
    assert store.competitions.get("amnesia").spec["bots_without_memory"] is True
    code, out, _ = cli(capsys, "competition", "list")
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert "(bots without memory)" in lines["amnesia"] and "(bots without memory)" not in lines["weekly"]


class _Recorder:
    """Takes the blocks a round starts without running them (the CLI test needs only that one exists)."""

    def start(self, tournament_id: str) -> None:
        pass

    def gauntlet(self, gauntlet_id: str) -> None:
        pass

    def batch(self, tournament_id: str, batch_id: str, match_ids: list[str]) -> None:
        pass

    def check(self, tournament_id: str, token: str | None, countdown: float) -> None:
        pass

    def queued_batches(self, tournament_id: str) -> set[str] | None:
        return None


def test_the_api_shows_retired_versions(store: Store, organizer: Any) -> None:
    store.bots.register("alice")
    create_competition(store, CompetitionSpec("c-versions", entrants=("alice", "random")))
    old = Entry("alice", "1.0", 100.0, retired_at=200.0, mu=28.0, sigma=1.5, matches=30)
    store.competitions.save_entries("c-versions", [Entry("alice", "2.0", 200.0)], [old])
    answer = organizer.stub.GetCompetitionStandings(
        arena_pb2.GetCompetitionStandingsRequest(competition_id="c-versions"))
    assert [(e.bot, e.version, e.rank) for e in answer.entries] == [("alice", "2.0", 1)]
    (retired,) = answer.retired
    assert (retired.bot, retired.version, retired.matches, retired.rank) == ("alice", "1.0", 30, 0)
    # The rating fact: the rating is mu, inside OpenSkill's own (deprecated) interval mu -/+ 1.96 sigma.
    assert retired.rating == pytest.approx(28.0) and retired.retired_at.seconds == 200
    assert (retired.rating_low, retired.rating_high) == (pytest.approx(28.0 - 1.96 * 1.5, abs=1e-3),
                                                         pytest.approx(28.0 + 1.96 * 1.5, abs=1e-3))
    for entry in (*answer.entries, retired):
        assert entry.rating_low <= entry.rating <= entry.rating_high and entry.rating == entry.mu


def test_bots_show_lists_every_version_a_bot_connected_with(store: Store, organizer: Any, capsys: Any) -> None:
    from .helpers import cli

    store.bots.register("carol")
    store.bots.note_version("carol", "0.9", now=1_700_000_000.0)
    store.bots.note_version("carol", "1.0-beta", now=1_700_000_600.0)
    store.bots.set_version("carol", "1.0-beta")
    code, out, _ = cli(capsys, "bots", "show", "carol", "--server", organizer.address)
    assert code == 0 and "current version 1.0-beta" in out
    lines = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert lines == ["0.9", "1.0-beta"]
    code, out, _ = cli(capsys, "bots", "show", "carol", "--json", "--server", organizer.address)
    assert code == 0 and [v["version"] for v in json.loads(out)["versions"]] == ["0.9", "1.0-beta"]


def test_a_bot_plays_no_more_blocks_at_once_than_its_hello_offered() -> None:
    spec = CompetitionSpec("capacity", seats=2, blocks_per_bot=3, max_blocks=10, matches_per_minute=1000, seed=2)
    bots = [Connected("solo", "1", capacity=1), *(Connected(f"wide{i}", "1", capacity=8) for i in range(4))]
    planned = plan_round(spec, RatingPool(key=spec.pool), {}, bots, 0, new_rate_limit(spec), now=0.0, round_number=1)
    seated = [bot for table in planned.tables for bot in table.bots]
    assert seated.count("solo") == 1  # its Hello offered one match at once
    assert all(seated.count(f"wide{i}") <= 3 for i in range(4))  # blocks_per_bot caps the others


def test_a_competition_without_memory_seats_only_bots_that_keep_nothing_between_matches(store: Store) -> None:
    """Its ladder seats a built-in bot, and a registered one only while its session is a bot host's fresh sandbox
    (one match, then a new process); the bot host asks the store which of its bots such a competition admits."""
    from arena.service.competitions import _connected, bots_without_memory, create_competition

    spec = CompetitionSpec("amnesia", entrants=("fresh", "own", "third"), matches_per_minute=1000, seed=3,
                           bots_without_memory=True)
    assert CompetitionSpec.from_dict(spec.to_dict()).bots_without_memory
    bots = [Connected("fresh", "1", without_memory=True), Connected("own", "1"),
            Connected("third", "1", without_memory=True)]
    planned = plan_round(spec, RatingPool(key=spec.pool), {}, bots, 0, new_rate_limit(spec), now=0.0, round_number=1)
    seated = {bot for table in planned.tables for bot in table.bots}
    assert seated == {"fresh", "third"}  # "own" runs its own process: it could remember
    for name in ("fresh", "own", "third", "elsewhere"):
        store.bots.register(name)
    create_competition(store, spec)
    assert bots_without_memory(store, ["Fresh", "own", "elsewhere"]) == {"Fresh", "own"}
    store.sessions.open("own", "gw-1")
    store.sessions.open("fresh", "gw-1", fresh_sandbox=True)
    with_builtin = CompetitionSpec("mixed", entrants=("heuristic", "own", "fresh"), bots_without_memory=True)
    assert {c.bot: c.without_memory for c in _connected(store, with_builtin, {})} == {
        "heuristic": True, "own": False, "fresh": True}


@pytest.mark.parametrize("seats", [2, 3, 4, 6, 10])
def test_a_table_with_a_bot_that_may_remember_deals_each_rotation_afresh(seats: int) -> None:
    """Item 6 of issue 23 for ladders: a rotation of one deal shows a remembering bot its opponents' dealt hands,
    so a table with a remote bot that is no fresh sandbox plays each seat rotation on a deal of its own (the same
    seat orders); a table of bots that keep nothing between matches keeps the duplicate deal."""
    from arena.tournament import schedule
    from arena.tournament.competition import block_spec

    names = [f"bot{i}" for i in range(seats)]
    spec = CompetitionSpec("rotations", seats=seats, entrants=tuple(names), matches_per_minute=1000, seed=5)
    for remote in (True, False):
        bots = [Connected(name, "1", without_memory=not (remote and i == 0)) for i, name in enumerate(names)]
        planned = plan_round(spec, RatingPool(key=spec.pool), {}, bots, 0, new_rate_limit(spec), now=0.0,
                             round_number=1)
        (table,) = planned.tables
        assert table.remembering is remote
        block = block_spec(spec, table, 1)
        matches = schedule(block)
        assert len(matches) == seats == len(table.matches())
        for name in names:  # every bot holds every seat once, either way
            assert sorted(m.seats.index(name) for m in matches) == list(range(seats))
        seeds = {m.seed for m in matches}
        assert len(seeds) == (seats if remote else 1), (remote, block)
        assert len({seed for _, seed in table.matches()}) == (seats if remote else 1)


def test_only_a_rules_pool_is_refitted_when_a_tournament_finishes(store: Store) -> None:
    """A competition's ladder finishes a block every few seconds: its pool's batch ratings wait for a reader; a
    rules pool's are cached at once."""
    from arena.service.pool_batch import pool_version, warm_pool_batch

    for pool_id in ("flip:rules", "competition:busy"):
        pool = RatingPool(key=pool_id).with_tournament("t1", [])
        warm_pool_batch(store, pool_id, pool)
        cached = store.ratings.batch(pool_id, pool_version(pool))
        assert (cached is not None) is (pool_id == "flip:rules"), pool_id


def test_a_ladder_rates_each_entry_on_its_own_version_only() -> None:
    """The batch rating of a competition rests on the blocks in which every seat was a current entry: the blocks a
    retired version played (and its opponents' matches against it) count for nobody."""
    assert block_number(block_id("c", 12)) == 12 and block_number("t-1") is None
    assert f"at most every {COMPETITION_REFIT_S:g} s" in batch_scope("c")  # the legend says what the service does
    alice, bob = Entry("alice", "2.0", 50.0, first_block=3), Entry("bob", "7", 10.0, first_block=1)

    def block(number: int, winner: int) -> tuple[str, list[MatchResult]]:
        return block_id("c", number), [MatchResult(f"c.b{number}.m0", ("alice", "bob"), (0, 0), winner=winner)]

    blocks = [block(1, 1), block(2, 1), block(3, 0), block(4, 0), ("not-a-block", [])]
    kept = current_results(blocks, {"alice": alice, "bob": bob})
    assert [r.match_id for r in kept] == ["c.b3.m0", "c.b4.m0"]  # alice 1.0 lost blocks 1 and 2: not 2.0's
    assert len(current_results(blocks, {"alice": Entry("alice", "1.0", 0.0), "bob": bob})) == 4  # stored before


def test_the_ladder_ranks_a_new_version_on_its_own_blocks(store: Store, organizer: Any) -> None:
    """Through the API: the old version lost every block, the new one won every block; the ladder ranks the new
    version first by the batch rating (OpenSkill is kept for matchmaking), as the pool's leaderboard does."""
    store.bots.register("alice")
    create_competition(store, CompetitionSpec("c-split", entrants=("alice", "random")))
    old = Entry("alice", "1.0", 100.0, retired_at=200.0, mu=20.0, sigma=1.5, matches=8, first_block=1)
    store.competitions.save_entries("c-split", [Entry("random", "builtin", 100.0, first_block=1)], [])
    store.competitions.save_entries("c-split", [Entry("alice", "2.0", 200.0, first_block=9)], [old])
    pool = RatingPool(key="competition:c-split")
    for number in range(1, 17):  # blocks 1-8: alice 1.0 loses twice; 9-16: alice 2.0 wins twice
        tid = block_id("c-split", number)
        store.tournaments.create(tid, {"tournament_id": tid, "participants": ["alice", "random"], "seed": number})
        store.tournaments.add_matches(tid, [f"{tid}.m0", f"{tid}.m1"])
        for m in range(2):
            seats = ("alice", "random") if m == 0 else ("random", "alice")
            winner = seats.index("random" if number < 9 else "alice")
            assert store.results.record(tid, f"{tid}.m{m}", stored_result(f"{tid}.m{m}", seats=seats, winner=winner,
                                                                          scores=(60, 0) if winner == 0 else (0, 60),
                                                                          tournament_id=tid))
        results = [stored.result for stored in store.results.all(tid).values()]
        pool = pool.with_tournament(tid, results)
    store.ratings.put(pool.key, pool)
    answer = organizer.stub.GetCompetitionStandings(arena_pb2.GetCompetitionStandingsRequest(competition_id="c-split"))
    assert answer.ranked_by == arena_pb2.LEADERBOARD_RANKING_BATCH
    assert [(e.bot, e.version, e.rank) for e in answer.entries] == [("alice", "2.0", 1), ("random", "builtin", 2)]
    first, second = answer.entries
    assert first.batch.matches == second.batch.matches == 16  # blocks 9-16 only
    assert first.batch.rating > second.batch.rating and first.tier < second.tier
    board = organizer.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(pool_id="competition:c-split"))
    assert [(e.bot_name, e.rank, e.tier, e.batch) for e in board.entries] == [
        (e.bot, e.rank, e.tier, e.batch) for e in answer.entries]


def test_the_ladder_reads_each_finished_block_once_for_its_matchmaking(store: Store) -> None:
    """The ladder's evidence keeps running sums of the blocks it has read: a result written later into a block
    already read changes nothing, a new block is added, and a new entry starts the sums again."""
    from arena.service.competitions import _evidence
    from arena.tournament.matchmaking import evidence_of

    spec = CompetitionSpec("c-tally", seats=2, entrants=("alice", "bob", "carol"))
    entries = {bot: Entry(bot, "1", 0.0, first_block=1) for bot in spec.entrants}

    def played(number: int, winner: str, loser: str) -> str:
        """A block the winner won in both seat orders."""
        tid = block_id("c-tally", number)
        store.tournaments.create(tid, {"tournament_id": tid, "participants": [winner, loser], "seed": number})
        store.tournaments.add_matches(tid, [f"{tid}.m0", f"{tid}.m1", f"{tid}.stray"])
        for m, seats in enumerate(((winner, loser), (loser, winner))):
            first = seats.index(winner) == 0
            assert store.results.record(tid, f"{tid}.m{m}", stored_result(
                f"{tid}.m{m}", seats=seats, winner=seats.index(winner), scores=(60, 0) if first else (0, 60),
                tournament_id=tid))
        return tid

    def expected(pool: RatingPool, current: dict[str, Entry]) -> list[float]:
        blocks = [(tid, [s.result for s in store.results.all(tid).values()]) for tid in pool.tournaments]
        found = evidence_of(current_results(blocks, current), current, 2)
        return [x for _, p in sorted(found.pairs.items()) for x in (p.gap, p.error, p.meetings)]

    def evidence(pool: RatingPool, current: dict[str, Entry]) -> list[float]:
        found = _evidence(store, spec, pool, current, 1.0)
        return [x for _, p in sorted(found.pairs.items()) for x in (p.gap, p.error, p.meetings)]

    pool = RatingPool(key=spec.pool)
    for number, (winner, loser) in enumerate((("alice", "bob"), ("bob", "carol"), ("alice", "carol")), start=1):
        pool = pool.with_tournament(played(number, winner, loser), [])
    first = evidence(pool, entries)
    assert first == pytest.approx(expected(pool, entries)) and first[0] > 0  # alice above bob
    # a stray result written into a block already read is not read again
    stray = f"{block_id('c-tally', 1)}.stray"
    assert store.results.record(block_id("c-tally", 1), stray, stored_result(stray, seats=("bob", "alice"), winner=0,
                                                                             tournament_id=block_id("c-tally", 1)))
    assert evidence(pool, entries) == first != pytest.approx(expected(pool, entries))
    # a new block is added to the sums
    pool = pool.with_tournament(played(4, "alice", "bob"), [])
    assert evidence(pool, entries)[2] == 2.0  # alice and bob met in blocks 1 and 4 (the stray match unread)
    # a new entry (carol 2 from block 4) starts again, on the results as they stand
    renewed = {**entries, "carol": Entry("carol", "2", 0.0, first_block=4)}
    assert evidence(pool, renewed) == pytest.approx(expected(pool, renewed))
