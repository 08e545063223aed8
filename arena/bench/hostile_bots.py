"""Submissions for the bot host's tests and ``bench abuse --hosted``: a well-behaved kit bot and hostile ones.

Each hostile one writes what it tried and what it got (a line starting with its name) and then, unless it is meant
to end, plays like the good one, so the host's own kills are the ones meant. ``params.json`` in the package: what
to try (the addresses to connect to, the paths to read). The code is the submission's ``bot.py``, run by the
``python3.11-kit`` runtime in the sandbox (:data:`MANIFEST`).

:data:`HOSTILE`: each attack once, then play (the tests read what each said). :data:`BENCH_ATTACKS`: what the
benchmark runs beside a well-behaved hosted bot, the one-off attacks made :func:`sustained` (again and again
while the bot plays) so that they last the measured window."""

from __future__ import annotations

import json
from pathlib import Path

from arena.store import Store
from arena.store.submissions import SubmissionState
from arena.submissions import pack_folder, read_package

PLAY = '''
import os
from bots.kit import play
play(lambda observation, legal: 0, target=os.environ["UNO_ARENA_TARGET"])
'''

MANIFEST = 'runtime = "python3.11-kit"\ncommand = ["python", "bot.py"]\n'

GOOD = "print('good bot starting', flush=True)\n" + PLAY

TCP_ATTEMPT = '''
import json, socket
params = json.load(open("params.json"))
for host, port in params["addresses"]:
    try:
        socket.create_connection((host, port), timeout=2).close()
        print(f"tcp connected to {host}:{port}", flush=True)
    except OSError as error:
        print(f"tcp refused {host}:{port}: {error}", flush=True)
'''
TCP = TCP_ATTEMPT + PLAY

SNOOP_ATTEMPT = '''
import json, os
params = json.load(open("params.json"))
found = []
for path in params["paths"] + ["/proc/1/environ", "/etc/passwd", "/etc/shadow"]:
    try:
        with open(path, "rb") as f:
            f.read(16)
        found.append(path)
    except OSError as error:
        print(f"snoop cannot read {path}: {error.strerror}", flush=True)
others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) > 2 and not os.path.exists(f"/proc/{p}/task/{p}")]
print(f"snoop processes seen: {sorted(int(p) for p in os.listdir('/proc') if p.isdigit())}", flush=True)
print(f"snoop environment: {sorted(os.environ)}", flush=True)
print(f"snoop found {found}", flush=True)
'''
SNOOP = SNOOP_ATTEMPT + PLAY

FORK_ATTEMPT = '''
import os, time
children = 0
try:
    while children < 10000:
        if os.fork() == 0:
            time.sleep(20)
            os._exit(0)
        children += 1
    print(f"fork never refused: {children} children", flush=True)
except OSError as error:
    print(f"fork refused after {children} children: {error.strerror}", flush=True)
'''
FORK = FORK_ATTEMPT + PLAY

MEMORY_ATTEMPT = '''
blocks = []
try:
    while len(blocks) < 10000:
        blocks.append(b"\\x01" * (8 * 1024 * 1024))
    print("memory never refused", flush=True)
except MemoryError:
    print(f"memory refused after {len(blocks) * 8} MiB", flush=True)
blocks.clear()
'''
MEMORY = MEMORY_ATTEMPT + PLAY

DISK_ATTEMPT = '''
written = 0
try:
    with open("/tmp/fill", "wb") as f:
        while written < 1 << 30:
            f.write(b"\\0" * (1 << 20))
            f.flush()
            written += 1 << 20
    print("disk never refused", flush=True)
except OSError as error:
    print(f"disk refused after {written >> 20} MiB in /tmp: {error.strerror}", flush=True)
try:
    open("/bot/new-file", "wb").write(b"x")
    print("disk wrote its own package", flush=True)
except OSError as error:
    print(f"disk cannot write its package: {error.strerror}", flush=True)
import os
os.remove("/tmp/fill")
'''
DISK = DISK_ATTEMPT + PLAY

FLOOD = '''
import sys
chunk = b"flood " * (1 << 17)
for _ in range(100 * (1 << 20) // len(chunk)):
    sys.stdout.buffer.write(chunk)
sys.stdout.buffer.write(b"\\nflood done\\n")
sys.stdout.flush()
'''

NEVER = '''
import time
print("never connects: sleeping", flush=True)
time.sleep(3600)
'''

SPIN = '''
import os
busy = 4 * (os.cpu_count() or 1)
for _ in range(busy):
    if os.fork() == 0:
        while True:
            pass
print(f"spin started {busy} busy-looping processes", flush=True)
''' + PLAY

HOSTILE = {"tcp": TCP, "snoop": SNOOP, "fork": FORK, "memory": MEMORY, "disk": DISK, "flood": FLOOD, "never": NEVER}
"""The tests' hostile bots by name (the spinning one is left out: it would take the test machine's cores)."""


def sustained(attack: str) -> str:
    """A bot that runs the code ``attack`` again and again (every 0.1 s, in a thread of its own) while it plays."""
    return f'''
import threading, time
ATTACK = {attack!r}
def attack():
    while True:
        try:
            exec(ATTACK, {{"__name__": "attack"}})
        except Exception as error:
            print(f"attack failed: {{error!r}}", flush=True)
        time.sleep(0.1)
threading.Thread(target=attack, daemon=True).start()
''' + PLAY


BENCH_ATTACKS = {"tcp": sustained(TCP_ATTEMPT), "snoop": sustained(SNOOP_ATTEMPT),
                 "fork-bomb": sustained(FORK_ATTEMPT), "memory-bomb": sustained(MEMORY_ATTEMPT),
                 "disk-fill": sustained(DISK_ATTEMPT), "spin": SPIN, "stdout-flood": FLOOD, "never-connect": NEVER}
"""``bench abuse --hosted``'s hostile bots by attack, in the order they run."""
SAYS = {"tcp": "tcp ", "snoop": "snoop found", "fork-bomb": "fork ", "memory-bomb": "memory ",
        "disk-fill": "disk refused", "spin": "spin ", "stdout-flood": "flood done", "never-connect": "never connects"}
"""How the line that says what each of :data:`BENCH_ATTACKS` tried and got starts."""


def write_package(folder: Path, code: str, params: dict[str, object] | None = None) -> Path:
    """A submission's folder: the manifest, ``code`` as ``bot.py`` and ``params`` as ``params.json``."""
    folder.mkdir(parents=True)
    (folder / "uno-bot.toml").write_text(MANIFEST)
    (folder / "bot.py").write_text(code)
    if params is not None:
        (folder / "params.json").write_text(json.dumps(params))
    return folder


def admit_directly(store: Store, name: str, folder: Path, reason: str) -> int:
    """Store ``folder`` as ``name``'s next version, admitted without the sandbox's check (a hostile bot would fail
    it: the host is to run it all the same); the version."""
    package = read_package(pack_folder(folder))
    stored = store.submissions.add(name, package.sha256, package.archive, package.manifest.runtime.value,
                                   package.manifest.command)
    store.submissions.set_verdict(name, stored.version, SubmissionState.ADMITTED, reason)
    return stored.version
