"""Seeds nobody can learn before the end, and everyone can check after (issue 12, part 1)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import grpc
import pytest

from arena.protocol import arena_pb2, game_pb2
from arena.runner import LocalSeat, run_match
from arena.service import lifecycle
from arena.service.lifecycle import Settings, choose_seed
from arena.service.matches import match_config, result_of
from arena.service.replays import stored_record
from arena.service.schedules import make_fire, run_seed, spec_for_run
from arena.store import Replay, Store, StoredResult
from arena.tournament import MatchSpec, schedule
from arena.tournament.commitment import check_commitment, seed_commitment
from bots import make_bot
from tests.support.organizer import OrganizerServer

from .conftest import ADMIN


class Recorder:
    """An Enqueuer that only records what it was asked to send."""

    def __init__(self) -> None:
        self.starts: list[str] = []
        self.batches: list[tuple[str, str, list[str]]] = []

    def start(self, tournament_id: str) -> None:
        self.starts.append(tournament_id)

    def gauntlet(self, gauntlet_id: str) -> None:
        pass

    def batch(self, tournament_id: str, batch_id: str, match_ids: list[str]) -> None:
        self.batches.append((tournament_id, batch_id, match_ids))

    def check(self, tournament_id: str, token: str | None, countdown: float) -> None:
        pass

    def queued_batches(self, tournament_id: str) -> set[str] | None:
        return None


def play_locally(match: MatchSpec) -> tuple[StoredResult, Replay]:
    """Play one scheduled match in this process, every seat a random bot under its participant name."""
    seats = [LocalSeat(make_bot("random", seed=i + 1), name=name) for i, name in enumerate(match.seats)]
    loop = asyncio.new_event_loop()
    try:
        record = loop.run_until_complete(run_match(match_config(match), seats))
    finally:
        loop.close()
    return result_of(record, match), stored_record(record)


def spec_msg(**fields: Any) -> arena_pb2.TournamentSpec:
    base: dict[str, Any] = {"participants": ["random", "heuristic", "cheater"], "rules": game_pb2.Rules(target=50),
                            "deals_per_table": 1, "duplicate_deals": True}
    base.update(fields)
    return arena_pb2.TournamentSpec(**base)


def code_of(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def test_commitment_format() -> None:
    salt, secret = bytes(range(32)), bytes(range(32, 64))
    seed = 0x0123456789ABCDEF
    expected = hashlib.sha256(salt + seed.to_bytes(8, "big") + secret).hexdigest()
    assert seed_commitment(seed, salt, secret) == expected
    assert check_commitment(expected, seed, salt.hex(), secret.hex())
    assert not check_commitment(expected, seed + 1, salt.hex(), secret.hex())
    assert not check_commitment(expected, seed, "00" * 32, secret.hex())
    assert not check_commitment(expected, seed, "not hex", secret.hex())


def test_a_bot_learns_no_seed_of_a_running_tournament_and_everyone_checks_it_after(
    organizer: OrganizerServer, store: Store
) -> None:
    """The cheating bot: with its own token, and with none, every RPC of a running tournament gives neither the
    seed nor a deal seed nor an omniscient replay; after the end the seed is revealed and matches the commitment."""
    _record, token = store.bots.register("cheater")
    bot = [("authorization", f"Bearer {token}")]
    stub = organizer.stub
    created = stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=spec_msg(name="t-sec")), metadata=ADMIN)
    seed = created.tournament.spec.seed
    assert seed != 0 and created.tournament.seed_commitment  # the admin sees the seed it drew
    enqueue = Recorder()
    assert lifecycle.start_tournament(store, "t-sec", enqueue, Settings()) == "running"
    matches = {m.match_id: m for m in schedule(lifecycle.spec_of(store, "t-sec"))}
    mine = next(m for m in matches.values() if "cheater" in m.seats)
    assert any(mine.match_id in ids for _t, _b, ids in enqueue.batches)  # a batch message carries no seed
    # One match at a time: the batch then adopts none of the queued batches (Recorder never delivers them).
    lifecycle.run_batch(store, "t-sec", "b-test", [mine.match_id], play_locally, Settings(matches_per_process=1))
    assert store.tournaments.status("t-sec") == "running" and store.results.get("t-sec", mine.match_id)
    secret = lifecycle.spec_of(store, "t-sec").seed_secret
    assert len(secret) == 64
    secrets = {str(seed), str(mine.seed), secret}

    for who in (bot, []):
        stream = stub.WatchTournament(arena_pb2.WatchTournamentRequest(tournament_id="t-sec"), metadata=who,
                                      timeout=30)
        first, second = next(stream), next(stream)
        stream.cancel()
        t = first.tournament
        assert t.spec.seed == 0 and t.revealed_seed == 0 and t.seed_salt == t.seed_secret == "" and t.seed_commitment
        assert second.match.match_id == mine.match_id and second.match.seed == 0
        assert not any(s in str(m) for m in (first, second) for s in secrets)

        export = stub.ExportResults(arena_pb2.ExportResultsRequest(
            tournament_id="t-sec", format=arena_pb2.EXPORT_FORMAT_JSON), metadata=who)
        doc = json.loads(export.data)
        assert doc["tournament"]["spec"]["seed"] == 0 and doc["tournament"]["revealed_seed"] == 0
        assert all(m["seed"] == 0 for m in doc["matches"]) and doc["tournament"]["seed_salt"] == ""
        assert doc["tournament"]["seed_secret"] == "" and "seed_secret" not in doc["tournament"]["spec"]
        assert not any(s in export.data.decode() for s in secrets)
        csv = stub.ExportResults(arena_pb2.ExportResultsRequest(tournament_id="t-sec"), metadata=who)
        assert not any(s in csv.data.decode() for s in secrets)
        standings = stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id="t-sec"), metadata=who)
        assert not any(s in str(standings) for s in secrets)

        omniscient = arena_pb2.GetReplayRequest(match_id=mine.match_id)
        code, _ = code_of(lambda w=who, r=omniscient: stub.GetReplay(r, metadata=w))
        assert code in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED)
    own = arena_pb2.GetReplayRequest(match_id=mine.match_id, seat=mine.seats.index("cheater"))
    view = stub.GetReplay(own, metadata=bot).replay
    assert view.seed == 0 and not any(s in str(view) for s in secrets)
    # The admin still sees everything.
    assert stub.GetReplay(arena_pb2.GetReplayRequest(match_id=mine.match_id), metadata=ADMIN).replay.seed == mine.seed

    stub.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id="t-sec"), metadata=ADMIN)
    for who in (bot, []):
        stream = stub.WatchTournament(arena_pb2.WatchTournamentRequest(tournament_id="t-sec"), metadata=who,
                                      timeout=30)
        t = next(stream).tournament
        stream.cancel()
        assert t.revealed_seed == seed == t.spec.seed and len(t.seed_salt) == 64
        assert t.seed_commitment == created.tournament.seed_commitment
        assert t.seed_secret == secret and check_commitment(t.seed_commitment, t.revealed_seed, t.seed_salt, secret)
        assert not check_commitment(t.seed_commitment, t.revealed_seed, t.seed_salt, "")
        replay = stub.GetReplay(arena_pb2.GetReplayRequest(match_id=mine.match_id), metadata=who).replay
        assert replay.seed == mine.seed


def test_seed_zero_is_secret_random_and_stored_once(organizer: OrganizerServer, store: Store) -> None:
    stub = organizer.stub

    def create(key: str) -> Any:
        request = arena_pb2.CreateTournamentRequest(spec=spec_msg(participants=["random", "heuristic"]),
                                                    idempotency_key=key)
        return stub.CreateTournament(request, metadata=ADMIN).tournament

    first, again = create("k-1"), create("k-1")
    assert again.tournament_id == first.tournament_id and again.spec.seed == first.spec.seed != 0
    assert again.seed_commitment == first.seed_commitment
    assert store.tournaments.ids() == [first.tournament_id]
    others = [create(f"k-{i}") for i in range(2, 6)]
    seeds = [t.spec.seed for t in [first, *others]]
    assert len(set(seeds)) == len(seeds) and 0 not in seeds
    # Not the old derivation from the key.
    old = int.from_bytes(hashlib.sha256(b"uno-arena/request-seed/k-1").digest()[:8], "big") >> 1
    assert first.spec.seed != old
    record = store.tournaments.get(first.tournament_id)
    assert check_commitment(record.extra["seed_commitment"], first.spec.seed, record.extra["seed_salt"],
                            record.spec["seed_secret"])
    assert len({store.tournaments.get(t.tournament_id).spec["seed_secret"] for t in [first, *others]}) == 5
    # An explicit seed is kept (it reproduces the tournament exactly).
    explicit = stub.CreateTournament(arena_pb2.CreateTournamentRequest(
        spec=spec_msg(participants=["random", "heuristic"], seed=77)), metadata=ADMIN).tournament
    assert explicit.spec.seed == 77
    assert choose_seed(0) != choose_seed(0) and choose_seed(5) == 5


def test_scheduled_runs_with_seed_zero_get_fresh_secret_seeds(store: Store) -> None:
    due = datetime(2026, 1, 1, 3, 0, tzinfo=UTC)
    template = {"participants": ["random", "heuristic"], "seed": 0, "options": {"target": 50}}
    assert spec_for_run(template, "nightly", due).seed == 0 and run_seed(0, due) == 0
    assert spec_for_run({**template, "seed": 4}, "nightly", due).seed == run_seed(4, due) != 0  # reproducible
    store.schedules.add("nightly", "0 3 * * *", template, created_at=0)
    store.schedules.add("nightly2", "0 3 * * *", template, created_at=0)
    fire = make_fire(store, Recorder())
    for sid in ("nightly", "nightly2", "nightly"):  # the second firing of nightly is a retry: same tournament
        fire(store.schedules.get(sid), due)
    first = store.tournaments.get("nightly-20260101T0300Z").spec["seed"]
    second = store.tournaments.get("nightly2-20260101T0300Z").spec["seed"]
    assert sorted(store.tournaments.ids()) == ["nightly-20260101T0300Z", "nightly2-20260101T0300Z"]
    assert first and second and first != second
    assert run_seed(0, due) not in (first, second)


def test_scheduled_runs_with_one_template_seed_deal_differently(store: Store) -> None:
    """Two runs with the same seed (two schedules of one template seed, due at the same time) get their own
    secrets: their deals differ, and neither's can be computed from the other's revealed seed and secret."""
    due = datetime(2026, 1, 1, 3, 0, tzinfo=UTC)
    template = {"participants": ["random", "heuristic"], "seed": 7, "deals": 3, "options": {"target": 50}}
    for sid in ("weekly", "weekly2"):
        store.schedules.add(sid, "0 3 * * *", template, created_at=0)
        make_fire(store, Recorder())(store.schedules.get(sid), due)
    first = lifecycle.spec_of(store, "weekly-20260101T0300Z")
    second = lifecycle.spec_of(store, "weekly2-20260101T0300Z")
    assert first.seed == second.seed == run_seed(7, due)
    assert first.seed_secret and second.seed_secret and first.seed_secret != second.seed_secret
    deals = [[m.seed for m in schedule(spec)] for spec in (first, second)]
    assert not set(deals[0]) & set(deals[1])
    predicted = [m.seed for m in schedule(replace(second, seed_secret=first.seed_secret))]
    assert predicted == deals[0] != deals[1]


def test_match_command_draws_a_random_seed_unless_given(
    redis_server: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.cli import main

    monkeypatch.setenv("REDIS_URL", redis_server.url)
    seeds = []
    for extra in ([], [], ["--seed", "42"], ["--seed", "42"]):
        capsys.readouterr()
        assert main(["match", "--seats", "random,heuristic", "--relay", "--target-score", "50", *extra]) == 0
        out = capsys.readouterr().out
        last = out.strip().splitlines()[-1]
        assert last.startswith("seed ") and "deals the same cards again" in last  # printed at the end
        seeds.append(int(last.split()[1]))
    assert seeds[0] != seeds[1] and seeds[0] != 1 and seeds[2] == seeds[3] == 42
