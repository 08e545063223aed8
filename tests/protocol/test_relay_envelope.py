"""The relay's envelope (proto/uno_arena/relay/v1): one vocabulary from the gateway to the metrics, mapped one to one
onto the wire's enums, and nothing on the wire that no gateway sends taken for an answer."""

from __future__ import annotations

import pytest

from arena.metrics import DECISION_OUTCOMES
from arena.players import Admission, DecideStatus, DecisionOutcome
from arena.protocol import relay_pb2
from arena.relay.envelope import (
    admission_reply,
    decide_status,
    drop_message,
    read_admission,
    reply_address,
    reply_to,
    wire_status,
)
from arena.store import ReplyAddress


def test_every_status_and_admission_has_its_wire_value_and_back() -> None:
    assert {f"DECIDE_STATUS_{s.name}" for s in DecideStatus} == set(relay_pb2.DecideStatus.keys()) - {
        "DECIDE_STATUS_UNSPECIFIED"}
    assert {f"ADMISSION_{a.name}" for a in Admission} == set(relay_pb2.Admission.keys()) - {"ADMISSION_UNSPECIFIED"}
    for status in DecideStatus:
        assert relay_pb2.DecideStatus.Name(wire_status(status)) == f"DECIDE_STATUS_{status.name}"
        assert decide_status(wire_status(status)) is status
    for state in Admission:
        assert read_admission(admission_reply(state)) is state


def test_an_unspecified_value_is_refused() -> None:
    with pytest.raises(ValueError, match="no gateway sends"):
        decide_status(relay_pb2.DECIDE_STATUS_UNSPECIFIED)
    with pytest.raises(ValueError, match="no gateway sends"):
        read_admission(b"")


def test_the_metrics_count_every_decision_outcome_under_its_own_value() -> None:
    assert tuple(outcome.value for outcome in DecisionOutcome) == DECISION_OUTCOMES
    dashboards = {"answered", "refused", "timeout", "error", "fallback", "forfeited", "unreachable"}
    assert set(DECISION_OUTCOMES) == dashboards  # the values deploy/'s dashboards and alerts use, and forfeited


def test_addresses_and_drops_round_trip() -> None:
    address = ReplyAddress("uno:relay:replies:h", "1f")
    assert reply_address(reply_to(address)) == address
    drop = relay_pb2.RelayRequest.FromString(drop_message("bot", ["s1", "s2"], "token revoked"))
    assert drop.WhichOneof("op") == "drop" and list(drop.drop.sessions) == ["s1", "s2"]
