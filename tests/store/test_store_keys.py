"""The key scheme: one prefix, documented patterns, and every key the store writes is documented."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

import arena.store.keys as keys_module
from arena.store import Keys, Store
from arena.store.keys import InvalidName, bot_key, check_id, check_name
from arena.tournament.stats.ratings import Rating, RatingPool
from tests.support.records import standings_of, stored_replay, stored_result


def documented_patterns(prefix: str = "uno:") -> list[re.Pattern[str]]:
    """Regexes for the key patterns of the "Redis keys" section of docs/operations.md (``:part`` after a key names
    a sibling of it: `uno:competition:{cid}:entries`, `:retired`)."""
    page = (Path(__file__).parents[2] / "docs" / "operations.md").read_text()
    section = page.split("## Redis keys", 1)[1].split("\n## ", 1)[0]
    rows: list[str] = []
    for key in re.findall(r"`((?:uno)?:[^`]+)`", section):
        rows.append(rows[-1].rsplit(":", 1)[0] + key if key.startswith(":") else key)
    assert len(rows) >= 15, rows
    patterns = []
    for row in rows:
        regex = re.escape(row.replace("uno:", prefix, 1))
        regex = re.sub(r"\\\{[a-z]+\\\}", r"[^ ]+", regex)
        patterns.append(re.compile(f"^{regex}$"))
    return patterns


def test_keys_follow_the_scheme() -> None:
    k = Keys()
    assert k.bots() == "uno:bots"
    assert k.bot("Alpha") == "uno:bot:alpha"
    assert k.bot("Alpha", "sessions") == "uno:bot:alpha:sessions"
    assert k.session("s1") == "uno:session:s1"
    assert k.tournaments() == "uno:tournaments"
    assert k.tournament("t-1") == "uno:tournament:t-1"
    assert k.idempotency("req-9") == "uno:idem:tournament:req-9"
    assert k.tournament("t-1", "matches") == "uno:tournament:t-1:matches"
    assert k.tournament("t-1", "results") == "uno:tournament:t-1:results"
    assert k.tournament("t-1", "progress") == "uno:tournament:t-1:progress"
    assert k.tournament("t-1", "standings") == "uno:tournament:t-1:standings"
    assert k.replay("t-1.d0.t3") == "uno:replay:t-1.d0.t3"
    assert k.ratings("flip:3f2a9c0d1b7e4a56") == "uno:ratings:flip:3f2a9c0d1b7e4a56"
    assert k.schedules() == "uno:schedules"
    assert k.schedule("nightly") == "uno:schedule:nightly"
    assert k.schedule_fired("nightly", 1700000000) == "uno:schedule:nightly:fired:1700000000"
    assert k.canary() == "uno:canary"
    assert k.tournament_run("t-1", "batch_state") == "uno:tournament:t-1:batch_state"
    assert k.relay_queue("gw-1") == "uno:relay:gw-1"
    assert k.relay_reply("r1") == "uno:relay:reply:r1"
    assert k.relay_replies("h1") == "uno:relay:replies:h1"
    assert Keys("arena-test:").bots() == "arena-test:bots"
    with pytest.raises(ValueError, match="unknown run key part"):
        k.tournament_run("t-1", "nope")


def test_run_and_relay_keys_are_in_the_documented_table() -> None:
    k = Keys()
    patterns = documented_patterns()
    built = [k.tournament_run("t-1", part) for part in keys_module.RUN_PARTS]
    built += [k.relay_queue("gw-1"), k.relay_reply("abc"), k.relay_replies("h1")]
    for key in built:
        assert any(p.match(key) for p in patterns), f"{key} is not in the key table of docs/operations.md"


@pytest.mark.parametrize("prefix", ["uno", "", "a b:", "x*:"])
def test_bad_prefixes_are_refused(prefix: str) -> None:
    with pytest.raises(ValueError, match="prefix"):
        Keys(prefix)


@pytest.mark.parametrize("value", ["", "a b", "-x", "x" * 201, "a*", "a?b", "a\nb", "ü"])
def test_ids_are_checked(value: str) -> None:
    with pytest.raises(InvalidName, match="invalid match id"):
        check_id(value, "match id")


def test_bot_names_are_casefolded() -> None:
    assert bot_key("HeuristicBot") == "heuristicbot"


def test_every_key_written_is_documented_and_prefixed(store: Store) -> None:
    """Exercise every record store, then check each key in Redis against the documented table."""
    _, token = store.bots.register("alpha")
    store.bots.register("beta")
    store.bots.verify_token(token)
    session = store.sessions.open("alpha", "gw-1")
    store.sessions.heartbeat_many([session.session_id])
    store.tournaments.create("t-1", {"participants": ["alpha", "beta"]}, idempotency_key="req-1")
    store.tournaments.add_matches("t-1", ["t-1.m0", "t-1.m1"])
    store.results.record("t-1", "t-1.m0", stored_result("t-1.m0"), replay=stored_replay("t-1.m0"))
    store.results.incr("t-1", "timeouts")
    store.replays.save("t-1.m1", stored_replay("t-1.m1", seed=2, actions=[(0, "draw")]))
    store.standings.put("t-1", standings_of(1), as_of=1)
    store.ratings.put("flip:abc", RatingPool(key="flip:abc", ratings={"alpha": Rating(25.0, 8.0, 1)}))
    store.schedules.add("nightly", "0 3 * * *", {"participants": ["alpha", "beta"]}, created_at=0)
    store.schedules.claim("nightly", int(datetime(2026, 1, 1, 3, tzinfo=UTC).timestamp()), holder="me")
    store.canary.beat(1.0, "w1")

    patterns = documented_patterns()
    written = sorted(k.decode() for k in store.redis.scan_iter(match="*"))
    assert len(written) >= 17, written
    for key in written:
        assert key.startswith("uno:"), key
        assert any(p.match(key) for p in patterns), f"{key} is not in the key table of docs/operations.md"


def test_user_chosen_ids_are_single_key_parts() -> None:
    """No ':' in a tournament or schedule id: a schedule 'NAME:fired:DUE' would be NAME's fire-once lock."""
    keys = Keys()
    for bad in ("nightly:fired:1767236400", "a:b", "x" * 201):
        with pytest.raises(InvalidName) as info:
            keys.schedule(bad)
        assert len(str(info.value)) < 250
        with pytest.raises(InvalidName):
            keys.tournament(bad)
    assert keys.schedule_fired("nightly", 1767236400) == "uno:schedule:nightly:fired:1767236400"
    assert check_name("t-1.a_b", "name", 100) == "t-1.a_b"
    with pytest.raises(InvalidName, match="1-100"):
        check_name("x" * 101, "name", 100)
