"""Bot registry against a real redis-server: names, hashed tokens, verification, errors."""

from __future__ import annotations

import threading

import pytest

from arena.store import DeletedBot, DuplicateBotName, InvalidName, InvalidToken, Store, UnknownBot


def dump_all(store: Store) -> list[bytes]:
    """Every key and every stored byte string (hash fields and values, set members, strings)."""
    out: list[bytes] = []
    for key in store.redis.scan_iter(match="*"):
        out.append(key)
        kind = store.redis.type(key)
        if kind == b"hash":
            for field, value in store.redis.hgetall(key).items():
                out += [field, value]
        elif kind == b"set":
            out += list(store.redis.smembers(key))
        elif kind == b"string":
            out.append(store.redis.get(key) or b"")
    return out


def test_register_returns_a_token_that_verifies(store: Store) -> None:
    record, token = store.bots.register("Alpha", owner="ann", version="1.2")
    assert record.name == "Alpha" and record.owner == "ann" and record.version == "1.2"
    assert token.startswith("Alpha.")
    assert store.bots.verify_token(token).name == "Alpha"
    assert store.bots.verify_token(token, name="alpha").name == "Alpha"
    assert store.bots.get("alpha") == store.bots.get("Alpha")
    assert [b.name for b in store.bots.all()] == ["Alpha"]


def test_token_is_stored_only_as_a_salted_hash(store: Store) -> None:
    _, token1 = store.bots.register("one")
    _, token2 = store.bots.register("two")
    secret = token1.partition(".")[2]
    everything = b"".join(dump_all(store))
    assert secret.encode() not in everything and token1.encode() not in everything
    fields1 = store.redis.hgetall(store.keys.bot("one"))
    fields2 = store.redis.hgetall(store.keys.bot("two"))
    assert len(fields1[b"salt"]) == 32 and fields1[b"salt"] != fields2[b"salt"]
    assert len(fields1[b"token_hash"]) == 64
    assert token2 != token1


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("no-dot-here", "malformed"),
        ("alpha.", "malformed"),
        (".secret", "malformed"),
        ("bad name.secret", "malformed"),
        ("ghost.secret", "^invalid token$"),
        ("alpha.wrong-secret", "^invalid token$"),
    ],
)
def test_bad_tokens_are_refused_with_a_reason(store: Store, token: str, reason: str) -> None:
    store.bots.register("alpha")
    with pytest.raises(InvalidToken, match=reason):
        store.bots.verify_token(token)


def test_token_of_another_bot_is_refused(store: Store) -> None:
    store.bots.register("alpha")
    _, beta_token = store.bots.register("beta")
    with pytest.raises(InvalidToken, match="belongs to bot 'beta', not 'alpha'"):
        store.bots.verify_token(beta_token, name="alpha")
    assert isinstance(InvalidToken("x"), ValueError)


def test_rotation_revokes_the_old_token(store: Store) -> None:
    _, old = store.bots.register("alpha")
    new = store.bots.rotate_token("alpha")
    assert store.bots.verify_token(new).name == "alpha"
    with pytest.raises(InvalidToken, match=r"^invalid token$"):
        store.bots.verify_token(old)
    with pytest.raises(UnknownBot):
        store.bots.rotate_token("nobody")


def test_revoke_stops_every_token_until_a_rotation(store: Store) -> None:
    _, token = store.bots.register("alpha")
    assert store.bots.revoke("ALPHA").revoked
    with pytest.raises(InvalidToken, match=r"^invalid token$"):
        store.bots.verify_token(token)
    new = store.bots.rotate_token("alpha")
    assert store.bots.verify_token(new).name == "alpha" and not store.bots.get("alpha").revoked
    with pytest.raises(UnknownBot):
        store.bots.revoke("nobody")


def test_delete_keeps_the_name_taken_and_issues_no_token(store: Store) -> None:
    _, token = store.bots.register("Alpha")
    record = store.bots.delete("alpha")
    assert record.deleted and record.name == "Alpha"
    with pytest.raises(InvalidToken, match=r"^invalid token$"):
        store.bots.verify_token(token)
    with pytest.raises(DeletedBot):
        store.bots.rotate_token("alpha")
    for name in ("Alpha", "alpha", "ALPHA"):
        with pytest.raises(DuplicateBotName):
            store.bots.register(name)
    assert not store.bots.exists("alpha")
    assert store.bots.delete("alpha").deleted  # idempotent
    assert [b.name for b in store.bots.all() if b.deleted] == ["Alpha"]


def test_duplicate_names_are_refused_without_case(store: Store) -> None:
    store.bots.register("Alpha")
    with pytest.raises(DuplicateBotName, match="'alpha' is already registered \\(as 'Alpha'"):
        store.bots.register("alpha")
    with pytest.raises(DuplicateBotName, match="'Alpha' is already registered: choose another name"):
        store.bots.register("Alpha")
    assert len(store.bots.all()) == 1


def test_only_one_of_concurrent_registrations_wins(store: Store) -> None:
    barrier = threading.Barrier(8)
    outcomes: list[str] = []
    lock = threading.Lock()

    def register() -> None:
        barrier.wait()
        try:
            store.bots.register("racer")
            outcome = "won"
        except DuplicateBotName:
            outcome = "duplicate"
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=register) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["duplicate"] * 7 + ["won"]


@pytest.mark.parametrize(
    "name", ["", "a" * 33, "has space", "dot.name", "-lead", "_lead", "ünï", "a/b", "a:b"]
)
def test_invalid_names_are_refused(store: Store, name: str) -> None:
    with pytest.raises(InvalidName, match="invalid bot name"):
        store.bots.register(name)
    assert not store.bots.exists(name)


@pytest.mark.parametrize("name", ["a", "A" * 32, "bot-1", "Bot_2", "9lives"])
def test_valid_names_are_accepted(store: Store, name: str) -> None:
    record, _ = store.bots.register(name)
    assert record.name == name and store.bots.exists(name)


def test_unknown_bot_has_a_clear_message(store: Store) -> None:
    with pytest.raises(UnknownBot, match="unknown bot 'nobody': register it first") as info:
        store.bots.get("nobody")
    assert isinstance(info.value, ValueError)
    assert str(info.value) == "unknown bot 'nobody': register it first"


def test_version_and_owner(store: Store) -> None:
    store.bots.register("alpha", owner="ann", version="1")
    updated = store.bots.set_version("alpha", "2.0")
    assert updated.version == "2.0" and updated.owner == "ann"
    with pytest.raises(UnknownBot):
        store.bots.set_version("nobody", "2")
    with pytest.raises(ValueError, match="version must not be empty"):
        store.bots.register("beta", version="")
    with pytest.raises(ValueError, match="owner must be"):
        store.bots.register("gamma", owner="x\n")


def test_the_versions_a_bot_connected_with_are_kept_with_first_and_last_seen(store: Store) -> None:
    from arena.store.bots import MAX_VERSIONS_KEPT, BotVersion

    store.bots.register("Versioned")
    store.bots.note_version("versioned", "1.0", now=100.0)
    store.bots.note_version("VERSIONED", "1.1", now=200.0)
    store.bots.note_version("versioned", "1.0", now=300.0)  # back to the old one: its first sighting stays
    assert store.bots.versions("versioned") == [BotVersion("1.0", 100.0, 300.0), BotVersion("1.1", 200.0, 200.0)]
    for i in range(MAX_VERSIONS_KEPT + 5):  # a bot inventing a version per connection cannot grow it unbounded
        store.bots.note_version("versioned", f"x{i}", now=1000.0 + i)
    kept = store.bots.versions("versioned")
    assert len(kept) == MAX_VERSIONS_KEPT and kept[-1].version == f"x{MAX_VERSIONS_KEPT + 4}"
    assert "1.1" not in {v.version for v in kept}
    with pytest.raises(ValueError):
        store.bots.note_version("versioned", "v" * 65)
