"""The gateway's fast encoding and the kit's fast decoding give exactly what arena.protocol.convert gives."""

from __future__ import annotations

import random

import pytest

from arena.engine import Match, Rules
from arena.protocol import bot_pb2
from arena.protocol.convert import decision_request, observation_from_proto
from arena.protocol.encoding import request_body, request_bytes, varint
from bots import RandomBot
from bots.kit import actions_from_request, bot_factory, match_seed, observation_from_message


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players", "uno_penalty"),
                         [("flip", 4, "auto"), ("classic", 3, "catch"), ("flip", 10, "catch"), ("flip", 2, "auto")])
def test_wire_matches_convert_for_every_decision_of_a_match(variant: str, players: int, uno_penalty: str) -> None:
    match = Match(players=players, seed=players, rules=Rules(variant=variant, uno_penalty=uno_penalty))
    rng = random.Random(players)
    seen = [0] * players
    count = 0
    while match.decision != "match_over" and count < 3000:
        if match.decision == "round_over":
            match.next_round()
            continue
        seat = match.current
        assert seat is not None
        legal = match.legal_actions()
        observation = match.observation(seat, seen[seat])
        seen[seat] = len(match.events)
        data = request_bytes(request_body("m-1", count + 1, observation, legal), f"r-{count}", 900, 1_700_000_000_123)
        got = bot_pb2.ArenaMessage.FromString(data).decision_request
        expected = decision_request(match_id="m-1", request_id=f"r-{count}", observation=observation,
                                    legal_actions=legal, time_limit_ms=900, deadline_unix_ms=1_700_000_000_123,
                                    decision_number=count + 1)
        assert got == expected
        assert observation_from_message(got.observation) == observation == observation_from_proto(got.observation)
        assert actions_from_request(got) == legal
        match.apply(seat, legal[rng.randrange(len(legal))])
        count += 1
    assert count > 50


def test_appended_fields_override_earlier_ones() -> None:
    """A reconnect re-sends a request with new times by appending fields: the last value wins."""
    match = Match(players=2, seed=1, rules=Rules())
    body = request_body("m", 1, match.observation(match.current or 0), match.legal_actions())
    first = bot_pb2.ArenaMessage.FromString(request_bytes(body, "r-1", 1000, 5)).decision_request
    again = bot_pb2.ArenaMessage.FromString(request_bytes(body, "r-1", 250, 9)).decision_request
    assert (first.time_limit_ms, again.time_limit_ms, again.deadline_unix_ms) == (1000, 250, 9)


def test_varint() -> None:
    assert varint(0) == b"\x00" and varint(300) == b"\xac\x02"
    assert varint(-1) == b"\xff" * 9 + b"\x01"


def test_kit_factory_forms() -> None:
    shared = RandomBot(3)
    assert bot_factory(shared)("m", 0) is shared
    a, b = bot_factory(RandomBot)("m", 0), bot_factory(RandomBot)("m", 1)
    assert isinstance(a, RandomBot) and a.seed == match_seed("m", 0) != b.seed
    chooser = bot_factory(lambda observation, legal: 0)("m", 0)
    assert chooser.choose(None, [1, 2]) == 0  # type: ignore[arg-type,list-item]
    with pytest.raises(TypeError):
        bot_factory(42)  # type: ignore[arg-type]
