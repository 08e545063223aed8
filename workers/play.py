"""The match player of a worker: one scheduled match through :func:`arena.match.run_match`.

:class:`MatchPlayer` is the ``play`` callable of :func:`workers.tournaments.run_batch`: it builds
the seats (:mod:`workers.matches`), runs the match on an event loop it keeps for the process, and
returns the result and the replay to store.

The stored replay is the :class:`arena.match.MatchRecord` in a compact form
(:func:`stored_record`): every field of the record but the per-decision log, which is kept as
columns (``latency_us``: one integer per decision; ``outcomes``: one letter per decision,
``a``nswered, ``t``imeout, ``f``allback, ``F`` forfeited; ``refused``: ``{decision index:
[count, reasons]}`` for the few decisions with refused answers; ``declined``: the indexes of declined
catch offers, decisions that are no action of the replay). Serialising the record's
dataclasses one by one costs about half a match; this form costs a few per cent.
:func:`decision_columns` reads either form back.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from arena.match import MatchRecord, run_match
from arena.store import Store
from arena.tournament import MatchSpec

from .matches import match_config, result_of, seats_for


class MatchPlayer:
    """Plays matches for one store; keeps one event loop per process (rebuilt after a fork)."""

    def __init__(self, store: Store, metrics: Any = None) -> None:
        self.store = store
        self.metrics = metrics
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid = 0

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None or self._loop.is_closed() or self._pid != os.getpid():
            self._loop = asyncio.new_event_loop()
            self._pid = os.getpid()
        return self._loop

    def __call__(self, spec: MatchSpec) -> tuple[dict[str, Any], dict[str, Any]]:
        config = match_config(spec)
        seats = seats_for(self.store, spec)
        loop = self._event_loop()
        try:
            record = loop.run_until_complete(run_match(config, seats))
        except BaseException:
            # An interrupted loop (soft time limit, a crash inside the runner) is not reused.
            self.close()
            raise
        return result_of(record, spec), stored_record(record)

    def close(self) -> None:
        loop, self._loop = self._loop, None
        if loop is not None and not loop.is_closed():
            try:
                for task in asyncio.all_tasks(loop):
                    task.cancel()
                loop.run_until_complete(loop.shutdown_asyncgens())
            except RuntimeError:
                pass
            finally:
                loop.close()


RECORD_FORMAT = 1
_RECORD_FIELDS = (
    "match_id", "tournament_id", "group", "seed", "rules", "players", "seats", "bot_versions", "scores",
    "winner", "rounds", "end_reason", "forfeits", "strikes", "timeouts", "refusals", "duration_s", "detail",
)  # fmt: skip
_OUTCOME_LETTERS = {"answered": "a", "timeout": "t", "fallback": "f", "forfeited": "F"}
_LETTER_OUTCOMES = {v: k for k, v in _OUTCOME_LETTERS.items()}


def stored_record(record: MatchRecord) -> dict[str, Any]:
    """The compact, JSON-ready form of a match record that workers store as its replay."""
    data: dict[str, Any] = {name: getattr(record, name) for name in _RECORD_FIELDS}
    data["format"] = RECORD_FORMAT
    data["replay"] = record.replay
    decisions = record.decisions
    data["latency_us"] = [int(d.latency_ms * 1000) for d in decisions]
    data["outcomes"] = "".join(_OUTCOME_LETTERS.get(d.outcome, "a") for d in decisions)
    data["refused"] = {str(i): [d.refusals, list(d.reasons)] for i, d in enumerate(decisions) if d.refusals}
    data["declined"] = [i for i, d in enumerate(decisions) if not d.applied]
    return data


def decision_columns(data: dict[str, Any]) -> list[tuple[float, str, list[str], bool]]:
    """``(latency_ms, outcome, refusal reasons, applied)`` per decision, from either stored form;
    ``applied`` is False for a declined catch offer (a decision that is no action of the replay)."""
    if "outcomes" in data:
        refused = dict(data.get("refused") or {})
        declined = set(data.get("declined") or ())
        out = []
        for i, (latency, letter) in enumerate(zip(data.get("latency_us") or [], data["outcomes"], strict=False)):
            reasons = list(refused.get(str(i), [0, []])[1])
            out.append((latency / 1000.0, _LETTER_OUTCOMES.get(letter, "answered"), reasons, i not in declined))
        return out
    full = MatchRecord.from_dict(data)
    return [(d.latency_ms, d.outcome, list(d.reasons), d.applied) for d in full.decisions]
