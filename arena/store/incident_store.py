"""Per-bot incident log: what went wrong for a bot (refusals, timeouts, fallbacks, errors, forfeits, disconnects),
kept for its author to read afterwards.

One capped list per bot and a sequence counter: every incident gets the next number, so a reader that follows the
log asks for those after the last it saw. Incidents are built only from what the bot itself saw or sent: never a
seed, a token or another seat's cards.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

import redis

from ._codec import RecordStore
from .keys import Keys

INCIDENT_KINDS = ("refusal", "timeout", "fallback", "error", "forfeit", "disconnect")
"""Every kind of incident (the ``kind`` label of ``uno_arena_bot_incidents_total`` takes the same values)."""
MAX_INCIDENTS = 1000
"""Incidents kept per bot: older ones are dropped."""
MAX_DETAIL = 300
MAX_READ = 1000

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
    """One incident of a bot; ``seq`` is 0 until stored."""

    kind: str
    match_id: str = ""
    decision: int = 0
    """The decision number in the match (0: not about one decision)."""
    request_id: str = ""
    """The request id(s) it concerns (a disconnect: the decisions it left pending)."""
    detail: str = ""
    strike: int = 0
    """Which strike of the match this was, 0 for none."""
    at: float = 0.0
    """Unix seconds; for the incidents of a match, when the match ended."""
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
        seq, _, body = (raw.decode("utf-8") if isinstance(raw, bytes) else raw).partition(" ")
        return cls(**json.loads(body), seq=int(seq))

    def line(self) -> str:
        return incident_line(self.seq, self.at, self.kind, self.match_id, self.decision, self.request_id,
                             self.strike, self.detail)


def incident_line(seq: int, at: float, kind: str, match_id: str, decision: int, request_id: str, strike: int,
                  detail: str) -> str:
    """One line of an incident log for people: number, time (UTC), kind, where, what."""
    when = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(at)) if at else "-"
    where = [f"{label} {value}" for label, value in
             (("match", match_id), ("decision", decision), ("request", request_id), ("strike", strike)) if value]
    place = f" ({', '.join(where)})" if where else ""
    return f"#{seq} {when} {kind}{place}: {' '.join(detail.split())}"


class IncidentStore(RecordStore):
    def __init__(self, client: redis.Redis, keys: Keys, *, cap: int = MAX_INCIDENTS) -> None:
        if cap < 1:
            raise ValueError(f"cap must be at least 1, got {cap}")
        super().__init__(client, keys)
        self.cap = cap
        self._add = client.register_script(_ADD)

    def add(self, bot: str, incidents: Sequence[Incident]) -> int:
        """Append ``incidents`` to the log of ``bot`` in one round trip; the last sequence number given (0: none)."""
        if not incidents:
            return 0
        now = time.time()
        args = [str(self.cap), *(replace(i, at=i.at or now).to_json() for i in incidents)]
        return int(self._add(keys=[self._k.bot(bot, "incidents"), self._k.bot(bot, "incidents:seq")], args=args))

    def recent(self, bot: str, limit: int = 100) -> list[Incident]:
        """The newest ``limit`` incidents of ``bot`` (at most :data:`MAX_READ`), oldest first."""
        limit = max(1, min(int(limit), MAX_READ))
        return [Incident.from_stored(raw) for raw in self._r.lrange(self._k.bot(bot, "incidents"), -limit, -1)]

    def since(self, bot: str, after_seq: int, limit: int = 100) -> list[Incident]:
        """The incidents numbered after ``after_seq``, oldest first, at most ``limit`` (for following the log)."""
        newer = [i for i in self.recent(bot, MAX_READ) if i.seq > after_seq]
        return newer[:max(1, min(int(limit), MAX_READ))]

    def last_seq(self, bot: str) -> int:
        raw = self._r.get(self._k.bot(bot, "incidents:seq"))
        return int(raw) if raw is not None else 0
