"""Submissions for the bot host's tests and ``bench abuse --hosted``: a well-behaved kit bot and hostile ones.

Each hostile one writes what it tried and what it got (a line starting with its name) and then, unless it is meant
to end, plays like the good one, so the host's own kills are the ones meant. ``params.json`` in the package: what
to try (the addresses to connect to, the paths to read). The code is the submission's ``bot.py``, run by the
``python3.11-kit`` runtime in the sandbox (:data:`MANIFEST`).

:data:`HOSTILE`: each attack once, then play (the tests read what each said). :data:`BENCH_ATTACKS`: what the
benchmark runs beside a well-behaved hosted bot, the one-off attacks made :func:`sustained` (again and again
while the bot plays) so that they last the measured window; :data:`CHECK_DODGER`: the bot the benchmark submits
for the check, which behaves only while it believes it is checked.

The attacks of issue 35 (a bot without memory keeping a counter; a hosted bot using its host token against the
organizer API; kernel objects nobody is charged for) are among them: :data:`KEYRING_ATTEMPT` (``add_key`` and
``keyctl`` through ``ctypes``), :data:`API_TAIL_ATTEMPT` (its own output, incident log and submissions read back
with its token), :data:`INODE_ATTEMPT` (empty files in ``/tmp`` until refused) and :data:`BOMB_INSIDE_ATTEMPT` (an
archive bomb, shipped in its package as :data:`BOMB_FILE`, submitted with its token)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from arena.store import Store
from arena.store.submission_store import SubmissionState
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


KEYRING_ATTEMPT = '''
import ctypes, platform
add_key, keyctl = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)
USER_KEYRING, SEARCH, READ = ctypes.c_long(-4), ctypes.c_long(10), ctypes.c_long(11)
print("keyring: looking for the counter (keyctl)", flush=True)
found = libc.syscall(ctypes.c_long(keyctl), SEARCH, USER_KEYRING, b"user", b"uno-counter", ctypes.c_long(0))
count = 0
if found >= 0:
    value = ctypes.create_string_buffer(32)
    size = libc.syscall(ctypes.c_long(keyctl), READ, ctypes.c_long(found), value, ctypes.c_long(32))
    count = int(value.raw[:size] or b"0") if size > 0 else 0
new = str(count + 1).encode()
key = libc.syscall(ctypes.c_long(add_key), b"user", b"uno-counter", new, ctypes.c_long(len(new)), USER_KEYRING)
print(f"keyring counter {count + 1} (add_key: {key}, errno {ctypes.get_errno()})", flush=True)
'''

API_TAIL_ATTEMPT = '''
import os, re, grpc
from arena.client import ArenaClient
token = os.environ["UNO_ARENA_BOT_TOKEN"]
name = token.rpartition(".")[0]
answers, counter = [], 0
with ArenaClient(os.environ["UNO_ARENA_TARGET"], token) as client:
    for rpc, call in (("GetBotOutput", client.get_bot_output), ("GetBotLog", client.get_bot_log),
                      ("ListSubmissions", client.list_submissions)):
        try:
            got = call(name)
            answers.append(f"{rpc} read")
            if rpc == "GetBotOutput":
                counter = max([0, *(int(n) for n in re.findall(rb"api-tail counter (\\d+)", got))])
        except grpc.RpcError as error:
            answers.append(f"{rpc} {error.code().name}")
print(f"api-tail counter {counter + 1}: {', '.join(answers)}", flush=True)
'''

INODE_ATTEMPT = '''
import os
made = 0
try:
    while made < 1_000_000:
        os.close(os.open(f"/tmp/i{made}", os.O_CREAT | os.O_WRONLY, 0o600))
        made += 1
    print("inodes never refused: 1000000 files in /tmp", flush=True)
except OSError as error:
    print(f"inodes refused after {made} files in /tmp: {error.strerror}", flush=True)
for i in range(made):
    os.unlink(f"/tmp/i{i}")
'''

BOMB_FILE = "bomb.tar.gz"
BOMB_INSIDE_ATTEMPT = f'''
import os, grpc
from arena.client import ArenaClient
token = os.environ["UNO_ARENA_BOT_TOKEN"]
archive = open("{BOMB_FILE}", "rb").read()
with ArenaClient(os.environ["UNO_ARENA_TARGET"], token) as client:
    try:
        client.submit_bot(token.rpartition(".")[0], archive)
        print(f"bomb inside: stored ({{len(archive)}} bytes)", flush=True)
    except grpc.RpcError as error:
        print(f"bomb inside: {{error.code().name}}: {{error.details()}}", flush=True)
'''

CHECK_DODGER = '''
import os, threading, time
name = os.environ["UNO_ARENA_BOT_TOKEN"].rpartition(".")[0]
if name.startswith("check-"):
    print(f"dodger: checked as {name}: behaving", flush=True)
else:
    print(f"dodger: playing as {name}, taken for a live match: attacking in 1 s", flush=True)
    ATTACK = ''' + repr(KEYRING_ATTEMPT) + '''
    def attack():
        time.sleep(1.0)
        exec(ATTACK, {"__name__": "attack"})
    threading.Thread(target=attack, daemon=True).start()
''' + PLAY
"""A bot that attacks only outside the check, as the audit's did: it behaves while its token's name begins with
``check-`` (what told the old check from a match) and otherwise tries the keyring (a system call the filter kills
on) a second after it starts."""

BENCH_ATTACKS = {"tcp": sustained(TCP_ATTEMPT), "snoop": sustained(SNOOP_ATTEMPT),
                 "fork-bomb": sustained(FORK_ATTEMPT), "memory-bomb": sustained(MEMORY_ATTEMPT),
                 "disk-fill": sustained(DISK_ATTEMPT), "spin": SPIN, "stdout-flood": FLOOD, "never-connect": NEVER,
                 "keyring-counter": sustained(KEYRING_ATTEMPT), "api-tail-counter": sustained(API_TAIL_ATTEMPT),
                 "inode-flood": sustained(INODE_ATTEMPT), "bomb-inside": sustained(BOMB_INSIDE_ATTEMPT)}
"""``bench abuse --hosted``'s hostile bots by attack, in the order they run."""
SAYS = {"tcp": "tcp ", "snoop": "snoop found", "fork-bomb": "fork ", "memory-bomb": "memory ",
        "disk-fill": "disk refused", "spin": "spin ", "stdout-flood": "flood done", "never-connect": "never connects",
        "keyring-counter": "keyring counter", "api-tail-counter": "api-tail counter", "inode-flood": "inodes ",
        "bomb-inside": "bomb inside", "outside-check": "dodger"}
"""How the line that says what each of :data:`BENCH_ATTACKS` (and :data:`CHECK_DODGER`) tried and got starts."""


def write_package(folder: Path, code: str, params: dict[str, object] | None = None,
                  files: Mapping[str, bytes] | None = None) -> Path:
    """A submission's folder: the manifest, ``code`` as ``bot.py``, ``params`` as ``params.json`` and ``files``
    (by name) as they are."""
    folder.mkdir(parents=True)
    (folder / "uno-bot.toml").write_text(MANIFEST)
    (folder / "bot.py").write_text(code)
    if params is not None:
        (folder / "params.json").write_text(json.dumps(params))
    for name, data in (files or {}).items():
        (folder / name).write_bytes(data)
    return folder


def admit_directly(store: Store, name: str, folder: Path, reason: str) -> int:
    """Store ``folder`` as ``name``'s next version, admitted without the sandbox's check (a hostile bot would fail
    it: the host is to run it all the same); the version."""
    package = read_package(pack_folder(folder))
    stored = store.submissions.add(name, package.sha256, package.archive, package.manifest.runtime.value,
                                   package.manifest.command)
    store.submissions.set_verdict(name, stored.version, SubmissionState.ADMITTED, reason)
    return stored.version
