"""The attackers of ``bench abuse --hosted`` (:mod:`benchmarks.hosted_abuse`), three kinds, each started against a
running arena (:class:`ArenaParts`) and finished with what the arena recorded of it:

- :class:`HostedAttacker`: a hostile bot (:data:`benchmarks.hostile_bots.BENCH_ATTACKS`) stored as an admitted
  submission of a bot of its own (it would not pass the check: the host is to run it all the same) and run by the
  host; finished by revoking it and waiting until the host stopped it.
- :class:`CheckedAttacker`: :data:`benchmarks.hostile_bots.CHECK_DODGER` submitted through the organizer API with
  its author's token, as ``bot submit`` does: the host checks it (and runs it if admitted).
- :class:`OutsideBomber`: a client process (:mod:`benchmarks.bomb_client`) submitting an archive bomb through the
  organizer API's TCP port from :data:`BOMBERS` bots at once, from an address of its own (``::1``, the bench's own
  calls come from ``127.0.0.1``), at ``nice 10`` (a real attacker is on another machine).

``finish`` returns the row's last column: short labelled strings, read by a person.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.hosting.check import CHECK_SLACK_S, CHECK_TIME_CAP_S, CHECK_WAIT_S
from arena.hosting.process import HOST_NOTE, OutputTail
from arena.processes import Processes, wait_until
from arena.store import Store
from arena.store.submission_store import SubmissionState
from benchmarks import hostile_bots
from benchmarks.bomb_client import BombStats
from benchmarks.bombs import BombFormat, bomb
from benchmarks.procfs import reaped_children_cpu

START_TIMEOUT_S = 60.0
VERDICT_TIMEOUT_S = CHECK_WAIT_S + CHECK_TIME_CAP_S + CHECK_SLACK_S + 10.0
"""The longest the host may take to give a checked submission its verdict (its check's whole time, and a poll)."""
BOMBERS = 6
"""Bots the outside attacker submits as at once (issue 35: six bombs at once filled the gateway's thread pool)."""
BOMB_ENTRIES = 200_000
"""Folder entries of each bomb (as many as fit the archive size cap for a tar and a zip)."""
BOMB_FORMATS = {"bomb-tar": BombFormat.TAR, "bomb-tar.gz": BombFormat.TAR_GZ, "bomb-zip": BombFormat.ZIP}
CHECKED = ("outside-check",)


@dataclass(frozen=True)
class ArenaParts:
    """What an attacker needs of the running arena."""

    store: Store
    processes: Processes
    work: Path
    port: int
    """The gateway's TCP port, on every address of the machine (``[::]``)."""
    redis_port: int
    admin_token_file: Path
    good: str
    """The well-behaved bot's name."""
    gateway_pid: int

    @property
    def own_address(self) -> str:
        """Where the bench makes its own calls (its authors' submissions)."""
        return f"127.0.0.1:{self.port}"

    @property
    def outside_address(self) -> str:
        """Where the outside attacker calls from and to: another address than the bench's own (the per-address
        submission limit is the attacker's alone, as it would be from another machine)."""
        return f"[::1]:{self.port}"


def _unique(attack: str, round_no: int) -> str:
    return f"{attack.replace('.', '')}-{round_no}-{uuid.uuid4().hex[:4]}"


def _host_figures(store: Store, name: str, says: str) -> dict[str, str]:
    """What the host recorded of ``name``: its process's state (as ``bot submissions`` shows it), how its last
    process ended (the host's own line in ``bot output``), its newest version's state and reason when the host
    changed it, and what the bot said of its attack (its last line starting with ``says``, else its last line)."""
    hosted = store.submissions.hosted(name)
    output = store.submissions.output(name)
    tail = OutputTail()
    tail.add(output)
    lines = output.decode("utf-8", "replace").splitlines()
    said = [line for line in lines if line.startswith(says)]
    ends = [line.removeprefix(HOST_NOTE) for line in lines
            if line.startswith(HOST_NOTE) and not line.startswith(f"{HOST_NOTE}starting")]
    figures = {"host": "nothing" if hosted is None else f"{hosted.state}, {hosted.restarts} restarts"}
    if hosted is not None and hosted.detail:
        figures["detail"] = hosted.detail[:300]
    elif ends:
        figures["last end"] = ends[-1][:300]
    versions = store.submissions.all(name)
    if versions and versions[-1].state is SubmissionState.STOPPED:
        figures["version"] = f"stopped: {versions[-1].reason[:200]}"
    figures["said"] = said[-1][:200] if said else tail.last_line()
    return figures


def _attack_shown(store: Store, name: str, says: str) -> bool:
    """Whether ``name`` said what its attack got (a line starting with ``says`` in its output) or its process ended."""
    if any(line.startswith(says) for line in store.submissions.output(name).decode("utf-8", "replace").splitlines()):
        return True
    return not _running(store, name)


def _stopped(store: Store, name: str) -> bool:
    hosted = store.submissions.hosted(name)
    return hosted is None or hosted.state == "stopped"


class HostedAttacker:
    """A hostile bot the host runs (see the module docstring)."""

    def __init__(self, arena: ArenaParts, attack: str, round_no: int) -> None:
        self.arena = arena
        self.attack = attack
        self.name = _unique(attack, round_no)
        store = arena.store
        store.bots.register(self.name)
        params = {"addresses": [["127.0.0.1", arena.redis_port], ["127.0.0.1", arena.port], ["1.1.1.1", 53]],
                  "paths": [str(arena.admin_token_file), str(arena.work / "bots" / arena.good / "bot.py"),
                            str(arena.work / "host" / "packages"), str(arena.work / "host" / "specs")]}
        files = ({hostile_bots.BOMB_FILE: bomb(BombFormat.TAR_GZ, BOMB_ENTRIES).data}
                 if attack == "bomb-inside" else None)
        folder = hostile_bots.write_package(arena.work / "bots" / self.name, hostile_bots.BENCH_ATTACKS[attack],
                                            params, files)
        hostile_bots.admit_directly(store, self.name, folder, "admitted by the bench (it would fail the check)")
        wait_until(lambda: store.submissions.hosted(self.name) is not None, f"the host starting {self.name}",
                   arena.processes, START_TIMEOUT_S)

    def finish(self) -> dict[str, str]:
        """What the host recorded, once the attack shows (the bot said what it got, or its process ended; at most
        :data:`START_TIMEOUT_S`: a slow start on a loaded machine is not a figure); then the bot is revoked and the
        host has stopped it."""
        says = hostile_bots.SAYS[self.attack]
        with contextlib.suppress(RuntimeError):
            wait_until(lambda: _attack_shown(self.arena.store, self.name, says), f"{self.name}'s attack",
                       self.arena.processes, START_TIMEOUT_S)
        figures = _host_figures(self.arena.store, self.name, says)
        self.arena.store.bots.revoke(self.name)
        wait_until(lambda: _stopped(self.arena.store, self.name), f"the host stopping {self.name}",
                   self.arena.processes, START_TIMEOUT_S)
        return figures


class CheckedAttacker:
    """A bot submitted for the check by its author (see the module docstring)."""

    def __init__(self, arena: ArenaParts, attack: str, round_no: int) -> None:
        from arena.client import ArenaClient
        from arena.submissions import pack_folder

        self.arena = arena
        self.attack = attack
        self.name = _unique(attack, round_no)
        token = arena.store.bots.register(self.name)[1]
        folder = hostile_bots.write_package(arena.work / "bots" / self.name, hostile_bots.CHECK_DODGER)
        with ArenaClient(arena.own_address, token) as client:
            client.submit_bot(self.name, pack_folder(folder))

    def finish(self) -> dict[str, str]:
        """The verdict (waited for) and, when it was admitted, what the host recorded of the process it ran; then
        the bot is revoked and whatever runs of it stopped."""
        store = self.arena.store
        wait_until(lambda: store.submissions.all(self.name)[-1].state is not SubmissionState.CHECKING,
                   f"the host's verdict on {self.name}", self.arena.processes, VERDICT_TIMEOUT_S)
        submission = store.submissions.all(self.name)[-1]
        reason = submission.reason.splitlines()
        said = [line.strip(" |") for line in reason if hostile_bots.SAYS[self.attack] in line]
        figures = {"verdict": f"{submission.state.value}: {reason[0][:200] if reason else ''}"}
        failed = [line.strip() for line in reason[1:] if line.lstrip().startswith("FAIL") or "SIGSYS" in line]
        if failed:
            figures["failed"] = failed[0][:200]
        if submission.state is SubmissionState.ADMITTED:  # the check was fooled: is the live process stopped?
            try:
                wait_until(lambda: not _running(store, self.name), f"the host stopping {self.name}",
                           self.arena.processes, START_TIMEOUT_S)
            except RuntimeError:
                figures["still running"] = f"after {START_TIMEOUT_S:g} s"
            figures.update(_host_figures(store, self.name, hostile_bots.SAYS[self.attack]))
        else:
            figures["said"] = said[-1][:200] if said else (reason[-1][:200] if reason else "")
        store.bots.revoke(self.name)
        wait_until(lambda: _stopped(store, self.name), f"the host stopping {self.name}", self.arena.processes,
                   START_TIMEOUT_S)
        return figures


def _running(store: Store, name: str) -> bool:
    """Whether the host still runs ``name`` as it should (an admitted dodger is to be stopped soon after start)."""
    hosted = store.submissions.hosted(name)
    return hosted is None or hosted.state in ("starting", "running")


class OutsideBomber:
    """Archive bombs through the organizer API from a client process (see the module docstring)."""

    def __init__(self, arena: ArenaParts, attack: str, round_no: int) -> None:
        self.arena = arena
        names = [f"{_unique(attack, round_no)}-{i}" for i in range(BOMBERS)]
        self.bots = [(name, arena.store.bots.register(name)[1]) for name in names]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.bomb_client", BOMB_FORMATS[attack].value, str(BOMB_ENTRIES),
             arena.outside_address, "--nice", "10"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write((json.dumps(self.bots) + "\n").encode())
        self.process.stdin.flush()
        ready = self.process.stdout.readline()
        if ready.strip() != b"ready":
            self.process.kill()
            raise RuntimeError(f"the bomb client did not start: {ready[:200]!r}")
        self.intake_cpu0 = reaped_children_cpu(arena.gateway_pid)

    def finish(self) -> dict[str, str]:
        """What the attacker got back, and what the arena stored of its bots (nothing, if it holds)."""
        out, _ = self.process.communicate(b"", timeout=120)
        intake_cpu = reaped_children_cpu(self.arena.gateway_pid) - self.intake_cpu0
        stats = BombStats(**json.loads(out.decode().strip().splitlines()[-1]))
        stored = sum(len(self.arena.store.submissions.all(name)) for name, _ in self.bots)
        figures = {"sent": f"{stats.sent} of a {stats.bomb} from {len(self.bots)} bots",
                   "answers": _codes(stats.codes), "slowest answer": f"{stats.slowest_s:.2f} s",
                   "CPU": f"the client {stats.cpu_s:.1f} s, the gateway's checks {intake_cpu:.1f} s",
                   "stored": f"{stored} versions"}
        figures.update({f"first {code}": detail[:160] for code, detail in stats.first_detail.items() if code != "OK"})
        return figures


def _codes(codes: Mapping[str, int]) -> str:
    return ", ".join(f"{code} {count}" for code, count in sorted(codes.items(), key=lambda item: -item[1]))


Attacker = HostedAttacker | CheckedAttacker | OutsideBomber


def start_attacker(arena: ArenaParts, attack: str, round_no: int) -> Attacker:
    """Start ``attack`` against ``arena`` (blocking: until the host runs it, it is submitted, or the bombs are
    built and the client is about to send them)."""
    if attack in BOMB_FORMATS:
        return OutsideBomber(arena, attack, round_no)
    if attack in CHECKED:
        return CheckedAttacker(arena, attack, round_no)
    return HostedAttacker(arena, attack, round_no)
