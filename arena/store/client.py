"""Connecting to Redis, and :class:`Store`, the one object that gathers the record stores.

``REDIS_URL`` may be written for redis-py (``redis://``, ``rediss://``, ``unix://``) or for Celery/kombu
(``redis+socket://``): :func:`redis_py_url` and :func:`kombu_url` convert, so one variable serves both.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import redis
import redis.asyncio
from redis.backoff import EqualJitterBackoff
from redis.retry import Retry

from .archive_store import archive_folder
from .batching import TrafficMeter
from .bots import BotStore
from .canary import CanaryStore
from .competition_store import CompetitionStore
from .gauntlet_store import GauntletStore
from .incident_store import IncidentStore
from .keys import DEFAULT_PREFIX, Keys
from .rating_store import RatingStore
from .relay import RelayChannel
from .replay_store import ReplayStore
from .result_store import ResultStore
from .schedule_store import ScheduleStore
from .session_store import SessionStore
from .slots import SlotStore
from .standings_store import StandingsStore
from .store_errors import StoreConfigError
from .submission_store import SubmissionStore
from .tournament_store import TournamentStore

ENV_VAR = "REDIS_URL"

_KOMBU_PRIORITY_SEP = "\x06\x16"
"""What kombu's Redis transport puts between a queue's name and a priority step in the names of its lists."""

_SOCKET_SCHEMES = ("redis+socket", "socket", "unix")


def redis_url_from_env(url: str | None = None) -> str:
    value = url if url is not None else os.environ.get(ENV_VAR, "")
    if not value:
        raise StoreConfigError(f"no Redis URL: set {ENV_VAR} (e.g. redis://127.0.0.1:6379/0)")
    return value


def redis_py_url(url: str) -> str:
    return _socket_url(url, "unix", "db")


def kombu_url(url: str) -> str:
    return _socket_url(url, "redis+socket", "virtual_host")


def _socket_url(url: str, scheme: str, db_key: str) -> str:
    """``url`` as is over TCP; a socket URL in ``scheme``, its database as ``db_key``."""
    parts = urlsplit(url)
    if parts.scheme in ("redis", "rediss"):
        return url
    if parts.scheme not in _SOCKET_SCHEMES:
        raise StoreConfigError(f"unsupported Redis URL scheme {parts.scheme!r} in {url!r}: use redis://, rediss:// or "
                               "unix://")
    if not parts.path:
        raise StoreConfigError(f"socket Redis URL {url!r} has no socket path")
    query = dict(parse_qsl(parts.query))
    db = query.get("db") or query.get("virtual_host") or "0"
    return f"{scheme}://{parts.path}?{urlencode({db_key: db})}"


def connect(url: str | None = None) -> redis.Redis:
    """A redis-py client (bytes replies) for ``url`` or ``$REDIS_URL``. Connection errors and timeouts are retried
    for about 6 s, which rides over a quick Redis restart: every write the store makes is safe to repeat."""
    target = redis_py_url(redis_url_from_env(url))
    tcp: dict[str, Any] = {} if target.startswith("unix:") else {"socket_keepalive": True}
    return redis.Redis.from_url(
        target,
        decode_responses=False,
        health_check_interval=15,
        socket_connect_timeout=5,
        socket_timeout=30,
        retry=Retry(EqualJitterBackoff(cap=1.0, base=0.05), 10),
        **tcp,
    )


class Store:
    """Every record store of uno-arena over one Redis client and one key prefix; :attr:`url` names the server (for a
    Celery app on the same Redis), ``archive_dir`` the folder of submitted archives."""

    def __init__(self, client: redis.Redis, prefix: str = DEFAULT_PREFIX, *, url: str | None = None,
                 archive_dir: str | None = None) -> None:
        self.redis = client
        self.url = url or _url_of(client)
        self.keys = Keys(prefix)
        self.bots = BotStore(client, self.keys)
        self.sessions = SessionStore(client, self.keys)
        self.tournaments = TournamentStore(client, self.keys)
        self.results = ResultStore(client, self.keys)
        self.replays = ReplayStore(client, self.keys)
        self.standings = StandingsStore(client, self.keys)
        self.ratings = RatingStore(client, self.keys)
        self.schedules = ScheduleStore(client, self.keys)
        self.canary = CanaryStore(client, self.keys)
        self.incidents = IncidentStore(client, self.keys)
        self.gauntlets = GauntletStore(client, self.keys)
        self.competitions = CompetitionStore(client, self.keys)
        self.slots = SlotStore(client, self.keys)
        self.submissions = SubmissionStore(client, self.keys, archive_folder(_url_of(client), prefix, archive_dir))

    @classmethod
    def from_url(cls, url: str | None = None, *, prefix: str = DEFAULT_PREFIX) -> Store:
        return cls(connect(url), prefix, url=redis_py_url(redis_url_from_env(url)))

    def relay(self, meter: TrafficMeter | None = None, *, name: str = "") -> RelayChannel:
        """The relay's channel on an asyncio client to the same server and database (make it inside the event loop
        that uses it, never before a fork); ``name`` names its connections (``CLIENT LIST``)."""
        return RelayChannel(_async_client(self.redis, name), self.keys, meter)

    def queue_depth(self, queue: str) -> int:
        """Messages waiting in a Celery (kombu) queue on this Redis, its priority lists summed."""
        total = int(self.redis.llen(queue))
        for key in self.redis.scan_iter(match=f"{queue}{_KOMBU_PRIORITY_SEP}*", count=100):
            total += int(self.redis.llen(key))
        return total

    def queued_task_ids(self, queue: str, prefix: str) -> set[str]:
        """The ids of the Celery tasks waiting in ``queue`` that start with ``prefix``, the prefix taken off."""
        # kombu's Redis transport keeps one list per priority step: the queue itself, then "<queue>\x06\x16<p>".
        names = [queue] + [f"{queue}{_KOMBU_PRIORITY_SEP}{step}" for step in range(1, 10)]
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.lrange(name, 0, -1)
        ids = (str(json.loads(raw).get("headers", {}).get("id", "")) for items in pipe.execute() for raw in items)
        return {task_id.removeprefix(prefix) for task_id in ids if task_id.startswith(prefix)}

    def ping(self) -> bool:
        return bool(self.redis.ping())

    def check_reachable(self) -> None:
        """For a process's start: :class:`StoreConfigError`, one line naming the server (without its password), when
        Redis cannot be reached after the client's retries or refuses this URL's database or credentials."""
        try:
            self.redis.ping()
        except (redis.AuthenticationError, redis.ResponseError) as error:  # (the first is a ConnectionError)
            if isinstance(error, redis.AuthenticationError) or "AUTH" in str(error):  # also a password it has none for
                raise StoreConfigError(f"Redis at {_redacted(self.url)} refused the credentials: {error}") from None
            db = int(self.redis.connection_pool.connection_kwargs.get("db", 0) or 0)
            raise StoreConfigError(
                f"Redis at {_redacted(self.url)} refused database {db} ({error}): the database index must be "
                "below the server's `databases` setting (16 by default: 0-15)") from None
        except (redis.ConnectionError, redis.TimeoutError) as error:
            raise StoreConfigError(f"cannot reach Redis at {_redacted(self.url)} ({error}): start it, or set "
                                   f"{ENV_VAR} to the arena's Redis") from None

    def close(self) -> None:
        self.redis.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _url_of(client: redis.Redis) -> str:
    pool = client.connection_pool
    kw = pool.connection_kwargs
    db = int(kw.get("db", 0) or 0)
    if kw.get("path"):
        return f"unix://{kw['path']}?db={db}"
    auth = ""
    if kw.get("password"):
        auth = f"{quote(str(kw.get('username') or ''))}:{quote(str(kw['password']))}@"
    scheme = "rediss" if issubclass(pool.connection_class, redis.SSLConnection) else "redis"
    return f"{scheme}://{auth}{kw.get('host', '127.0.0.1')}:{kw.get('port', 6379)}/{db}"


def _async_client(client: redis.Redis, name: str = "") -> redis.asyncio.Redis:
    pool = client.connection_pool
    kwargs: dict[str, Any] = pool.connection_kwargs
    common: dict[str, Any] = {
        "db": kwargs.get("db", 0),
        "username": kwargs.get("username"),
        "password": kwargs.get("password"),
        "socket_connect_timeout": 5,
        # redis-py's default (5 s) would end any blocking pop longer than that (a decision's wait, a match start
        # waiting for a free slot) with a TimeoutError; RelayChannel.wait_reply pops at most WAIT_CHUNK_S at once.
        "socket_timeout": 30,
        "health_check_interval": 15,
        "client_name": name or None,
    }
    if kwargs.get("path"):
        return redis.asyncio.Redis(unix_socket_path=kwargs["path"], **common)
    ssl = issubclass(pool.connection_class, redis.SSLConnection)
    return redis.asyncio.Redis(host=kwargs.get("host", "localhost"), port=kwargs.get("port", 6379), ssl=ssl,
                               socket_keepalive=True, **common)


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[-1]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return parts._replace(netloc=user + netloc).geturl()
