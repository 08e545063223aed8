"""Per-bot incident log: what went wrong for a bot, kept for its author to read afterwards.

An :class:`Incident` is one thing the arena held against a bot or noticed about it: a ``refusal`` (an answer the
arena refused, with the reason text), a ``timeout`` (no valid answer before the deadline), a ``fallback`` (the bot
was not connected when asked: the arena played the safe action for it), an ``error`` (an in-process bot raised, or
a remote bot's own code raised and its kit said so with the safe answer it sent, ``Decision.bot_error``),
a ``forfeit`` (too many strikes: the rest of the match was played for it) and a ``disconnect`` (a stream of the
bot ended, with why). Each names the match and the decision number where it has them (a disconnect names the
request ids of the decisions it left pending), the time it was recorded, and for a timeout, fallback or error
which strike of the match it was.

The log of one bot is a capped Redis list (``RPUSH`` + ``LTRIM``: the newest :data:`MAX_INCIDENTS` are kept)
and a sequence counter; every incident gets the next number (``seq``), so a reader that follows the log asks for
those after the last it saw (:meth:`IncidentStore.since`). Incidents are secrets-safe by construction: they are
built from what the bot itself saw or sent (its own decisions' outcomes and reasons, its own streams) and never
carry a seed, a token or another seat's cards; details are cut at :data:`MAX_DETAIL` characters.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import redis

from .keys import Keys

INCIDENT_KINDS = ("refusal", "timeout", "fallback", "error", "forfeit", "disconnect")
"""Every kind of incident (the ``kind`` label of ``uno_arena_bot_incidents_total`` takes the same values)."""
MAX_INCIDENTS = 1000
"""Incidents kept per bot: older ones are dropped."""
MAX_DETAIL = 300
"""Characters of an incident's detail kept."""
MAX_READ = 1000
"""The most incidents one read returns."""

_ADD = """
local first = redis.call('INCRBY', KEYS[2], #ARGV - 1) - (#ARGV - 1)
for i = 2, #ARGV do
  redis.call('RPUSH', KEYS[1], string.format('%d', first + i - 1) .. ' ' .. ARGV[i])
end
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[1]), -1)
return first + #ARGV - 1
"""


@dataclass(frozen=True)
class Incident:
    """One incident of a bot (see the module docstring); ``seq`` is 0 until stored."""

    kind: str
    match_id: str = ""
    decision: int = 0
    """The decision number in the match (0: not about one decision)."""
    request_id: str = ""
    """The request id(s) it concerns, when known (a disconnect: the decisions it left pending)."""
    detail: str = ""
    strike: int = 0
    """Which strike of the match this was (timeouts, fallbacks, errors), 0 for none."""
    at: float = 0.0
    """When it was recorded (Unix seconds); for the incidents of a match, when the match ended."""
    seq: int = 0

    def __post_init__(self) -> None:
        if self.kind not in INCIDENT_KINDS:
            raise ValueError(f"unknown incident kind {self.kind!r}; expected one of {', '.join(INCIDENT_KINDS)}")

    def to_json(self) -> str:
        data = asdict(self)
        data.pop("seq")
        data["detail"] = self.detail[:MAX_DETAIL]
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_stored(cls, raw: bytes | str) -> Incident:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        seq, _, body = text.partition(" ")
        data: Mapping[str, Any] = json.loads(body)
        return cls(kind=str(data["kind"]), match_id=str(data.get("match_id", "")),
                   decision=int(data.get("decision", 0)), request_id=str(data.get("request_id", "")),
                   detail=str(data.get("detail", "")), strike=int(data.get("strike", 0)),
                   at=float(data.get("at", 0.0)), seq=int(seq))

    def line(self) -> str:
        """One line for people: time, kind, where, what."""
        return incident_line(self.seq, self.at, self.kind, self.match_id, self.decision, self.request_id,
                             self.strike, self.detail)


def incident_line(seq: int, at: float, kind: str, match_id: str, decision: int, request_id: str, strike: int,
                  detail: str) -> str:
    """One line of an incident log for people: number, time (UTC), kind, where, what (on one line)."""
    when = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(at)) if at else "-"
    where = [f"match {match_id}"] if match_id else []
    if decision:
        where.append(f"decision {decision}")
    if request_id:
        where.append(f"request {request_id}")
    if strike:
        where.append(f"strike {strike}")
    place = f" ({', '.join(where)})" if where else ""
    return f"#{seq} {when} {kind}{place}: {' '.join(detail.split())}"


class IncidentStore:
    """Add to and read each bot's capped incident log."""

    def __init__(self, client: redis.Redis, keys: Keys, *, cap: int = MAX_INCIDENTS) -> None:
        if cap < 1:
            raise ValueError(f"cap must be at least 1, got {cap}")
        self._r = client
        self._k = keys
        self.cap = cap
        self._add = client.register_script(_ADD)

    def add(self, bot: str, incidents: Sequence[Incident]) -> int:
        """Append ``incidents`` to the log of ``bot`` (oldest dropped past the cap); the last sequence number
        given (0 when ``incidents`` is empty). One round trip; InvalidName for a malformed bot name."""
        if not incidents:
            return 0
        now = time.time()
        args = [str(self.cap), *(i.to_json() if i.at else Incident(**{**asdict(i), "at": now}).to_json()
                                 for i in incidents)]
        return int(self._add(keys=[self._k.bot_incidents(bot), self._k.bot_incident_seq(bot)], args=args))

    def recent(self, bot: str, limit: int = 100) -> list[Incident]:
        """The newest ``limit`` incidents of ``bot`` (at most :data:`MAX_READ`), oldest first."""
        limit = max(1, min(int(limit), MAX_READ))
        return [Incident.from_stored(raw) for raw in self._r.lrange(self._k.bot_incidents(bot), -limit, -1)]

    def since(self, bot: str, after_seq: int, limit: int = 100) -> list[Incident]:
        """The incidents numbered after ``after_seq`` (oldest first, at most ``limit``): for following the log.
        Incidents dropped by the cap before they were read are skipped."""
        limit = max(1, min(int(limit), MAX_READ))
        newer = [i for i in self.recent(bot, MAX_READ) if i.seq > after_seq]
        return newer[:limit]

    def last_seq(self, bot: str) -> int:
        """The number of the newest incident of ``bot`` (0: none yet)."""
        raw = self._r.get(self._k.bot_incident_seq(bot))
        return int(raw) if raw is not None else 0
