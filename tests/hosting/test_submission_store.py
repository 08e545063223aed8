"""Submissions in Redis (arena.store.submissions) and the host's token of a bot (BotStore.issue_host_token)."""

from __future__ import annotations

import pytest

from arena.store import InvalidToken, Store
from arena.store.submissions import MAX_OUTPUT, HostedState, SubmissionState

SHA = "a" * 64


def test_versions_verdicts_and_the_current_one(store: Store) -> None:
    store.bots.register("alpha")
    first = store.submissions.add("alpha", SHA, b"archive-1", "python3.11-kit", ("python", "bot.py"))
    second = store.submissions.add("Alpha", "b" * 64, b"archive-2", "static", ("./bot",))
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


def test_an_archive_is_stored_once_per_content(store: Store) -> None:
    store.submissions.add("alpha", SHA, b"first bytes", "static", ("./bot",))
    store.submissions.add("beta", SHA, b"never written over", "static", ("./bot",))
    assert store.submissions.archive(SHA) == b"first bytes"


def test_output_is_capped_and_each_bot_gets_its_own_uid(store: Store) -> None:
    store.submissions.set_output("alpha", b"x" * (MAX_OUTPUT + 10) + b"end")
    kept = store.submissions.output("alpha")
    assert len(kept) == MAX_OUTPUT and kept.endswith(b"end")
    uids = {store.submissions.sandbox_uid(name) for name in ("alpha", "beta", "gamma")}
    assert len(uids) == 3 and store.submissions.sandbox_uid("alpha") in uids
    store.submissions.set_hosted("alpha", HostedState("backoff", 1, 2, "exited with code 1", 5.0))
    assert store.submissions.hosted("alpha") == HostedState("backoff", 1, 2, "exited with code 1", 5.0)
    assert store.submissions.sandbox_uid("alpha") in uids  # the state's writes leave the uid alone


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


def test_the_api_core_stores_versions_of_its_own_bot_only_and_caps_them(store: Store,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import grpc

    from arena.server import submissions as api
    from arena.server.refusals import OrganizerError
    from arena.service.visibility import Caller, Role
    from arena.submissions import PackedFile, canonical_archive

    store.bots.register("alpha")
    store.bots.register("beta")
    archive = canonical_archive((PackedFile("uno-bot.toml", b'runtime = "python3.11-kit"\ncommand = "python b.py"'),
                                 PackedFile("b.py", b"")))
    core = api.Submissions(store)
    alpha = Caller(Role.BOT, "alpha")
    assert core.submit("alpha", archive, alpha).submission.version == 1
    with pytest.raises(OrganizerError) as other:
        core.submit("beta", archive, alpha)
    assert other.value.code is grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(OrganizerError, match="submission refused: no manifest") as bad:
        core.submit("alpha", canonical_archive((PackedFile("b.py", b""),)), alpha)
    assert bad.value.code is grpc.StatusCode.INVALID_ARGUMENT
    monkeypatch.setattr(api, "MAX_VERSIONS", 2)
    assert core.submit("alpha", archive, Caller(Role.ADMIN)).submission.version == 2
    with pytest.raises(OrganizerError, match="2 versions") as capped:
        core.submit("alpha", archive, alpha)
    assert capped.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
    listed = core.list(api.arena_pb2.ListSubmissionsRequest(name="alpha"), alpha)
    assert [s.version for s in listed.submissions] == [1, 2] and listed.hosted.state == ""
