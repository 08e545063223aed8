"""Each runtime starts in the sandbox through the launcher (`python -m arena.hosting.launch`), with only its token
and the socket in its environment and no network."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.hosting.sandbox import Limits, SandboxSpec, sandbox_missing
from arena.submissions import Runtime

pytestmark = pytest.mark.integration


def _launch(tmp_path: Path, runtime: Runtime, command: tuple[str, ...], files: dict[str, str],
            heard: list[bytes] | None = None) -> str:
    """Run the package through the launcher; what its process said to the gateway's socket goes to ``heard``."""
    missing = sandbox_missing()
    if missing:
        pytest.skip(f"the bot host's sandbox: {missing}")
    package = tmp_path / "package"
    package.mkdir()
    for name, text in files.items():
        (package / name).write_text(text)
        (package / name).chmod(0o755)
    package.chmod(0o755)
    gateway = socket.socket(socket.AF_UNIX)
    gateway.bind(str(tmp_path / "gw.sock"))
    (tmp_path / "gw.sock").chmod(0o777)  # as the gateway's: any bot uid connects
    gateway.listen(1)
    gateway.settimeout(60)

    def listen() -> None:
        with contextlib.suppress(OSError):
            connection = gateway.accept()[0]
            with connection:
                connection.settimeout(60)
                (heard if heard is not None else []).append(connection.recv(100))

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    uid = 200_999 if os.geteuid() == 0 else None
    spec = SandboxSpec(str(package), runtime, command, str(tmp_path / "gw.sock"), uid, Limits())
    (tmp_path / "spec.json").write_text(json.dumps(spec.to_json()))
    try:
        done = subprocess.run([sys.executable, "-m", "arena.hosting.launch", str(tmp_path / "spec.json")],
                              env=dict(os.environ, UNO_ARENA_BOT_TOKEN="bot.secret", REDIS_URL="redis://secret"),
                              capture_output=True, text=True, timeout=60)
    finally:
        if heard is not None:
            listener.join(timeout=60)
        gateway.close()
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_static_program_runs_with_nothing_of_the_host(tmp_path: Path) -> None:
    script = "#!/bin/sh\necho \"id $(id -u)\"\necho \"env $(env | cut -d= -f1 | sort | tr '\\n' ' ')\"\nls /\n"
    out = _launch(tmp_path, Runtime.STATIC, ("./run.sh",), {"run.sh": script})
    assert "REDIS_URL" not in out and "UNO_ARENA_BOT_TOKEN" in out and "UNO_ARENA_TARGET" in out
    listing = set(out.split("\n", 2)[2].split())
    assert "etc" not in listing and "home" not in listing and {"bot", "tmp", "usr"} <= listing
    if os.geteuid() == 0:
        assert "id 200999" in out


def test_node_runs_under_the_filter_reaches_the_gateway_and_no_network(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the node20 runtime needs Node.js 20")
    code = """
const net = require("net");
const fs = require("fs");
console.log("node", process.version, process.env.UNO_ARENA_TARGET);
fs.promises.readFile("/bot/bot.js").then((data) => {
  console.log("read", data.length > 0);
  const gateway = net.connect(process.env.UNO_ARENA_TARGET.slice(5), () => gateway.end("hello from node"));
  gateway.on("close", () => {
    const s = net.connect(53, "1.1.1.1");
    s.on("error", (e) => { console.log("tcp refused", e.code); process.exit(0); });
    s.on("connect", () => { console.log("tcp connected"); process.exit(0); });
  });
});
"""
    heard: list[bytes] = []
    out = _launch(tmp_path, Runtime.NODE20, ("node", "bot.js"), {"bot.js": code}, heard)
    assert "node v" in out and "unix:/run/uno-arena/gateway.sock" in out and "read true" in out
    assert heard == [b"hello from node"]
    assert "tcp refused" in out and "tcp connected" not in out
