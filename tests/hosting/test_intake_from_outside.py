"""Submissions attacked from outside: a real `uno-arena serve` (and a worker) in processes of their own receive
archive bombs (folder entries in tar, tar.gz and zip), bz2, manifest bombs and path conflicts while another client
keeps calling ListBots and a bot process plays a tournament. The checks run in child processes, so the gateway keeps
answering, every bomb is refused naming its limit and the tournament plays on with nothing charged to the bot.
Refused submissions count against the bot's rate limit; quotas are refused naming the fix; archives land in the
archive folder, never in Redis; the admin prunes old versions from the command line."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.client import ArenaClient
from arena.commands.tables import watch
from arena.engine import Rules, Variant
from arena.protocol import arena_pb2
from arena.protocol.convert import rules_to_proto
from arena.submissions import pack_folder
from tests.support.archives import folders_tar, folders_zip
from tests.support.bots import RawBot, process_bot, stop_process
from tests.support.serve_process import ADMIN, ServeProcess, serve_process
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

ANSWER_WITHIN_S = 5.0
"""A generous bound on a cheap RPC while bombs are checked (the gateway's own work is not waiting on them)."""
MANIFEST = b'runtime = "python3.11-kit"\ncommand = ["python", "bot.py"]\n'

def tar_gz(members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    with serve_process(tmp_path_factory.mktemp("intake"), worker=True) as served:
        yield served


def refusal(arena: ServeProcess, name: str, archive: bytes) -> grpc.RpcError:
    """The refusal of this submission; one refused because the gateway's checks are all busy is sent again."""
    for _ in range(60):
        with ArenaClient(arena.address, ADMIN) as client, pytest.raises(grpc.RpcError) as raised:
            client.submit_bot(name, archive)
        busy = raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "being checked" in (
            raised.value.details() or "")
        if not busy:
            return raised.value
        time.sleep(1.0)
    raise AssertionError("the gateway's checks stayed busy for a minute")


def test_bombs_of_folder_entries_are_refused_while_the_gateway_keeps_answering(arena: ServeProcess) -> None:
    bombs = {"tar-gz": folders_tar(200_000, "w:gz"), "tar": folders_tar(15_000, "w"), "zip": folders_zip(60_000)}
    for name in bombs:
        arena.store.bots.register(f"bomb-{name}")
    _, player_token = arena.store.bots.register("player")
    player = process_bot(arena.address, player_token)
    slowest = [0.0]
    answered = [0]
    stop = threading.Event()

    def poll() -> None:
        with ArenaClient(arena.address, ADMIN, timeout=30) as client:
            while not stop.is_set():
                started = time.monotonic()
                list(client.list_bots())
                slowest[0] = max(slowest[0], time.monotonic() - started)
                answered[0] += 1

    refusals: dict[str, grpc.RpcError] = {}
    senders = [threading.Thread(target=lambda n=n, b=b: refusals.__setitem__(n, refusal(arena, f"bomb-{n}", b)))
               for n, b in bombs.items()]
    poller = threading.Thread(target=poll, daemon=True)
    try:
        with ArenaClient(arena.address, ADMIN) as client:
            wait_until(lambda: arena.store.sessions.online("player"), 30, "the bot process connected")
            spec = arena_pb2.TournamentSpec(
                name="beside-the-bombs", participants=["random", "player"],
                rules=rules_to_proto(Rules(variant=Variant.FLIP, target=50)), seats_per_table=2, deals_per_table=2,
                duplicate_deals=False, seed=7, decision_deadline_ms=2000)
            tournament = client.create_tournament(spec).tournament
            poller.start()
            for sender in senders:
                sender.start()
            for sender in senders:
                sender.join(120)
            newcomer = RawBot(arena.address, arena.store.bots.register("newcomer")[1])
            newcomer.hello()
            assert newcomer.inbox.get(timeout=ANSWER_WITHIN_S).WhichOneof("payload") == "welcome"
            out = io.StringIO()
            assert watch(client, tournament.tournament_id, out, quiet=True) == 0, out.getvalue()
            finished = client.get_tournament(tournament.tournament_id)
            charged = [i for i in client.get_bot_log("player").incidents if i.kind in ("disconnect", "timeout")]
            still_online = arena.store.sessions.online("player")
    finally:
        stop.set()
        if poller.is_alive():
            poller.join(30)
        stop_process(player)
    assert answered[0] > 0 and slowest[0] < ANSWER_WITHIN_S, f"ListBots took {slowest[0]:.1f} s during the bombs"
    for name, error in refusals.items():
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (name, error.details())
        assert "more than 1000 entries" in (error.details() or ""), (name, error.details())
    assert set(refusals) == set(bombs)
    assert finished.matches_done == finished.matches_total > 0 and charged == [] and still_online


def test_bz2_is_refused_naming_the_formats(arena: ServeProcess) -> None:
    arena.store.bots.register("bzip")
    error = refusal(arena, "bzip", folders_tar(3, "w:bz2"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "bzip2" in (error.details() or "") and ".tar.gz, .tgz, .tar or .zip" in (error.details() or "")


@pytest.mark.parametrize(("manifest_name", "manifest", "why"), [
    ("uno-bot.toml", b" " * (30 * 1024 * 1024), "unpacks to more than|more than the 65536 allowed"),
    ("uno-bot.json", b"[" * 200_000 + b"]" * 200_000, "more than the 65536 allowed"),
    ("uno-bot.json", b"[" * 30_000 + b"]" * 30_000, "nests too deep"),
    ("uno-bot.toml", b"runtime = \"\xff\xfe\"", "not UTF-8"),
], ids=["spaces", "nested-200000", "nested-30000", "not-utf8"])
def test_manifest_bombs_are_invalid_argument_naming_the_problem(arena: ServeProcess, manifest_name: str,
                                                                manifest: bytes, why: str) -> None:
    name = f"manifest-{abs(hash((manifest_name, len(manifest)))) % 10_000}"
    arena.store.bots.register(name)
    error = refusal(arena, name, tar_gz([(manifest_name, manifest), ("bot.py", b"")]))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert any(part in (error.details() or "") for part in why.split("|")), error.details()


def test_a_file_and_a_folder_of_one_name_are_refused_at_submission(arena: ServeProcess) -> None:
    arena.store.bots.register("conflict")
    error = refusal(arena, "conflict", tar_gz([("uno-bot.toml", MANIFEST), ("bot.py", b""), ("a", b"x"),
                                               ("a/b", b"y")]))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    details = error.details() or ""
    assert "'a' as a file and as a folder" in details and str(arena.archive_dir) not in details
    assert "/tmp" not in details


def test_refused_submissions_count_against_the_bots_rate_limit(arena: ServeProcess) -> None:
    arena.store.bots.register("hasty")
    codes = [refusal(arena, "hasty", b"not an archive").code() for _ in range(10)]
    assert set(codes) == {grpc.StatusCode.INVALID_ARGUMENT}
    error = refusal(arena, "hasty", b"not an archive")
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "refused submissions count too" in (error.details() or "") and "try again in" in (error.details() or "")


def test_an_accepted_archive_is_a_file_in_the_archive_folder_and_not_in_redis(arena: ServeProcess,
                                                                              tmp_path: Path) -> None:
    (tmp_path / "uno-bot.toml").write_bytes(MANIFEST)
    (tmp_path / "bot.py").write_bytes(b"# a bot of its own\n" * 200)
    archive = pack_folder(tmp_path)
    arena.store.bots.register("stored")
    with ArenaClient(arena.address, ADMIN) as client:
        submission = client.submit_bot("stored", archive)
    file = arena.archive_dir / f"{submission.sha256}.tar.gz"
    assert file.read_bytes() == archive
    keys = arena.store.redis.keys("*")
    assert not any(archive in (arena.store.redis.dump(k) or b"") for k in keys)
    assert not any(b"submission:" in k for k in keys)


def test_the_quota_is_refused_naming_the_fix(arena: ServeProcess) -> None:
    arena.store.bots.register("hoarder")
    for n in range(arena.store.submissions.quota.max_versions):
        data = json.dumps({"n": n}).encode()
        arena.store.submissions.add("hoarder", hashlib.sha256(data).hexdigest(), data, "static", ("./bot",))
    error = refusal(arena, "hoarder", tar_gz([("uno-bot.toml", MANIFEST), ("bot.py", b"")]))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "quota" in (error.details() or "") and "delete old versions" in (error.details() or "")
    arena.store.submissions.keep_newest("hoarder", 1)
    with ArenaClient(arena.address, ADMIN) as client:
        accepted = client.submit_bot("hoarder", tar_gz([("uno-bot.toml", MANIFEST), ("bot.py", b"")]))
    assert accepted.version == arena.store.submissions.quota.max_versions + 1


def test_the_admin_prunes_old_versions_from_the_command_line(arena: ServeProcess) -> None:
    arena.store.bots.register("pruned")
    for n in range(3):
        data = f"version {n}".encode()
        arena.store.submissions.add("pruned", hashlib.sha256(data).hexdigest(), data, "static", ("./bot",))
    done = subprocess.run([sys.executable, "-m", "arena.cli", "bot", "prune", "pruned", "--keep", "1",
                           "--archive-dir", str(arena.archive_dir)], env=arena.env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "pruned: deleted versions 1, 2" in done.stdout
    assert [s.version for s in arena.store.submissions.all("pruned")] == [3]
    unknown = subprocess.run([sys.executable, "-m", "arena.cli", "bot", "prune", "nobody"], env=arena.env,
                             capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and len(unknown.stderr.strip().splitlines()) == 1, unknown.stderr
