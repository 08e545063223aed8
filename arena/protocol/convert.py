"""Conversions between engine objects (arena.engine) and protocol messages (uno_arena.v1), both ways: faces, cards,
actions, events, observations and rule options (message -> engine for a Python bot, and `action_from_proto` for
`Match.apply`).

Conventions (see the .proto comments): a missing colour (`None`) is the empty string, a missing seat an unset
`optional` field, a missing face or card an unset message field; engine strings such as `"after_draw"` map to enum
values such as `DECISION_KIND_AFTER_DRAW`. Malformed messages raise ValueError naming the field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from google.protobuf.descriptor import EnumDescriptor
from google.rpc import status_pb2

from arena.engine import Action, Card, Event, Face, Observation, OpponentView, Rules
from arena.players import EndReason
from arena.protocol._gen import bot_pb2, cards_pb2, game_pb2
from arena.protocol.card_cache import CARDS, card_from_proto, face_from_proto


def enum_maps(descriptor: EnumDescriptor, prefix: str) -> tuple[dict[str, int], dict[int, str]]:
    """{engine string: enum number} and back, from an enum's descriptor (`ACTION_KIND_CHOOSE_COLOR` ->
    `choose_color`). The UNSPECIFIED value maps to nothing."""
    to_number: dict[str, int] = {}
    for value in descriptor.values:
        if value.number == 0:
            continue
        if not value.name.startswith(prefix):
            raise RuntimeError(f"enum value {value.name} lacks the prefix {prefix}")
        to_number[value.name[len(prefix):].lower()] = value.number
    return to_number, {number: name for name, number in to_number.items()}


ACTION_KIND_TO_PROTO, ACTION_KIND_FROM_PROTO = enum_maps(cards_pb2.ActionKind.DESCRIPTOR, "ACTION_KIND_")
VARIANT_TO_PROTO, VARIANT_FROM_PROTO = enum_maps(game_pb2.Variant.DESCRIPTOR, "VARIANT_")
SIDE_TO_PROTO, SIDE_FROM_PROTO = enum_maps(game_pb2.Side.DESCRIPTOR, "SIDE_")
DIRECTION_TO_PROTO, DIRECTION_FROM_PROTO = enum_maps(game_pb2.Direction.DESCRIPTOR, "DIRECTION_")
DECISION_TO_PROTO, DECISION_FROM_PROTO = enum_maps(game_pb2.DecisionKind.DESCRIPTOR, "DECISION_KIND_")
_RULE_ENUMS: dict[str, tuple[dict[str, int], dict[int, str]]] = {
    "uno_penalty": enum_maps(game_pb2.UnoPenalty.DESCRIPTOR, "UNO_PENALTY_"),
    "scoring": enum_maps(game_pb2.Scoring.DESCRIPTOR, "SCORING_"),
    "start_flip": enum_maps(game_pb2.StartFlip.DESCRIPTOR, "START_FLIP_"),
    "pairing": enum_maps(game_pb2.Pairing.DESCRIPTOR, "PAIRING_"),
}
# The one mapping of end reasons to the protocol (checked total by a test).
END_REASON_TO_PROTO: dict[EndReason, Any] = {
    EndReason.TARGET: game_pb2.END_REASON_COMPLETED,
    EndReason.FORFEIT: game_pb2.END_REASON_FORFEIT,
    EndReason.ABORTED: game_pb2.END_REASON_ABORTED,
    EndReason.CANCELLED: game_pb2.END_REASON_CANCELLED,
}


def end_reason_to_proto(reason: object) -> Any:
    """The protocol's ``EndReason`` of an end reason (or its stored value); UNSPECIFIED for an unknown value."""
    try:
        return END_REASON_TO_PROTO[EndReason(str(reason))]
    except ValueError:
        return game_pb2.END_REASON_UNSPECIFIED


END_REASON_FROM_PROTO = {number: reason for reason, number in END_REASON_TO_PROTO.items()}
end_reason_from_proto = END_REASON_FROM_PROTO.get
"""The end reason of the protocol's ``EndReason`` number; None for UNSPECIFIED or an unknown number."""


_RULE_OPTIONALS = ("bluffing", "target", "max_decisions_per_round")
# Rule options with no field in the contract: the engine refuses any value but its default.
RULES_NOT_IN_PROTO = ("stacking",)


def _to_enum(table: Mapping[str, int], value: str, what: str) -> Any:
    # Any: the generated stubs type each enum field as its own int subclass.
    try:
        return table[value]
    except KeyError:
        known = ", ".join(table)
        raise ValueError(f"{what} {value!r} has no value in the protocol (known: {known})") from None


def _from_enum(table: Mapping[int, str], number: int, what: str) -> str:
    try:
        return table[number]
    except KeyError:
        known = ", ".join(table.values())
        raise ValueError(f"{what}: enum value {number} is unset or unknown (expected {known})") from None


# Faces and cards are converted once each, in the one card cache (arena.protocol.card_cache); the cached
# messages are never handed out, only copied.
_face_msg = CARDS.face_message
_card_msg = CARDS.card_message


def face_to_proto(face: Face) -> cards_pb2.Face:
    msg = cards_pb2.Face()
    msg.CopyFrom(_face_msg(face))
    return msg


def card_to_proto(card: Card) -> cards_pb2.Card:
    msg = cards_pb2.Card()
    msg.CopyFrom(_card_msg(card))
    return msg


def _card_or_none(card: Card | None) -> cards_pb2.Card | None:
    """The card's cached message, or None (a field given None in a message's constructor is left unset)."""
    return None if card is None else _card_msg(card)


def action_to_proto(action: Action) -> cards_pb2.Action:
    return cards_pb2.Action(kind=_to_enum(ACTION_KIND_TO_PROTO, action.kind, "action kind"),
                            card=_card_or_none(action.card), color=action.color or "", uno=action.uno,
                            target=action.target, text=str(action))


def action_from_proto(msg: cards_pb2.Action) -> Action:
    """The engine Action a message describes. Its legality is the engine's business, not checked here."""
    kind = _from_enum(ACTION_KIND_FROM_PROTO, msg.kind, "action kind")
    card = card_from_proto(msg.card) if msg.HasField("card") else None
    if kind == "play" and card is None:
        raise ValueError(f"action {msg.text!r}: a play needs a card")
    return Action(kind, card, msg.color or None, msg.uno, msg.target if msg.HasField("target") else None)


def event_to_proto(event: Event) -> game_pb2.Event:
    return game_pb2.Event(type=event.type, seat=event.seat, card=_card_or_none(event.card), color=event.color or "",
                          count=event.count, cards=[_card_msg(card) for card in event.cards],
                          faces=[_face_msg(face) for face in event.faces], target=event.target, detail=event.detail,
                          text=str(event))


def events_to_proto(events: Iterable[Event]) -> list[game_pb2.Event]:
    return [event_to_proto(event) for event in events]


def event_from_proto(msg: game_pb2.Event) -> Event:
    return Event(
        type=msg.type,
        seat=msg.seat if msg.HasField("seat") else None,
        card=card_from_proto(msg.card) if msg.HasField("card") else None,
        color=msg.color or None,
        count=msg.count,
        cards=tuple(card_from_proto(card) for card in msg.cards),
        faces=tuple(face_from_proto(face) for face in msg.faces),
        target=msg.target if msg.HasField("target") else None,
        detail=msg.detail,
    )


def observation_to_proto(obs: Observation) -> game_pb2.Observation:
    """The seat's full view (V1-V6) as a message."""
    return game_pb2.Observation(
        seat=obs.seat,
        players=obs.players,
        variant=_to_enum(VARIANT_TO_PROTO, obs.variant, "variant"),
        side=_to_enum(SIDE_TO_PROTO, obs.side, "side"),
        direction=_to_enum(DIRECTION_TO_PROTO, obs.direction, "direction"),
        decision=_to_enum(DECISION_TO_PROTO, obs.decision, "decision"),
        current=obs.current,
        color=obs.color or "",
        top=_face_msg(obs.top),
        discard=[_face_msg(face) for face in obs.discard],
        hand=[_card_msg(card) for card in obs.hand],
        opponents=[game_pb2.OpponentView(seat=view.seat, count=view.count,
                                         visible=[_face_msg(face) for face in view.visible],
                                         revealed=[_card_msg(card) for card in view.revealed])
                   for view in obs.opponents],
        draw_size=obs.draw_size,
        draw_top=None if obs.draw_top is None else _face_msg(obs.draw_top),
        scores=obs.scores,
        round=obs.round,
        dealer=obs.dealer,
        events=[event_to_proto(event) for event in obs.events],
        drawn=_card_or_none(obs.drawn),
        round_winner=obs.round_winner,
        match_winner=obs.match_winner,
    )


def observation_from_proto(
    msg: game_pb2.Observation,
    face_of: Callable[[cards_pb2.Face], Face] = face_from_proto,
    card_of: Callable[[cards_pb2.Card], Card] = card_from_proto,
) -> Observation:
    """The engine Observation a message describes; `face_of` / `card_of` replace the face and card conversions
    (the bot kit passes cached ones)."""
    if not msg.HasField("top"):
        raise ValueError("observation: top is missing")
    return Observation(
        seat=msg.seat,
        players=msg.players,
        variant=_from_enum(VARIANT_FROM_PROTO, msg.variant, "observation.variant"),
        side=_from_enum(SIDE_FROM_PROTO, msg.side, "observation.side"),
        direction=_from_enum(DIRECTION_FROM_PROTO, msg.direction, "observation.direction"),
        decision=_from_enum(DECISION_FROM_PROTO, msg.decision, "observation.decision"),
        current=msg.current if msg.HasField("current") else None,
        color=msg.color or None,
        top=face_of(msg.top),
        discard=tuple(face_of(face) for face in msg.discard),
        hand=tuple(card_of(card) for card in msg.hand),
        opponents=tuple(
            OpponentView(
                seat=view.seat,
                count=view.count,
                visible=tuple(face_of(face) for face in view.visible),
                revealed=tuple(card_of(card) for card in view.revealed),
            )
            for view in msg.opponents
        ),
        draw_size=msg.draw_size,
        draw_top=face_of(msg.draw_top) if msg.HasField("draw_top") else None,
        scores=tuple(msg.scores),
        round=msg.round,
        dealer=msg.dealer,
        events=tuple(event_from_proto(event) for event in msg.events),
        drawn=card_of(msg.drawn) if msg.HasField("drawn") else None,
        round_winner=msg.round_winner if msg.HasField("round_winner") else None,
        match_winner=msg.match_winner if msg.HasField("match_winner") else None,
    )


def rules_to_proto(rules: Rules) -> game_pb2.Rules:
    """Every option spelled out (no field left to the default), so the message says exactly what is played."""
    msg = game_pb2.Rules(variant=_to_enum(VARIANT_TO_PROTO, rules.variant, "variant"))
    for name, (to_number, _) in _RULE_ENUMS.items():
        setattr(msg, name, _to_enum(to_number, getattr(rules, name), f"rule option {name}"))
    for name in _RULE_OPTIONALS:
        setattr(msg, name, getattr(rules, name))
    return msg


def rules_from_proto(msg: game_pb2.Rules) -> Rules:
    """The Rules a message asks for: unset fields and UNSPECIFIED enums take the engine's defaults.
    Invalid values raise ValueError (from Rules itself, naming the option)."""
    options: dict[str, Any] = {}
    if msg.variant:
        options["variant"] = _from_enum(VARIANT_FROM_PROTO, msg.variant, "rules.variant")
    for name, (_, from_number) in _RULE_ENUMS.items():
        number = getattr(msg, name)
        if number:
            options[name] = _from_enum(from_number, number, f"rules.{name}")
    for name in _RULE_OPTIONALS:
        if msg.HasField(name):
            options[name] = getattr(msg, name)
    return Rules(**options)


def seats_to_proto(names: Iterable[str]) -> list[game_pb2.Seat]:
    """The seats of a match, in seat order, from its bots' names."""
    return [game_pb2.Seat(seat=i, bot_id=name, bot_name=name) for i, name in enumerate(names)]


def decision_request(
    *,
    match_id: str,
    request_id: str,
    observation: Observation,
    legal_actions: Iterable[Action],
    time_limit_ms: int,
    deadline_unix_ms: int,
    decision_number: int,
) -> bot_pb2.DecisionRequest:
    """A DecisionRequest for one seat: its full observation and the legal actions, in the engine's order
    (the bot's `action_index` indexes that same list)."""
    return bot_pb2.DecisionRequest(
        match_id=match_id,
        request_id=request_id,
        time_limit_ms=time_limit_ms,
        deadline_unix_ms=deadline_unix_ms,
        observation=observation_to_proto(observation),
        legal_actions=[action_to_proto(action) for action in legal_actions],
        decision_number=decision_number,
    )


def error_message(code: int, message: str, *, match_id: str = "", request_id: str = "") -> bot_pb2.Error:
    """An in-band error: `code` is a gRPC status code number (`grpc.StatusCode.X.value[0]`, e.g. 3 for
    INVALID_ARGUMENT) and `message` says clearly what was wrong."""
    return bot_pb2.Error(status=status_pb2.Status(code=code, message=message), match_id=match_id,
                         request_id=request_id)

