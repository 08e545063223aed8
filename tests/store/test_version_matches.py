"""Each registered bot's versions count the matches recorded under them (issue 38, item 8: the bot page's
"Versions seen" showed "-" for a bot with 100+ matches, because nothing counted them): a match is counted once per
bot and version when its result is first recorded, whatever the retries; built-in bots are not counted."""

from __future__ import annotations

from dataclasses import replace

from arena.store import Store
from arena.store.result_store import StoredResult
from tests.support.records import stored_result


def test_a_match_counts_once_for_each_registered_bot_and_its_version(store: Store) -> None:
    store.bots.register("mybot")
    store.bots.register("other")
    store.bots.note_version("mybot", "1.0", now=100.0)
    store.bots.note_version("mybot", "2.0", now=200.0)
    store.bots.note_version("other", "x", now=100.0)
    store.tournaments.create("t-1", {"participants": ["mybot", "other", "random"]})
    store.tournaments.add_matches("t-1", [f"t-1.m{i}" for i in range(4)])

    def result(match_id: str, seats: tuple[str, ...], versions: tuple[str, ...]) -> StoredResult:
        base = stored_result(match_id, seats=seats, scores=(0,) * len(seats))
        return replace(base, bot_versions=versions)

    played = [("t-1.m0", ("mybot", "random"), ("1.0", "builtin")),
              ("t-1.m1", ("mybot", "other"), ("2.0", "x")),
              ("t-1.m2", ("mybot", "random", "random#2"), ("2.0", "builtin", "builtin"))]
    for match_id, seats, versions in played:
        assert store.results.record("t-1", match_id, result(match_id, seats, versions))
        assert not store.results.record("t-1", match_id, result(match_id, seats, versions))
    unversioned = result("t-1.m3", ("mybot", "other"), ())  # a result stored without versions counts nothing
    assert store.results.record("t-1", "t-1.m3", unversioned)

    assert [(v.version, v.matches) for v in store.bots.versions("mybot")] == [("1.0", 1), ("2.0", 2)]
    assert [(v.version, v.matches) for v in store.bots.versions("other")] == [("x", 1)]
