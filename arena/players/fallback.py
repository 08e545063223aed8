"""The fallback rule: the least committal legal action, played for a seat that timed out, is gone or forfeited."""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import Action

# The fallback preference per action kind: the least committal legal action, never a bluff, a challenge,
# a catch or a card the bot might have wanted to keep.
_FALLBACK_ORDER = {"pass": 0, "draw": 1, "accept": 2, "choose_color": 3, "play": 4, "challenge": 5, "catch": 6}


def fallback_action(legal: Sequence[Action]) -> int:
    """The documented *safest legal action*, played for a seat that timed out, is gone or forfeited.

    By decision: ``after_draw`` -> pass (keep the drawn card); ``play`` -> draw (pass when nothing can be
    drawn; the first legal play when neither is offered); ``respond`` -> accept (a challenge can cost more
    cards); ``choose_color`` -> the first colour offered; ``catch`` -> pass (let the miss go). Never a catch
    or a challenge when anything else is legal. Deterministic: the same legal list gives the same index.
    """
    if not legal:
        raise ValueError("no legal action to fall back on")
    best = 0
    best_rank = _FALLBACK_ORDER.get(legal[0].kind, 9)
    for index in range(1, len(legal)):
        rank = _FALLBACK_ORDER.get(legal[index].kind, 9)
        if rank < best_rank:
            best, best_rank = index, rank
    return best
