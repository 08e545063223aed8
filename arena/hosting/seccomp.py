"""The syscall filter of every hosted bot: a classic-BPF seccomp program, built here as bytes (no library).

:func:`program` returns what ``bwrap --seccomp FD`` loads before it starts the bot (it holds for everything the bot
starts). It knows x86_64 and aarch64; any other architecture (an i386 ``int 0x80``) and the x32 ABI kill the process:
their numbers mean other syscalls. :data:`RULES` is the whole policy, one :class:`Rule` per syscall with why: KILL
for what serves only an escape or a channel for state (SIGSYS, which the author is told), ERRNO for what libraries
probe and go on without. A rule may test one argument; only its low 32 bits are compared (the kernel's ``int`` and
the namespace flags). The table with every syscall is in docs/hosting.md.
"""

from __future__ import annotations

import enum
import errno
import signal
import struct
from dataclasses import dataclass

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7
X32_SYSCALL_BIT = 0x40000000

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

# Classic BPF opcodes (linux/filter.h).
_LD_W_ABS = 0x20
_JMP_JA = 0x05
_JMP_JEQ_K = 0x15
_JMP_JGE_K = 0x35
_JMP_JSET_K = 0x45
_RET_K = 0x06

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (little-endian on both arches).
_NR_OFFSET = 0
_ARCH_OFFSET = 4
_ARGS_OFFSET = 16

KILL_SIGNAL = signal.SIGSYS  # how a process the filter kills ends (bwrap then exits with 128 + it)

AF_UNIX = 1
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
NAMESPACE_FLAGS = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000)
CLONE_NEWTIME = 0x00000080  # for ``unshare`` only: in ``clone``'s flags these bits are the exit signal
PERSONALITY_DEFAULT = (0x0, 0xFFFFFFFF)  # PER_LINUX, and 0xffffffff: the query of the current personality


class Outcome(enum.Enum):
    KILL = "kill"  # the whole process is killed (SIGSYS)
    ERRNO = "errno"  # the call fails with Rule.errno


class Refused(enum.Enum):
    """When a rule with an argument test refuses the call."""

    UNLESS_ONE_OF = "unless one of"  # unless the argument is one of the values
    IF_ANY_BIT = "if any bit of"  # if the argument has any bit of the mask


@dataclass(frozen=True)
class ArgumentTest:
    index: int
    refused: Refused
    values: tuple[int, ...]  # the allowed values (UNLESS_ONE_OF) or one mask (IF_ANY_BIT)


@dataclass(frozen=True)
class Rule:
    syscall: str
    outcome: Outcome
    why: str
    errno: int = errno.EPERM
    only: ArgumentTest | None = None  # refused only when this test says so (else always)


def _kill(names: str, why: str) -> list[Rule]:
    return [Rule(name, Outcome.KILL, why) for name in names.split()]


def _errno(names: str, number: int, why: str) -> list[Rule]:
    return [Rule(name, Outcome.ERRNO, why, number) for name in names.split()]


RULES: tuple[Rule, ...] = (
    Rule("socket", Outcome.ERRNO, "no network but the gateway's Unix socket (gRPC probes IPv6 at start: an error)",
         errno.EAFNOSUPPORT, ArgumentTest(0, Refused.UNLESS_ONE_OF, (AF_UNIX,))),
    Rule("socketpair", Outcome.ERRNO, "only Unix socket pairs", errno.EAFNOSUPPORT,
         ArgumentTest(0, Refused.UNLESS_ONE_OF, (AF_UNIX,))),
    *_kill("add_key request_key keyctl", "kernel keyrings: state kept outside the sandbox, by uid"),
    *_kill("ptrace process_vm_readv process_vm_writev kcmp pidfd_getfd process_madvise",
           "reading or steering another process"),
    *_kill("mount umount2 pivot_root move_mount open_tree fsopen fsconfig fsmount fspick mount_setattr",
           "mounts: the sandbox's file system is the host's to make"),
    Rule("unshare", Outcome.KILL, "new namespaces (a user namespace gives every capability inside it)",
         only=ArgumentTest(0, Refused.IF_ANY_BIT, (NAMESPACE_FLAGS | CLONE_NEWTIME,))),
    Rule("clone", Outcome.KILL, "new namespaces (threads and forks are fine)",
         only=ArgumentTest(0, Refused.IF_ANY_BIT, (NAMESPACE_FLAGS,))),
    *_kill("setns", "joining another namespace"),
    *_errno("clone3", errno.ENOSYS, "its flags are in memory a filter cannot read: libc falls back to clone"),
    *_kill("bpf perf_event_open userfaultfd", "kernel attack surface a bot never needs"),
    *_kill("kexec_load kexec_file_load init_module finit_module delete_module reboot swapon swapoff acct "
           "quotactl quotactl_fd syslog settimeofday clock_settime open_by_handle_at fanotify_init "
           "lookup_dcookie vhangup nfsservctl",
           "the machine's administration"),
    *_errno("clock_adjtime name_to_handle_at", errno.EPERM,
            "the machine's clock and file handles (libc asks them read-only: an error, not a kill)"),
    *_errno("statmount listmount", errno.ENOSYS,
            "the mount table by a new path (libraries fall back to /proc/self/mountinfo)"),
    *_errno("io_uring_setup io_uring_enter io_uring_register", errno.ENOSYS,
            "a second syscall path the filter cannot see (libuv falls back to threads)"),
    Rule("personality", Outcome.ERRNO, "execution domains other than Linux's own", errno.EPERM,
         ArgumentTest(0, Refused.UNLESS_ONE_OF, PERSONALITY_DEFAULT)),
)

# Syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl; include/uapi/asm-generic/unistd.h for aarch64).
# A name missing on an architecture does not exist there.
_COMMON_NEW = {"pidfd_getfd": 438, "process_madvise": 440, "clone3": 435, "io_uring_setup": 425,
               "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430,
               "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442, "quotactl_fd": 443,
               "statmount": 457, "listmount": 458}
SYSCALLS: dict[int, dict[str, int]] = {
    AUDIT_ARCH_X86_64: {
        "socket": 41, "socketpair": 53, "clone": 56, "ptrace": 101, "syslog": 103, "personality": 135,
        "vhangup": 153, "pivot_root": 155, "acct": 163, "settimeofday": 164, "mount": 165, "umount2": 166,
        "swapon": 167, "swapoff": 168, "reboot": 169, "init_module": 175, "delete_module": 176, "quotactl": 179,
        "nfsservctl": 180, "lookup_dcookie": 212, "clock_settime": 227, "kexec_load": 246, "add_key": 248,
        "request_key": 249, "keyctl": 250, "unshare": 272, "perf_event_open": 298, "fanotify_init": 300,
        "name_to_handle_at": 303, "open_by_handle_at": 304, "clock_adjtime": 305, "setns": 308,
        "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "finit_module": 313,
        "kexec_file_load": 320, "bpf": 321, "userfaultfd": 323, **_COMMON_NEW},
    AUDIT_ARCH_AARCH64: {
        "lookup_dcookie": 18, "umount2": 39, "mount": 40, "pivot_root": 41, "nfsservctl": 42, "vhangup": 58,
        "quotactl": 60, "acct": 89, "personality": 92, "unshare": 97, "kexec_load": 104, "init_module": 105,
        "delete_module": 106, "clock_settime": 112, "syslog": 116, "ptrace": 117, "reboot": 142,
        "settimeofday": 170, "socket": 198, "socketpair": 199, "add_key": 217, "request_key": 218, "keyctl": 219,
        "clone": 220, "swapon": 224, "swapoff": 225, "perf_event_open": 241, "fanotify_init": 262,
        "name_to_handle_at": 264, "open_by_handle_at": 265, "clock_adjtime": 266, "setns": 268,
        "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272, "finit_module": 273,
        "kexec_file_load": 294, "bpf": 280, "userfaultfd": 282, **_COMMON_NEW},
}


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _rule_block(rule: Rule, number: int) -> list[bytes]:
    """``if nr == number: <the rule's verdict>`` (falls through to the next rule otherwise)."""
    action = SECCOMP_RET_KILL_PROCESS if rule.outcome is Outcome.KILL else SECCOMP_RET_ERRNO | rule.errno
    test = rule.only
    if test is None:
        body = [_insn(_RET_K, action)]
    else:
        load = _insn(_LD_W_ABS, _ARGS_OFFSET + 8 * test.index)
        if test.refused is Refused.UNLESS_ONE_OF:
            n = len(test.values)
            checks = [_insn(_JMP_JEQ_K, value, jt=n - i) for i, value in enumerate(test.values)]
            body = [load, *checks, _insn(_RET_K, action), _insn(_RET_K, SECCOMP_RET_ALLOW)]
        else:
            body = [load, _insn(_JMP_JSET_K, test.values[0], jt=0, jf=1), _insn(_RET_K, action),
                    _insn(_RET_K, SECCOMP_RET_ALLOW)]
    return [_insn(_JMP_JEQ_K, number, jt=0, jf=len(body)), *body]


def _arch_section(numbers: dict[str, int]) -> list[bytes]:
    section = [_insn(_LD_W_ABS, _NR_OFFSET), _insn(_JMP_JGE_K, X32_SYSCALL_BIT, jt=0, jf=1),
               _insn(_RET_K, SECCOMP_RET_KILL_PROCESS)]
    for rule in RULES:
        if rule.syscall in numbers:
            section += _rule_block(rule, numbers[rule.syscall])
    return [*section, _insn(_RET_K, SECCOMP_RET_ALLOW)]


def program() -> bytes:
    """The filter: check the architecture, then each rule of :data:`RULES` by that architecture's numbers."""
    out = [_insn(_LD_W_ABS, _ARCH_OFFSET)]
    for arch, numbers in SYSCALLS.items():
        section = _arch_section(numbers)
        out += [_insn(_JMP_JEQ_K, arch, jt=1, jf=0), _insn(_JMP_JA, len(section)), *section]
    out.append(_insn(_RET_K, SECCOMP_RET_KILL_PROCESS))
    if len(out) > 4096:  # BPF_MAXINSNS
        raise ValueError(f"the seccomp program has {len(out)} instructions, more than the kernel's 4096")
    return b"".join(out)
