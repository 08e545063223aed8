"""Who may see what (pure policy, no I/O): the callers of the organizer API (the admin, a registered bot, anonymous)
and what each gets. A tournament's or gauntlet's seeds and everything derived from them go to the admin only until
it ended, then to everyone; a bot's private fields to the admin and the bot itself; before the end, a replay to the
admin in any view and to a bot only as its own seat saw its own match, after the end to everyone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum


class Role(StrEnum):
    """The kinds of caller of the organizer API, most powerful first."""

    ADMIN = "admin"
    BOT = "bot"
    ANONYMOUS = "anonymous"


_RANK = {Role.ADMIN: 2, Role.BOT: 1, Role.ANONYMOUS: 0}


@dataclass(frozen=True)
class Caller:
    role: Role
    bot: str = ""

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN

    def may(self, needs: Role) -> bool:
        return _RANK[self.role] >= _RANK[needs]

    def is_bot(self, name: str) -> bool:
        """Whether this caller is the bot ``name`` (without case)."""
        return self.role is Role.BOT and self.bot.casefold() == name.casefold()


ADMIN = Caller(Role.ADMIN)
"""The admin caller (the default of in-process callers)."""


def sees_secrets(caller: Caller, ended: bool) -> bool:
    """Whether ``caller`` may see the seeds of a tournament or gauntlet that has (not) ``ended``."""
    return caller.is_admin or ended


def sees_profile(caller: Caller, bot: str) -> bool:
    return caller.is_admin or caller.is_bot(bot)


class ReplayRefusal(Enum):
    """Why a replay view is refused."""

    UNAUTHENTICATED = "unauthenticated"
    DENIED = "denied"


@dataclass(frozen=True)
class Refused:
    """A refused replay view, with a message for the caller."""

    kind: ReplayRefusal
    message: str


def replay_refusal(caller: Caller, match_id: str, ended: bool, seats: Sequence[str],
                   viewer: int | None) -> Refused | None:
    """Why ``caller`` may not read the replay of ``match_id`` as seat ``viewer`` (``None``: omniscient), or None."""
    if caller.is_admin or ended:
        return None
    if viewer is None:
        # An omniscient replay shows the deal seed and every hand: with duplicate deals, the hands of the
        # rotations still to play.
        return Refused(ReplayRefusal.DENIED, f"the omniscient replay of match {match_id!r} is only for the admin "
                       "until its tournament ends; ask for a seat's view (set seat)")
    if caller.role is Role.ANONYMOUS:
        return Refused(ReplayRefusal.UNAUTHENTICATED, "until its tournament ends, a match's replay needs a bot's "
                       "token (its own seat's view) or the admin's: send 'authorization: Bearer <token>'")
    own = [i for i, name in enumerate(seats) if caller.is_bot(name)]
    if not own:
        return Refused(ReplayRefusal.DENIED, f"bot {caller.bot!r} did not play match {match_id!r}: a bot may read "
                       "only its own seat's view of its own matches")
    if viewer not in own:
        return Refused(ReplayRefusal.DENIED, f"a bot may read only its own seat's view: ask for seat {own[0]} "
                       "(set seat)")
    return None
