"""The kit's think time (``BotClient(think_s=...)``, the swarm's ``--think-ms``): each decision waits in a task of its
own, so the decisions of other matches are not held up behind it, and every answer is written once it is decided."""

from __future__ import annotations

import asyncio

from arena.engine import Match
from arena.protocol import bot_pb2
from arena.protocol.convert import action_to_proto, observation_to_proto
from bots import Bot
from bots.kit import BotClient


class FirstLegal(Bot):
    def choose(self, observation: object, legal: object) -> int:
        return 0


class RecordingCall:
    """The stream's write side: what the kit sent."""

    def __init__(self) -> None:
        self.sent: list[bot_pb2.BotMessage] = []

    async def write(self, message: bot_pb2.BotMessage) -> None:
        self.sent.append(message)


def request(match_id: str) -> bot_pb2.DecisionRequest:
    match = Match(2, seed=5)
    return bot_pb2.DecisionRequest(match_id=match_id, request_id=f"r-{match_id}", decision_number=1,
                                   observation=observation_to_proto(match.observation(match.current or 0)),
                                   legal_actions=[action_to_proto(a) for a in match.legal_actions()])


def test_a_thinking_bot_answers_each_decision_on_its_own() -> None:
    client = BotClient("127.0.0.1:1", "t", lambda match_id, seat: FirstLegal(), think_s=0.01)
    call = RecordingCall()
    replies: list[bot_pb2.BotMessage] = []
    tasks: set[asyncio.Task[None]] = set()

    async def scenario() -> None:
        lock = asyncio.Lock()
        for match_id in ("m-1", "m-2"):
            client._handle(call, bot_pb2.ArenaMessage(decision_request=request(match_id)), replies, lock, tasks)
        assert replies == [] and len(tasks) == 2  # both decisions think at once, none answered inline
        await asyncio.gather(*tasks)

    asyncio.run(scenario())
    assert sorted(message.decision.request_id for message in call.sent) == ["r-m-1", "r-m-2"]
    assert all(message.decision.action_index == 0 for message in call.sent)
    assert client.stats.decisions == 2
