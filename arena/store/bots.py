"""Bot registry: names, owners, versions and hashed tokens.

A token is ``<bot name>.<secret>``, returned once and never stored: the bot's hash keeps a random per-bot salt and
``HMAC-SHA256(key=salt, msg=token)``, so :meth:`BotStore.verify_token` finds the record from the token alone and
compares digests in constant time. Registration is one Lua script, so two registrations of one name cannot both
succeed (a redis-py retry is recognised by its token hash). A deleted bot keeps its record and its name for good;
every refused token gets the same message, whether the bot exists or not.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, replace

import redis

from ._codec import RecordStore, text, text_hash
from .keys import BOT_NAME_RE, InvalidName, Keys, bot_key
from .store_errors import DeletedBot, DuplicateBotName, InvalidToken, UnknownBot

MAX_OWNER = 200
INVALID_TOKEN = "invalid token"
"""The one message of a refused token (unknown bot, wrong, revoked or deleted: never which)."""
MAX_VERSION = 64
MAX_VERSIONS_KEPT = 100
"""Versions a bot's history keeps; past it, the one seen longest ago is dropped."""

# Note a version seen now ("first:last", epoch seconds); past the cap, drop the version seen longest ago.
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
    deleted: bool = False
    """Deleted for good: no token works, the name stays taken."""
    human_games: bool = False
    """Its latest Hello accepted games against people."""
    sandboxes_only: bool = False
    """Only the bot host's fresh sandboxes may connect it (a competition without memory admits it)."""
    # The rest is set only by verify_token given the bot host's token:
    host_version: str = ""
    """The version of the submission that process runs, recorded instead of the Hello's."""
    fresh_sandbox: bool = False
    """That process is a sandbox of its own for one match; its token is spent at that match's end."""
    host_token_id: str = ""
    """The host token's digest, to spend exactly that token and no newer one."""
    sandbox_match: str = ""
    """A fresh sandbox's match ("" before its first): a session it opens again may only play that one."""


@dataclass(frozen=True)
class BotVersion:
    """One version a bot connected with (its Hello's ``bot_version``), and the matches recorded with it."""

    version: str
    first_seen: float
    last_seen: float
    matches: int = 0


def hash_token(token: str, salt: bytes) -> str:
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


def _check_version(version: str) -> None:
    if not version:
        raise ValueError("version must not be empty")
    _check_text(version, "version", MAX_VERSION)


class BotStore(RecordStore):
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        super().__init__(client, keys)
        self._register = client.register_script(_REGISTER)
        self._update = client.register_script(_UPDATE_IF_EXISTS)
        self._rotate = client.register_script(_ROTATE)
        self._note_version = client.register_script(_NOTE_VERSION)
        self._spend_host_token = client.register_script(_SPEND_HOST_TOKEN)
        self._bind_host_token = client.register_script(_BIND_HOST_TOKEN)

    def register(self, name: str, owner: str = "", version: str = "1") -> tuple[BotRecord, str]:
        """Register a new bot; its record and its token (shown once, never stored). :class:`DuplicateBotName` when
        the name (without case) is taken."""
        _check_text(owner, "owner", MAX_OWNER)
        _check_version(version)
        token, salt = self._new_token(name)
        now = time.time()
        existing = self._register(
            keys=[self._k.bot(name), self._k.bots()],
            args=[name, owner, version, salt.hex(), hash_token(token, salt), repr(now), bot_key(name)],
        )
        if existing is not None:
            raise DuplicateBotName(name, str(text(existing)))
        return BotRecord(name, owner, version, now, now), token

    def rotate_token(self, name: str) -> str:
        """Issue a new token (the old one stops working; a revoked bot works again with the new one)."""
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
        """Make every token of the bot invalid until :meth:`rotate_token` issues a new one."""
        now = repr(time.time())
        self._set_fields(name, "token_hash", "", "revoked_at", now, "updated_at", now)
        return self.get(name)

    def delete(self, name: str) -> BotRecord:
        """Delete the bot for good: no token works or can be issued; the record stays, so results keep its name and
        the name is never registered again."""
        now = repr(time.time())
        record = self.get(name)
        if record.deleted:
            return record
        self._set_fields(name, "token_hash", "", "deleted_at", now, "revoked_at", now, "updated_at", now)
        return self.get(name)

    def issue_host_token(self, name: str, version: str = "", fresh_sandbox: bool = False) -> str:
        """A second token of the bot, for the process the bot host runs for it: it works like the bot's own (and
        stops with it) but leaves the author's token alone; each call replaces the previous host token."""
        _check_text(version, "version", MAX_VERSION)
        record = self.get(name)
        if record.deleted:
            raise DeletedBot(record.name)
        token, salt = self._new_token(record.name)
        self._set_fields(name, "host_salt", salt.hex(), "host_token_hash", hash_token(token, salt),
                         "host_version", version, "host_fresh_sandbox", "1" if fresh_sandbox else "0", "host_match", "")
        return token

    def spend_host_token(self, name: str, token_id: str) -> bool:
        """The host token ``token_id`` works no more (a newer one is left alone); whether it was the current one."""
        return bool(self._spend_host_token(keys=[self._k.bot(name)], args=[token_id]))

    def bind_host_token(self, name: str, token_id: str, match_id: str) -> bool:
        """Bind the fresh sandbox of host token ``token_id`` to ``match_id``; whether it was bound now."""
        return bool(self._bind_host_token(keys=[self._k.bot(name)], args=[token_id, match_id]))

    def token_works(self, token: str) -> bool:
        try:
            self.verify_token(token)
        except InvalidToken:
            return False
        return True

    def set_version(self, name: str, version: str) -> BotRecord:
        _check_version(version)
        self._set_fields(name, "version", version, "updated_at", repr(time.time()))
        return self.get(name)

    def set_sandboxes_only(self, name: str, only: bool) -> None:
        self._set_fields(name, "sandboxes_only", "1" if only else "0")

    def set_human_games(self, name: str, accepts: bool) -> None:
        self._set_fields(name, "human_games", "1" if accepts else "0")

    def note_version(self, name: str, version: str, now: float | None = None) -> None:
        """The bot connected with ``version``: add it to its history or mark it seen now."""
        _check_text(version, "version", MAX_VERSION)
        stamp = time.time() if now is None else now
        self._note_version(keys=[self._k.bot(name, "versions")], args=[version, repr(stamp), MAX_VERSIONS_KEPT])

    def versions(self, name: str) -> list[BotVersion]:
        """The versions the bot connected with, the first seen first."""
        out = []
        with self._r.pipeline(transaction=False) as pipe:
            pipe.hgetall(self._k.bot(name, "versions"))
            pipe.hgetall(self._k.bot(name, "version-matches"))
            seen, matches = pipe.execute()
        for version, value in seen.items():
            first, _, last = value.decode("utf-8").partition(":")
            out.append(BotVersion(version.decode("utf-8"), float(first), float(last), int(matches.get(version, 0))))
        return sorted(out, key=lambda v: (v.first_seen, v.version))

    def get(self, name: str) -> BotRecord:
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
        names = sorted(m.decode("utf-8") for m in self._r.smembers(self._k.bots()))
        return [_record(fields) for n in names if (fields := self._fields(n)) is not None]

    def verify_token(self, token: str, name: str | None = None) -> BotRecord:
        """The record of the bot a valid token belongs to (``name``, when given, must be that bot). Every refusal
        but a malformed token is the same ``invalid token``, so the answer never tells whether a bot exists."""
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
        """Register bot ``name`` in ``into`` (e.g. the private store of ``bot check``) with this store's salt and
        token hash, so its own token (not its host token) opens sessions there too."""
        fields = self._fields(name)
        if fields is None:
            raise UnknownBot(name)
        kept = {k: v for k, v in fields.items()
                if k in ("name", "owner", "version", "salt", "token_hash", "created_at", "updated_at", "revoked_at",
                         "deleted_at")}
        into._r.hset(into._k.bot(name), mapping=kept)  # type: ignore[arg-type]
        into._r.sadd(into._k.bots(), bot_key(name))

    def _set_fields(self, name: str, *pairs: str) -> None:
        """Set fields of an existing bot's hash (``field, value, ...``); :class:`UnknownBot` when there is none."""
        if not self._update(keys=[self._k.bot(name)], args=list(pairs)):
            raise UnknownBot(name)

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
