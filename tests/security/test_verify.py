"""`uno-arena tournament verify`: anyone checks an ended tournament's commitment and replays every match; an
altered stored action is found and the match named (issue 12, part 1)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.cli import main
from arena.protocol import arena_pb2, game_pb2
from arena.store import Replay, Store
from arena.store.replay_store import compress
from tests.support.organizer import OrganizerServer
from tests.workers.helpers import wait_finished

from .conftest import ADMIN


def verify(capsys: Any, target: str, tid: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["tournament", "verify", tid, "--target", target])
    out, err = capsys.readouterr()
    return code, out + err


def tamper(store: Store, match_id: str, change: Any) -> None:
    """Rewrite the stored replay of ``match_id`` with ``change(actions)`` applied (as someone with Redis access)."""
    record = store.replays.load(match_id)
    assert record is not None
    data = record.to_dict()
    data["replay"]["actions"] = change(data["replay"]["actions"])
    store.redis.set(store.keys.replay(match_id), compress(Replay.from_dict(data)))


def test_verify_passes_after_the_end_and_names_a_match_whose_actions_were_altered(
    organizer: OrganizerServer, worker: Any, store: Store, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("UNO_ARENA_ADMIN_TOKEN", raising=False)  # verify runs anonymous: anyone may check
    monkeypatch.delenv("UNO_ARENA_ADMIN_TOKEN_FILE", raising=False)
    spec = arena_pb2.TournamentSpec(name="t-verify", participants=["random", "heuristic", "random#2"],
                                    rules=game_pb2.Rules(target=60), deals_per_table=2, duplicate_deals=True)
    organizer.stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=spec), metadata=ADMIN)
    code, out = verify(capsys, organizer.address, "t-verify")
    assert code == 1  # not ended yet (or only just): nothing is revealed before the end
    wait_finished(store, "t-verify")

    code, out = verify(capsys, organizer.address, "t-verify")
    assert code == 0, out
    assert "commitment ok" in out and "12 scheduled matches re-derived, 12 replayed" in out and "consistent" in out

    first, second = sorted(store.results.all("t-verify"))[:2]
    tamper(store, first, lambda actions: actions[:-3])  # still legal, but not how the match ended
    code, out = verify(capsys, organizer.address, "t-verify")
    problems = out.strip().splitlines()[:-1]
    assert code == 1 and problems and all(line.startswith(f"{first}: ") for line in problems), out
    assert "the stored result says" in out and "FAILED" not in out

    tamper(store, second, lambda actions: [[(actions[0][0] + 1) % 2, actions[0][1]], *actions[1:]])  # not its turn
    code, out = verify(capsys, organizer.address, "t-verify")
    assert code == 1 and f"{second}: no usable replay: DATA_LOSS" in out and first in out

    # The secret the deals derive from is under the commitment too: another secret (as someone with Redis access
    # would store) fails the commitment and every derived deal seed.
    key = store.keys.tournament("t-verify")
    stored = json.loads(store.redis.hget(key, "spec"))
    secret = stored["seed_secret"]
    assert len(secret) == 64 and secret not in str(store.tournaments.get("t-verify").extra)
    stored["seed_secret"] = ("0" if secret[0] != "0" else "1") + secret[1:]
    store.redis.hset(key, "spec", json.dumps(stored))
    code, out = verify(capsys, organizer.address, "t-verify")
    assert code == 1 and "commitment FAILED" in out and "do not match the commitment" in out
    assert "is not the derived deal seed" in out


def test_verify_re_derives_duplicate_deals_played_across_tables(
    organizer: OrganizerServer, worker: Any, store: Store, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The format the arena picks for remote bots ("across": a deal at tables that share no bot) travels with the
    spec: verify re-derives its schedule and replays every match from the revealed seed and secret."""
    monkeypatch.delenv("UNO_ARENA_ADMIN_TOKEN", raising=False)
    monkeypatch.delenv("UNO_ARENA_ADMIN_TOKEN_FILE", raising=False)
    spec = arena_pb2.TournamentSpec(name="t-across", participants=["random", "heuristic", "random#2", "weakened"],
                                    rules=game_pb2.Rules(target=60), duplicate_deals=True, duplicate_orders="across")
    organizer.stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=spec), metadata=ADMIN)
    wait_finished(store, "t-across")
    shown = organizer.stub.GetTournament(arena_pb2.GetTournamentRequest(tournament_id="t-across"), metadata=ADMIN)
    assert shown.tournament.spec.duplicate_orders == "across"
    code, out = verify(capsys, organizer.address, "t-across")
    assert code == 0, out
    assert "6 scheduled matches re-derived, 6 replayed" in out
