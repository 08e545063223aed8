"""The intake's child process (arena.submissions.intake) from its parent's side: a verdict crosses the process
boundary intact, a check past its wall time is killed and refused naming the limit, a child that cannot start
or dies is the intake's failure (not the author's), and a check past the per-process bound is refused, not queued."""

from __future__ import annotations

import asyncio
import io
import tarfile

import pytest

from arena.submissions import SubmissionRejected, read_package
from arena.submissions.intake import IntakeBusy, IntakeFailed, IntakeLimits, IntakeRunner

pytestmark = pytest.mark.integration

MANIFEST = b'runtime = "python3.11-kit"\ncommand = ["python", "bot.py"]\n'


def _archive() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in (("uno-bot.toml", MANIFEST), ("bot.py", b"print('hi')\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_an_accepted_package_crosses_from_the_child_with_its_digest() -> None:
    checked = asyncio.run(IntakeRunner().check(_archive()))
    expected = read_package(_archive())
    assert (checked.sha256, checked.archive) == (expected.sha256, expected.archive)
    assert checked.runtime == "python3.11-kit" and checked.command == ("python", "bot.py")


def test_a_refusal_crosses_with_its_reason() -> None:
    with pytest.raises(SubmissionRejected, match="not an archive"):
        asyncio.run(IntakeRunner().check(b"nothing of the kind"))


def test_a_check_past_its_wall_time_is_killed_and_refused_naming_the_limit() -> None:
    runner = IntakeRunner(IntakeLimits(wall_seconds=0.001))
    with pytest.raises(SubmissionRejected, match=r"took more than 0\.001 s"):
        asyncio.run(runner.check(_archive()))
    assert runner.running == 0


def test_a_child_without_memory_to_start_is_the_intakes_failure() -> None:
    with pytest.raises((IntakeFailed, SubmissionRejected)):
        asyncio.run(IntakeRunner(IntakeLimits(memory_bytes=8 * 1024 * 1024)).check(_archive()))


def test_past_the_bound_a_check_is_refused_with_when_to_try_again() -> None:
    runner = IntakeRunner(IntakeLimits(max_running=1))

    async def two_at_once() -> tuple[object, object]:
        return await asyncio.gather(runner.check(_archive()), runner.check(_archive()), return_exceptions=True)

    first, second = asyncio.run(two_at_once())
    assert not isinstance(first, BaseException)
    assert isinstance(second, IntakeBusy) and "try again in" in str(second) and second.retry_s >= 1
