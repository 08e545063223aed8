"""The demo's submitted bot, without processes: it takes the place of the last remote bot (the tournament keeps its
size with or without the sandbox), and without a usable bubblewrap the demo says so in one line and plays on."""

from __future__ import annotations

import io

import pytest

from arena.demo import HOSTED_BOT, REMOTE_BOTS, DemoOptions, checked_spec, hosted_bot, hosted_example_folder
from arena.hosting.sandbox import BWRAP_ENV, sandbox_missing
from arena.submissions import Runtime, pack_folder, read_package


def test_the_hosted_bot_replaces_the_last_remote_bot() -> None:
    with_it = list(checked_spec(DemoOptions(), hosted=True).participants)
    without = list(checked_spec(DemoOptions(), hosted=False).participants)
    assert len(with_it) == len(without)
    assert HOSTED_BOT in with_it and REMOTE_BOTS[-1][0] not in with_it
    assert HOSTED_BOT not in without and REMOTE_BOTS[-1][0] in without


def test_the_shipped_example_is_a_valid_submission() -> None:
    package = read_package(pack_folder(hosted_example_folder()))
    assert package.manifest.runtime is Runtime.PYTHON_KIT and package.manifest.command == ("python", "bot.py")


def test_without_bubblewrap_the_demo_says_so_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BWRAP_ENV, "/nonexistent/bwrap")
    missing = sandbox_missing()
    assert "bubblewrap" in missing and "apt-get install bubblewrap" in missing
    spec = checked_spec(DemoOptions(), hosted=False)
    out = io.StringIO()
    assert hosted_bot(None, DemoOptions(), spec, missing, out) is spec  # type: ignore[arg-type]
    (line,) = out.getvalue().splitlines()
    assert line.startswith("hosted bot   skipped: bwrap (bubblewrap) is not installed")
