"""The incidents of a played match for its registered bots' incident logs (docs/writing-a-bot.md, "Your incident
log"): :func:`match_incidents` reads them off the record (pure), at most :data:`MAX_PER_MATCH` per bot and match so
a bot that fails every decision gets a readable log, not a flood; :func:`log_match_incidents` writes and counts
them, and a failure to write is logged, never raised. :class:`CodeError` is a remote bot's own report that its code
failed on a decision, made printable and bounded (:func:`code_error`).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.runner import DecisionOutcome, MatchRecord
from arena.store import Incident, Store

from .matches import is_builtin

log = logging.getLogger("uno_arena.incidents")

MAX_PER_MATCH = 50
"""Incidents kept per bot and match (the forfeit, if any, comes on top)."""

_STRIKES = {
    DecisionOutcome.TIMEOUT.value: ("timeout", "no valid answer before the deadline"),
    DecisionOutcome.FALLBACK.value: ("fallback", "the bot was not connected when asked: the safe action was played "
                                                 "for it"),
    DecisionOutcome.ERROR.value: ("error", "the bot raised or answered out of range"),
}


def match_incidents(record: MatchRecord, names: Sequence[str], at: float | None = None) -> dict[str, list[Incident]]:
    """Registered bot name -> its incidents in the match (only bots that had some), oldest first; ``names``: the
    participants in seat order."""
    when = time.time() if at is None else at
    out: dict[str, list[Incident]] = {}
    strikes = [0] * len(names)
    for d in record.decisions:
        name = names[d.seat]
        if is_builtin(name):
            continue
        found = []
        reasons = "; ".join(d.reasons)
        if d.refusals and d.outcome != DecisionOutcome.ERROR.value:  # an error's reason is the error's detail
            detail = reasons or f"{d.refusals} answers refused"
            found.append(Incident("refusal", record.match_id, d.decision_number, detail=detail, at=when))
        struck = _STRIKES.get(d.outcome)
        if struck is not None:
            strikes[d.seat] += 1
            detail = f"{struck[1]}: {reasons}" if d.outcome == DecisionOutcome.ERROR.value and reasons else struck[1]
            found.append(Incident(struck[0], record.match_id, d.decision_number, detail=detail,
                                  strike=strikes[d.seat], at=when))
        if found:
            kept = out.setdefault(name, [])
            kept.extend(found[:max(0, MAX_PER_MATCH - len(kept))])
    for seat in record.forfeits:
        if not is_builtin(names[seat]):
            detail = next((part for part in record.detail.split("; ") if part.startswith(f"seat {seat} ")),
                          f"forfeited after {record.strikes[seat]} strikes")
            out.setdefault(names[seat], []).append(Incident("forfeit", record.match_id, detail=detail, at=when))
    return {name: incidents for name, incidents in out.items() if incidents}


def log_incidents(store: Store, bot: str, incidents: Sequence[Incident], metrics: Any = None) -> None:
    """Append ``incidents`` to the log of ``bot`` and count them; a failure is logged, not raised."""
    if not incidents:
        return
    try:
        store.incidents.add(bot, incidents)
    except Exception as error:
        log.warning("could not write %d incidents of bot %s: %s: %s", len(incidents), bot, type(error).__name__,
                    error)
        return
    if metrics is not None:
        for kind, count in Counter(i.kind for i in incidents).items():
            metrics.record_incidents(bot, kind, count)


def log_match_incidents(store: Store, record: MatchRecord, names: Sequence[str], metrics: Any = None) -> None:
    for bot, incidents in match_incidents(record, names).items():
        log_incidents(store, bot, incidents, metrics)


MAX_ERROR_TEXT = 200
"""Characters kept of a reported exception's type and of its message."""
MAX_TRACEBACK = 2000
"""Characters kept of a reported traceback (its end: the frames nearest the error)."""
MAX_TRACEBACK_LINES = 30
"""Lines kept of a reported traceback (its last ones)."""


def printable(text: str, limit: int) -> str:
    """``text`` with every control character but the newline made a space (no terminal escapes, no carriage
    returns from a bot), at most ``limit`` characters (cut with ``...``)."""
    clean = "".join(c if c == "\n" or (c.isprintable() and c != "\x7f") else " " for c in text[:limit * 2])
    return clean if len(clean) <= limit else clean[:max(0, limit - 3)] + "..."


@dataclass(frozen=True)
class CodeError:
    """A bot's report that its own code failed on one decision, made printable and bounded (:func:`code_error`)."""

    match_id: str
    decision: int
    request_id: str
    kind: str
    """The exception's type, e.g. ``ZeroDivisionError``."""
    message: str
    traceback: str
    """The end of the traceback (at most :data:`MAX_TRACEBACK_LINES` lines, :data:`MAX_TRACEBACK` characters)."""

    def summary(self) -> str:
        return f"match {self.match_id}, decision {self.decision}: {self.kind}: {self.message}"

    def incident(self) -> Incident:
        """The ``error`` incident of the bot's log (no strike: the bot answered, with the safe legal action)."""
        return Incident("error", self.match_id, self.decision, request_id=self.request_id,
                        detail=f"the bot's code raised {self.kind}: {self.message} (it answered the safe legal "
                               "action instead)")


def code_error(match_id: str, decision: int, request_id: str, kind: str, message: str, traceback: str) -> CodeError:
    """A :class:`CodeError` from the bot's free text, each field printable and bounded."""
    one_line = " ".join(message.split())
    lines = [line.rstrip() for line in traceback.replace("\r", "").split("\n") if line.strip()]
    tail = "\n".join(lines[-MAX_TRACEBACK_LINES:])
    return CodeError(match_id, decision, request_id, printable(" ".join(kind.split()) or "an exception",
                                                                MAX_ERROR_TEXT),
                     printable(one_line, MAX_ERROR_TEXT), printable(tail[-MAX_TRACEBACK:], MAX_TRACEBACK))
