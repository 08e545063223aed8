"""What a hosted bot's token may do, from outside: a real `uno-arena serve` in its own process refuses every
organizer API call made with a token the bot host issued (a sandbox's, and a fresh sandbox's of a bot without
memory), PERMISSION_DENIED with one line naming the author's token; the author's own token still works."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from arena.client import ArenaClient
from tests.support.serve_process import ServeProcess, serve_process

pytestmark = pytest.mark.integration


def _archive() -> bytes:
    out = io.BytesIO()
    manifest = b'runtime = "python3.11-kit"\ncommand = ["python", "bot.py"]\n'
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in (("uno-bot.toml", manifest), ("bot.py", b"")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


CALLS: dict[str, Callable[[ArenaClient], object]] = {
    "SubmitBot": lambda c: c.submit_bot("hosted", _archive()),
    "GetBotLog": lambda c: c.get_bot_log("hosted"),
    "GetBotOutput": lambda c: c.get_bot_output("hosted"),
    "ListSubmissions": lambda c: c.list_submissions("hosted"),
    "ListBots": lambda c: list(c.list_bots()),
}


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    with serve_process(tmp_path_factory.mktemp("scope")) as served:
        yield served


@pytest.mark.parametrize("fresh", [False, True], ids=["host-token", "fresh-sandbox-token"])
@pytest.mark.parametrize("rpc", sorted(CALLS))
def test_a_host_token_is_refused_the_organizer_api(arena: ServeProcess, rpc: str, fresh: bool) -> None:
    if not arena.store.bots.exists("hosted"):
        arena.store.bots.register("hosted")
    token = arena.store.bots.issue_host_token("hosted", "submission-1", fresh_sandbox=fresh)
    with ArenaClient(arena.address, token) as client, pytest.raises(grpc.RpcError) as raised:
        CALLS[rpc](client)
    assert raised.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "author's own token" in (raised.value.details() or "")
    assert arena.store.submissions.all("hosted") == []


def test_the_authors_token_still_reads_and_submits(arena: ServeProcess, tmp_path: Path) -> None:
    _, author = arena.store.bots.register("authored")
    arena.store.bots.issue_host_token("authored", "submission-1")
    with ArenaClient(arena.address, author) as client:
        submission = client.submit_bot("authored", _archive())
        assert [s.version for s in client.list_submissions("authored").submissions] == [submission.version]
        client.get_bot_log("authored")
        client.get_bot_output("authored")
