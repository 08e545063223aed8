"""The gateway's Unix socket (`serve --unix-socket`): a stale socket is replaced, any other file refused."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
from pathlib import Path

import grpc.aio
import pytest

from arena.server.gateway.server import add_unix_port

pytestmark = pytest.mark.integration


def test_a_stale_socket_is_replaced_and_a_plain_file_refused(tmp_path: Path) -> None:
    stale = tmp_path / "gw.sock"
    left = socket.socket(socket.AF_UNIX)
    left.bind(str(stale))
    left.close()  # a dead gateway's socket file, nobody listening

    async def listen(path: Path) -> None:
        server = grpc.aio.server()
        try:
            add_unix_port(server, str(path))
            await server.start()
            assert stat.S_ISSOCK(os.lstat(path).st_mode)
        finally:
            await server.stop(0)

    asyncio.run(listen(stale))
    plain = tmp_path / "not-a-socket"
    plain.write_text("keep me")
    with pytest.raises(OSError, match="exists and is not a socket"):
        asyncio.run(listen(plain))
    assert plain.read_text() == "keep me"
