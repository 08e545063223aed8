"""The rule-scenario runner: replays scenario files (format: docs/scenarios.md) on the real engine.

A scenario is a position or a stacked deal, steps (actions and expectations) and what must hold after
them. `run_scenario` returns a ScenarioResult; `load_scenario` raises InvalidScenario (exit code 2 in the
CLI) for a file that is not a valid scenario, naming the JSON path and why.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from arena.engine import Action, Card, IllegalAction, Match, Rules, parse_card


class InvalidScenario(ValueError):
    """A file that is not a valid scenario: `where` is the JSON path, the message says why."""

    def __init__(self, path: str, where: str, why: str) -> None:
        super().__init__(f"{path}: {where}: {why}")
        self.path, self.where, self.why = path, where, why


class StepFailed(Exception):
    """An expectation that did not hold or an action refused (or accepted) against the scenario."""


@dataclass(frozen=True)
class ScenarioResult:
    name: str
    path: str
    passed: bool
    message: str = ""


@cache
def _schema() -> dict[str, Any]:
    text = resources.files("arena.scenarios").joinpath("schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _json_path(parts: Any) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def load_scenario(path: Path) -> dict[str, Any]:
    """Read and schema-check one scenario file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidScenario(str(path), "$", f"cannot read the file: {error}") from error
    except json.JSONDecodeError as error:
        raise InvalidScenario(str(path), "$", f"not JSON: {error}") from error
    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        assert best is not None
        raise InvalidScenario(str(path), _json_path(best.absolute_path), best.message)
    return data


def build_match(data: dict[str, Any], path: str = "<scenario>") -> Match:
    """The match a scenario starts from (its `state` or `deal`)."""
    options = dict(data.get("options", {}))
    seed = options.pop("seed", 0)
    try:
        rules = Rules(variant=data.get("variant", "flip"), **options)
    except ValueError as error:
        raise InvalidScenario(path, "$.options", str(error)) from error
    players = data["players"]
    try:
        if "deal" in data:
            deal = data["deal"]
            return Match.from_deal(players, deal["deck"], deal["dealer"], rules=rules, seed=seed,
                                   scores=deal.get("scores"))
        state = data["state"]
        return Match.from_position(
            players, state["hands"], state["draw"], state["discard"], state["current"], rules=rules,
            seed=seed, side=state.get("side", "light"), dealer=state.get("dealer"),
            direction=state.get("direction", "cw"), color=state.get("color"), scores=state.get("scores"),
        )
    except ValueError as error:
        raise InvalidScenario(path, "$.deal" if "deal" in data else "$.state", str(error)) from error


def scenario_action(do: Any, variant: str) -> Action:
    """A step's `do` as an engine action; a malformed card raises ValueError (a refusal)."""
    if isinstance(do, str):
        return Action(do)
    if "play" in do:
        return Action("play", parse_card(do["play"], variant), do.get("color"), bool(do.get("uno", False)))
    if "choose_color" in do:
        return Action("choose_color", color=do["choose_color"])
    return Action("catch", target=do["catch"])


def legal_entry(action: Action) -> str:
    """An action written as in the format's `legal` lists (colour and UNO call left out)."""
    if action.kind == "play":
        return f"play:{action.card}"
    if action.kind == "choose_color":
        return f"choose_color:{action.color}"
    return action.kind


def _entry_text(entry: Any) -> str:
    if isinstance(entry, str):
        return entry
    if "play" in entry:
        return f"play:{entry['play']}"
    return f"choose_color:{entry['choose_color']}"


def _cards_text(cards: list[Card]) -> list[str]:
    return [str(card) for card in cards]


def _check(key: str, expected: Any, got: Any) -> None:
    if expected != got:
        raise StepFailed(f"{key}: expected {expected!r}, got {got!r}")


_SIMPLE: dict[str, Callable[[Match], Any]] = {
    "current": lambda match: match.current,
    "decision": lambda match: match.decision,
    "side": lambda match: match.side_name,
    "top": lambda match: str(match.top),
    "color": lambda match: match.color,
    "direction": lambda match: match.direction_name,
    "hand_sizes": lambda match: [len(hand) for hand in match.hands],
    "draw_size": lambda match: len(match.draw),
    "discard_size": lambda match: len(match.discard),
    "draw": lambda match: _cards_text(match.draw_pile()),
    "discard": lambda match: _cards_text(match.discard_pile()),
    "scores": lambda match: list(match.scores),
    "round_winner": lambda match: match.round_winner,
    "round_points": lambda match: match.round_points,
    "match_winner": lambda match: match.match_winner,
}
"""The expectations compared as they are: what each reads from the match."""


def check_expectations(match: Match, expect: dict[str, Any]) -> None:
    """Raise StepFailed naming the first expectation that does not hold."""
    for key, value in expect.items():
        if key in _SIMPLE:
            if key in ("draw", "discard"):
                value = _pile_text(key, value, match.variant)
            _check(key, value, _SIMPLE[key](match))
        elif key in ("hands", "hand_includes"):
            _check_hands(match, key, value)
        elif key in ("legal", "legal_includes", "legal_excludes"):
            _check_legal(match, key, value)
        elif key == "view":
            _check_view(match, value)


def _pile_text(key: str, cards: list[str], variant: str) -> list[str]:
    """Expected cards in the engine's notation (a malformed card fails the step)."""
    try:
        return [str(parse_card(card, variant)) for card in cards]
    except ValueError as error:
        raise StepFailed(f"{key}: {error}") from error


def _check_hands(match: Match, key: str, hands: dict[str, list[str]]) -> None:
    """``hands`` (each hand exactly) or ``hand_includes`` (at least these cards), per seat."""
    for seat_text, cards in hands.items():
        seat = int(seat_text)
        if not 0 <= seat < match.players:
            raise StepFailed(f"{key}: seat {seat} does not exist")
        want = Counter(_pile_text(f"{key}[{seat}]", cards, match.variant))
        have = Counter(_cards_text(match.hand(seat)))
        if want - have if key == "hand_includes" else want != have:
            raise StepFailed(f"{key}[{seat}]: expected {sorted(want.elements())}, got {sorted(have.elements())}")


def _check_legal(match: Match, key: str, entries: list[Any]) -> None:
    """``legal`` (exactly these), ``legal_includes`` or ``legal_excludes``: the legal actions, catches left out."""
    got = {legal_entry(a) for a in match.legal_actions() if a.kind != "catch"}
    want = {_entry_text(entry) for entry in entries}
    if key == "legal" and want != got:
        raise StepFailed(f"legal: expected {sorted(want)}, got {sorted(got)}")
    if key == "legal_includes" and not want <= got:
        raise StepFailed(f"legal_includes: missing {sorted(want - got)}; legal is {sorted(got)}")
    if key == "legal_excludes" and want & got:
        raise StepFailed(f"legal_excludes: {sorted(want & got)} are legal; legal is {sorted(got)}")


def _check_view(match: Match, view: dict[str, Any]) -> None:
    seat = view["seat"]
    if not 0 <= seat < match.players:
        raise StepFailed(f"view: seat {seat} does not exist")
    obs = match.observation(seat)
    if "draw_top" in view:
        got_top = None if obs.draw_top is None else str(obs.draw_top)
        _check(f"view[{seat}].draw_top", view["draw_top"], got_top)
    over = obs.decision in ("round_over", "match_over")
    by_seat = {opp.seat: opp for opp in obs.opponents}
    for seat_text, faces in view.get("opponents", {}).items():
        other = int(seat_text)
        if other not in by_seat:
            raise StepFailed(f"view[{seat}].opponents: seat {other} is not an opponent of seat {seat}")
        opp = by_seat[other]
        got = [str(card) for card in opp.revealed] if over else [str(face) for face in opp.visible]
        if Counter(faces) != Counter(got):
            raise StepFailed(f"view[{seat}].opponents[{other}]: expected {sorted(faces)}, got {sorted(got)}")


def run_steps(match: Match, steps: list[dict[str, Any]]) -> None:
    for index, step in enumerate(steps, start=1):
        try:
            if "expect" in step:
                check_expectations(match, step["expect"])
            else:
                _run_action(match, step)
        except StepFailed as error:
            raise StepFailed(f"step {index}: {error}") from None


def _run_action(match: Match, step: dict[str, Any]) -> None:
    seat, do, rejected = step["seat"], step["do"], step.get("rejected", False)
    before = match.snapshot() if rejected else None
    try:
        action = scenario_action(do, match.variant)
        match.apply(seat, action)
    except (IllegalAction, ValueError) as error:
        if not rejected:
            raise StepFailed(f"seat {seat} {json.dumps(do)} was refused: {error}") from None
        if match.snapshot() != before:
            raise StepFailed(f"seat {seat} {json.dumps(do)} was refused but changed the state") from None
        return
    if rejected:
        raise StepFailed(f"seat {seat} {json.dumps(do)}: expected a refusal, but it was accepted")


def run_scenario(path: Path) -> ScenarioResult:
    """Load and run one file; InvalidScenario propagates for an invalid file."""
    data = load_scenario(path)
    match = build_match(data, str(path))
    try:
        run_steps(match, data["steps"])
    except StepFailed as error:
        return ScenarioResult(data["name"], str(path), False, str(error))
    except Exception as error:  # an engine crash is a failed scenario, reported, never a traceback
        return ScenarioResult(data["name"], str(path), False, f"engine error {type(error).__name__}: {error}")
    return ScenarioResult(data["name"], str(path), True)


def scenario_files(paths: list[Path]) -> list[Path]:
    """Files and folders (recursively `*.json`), in a stable order."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.rglob("*.json")))
        else:
            found.append(path)
    return found
