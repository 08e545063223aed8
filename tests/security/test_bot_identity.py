"""Bot identity the organizer manages: rotate-token, revoke, delete (live streams closed at once, results kept,
names never reused), tokens from a file or the environment, and names compared without case (issue 12, part 3)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.cli import main as cli_main
from arena.protocol import arena_pb2
from arena.service.matches import builtin_kind
from arena.store import Store
from bots.kit import BOT_TOKEN_ENV, BOT_TOKEN_FILE_ENV, KitError, bot_token
from tests.support import wait_until
from tests.support.bots import RawBot, ThreadBot, stop_process
from tests.support.cli import run_cli, spawn_cli
from tests.support.gateway import GatewayHarness
from tests.support.organizer import OrganizerServer

from .conftest import ADMIN_TOKEN
from .helpers import ADMIN, play_tournament, register, status_of


def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], organizer: OrganizerServer,
        *args: str) -> tuple[int, str, str]:
    """`uno-arena ARGS --target ORGANIZER` in process, as the admin ($UNO_ARENA_ADMIN_TOKEN)."""
    monkeypatch.setenv("UNO_ARENA_ADMIN_TOKEN", ADMIN_TOKEN)
    code = cli_main([*args, "--target", organizer.address])
    out, err = capsys.readouterr()
    return code, out, err


def refused_at_connect(gateway: GatewayHarness, token: str) -> tuple[Any, str]:
    raw = RawBot(gateway.address, token)
    try:
        return raw.wait_end()
    finally:
        raw.close()


def test_rotate_closes_the_live_stream_and_only_the_new_token_works(
        store: Store, organizer: OrganizerServer, gateway: GatewayHarness, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old = register(organizer, "alpha")
    with ThreadBot(gateway.address, old) as bot:
        gateway.wait_for_bot("alpha", timeout=15)
        token_file = tmp_path / "alpha.token"
        code, out, _err = cli(monkeypatch, capsys, organizer, "bots", "rotate-token", "ALPHA", "--output",
                              str(token_file))
        assert code == 0 and "no longer works" in out
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        new = token_file.read_text().strip()
        assert new != old and new not in out
        # The live stream with the old token is closed at once (through the relay), and the kit stops for good.
        assert bot.wait_stopped(15), "the stream of the old token stayed open"
        assert isinstance(bot.error, KitError) and bot.error.code == grpc.StatusCode.UNAUTHENTICATED
    assert refused_at_connect(gateway, old) == (grpc.StatusCode.UNAUTHENTICATED, "invalid token")
    with ThreadBot(gateway.address, new):
        gateway.wait_for_bot("alpha", timeout=15)


def test_revoke_stops_every_token_until_a_rotation(
        store: Store, organizer: OrganizerServer, gateway: GatewayHarness, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    token = register(organizer, "alpha")
    with ThreadBot(gateway.address, token) as bot:
        gateway.wait_for_bot("alpha", timeout=15)
        code, out, _err = cli(monkeypatch, capsys, organizer, "bots", "revoke", "alpha")
        assert code == 0 and "revoked" in out
        assert bot.wait_stopped(15) and isinstance(bot.error, KitError)
    assert refused_at_connect(gateway, token) == (grpc.StatusCode.UNAUTHENTICATED, "invalid token")
    listed = organizer.stub.GetBot(arena_pb2.GetBotRequest(name="alpha"), metadata=ADMIN, timeout=10).bot
    assert listed.revoked and not listed.deleted
    code, out, _err = cli(monkeypatch, capsys, organizer, "bots", "rotate-token", "alpha")
    assert code == 0
    new = out.strip().splitlines()[-1].split()[-1]
    with ThreadBot(gateway.address, new):
        gateway.wait_for_bot("alpha", timeout=15)
    code, _out, err = cli(monkeypatch, capsys, organizer, "bots", "revoke", "nobody")
    assert code == 1 and "NOT_FOUND" in err


def test_delete_keeps_results_and_the_name_for_good(
        store: Store, organizer: OrganizerServer, gateway: GatewayHarness, worker: Any,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    token = register(organizer, "Alpha")
    played = play_tournament(store, organizer, gateway, "t-before", ["random", "Alpha"], {"Alpha": token})
    before = organizer.stub.ExportResults(arena_pb2.ExportResultsRequest(tournament_id=played.tournament_id),
                                          metadata=ADMIN, timeout=10).data
    with ThreadBot(gateway.address, token) as bot:
        gateway.wait_for_bot("Alpha", timeout=15)
        code, out, _err = cli(monkeypatch, capsys, organizer, "bots", "delete", "alpha")
        assert code == 0 and "results stay" in out
        assert bot.wait_stopped(15) and isinstance(bot.error, KitError)
    assert refused_at_connect(gateway, token) == (grpc.StatusCode.UNAUTHENTICATED, "invalid token")

    # Results already recorded stay, under the bot's name.
    after = organizer.stub.ExportResults(arena_pb2.ExportResultsRequest(tournament_id=played.tournament_id),
                                         metadata=ADMIN, timeout=10).data
    assert after == before and b"Alpha" in after
    standings = organizer.stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id=played.tournament_id),
                                            timeout=10)
    assert "Alpha" in {row.bot_name for row in standings.standings}

    # Listed as deleted (admin, on request), gone from the ordinary list.
    stub = organizer.stub
    assert "Alpha" not in {b.name for b in stub.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN).bots}
    every = {b.name: b for b in stub.ListBots(arena_pb2.ListBotsRequest(include_deleted=True), metadata=ADMIN).bots}
    assert every["Alpha"].deleted
    code, out, _err = cli(monkeypatch, capsys, organizer, "bots", "list", "--include-deleted")
    assert code == 0 and "[deleted]" in out

    # The name cannot be registered again by anyone, in any case; no token is issued for it; no new tournament.
    for name in ("Alpha", "alpha", "ALPHA"):
        code, details = status_of(lambda: stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name),  # noqa: B023
                                                           metadata=ADMIN, timeout=10))
        assert code == grpc.StatusCode.ALREADY_EXISTS, (name, details)
    code, _ = status_of(lambda: stub.RotateBotToken(arena_pb2.RotateBotTokenRequest(name="alpha"), metadata=ADMIN))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    spec = arena_pb2.TournamentSpec(participants=["random", "Alpha"], seats_per_table=2, deals_per_table=1)
    code, details = status_of(lambda: stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=spec),
                                                            metadata=ADMIN, timeout=10))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "Alpha" in details


def test_names_are_compared_without_case(organizer: OrganizerServer) -> None:
    assert builtin_kind("Random") == "random" and builtin_kind("HEURISTIC#2") == "heuristic"
    assert builtin_kind("randomly") is None
    stub = organizer.stub
    for name in ("Random", "HEURISTIC", "random", "Heuristic"):
        code, details = status_of(lambda: stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name),  # noqa: B023
                                                           metadata=ADMIN, timeout=10))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "reserved for the built-in bot" in details, name
    register(organizer, "alpha")
    code, _ = status_of(lambda: stub.RegisterBot(arena_pb2.RegisterBotRequest(name="ALPHA"), metadata=ADMIN))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    for participants in (["alpha", "ALPHA"], ["random", "Random"], ["heuristic", "alpha", "Alpha"]):
        spec = arena_pb2.TournamentSpec(participants=participants, seats_per_table=2, deals_per_table=1)
        code, details = status_of(lambda spec=spec: stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(spec=spec), metadata=ADMIN, timeout=10))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "duplicate" in details, (participants, details)


def test_the_kit_takes_its_token_from_a_file_or_the_environment(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BOT_TOKEN_ENV, raising=False)
    monkeypatch.delenv(BOT_TOKEN_FILE_ENV, raising=False)
    path = tmp_path / "token"
    path.write_text("mybot.from-file\n")
    assert bot_token("mybot.given") == "mybot.given"
    assert bot_token(None, path) == "mybot.from-file"
    with pytest.raises(ValueError, match="no token"):
        bot_token()
    monkeypatch.setenv(BOT_TOKEN_FILE_ENV, str(path))
    assert bot_token() == "mybot.from-file"
    monkeypatch.setenv(BOT_TOKEN_ENV, "mybot.from-env")
    assert bot_token() == "mybot.from-env"
    assert bot_token(None, path) == "mybot.from-file"  # a file given wins over the environment
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(ValueError, match="must hold one token"):
        bot_token(None, tmp_path / "empty")
    with pytest.raises(ValueError, match="cannot read the token file"):
        bot_token(None, tmp_path / "missing")


@pytest.mark.parametrize("how", ["file", "env"])
def test_bot_run_takes_its_token_from_a_file_or_the_environment(gateway: GatewayHarness, tmp_path: Path,
                                                                how: str) -> None:
    token = gateway.register_bot("filebot")
    args = ["bot", "run", "random", "--target", gateway.address]
    env: dict[str, str] = {}
    if how == "file":
        (tmp_path / "token").write_text(token + "\n")
        args += ["--token-file", str(tmp_path / "token")]
    else:
        env[BOT_TOKEN_ENV] = token
    process = spawn_cli(*args, env_extra=env, stdout=None, stderr=None)
    try:
        wait_until(lambda: gateway.is_connected("filebot") or process.poll() is not None, 30, "the bot to connect")
        assert gateway.is_connected("filebot")
        with open(f"/proc/{process.pid}/cmdline", "rb") as handle:
            assert token.encode() not in handle.read()  # nothing for `ps` to show
    finally:
        stop_process(process)


@pytest.mark.integration
def test_bot_run_without_a_token_is_a_usage_error() -> None:
    code, _out, err = run_cli("bot", "run", "random", "--target", "127.0.0.1:1", timeout=60)
    assert code == 2 and "--token-file" in err
