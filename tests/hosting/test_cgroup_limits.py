"""A bot's cgroup on this machine, for real: the launcher (`python -m arena.hosting.launch`) joins the group its spec
names, so a sandboxed bot that spins several processes is throttled to its CPU cap, and a bot whose processes
together allocate past its memory is ended by the group's OOM killer, which its author is told. Needs root, a
writable cgroup hierarchy (v1 or v2) and bwrap: skips naming what is missing."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.hosting.cgroups import Cgroup, CgroupManager, CgroupMode, detect, oom_kills, read_keyed
from arena.hosting.process import OutputTail, SandboxedProcess
from arena.hosting.sandbox import TOKEN_ENV, Limits, SandboxSpec, sandbox_missing
from arena.submissions import Runtime

pytestmark = pytest.mark.integration

MIB = 1024 * 1024
SPIN_S = 2.0
CPUS = 0.2
LIMITS = Limits(bot_cpus=CPUS, bot_memory_bytes=96 * MIB, processes=32)

# Four processes spinning: the parent counts their CPU time and its own (the kernel's counts, through wait4).
SPIN = f'''
import os, time
started = time.monotonic()
children = [pid for pid in (os.fork() for _ in range(3)) if pid]
end = time.monotonic() + {SPIN_S}
while time.monotonic() < end:
    pass
if len(children) == 3:
    cpu = time.process_time()
    for pid in children:
        usage = os.wait4(pid, 0)[2]
        cpu += usage.ru_utime + usage.ru_stime
    print(f"spun {{cpu:.3f}} s of CPU in {{time.monotonic() - started:.3f}} s", flush=True)
else:
    os._exit(0)
'''

# Four processes of 64 MiB each: RLIMIT_AS (1 GiB a process) would let every one of them be.
BOMB = '''
import os, time
children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        blocks = [b"\\x01" * (4 << 20) for _ in range(16)]
        time.sleep(1)
        os._exit(0)
    children.append(pid)
ends = [os.waitpid(pid, 0)[1] for pid in children]
print("bomb children ended", ends, flush=True)
raise SystemExit(1 if any(os.WIFSIGNALED(status) for status in ends) else 0)
'''


def throttling(group: Cgroup) -> tuple[int, float]:
    """The quota periods ``group`` was held back in, and for how many seconds (``cpu.stat``, v1 or v2)."""
    stat = read_keyed(Path(group.cpu) / "cpu.stat")
    v2 = group.mode is CgroupMode.V2
    seconds = stat.get("throttled_usec", 0) / 1e6 if v2 else stat.get("throttled_time", 0) / 1e9
    return stat.get("nr_throttled", 0), seconds


@dataclass
class Bed:
    manager: CgroupManager
    tmp: Path
    socket: str

    def spec_file(self, name: str, code: str, group: Cgroup) -> str:
        package = self.tmp / name
        package.mkdir()
        (package / "bot.py").write_text(code)
        package.chmod(0o755)
        spec = SandboxSpec(str(package), Runtime.PYTHON_KIT, ("python", "bot.py"), self.socket,
                           200_998, LIMITS, group.folders)
        path = self.tmp / f"{name}.json"
        path.write_text(json.dumps(spec.to_json()))
        return str(path)


@pytest.fixture
def bed(tmp_path: Path) -> Iterator[Bed]:
    if os.geteuid() != 0:
        pytest.skip("per-bot cgroups: the test needs root (the bot host's usual user in its container)")
    missing = sandbox_missing()
    if missing:
        pytest.skip(f"the bot host's sandbox: {missing}")
    manager = CgroupManager(detect(), LIMITS, tag=f"uno-arena-test-{os.getpid()}")
    support = manager.setup()
    if support.mode is CgroupMode.NONE:
        pytest.skip(f"per-bot cgroups: {support.reason}")
    gateway = socket.socket(socket.AF_UNIX)
    gateway.bind(str(tmp_path / "gw.sock"))
    try:
        yield Bed(manager, tmp_path, str(tmp_path / "gw.sock"))
    finally:
        gateway.close()
        manager.close()
    assert not [f for f in os.listdir(support.cpu) if f.startswith(manager.tag)], "every group removed"


def test_a_bot_spinning_several_processes_is_held_to_its_cpu_cap(bed: Bed) -> None:
    group = bed.manager.create("spinner")
    assert group is not None
    spec = bed.spec_file("spin", SPIN, group)
    done = subprocess.run([sys.executable, "-m", "arena.hosting.launch", spec], env={TOKEN_ENV: "t"},
                          capture_output=True, text=True, timeout=60)
    throttled, throttled_s = throttling(group)
    assert bed.manager.remove(group)
    assert done.returncode == 0 and "spun" in done.stdout, done.stdout + done.stderr
    cpu, wall = (float(word) for word in done.stdout.split() if word[0].isdigit())
    print(f"spinner: {cpu:.2f} s of CPU in {wall:.2f} s, cap {CPUS} CPU; throttled {throttled} times")
    assert throttled > 0 and throttled_s > 0, (throttled, throttled_s)
    assert cpu <= CPUS * wall * 1.5 + 0.2, f"{cpu:.2f} s of CPU in {wall:.2f} s under a cap of {CPUS} CPU"


def test_a_forking_memory_bomb_ends_by_the_groups_oom_killer_and_is_told(bed: Bed) -> None:
    group = bed.manager.create("bomb")
    assert group is not None
    spec = bed.spec_file("bomb", BOMB, group)
    output = OutputTail()

    async def connected() -> bool:
        return True

    async def run_once() -> str:
        process = SandboxedProcess(spec, "t", LIMITS, output, connected, group)
        return (await process.run_once(asyncio.Event())).detail

    detail = asyncio.run(run_once())
    kills = oom_kills(group)
    assert bed.manager.remove(group)
    print(f"bomb: {kills} OOM kills; {detail}")
    assert kills >= 1, bytes(output.data).decode()
    assert detail.startswith("killed: memory limit of the bot (96 MiB, all its processes together) reached"), detail


def test_a_host_that_is_not_root_has_no_groups_and_says_why() -> None:
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv (util-linux) to run the detection as another uid")
    code = "from arena.hosting.cgroups import detect; print(detect().describe())"
    done = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith("no cgroups: ") and line.endswith("; limits are per process only"), line
    if detect().mode is not CgroupMode.NONE:
        assert "not writable by uid 65534" in line, line
