"""What the tests of "Play against the bots" prove about the messages a person was sent: that each holds exactly
what the seat's view of the match held at that moment, and no card the seat may not see.

The match is rebuilt independently, with the engine, from the stored record (its seed and actions): the state of
the table at each decision the person was asked, at each round's end and at the match's end. Each message is then
compared with that state, not with the seat's observation (which would compare the code with itself):

- the person's hand is exactly the seat's hand (both faces: V1);
- another seat shows its card count and the faces facing the table (the inactive side, V2; nothing in classic,
  V6), and its cards only once the round is over (V5);
- the draw pile shows its size and its top card's inactive face (V3), nothing in classic;
- another seat's draw carries no card (V4); a hand is revealed only to the challenger (X1);
- no card in another hand (while the round runs) or in the draw pile appears anywhere in the message unless the
  seat saw that very card legitimately (in its hand, on the discard pile, played, revealed at a round's end);
- no field other than the observation's, and never the match's seed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from arena.engine import Match, Rules, parse_action
from arena.engine.cards import DARK, LIGHT
from arena.store import Replay

OBSERVATION_KEYS = {
    "seat", "players", "variant", "side", "direction", "decision", "current", "color", "top", "discard", "hand",
    "opponents", "draw_size", "draw_top", "scores", "round", "dealer", "events", "drawn", "round_winner",
    "match_winner",
}
MESSAGE_KEYS = {
    "start": {"n", "type", "match_id", "seat", "seats", "rules", "deadline_s"},
    "decide": {"n", "type", "decision_number", "observation", "legal", "deadline_s"},
    "events": {"n", "type", "observation"},
    "answered": {"n", "type", "decision_number", "index", "timeout"},
    "end": {"n", "type", "observation", "scores", "winner", "rounds", "end_reason", "detail", "seats", "replay"},
    "notice": {"n", "type", "text"},
    "closed": {"n", "type"},
}
EVENT_KEYS = {"type", "seat", "card", "color", "count", "cards", "faces", "target", "detail", "text"}


@dataclass
class RebuiltMatch:
    """The table at every moment the person was sent something, rebuilt from the stored record."""

    at_decision: dict[int, Match] = field(default_factory=dict)
    at_round_end: dict[int, Match] = field(default_factory=dict)
    final: Match | None = None
    seed: int = 0


def stored_json(replay: Replay | None) -> dict[str, Any] | None:
    """The stored JSON form of a replay (what the record page sends), None for none."""
    return None if replay is None else replay.to_dict()


def rebuild(stored: dict[str, Any]) -> RebuiltMatch:
    """Replay the stored record through the engine; decisions are numbered as the runner numbers them (every
    decision asked, declined catch offers included, which are no action of the replay)."""
    replay = stored["replay"]
    rules = Rules.from_dict(replay["rules"])
    match = Match(players=int(replay["players"]), seed=int(replay["seed"]), rules=rules)
    declined = {int(index) for index in stored.get("declined") or ()}
    out = RebuiltMatch(seed=int(replay["seed"]))
    asked = 0
    for seat, text in replay["actions"]:
        action = parse_action(text, rules.variant)
        if action.kind == "next_round":
            out.at_round_end[match.round_number] = match.copy()
            match.apply(None, action)
            continue
        while asked in declined:  # a declined catch offer: asked, answered, nothing applied
            asked += 1
            out.at_decision[asked] = match.copy()
        asked += 1
        out.at_decision[asked] = match.copy()
        match.apply(seat, action)
    while asked in declined:
        asked += 1
        out.at_decision[asked] = match.copy()
    out.at_round_end[match.round_number] = match.copy()
    out.final = match
    return out


def _texts(cards: Iterable[dict[str, Any]]) -> list[str]:
    """The notation of faces or cards as the observation's JSON carries them (``{"text", ...}``)."""
    return [card["text"] for card in cards]


def _text(card: dict[str, Any] | None) -> str | None:
    return None if card is None else str(card["text"])


def _cards_in(observation: dict[str, Any]) -> Iterator[str]:
    """Every whole card the message's observation names (faces alone are checked where they stand)."""
    yield from _texts(observation["hand"])
    if observation["drawn"] is not None:
        yield observation["drawn"]["text"]
    for opponent in observation["opponents"]:
        yield from _texts(opponent["revealed"])
    for event in observation["events"]:
        if event["card"] is not None:
            yield event["card"]["text"]
        yield from _texts(event["cards"])


def _legitimately_seen(match: Match, seat: int, shown_hands: Iterable[str]) -> set[str]:
    """Cards the seat saw by the rules, so they may be named even if they are now hidden again (a card played
    earlier, reshuffled into the draw pile, is the same notation)."""
    seen = {str(card) for card in match.hand(seat)} | {str(card) for card in match.discard_pile()}
    if match.decision in ("round_over", "match_over"):  # V5: every hand is shown (the deck repeats some cards)
        for other in range(match.players):
            seen.update(str(card) for card in match.hand(other))
    for event in match.events:
        if event.type == "play" and event.card is not None:
            seen.add(str(event.card))
        if event.type == "draw" and event.seat == seat:
            seen.update(str(card) for card in event.cards)
    return seen | set(shown_hands)


def check_observation(observation: dict[str, Any], match: Match, seat: int, shown_hands: set[str]) -> int:
    """Assert the observation is what ``seat`` may see of ``match``; returns how many cards were hidden from it
    (so a test can tell the check had something to catch)."""
    assert set(observation) == OBSERVATION_KEYS, f"unexpected fields: {set(observation) ^ OBSERVATION_KEYS}"
    classic = match.variant == "classic"
    inactive = LIGHT if match.side == DARK else DARK
    over = match.decision in ("round_over", "match_over")
    assert observation["seat"] == seat
    assert observation["side"] == match.side_name
    assert _texts(observation["hand"]) == [str(card) for card in match.hand(seat)], "the hand is not the seat's hand"
    for opponent in observation["opponents"]:
        hand = match.hand(opponent["seat"])
        assert opponent["seat"] != seat
        assert opponent["count"] == len(hand)
        expected = [] if classic else [str(card.face(inactive)) for card in hand]
        assert _texts(opponent["visible"]) == expected, f"seat {opponent['seat']} shows more than its backs"
        assert _texts(opponent["revealed"]) == ([str(card) for card in hand] if over else []), "revealed too early"
    draw = match.draw_pile()
    assert observation["draw_size"] == len(draw)
    assert _text(observation["draw_top"]) == (None if classic or not draw else str(draw[0].face(inactive)))
    assert _text(observation["top"]) == str(match.discard_pile()[0].face(match.side))
    for event in observation["events"]:
        assert set(event) == EVENT_KEYS
        if event["type"] == "draw" and event["seat"] != seat:
            assert event["cards"] == [], "another seat's drawn cards reached the person (V4)"
        if event["type"] == "reveal":
            assert event["target"] == seat, "a hand shown to another challenger reached the person (X1)"
    hidden = {str(card) for card in draw}
    if not over:
        for other in range(match.players):
            if other != seat:
                hidden.update(str(card) for card in match.hand(other))
    forbidden = hidden - _legitimately_seen(match, seat, shown_hands)
    leaked = sorted(set(_cards_in(observation)) & forbidden)
    assert not leaked, f"cards the seat may not see reached the person: {leaked}"
    return len(forbidden)


def check_messages(messages: list[dict[str, Any]], stored: dict[str, Any], seat: int = 0) -> dict[str, int]:
    """Check every message the person was sent against the rebuilt match; returns counts of what was checked."""
    rebuilt = rebuild(stored)
    assert [message["n"] for message in messages] == list(range(len(messages))), "messages missing or out of order"
    counts = {"decide": 0, "events": 0, "end": 0, "hidden": 0}
    shown: set[str] = set()  # every hand revealed at a round's end so far (V5)
    for message in messages:
        kind = message["type"]
        assert set(message) <= MESSAGE_KEYS[kind], f"unexpected fields in {kind}: {set(message) - MESSAGE_KEYS[kind]}"
        if rebuilt.seed >= 10**8:  # a short seed is a substring of too many numbers to tell
            assert str(rebuilt.seed) not in json.dumps(message), "the match's seed reached the person"
        if kind == "decide":
            match = rebuilt.at_decision[message["decision_number"]]
            counts["hidden"] += check_observation(message["observation"], match, seat, shown)
            assert [action["text"] for action in message["legal"]] == [
                str(action) for action in _legal(match, seat, message["observation"]["decision"])]
        elif kind in ("events", "end") and message.get("observation") is not None:
            observation = message["observation"]
            at = rebuilt.at_round_end[observation["round"]] if kind == "events" else rebuilt.final
            assert at is not None
            match = at
            counts["hidden"] += check_observation(observation, match, seat, shown)
            for other in range(match.players):
                shown.update(str(card) for card in match.hand(other))
        else:
            continue
        counts[kind] += 1
    return counts


def _legal(match: Match, seat: int, decision: str) -> list[Any]:
    from arena.runner import LET_GO

    if decision == "catch":
        return [*match.legal_actions(seat), LET_GO]
    return list(match.legal_actions(seat))
