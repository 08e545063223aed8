"""Rough edges of the `uno-arena` command line and the Node.js bot's README (issue 14, item 9).

- a command whose standard output is a pipe nobody reads any more (``uno-arena replay ID | head``) exits
  quietly with :data:`arena.cli.EXIT_OUTPUT_CLOSED`, no traceback;
- ``bots list`` keeps its columns aligned whatever version strings the bots send;
- ``tournament schedule --time-zone Mars/Olympus`` is refused naming the flag and the value;
- ``demo`` writes each run to a folder of its own, never into the working folder;
- ``bots/js/README.md``: its commands run as written from the repository's root and it lists every option;
- the test harness (``tests/support``) leaves nothing of a gateway or an event loop for the garbage collector to
  find after the loop closed (which showed as "Event loop is closed" warnings in later tests): what it cannot
  stop is an error in the teardown of the test that left it.
"""

from __future__ import annotations

import asyncio
import gc
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from celery import Celery

from arena.cli import EXIT_OUTPUT_CLOSED, _stdout_reader_gone, main
from arena.commands.tournaments import ELIDED, bots_table
from arena.demo import OUTPUT_PREFIX, OutputFolderError, output_folder
from arena.engine import Rules
from arena.processes import cli_argv
from arena.protocol import arena_pb2
from arena.runner import LocalSeat, MatchConfig, run_match
from arena.service.replays import stored_record
from arena.store import Store
from bots import make_bot
from tests.support.bots import RawBot, ThreadBot
from tests.support.gateway import GatewayHarness
from tests.support.loop_thread import LoopNotClean, LoopThread
from tests.support.organizer import OrganizerServer
from tests.support.redis_server import PrivateRedis
from tests.support.workers import app

__all__ = ["app"]

ROOT = Path(__file__).resolve().parents[1]
ADMIN_TOKEN = "rough-edges-admin-token"


@pytest.fixture
def organizer(store: Store, app: Celery) -> Iterator[OrganizerServer]:
    """The organizer API (admin token :data:`ADMIN_TOKEN`) on a real grpc.aio server over the private Redis."""
    server = OrganizerServer(store, app, admin_token=ADMIN_TOKEN)
    try:
        yield server
    finally:
        server.close()


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ARENA_")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def run_into_closed_pipe(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run `uno-arena ARGS` with its standard output a pipe whose read end is already closed (as after
    `| head` has read its lines and left); its exit status and standard error."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([*cli_argv(), *args], stdout=write_end, stderr=subprocess.PIPE, text=True,
                              env=env or cli_env(), timeout=120, check=False)
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


# -- a closed pipe ---------------------------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize("args", [
    ["play", "--players", "2", "--color", "never"],  # about 4 kB: still buffered, it fails at the last flush
    ["play", "--players", "2", "--color", "never", "--target-score", "2000"],  # 60 kB: it fails while printing
], ids=" ".join)
def test_a_command_whose_reader_left_exits_quietly(args: list[str]) -> None:
    code, err = run_into_closed_pipe(args)
    assert err == ""
    assert code == EXIT_OUTPUT_CLOSED == 141


@pytest.mark.integration
@pytest.mark.parametrize("args", [["--help"], ["tournament", "schedule", "--help"]], ids=" ".join)
def test_help_whose_reader_left_exits_quietly(args: list[str]) -> None:
    """argparse drops what it cannot print (then exits 0), and nothing is left for the last flush."""
    code, err = run_into_closed_pipe(args)
    assert err == ""
    assert code == 0


@pytest.mark.integration
def test_the_same_command_to_an_open_pipe_prints_everything() -> None:
    done = subprocess.run([*cli_argv(), "play", "--players", "2", "--color", "never"], capture_output=True,
                          text=True, env=cli_env(), timeout=120, check=False)
    assert done.returncode == 0 and done.stderr == ""
    assert " deals first " in done.stdout.splitlines()[0] and len(done.stdout.splitlines()) > 20


def test_replay_piped_into_head_stops_quietly(store: Store, organizer: OrganizerServer) -> None:
    match_id = "t-pipe:m0"
    seats = [LocalSeat(make_bot("random", seed=1)), LocalSeat(make_bot("heuristic", seed=2))]
    record = asyncio.run(run_match(MatchConfig(match_id=match_id, seed=3, rules=Rules(target=100)), seats))
    assert store.replays.save(match_id, stored_record(record))
    env = cli_env(UNO_ARENA_ADMIN_TOKEN=ADMIN_TOKEN)
    args = ["replay", match_id, "--target", organizer.address]

    shown = subprocess.run([*cli_argv(), *args], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert shown.returncode == 0, shown.stderr
    assert f"match {match_id} (omniscient" in shown.stdout

    code, err = run_into_closed_pipe(args, env)
    assert err == ""
    assert code == EXIT_OUTPUT_CLOSED


def test_a_pipe_counts_as_left_only_once_its_reader_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    """So a BrokenPipeError from anything but standard output still shows its traceback."""
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "w") as pipe:
        monkeypatch.setattr(sys, "stdout", pipe)
        try:
            assert not _stdout_reader_gone()
        finally:
            os.close(read_end)
        assert _stdout_reader_gone()
        monkeypatch.undo()


# -- bots list ---------------------------------------------------------------------------------------


def column_starts(line: str, header: str) -> list[int]:
    """Where each header word starts in ``header``; checks ``line`` has a column break (a space) before each."""
    starts = [m.start() for m in re.finditer(r"\S+", header)]
    for start in starts[1:]:
        assert line[start - 1] == " ", (line, header)
    return starts


def test_bots_table_cuts_long_values_and_keeps_the_columns() -> None:
    long_version = "mybot (uno-arena-bot-js 0.1.0) node v20.20.2 linux x64 build 2026-12-01"
    bots = [
        arena_pb2.Bot(name="short", bot_version="1", description="plain", connected=True),
        arena_pb2.Bot(name="js", bot_version=long_version, description="a\nsecond line", revoked=True),
        arena_pb2.Bot(name="n" * 100, bot_version="2.0", deleted=True),
    ]
    header, *rows, note = bots_table(bots)
    assert header.split() == ["name", "version", "connected", "registered", "description"]
    connected_at = header.index("connected")
    for row in rows:
        assert row[connected_at:].startswith(("yes ", "no  ")), row
        assert "\n" not in row
    assert ELIDED in rows[1] and long_version not in rows[1]
    assert rows[1].endswith("a second line [revoked]")
    assert rows[2].startswith("n" * (32 - len(ELIDED)) + ELIDED + " ")
    assert rows[2].endswith(" [deleted]")
    assert "--json" in note


def test_bots_table_of_short_values_is_cut_nowhere() -> None:
    lines = bots_table([arena_pb2.Bot(name="a", bot_version="1.0", description="x")])
    assert len(lines) == 2 and ELIDED not in "".join(lines)
    assert lines[1].split() == ["a", "1.0", "no", "-", "x"]


def test_bots_list_over_grpc_stays_aligned(store: Store, organizer: OrganizerServer, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("UNO_ARENA_ADMIN_TOKEN", ADMIN_TOKEN)
    store.bots.register("plain", version="1")
    store.bots.register("verbose", version="v" * 64)
    code = main(["bots", "list", "--target", organizer.address])
    out, err = capsys.readouterr()
    assert code == 0, err
    header, *rows, note = out.splitlines()
    assert [row.split()[0] for row in rows] == ["plain", "verbose"]
    for row in rows:
        assert row[header.index("connected"):].startswith("no "), (header, row)
    assert "v" * 64 not in out and ELIDED in rows[1] and ELIDED in note

    code = main(["bots", "list", "--json", "--target", organizer.address])
    assert code == 0 and "v" * 64 in capsys.readouterr().out  # whole in the JSON


# -- --time-zone ----------------------------------------------------------------------------------


SCHEDULE = ["tournament", "schedule", "--cron", "0 3 * * *", "--bots", "random,heuristic"]


def test_an_unknown_time_zone_is_refused_naming_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main([*SCHEDULE, "--time-zone", "Mars/Olympus", "--target", "127.0.0.1:9"])
    err = capsys.readouterr().err
    assert ended.value.code == 2
    assert "argument --time-zone: unknown time zone 'Mars/Olympus'" in err
    assert "CRON_TZ" not in err and "Europe/Helsinki" in err


@pytest.mark.parametrize("zone", ["../../etc/passwd", "/etc/localtime", "Europe/Nowhere", "UTC+3"])
def test_other_bad_time_zones_are_refused(zone: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([*SCHEDULE, "--time-zone", zone, "--target", "127.0.0.1:9"])
    assert f"argument --time-zone: unknown time zone {zone!r}" in capsys.readouterr().err


def test_known_time_zones_reach_the_arena(store: Store, organizer: OrganizerServer, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("UNO_ARENA_ADMIN_TOKEN", ADMIN_TOKEN)
    for name, zone, shown in [("s-helsinki", "Europe/Helsinki", "Europe/Helsinki"), ("s-utc", "utc", "UTC"),
                              ("s-z", "Z", "UTC")]:
        code = main([*SCHEDULE, "--name", name, "--time-zone", zone, "--target", organizer.address])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert f"schedule {name}:" in out and f"({shown})" in out


# -- the demo's output folder -----------------------------------------------------------------------


def test_each_demo_run_without_out_gets_a_new_folder_under_the_temporary_folder() -> None:
    first, second = output_folder(None), output_folder(None)
    try:
        assert first != second
        for folder in (first, second):
            assert folder.is_dir() and not any(folder.iterdir())
            assert folder.parent == Path(tempfile.gettempdir()) and folder.name.startswith(OUTPUT_PREFIX)
    finally:
        first.rmdir()
        second.rmdir()


def test_out_takes_a_new_or_empty_folder(tmp_path: Path) -> None:
    assert output_folder(tmp_path / "a" / "b") == tmp_path / "a" / "b"
    assert (tmp_path / "a" / "b").is_dir()
    assert output_folder(tmp_path / "a" / "b") == tmp_path / "a" / "b"  # still empty


def test_out_refuses_a_folder_with_a_previous_run_or_a_file(tmp_path: Path) -> None:
    (tmp_path / "replays").mkdir()
    with pytest.raises(OutputFolderError, match=rf"--out {re.escape(str(tmp_path))}: the folder is not empty"):
        output_folder(tmp_path)
    (tmp_path / "results.csv").write_text("match_id\n")
    with pytest.raises(OutputFolderError, match="not a folder"):
        output_folder(tmp_path / "results.csv")


def test_the_demo_refuses_a_full_out_folder_before_starting_anything(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "results.csv").write_text("an earlier run\n")
    assert main(["demo", "--out", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"error: --out {tmp_path}: the folder is not empty" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]


@pytest.mark.integration
@pytest.mark.slow
def test_a_demo_run_writes_only_its_own_folder(tmp_path: Path) -> None:
    """A small whole demo (real Redis, gateway, worker, remote bots) from an empty working folder."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    done = subprocess.run([*cli_argv(), "demo", "--seats", "2", "--deals", "1", "--no-duplicate",
                           "--target-score", "50"], cwd=cwd, capture_output=True, text=True, env=cli_env(),
                          timeout=240, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(cwd.iterdir()) == []
    first_line, *_, last_line = done.stdout.strip().splitlines()
    found = re.match(r"output\s+(\S+)/\s", first_line)
    assert found, first_line
    folder = Path(found.group(1))
    logs = re.search(r"\(process logs: (\S+)\)", last_line)
    try:
        assert logs, last_line
        assert folder.name.startswith(OUTPUT_PREFIX) and f"{folder}/" in last_line
        assert sorted(p.name for p in folder.iterdir()) == ["replays", "results.csv", "results.json"]
        matches = {line.split(",", 1)[0] for line in (folder / "results.csv").read_text().splitlines()[1:]}
        replays = {path.stem for path in (folder / "replays").iterdir()}
        assert len(matches) == 6  # 4 bots, every pair at a table of 2, 1 deal
        assert replays == {match_id.replace(":", "_") for match_id in matches}
    finally:
        remove_tree(folder)
        if logs:
            remove_tree(Path(logs.group(1)))


def remove_tree(folder: Path) -> None:
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


# -- bots/js/README.md ---------------------------------------------------------------------------------


JS_README = ROOT / "bots" / "js" / "README.md"
JS_BOT = ROOT / "bots" / "js" / "bot.js"


def shell_blocks(markdown: str) -> list[list[str]]:
    """The command lines (comments dropped) of each ```sh block."""
    blocks = re.findall(r"^```sh\n(.*?)^```", markdown, re.DOTALL | re.MULTILINE)
    return [[line.split("#", 1)[0].strip() for line in block.splitlines() if line.split("#", 1)[0].strip()]
            for block in blocks]


def test_the_js_readme_commands_run_from_the_repository_root() -> None:
    blocks = shell_blocks(JS_README.read_text())
    assert blocks, "no ```sh block in bots/js/README.md"
    for lines in blocks:
        for line in lines:
            words = line.split()
            assert words[0] != "cd" and "&& cd" not in line, f"{line!r} changes folder, the lines after it break"
            paths = [w for w in words if w.endswith(".js")]
            prefixes = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--prefix"]
            for path in paths:
                assert (ROOT / path).is_file(), f"{line!r}: no {path} from the repository root"
            for prefix in prefixes:
                assert (ROOT / prefix / "package.json").is_file(), f"{line!r}: no {prefix}/package.json"
            if words[0] == "npm":
                assert prefixes, f"{line!r} needs --prefix bots/js from the repository root"


def options_of_the_js_bot() -> set[str]:
    """The options bot.js reads (its quoted ``'--name'`` strings)."""
    return set(re.findall(r"'(--[a-z][a-z-]*)'", JS_BOT.read_text()))


def test_the_js_readme_lists_every_option_of_the_bot() -> None:
    options = options_of_the_js_bot()
    assert {"--target", "--token", "--token-file", "--name", "--max-matches", "--tls", "--help"} <= options
    listed = JS_README.read_text().split("Options:", 1)[1].split("Exit codes:", 1)[0]
    missing = sorted(o for o in options if not re.search(rf"`{re.escape(o)}[` ]", listed))
    assert not missing, f"bots/js/README.md does not list {missing}"


def test_the_readme_lines_found_are_the_ones_shown() -> None:
    """The reading above sees the install and start lines (a broken reading would pass everything)."""
    lines = [line for block in shell_blocks(JS_README.read_text()) for line in block]
    assert any(line.startswith("npm ci") for line in lines)
    assert any(line.startswith("node bots/js/bot.js") and "--name" in line for line in lines)


# -- the test harness leaves nothing running -------------------------------------------------------


async def stubborn(started: threading.Event) -> None:
    """Ignores every cancellation (but not its closing by the garbage collector)."""
    started.set()
    while True:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            continue


def test_a_loop_thread_names_the_task_it_could_not_stop() -> None:
    loop_thread = LoopThread("stubborn-loop", leftover_timeout_s=0.2)
    started = threading.Event()
    loop_thread.submit(stubborn(started))
    assert started.wait(10)
    with pytest.raises(LoopNotClean, match=r"'stubborn-loop' closed with 1 task\(s\) .* stubborn \("):
        loop_thread.close()
    assert loop_thread.loop.is_closed() and not loop_thread.thread.is_alive()
    loop_thread.close()  # reported once


def test_a_loop_thread_finishes_what_ends_when_cancelled() -> None:
    finished: list[str] = []

    async def polite() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            finished.append("cleaned up")

    loop_thread = LoopThread("polite-loop")
    pending = loop_thread.submit(polite())
    loop_thread.run(asyncio.sleep(0))  # polite() is running now
    loop_thread.close()
    assert finished == ["cleaned up"] and pending.cancelled()


def test_a_gateway_closed_with_bots_connected_leaves_nothing_to_collect(
        redis_server: PrivateRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    """A gateway with a kit bot (on a loop of its own) and a raw stream open, closed first: after the garbage
    collector ran, no object complained (a still running gRPC server would: its loop is closed)."""
    unraisable: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: unraisable.append(f"{u.object!r}: {u.exc_value!r}"))
    harness = GatewayHarness(redis_server.url)
    kit = raw = None
    try:
        kit = ThreadBot(harness.address, harness.register_bot("lingering"))
        harness.wait_for_bot("lingering")
        raw = RawBot(harness.address, harness.register_bot("raw"))
        raw.hello()
        assert raw.welcome().bot_name == "raw"
    finally:
        harness.close()
        if kit is not None:
            kit.stop()
        if raw is not None:
            raw.close()
    del harness, kit, raw
    gc.collect()
    assert unraisable == []
