"""The bot's ``/tmp`` with an inode limit, and its package at a path of no host folder: tmpfs mounts the launcher
makes (as root) in a mount namespace of its own.

``bwrap --tmpfs`` takes a size but no ``nr_inodes`` (millions of empty files, kernel memory the size does not count).
So the launcher leaves the host's mount namespace (every mount private) and mounts a small tmpfs over a folder the
sandbox does not need, with ``tmp`` (``size=``, ``nr_inodes=``) and ``bot`` (a read-only copy of the package: a tmpfs
shows ``/`` in ``mountinfo`` where a bind mount would show the host's path) in it. docs/hosting.md has the why.
"""

from __future__ import annotations

import ctypes
import os
import shutil
from dataclasses import dataclass

CLONE_NEWNS = 0x00020000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_REMOUNT = 0x20
MS_REC = 0x4000
MS_PRIVATE = 0x40000
PAGE = 4096

MOUNT_POINTS = ("/dev/shm", "/mnt", "/media", "/srv")  # folders the private mounts may cover (in their namespace)


class PrivateMountError(OSError):
    """The private mounts could not be made (the message names the step and the kernel's error)."""


def is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def mount_point(needed: list[str]) -> str:
    """The first of :data:`MOUNT_POINTS` that exists and holds none of ``needed`` (paths the sandbox mounts)."""
    for candidate in MOUNT_POINTS:
        if os.path.isdir(candidate) and not os.path.islink(candidate) and not any(
                is_within(os.path.realpath(path), candidate) for path in needed):
            return candidate
    raise PrivateMountError(f"no folder to mount the bot's /tmp and package on: none of {', '.join(MOUNT_POINTS)} "
                            "exists apart from what the sandbox mounts (create /mnt)")


@dataclass(frozen=True)
class PrivateMounts:
    """Where the launcher mounted the bot's ``/tmp`` and its package's copy (in its own mount namespace)."""

    tmp: str
    package: str


def package_footprint(package_dir: str) -> tuple[int, int]:
    """Bytes (whole pages) and inodes a copy of the package takes in a tmpfs."""
    size, inodes = 0, 1
    for folder, folders, files in os.walk(package_dir):
        inodes += len(folders) + len(files)
        for name in files:
            size += -(-os.lstat(os.path.join(folder, name)).st_size // PAGE) * PAGE
    return size, inodes


def make_private_mounts(tmp_bytes: int, tmp_inodes: int, package_dir: str, needed: list[str]) -> PrivateMounts:
    """Leave the host's mount namespace and make the bot's ``/tmp`` and its package's copy there. Root."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    point = mount_point(needed)

    def check(result: int, step: str) -> None:
        if result != 0:
            code = ctypes.get_errno()
            raise PrivateMountError(code, f"the bot's private mounts: {step}: {os.strerror(code)}")

    def tmpfs(target: str, options: str) -> None:
        check(libc.mount(b"tmpfs", target.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options.encode()),
              f"mounting a tmpfs on {target}")

    check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "making the mounts private")
    tmpfs(point, "size=64k,nr_inodes=8,mode=0755")
    mounts = PrivateMounts(os.path.join(point, "tmp"), os.path.join(point, "bot"))
    for folder in (mounts.tmp, mounts.package):
        os.mkdir(folder, 0o755)
    tmpfs(mounts.tmp, f"size={int(tmp_bytes)},nr_inodes={int(tmp_inodes)},mode=1777")
    size, inodes = package_footprint(package_dir)
    tmpfs(mounts.package, f"size={size + PAGE},nr_inodes={inodes + 1},mode=0755")
    try:
        shutil.copytree(package_dir, mounts.package, dirs_exist_ok=True, symlinks=True)
    except OSError as error:  # its message would name the host's folder: the author reads this
        code = error.errno or 0
        raise PrivateMountError(code, "the bot's private mounts: copying its package: "
                                + (os.strerror(code) if code else type(error).__name__)) from None
    check(libc.mount(None, mounts.package.encode(), None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None),
          "making the package's copy read-only")
    return mounts
