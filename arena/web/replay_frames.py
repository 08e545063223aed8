"""The frames of the replay viewer: the table after each decision of a recorded match, omniscient or as one seat
saw it (pure: a function of the organizer's ``Replay`` messages).

The match is rebuilt with the engine from the omniscient replay (its seed and accepted actions) by the arena's one
replay walk (:func:`arena.engine.walk.walk`: the arena's ``next_round`` actions between rounds are re-applied
where the engine waits for them), and every rebuilt event is
checked against the record, so a frame can never drift from what was played (:class:`ReplayMismatch`). A frame's
table is the engine's :class:`~arena.engine.Observation` of the viewer as the protocol encodes it (what a bot got
with its decision request), and for the omniscient view also every seat's hand. So the per-seat view holds exactly
what that seat's observation held (V1-V6), nothing more: the other seats' cards only as the faces showing to the
table, their hands only once a round is over (V5).

Frame ``0`` is the table after the deal (the replay's opening events); frame ``k`` the table after decision ``k``,
with that decision: who decided, the action, its latency, the legal actions the seat had (omniscient, or the
viewer's own decisions), and any refusal or fallback; and the events as the viewer saw them, in plain words (the
terminal's narrator: :mod:`arena.web.narration`) and as the arena's log lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.client import plain
from arena.engine import Match
from arena.engine.walk import WalkError, WalkStep, walk
from arena.protocol.convert import (
    action_from_proto,
    card_to_proto,
    event_from_proto,
    observation_to_proto,
    rules_from_proto,
)
from arena.web.narration import ReplayNarrator


class ReplayMismatch(ValueError):
    """The engine's rebuild of a record does not give the recorded events."""


@dataclass(frozen=True)
class Frames:
    """Every frame of one view of one match, plus what the page header needs."""

    match_id: str
    tournament_id: str
    viewer: int | None
    seats: list[dict[str, Any]]
    variant: str
    frames: list[dict[str, Any]]
    result: dict[str, Any] | None
    reason: str

    def frame(self, number: int) -> dict[str, Any]:
        """Frame ``number``; ValueError naming the range for one out of it."""
        if not 0 <= number < len(self.frames):
            raise ValueError(f"step {number} is not a step of match {self.match_id} (0 to {len(self.frames) - 1})")
        return self.frames[number]

    def step_of(self, decision_number: int) -> int:
        """The step (frame) of the decision numbered ``decision_number`` (as a ``DecisionRequest``, an incident
        or a ``ReplayStep`` numbers it); ValueError naming the match for a number it does not have."""
        for frame in self.frames:
            if frame["decision"] is not None and frame["decision"]["number"] == decision_number:
                return int(frame["number"])
        raise ValueError(f"match {self.match_id} has no decision {decision_number}")


def _event_texts(events: Any) -> list[str]:
    return [event.text or event.type for event in events]


def _told(narrator: ReplayNarrator, events: Any) -> dict[str, list[str]]:
    """A frame's events: in plain words (``events``) and as the arena's log lines (``log``)."""
    return {"events": narrator.lines([event_from_proto(event) for event in events]), "log": _event_texts(events)}


def _table(match: Match, viewer: int | None, names: list[str]) -> dict[str, Any]:
    """The table as ``viewer`` sees it (None: every hand), as plain data."""
    seat = 0 if viewer is None else viewer
    observation = plain(observation_to_proto(match.observation(seat, len(match.events))))
    observation.pop("events", None)
    seats: list[dict[str, Any]] = []
    opponents = {view["seat"]: view for view in observation["opponents"]}
    for number, name in enumerate(names):
        entry: dict[str, Any] = {"seat": number, "name": name, "score": observation["scores"][number]
                                 if number < len(observation["scores"]) else 0}
        if viewer is None:
            hand = [plain(card_to_proto(card)) for card in match.hand(number)]
            entry.update(count=len(hand), hand=hand, visible=[], revealed=[])
        elif number == viewer:
            entry.update(count=len(observation["hand"]), hand=observation["hand"], visible=[], revealed=[])
        else:
            view = opponents[number]
            entry.update(count=view["count"], hand=None, visible=view["visible"], revealed=view["revealed"])
        seats.append(entry)
    inactive = "dark" if observation["side"] == "SIDE_LIGHT" else "light"
    return {
        "side": "dark" if observation["side"] == "SIDE_DARK" else "light",
        "inactive_side": inactive,
        "direction": "counter-clockwise" if observation["direction"] == "DIRECTION_CCW" else "clockwise",
        "decision": observation["decision"].removeprefix("DECISION_KIND_").lower(),
        "current": observation["current"],
        "color": observation["color"],
        "top": observation["top"],
        "discard": observation["discard"][:8],
        "draw_size": observation["draw_size"],
        "draw_top": observation["draw_top"] if observation["draw_top"] and observation["draw_top"]["text"] else None,
        "round": observation["round"],
        "dealer": observation["dealer"],
        "round_winner": observation["round_winner"],
        "match_winner": observation["match_winner"],
        "seats": seats,
    }


def _decision(step: Any, walked: WalkStep, names: list[str]) -> dict[str, Any]:
    """The decision of a frame: who decided, the action, its latency, the legal actions (when the viewer may see
    them), and any refusal or fallback."""
    seat = step.seat
    return {
        "number": step.decision_number,
        "seat": seat,
        "bot": names[seat] if 0 <= seat < len(names) else "",
        "action": step.action.text or str(walked.action),
        "latency_ms": step.latency_ms,
        "fallback": step.fallback,
        "refusal": step.refusal,
        "legal": [a.text for a in walked.legal],
    }


def _check_events(omniscient: Any, match: Match) -> None:
    """:class:`ReplayMismatch` unless the rebuild gave as many events as the record lists (hands aside)."""
    recorded = sum(1 for e in omniscient.opening if e.type != "hand") + sum(
        1 for step in omniscient.steps for e in step.events if e.type != "hand")
    if recorded != len(match.events):
        raise ReplayMismatch(f"match {omniscient.match_id}: the rebuild gives {len(match.events)} events, the record "
                             f"{recorded}")


def replay_frames(omniscient: Any, view: Any = None) -> Frames:
    """The frames of a match: ``omniscient`` is the omniscient ``Replay`` message (it carries the seed), ``view``
    the ``Replay`` of one seat's view (its events are the ones listed) or None for the omniscient frames; the match
    is rebuilt through the arena's one replay walk (:func:`arena.engine.walk.walk`). :class:`ReplayMismatch`
    when the engine does not rebuild the record."""
    viewer = view.viewer if view is not None and view.HasField("viewer") else None
    shown = view if view is not None else omniscient
    rules = rules_from_proto(omniscient.rules)
    names = [seat.bot_name or seat.bot_id for seat in sorted(omniscient.seats, key=lambda s: s.seat)]
    match = Match(players=len(names), seed=omniscient.seed, rules=rules)
    if len(match.events) != len([e for e in omniscient.opening if e.type != "hand"]):
        raise ReplayMismatch(f"match {omniscient.match_id}: the rebuilt deal does not give the recorded opening")
    narrator = ReplayNarrator(names)
    frames = [{"number": 0, "decision": None, **_told(narrator, shown.opening), "table": _table(match, viewer, names)}]
    pairs = iter(zip(omniscient.steps, shown.steps, strict=True))
    decisions = [(step.seat, action_from_proto(step.action)) for step in omniscient.steps]
    try:
        for walked in walk(match, decisions, legal_for=lambda seat: viewer is None or viewer == seat):
            if walked.round_change:
                continue
            step, shown_step = next(pairs)
            frames.append({"number": len(frames), "decision": _decision(step, walked, names),
                           **_told(narrator, shown_step.events), "table": _table(match, viewer, names)})
    except WalkError as error:  # the engine's refusal: the record does not replay
        raise ReplayMismatch(f"match {omniscient.match_id}: decision {error.number} ({error.action}) does not "
                             f"replay: {error.error}") from None
    _check_events(omniscient, match)
    return Frames(
        match_id=omniscient.match_id, tournament_id=omniscient.tournament_id, viewer=viewer,
        seats=[{"seat": n, "name": name} for n, name in enumerate(names)], variant=rules.variant, frames=frames,
        result=plain(omniscient.result) if omniscient.HasField("result") else None,
        reason=plain(omniscient)["reason"],
    )
