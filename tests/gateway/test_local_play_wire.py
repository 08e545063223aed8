"""An author's bot played in process (:class:`arena.local_play.KitSeat`) sees exactly what it sees over the wire:
the same match against the same built-in bots, once through a real gateway and the kit on a stream, once in process,
gives the bot the same observations and legal actions at every decision (catch offers out of turn included) and
ends the same way."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from arena.engine import Action, Observation, Rules, UnoPenalty
from arena.local_play import KitSeat, kit_bot
from arena.runner import LocalSeat, MatchConfig, run_match
from bots import Bot, make_bot
from tests.support.bots import ThreadBot
from tests.support.gateway import GatewayHarness


class _Recorder(Bot):
    """Writes down everything it is shown, and plays from its seed (so both runs must seed it alike)."""

    seen: list[tuple[int, Observation, tuple[Action, ...]]] = []

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        type(self).seen.append((self.seed, observation, tuple(legal)))
        return (self.seed + len(type(self).seen)) % len(legal)


def test_in_process_the_bot_sees_what_it_sees_over_the_wire(gateway: GatewayHarness) -> None:
    # Seed 36: the random bot forgets an UNO call, so the recorder gets catch offers out of turn.
    config = MatchConfig("same-match", 36, Rules(uno_penalty=UnoPenalty.CATCH, target=300), decision_deadline_s=5.0)
    names = ["recorder", "heuristic", "random"]
    token = gateway.register_bot("recorder")
    _Recorder.seen = []
    with ThreadBot(gateway.address, token, bot=_Recorder):
        gateway.wait_for_bot("recorder")
        (remote,) = gateway.run_matches([(config, names)], timeout_s=120)
    over_the_wire, _Recorder.seen = _Recorder.seen, []
    seats = [KitSeat(kit_bot("recorder", _Recorder)),
             *(LocalSeat(make_bot(name, seed=config.seed * 1000 + index)) for index, name in enumerate(names)
               if index)]
    local = asyncio.run(run_match(config, seats))
    in_process = _Recorder.seen
    assert len(in_process) > 50 and any(o.decision == "catch" for _seed, o, _legal in in_process)
    assert in_process == over_the_wire
    assert (local.scores, local.winner, local.end_reason) == (remote.scores, remote.winner, remote.end_reason)
    assert local.replay["actions"] == remote.replay["actions"]
