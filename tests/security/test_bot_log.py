"""The incident log over the organizer API (GetBotLog) and the CLI (`uno-arena bot log`): a bot reads its own log,
the admin any; another bot, an anonymous caller and a wrong token are refused. End to end: a bot that times out in
a tournament played by a real worker finds the timeout (match, decision, strike) and its disconnect in its log."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.engine import Action, Observation
from arena.protocol import arena_pb2
from arena.store import Incident, Store
from bots import Bot
from tests.support import wait_until
from tests.support.bots import ThreadBot
from tests.support.cli import spawn_cli
from tests.support.gateway import GatewayHarness
from tests.support.organizer import OrganizerServer

from .conftest import ADMIN_TOKEN
from .helpers import ADMIN, auth, play_tournament, register, status_of

pytestmark = pytest.mark.integration

OK, UNAUTHENTICATED, DENIED = grpc.StatusCode.OK, grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED


def _log(organizer: OrganizerServer, name: str, metadata: list[tuple[str, str]], **fields: Any) -> Any:
    return organizer.stub.GetBotLog(arena_pb2.GetBotLogRequest(name=name, **fields), metadata=metadata, timeout=10)


def test_a_bot_reads_its_own_log_only(store: Store, organizer: OrganizerServer) -> None:
    alpha, beta = register(organizer, "alpha"), register(organizer, "beta")
    store.incidents.add("alpha", [Incident("refusal", "t-1:m-1", 7, detail="F1: not playable", at=1_800_000_000.0),
                                  Incident("disconnect", detail="UNAVAILABLE: the gateway is shutting down")])
    store.incidents.add("beta", [Incident("timeout", "t-1:m-1", 9, strike=1)])
    own = _log(organizer, "alpha", auth(alpha))
    assert [(i.seq, i.kind) for i in own.incidents] == [(1, "refusal"), (2, "disconnect")] and own.last_seq == 2
    refusal = own.incidents[0]
    assert (refusal.match_id, refusal.decision_number, refusal.detail) == ("t-1:m-1", 7, "F1: not playable")
    assert refusal.at.seconds == 1_800_000_000
    assert [i.kind for i in _log(organizer, "ALPHA", auth(alpha), after_seq=1).incidents] == ["disconnect"]
    assert [i.kind for i in _log(organizer, "alpha", ADMIN, limit=1).incidents] == ["disconnect"]
    assert [i.kind for i in _log(organizer, "beta", ADMIN).incidents] == ["timeout"]
    assert [i.kind for i in _log(organizer, "beta", auth(beta)).incidents] == ["timeout"]

    code, details = status_of(lambda: _log(organizer, "beta", auth(alpha)))
    assert code == DENIED and "its own incident log only" in details
    code, details = status_of(lambda: _log(organizer, "alpha", []))
    assert code == UNAUTHENTICATED and "needs the bot role" in details
    code, details = status_of(lambda: _log(organizer, "alpha", auth("alpha.not-the-token")))
    assert (code, details) == (UNAUTHENTICATED, "invalid token")
    assert status_of(lambda: _log(organizer, "nobody", ADMIN))[0] == grpc.StatusCode.NOT_FOUND
    assert status_of(lambda: _log(organizer, "bad name!", ADMIN))[0] == grpc.StatusCode.INVALID_ARGUMENT


class _SlowOnce(Bot):
    """Plays the first legal action, but sleeps past the deadline at its third decision (one timeout)."""

    name = "slow-once"
    asked = 0

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        _SlowOnce.asked += 1
        if _SlowOnce.asked == 3:
            time.sleep(3.5)
        return 0


def test_a_timeout_in_a_tournament_and_the_disconnect_reach_the_bot_s_log(
        store: Store, organizer: OrganizerServer, gateway: GatewayHarness, worker: Any) -> None:
    alpha = register(organizer, "alpha")
    bot = ThreadBot(gateway.address, alpha, bot=_SlowOnce)
    try:
        gateway.wait_for_bot("alpha", timeout=15)
        played = play_tournament(store, organizer, gateway, "t-log", ["random", "alpha"], {})
    finally:
        bot.stop()
    wait_until(lambda: any(i.kind == "disconnect" for i in store.incidents.recent("alpha")), 15,
               "the disconnect incident")
    incidents = _log(organizer, "alpha", auth(alpha)).incidents
    timeouts = [i for i in incidents if i.kind == "timeout"]
    assert len(timeouts) == 1, incidents
    (mid,) = store.results.all(played.tournament_id)
    assert timeouts[0].match_id == mid and timeouts[0].decision_number > 0 and timeouts[0].strike == 1
    assert alpha not in str(incidents)


def _cli(*args: str, env_extra: dict[str, str]) -> subprocess.Popen[str]:
    return spawn_cli("bot", "log", *args, env_extra=env_extra)


def test_bot_log_prints_and_follows_the_log(store: Store, organizer: OrganizerServer, tmp_path: Path) -> None:
    alpha = register(organizer, "alpha")
    register(organizer, "beta")
    store.incidents.add("alpha", [Incident("refusal", "t-1:m-1", 7, detail="F1: not playable", at=1_800_000_000.0)])
    server = ["--server", organizer.address]

    shown = _cli("alpha", *server, env_extra={"UNO_ARENA_BOT_TOKEN": alpha})
    out, err = shown.communicate(timeout=60)
    assert shown.returncode == 0, err
    assert out.strip() == "#1 2027-01-15 08:00:00Z refusal (match t-1:m-1, decision 7): F1: not playable"

    denied = _cli("beta", *server, env_extra={"UNO_ARENA_BOT_TOKEN": alpha})
    _out, err = denied.communicate(timeout=60)
    assert denied.returncode == 1 and "PERMISSION_DENIED" in err

    admin_file = tmp_path / "admin"
    admin_file.write_text(ADMIN_TOKEN + "\n")
    empty = _cli("beta", *server, "--token-file", str(admin_file), env_extra={})
    out, err = empty.communicate(timeout=60)
    assert empty.returncode == 0 and "no incidents logged for bot 'beta'" in out, err

    follow = _cli("alpha", *server, "--follow", "--poll", "0.2", env_extra={"UNO_ARENA_ADMIN_TOKEN": ADMIN_TOKEN})
    try:
        assert follow.stdout is not None
        assert follow.stdout.readline().startswith("#1 ")
        store.incidents.add("alpha", [Incident("timeout", "t-1:m-2", 3, detail="no valid answer", strike=1)])
        line = follow.stdout.readline()
        assert line.startswith("#2 ") and "timeout (match t-1:m-2, decision 3, strike 1): no valid answer" in line
    finally:
        follow.send_signal(signal.SIGINT)
        follow.communicate(timeout=30)
    assert follow.returncode == 130


def test_bot_log_refuses_a_bad_limit() -> None:
    bad = _cli("alpha", "--limit", "5000", env_extra={})
    _out, err = bad.communicate(timeout=60)
    assert bad.returncode == 2 and "--limit must be between 0 and 1000" in err
