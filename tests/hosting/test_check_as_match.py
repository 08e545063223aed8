"""The admission check is a match, from outside: real Redis, a real `uno-arena serve` on a Unix socket, a real
`uno-arena host` with bubblewrap, each its own process.

- A bot that reads everything it can see at its start (its environment, its token's shape, its Welcome) sees the
  same in its check as in its live process: the two digests are equal.
- A check writes nothing into the live arena: no ``check-`` bot, no incident, the bot's record as it was.
- A bot that plays legally in its check and then makes a system call the sandbox forbids in a live match (a
  sleeper: it attacks after a quiet spell, which a check never has) is stopped, its version marked ``stopped``
  with the reason, and not started again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.hosting.sandbox import sandbox_missing
from arena.store import Store
from arena.store.submission_store import Submission, SubmissionState
from benchmarks import hostile_bots as hostile
from tests.support.hosted_arena import HostedArena, hosted_arena
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

ADMIN = "admin-token-for-the-check-tests"
HOST_OPTIONS = ["--cpu-seconds", "120", "--memory-mib", "768", "--processes", "64", "--tmp-mib", "8",
                "--connect-timeout", "20", "--check-wait", "20", "--check-time-cap", "120", "--poll", "0.5"]

DIGEST = '''
import hashlib, json, os, re, sys, threading
import grpc
from arena.protocol import AUTH_METADATA_KEY, AUTH_SCHEME, PROTOCOL_VERSION, bot_pb2
from bots.kit import CONNECT_METHOD

def shape(text):
    return re.sub(r"[g-zA-Z_-]", "a", re.sub(r"[0-9a-f]", "x", text))

target = os.environ["UNO_ARENA_TARGET"]
token = os.environ.get("UNO_ARENA_BOT_TOKEN", "")
name, _, secret = token.partition(".")
seen = {"env": {k: (f"{name}.<{len(secret)} characters>" if v == token else v) for k, v in os.environ.items()},
        "cwd": os.getcwd(), "argv": sys.argv, "hostname": os.uname().nodename}
with grpc.insecure_channel(target) as channel:
    connect = channel.stream_stream(CONNECT_METHOD, request_serializer=bot_pb2.BotMessage.SerializeToString,
                                    response_deserializer=bot_pb2.ArenaMessage.FromString)
    done = threading.Event()
    def hello():
        yield bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=PROTOCOL_VERSION, bot_version="digest",
                                                     max_concurrent_matches=4))
        done.wait(10)
    call = connect(hello(), metadata=((AUTH_METADATA_KEY, f"{AUTH_SCHEME} {token}"),))
    welcome = next(iter(call)).welcome
    done.set()
    call.cancel()
seen["welcome"] = {"bot_name": welcome.bot_name, "bot_id": welcome.bot_id, "session_id": shape(welcome.session_id),
                   "heartbeat_interval_ms": welcome.heartbeat_interval_ms, "batches": welcome.batches,
                   "max_concurrent_matches": welcome.max_concurrent_matches,
                   "protocol_version": str(welcome.protocol_version).replace(chr(10), " ")}
print("seen " + json.dumps(seen, sort_keys=True), flush=True)
print("digest " + hashlib.sha256(json.dumps(seen, sort_keys=True).encode()).hexdigest(), flush=True)
raise SystemExit(3)
'''

PAUSE_S = 12
"""The breaker attacks at the first decision after a pause this long: a check's matches come one after the other."""

KEYCTL_AFTER_A_PAUSE = '''
import ctypes, os, time
from bots.kit import play

last = time.monotonic()
QUIET_S = PAUSE_S_MINUS_2

def choose(observation, legal):
    # A sleeper: it plays well while matches come one after another (as a check's do) and attacks once the
    # arena has been quiet for a while (as between a live arena's matches).
    global last
    now = time.monotonic()
    if now - last > QUIET_S:
        print("calling keyctl", flush=True)
        ctypes.CDLL(None, use_errno=True).syscall(250, 0, 0, 0, 0, 0)  # keyctl (x86_64)
        print("keyctl returned", flush=True)
    last = now
    return 0

play(choose, target=os.environ["UNO_ARENA_TARGET"])
'''.replace("PAUSE_S_MINUS_2", str(PAUSE_S - 2))


class Arena(HostedArena):
    """The hosted arena with this file's reading helpers."""

    def submit(self, name: str, folder: Path) -> None:
        done = self.cli("bot", "submit", name, str(folder), "--server", self.address, token=self.tokens[name])
        assert done.returncode == 0, done.stderr

    def verdict(self, name: str, version: int, timeout: float = 200.0) -> SubmissionState:
        def given() -> bool:
            return self.submission(name, version).state is not SubmissionState.CHECKING

        wait_until(given, timeout=timeout, what=f"the host's verdict on {name} version {version}")
        return self.submission(name, version).state

    def submission(self, name: str, version: int) -> Submission:
        found = self.store.submissions.get(name, version)
        assert found is not None, f"{name} has no version {version}"
        return found

    def output(self, name: str) -> str:
        return self.store.submissions.output(name).decode("utf-8", "replace")


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    missing = sandbox_missing()
    if missing:
        pytest.skip(f"the bot host's sandbox (bwrap): {missing}")

    def register(store: Store) -> dict[str, str]:
        return {name: store.bots.register(name, owner=f"author-of-{name}")[1]
                for name in ("digest", "clean", "breaker")}

    with hosted_arena(tmp_path_factory.mktemp("checkhost"), ADMIN, HOST_OPTIONS, register) as made:
        yield Arena(**vars(made))


def _seen(text: str) -> tuple[str, str]:
    """The digest line and the JSON of what the bot saw, from its output or a verdict's reason."""
    lines = [line.strip().removeprefix("| ").strip() for line in text.splitlines()]
    digest = next(line for line in lines if line.startswith("digest "))
    seen = next(line for line in lines if line.startswith("seen "))
    return digest, seen


def test_a_bot_sees_the_same_in_its_check_as_in_a_live_match(arena: Arena, tmp_path: Path) -> None:
    """Version 1 prints what it sees and exits: its check fails, the reason shows its lines. The same package,
    admitted as version 2, runs live and prints what it sees there. Name, environment, token shape and Welcome:
    all equal."""
    folder = hostile.write_package(tmp_path / "digest", DIGEST)
    arena.submit("digest", folder)
    assert arena.verdict("digest", 1) is SubmissionState.REJECTED
    reason = arena.submission("digest", 1).reason
    in_check = _seen(reason)
    assert str(arena.work_dir) not in reason and "uno-host-" not in reason  # no path of the host's
    hostile.admit_directly(arena.store, "digest", folder, "admitted by the test: the same code, live")
    wait_until(lambda: "digest " in arena.output("digest"), timeout=60, what="the live process's digest",
               details=lambda: arena.output("digest")[-1500:])
    live = _seen(arena.output("digest"))
    seen = json.loads(live[1].removeprefix("seen "))
    assert seen["welcome"]["bot_name"] == "digest"
    assert seen["env"]["UNO_ARENA_BOT_TOKEN"].startswith("digest.<")
    assert in_check[1] == live[1]
    assert in_check[0] == live[0]


def test_a_check_leaves_nothing_in_the_live_store(arena: Arena, tmp_path: Path) -> None:
    before = arena.store.bots.get("clean")
    arena.submit("clean", hostile.write_package(tmp_path / "clean", hostile.GOOD))
    state = arena.verdict("clean", 1)
    reason = arena.submission("clean", 1).reason
    assert state is SubmissionState.ADMITTED, reason
    assert "7 of 7 checks passed" in reason and "a check may take 120 s" in reason
    assert not [b.name for b in arena.store.bots.all() if b.name.startswith("check-")]
    assert arena.store.incidents.recent("clean") == []  # the reconnect check's drop was the check's store's
    after = arena.store.bots.get("clean")
    assert not after.deleted and after.owner == before.owner
    listing = arena.cli("bot", "submissions", "clean", "--server", arena.address,
                        token=arena.tokens["clean"])
    assert "version 1 admitted" in listing.stdout, listing.stdout


def test_a_bot_that_breaks_the_sandbox_after_its_check_is_stopped_and_marked(arena: Arena, tmp_path: Path) -> None:
    arena.submit("breaker", hostile.write_package(tmp_path / "breaker", KEYCTL_AFTER_A_PAUSE))
    state = arena.verdict("breaker", 1)
    assert state is SubmissionState.ADMITTED, arena.submission("breaker", 1).reason
    wait_until(lambda: arena.store.sessions.online("breaker"), timeout=60, what="the breaker's live process")
    time.sleep(PAUSE_S)  # the quiet the sleeper waits for: its next decision is its attack
    match = arena.cli("match", "--relay", "--seats", "breaker,random", "--seed", "3", "--target-score", "30",
                      "--json", timeout=180)
    assert match.returncode == 0, match.stderr
    wait_until(lambda: arena.submission("breaker", 1).state is SubmissionState.STOPPED, timeout=60,
               what="version 1 marked stopped", details=lambda: arena.output("breaker")[-1500:])
    stopped = arena.submission("breaker", 1)
    assert "system call the sandbox forbids (SIGSYS)" in stopped.reason and "submit a new version" in stopped.reason
    assert "calling keyctl" in arena.output("breaker") and "keyctl returned" not in arena.output("breaker")
    listing = arena.cli("bot", "submissions", "breaker", "--server", arena.address,
                        token=arena.tokens["breaker"]).stdout
    assert "version 1 stopped" in listing and "SIGSYS" in listing, listing
    wait_until(lambda: (arena.store.submissions.hosted("breaker") or _Never()).state == "stopped", timeout=30,
               what="the breaker's process stopped")
    starts = arena.output("breaker").count("starting version 1")
    wait_until(lambda: not arena.store.sessions.online("breaker"), timeout=30, what="the breaker offline")
    assert arena.output("breaker").count("starting version 1") == starts  # not started again


class _Never:
    state = ""
