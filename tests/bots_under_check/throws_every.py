"""A kit bot whose ``choose`` raises a KeyError every Nth decision (and plays the first legal action otherwise).

    python -m tests.bots_under_check.throws_every N --target HOST:PORT     (token: $UNO_ARENA_BOT_TOKEN)
"""

from __future__ import annotations

from tests.bots_under_check import run_misbehaving


def misbehave(decision: int, n: int) -> None:
    if decision % n == 0:
        raise KeyError("missing")


if __name__ == "__main__":
    run_misbehaving("throws-every", misbehave)
