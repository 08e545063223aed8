"""A kit bot that crashes hard at its Nth decision: it prints a last word and kills itself with SIGABRT (as a
native extension's failed assertion would).

    python -m tests.bots_under_check.crashes N --target HOST:PORT     (token: $UNO_ARENA_BOT_TOKEN)
"""

from __future__ import annotations

import os
import signal
import sys

from tests.bots_under_check import run_misbehaving


def misbehave(decision: int, n: int) -> None:
    if decision == n:
        print(f"crashes: aborting at decision {decision}", file=sys.stderr, flush=True)
        signal.signal(signal.SIGABRT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGABRT)


if __name__ == "__main__":
    run_misbehaving("crashes", misbehave)
