"""The fallback rule: the least committal legal action, played for a seat that timed out, is gone or forfeited."""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import Action

# The fallback preference per action kind: the least committal legal action, never a bluff, a challenge,
# a catch or a card the bot might have wanted to keep.
_FALLBACK_ORDER = {"pass": 0, "draw": 1, "accept": 2, "choose_color": 3, "play": 4, "challenge": 5, "catch": 6}


def fallback_action(legal: Sequence[Action]) -> int:
    """The documented *safest legal action* (docs/writing-a-bot.md): pass, else draw, else accept, else the first
    colour offered, else the first play; never a catch or a challenge when anything else is legal."""
    if not legal:
        raise ValueError("no legal action to fall back on")
    return min(range(len(legal)), key=lambda index: _FALLBACK_ORDER.get(legal[index].kind, 9))  # the first of a kind
