"""Who may see what (pure policy, no I/O): the callers of the organizer API and the secrets and views each gets.

* :class:`Role` / :class:`Caller`: the admin (everything), a registered bot (its own profile and matches, and the
  public data) or an anonymous caller (the public data).
* **Secrets** (:func:`sees_secrets`): a tournament's seed and everything derived from it (the spec's seed, the
  deal seeds of its matches, the seeds in exports, omniscient replays) and a gauntlet's seed go to the admin
  only until the tournament or gauntlet ended; then to everyone.
* **Profiles** (:func:`sees_profile`): a bot's private fields (description, connection, version, revocation)
  go to the admin and to the bot itself.
* **Replays** (:func:`replay_refusal`): before the tournament ended, the admin sees any view; a bot only its own
  seat's view of its own match; an anonymous caller none. After the end, every view is public.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum


class Role(StrEnum):
    """The kinds of caller of the organizer API, most powerful first."""

    ADMIN = "admin"
    """The organizer (the admin token): everything."""
    BOT = "bot"
    """A registered bot (its own token): its own profile and matches, and public data."""
    ANONYMOUS = "anonymous"
    """No token: public data only."""


_RANK = {Role.ADMIN: 2, Role.BOT: 1, Role.ANONYMOUS: 0}


@dataclass(frozen=True)
class Caller:
    """Who makes a call: a role, and for a bot its name."""

    role: Role
    bot: str = ""

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN

    def may(self, needs: Role) -> bool:
        """Whether this caller has at least the role ``needs``."""
        return _RANK[self.role] >= _RANK[needs]

    def is_bot(self, name: str) -> bool:
        """Whether this caller is the bot ``name`` (compared without case)."""
        return self.role is Role.BOT and self.bot.casefold() == name.casefold()


ADMIN = Caller(Role.ADMIN)
"""The admin caller (the default of the core functions, for in-process callers)."""


def sees_secrets(caller: Caller, ended: bool) -> bool:
    """Whether ``caller`` may see the seeds of a tournament or gauntlet that has (not) ``ended``."""
    return caller.is_admin or ended


def sees_profile(caller: Caller, bot: str) -> bool:
    """Whether ``caller`` may see the private fields of bot ``bot``."""
    return caller.is_admin or caller.is_bot(bot)


class ReplayRefusal(Enum):
    """Why a replay view is refused: the caller must authenticate, or is not allowed."""

    UNAUTHENTICATED = "unauthenticated"
    DENIED = "denied"


@dataclass(frozen=True)
class Refused:
    """A refused replay view: the kind and a message for the caller."""

    kind: ReplayRefusal
    message: str


def replay_refusal(caller: Caller, match_id: str, ended: bool, seats: Sequence[str],
                   viewer: int | None) -> Refused | None:
    """Why ``caller`` may not read the replay of ``match_id`` as seat ``viewer`` (``None``: omniscient), or None
    when it may (see the module docstring)."""
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
