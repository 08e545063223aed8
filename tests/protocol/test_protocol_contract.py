"""The protobuf contract: generated code up to date, `buf lint` clean, descriptors usable (reflection).

The generated-code check runs `python -m tools.proto_code --check`; regenerate with
`python -m tools.proto_code` when it fails.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from google.rpc import status_pb2

from arena import protocol
from tools import proto_code as generate

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.integration
def test_generated_code_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tools.proto_code", "--check", "--diff"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, (
        "arena/protocol/_gen is stale; run `python -m tools.proto_code`\n"
        + result.stdout + result.stderr[:5000]
    )


def test_check_detects_changed_missing_and_extra_files(tmp_path: Path) -> None:
    rendered = {"a_pb2.py": "x = 1\n", "a_pb2.pyi": "x: int\n"}
    assert generate.stale_files(rendered, tmp_path) == ["a_pb2.py", "a_pb2.pyi"]
    generate.write(rendered, tmp_path)
    assert generate.stale_files(rendered, tmp_path) == []
    (tmp_path / "a_pb2.py").write_text("x = 2\n", encoding="utf-8")
    (tmp_path / "old_pb2.py").write_text("", encoding="utf-8")
    assert generate.stale_files(rendered, tmp_path) == ["a_pb2.py", "old_pb2.py"]
    generate.write(rendered, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_pb2.py", "a_pb2.pyi"]


def test_generated_modules_import_as_package_modules() -> None:
    for module in (protocol.cards_pb2, protocol.game_pb2, protocol.bot_pb2, protocol.arena_pb2,
                   protocol.bot_pb2_grpc, protocol.arena_pb2_grpc):
        assert module.__name__.startswith("arena.protocol._gen.")
    assert protocol.bot_pb2.Decision.__module__ == "arena.protocol._gen.bot_pb2"
    assert protocol.PROTOCOL_VERSION == 1
    assert protocol.SERVICE_NAMES == ("uno_arena.v1.BotService", "uno_arena.v1.ArenaService")


def _buf() -> str | None:
    found = shutil.which("buf")
    if found:
        return found
    beside = Path(sys.executable).parent / "buf"  # the buf-bin wheel installs into the venv's bin/
    return str(beside) if beside.is_file() else None


@pytest.mark.integration
def test_buf_lint_is_clean() -> None:
    buf = _buf()
    if buf is None:
        pytest.skip("buf binary not found (install the test extra: `pip install buf-bin`); buf lint not run")
    with tempfile.TemporaryDirectory() as cache:
        result = subprocess.run([buf, "lint"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
                                check=False, env={"PATH": "/usr/bin:/bin", "BUF_CACHE_DIR": cache,
                                                  "HOME": cache})
    assert result.returncode == 0, f"buf lint failed:\n{result.stdout}{result.stderr}"


def test_vendored_status_proto_matches_googleapis() -> None:
    """proto/google/rpc/status.proto (for buf and other languages) describes what googleapis-common-protos
    registers at run time."""
    from grpc_tools import protoc  # development dependency, as for generate

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "status.binpb"
        well_known = Path(protoc.__file__).parent / "_proto"
        code = protoc.main(["protoc", f"-I{REPO_ROOT / 'proto'}", f"-I{well_known}",
                            f"--descriptor_set_out={out}", "google/rpc/status.proto"])
        assert code == 0
        vendored = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file[0]
    for message in vendored.message_type:
        for field in message.field:
            field.ClearField("json_name")  # protoc fills it in; CopyToProto leaves it out
    runtime = descriptor_pb2.FileDescriptorProto()
    status_pb2.DESCRIPTOR.CopyToProto(runtime)
    assert vendored == runtime


def test_descriptors_are_complete_in_the_default_pool() -> None:
    pool = descriptor_pool.Default()
    for name in ("cards", "game", "bot", "arena"):
        file = pool.FindFileByName(f"uno_arena/v1/{name}.proto")
        assert file.package == "uno_arena.v1"
    connect = pool.FindServiceByName("uno_arena.v1.BotService").methods_by_name["Connect"]
    assert connect.input_type.full_name == "uno_arena.v1.BotMessage"
    assert connect.output_type.full_name == "uno_arena.v1.ArenaMessage"
    assert connect.client_streaming and connect.server_streaming
    arena = pool.FindServiceByName("uno_arena.v1.ArenaService")
    assert set(arena.methods_by_name) == {
        "RegisterBot", "ListBots", "GetBot", "RotateBotToken", "RevokeBot", "DeleteBot", "CreateTournament",
        "ScheduleTournament", "WatchTournament", "GetStandings", "GetReplay", "ExportResults", "CancelTournament",
        "ListTournaments", "ListSchedules", "DeleteSchedule", "GetBotLog", "ListCompetitions",
        "GetCompetitionStandings", "GetTournament", "ListMatches", "ListRatingPools", "GetLeaderboard",
        "CreateCompetition", "SetCompetitionState", "StartGauntlet", "ListGauntlets", "GetGauntlet",
        "SubmitBot", "ListSubmissions", "GetBotOutput",
    }
    assert arena.methods_by_name["WatchTournament"].server_streaming
    error = pool.FindMessageTypeByName("uno_arena.v1.Error")
    status = error.fields_by_name["status"].message_type
    assert status is not None and status.full_name == "google.rpc.Status"


@pytest.mark.integration
def test_reflection_serves_the_contract_over_real_grpc() -> None:
    """A real server with the reflection service: a client rebuilds the services from it alone."""
    from grpc_reflection.v1alpha import reflection
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
        ProtoReflectionDescriptorDatabase,
    )

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    reflection.enable_server_reflection((*protocol.SERVICE_NAMES, reflection.SERVICE_NAME), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            database = ProtoReflectionDescriptorDatabase(channel)
            assert set(protocol.SERVICE_NAMES) <= set(database.get_services())
            pool = descriptor_pool.DescriptorPool(database)
            bot = pool.FindServiceByName("uno_arena.v1.BotService")
            assert bot.methods_by_name["Connect"].output_type.full_name == "uno_arena.v1.ArenaMessage"
            request = pool.FindMessageTypeByName("uno_arena.v1.DecisionRequest")
            assert "legal_actions" in request.fields_by_name
            status = pool.FindMessageTypeByName("google.rpc.Status")
            assert [f.name for f in status.fields] == ["code", "message", "details"]
    finally:
        server.stop(None)
