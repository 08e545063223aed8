"""Turning a participant into a seat: a built-in bot's name in any case, optionally tagged (``random#2``) so that one
tournament fields several (registered names cannot contain ``#``), gets a fresh bot object per match, seeded by one
rule per kind of match, each kept as it always was (runs are compared with clean runs); any other participant is a
registered bot, reached through the relay.
"""

from __future__ import annotations

import hashlib
import re

from arena.players import BUILTIN_NAMES, BotFactory
from arena.relay import RelaySeat
from arena.runner import LocalSeat, Seat
from arena.store import Store

BUILTIN_RE = re.compile(r"^(?P<kind>[A-Za-z]+)(?:#(?P<tag>[A-Za-z0-9_-]{1,16}))?$")
"""A built-in participant: a built-in bot's name (in any case), optionally ``#tag``."""


class UnreachableParticipant(ValueError):
    """A registered bot's seat was asked for where no bot can be reached (no relay, no gateway)."""


def builtin_kind(name: str) -> str | None:
    """The built-in bot behind a participant name (``"random#2"`` -> ``"random"``), or ``None``. Names are
    compared without case, as bot names are: ``Random`` and ``HEURISTIC`` are the built-ins too."""
    m = BUILTIN_RE.match(name)
    kind = None if m is None else m.group("kind").lower()
    return kind if kind in BUILTIN_NAMES else None


def is_builtin(name: str) -> bool:
    return builtin_kind(name) is not None


def bot_seed(match_id: str, name: str) -> int:
    """The seed of a built-in bot's object in one scheduled match (tournaments, gauntlets: a re-played match plays
    out the same way)."""
    digest = hashlib.sha256(f"uno-arena/bot/{match_id}/{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def game_bot_seed(seed: int, seat: int) -> int:
    """The seed of the built-in bot at ``seat`` of a person's game dealt from ``seed``."""
    return seed * 7 + seat


def local_bot_seed(seed: int, seat: int) -> int:
    """The seed of the built-in bot at ``seat`` of one match played by ``uno-arena match`` from ``seed``."""
    return seed * 1000 + seat


def check_bot_seed(seed: int, seat: int) -> int:
    """The seed of the built-in opponent at ``seat`` of a conformance check's match dealt from ``seed``."""
    return seed + seat


def seat_for(participant: str, *, seed: int, make_bot: BotFactory, relay: Store | None = None,
             casual: bool = False) -> Seat:
    """The seat of ``participant``: a built-in bot made by ``make_bot`` seeded with ``seed``, else the registered
    bot through the relay of ``relay`` (:class:`UnreachableParticipant` without one). ``casual``: a game against a
    person, which gives way to rated matches."""
    kind = builtin_kind(participant)
    if kind is not None:
        return LocalSeat(make_bot(kind, seed), name=participant)
    if relay is not None:
        return RelaySeat(relay, participant, casual=casual)
    raise UnreachableParticipant(f"{participant!r} is no built-in bot ({', '.join(sorted(BUILTIN_NAMES))}); a "
                                 "registered bot plays through the relay: set REDIS_URL")


def make_seat(store: Store | None, participant: str, match_id: str, make_bot: BotFactory) -> Seat:
    """The seat of ``participant`` in the scheduled match ``match_id`` (:func:`bot_seed`)."""
    return seat_for(participant, seed=bot_seed(match_id, participant), make_bot=make_bot, relay=store)
