"""The submission check's child process: ``python -m arena.submissions.intake_child CPU_SECONDS MEMORY_BYTES``.

It lowers its own priority and limits itself first (address space, CPU time, no file written), reads one archive on
stdin, runs :func:`arena.submissions.read_package` and writes one JSON header line (the verdict; for an accepted
package its runtime, command and sha256) followed by the canonical archive. It imports only the archive readers.
"""

from __future__ import annotations

import json
import os
import resource
import sys

from .archives import read_package
from .package import DEFAULT_LIMITS, SubmissionRejected

NICENESS = 10


def _write(header: dict[str, object], body: bytes = b"") -> None:
    sys.stdout.buffer.write(json.dumps(header, separators=(",", ":")).encode() + b"\n" + body)
    sys.stdout.buffer.flush()


def main(argv: list[str]) -> int:
    """The child: ``CPU_SECONDS MEMORY_BYTES``, the archive on stdin, the verdict on stdout."""
    cpu_seconds, memory_bytes = (int(argv[0]), int(argv[1])) if len(argv) == 2 else (10, 512 << 20)
    os.nice(NICENESS)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    data = sys.stdin.buffer.read(DEFAULT_LIMITS.max_archive_bytes + 1)
    try:
        package = read_package(data, DEFAULT_LIMITS)
    except SubmissionRejected as error:
        _write({"verdict": "rejected", "reason": str(error)})
        return 0
    except MemoryError:
        _write({"verdict": "memory"})
        return 0
    _write({"verdict": "accepted", "runtime": package.manifest.runtime.value, "command": list(package.manifest.command),
            "sha256": package.sha256}, package.archive)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
