"""The bot host from outside: real Redis, a real `uno-arena serve` on a Unix socket, a real `uno-arena host` with
bubblewrap, each in its own process. A good bot is submitted, checked in the sandbox, admitted and plays a match;
hostile bots beside it are each contained and recorded with a reason, and the good bot goes on playing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.client import ArenaClient
from arena.hosting.sandbox import sandbox_missing
from arena.store import Store
from arena.store.submission_store import SubmissionState
from benchmarks import hostile_bots as hostile
from tests.support.hosted_arena import HostedArena, hosted_arena
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

ADMIN = "admin-token-for-the-host-tests"
ADMITTED = "admitted by the test (the check is the good bot's test)"
HOST_OPTIONS = ["--cpu-seconds", "60", "--memory-mib", "384", "--processes", "48", "--file-size-mib", "8",
                "--tmp-mib", "4", "--connect-timeout", "4", "--check-wait", "6", "--poll", "0.5"]


Arena = HostedArena


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    missing = sandbox_missing()
    if missing:
        pytest.skip(f"the bot host's sandbox: {missing}")
    tmp = tmp_path_factory.mktemp("host")
    secret = tmp / "admin.token"
    secret.write_text(ADMIN)
    secret.chmod(0o600)

    def register(store: Store) -> dict[str, str]:
        return {name: store.bots.register(name)[1] for name in ("good", "other", "silent", *hostile.HOSTILE)}

    def admit_the_hostile_bots(made: Arena) -> None:
        params: dict[str, dict[str, object]] = {
            "tcp": {"addresses": [["127.0.0.1", made.redis_port], ["127.0.0.1", made.gateway_port],
                                  ["1.1.1.1", 53]]},
            "snoop": {"paths": [str(secret), str(made.work_dir / "packages"), str(tmp / "bots" / "tcp" / "bot.py"),
                                str(made.work_dir / "specs")]},
        }
        for name, code in hostile.HOSTILE.items():
            folder = hostile.write_package(tmp / "bots" / name, code, params.get(name))
            hostile.admit_directly(made.store, name, folder, ADMITTED)

    with hosted_arena(tmp, ADMIN, HOST_OPTIONS, register, admit_the_hostile_bots) as made:
        never = hostile.write_package(tmp / "bots" / "silent", hostile.NEVER)
        silent = made.cli("bot", "submit", "silent", str(never), "--server", made.address, token=made.tokens["silent"])
        assert silent.returncode == 0, silent.stderr
        yield made


def _output(arena: Arena, name: str) -> str:
    return arena.store.submissions.output(name).decode("utf-8", "replace")


def _line(arena: Arena, name: str, start: str, timeout: float = 40.0) -> str:
    wait_until(lambda: any(line.startswith(start) for line in _output(arena, name).splitlines()), timeout=timeout,
               what=f"{name}'s line {start!r}", details=lambda: _output(arena, name)[-1500:])
    return next(line for line in _output(arena, name).splitlines() if line.startswith(start))


def test_a_submitted_bot_is_checked_in_the_sandbox_admitted_and_plays(arena: Arena, tmp_path: Path) -> None:
    folder = hostile.write_package(tmp_path / "good", hostile.GOOD)
    done = arena.cli("bot", "submit", "good", str(folder), "--server", arena.address,
                     token=arena.tokens["good"])
    assert done.returncode == 0, done.stderr
    assert "submitted good version 1" in done.stdout
    wait_until(lambda: arena.store.submissions.all("good")[0].state is not SubmissionState.CHECKING, timeout=90,
               what="the host's verdict on the good bot")
    verdict = arena.store.submissions.all("good")[0]
    assert verdict.state is SubmissionState.ADMITTED, verdict.reason
    wait_until(lambda: arena.store.sessions.online("good"), timeout=30, what="the good bot connected")
    listing = arena.cli("bot", "submissions", "good", "--server", arena.address, token=arena.tokens["good"])
    assert "version 1 admitted" in listing.stdout and "hosted process: running" in listing.stdout, listing.stdout
    match = arena.cli("match", "--relay", "--seats", "good,random", "--seed", "5", "--target-score", "50",
                      "--json", timeout=120)
    assert match.returncode == 0, match.stderr
    record = json.loads(match.stdout.splitlines()[-1])
    assert record["seats"] == ["good", "random"] and record["end_reason"] != "aborted"
    assert record["timeouts"][0] == 0 and not record["forfeits"]
    # the host flushes a process's output every OUTPUT_FLUSH_S (2 s): a short match may end before the first flush
    wait_until(lambda: "good bot starting" in arena.cli("bot", "output", "good", "--server", arena.address,
                                                        token=arena.tokens["good"]).stdout,
               timeout=20, what="the good bot's output")


def test_a_hosted_bot_enters_ladders_and_gauntlets_with_its_submission_as_version(arena: Arena) -> None:
    """A hosted bot is one more connected bot: its session has the version of the submission it runs (what a
    competition's ladder keeps apart, and what ``BOT@VERSION`` asks for), and a gauntlet plays it through the relay
    as it plays a connected one."""
    from arena.engine import Rules
    from arena.service.gauntlet_runs import build_spec, run_gauntlet
    from arena.tournament.stats.sprt import SprtConfig
    from arena.tournament.status import GauntletStatus
    from bots import make_bot

    assert arena.store.sessions.online("good") or pytest.fail("run with the first test of the module")
    assert arena.store.bots.get("good").version == "submission-1"
    spec = build_spec(candidate="good@submission-1", baseline="heuristic", opponents=["random"], seats=2, seed=11,
                      rules=Rules(target=50), sprt=SprtConfig(min_blocks=2, max_blocks=2))
    outcome = run_gauntlet(spec, arena.store, make_bot=make_bot)
    assert outcome.status is GauntletStatus.INCONCLUSIVE and len(outcome.blocks) == 2, outcome.detail


def test_no_tcp_connection_leaves_the_sandbox(arena: Arena) -> None:
    for port in (arena.redis_port, arena.gateway_port, 53):
        assert "tcp refused" in _line(arena, "tcp", f"tcp refused 1{'27.0.0.1' if port != 53 else '.1.1.1'}:{port}")
    assert "tcp connected" not in _output(arena, "tcp")


def test_no_other_bots_code_no_token_file_no_other_process(arena: Arena) -> None:
    assert _line(arena, "snoop", "snoop found") == "snoop found []"
    environment = _line(arena, "snoop", "snoop environment")
    assert "REDIS_URL" not in environment and "UNO_ARENA_ADMIN_TOKEN" not in environment
    seen = json.loads(_line(arena, "snoop", "snoop processes seen: ").partition(": ")[2])
    assert max(seen) < 100, "it sees only its own PID namespace"


def test_a_fork_bomb_is_held_by_the_process_limit(arena: Arena) -> None:
    line = _line(arena, "fork", "fork ")
    assert line.startswith("fork refused after"), line
    assert int(line.split()[3]) < 48


def test_memory_is_held_by_the_address_space_limit(arena: Arena) -> None:
    line = _line(arena, "memory", "memory ")
    assert line.startswith("memory refused after"), line
    assert int(line.split()[3]) < 384


def test_the_disk_is_a_small_private_tmp_and_the_package_is_read_only(arena: Arena) -> None:
    line = _line(arena, "disk", "disk refused")
    assert int(line.split()[3]) <= 4, line
    assert _line(arena, "disk", "disk cannot write its package").endswith("Read-only file system")


def test_a_flood_of_output_is_capped_and_said(arena: Arena) -> None:
    """The host reads at most 4 MiB a second of a bot's output (its writes wait past that: 100 MB would take about
    25 s, so here, with 4 s to connect, it is killed for not connecting while it floods); the end's detail is read
    while it is shown (the next start replaces it)."""
    ends: list[str] = []

    def ended() -> bool:
        detail = (arena.store.submissions.hosted("flood") or _Empty()).detail
        if "bytes of output" in detail:
            ends.append(detail)
        return bool(ends)

    wait_until(ended, timeout=90, what="the flood bot's end recorded")
    assert "(the last 65536 kept)" in ends[0], ends[0]
    written = int(ends[0].split(" bytes of output")[0].rsplit(" ", 1)[1])
    assert 65536 < written < 40 * 4 * 1024 * 1024  # this life's own bytes, at most 4 MiB a second
    assert len(arena.store.submissions.output("flood")) <= 64 * 1024


def test_a_bot_that_never_connects_is_killed_and_said(arena: Arena) -> None:
    # Its output keeps the host's note of each end (the hosted state's detail only until the next start).
    wait_until(lambda: "did not connect" in _output(arena, "never"), timeout=60,
               what="the never-connecting bot's kill recorded", details=lambda: _output(arena, "never")[-1500:])

    def listed() -> str:  # between a kill and the next start (the backoff), the listing says why it ended
        return arena.cli("bot", "submissions", "never", "--server", arena.address,
                         token=arena.tokens["never"]).stdout

    wait_until(lambda: "did not connect to the gateway within 4 s" in listed(), timeout=60,
               what="the listing saying why the never-connecting bot was killed", details=listed)


def test_the_good_bot_kept_playing_beside_them_all(arena: Arena) -> None:
    assert arena.store.sessions.online("good") or pytest.fail("run with the first test of the module")
    match = arena.cli("match", "--relay", "--seats", "good,heuristic", "--seed", "9", "--target-score", "50",
                      "--json", timeout=120)
    assert match.returncode == 0, match.stderr
    record = json.loads(match.stdout.splitlines()[-1])
    assert record["timeouts"][0] == 0 and not record["forfeits"]
    assert (arena.store.submissions.hosted("good") or _Empty()).restarts == 0


def test_a_submission_that_fails_the_check_is_rejected_and_says_why(arena: Arena) -> None:
    wait_until(lambda: arena.store.submissions.all("silent")[0].state is not SubmissionState.CHECKING, timeout=60,
               what="the host's verdict on the silent bot")
    listing = arena.cli("bot", "submissions", "silent", "--server", arena.address,
                        token=arena.tokens["silent"])
    assert "version 1 rejected" in listing.stdout, listing.stdout
    assert "FAIL connects" in listing.stdout and "never connects: sleeping" in listing.stdout, listing.stdout
    assert "hosted process" not in listing.stdout  # never run


def test_a_new_version_replaces_the_running_one_and_a_revoked_bot_stops(arena: Arena, tmp_path: Path) -> None:
    _line(arena, "tcp", "tcp refused")
    hostile.admit_directly(arena.store, "tcp", hostile.write_package(tmp_path / "tcp2", hostile.GOOD), ADMITTED)
    wait_until(lambda: (arena.store.submissions.hosted("tcp") or _Empty()).version == 2, timeout=30,
               what="version 2 of the tcp bot running")
    wait_until(lambda: "good bot starting" in _output(arena, "tcp"), timeout=30, what="version 2's output")
    wait_until(lambda: arena.store.bots.get("tcp").version == "submission-2", timeout=30,
               what="version 2's session: a new version on the ladders")
    assert [v.version for v in arena.store.bots.versions("tcp")] == ["submission-1", "submission-2"]
    arena.store.bots.revoke("memory")
    wait_until(lambda: (arena.store.submissions.hosted("memory") or _Empty()).state == "stopped", timeout=30,
               what="the revoked bot stopped")


def test_the_sandboxes_socket_serves_bot_streams_only(arena: Arena) -> None:
    """What a sandbox reaches (the gateway's Unix socket) has no organizer API, not even its public calls: nothing
    to read state back from, nothing that tells a check from a match."""
    for token in ("", arena.tokens["other"], ADMIN):
        with ArenaClient(f"unix:{arena.socket}", token) as client:
            with pytest.raises(grpc.RpcError) as refused:
                list(client.list_bots())
            assert refused.value.code() is grpc.StatusCode.UNIMPLEMENTED, refused.value
    with ArenaClient(arena.address, "") as client:
        assert list(client.list_bots())  # the TCP address serves it


def test_the_api_refuses_bad_archives_and_other_bots(arena: Arena, tmp_path: Path) -> None:
    with ArenaClient(arena.address, arena.tokens["other"]) as client:
        with pytest.raises(grpc.RpcError) as denied:
            client.submit_bot("good", b"whatever")
        assert denied.value.code() is grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.RpcError) as refused:
            client.submit_bot("other", b"not an archive at all")
        assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "submission refused: not an archive" in str(refused.value.details())
        with pytest.raises(grpc.RpcError) as large:
            client.submit_bot("other", b"\0" * (9 * 1024 * 1024))
        assert "more than the 8388608 bytes allowed" in str(large.value.details())
    assert arena.store.submissions.all("other") == []
    missing = arena.cli("bot", "submit", "other", str(tmp_path / "nowhere"), "--server", arena.address,
                        token=arena.tokens["other"])
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "no such folder" in missing.stderr


REMEMBERING = '''
import os, uuid
from bots.kit import play
sandbox = uuid.uuid4().hex[:12]
decisions = 0
def decide(observation, legal):
    global decisions
    decisions += 1
    if decisions == 1:
        print(f"first decision in sandbox {sandbox}", flush=True)
    return 0
play(decide, target=os.environ["UNO_ARENA_TARGET"])
'''


def test_a_competition_of_bots_without_memory_plays_each_match_in_a_fresh_sandbox(arena: Arena,
                                                                                  tmp_path: Path) -> None:
    """A competition that asks for bots without memory makes the host run its hosted entrant one match per
    sandbox: each match meets a new process (what it remembered is gone), its token is spent at the match's end,
    and the next match waits for the next sandbox instead of forfeiting."""
    from arena.service.competitions import create_competition
    from arena.tournament.competition import CompetitionSpec

    _, own_token = arena.store.bots.register("amnesiac")
    hostile.admit_directly(arena.store, "amnesiac", hostile.write_package(tmp_path / "amnesiac", REMEMBERING), ADMITTED)
    create_competition(arena.store, CompetitionSpec("no-memory", entrants=("amnesiac", "random"),
                                                    bots_without_memory=True))
    wait_until(lambda: "in a fresh sandbox" in _output(arena, "amnesiac"), timeout=30,
               what="the host running the entrant in a fresh sandbox")
    own = arena.cli("bot", "run", "random", "--target", f"unix:{arena.socket}", token=own_token, timeout=30)
    assert own.returncode != 0 and "only the bot host's fresh sandboxes connect it" in own.stderr, own.stderr
    sandboxes = []
    for seed in (3, 4):
        match = arena.cli("match", "--relay", "--seats", "amnesiac,random", "--seed", str(seed), "--target-score",
                          "30", "--json", timeout=120)
        assert match.returncode == 0, match.stderr
        record = json.loads(match.stdout.splitlines()[-1])
        assert record["end_reason"] != "aborted" and record["timeouts"][0] == 0 and not record["forfeits"]
        wait_until(lambda: len(_firsts(arena)) > len(sandboxes), timeout=20, what="the match's sandbox's output",
                   details=lambda: _output(arena, "amnesiac")[-1500:])
        assert len(_firsts(arena)) == len(sandboxes) + 1  # one new process per match
        sandboxes.append(_firsts(arena)[-1])
    assert len(set(sandboxes)) == 2
    wait_until(lambda: _output(arena, "amnesiac").count("it played its one match") >= 2, timeout=30,
               what="the second sandbox ended after its match")
    hosted = arena.store.submissions.hosted("amnesiac")
    assert hosted is not None and hosted.restarts == 0  # a played match is no crash: no backoff
    sessions = arena.store.sessions.for_bot("amnesiac")
    assert all(session.fresh_sandbox and session.capacity == 1 for session in sessions)


def _firsts(arena: Arena) -> list[str]:
    return [line for line in _output(arena, "amnesiac").splitlines() if line.startswith("first decision")]


class _Empty:
    detail = ""
    restarts = 0
    version = 0
    state = ""
