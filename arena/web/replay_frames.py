"""The frames of the replay viewer: the table after each decision of a recorded match, omniscient or as one seat
saw it (pure: a function of the organizer's ``Replay`` messages). The match is rebuilt with the engine by the arena's
one replay walk (:func:`arena.engine.walk.walk`) and checked against the record (:class:`ReplayMismatch`); a seat's
table holds exactly what its observation held (V1-V6). Frames are built a page at a time (:data:`PAGE_FRAMES`),
never the whole match (docs/web.md, "Pages, not whole matches").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from arena.client import plain
from arena.engine import Match
from arena.engine.walk import WalkError, WalkStep, walk
from arena.protocol.convert import action_from_proto, card_to_proto, event_from_proto, rules_from_proto
from arena.terminal import Narrator
from arena.web.narration import replay_narrator
from arena.web.seat_view import observation_data


class ReplayMismatch(ValueError):
    """The engine's rebuild of a record does not give the recorded events."""


PAGE_FRAMES = 50


@dataclass(frozen=True)
class FramePage:
    """Built frames (``first`` the number of the first) with each one's size as compact JSON, in bytes (what the
    caches count and the JSON route bounds its answers by)."""

    first: int
    frames: list[dict[str, Any]]
    sizes: list[int]

    def frame(self, number: int) -> dict[str, Any]:
        return self.frames[number - self.first]


def sized(first: int, frames: list[dict[str, Any]]) -> FramePage:
    return FramePage(first, frames, [len(json.dumps(frame, separators=(",", ":"))) for frame in frames])


@dataclass(frozen=True)
class ReplayHeader:
    """What a replay's page and its JSON say of the match, before any frame."""

    match_id: str
    tournament_id: str
    viewer: int | None
    seats: list[dict[str, Any]]
    variant: str
    result: dict[str, Any] | None
    reason: str


@dataclass(frozen=True)
class Frames(ReplayHeader):
    """One view of one match before any frame is built: its header and the index of its frames (the deal, then one
    per decision; ``decisions[k - 1]`` the decision number frame ``k`` shows)."""

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
        """The step (frame) of the decision numbered ``decision_number``; ValueError for one the match lacks."""
        try:
            return self.decisions.index(decision_number) + 1
        except ValueError:
            raise ValueError(f"match {self.match_id} has no decision {decision_number}") from None


def _told(narrator: Narrator, events: Any) -> dict[str, list[str]]:
    """A frame's events: in plain words (``events``) and as the arena's log lines (``log``)."""
    return {"events": narrator.lines([event_from_proto(event) for event in events]),
            "log": [event.text or event.type for event in events]}


_TABLE_KEYS = ("side", "decision", "current", "color", "top", "draw_size", "round", "dealer", "round_winner",
               "match_winner")
"""What a frame's table takes from the viewer's observation as it is."""


def _table(match: Match, viewer: int | None, names: list[str]) -> dict[str, Any]:
    """The table as ``viewer`` sees it (None: every hand), as plain data."""
    seat = 0 if viewer is None else viewer
    observation = observation_data(match.observation(seat, len(match.events)))
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
    return {key: observation[key] for key in _TABLE_KEYS} | {
        "inactive_side": "light" if observation["side"] == "dark" else "dark",
        "direction": "counter-clockwise" if observation["direction"] == "ccw" else "clockwise",
        "discard": observation["discard"][:8],
        "draw_top": observation["draw_top"] if observation["draw_top"] and observation["draw_top"]["text"] else None,
        "seats": seats,
    }


def _decision(step: Any, walked: WalkStep, names: list[str]) -> dict[str, Any]:
    """Who decided, the action, its latency, the legal actions (when the viewer may see them), refusal, fallback."""
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
    """The :class:`Frames` of a match: ``omniscient`` the omniscient ``Replay`` (it carries the seed), ``view`` the
    ``Replay`` of one seat's view (its events are the ones told) or None."""
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
    next page costs that page's decisions only); every step is told (the narrator carries the side up along), the
    table is built only for the frames asked for."""

    def __init__(self, frames: Frames) -> None:
        omniscient = frames.omniscient
        self.frames = frames
        self._names = [seat["name"] for seat in frames.seats]
        self._shown = frames.view if frames.view is not None else omniscient
        self.match = Match(players=len(self._names), seed=omniscient.seed, rules=rules_from_proto(omniscient.rules))
        if len(self.match.events) != len([e for e in omniscient.opening if e.type != "hand"]):
            raise ReplayMismatch(f"match {omniscient.match_id}: the rebuilt deal does not give the recorded opening")
        self._narrator = replay_narrator(self._names)
        self._pairs = iter(zip(omniscient.steps, self._shown.steps, strict=True))
        viewer = frames.viewer
        decisions = ((step.seat, action_from_proto(step.action)) for step in omniscient.steps)
        self._walk = walk(self.match, decisions, legal_for=lambda seat: viewer is None or viewer == seat)
        self.next_frame = 0

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
    """Page ``page`` of the frames and the walk that built it, to resume for a later page (``walk_from`` when it
    stands at or before the page, else a walk from the deal)."""
    first = frames.check_step(page * PAGE_FRAMES)
    walker = walk_from if walk_from is not None and walk_from.next_frame <= first else FrameWalk(frames)
    return walker.build(first, first + PAGE_FRAMES), walker
