"""Sandbox identities (arena.store.identities, arena.hosting.identity): an arena's uid range, a uid per bot with
memory, a new uid for every fresh sandbox; and from outside, a bot without memory that keeps a counter in the
kernel's keyrings and in /tmp finds nothing of its previous sandbox (real bwrap through the launcher)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.hosting.identity import UID_BASE_ENV, requested_base, sandbox_uid, uid_range
from arena.store import Store
from arena.store.identities import MIN_UID_BASE, UID_RANGE_SIZE, IdentityStore, UidRangeConflict
from arena.store.keys import Keys
from tests.hosting.test_sandbox_filter import run_probe


def test_an_arena_keeps_its_range_and_two_arenas_do_not_share_uids(store: Store) -> None:
    first = IdentityStore(store.redis, Keys("uno:"))
    other = IdentityStore(store.redis, Keys("other:"))  # a second arena (on its own Redis, as here its own prefix)
    uids = first.uid_range()
    assert uids == first.uid_range() and uids.base % UID_RANGE_SIZE == 0 and uids.base >= MIN_UID_BASE
    theirs = other.uid_range(requested_base=uids.base + UID_RANGE_SIZE)  # an operator's choice
    mine = {first.fresh_uid() for _ in range(50)} | {first.bot_uid(f"bot{n}") for n in range(50)}
    others = {other.fresh_uid() for _ in range(50)} | {other.bot_uid(f"bot{n}") for n in range(50)}
    assert not mine & others
    assert all(uids.base <= uid < uids.base + UID_RANGE_SIZE for uid in mine)
    assert all(theirs.base <= uid < theirs.base + UID_RANGE_SIZE for uid in others)


def test_a_bot_with_memory_keeps_its_uid_and_fresh_sandboxes_never_repeat(store: Store) -> None:
    identities = IdentityStore(store.redis, store.keys)
    alpha = identities.bot_uid("Alpha")
    assert identities.bot_uid("alpha") == alpha != identities.bot_uid("beta")
    fresh = [identities.fresh_uid() for _ in range(200)]
    assert len(set(fresh)) == 200 and alpha not in fresh


def test_the_operators_base_must_be_the_arenas_and_a_usable_number(store: Store,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(UID_BASE_ENV, "300000")
    assert uid_range(store).base == 300_000 and sandbox_uid(store, "alpha", fresh=True) >= 300_000
    monkeypatch.setenv(UID_BASE_ENV, "400000")
    with pytest.raises(UidRangeConflict, match=r"start at 300000.*set it to 300000"):
        uid_range(store)
    for bad, says in (("lots", "is not a number"), ("1000", "out of bounds"), (str(1 << 32), "out of bounds")):
        with pytest.raises(UidRangeConflict, match=says):
            requested_base({UID_BASE_ENV: bad})


COUNTER_BOT = r'''
import ctypes, errno, json, os, platform, signal
from arena.hosting.seccomp import AUDIT_ARCH_AARCH64, AUDIT_ARCH_X86_64, SYSCALLS

NR = SYSCALLS[AUDIT_ARCH_X86_64 if platform.machine() == "x86_64" else AUDIT_ARCH_AARCH64]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
KEY_SPEC_USER_KEYRING, KEYCTL_SEARCH, KEYCTL_READ = -4, 10, 11

def in_child(action):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, action().encode())
        os._exit(0)
    os.close(write)
    said = os.read(read, 100).decode()
    status = os.waitpid(pid, 0)[1]
    return ("signal " + signal.Signals(os.WTERMSIG(status)).name) if os.WIFSIGNALED(status) else said

def keyring_read():
    key = libc.syscall(NR["keyctl"], KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user", b"counter", 0)
    if key < 0:
        return "0"
    buffer = ctypes.create_string_buffer(32)
    size = libc.syscall(NR["keyctl"], KEYCTL_READ, key, buffer, 32)
    return buffer.raw[:size].decode()

seen = in_child(keyring_read)
kept = int(seen) if seen.isdigit() else 0
try:
    kept = max(kept, int(open("/tmp/counter").read()))
except OSError:
    pass
counter = kept + 1
wrote = in_child(lambda: str(libc.syscall(NR["add_key"], b"user", b"counter", str(counter).encode(),
                                             len(str(counter)), KEY_SPEC_USER_KEYRING)))
open("/tmp/counter", "w").write(str(counter))
print(json.dumps({"uid": os.getuid(), "counter": counter, "keyring read": seen, "keyring write": wrote}))
'''


@pytest.mark.integration
def test_a_keyring_counter_through_fresh_sandboxes_stays_at_one(store: Store, tmp_path: Path) -> None:
    runs = []
    for n in range(2):
        uid = sandbox_uid(store, "forgetful", fresh=True)
        (tmp_path / str(n)).mkdir()
        runs.append(run_probe(tmp_path / str(n), uid, COUNTER_BOT))
    assert [run["counter"] for run in runs] == [1, 1]
    assert all(run["keyring read"] == run["keyring write"] == "signal SIGSYS" for run in runs)
    if os.geteuid() == 0:
        assert runs[0]["uid"] != runs[1]["uid"]
