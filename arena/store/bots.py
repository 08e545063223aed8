"""Bot registry: names, owners, versions and hashed tokens.

Registration is one Lua script (check the name is free, write the hash, add it to the index), so
two registrations of one name cannot both succeed; a redis-py retry of the same call after a lost
reply is recognised by its token hash and still succeeds.

A token looks like ``<bot name>.<secret>`` (the secret is 43 URL-safe characters). It is returned
once, by :meth:`BotStore.register` or :meth:`BotStore.rotate_token`, and never stored: the bot's
hash keeps a random per-bot salt and ``HMAC-SHA256(key=salt, msg=token)``. Because the token names
its bot, :meth:`BotStore.verify_token` needs nothing else to find the record, and compares the
digests in constant time.

A bot's identity is managed by the organizer: :meth:`BotStore.rotate_token` issues a new token (the old one
stops working at once), :meth:`BotStore.revoke` makes every token of the bot invalid until the next
rotation, and :meth:`BotStore.delete` marks the bot deleted for good: no token works, the record stays (so
results already recorded keep their name) and the name, compared without case, can never be registered
again. Every refused token gets the same message, ``invalid token``, whether the bot exists or not.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, replace

import redis

from ._codec import text_hash
from .keys import BOT_NAME_RE, InvalidName, Keys, bot_key
from .store_errors import DeletedBot, DuplicateBotName, InvalidToken, UnknownBot

MAX_OWNER = 200
INVALID_TOKEN = "invalid token"
"""The one message of a refused token (unknown bot, wrong, revoked or deleted: never which)."""
MAX_VERSION = 64
MAX_VERSIONS_KEPT = 100
"""Versions a bot's history keeps; past it, the one seen longest ago is dropped (a bot reconnecting with a new
version string each time cannot grow it without bound)."""

# Note a version seen now: keep its first-seen time, set its last-seen time; drop the version seen longest ago past
# the cap. Values are "first:last" (seconds since the epoch).
_NOTE_VERSION = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
local first = ARGV[2]
if old then first = string.match(old, '^([^:]+)') end
redis.call('HSET', KEYS[1], ARGV[1], first .. ':' .. ARGV[2])
if redis.call('HLEN', KEYS[1]) > tonumber(ARGV[3]) then
  local all = redis.call('HGETALL', KEYS[1])
  local oldest, oldest_last = nil, nil
  for i = 1, #all, 2 do
    local last = tonumber(string.match(all[i + 1], ':(.+)$'))
    if oldest_last == nil or last < oldest_last then oldest, oldest_last = all[i], last end
  end
  redis.call('HDEL', KEYS[1], oldest)
end
return 1
"""

_SPEND_HOST_TOKEN = """
if redis.call('HGET', KEYS[1], 'host_token_hash') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'host_token_hash', '')
return 1
"""

_BIND_HOST_TOKEN = """
if redis.call('HGET', KEYS[1], 'host_token_hash') ~= ARGV[1] then return 0 end
local bound = redis.call('HGET', KEYS[1], 'host_match')
if bound and bound ~= '' then return 0 end
redis.call('HSET', KEYS[1], 'host_match', ARGV[2])
return 1
"""

_REGISTER = """
local existing = redis.call('HGET', KEYS[1], 'name')
if existing then
  if redis.call('HGET', KEYS[1], 'token_hash') == ARGV[5] then return false end
  return existing
end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'owner', ARGV[2], 'version', ARGV[3], 'salt', ARGV[4],
           'token_hash', ARGV[5], 'created_at', ARGV[6], 'updated_at', ARGV[6])
redis.call('SADD', KEYS[2], ARGV[7])
return false
"""

_ROTATE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'deleted_at') then return -1 end
redis.call('HSET', KEYS[1], unpack(ARGV))
redis.call('HDEL', KEYS[1], 'revoked_at')
return 1
"""

_UPDATE_IF_EXISTS = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


@dataclass(frozen=True)
class BotRecord:
    """A registered bot (without its token hash)."""

    name: str
    owner: str
    version: str
    created_at: float
    updated_at: float
    revoked: bool = False
    """No token works until the next rotation (:meth:`BotStore.revoke`)."""
    deleted: bool = False
    """Deleted for good (:meth:`BotStore.delete`): no token works, the name stays taken."""
    human_games: bool = False
    """Its latest Hello accepted games against people (``Hello.accepts_human_games``)."""
    sandboxes_only: bool = False
    """A competition without memory admits it: only the bot host's fresh sandboxes may connect it (its author's own
    process is refused at its Hello), set by the bot host (:meth:`BotStore.set_sandboxes_only`)."""
    host_version: str = ""
    """Only from :meth:`BotStore.verify_token` given the bot host's token: the version of the submission that
    process runs (:func:`arena.submissions.hosted_version`), which the gateway records instead of the Hello's."""
    fresh_sandbox: bool = False
    """Only from :meth:`BotStore.verify_token` given a host token issued with ``fresh_sandbox``: that process is a
    sandbox of its own for one match (a competition asked for bots without memory); the gateway seats it in one
    match only and spends the token at that match's end (:meth:`BotStore.spend_host_token`)."""
    host_token_id: str = ""
    """Only with a host token: what names it (its digest), to spend exactly that token and no newer one."""
    sandbox_match: str = ""
    """Only with a fresh sandbox's token: the match it was seated in ("" before its first;
    :meth:`BotStore.bind_host_token`): a session it opens again may only play that one."""


@dataclass(frozen=True)
class BotVersion:
    """One version a bot connected with (the ``bot_version`` of its Hello): when it was first and last seen, and the
    matches recorded with it in a seat under that version (:meth:`arena.store.result_store.ResultStore.record`)."""

    version: str
    first_seen: float
    last_seen: float
    matches: int = 0


def hash_token(token: str, salt: bytes) -> str:
    """``HMAC-SHA256(key=salt, msg=token)`` as hex."""
    return hmac.new(salt, token.encode("utf-8"), hashlib.sha256).hexdigest()


def split_token(token: str) -> tuple[str, str]:
    """``(bot name, secret)`` of a token; raises :class:`InvalidToken` when it is malformed."""
    if not isinstance(token, str):
        raise InvalidToken("malformed token: expected a string '<bot name>.<secret>'")
    name, dot, secret = token.partition(".")
    if not dot or not secret or not BOT_NAME_RE.match(name):
        raise InvalidToken("malformed token: expected '<bot name>.<secret>' as given at registration")
    return name, secret


def _check_text(value: str, what: str, limit: int) -> str:
    if not isinstance(value, str) or len(value) > limit or any(ord(c) < 32 for c in value):
        got = f"{len(value)} characters" if isinstance(value, str) else type(value).__name__
        raise ValueError(f"{what} must be a string of at most {limit} printable characters, got {got}")
    return value


class BotStore:
    """Register bots, look them up and verify their tokens."""

    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self._r = client
        self._k = keys
        self._register = client.register_script(_REGISTER)
        self._update = client.register_script(_UPDATE_IF_EXISTS)
        self._rotate = client.register_script(_ROTATE)
        self._note_version = client.register_script(_NOTE_VERSION)
        self._spend_host_token = client.register_script(_SPEND_HOST_TOKEN)
        self._bind_host_token = client.register_script(_BIND_HOST_TOKEN)

    def register(self, name: str, owner: str = "", version: str = "1") -> tuple[BotRecord, str]:
        """Register a new bot; return its record and its token (shown once, never stored).

        Raises :class:`~arena.store.keys.InvalidName` for a bad name, ``ValueError`` for a bad
        owner or version, and :class:`DuplicateBotName` when the name (without case) is taken.
        """
        key = self._k.bot(name)
        _check_text(owner, "owner", MAX_OWNER)
        if not version:
            raise ValueError("version must not be empty")
        _check_text(version, "version", MAX_VERSION)
        token, salt = self._new_token(name)
        now = time.time()
        existing = self._register(
            keys=[key, self._k.bots()],
            args=[name, owner, version, salt.hex(), hash_token(token, salt), repr(now), bot_key(name)],
        )
        if existing is not None:
            taken = existing.decode("utf-8") if isinstance(existing, bytes) else str(existing)
            raise DuplicateBotName(name, taken)
        return BotRecord(name, owner, version, now, now), token

    def rotate_token(self, name: str) -> str:
        """Issue a new token for a bot (the old one stops working; a revoked bot works again with the new one).

        Raises :class:`UnknownBot`, or :class:`DeletedBot` for a deleted bot.
        """
        record = self.get(name)
        token, salt = self._new_token(record.name)
        done = self._rotate(
            keys=[self._k.bot(name)],
            args=["salt", salt.hex(), "token_hash", hash_token(token, salt), "updated_at", repr(time.time())],
        )
        if done == 0:
            raise UnknownBot(name)
        if done == -1:
            raise DeletedBot(record.name)
        return token

    def revoke(self, name: str) -> BotRecord:
        """Make every token of the bot invalid until :meth:`rotate_token` issues a new one; raises
        :class:`UnknownBot` (revoking a deleted bot changes nothing)."""
        now = repr(time.time())
        ok = self._update(keys=[self._k.bot(name)], args=["token_hash", "", "revoked_at", now, "updated_at", now])
        if not ok:
            raise UnknownBot(name)
        return self.get(name)

    def delete(self, name: str) -> BotRecord:
        """Delete the bot for good: no token works and none can be issued; the record stays, marked deleted, so
        results keep its name and the name is never registered again. Raises :class:`UnknownBot`; deleting a
        deleted bot changes nothing."""
        now = repr(time.time())
        record = self.get(name)
        if record.deleted:
            return record
        ok = self._update(keys=[self._k.bot(name)],
                          args=["token_hash", "", "deleted_at", now, "revoked_at", now, "updated_at", now])
        if not ok:
            raise UnknownBot(name)
        return self.get(name)

    def issue_host_token(self, name: str, version: str = "", fresh_sandbox: bool = False) -> str:
        """A second token of the bot, for the process the bot host runs for it (:mod:`arena.hosting`): it works
        like the bot's own (and stops with it when the bot is revoked or deleted) but leaves the author's token
        alone; each call replaces the previous host token. ``version``: what that process runs (a session opened
        with this token has that version, whatever its Hello says). ``fresh_sandbox``: the process plays one match
        and its token is then spent (:attr:`BotRecord.fresh_sandbox`). Raises :class:`UnknownBot`,
        :class:`DeletedBot`."""
        _check_text(version, "version", MAX_VERSION)
        record = self.get(name)
        if record.deleted:
            raise DeletedBot(record.name)
        token, salt = self._new_token(record.name)
        ok = self._update(keys=[self._k.bot(name)], args=["host_salt", salt.hex(),
                                                          "host_token_hash", hash_token(token, salt),
                                                          "host_version", version,
                                                          "host_fresh_sandbox", "1" if fresh_sandbox else "0",
                                                          "host_match", ""])
        if not ok:
            raise UnknownBot(name)
        return token

    def spend_host_token(self, name: str, token_id: str) -> bool:
        """The host token ``token_id`` (:attr:`BotRecord.host_token_id`) works no more: its process played its one
        match. A newer host token (the next sandbox's) is left alone. Whether it was the current one."""
        return bool(self._spend_host_token(keys=[self._k.bot(name)], args=[token_id]))

    def bind_host_token(self, name: str, token_id: str, match_id: str) -> bool:
        """The fresh sandbox of host token ``token_id`` was seated in ``match_id``: remembered, so a session it
        opens again is bound to that match (:attr:`BotRecord.sandbox_match`). Whether it was bound now."""
        return bool(self._bind_host_token(keys=[self._k.bot(name)], args=[token_id, match_id]))

    def token_works(self, token: str) -> bool:
        """Whether ``token`` opens a session now (the bot host asks it of a fresh sandbox's token)."""
        try:
            self.verify_token(token)
        except InvalidToken:
            return False
        return True

    def set_version(self, name: str, version: str) -> BotRecord:
        """Record a new version of the bot's code; raises :class:`UnknownBot`."""
        if not version:
            raise ValueError("version must not be empty")
        _check_text(version, "version", MAX_VERSION)
        args = ["version", version, "updated_at", repr(time.time())]
        ok = self._update(keys=[self._k.bot(name)], args=args)
        if not ok:
            raise UnknownBot(name)
        return self.get(name)

    def set_sandboxes_only(self, name: str, only: bool) -> None:
        """Whether only the bot host's fresh sandboxes may connect the bot (:attr:`BotRecord.sandboxes_only`)."""
        if not self._update(keys=[self._k.bot(name)], args=["sandboxes_only", "1" if only else "0"]):
            raise UnknownBot(name)

    def set_human_games(self, name: str, accepts: bool) -> None:
        """Whether the bot's latest Hello accepted games against people; raises :class:`UnknownBot`."""
        if not self._update(keys=[self._k.bot(name)], args=["human_games", "1" if accepts else "0"]):
            raise UnknownBot(name)

    def note_version(self, name: str, version: str, now: float | None = None) -> None:
        """The bot connected with ``version`` (its Hello): add it to the bot's version history or mark it seen now."""
        _check_text(version, "version", MAX_VERSION)
        stamp = time.time() if now is None else now
        self._note_version(keys=[self._k.bot_versions(name)], args=[version, repr(stamp), MAX_VERSIONS_KEPT])

    def versions(self, name: str) -> list[BotVersion]:
        """The versions the bot connected with, the first seen first."""
        out = []
        with self._r.pipeline(transaction=False) as pipe:
            pipe.hgetall(self._k.bot_versions(name))
            pipe.hgetall(self._k.bot_version_matches(name))
            seen, matches = pipe.execute()
        for version, value in seen.items():
            first, _, last = value.decode("utf-8").partition(":")
            out.append(BotVersion(version.decode("utf-8"), float(first), float(last), int(matches.get(version, 0))))
        return sorted(out, key=lambda v: (v.first_seen, v.version))

    def get(self, name: str) -> BotRecord:
        """The bot's record; raises :class:`UnknownBot` (or ``InvalidName`` for a malformed name)."""
        fields = self._fields(name)
        if fields is None:
            raise UnknownBot(name)
        return _record(fields)

    def exists(self, name: str) -> bool:
        """Whether a bot of that name (without case) is registered and not deleted."""
        try:
            fields = self._r.hmget(self._k.bot(name), ["name", "deleted_at"])
        except InvalidName:
            return False
        return fields[0] is not None and fields[1] is None

    def all(self) -> list[BotRecord]:
        """All registered bots, sorted by name (without case)."""
        names = sorted(m.decode("utf-8") for m in self._r.smembers(self._k.bots()))
        out: list[BotRecord] = []
        for n in names:
            fields = self._fields(n)
            if fields is not None:
                out.append(_record(fields))
        return out

    def verify_token(self, token: str, name: str | None = None) -> BotRecord:
        """The record of the bot a token belongs to, if the token is valid.

        ``name``, when given, must be the bot the token belongs to (compared without case).
        Raises :class:`InvalidToken`: ``malformed token ...`` for a token that cannot be one, else the same
        ``invalid token`` whether the bot is unknown, revoked or deleted, or the token does not match (so
        the answer never tells whether a bot name exists).
        """
        token_name, _secret = split_token(token)
        if name is not None and bot_key(name) != token_name.casefold():
            raise InvalidToken(f"this token belongs to bot {token_name!r}, not {name!r}")
        fields = self._fields(token_name) or {}
        expected = fields.get("token_hash", "")
        salt = bytes.fromhex(fields.get("salt", "")) or b"\0" * 16
        actual = hash_token(token, salt)  # computed for an unknown bot too: the same work either way
        host_salt = bytes.fromhex(fields.get("host_salt", "")) or b"\0" * 16
        host_digest = hash_token(token, host_salt)
        host = hmac.compare_digest(fields.get("host_token_hash", "-"), host_digest)
        author = hmac.compare_digest(expected, actual)
        if not expected or not (author or host) or "deleted_at" in fields:
            raise InvalidToken(INVALID_TOKEN)
        record = _record(fields)
        if author:
            return record
        return replace(record, host_version=fields.get("host_version", ""), host_token_id=host_digest,
                       fresh_sandbox=fields.get("host_fresh_sandbox") == "1",
                       sandbox_match=fields.get("host_match", ""))

    def copy_identity(self, name: str, into: BotStore) -> None:
        """Register bot ``name`` in the store of ``into`` (another arena's registry, e.g. the private store of
        ``bot check``) with this store's salt and token hash: the bot's own token opens sessions there too, and
        nothing is written here. Its host token, if any, is not copied. Raises :class:`UnknownBot`."""
        fields = self._fields(name)
        if fields is None:
            raise UnknownBot(name)
        kept = {k: v for k, v in fields.items()
                if k in ("name", "owner", "version", "salt", "token_hash", "created_at", "updated_at", "revoked_at",
                         "deleted_at")}
        into._r.hset(into._k.bot(name), mapping=kept)  # type: ignore[arg-type]
        into._r.sadd(into._k.bots(), bot_key(name))

    def _fields(self, name: str) -> dict[str, str] | None:
        raw = self._r.hgetall(self._k.bot(name))
        return text_hash(raw) if raw else None

    @staticmethod
    def _new_token(name: str) -> tuple[str, bytes]:
        return f"{name}.{secrets.token_urlsafe(32)}", secrets.token_bytes(16)


def _record(fields: dict[str, str]) -> BotRecord:
    return BotRecord(
        name=fields["name"],
        owner=fields.get("owner", ""),
        version=fields.get("version", ""),
        created_at=float(fields.get("created_at", 0.0)),
        updated_at=float(fields.get("updated_at", 0.0)),
        revoked=not fields.get("token_hash"),
        deleted="deleted_at" in fields,
        human_games=fields.get("human_games") == "1",
        sandboxes_only=fields.get("sandboxes_only") == "1",
    )
