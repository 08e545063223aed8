"""The syscall filter's program (arena.hosting.seccomp), run by a small classic-BPF interpreter written here from the
kernel's definition of the instructions it uses; and its syscall numbers against libseccomp's (when installed)."""

from __future__ import annotations

import ctypes
import errno
import struct

import pytest

from arena.hosting.seccomp import (
    AUDIT_ARCH_AARCH64,
    AUDIT_ARCH_X86_64,
    RULES,
    SECCOMP_RET_ALLOW,
    SECCOMP_RET_ERRNO,
    SECCOMP_RET_KILL_PROCESS,
    SYSCALLS,
    Outcome,
    program,
)

AUDIT_ARCH_I386 = 0x40000003
KILL = SECCOMP_RET_KILL_PROCESS
ALLOW = SECCOMP_RET_ALLOW


def run(arch: int, nr: int, *args: int) -> int:
    """What the filter returns for one syscall (seccomp_data packed as the kernel does, little-endian)."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(list(args) + [0] * (6 - len(args))))
    code = program()
    insns = [struct.unpack("=HBBI", code[i:i + 8]) for i in range(0, len(code), 8)]
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = insns[pc]
        if op == 0x20:
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif op == 0x06:
            return k
        elif op == 0x05:
            pc += 1 + k
        elif op in (0x15, 0x35, 0x45):
            taken = acc == k if op == 0x15 else acc >= k if op == 0x35 else bool(acc & k)
            pc += 1 + (jt if taken else jf)
        else:
            raise AssertionError(f"unexpected opcode {op:#x}")


@pytest.mark.parametrize("arch", [AUDIT_ARCH_X86_64, AUDIT_ARCH_AARCH64])
def test_each_rule_on_each_architecture(arch: int) -> None:
    nr = SYSCALLS[arch]
    assert run(arch, nr["keyctl"]) == KILL and run(arch, nr["ptrace"], 16, 1) == KILL
    assert run(arch, nr["socket"], 1, 1) == ALLOW
    for family in (2, 10, 16, 17, 40):
        assert run(arch, nr["socket"], family, 1) == SECCOMP_RET_ERRNO | errno.EAFNOSUPPORT
    assert run(arch, nr["socket"], (1 << 32) + 2, 1) == SECCOMP_RET_ERRNO | errno.EAFNOSUPPORT  # the low 32 bits
    assert run(arch, nr["clone"], 0x11) == ALLOW and run(arch, nr["clone"], 0x003D0F00) == ALLOW  # fork, thread
    assert run(arch, nr["clone"], 0x10000000 | 0x11) == KILL
    assert run(arch, nr["unshare"], 0x400) == ALLOW and run(arch, nr["unshare"], 0x80) == KILL
    assert run(arch, nr["clone3"]) == SECCOMP_RET_ERRNO | errno.ENOSYS
    assert run(arch, nr["personality"], 0xFFFFFFFF) == ALLOW and run(arch, nr["personality"], 0) == ALLOW
    assert run(arch, nr["personality"], 0x0040000) == SECCOMP_RET_ERRNO | errno.EPERM
    assert run(arch, 0) == ALLOW and run(arch, 63) == ALLOW  # read / io_setup, uname ...


def test_another_architecture_and_the_x32_abi_are_killed() -> None:
    assert run(AUDIT_ARCH_I386, 1) == KILL
    assert run(AUDIT_ARCH_X86_64, 0x40000000 | 0) == KILL
    assert run(0, 0) == KILL


def test_every_rule_has_a_number_and_says_why() -> None:
    for arch, numbers in SYSCALLS.items():
        assert {rule.syscall for rule in RULES} <= set(numbers), hex(arch)
        assert len(set(numbers.values())) == len(numbers), f"{arch:#x}: two names share a number"
    assert all(rule.why for rule in RULES) and len(program()) % 8 == 0
    outcome = {rule.syscall: rule.outcome if rule.outcome is Outcome.KILL else errno.errorcode[rule.errno]
               for rule in RULES}
    assert outcome["keyctl"] is Outcome.KILL and outcome["io_uring_setup"] == "ENOSYS"
    assert {rule.syscall for rule in RULES if rule.outcome is Outcome.KILL} >= {
        "add_key", "keyctl", "request_key", "ptrace", "mount", "setns", "bpf", "process_vm_readv"}


def test_the_numbers_are_the_kernels() -> None:
    try:
        lib = ctypes.CDLL("libseccomp.so.2")
    except OSError:
        pytest.skip("libseccomp is not installed (Debian/Ubuntu: apt-get install libseccomp2): it checks the numbers")
    lib.seccomp_syscall_resolve_name_arch.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    for arch, numbers in SYSCALLS.items():
        for name, number in numbers.items():
            known = lib.seccomp_syscall_resolve_name_arch(arch, name.encode())
            if known >= 0:  # an older libseccomp does not know the newest syscalls (statmount ...)
                assert known == number, f"{arch:#x} {name}: {number}, libseccomp says {known}"
