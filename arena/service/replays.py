"""The stored replay of a match, and walking it step by step as the replay viewers show it.

The stored replay is the :class:`arena.runner.MatchRecord` in a compact form (:func:`stored_record`):
every field of the record but the per-decision log, which is kept as columns (``latency_us``: one integer
per decision; ``outcomes``: one letter per decision, ``a``nswered, ``t``imeout, ``e``rror, ``f``allback,
``F`` forfeited, ``u``nreachable at first (an infrastructure fault, then answered); ``refused``:
``{decision index: [count, reasons]}`` for the few decisions with refused answers; ``declined``: the indexes
of declined catch offers, decisions that are no action of the replay; ``clock_us``: ``{decision index: [lag
compensation, time bank used]}`` in microseconds, for the decisions that had either); ``hands``: every round's
hands as dealt and as shown at its end (:func:`arena.runner.record.hands_to_json`, taken by the runner while the
match ran; records stored before it have none, and a walk of the replay through the engine works them out).
Serialising the record's dataclasses one by one costs about half a match; this form costs a few per cent.
:func:`decision_columns` reads either form back, and :func:`replay_steps` replays it through the engine,
omniscient or as one seat saw it, with the hands: a ``hand`` event (``cards``: the hand) after each deal, for
every seat omnisciently and for the viewer's own seat only in a seat's view (V1), and after each round's end
for every seat (V5: all hands are revealed for scoring), in both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine import Action, Event, Match, Rules, parse_action
from arena.engine.hands import Hands, current_hands, dealt_hands, round_hands
from arena.runner import DecisionOutcome, MatchRecord
from arena.runner.record import hands_to_json

RECORD_FORMAT = 1
_RECORD_FIELDS = (
    "match_id", "tournament_id", "group", "seed", "rules", "players", "seats", "bot_versions", "scores",
    "winner", "rounds", "end_reason", "forfeits", "strikes", "timeouts", "refusals", "duration_s", "detail",
)  # fmt: skip
_OUTCOME_LETTERS = {"answered": "a", "timeout": "t", "error": "e", "fallback": "f", "forfeited": "F",
                    "unreachable": "u"}
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
    data["clock_us"] = {str(i): [int(d.lag_ms * 1000), int(d.bank_ms * 1000)] for i, d in enumerate(decisions)
                        if d.lag_ms or d.bank_ms}
    data["hands"] = record.hands if record.hands is not None else hands_to_json(round_hands(record.replay))
    return data


HAND_EVENT = "hand"
"""The type of the replay's hand events (never an engine event): ``seat``, ``cards`` (the hand) and ``detail``
:data:`DEALT` or :data:`SHOWN`."""
DEALT = "dealt"
SHOWN = "shown at round end (V5)"


def hand_events(hands: Hands, detail: str, viewer: int | None) -> list[Event]:
    """The ``hand`` events of one deal or one round's end as ``viewer`` (None: omniscient) may see them: a dealt
    hand only by its own seat (V1), hands shown at a round's end by everyone (V5)."""
    return [Event(HAND_EVENT, seat=seat, cards=hand, count=len(hand), detail=detail)
            for seat, hand in enumerate(hands) if viewer is None or detail == SHOWN or seat == viewer]


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


def decision_clock(data: dict[str, Any]) -> dict[int, tuple[float, float]]:
    """``{decision index: (lag compensation ms, time bank used ms)}`` for the decisions that had either, from either
    stored form (``MatchConfig.lag_cap_s``, ``MatchConfig.time_bank_s``)."""
    if "outcomes" in data:
        return {int(i): (lag / 1000.0, bank / 1000.0) for i, (lag, bank) in dict(data.get("clock_us") or {}).items()}
    full = MatchRecord.from_dict(data)
    return {i: (d.lag_ms, d.bank_ms) for i, d in enumerate(full.decisions) if d.lag_ms or d.bank_ms}


_NOT_ANSWERED = frozenset({DecisionOutcome.TIMEOUT, DecisionOutcome.ERROR, DecisionOutcome.FALLBACK,
                           DecisionOutcome.FORFEITED})


@dataclass(frozen=True)
class ReplayStep:
    """One action of the replay: who did what, the events it caused (as the viewer sees them) and how the
    decision went (``fallback``: the arena played it for the seat)."""

    number: int
    seat: int
    action: Action
    events: Sequence[Event]
    latency_ms: float | None = None
    fallback: bool = False
    refusal: str = ""


@dataclass(frozen=True)
class ReplayWalk:
    """A stored replay walked through the engine: the opening events, then one :class:`ReplayStep` per
    action (the next deal's events are added to the step before it)."""

    rules: Rules
    seed: int
    opening: list[Event]
    steps: list[ReplayStep]


def replay_steps(record: dict[str, Any], viewer: int | None) -> ReplayWalk:
    """Replay a stored record step by step, omniscient (``viewer`` None) or as seat ``viewer`` saw it."""
    engine_replay = record["replay"]
    rules = Rules.from_dict(engine_replay["rules"])
    match = Match(players=int(engine_replay["players"]), seed=int(engine_replay["seed"]), rules=rules)

    def seen(since: int) -> list[Event]:
        events = match.events[since:] if viewer is None else match.observation(viewer, since).events
        out: list[Event] = []
        for event in events:  # each deal and each round's end is followed by the hands it shows
            out.append(event)
            if event.type == "round_started":
                out += hand_events(dealt_hands(match), DEALT, viewer)
            elif event.type == "round_over":
                out += hand_events(current_hands(match), SHOWN, viewer)
        return out

    opening = seen(0)
    steps: list[ReplayStep] = []
    logs = [columns for columns in decision_columns(record) if columns[3]]  # one per action of the replay
    number = 0
    for seat, text in engine_replay["actions"]:
        action = parse_action(text, rules.variant)
        before = len(match.events)
        match.apply(None if seat < 0 else seat, action)
        events = seen(before)
        if action.kind == "next_round":
            if steps:
                last = steps[-1]
                steps[-1] = ReplayStep(last.number, last.seat, last.action, [*last.events, *events], last.latency_ms,
                                       last.fallback, last.refusal)
            else:
                opening.extend(events)
            continue
        number += 1
        if number <= len(logs):
            latency_ms, outcome, reasons, _ = logs[number - 1]
            steps.append(ReplayStep(number, seat, action, events, float(latency_ms), outcome in _NOT_ANSWERED,
                                    "; ".join(str(r) for r in reasons)[:500]))
        else:
            steps.append(ReplayStep(number, seat, action, events))
    return ReplayWalk(rules, int(engine_replay["seed"]), opening, steps)
