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

Frames are built a page at a time (:func:`frame_page`: :data:`PAGE_FRAMES` frames, walking the match from its deal
to the page's end), never the whole match at once: a frame repeats the whole table (every hand, the discard), so a
long match's frames are tens of megabytes where its record (seed and actions) is a few; :class:`Frames` is only the
match's header and its index (how many frames, which decision each shows), built without walking.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
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


PAGE_FRAMES = 50
"""Frames per page: the unit the viewer's frames are built, kept and served in."""


@dataclass(frozen=True)
class FramePage:
    """Built frames (``first`` the number of the first) with each one's size as JSON, in bytes (what the web front's
    caches count and its JSON route bounds its answers by)."""

    first: int
    frames: list[dict[str, Any]]
    sizes: list[int]

    @property
    def bytes(self) -> int:
        return sum(self.sizes)

    def frame(self, number: int) -> dict[str, Any]:
        return self.frames[number - self.first]


def sized(first: int, frames: list[dict[str, Any]]) -> FramePage:
    """``frames`` as a :class:`FramePage`, each measured as compact JSON."""
    return FramePage(first, frames, [len(json.dumps(frame, separators=(",", ":"))) for frame in frames])


@dataclass(frozen=True)
class Frames:
    """One view of one match as the viewer needs it before any frame: the page header and the index of its frames
    (``count`` frames: the deal, then one per decision; ``decisions[k - 1]`` the decision number frame ``k`` shows).
    The frames themselves come a page at a time from :func:`frame_page`."""

    match_id: str
    tournament_id: str
    viewer: int | None
    seats: list[dict[str, Any]]
    variant: str
    result: dict[str, Any] | None
    reason: str
    decisions: tuple[int, ...]
    omniscient: Any = field(repr=False, compare=False)
    view: Any = field(repr=False, compare=False)

    @property
    def count(self) -> int:
        return 1 + len(self.decisions)

    @property
    def last(self) -> int:
        return len(self.decisions)

    def check_step(self, number: int) -> int:
        """``number``, or ValueError naming the range for one that is no step of the match."""
        if not 0 <= number < self.count:
            raise ValueError(f"step {number} is not a step of match {self.match_id} (0 to {self.last})")
        return number

    def step_of(self, decision_number: int) -> int:
        """The step (frame) of the decision numbered ``decision_number`` (as a ``DecisionRequest``, an incident
        or a ``ReplayStep`` numbers it); ValueError naming the match for a number it does not have."""
        try:
            return self.decisions.index(decision_number) + 1
        except ValueError:
            raise ValueError(f"match {self.match_id} has no decision {decision_number}") from None


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


def replay_index(omniscient: Any, view: Any = None) -> Frames:
    """The :class:`Frames` of a match (no frame built yet): ``omniscient`` is the omniscient ``Replay`` message (it
    carries the seed), ``view`` the ``Replay`` of one seat's view (its events are the ones listed) or None for the
    omniscient frames."""
    viewer = view.viewer if view is not None and view.HasField("viewer") else None
    names = [seat.bot_name or seat.bot_id for seat in sorted(omniscient.seats, key=lambda s: s.seat)]
    return Frames(
        match_id=omniscient.match_id, tournament_id=omniscient.tournament_id, viewer=viewer,
        seats=[{"seat": n, "name": name} for n, name in enumerate(names)],
        variant=rules_from_proto(omniscient.rules).variant,
        result=plain(omniscient.result) if omniscient.HasField("result") else None,
        reason=plain(omniscient)["reason"], decisions=tuple(step.decision_number for step in omniscient.steps),
        omniscient=omniscient, view=view,
    )


class FrameWalk:
    """A walk through one view of a match that builds its frames in order and can be resumed where it stopped (the
    next page of a viewer stepping forward, or of a client paging the JSON, costs that page's decisions only). The
    match is rebuilt through the arena's one replay walk (:func:`arena.engine.walk.walk`); every step is told (the
    narrator carries the side up along), the table is built only for the frames asked for.
    :class:`ReplayMismatch` when the engine does not rebuild the record (the whole record is checked when the walk
    reaches its end)."""

    def __init__(self, frames: Frames) -> None:
        omniscient = frames.omniscient
        self.frames = frames
        self._names = [seat["name"] for seat in frames.seats]
        self._shown = frames.view if frames.view is not None else omniscient
        self.match = Match(players=len(self._names), seed=omniscient.seed, rules=rules_from_proto(omniscient.rules))
        if len(self.match.events) != len([e for e in omniscient.opening if e.type != "hand"]):
            raise ReplayMismatch(f"match {omniscient.match_id}: the rebuilt deal does not give the recorded opening")
        self._narrator = ReplayNarrator(self._names)
        self._pairs = iter(zip(omniscient.steps, self._shown.steps, strict=True))
        viewer = frames.viewer
        decisions = ((step.seat, action_from_proto(step.action)) for step in omniscient.steps)
        self._walk = walk(self.match, decisions, legal_for=lambda seat: viewer is None or viewer == seat)
        self.next_frame = 0
        """The number of the next frame this walk builds."""

    @property
    def done(self) -> bool:
        return self.next_frame >= self.frames.count

    def build(self, first: int, stop: int) -> list[dict[str, Any]]:
        """Frames ``first`` to ``stop - 1`` (``first`` at or after :attr:`next_frame`; ValueError otherwise)."""
        if first < self.next_frame:
            raise ValueError(f"this walk is at frame {self.next_frame}: it cannot build frame {first}")
        stop = min(stop, self.frames.count)
        match, viewer, names = self.match, self.frames.viewer, self._names
        built: list[dict[str, Any]] = []
        if self.next_frame == 0 and stop > 0:
            told = _told(self._narrator, self._shown.opening)
            if first == 0:
                built.append({"number": 0, "decision": None, **told, "table": _table(match, viewer, names)})
            self.next_frame = 1
        try:
            while self.next_frame < stop:
                walked = next(self._walk)
                if walked.round_change:
                    continue
                step, shown_step = next(self._pairs)
                told = _told(self._narrator, shown_step.events)
                if self.next_frame >= first:
                    built.append({"number": self.next_frame, "decision": _decision(step, walked, names), **told,
                                  "table": _table(match, viewer, names)})
                self.next_frame += 1
        except WalkError as error:  # the engine's refusal: the record does not replay
            raise ReplayMismatch(f"match {self.frames.match_id}: decision {error.number} ({error.action}) does not "
                                 f"replay: {error.error}") from None
        if self.done:
            _check_events(self.frames.omniscient, match)
        return built


def frame_page(frames: Frames, page: int, walk_from: FrameWalk | None = None) -> tuple[list[dict[str, Any]],
                                                                                        FrameWalk]:
    """Page ``page`` of the frames (frames ``page * PAGE_FRAMES`` up to the next page's first, fewer on the last
    page), and the walk that built it, to resume for a later page: ``walk_from`` when it stands at or before the
    page, else a walk from the deal."""
    first = frames.check_step(page * PAGE_FRAMES)
    walker = walk_from if walk_from is not None and walk_from.next_frame <= first else FrameWalk(frames)
    return walker.build(first, first + PAGE_FRAMES), walker
