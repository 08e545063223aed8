"""Connecting to Redis, and :class:`Store`, the one object that gathers the record stores.

``REDIS_URL`` may be written for redis-py (``redis://``, ``rediss://``, ``unix://``) or for
Celery/kombu (``redis+socket://``, ``socket://``); :func:`redis_py_url` and :func:`kombu_url`
convert between the two so one variable serves both.
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
    """``url`` if given, else ``$REDIS_URL``; raises :class:`StoreConfigError` when neither is set."""
    value = url if url is not None else os.environ.get(ENV_VAR, "")
    if not value:
        raise StoreConfigError(f"no Redis URL: set {ENV_VAR} (e.g. redis://127.0.0.1:6379/0)")
    return value


def _socket_parts(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    path = parts.path
    if not path:
        raise StoreConfigError(f"socket Redis URL {url!r} has no socket path")
    query = dict(parse_qsl(parts.query))
    db = query.pop("db", None) or query.pop("virtual_host", None) or "0"
    return path, db


def redis_py_url(url: str) -> str:
    """The URL in the form redis-py accepts (``redis+socket://PATH`` becomes ``unix://PATH?db=N``)."""
    return _socket_url(url, "unix", "db")


def kombu_url(url: str) -> str:
    """The URL in the form Celery/kombu accepts (``unix://PATH`` becomes ``redis+socket://PATH``)."""
    return _socket_url(url, "redis+socket", "virtual_host")


def _socket_url(url: str, scheme: str, db_key: str) -> str:
    """``url`` as is over TCP; a socket URL in ``scheme``, its database as ``db_key``."""
    given = urlsplit(url).scheme
    if given in ("redis", "rediss"):
        return url
    if given not in _SOCKET_SCHEMES:
        raise StoreConfigError(f"unsupported Redis URL scheme {given!r} in {url!r}: use redis://, rediss:// or unix://")
    path, db = _socket_parts(url)
    return f"{scheme}://{path}?{urlencode({db_key: db})}"


def connect(url: str | None = None) -> redis.Redis:
    """A redis-py client (bytes replies) for ``url`` or ``$REDIS_URL``.

    Connection errors and timeouts are retried with jittered exponential backoff (at most about
    6 s in total), which rides over a quick Redis restart; every write the store makes is safe
    to repeat.
    """
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
    """Every record store of uno-arena over one Redis client and one key prefix.

    Attributes: ``bots`` (:class:`BotStore`), ``sessions`` (:class:`SessionStore`),
    ``tournaments`` (:class:`TournamentStore`), ``results`` (:class:`ResultStore`),
    ``replays`` (:class:`ReplayStore`), ``standings`` (:class:`StandingsStore`),
    ``ratings`` (:class:`RatingStore`), ``schedules`` (:class:`ScheduleStore`),
    ``canary`` (:class:`CanaryStore`), ``incidents`` (:class:`IncidentStore`), ``gauntlets``
    (:class:`GauntletStore`), ``competitions`` (:class:`CompetitionStore`), ``slots`` (:class:`SlotStore`), and
    ``redis``/``keys`` underneath; ``archive_dir``: where submitted archives are kept (default
    ``$UNO_ARENA_ARCHIVE_DIR``, else :func:`arena.store.archive_store.default_archive_dir`);
    :attr:`url` names the server (for a Celery app on the same Redis) and :meth:`relay` opens the relay's
    asyncio channel.
    """

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
        """A store on ``url`` (or ``$REDIS_URL``); see :func:`connect`."""
        return cls(connect(url), prefix, url=redis_py_url(redis_url_from_env(url)))

    def relay(self, meter: TrafficMeter | None = None, *, name: str = "") -> RelayChannel:
        """The relay's channel on an asyncio client to the same server and database (call it inside the event
        loop that will use it, never before a fork); ``meter`` counts its commands and bytes, ``name`` names its
        connections (``CLIENT LIST``)."""
        return RelayChannel(_async_client(self.redis, name), self.keys, meter)

    def queue_depth(self, queue: str) -> int:
        """Messages waiting in a Celery (kombu) queue on this Redis, its priority lists summed."""
        total = int(self.redis.llen(queue))
        for key in self.redis.scan_iter(match=f"{queue}{_KOMBU_PRIORITY_SEP}*", count=100):
            total += int(self.redis.llen(key))
        return total

    def queued_task_ids(self, queue: str, prefix: str) -> set[str]:
        """The ids of the Celery tasks waiting in ``queue`` (a kombu queue on this Redis) that start with
        ``prefix``, the prefix taken off; one round trip. Raises redis' errors (Redis unreachable)."""
        # kombu's Redis transport keeps one list per priority step: the queue itself, then "<queue>\x06\x16<p>".
        names = [queue] + [f"{queue}{_KOMBU_PRIORITY_SEP}{step}" for step in range(1, 10)]
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.lrange(name, 0, -1)
        found: set[str] = set()
        for raw in (item for items in pipe.execute() for item in items):
            task_id = str(json.loads(raw).get("headers", {}).get("id", ""))
            if task_id.startswith(prefix):
                found.add(task_id[len(prefix):])
        return found

    def ping(self) -> bool:
        return bool(self.redis.ping())

    def _refused(self, error: redis.AuthenticationError | redis.ResponseError) -> StoreConfigError:
        if isinstance(error, redis.AuthenticationError) or "AUTH" in str(error):  # also a password it has none for
            return StoreConfigError(f"Redis at {_redacted(self.url)} refused the credentials: {error}")
        db = int(self.redis.connection_pool.connection_kwargs.get("db", 0) or 0)
        return StoreConfigError(
            f"Redis at {_redacted(self.url)} refused database {db} ({error}): the database index must be "
            "below the server's `databases` setting (16 by default: 0-15)")

    def check_reachable(self) -> None:
        """Raise :class:`StoreConfigError` naming the server (without its password) when Redis cannot be reached,
        after the client's retries (a few seconds: a Redis still starting is waited for), or refuses this URL's
        settings (a database index the server does not have, a wrong password). For a process's start, so it fails
        at once with one line."""
        try:
            self.redis.ping()
        except (redis.AuthenticationError, redis.ResponseError) as error:  # (the first is a ConnectionError)
            raise self._refused(error) from None
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
    """A redis-py URL for the server and database of ``client`` (a store made from a client, not a URL)."""
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
    """An asyncio client to the same server and database as ``client`` (its connections named ``name``)."""
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
    """``url`` without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[-1]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return parts._replace(netloc=user + netloc).geturl()
