"""A kit bot that plays the first legal action and kills its own process (``os._exit(1)``) at its Nth decision.

    python -m tests.bots_under_check.exits_at N --target HOST:PORT     (token: $UNO_ARENA_BOT_TOKEN)
"""

from __future__ import annotations

import os
import sys

from tests.bots_under_check import run_misbehaving


def misbehave(decision: int, n: int) -> None:
    if decision == n:
        print(f"exits-at: giving up at decision {decision}", file=sys.stderr, flush=True)
        os._exit(1)


if __name__ == "__main__":
    run_misbehaving("exits-at", misbehave)
