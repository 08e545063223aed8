"""README.md's Python kit example (a bot reading its token with ``token_file=``) passes `uno-arena bot check` as
written, each step its own process as a user runs them: `serve`, `bots register --output mybot.token`, then `bot
check --token-file mybot.token --run "python mybot.py"` on the same Redis: one registry, one token path."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import grpc

from tests.support import free_port
from tests.support.bots import stop_process
from tests.support.cli import spawn_cli
from tests.support.redis_server import PrivateRedis

REPO = Path(__file__).resolve().parents[2]
README_TARGET = "localhost:50051"


def kit_example() -> str:
    """The README's Python block that calls the kit's ``play`` with ``token_file=``."""
    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", readme, re.DOTALL | re.MULTILINE)
    (example,) = [block for block in blocks if "token_file=" in block and "from bots.kit import play" in block]
    return str(example)


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
    assert README_TARGET in example
    # The check's arena listens where the example connects; only when that port is taken on this machine does the
    # example get another port (nothing else of it changes).
    check_port = 50051 if _port_free(50051) else free_port()
    (tmp_path / "mybot.py").write_text(example.replace(README_TARGET, f"localhost:{check_port}"))
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
                 "--run", f"{sys.executable} mybot.py", redis_url=redis_server.url, cwd=tmp_path)
    out, err = check.communicate(timeout=300)
    assert check.returncode == 0, out + err
    assert "PASS connects" in out and "all checks passed" in out
    assert "invalid token" not in out + err
