"""The Redis key scheme of uno-arena: every key the store writes, under one prefix (``uno:`` by default).

The catalogue of every key, its type and contents is in docs/operations.md ("Redis keys"). Every part of a key
that comes from outside is validated here, so no input can name another key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from arena.tournament.limits import quoted

DEFAULT_PREFIX = "uno:"
BotPart = Literal["sessions", "versions", "version-matches", "lost", "ended", "slots", "incidents", "incidents:seq",
                  "submissions", "hosted", "output", "submit-attempts"]
TournamentPart = Literal["matches", "results", "progress", "standings"]
RUN_PARTS = ("run", "batches", "batch_state", "attempts", "feed", "check_lock")

BOT_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
"""Bot names: 1-32 characters, letters, digits, ``_`` and ``-``, starting with a letter or digit."""

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$")
"""Ids the arena builds (match, session and rating-pool ids, the scheduler's idempotency keys)."""

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
"""Ids a user chooses (tournaments, schedules, idempotency keys). No ``:``, the key separator: a schedule
``NAME:fired:DUE`` would otherwise be the fire-once lock of ``NAME``."""


class InvalidName(ValueError):
    """A bot name or an id does not follow the allowed charset or length."""


def _checked(value: str, what: str, pattern: re.Pattern[str], allowed: str, max_length: int) -> str:
    if not isinstance(value, str) or len(value) > max_length or not pattern.match(value):
        raise InvalidName(
            f"invalid {what} {quoted(value)}: use 1-{max_length} {allowed}, starting with a letter or digit"
        )
    return value


def bot_key(name: str) -> str:
    """The key form of a bot name (casefolded) after validating it; raises :class:`InvalidName`."""
    return _checked(name, "bot name", BOT_NAME_RE, "letters, digits, '_' or '-'", 32).casefold()


def check_id(value: str, what: str = "id") -> str:
    return _checked(value, what, ID_RE, "letters, digits, '_', '.', ':' or '-'", 200)


def check_name(value: str, what: str = "name", max_length: int = 200) -> str:
    return _checked(value, what, NAME_RE, "letters, digits, '_', '.' or '-'", max_length)


@dataclass(frozen=True)
class Keys:
    prefix: str = DEFAULT_PREFIX

    def __post_init__(self) -> None:
        if not self.prefix.endswith(":") or not re.match(r"^[A-Za-z0-9_.:-]+$", self.prefix):
            raise ValueError(
                f"key prefix must be letters, digits, '_', '.', '-' and end with ':', got {self.prefix!r}"
            )

    def bots(self) -> str:
        return f"{self.prefix}bots"

    def bot(self, name: str, part: BotPart | None = None) -> str:
        """The bot's hash, or one of its other keys (``uno:bot:{bot}:{part}``)."""
        return f"{self.prefix}bot:{bot_key(name)}" + (f":{part}" if part else "")

    def archive_refs(self) -> str:
        return f"{self.prefix}archives"

    def hosted(self) -> str:
        return f"{self.prefix}hosted"

    def uid_range(self) -> str:
        return f"{self.prefix}identity:range"

    def uid_counter(self) -> str:
        return f"{self.prefix}identity:next"

    def bot_uids(self) -> str:
        return f"{self.prefix}identity:bots"

    def check_queue(self) -> str:
        return f"{self.prefix}hosted:queue"

    def session(self, session_id: str) -> str:
        return f"{self.prefix}session:{check_id(session_id, 'session id')}"

    def tournaments(self) -> str:
        return f"{self.prefix}tournaments"

    def tournament(self, tid: str, part: TournamentPart | None = None) -> str:
        """The tournament's hash, or one of its other keys (``uno:tournament:{tid}:{part}``)."""
        return f"{self.prefix}tournament:{check_name(tid, 'tournament id')}" + (f":{part}" if part else "")

    def idempotency(self, key: str) -> str:
        return f"{self.prefix}idem:tournament:{check_id(key, 'idempotency key')}"

    def replay(self, match_id: str) -> str:
        return f"{self.prefix}replay:{check_id(match_id, 'match id')}"

    def ratings(self, pool: str) -> str:
        return f"{self.prefix}ratings:{check_id(pool, 'rating pool')}"

    def batch_ratings(self, pool: str) -> str:
        return f"{self.prefix}batch-ratings:{check_id(pool, 'rating pool')}"

    def schedules(self) -> str:
        return f"{self.prefix}schedules"

    def schedule(self, sid: str) -> str:
        return f"{self.prefix}schedule:{check_name(sid, 'schedule id')}"

    def schedule_fired(self, sid: str, due: int) -> str:
        return f"{self.schedule(sid)}:fired:{int(due)}"

    def canary(self) -> str:
        return f"{self.prefix}canary"

    def gauntlets(self) -> str:
        return f"{self.prefix}gauntlets"

    def gauntlet(self, gid: str) -> str:
        return f"{self.prefix}gauntlet:{check_name(gid, 'gauntlet id')}"

    def gauntlet_blocks(self, gid: str) -> str:
        return f"{self.gauntlet(gid)}:blocks"

    def tournament_run(self, tid: str, part: str) -> str:
        if part not in RUN_PARTS:
            raise ValueError(f"unknown run key part {part!r} (one of {', '.join(RUN_PARTS)})")
        return f"{self.tournament(tid)}:{part}"

    def match_claim(self, tid: str, match_id: str) -> str:
        return f"{self.tournament(tid)}:claim:{match_id}"

    def relay_queue(self, gateway_id: str) -> str:
        return f"{self.prefix}relay:{gateway_id}"

    def relay_reply(self, reply_id: str) -> str:
        return f"{self.prefix}relay:reply:{reply_id}"

    def relay_replies(self, hub_id: str) -> str:
        return f"{self.prefix}relay:replies:{hub_id}"

    def relay_live(self, gateway_id: str) -> str:
        return f"{self.prefix}relay:live:{gateway_id}"
