"""`python -m benchmarks` seen from tests: run in a process of its own, from the checkout, as a user runs it."""

from __future__ import annotations

import subprocess
import sys

from tests.support.cli import REPO, cli_environment


def run_benchmarks(*args: str, env_extra: dict[str, str] | None = None, timeout: float = 120.0
                   ) -> tuple[int, str, str]:
    """`python -m benchmarks ARGS` to its end (the environment of :func:`tests.support.cli.cli_environment` plus
    ``env_extra``): exit status, standard output, standard error."""
    process = subprocess.Popen([sys.executable, "-m", "benchmarks", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=REPO, env=cli_environment(**(env_extra or {})))
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, out, err
