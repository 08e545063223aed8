"""Submissions (arena.store.submission_store: versions in Redis, archives as files in the archive folder, quotas) and
the
host's token of a bot (BotStore.issue_host_token)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from arena.store import InvalidToken, Store
from arena.store.submission_store import MAX_OUTPUT, HostedState, Quota, QuotaExceeded, SubmissionState


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


SHA = sha(b"archive-1")


@pytest.fixture(autouse=True)
def _archive_folder(store: Store, tmp_path: Path) -> None:
    store.submissions.use_archive_dir(str(tmp_path / "archives"))


def test_versions_verdicts_and_the_current_one(store: Store) -> None:
    store.bots.register("alpha")
    first = store.submissions.add("alpha", SHA, b"archive-1", "python3.11-kit", ("python", "bot.py"))
    second = store.submissions.add("Alpha", sha(b"archive-2"), b"archive-2", "static", ("./bot",))
    assert (first.version, second.version) == (1, 2)
    assert first.state is SubmissionState.CHECKING and store.submissions.current("alpha") is None
    store.submissions.set_verdict("alpha", 1, SubmissionState.ADMITTED, "7 of 7 checks passed")
    store.submissions.set_verdict("alpha", 2, SubmissionState.REJECTED, "FAIL connects: never connected")
    current = store.submissions.current("alpha")
    assert current is not None and current.version == 1 and current.command == ("python", "bot.py")
    assert [s.state for s in store.submissions.all("alpha")] == [SubmissionState.ADMITTED, SubmissionState.REJECTED]
    assert store.submissions.all("alpha")[1].reason == "FAIL connects: never connected"
    assert store.submissions.archive(SHA) == b"archive-1"
    assert store.submissions.hosted_bots() == ["alpha"]


def test_an_archive_is_a_file_stored_once_per_content_and_never_in_redis(store: Store, tmp_path: Path) -> None:
    data = b"the same bytes" * 1000
    store.submissions.add("alpha", sha(data), data, "static", ("./bot",))
    store.submissions.add("beta", sha(data), data, "static", ("./bot",))
    assert os.listdir(tmp_path / "archives") == [f"{sha(data)}.tar.gz"]
    assert store.submissions.archive(sha(data)) == data
    assert not any(data in (store.redis.dump(k) or b"") for k in store.redis.keys("*"))
    with pytest.raises(ValueError, match="do not match"):
        store.submissions.add("alpha", sha(b"other"), data, "static", ("./bot",))


def test_a_file_that_does_not_match_its_digest_is_not_served(store: Store, tmp_path: Path) -> None:
    store.submissions.add("alpha", SHA, b"archive-1", "static", ("./bot",))
    (tmp_path / "archives" / f"{SHA}.tar.gz").write_bytes(b"tampered")
    assert store.submissions.archive(SHA) is None


def test_quotas_on_versions_and_bytes_name_the_fix(store: Store) -> None:
    store.submissions.quota = Quota(max_versions=2, max_bytes=25)
    store.submissions.add("alpha", sha(b"1" * 10), b"1" * 10, "static", ("./bot",))
    with pytest.raises(QuotaExceeded, match="quota of 25 bytes: delete old versions"):
        store.submissions.add("alpha", sha(b"2" * 20), b"2" * 20, "static", ("./bot",))
    store.submissions.add("alpha", sha(b"3" * 10), b"3" * 10, "static", ("./bot",))
    with pytest.raises(QuotaExceeded, match="keeps 2 versions, its quota of 2: delete old versions"):
        store.submissions.add("alpha", sha(b"4"), b"4", "static", ("./bot",))
    assert store.submissions.delete_versions("alpha", [1]) == [1]
    third = store.submissions.add("alpha", sha(b"4"), b"4", "static", ("./bot",))
    assert third.version == 3 and [s.version for s in store.submissions.all("alpha")] == [2, 3]
    assert store.submissions.get("alpha", 1) is None


def test_an_archive_no_version_refers_to_is_removed(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "archives"
    store.submissions.add("alpha", SHA, b"archive-1", "static", ("./bot",))
    store.submissions.add("beta", SHA, b"archive-1", "static", ("./bot",))
    os.utime(folder / f"{SHA}.tar.gz", (0, 0))  # older than the grace a fresh write gets
    store.submissions.delete_versions("alpha", [1])
    assert store.submissions.archive(SHA) == b"archive-1"  # beta's version still refers to it
    store.submissions.delete_versions("beta", [1])
    assert not (folder / f"{SHA}.tar.gz").exists()
    (folder / f"{sha(b'orphan')}.tar.gz").write_bytes(b"orphan")
    os.utime(folder / f"{sha(b'orphan')}.tar.gz", (0, 0))
    assert store.submissions.sweep() == [sha(b"orphan")] and os.listdir(folder) == []


def test_keep_newest_keeps_the_running_version(store: Store) -> None:
    for n in range(4):
        data = bytes([n]) * 5
        store.submissions.add("alpha", sha(data), data, "static", ("./bot",))
    store.submissions.set_verdict("alpha", 1, SubmissionState.ADMITTED, "ok")
    assert store.submissions.keep_newest("alpha", 1) == [2, 3]
    assert [s.version for s in store.submissions.all("alpha")] == [1, 4]


def test_submission_attempts_are_counted_per_bot_in_a_window(store: Store) -> None:
    assert [store.submissions.count_attempt("alpha", 2, 60) for _ in range(2)] == [0.0, 0.0]
    assert store.submissions.count_attempt("ALPHA", 2, 60) > 0
    assert store.submissions.count_attempt("beta", 2, 60) == 0.0


def test_output_is_capped_and_the_hosted_state_kept(store: Store) -> None:
    store.submissions.set_output("alpha", b"x" * (MAX_OUTPUT + 10) + b"end")
    kept = store.submissions.output("alpha")
    assert len(kept) == MAX_OUTPUT and kept.endswith(b"end")
    store.submissions.set_hosted("alpha", HostedState("backoff", 1, 2, "exited with code 1", 5.0))
    assert store.submissions.hosted("alpha") == HostedState("backoff", 1, 2, "exited with code 1", 5.0)


def test_the_host_token_works_beside_the_authors_and_ends_with_the_bot(store: Store) -> None:
    _, own = store.bots.register("alpha")
    first = store.bots.issue_host_token("alpha")
    second = store.bots.issue_host_token("alpha")
    assert store.bots.verify_token(own).name == "alpha"
    assert store.bots.verify_token(second).name == "alpha"
    with pytest.raises(InvalidToken):
        store.bots.verify_token(first)  # replaced by the next start's
    store.bots.revoke("alpha")
    with pytest.raises(InvalidToken):
        store.bots.verify_token(second)


def test_a_fresh_sandbox_token_is_bound_to_one_match_and_spent_at_its_end(store: Store) -> None:
    """The gateway binds a fresh sandbox's token to the match it is seated in and spends it at that match's end;
    spending names the token, so the next sandbox's (issued meanwhile) keeps working."""
    store.bots.register("alpha")
    token = store.bots.issue_host_token("alpha", fresh_sandbox=True)
    record = store.bots.verify_token(token)
    assert record.fresh_sandbox and record.sandbox_match == "" and record.host_token_id
    assert store.bots.bind_host_token("alpha", record.host_token_id, "m1")
    assert not store.bots.bind_host_token("alpha", record.host_token_id, "m2")  # bound once
    assert store.bots.verify_token(token).sandbox_match == "m1"
    assert store.bots.spend_host_token("alpha", record.host_token_id)
    assert not store.bots.token_works(token)
    newer = store.bots.issue_host_token("alpha", fresh_sandbox=True)
    assert not store.bots.spend_host_token("alpha", record.host_token_id)  # the old one's end, late
    assert store.bots.token_works(newer) and store.bots.verify_token(newer).sandbox_match == ""
    assert not store.bots.verify_token(store.bots.issue_host_token("alpha")).fresh_sandbox


def test_a_session_of_the_host_token_has_the_version_of_the_submission_it_runs(store: Store) -> None:
    """So a new submission is a new version wherever versions count (a competition's ladder, BOT@VERSION in a
    gauntlet): the gateway records the host token's version instead of the Hello's."""
    from arena.submissions import hosted_version

    _, own = store.bots.register("alpha")
    host = store.bots.issue_host_token("alpha", hosted_version(2))
    assert store.bots.verify_token(host).host_version == "submission-2"
    assert store.bots.verify_token(own).host_version == ""  # the author's own process says its version itself


def test_the_api_core_stores_versions_of_its_own_bot_only_and_caps_them(store: Store) -> None:
    """The SubmitBot core: each archive checked in a child process (arena.submissions.intake), stored within the
    bot's quota, for its own bot only."""
    import asyncio
    from collections.abc import AsyncIterator

    import grpc

    from arena.protocol import arena_pb2
    from arena.server import submission_servicer as api
    from arena.server.refusals import OrganizerError
    from arena.service.visibility import Caller, Role
    from arena.submissions import PackedFile, canonical_archive

    async def stream(name: str, data: bytes) -> AsyncIterator[arena_pb2.SubmitBotRequest]:
        yield arena_pb2.SubmitBotRequest(name=name, chunk=data)

    def submit(name: str, data: bytes, caller: Caller) -> arena_pb2.SubmitBotResponse:
        return asyncio.run(core.submit(stream(name, data), caller, "ipv4:127.0.0.1:5000"))

    store.bots.register("alpha")
    store.bots.register("beta")
    archive = canonical_archive((PackedFile("uno-bot.toml", b'runtime = "python3.11-kit"\ncommand = "python b.py"'),
                                 PackedFile("b.py", b"")))
    core = api.Submissions(store)
    alpha = Caller(Role.BOT, "alpha")
    assert submit("alpha", archive, alpha).submission.version == 1
    with pytest.raises(OrganizerError) as other:
        submit("beta", archive, alpha)
    assert other.value.code is grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(OrganizerError, match="submission refused: no manifest") as bad:
        submit("alpha", canonical_archive((PackedFile("b.py", b""),)), alpha)
    assert bad.value.code is grpc.StatusCode.INVALID_ARGUMENT
    store.submissions.quota = Quota(max_versions=2)
    assert submit("alpha", archive, Caller(Role.ADMIN)).submission.version == 2
    with pytest.raises(OrganizerError, match="keeps 2 versions, its quota of 2") as capped:
        submit("alpha", archive, alpha)
    assert capped.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
    listed = core.list(api.arena_pb2.ListSubmissionsRequest(name="alpha"), alpha)
    assert [s.version for s in listed.submissions] == [1, 2] and listed.hosted.state == ""
    store.submissions.set_check_queue({("alpha", 2): 1})  # the bot host's queue, as the author reads it
    listed = core.list(api.arena_pb2.ListSubmissionsRequest(name="alpha"), alpha)
    assert [s.queue_position for s in listed.submissions] == [0, 1]


def test_submissions_from_one_address_are_limited_before_the_archive_is_read(store: Store) -> None:
    import asyncio
    from collections.abc import AsyncIterator

    import grpc

    from arena.protocol import arena_pb2
    from arena.server import submission_servicer as api
    from arena.server.refusals import OrganizerError
    from arena.service.visibility import Caller, Role

    read: list[str] = []

    async def stream(name: str) -> AsyncIterator[arena_pb2.SubmitBotRequest]:
        read.append(name)
        yield arena_pb2.SubmitBotRequest(name=name, chunk=b"not an archive")

    store.bots.register("alpha")
    core = api.Submissions(store, rates=api.SubmitRates(per_client=1, per_client_window_s=60))
    admin = Caller(Role.ADMIN)
    with pytest.raises(OrganizerError, match="not an archive"):
        asyncio.run(core.submit(stream("alpha"), admin, "ipv6:[::1]:4000"))
    with pytest.raises(OrganizerError, match="too many submissions from this address") as limited:
        asyncio.run(core.submit(stream("alpha"), admin, "ipv6:[::1]:4001"))
    assert limited.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED and read == ["alpha"]
    assert api.client_of("ipv4:10.0.0.1:5555") == "ipv4:10.0.0.1" and api.client_of("unix:/x.sock") == "unix"


def test_a_bot_past_its_limit_or_a_busy_intake_is_refused_after_the_first_message(store: Store) -> None:
    """Only the first message (the bot's name) is read before the caller, the bot's rate and a free check are
    known: a refused upload costs the gateway one message, not 8 MiB."""
    import asyncio
    from collections.abc import AsyncIterator

    import grpc

    from arena.protocol import arena_pb2
    from arena.server import submission_servicer as api
    from arena.server.refusals import OrganizerError
    from arena.service.visibility import Caller, Role
    from arena.submissions.intake import IntakeLimits, IntakeRunner

    pulled: list[int] = []

    async def stream(name: str) -> AsyncIterator[arena_pb2.SubmitBotRequest]:
        for n in range(256):  # 8 MiB in 32 KiB messages
            pulled.append(n)
            yield arena_pb2.SubmitBotRequest(name=name if n == 0 else "", chunk=b"\0" * (32 * 1024))

    store.bots.register("alpha")
    admin = Caller(Role.ADMIN)
    busy = api.Submissions(store, IntakeRunner(IntakeLimits(max_running=0)))
    with pytest.raises(OrganizerError, match="being checked on this gateway") as refused:
        asyncio.run(busy.submit(stream("alpha"), admin, "ipv4:127.0.0.1:1"))
    assert refused.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED and pulled == [0]
    pulled.clear()
    limited = api.Submissions(store, rates=api.SubmitRates(per_bot=1))
    with pytest.raises(OrganizerError, match="has submitted 1 times"):
        asyncio.run(limited.submit(stream("alpha"), admin, "ipv4:127.0.0.1:2"))  # the busy one counted
    assert pulled == [0]
