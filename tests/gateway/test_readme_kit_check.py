"""README.md's Python kit example (a bot reading its token with ``token_file=``) passes `uno-arena bot check` as
written, each step its own process as a user runs them: `serve`, `bots register --output mybot.token`, then `bot
check --token-file mybot.token --run "python mybot.py"` on the same Redis: one registry, one token path. And the same
example, copied as written into a fresh folder, plays in process with the README's own `uno-arena play --bot` line
and exits (also with its `play(...)` call unguarded: that call dials nothing while `--bot` imports the file)."""

from __future__ import annotations

import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from tests.support import free_port
from tests.support.bots import stop_process
from tests.support.cli import spawn_cli
from tests.support.redis_server import PrivateRedis

REPO = Path(__file__).resolve().parents[2]
PLAY_TIMEOUT_S = 300.0
"""A bound on `play --bot` that only a hang reaches (it ends in seconds)."""


def kit_example() -> str:
    """The README's Python block that calls the kit's ``play`` with ``token_file=``."""
    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", readme, re.DOTALL | re.MULTILINE)
    (example,) = [block for block in blocks if "token_file=" in block and "from bots.kit import play" in block]
    return str(example)


def readme_play_line() -> list[str]:
    """The README's `uno-arena play --bot mybot.py:...` command, as its words (the shell comment dropped)."""
    readme = (REPO / "README.md").read_text()
    (line,) = [line for line in readme.splitlines() if line.startswith("uno-arena play --bot mybot.py:")]
    return shlex.split(line.partition("#")[0])[1:]


def _play_in(folder: Path, source: str) -> subprocess.CompletedProcess[str]:
    (folder / "mybot.py").write_text(source)
    process = spawn_cli(*readme_play_line(), cwd=folder)
    try:
        out, err = process.communicate(timeout=PLAY_TIMEOUT_S)
    finally:
        if process.poll() is None:  # a hang: fail with what it wrote, never leave it running
            process.kill()
            out, err = process.communicate()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.mark.integration
def test_the_readme_example_plays_in_process_and_exits(tmp_path: Path) -> None:
    done = _play_in(tmp_path, kit_example())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "win rate" in done.stdout and "choose" in done.stdout
    assert "reconnecting" not in done.stderr and "note:" not in done.stderr


@pytest.mark.integration
def test_an_unguarded_play_call_dials_nothing_under_play_bot(tmp_path: Path) -> None:
    """A user who drops the README's ``if __name__ == "__main__":``: the import's ``play(...)`` says in one line
    that it is skipped; the bot plays in process and the command exits."""
    example = kit_example()
    guard = 'if __name__ == "__main__":'
    assert guard in example
    head, _, call = example.partition(guard)
    unguarded = head + "\n".join(line.strip() for line in call.splitlines() if line.strip()) + "\n"
    assert "\nplay(" in unguarded
    done = _play_in(tmp_path, unguarded)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "win rate" in done.stdout
    notes = [line for line in done.stderr.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "calls play() when imported" in notes[0] and guard in notes[0], done.stderr
    assert "reconnecting" not in done.stderr and "UNAVAILABLE" not in done.stderr


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _cli(*args: str, redis_url: str, cwd: Path, **extra: str) -> subprocess.Popen[str]:
    return spawn_cli(*args, env_extra={"REDIS_URL": redis_url, **extra}, cwd=cwd)


def test_the_readme_kit_example_passes_bot_check_as_written(redis_server: PrivateRedis, tmp_path: Path) -> None:
    example = kit_example()
    assert "target=" not in example  # the example dials $UNO_ARENA_TARGET, else localhost:50051
    # The check's arena listens where the example connects (localhost:50051); only when that port is taken on this
    # machine does the check get another, named to the example through $UNO_ARENA_TARGET.
    check_port = 50051 if _port_free(50051) else free_port()
    (tmp_path / "mybot.py").write_text(example)
    serve_port = free_port()
    admin = tmp_path / "admin.token"
    server = _cli("serve", "--address", f"127.0.0.1:{serve_port}", "--metrics-port", "-1",
                  "--generate-admin-token", str(admin), redis_url=redis_server.url, cwd=tmp_path)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{serve_port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
        register = _cli("bots", "register", "mybot", "--output", "mybot.token", "--server",
                        f"127.0.0.1:{serve_port}", "--token-file", str(admin), redis_url=redis_server.url,
                        cwd=tmp_path)
        out, err = register.communicate(timeout=60)
        assert register.returncode == 0, out + err
    finally:
        stop_process(server)
    check = _cli("bot", "check", "--token-file", "mybot.token", "--address", f"127.0.0.1:{check_port}",
                 "--run", f"{sys.executable} mybot.py", redis_url=redis_server.url, cwd=tmp_path,
                 UNO_ARENA_TARGET=f"localhost:{check_port}")
    out, err = check.communicate(timeout=300)
    assert check.returncode == 0, out + err
    assert "PASS connects" in out and "all checks passed" in out
    assert "invalid token" not in out + err
