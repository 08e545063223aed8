"""A "bot" that never connects: it writes one line and sleeps, ignoring SIGTERM and SIGINT.

    python -m tests.bots_under_check.never_connects
"""

from __future__ import annotations

import signal
import sys
import time


def main() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print("never-connects: sleeping instead of connecting", file=sys.stderr, flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
