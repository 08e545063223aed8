"""The relay's envelope (``proto/uno_arena/relay/v1/relay.proto``): where answers go, the answers to a match start,
the ``drop`` message, and the one mapping between the arena's vocabularies (:class:`~arena.players.DecideStatus`,
:class:`~arena.players.Admission`) and the wire's enums. Each message is encoded once by its sender and decoded once
by its receiver."""

from __future__ import annotations

from arena.players import Admission, DecideStatus
from arena.protocol import relay_pb2
from arena.store import ReplyAddress

_STATUS_TO_WIRE: dict[DecideStatus, relay_pb2.DecideStatus] = {
    status: getattr(relay_pb2, f"DECIDE_STATUS_{status.name}") for status in DecideStatus}
_STATUS_FROM_WIRE = {wire: status for status, wire in _STATUS_TO_WIRE.items()}
_ADMISSION_TO_WIRE: dict[Admission, relay_pb2.Admission] = {
    state: getattr(relay_pb2, f"ADMISSION_{state.name}") for state in Admission}
_ADMISSION_FROM_WIRE = {wire: state for state, wire in _ADMISSION_TO_WIRE.items()}


def wire_status(status: DecideStatus) -> relay_pb2.DecideStatus:
    return _STATUS_TO_WIRE[status]


def decide_status(wire: relay_pb2.DecideStatus) -> DecideStatus:
    """The status of a ``DecideReply``; ValueError for a value no gateway sends (unspecified or unknown)."""
    try:
        return _STATUS_FROM_WIRE[wire]
    except KeyError:
        raise ValueError(f"a DecideReply with status {wire}, which no gateway sends") from None


def admission_reply(state: Admission) -> bytes:
    return relay_pb2.AdmissionReply(admission=_ADMISSION_TO_WIRE[state]).SerializeToString()


def read_admission(raw: bytes) -> Admission:
    """The state of an ``AdmissionReply``; ValueError for a value no gateway sends."""
    wire = relay_pb2.AdmissionReply.FromString(raw).admission
    try:
        return _ADMISSION_FROM_WIRE[wire]
    except KeyError:
        raise ValueError(f"an AdmissionReply with state {wire}, which no gateway sends") from None


def reply_to(address: ReplyAddress) -> relay_pb2.ReplyTo:
    return relay_pb2.ReplyTo(key=address.key, rid=address.rid)


def reply_address(to: relay_pb2.ReplyTo) -> ReplyAddress:
    return ReplyAddress(to.key, to.rid)


def drop_message(bot: str, sessions: list[str], reason: str) -> bytes:
    """The relay's ``drop`` message: the gateway closes these sessions of the bot (``UNAUTHENTICATED``,
    ``reason``), and no later one (a stream opened with a new token stays)."""
    return relay_pb2.RelayRequest(drop=relay_pb2.Drop(bot=bot, sessions=sessions, reason=reason)).SerializeToString()
