"""The incidents of a played match, for the incident logs of its registered bots (:mod:`arena.store.incidents`).

:func:`match_incidents` reads them off the :class:`~arena.runner.MatchRecord` alone (pure): every refused answer
with its reasons, every timeout, every decision asked while the bot was not connected (the fallback was played)
and every error, each with its decision number and which strike of the match it was, and a forfeit with the
record's explanation. Built-in bots (played in process) keep no log. At most :data:`MAX_PER_MATCH` incidents per
bot and match are kept (the forfeit always): a bot that fails every decision gets a readable log, not a flood.

:func:`log_match_incidents` writes them, one round trip per bot, and counts them in
``uno_arena_bot_incidents_total``; the worker's match player calls it when a match ends. A failure to write is
logged, never raised: the log is for the bot's author, the result is what counts.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
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


def _forfeit_detail(record: MatchRecord, seat: int) -> str:
    for part in record.detail.split("; "):
        if part.startswith(f"seat {seat} "):
            return part
    return f"forfeited after {record.strikes[seat]} strikes"


def match_incidents(record: MatchRecord, names: Sequence[str], at: float | None = None) -> dict[str, list[Incident]]:
    """Registered bot name -> its incidents in the match (only bots that had some), oldest first. ``names``: the
    participants in seat order; ``at``: when they are recorded (default now)."""
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
            out.setdefault(names[seat], []).append(
                Incident("forfeit", record.match_id, detail=_forfeit_detail(record, seat), at=when))
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
    """Write the incidents of a played match to its registered bots' logs (see the module docstring)."""
    for bot, incidents in match_incidents(record, names).items():
        log_incidents(store, bot, incidents, metrics)
