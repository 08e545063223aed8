"""A kit bot that answers its first N decisions, then hangs for good inside ``choose`` (blocking the kit's event
loop), and ignores SIGTERM and SIGINT: only SIGKILL ends it.

    python -m tests.bots_under_check.hangs N --target HOST:PORT     (token: $UNO_ARENA_BOT_TOKEN)
"""

from __future__ import annotations

import time

from tests.bots_under_check import run_misbehaving


def misbehave(decision: int, n: int) -> None:
    while decision > n:
        time.sleep(3600)


if __name__ == "__main__":
    run_misbehaving("hangs", misbehave, ignore_stop_signals=True)
