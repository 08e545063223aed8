"""Submissions for the bot host's tests: a well-behaved kit bot and hostile ones. Each hostile one writes what it
tried and what it got (a line starting with its name) and then, unless it is meant to end, plays like the good one,
so the host's own kills are the ones the test means. ``params.json`` in the package: what the test wants it to try."""

from __future__ import annotations

PLAY = '''
import os
from bots.kit import play
play(lambda observation, legal: 0, target=os.environ["UNO_ARENA_TARGET"])
'''

MANIFEST = 'runtime = "python3.11-kit"\ncommand = ["python", "bot.py"]\n'

GOOD = "print('good bot starting', flush=True)\n" + PLAY

TCP = '''
import json, socket
params = json.load(open("params.json"))
for host, port in params["addresses"]:
    try:
        socket.create_connection((host, port), timeout=2).close()
        print(f"tcp connected to {host}:{port}", flush=True)
    except OSError as error:
        print(f"tcp refused {host}:{port}: {error}", flush=True)
''' + PLAY

SNOOP = '''
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
''' + PLAY

FORK = '''
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
''' + PLAY

MEMORY = '''
blocks = []
try:
    while len(blocks) < 10000:
        blocks.append(b"\\x01" * (8 * 1024 * 1024))
    print("memory never refused", flush=True)
except MemoryError:
    print(f"memory refused after {len(blocks) * 8} MiB", flush=True)
blocks.clear()
''' + PLAY

DISK = '''
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
''' + PLAY

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

HOSTILE = {"tcp": TCP, "snoop": SNOOP, "fork": FORK, "memory": MEMORY, "disk": DISK, "flood": FLOOD, "never": NEVER}
