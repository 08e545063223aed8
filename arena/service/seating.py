"""Turning a participant into a seat: the one place that says which participants are built-in bots, how a built-in
bot's object is seeded, what its seat is named, and how any other participant is reached.

A built-in participant is named after a built-in bot (``random``, ``heuristic``), in any case, optionally with a
tag after ``#`` so that one tournament can field several of them: ``random#2``, ``heuristic#b``. Registered bot
names cannot contain ``#`` (see :data:`arena.store.keys.BOT_NAME_RE`), so the two never collide; the organizer API
refuses to register a bare built-in name in any case. A built-in bot gets a fresh object per match, its seat named
after the participant (with its tag: what records and standings count). Any other participant is a registered bot:
reached through the gateway that holds its stream (``remote``, in the gateway's own process) or through the relay
of the store.

The seed of a built-in bot's object follows one rule per kind of match, each kept as it always was (runs are
compared with clean runs): :func:`bot_seed` for scheduled matches (tournaments, gauntlets: from the match id and
the participant, so a re-played match plays out the same way), :func:`game_bot_seed` for a person's game,
:func:`local_bot_seed` for ``uno-arena match`` and :func:`check_bot_seed` for the conformance checks.
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
    """The seed of a built-in bot's object in one scheduled match (stable across processes)."""
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
    bot through the relay of ``relay``; :class:`UnreachableParticipant` without one. ``casual``: the relay seat of a
    game against a person (``RelaySeat(..., casual=True)``: it gives way to rated matches, :mod:`arena.relay`)."""
    kind = builtin_kind(participant)
    if kind is not None:
        return LocalSeat(make_bot(kind, seed), name=participant)
    if relay is not None:
        return RelaySeat(relay, participant, casual=casual)
    raise UnreachableParticipant(f"{participant!r} is no built-in bot ({', '.join(sorted(BUILTIN_NAMES))}); a "
                                 "registered bot plays through the relay: set REDIS_URL")


def match_seat(participant: str, match_id: str, relay: Store | None, make_bot: BotFactory) -> Seat:
    """The seat of ``participant`` in the scheduled match ``match_id`` (:func:`bot_seed`)."""
    return seat_for(participant, seed=bot_seed(match_id, participant), make_bot=make_bot, relay=relay)
