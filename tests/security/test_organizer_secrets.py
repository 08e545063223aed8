"""The new organizer RPCs keep secrets as the others do: the deal seeds of a running tournament's matches
(ListMatches, GetTournament) and a running gauntlet's seed (GetGauntlet, ListGauntlets) go to the admin only;
once they ended, to everyone."""

from __future__ import annotations

from typing import Any

from arena.protocol import arena_pb2
from arena.service.gauntlet_runs import build_spec, start_gauntlet
from arena.store import Store
from arena.tournament.stats.sprt import SprtConfig
from tests.support.gateway import GatewayHarness
from tests.support.organizer import OrganizerServer

from .helpers import ADMIN, auth, play_tournament, register


def test_seeds_of_running_work_only_for_the_admin(store: Store, organizer: OrganizerServer, gateway: GatewayHarness,
                                                  worker: Any) -> None:
    stub = organizer.stub
    alpha = register(organizer, "alpha")
    tid = play_tournament(store, organizer, gateway, "t-secret", ["random", "heuristic"], {}).tournament_id
    assert store.tournaments.set_status(tid, "running")  # as if other matches were still playing

    def seeds(metadata: list[tuple[str, str]]) -> tuple[int, list[int]]:
        shown = stub.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=tid), metadata=metadata, timeout=10)
        matches = stub.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=tid), metadata=metadata, timeout=10)
        return shown.tournament.spec.seed, [m.seed for m in matches.matches]

    assert seeds([]) == seeds(auth(alpha)) == (0, [0])
    seed, deals = seeds(ADMIN)
    assert seed == 11 and deals[0] != 0
    assert store.tournaments.set_status(tid, "finished")
    assert seeds([]) == seeds(ADMIN)

    start_gauntlet(store, build_spec(candidate="heuristic", baseline="random", seats=2, seed=99,
                                     gauntlet_id="g-secret", sprt=SprtConfig(min_blocks=2, max_blocks=2)))

    def gauntlet_seed(metadata: list[tuple[str, str]]) -> int:
        got = stub.GetGauntlet(arena_pb2.GetGauntletRequest(gauntlet_id="g-secret"), metadata=metadata, timeout=10)
        listed = stub.ListGauntlets(arena_pb2.ListGauntletsRequest(), metadata=metadata, timeout=10).gauntlets
        assert listed[0].spec.seed == got.gauntlet.spec.seed
        return got.gauntlet.spec.seed

    assert gauntlet_seed([]) == gauntlet_seed(auth(alpha)) == 0 and gauntlet_seed(ADMIN) == 99
    store.gauntlets.finish("g-secret", "inconclusive")
    assert gauntlet_seed([]) == 99
