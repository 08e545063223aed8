"""The stored replay of a match (:func:`stored_record`: the record with its per-decision log kept as columns, a few
per cent of a match's time where serialising the record's dataclasses would cost half of it), and the replay
viewers' walk of it (:func:`replay_steps`), through the arena's one replay walk (:func:`arena.engine.walk.walk`):
omniscient or as one seat saw it, with a ``hand`` event after each deal (every seat omnisciently, only the viewer's
own in a seat's view, V1) and after each round's end (every seat, V5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from arena.engine import Action, Event, Match, Rules, parse_action
from arena.engine.hands import Hands, current_hands, dealt_hands
from arena.engine.walk import walk
from arena.runner import DecisionOutcome, MatchRecord
from arena.store import Replay
from arena.store.replay_store import OUTCOME_LETTERS, EngineReplay


def stored_record(record: MatchRecord) -> Replay:
    decisions = record.decisions
    return Replay(
        match_id=record.match_id, tournament_id=record.tournament_id, group=record.group, seed=record.seed,
        rules=dict(record.rules), players=record.players, seats=tuple(record.seats), scores=tuple(record.scores),
        winner=record.winner, rounds=record.rounds, end_reason=record.end_reason,
        engine=EngineReplay.from_dict(record.replay), bot_versions=tuple(record.bot_versions),
        forfeits=tuple(record.forfeits), strikes=tuple(record.strikes), timeouts=tuple(record.timeouts),
        refusals=tuple(record.refusals), duration_s=record.duration_s, detail=record.detail,
        latency_us=tuple(int(d.latency_ms * 1000) for d in decisions),
        outcomes="".join(OUTCOME_LETTERS.get(d.outcome, "a") for d in decisions),
        refused={i: (d.refusals, tuple(d.reasons)) for i, d in enumerate(decisions) if d.refusals},
        declined=tuple(i for i, d in enumerate(decisions) if not d.applied),
        clock_us={i: (int(d.lag_ms * 1000), int(d.bank_ms * 1000)) for i, d in enumerate(decisions)
                  if d.lag_ms or d.bank_ms},
        hands=record.hands,
    )


def engine_actions(engine: EngineReplay) -> list[tuple[int | None, Action]]:
    """The actions of a stored engine replay, parsed (seat None for the arena's)."""
    variant = Rules.from_dict(engine.rules).variant
    return [(None if seat < 0 else seat, parse_action(text, variant)) for seat, text in engine.actions]


# -- the replay viewers' steps ------------------------------------------------------------------------------------

HAND_EVENT = "hand"
"""The type of the replay's hand events (never an engine event), with ``detail`` :data:`DEALT` or :data:`SHOWN`."""
DEALT = "dealt"
SHOWN = "shown at round end (V5)"


def hand_events(hands: Hands, detail: str, viewer: int | None) -> list[Event]:
    """The ``hand`` events of one deal or one round's end as ``viewer`` (None: omniscient) may see them."""
    return [Event(HAND_EVENT, seat=seat, cards=hand, count=len(hand), detail=detail)
            for seat, hand in enumerate(hands) if viewer is None or detail == SHOWN or seat == viewer]


_NOT_ANSWERED = frozenset({DecisionOutcome.TIMEOUT, DecisionOutcome.ERROR, DecisionOutcome.FALLBACK,
                           DecisionOutcome.FORFEITED})


@dataclass(frozen=True)
class ReplayStep:
    """One action of the replay, the events it caused as the viewer sees them, and how the decision went
    (``fallback``: the arena played it for the seat)."""

    number: int
    seat: int
    action: Action
    events: Sequence[Event]
    latency_ms: float | None = None
    fallback: bool = False
    refusal: str = ""


@dataclass(frozen=True)
class ReplayWalk:
    """A stored replay walked: the opening events, then one :class:`ReplayStep` per action (the next deal's events
    go with the step before it)."""

    rules: Rules
    seed: int
    opening: list[Event]
    steps: list[ReplayStep] = field(default_factory=list)


def replay_steps(replay: Replay, viewer: int | None) -> ReplayWalk:
    """Replay a stored match step by step, omniscient (``viewer`` None) or as seat ``viewer`` saw it."""
    engine = replay.engine
    rules = Rules.from_dict(engine.rules)
    match = Match(players=engine.players, seed=engine.seed, rules=rules)

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

    out = ReplayWalk(rules, engine.seed, seen(0))
    logs = [note for note in replay.decisions() if note.applied]  # one per action of the replay
    for step in walk(match, engine_actions(engine)):
        events = seen(step.start)
        if step.seat is None:  # the next deal's events go with the step before it
            if out.steps:
                out.steps[-1] = replace(out.steps[-1], events=[*out.steps[-1].events, *events])
            else:
                out.opening.extend(events)
        elif step.number <= len(logs):
            note = logs[step.number - 1]
            out.steps.append(ReplayStep(step.number, step.seat, step.action, events, float(note.latency_ms),
                                        note.outcome in _NOT_ANSWERED, "; ".join(note.reasons)[:500]))
        else:
            out.steps.append(ReplayStep(step.number, step.seat, step.action, events))
    return out
