"""The web front's defences as a public site, one ASGI middleware (:class:`Guard`) in front of every route: CSRF
(a state-changing request from another site is refused, ``POST /api/...`` takes only JSON), per-client limits (a
client is its network prefix, :func:`prefix_of`: token buckets and caps at once, :class:`ClientLimits`; 429 with a
``Retry-After`` past them) and security headers on every answer. docs/web.md ("As a public site") says why each is
what it is. Which request is what is pure (:func:`classify`); the forms of a bot's author spend their buckets in
their routes, before the body is read (:func:`arena.web.pages.admit_author_form`), and the play pages count the games
a client runs (:meth:`ClientLedger.games`).
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.web.views import counted

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""No inline script or style (a page's JSON for its script is a ``<script type="application/json">`` data block)."""
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class Kind(Enum):
    GAME_START = "game start"
    STREAM = "live stream"
    EXPORT = "export"
    REPLAY = "replay read"
    AUTHOR_FORM = "bot form post"
    REFUSED_TOKEN = "refused token"
    OTHER = "other"


_PLAY_STREAM = re.compile(r"^/api/play/[^/]+/stream$")
_EXPORT = re.compile(r"^/tournaments/[^/]+/results\.[a-z]+$")
_REPLAY = re.compile(r"^(/matches/[^/]+(/frame)?|/api/matches/[^/]+/replay)$")


def classify(method: str, path: str) -> Kind:
    """Which limit a request counts against."""
    if method == "POST" and path in ("/play", "/api/play"):
        return Kind.GAME_START
    if method == "GET" and (path.startswith("/events/") or _PLAY_STREAM.match(path)):
        return Kind.STREAM
    if method == "GET" and _EXPORT.match(path):
        return Kind.EXPORT
    if method == "GET" and _REPLAY.match(path):
        return Kind.REPLAY
    return Kind.OTHER


def foreign_origin(headers: dict[str, str]) -> str | None:
    """The other site a state-changing request comes from, else None: its ``Origin`` (else its ``Referer``)
    compared with its ``Host``. ``Origin: null`` (a sandboxed frame, a redirect across sites) is foreign."""
    host = headers.get("host", "").lower()
    origin = headers.get("origin")
    if origin is not None:
        claimed = origin.strip().lower()
        return None if claimed != "null" and urlsplit(claimed).netloc == host else origin[:200]
    referer = headers.get("referer")
    if referer is not None and urlsplit(referer.strip().lower()).netloc != host:
        return referer[:200]
    return None


def json_body_refused(method: str, path: str, headers: dict[str, str]) -> bool:
    """A ``POST /api/...`` without ``Content-Type: application/json``."""
    if method not in STATE_CHANGING or not path.startswith("/api/"):
        return False
    media = headers.get("content-type", "").split(";")[0].strip().lower()
    return media != "application/json"


class TokenBucket:
    """``burst`` tokens, refilled at ``per_s``; :meth:`take` spends one or says how long until one is there,
    :meth:`wait` only says it."""

    def __init__(self, burst: float, per_s: float, now: float) -> None:
        self.burst = burst
        self.per_s = per_s
        self.tokens = burst
        self.at = now

    def wait(self, now: float) -> float:
        """0.0 when a token is there, else the seconds until one is (nothing spent)."""
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_s)
        self.at = now
        if self.tokens >= 1.0:
            return 0.0
        return (1.0 - self.tokens) / self.per_s if self.per_s > 0 else math.inf

    def take(self, now: float) -> float:
        """0.0 when a token was spent, else the seconds until the next one."""
        wait = self.wait(now)
        if not wait:
            self.tokens -= 1.0
        return wait

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.at) * self.per_s >= self.burst


@dataclass(frozen=True)
class Rate:
    """A token bucket's shape: ``burst`` at once, then ``per_minute``."""

    burst: int
    per_minute: float

    def __post_init__(self) -> None:
        if self.burst < 1 or self.per_minute <= 0:
            raise ValueError(f"a rate needs a burst of 1 or more and a positive rate, got {self}")


@dataclass(frozen=True)
class ClientLimits:
    """What one client (network prefix) may do: the rates of each :class:`Kind`, and ``games``, ``remote_games``
    (with a connected bot at the table) and ``streams_open`` at once; ``max_clients`` bounds the clients kept.
    ``enabled=False`` turns the limits off (the CSRF checks and the headers stay)."""

    game_starts: Rate = field(default_factory=lambda: Rate(burst=4, per_minute=6))
    streams: Rate = field(default_factory=lambda: Rate(burst=20, per_minute=120))
    exports: Rate = field(default_factory=lambda: Rate(burst=10, per_minute=30))
    replays: Rate = field(default_factory=lambda: Rate(burst=120, per_minute=1200))
    author_forms: Rate = field(default_factory=lambda: Rate(burst=6, per_minute=6))
    refused_tokens: Rate = field(default_factory=lambda: Rate(burst=3, per_minute=1))
    games: int = 3
    remote_games: int = 2
    streams_open: int = 12
    max_clients: int = 50_000
    enabled: bool = True

    def __post_init__(self) -> None:
        if self.max_clients < 1:
            raise ValueError(f"max_clients must be 1 or more, got {self.max_clients}")

    def rate(self, kind: Kind) -> Rate | None:
        return {Kind.GAME_START: self.game_starts, Kind.STREAM: self.streams, Kind.EXPORT: self.exports,
                Kind.REPLAY: self.replays, Kind.AUTHOR_FORM: self.author_forms,
                Kind.REFUSED_TOKEN: self.refused_tokens}.get(kind)


NO_LIMITS = ClientLimits(enabled=False)


class TooMany(Exception):
    """A client past one of its limits: ``str()`` is the line it is told; ``retry_after_s`` when to try again."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s

    @property
    def retry_after(self) -> str:
        """The ``Retry-After`` header's value: whole seconds, at least 1."""
        return str(max(1, math.ceil(self.retry_after_s)))


@dataclass(frozen=True)
class LiveGame:
    remote: bool
    over: Callable[[], bool]


class ClientLedger:
    """The buckets and open streams of every client (thread-safe; idle clients are forgotten, and past
    :attr:`ClientLimits.max_clients` the one seen least recently), and the games each runs (registered by the play
    pages: :meth:`games`)."""

    FORGET_AFTER_S = 600.0

    def __init__(self, limits: ClientLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._buckets: dict[str, dict[Kind, TokenBucket]] = {}  # by client, the one seen least recently first
        self._streams: dict[str, int] = {}
        self._games: dict[str, list[LiveGame]] = {}
        self._lock = threading.Lock()
        self._swept = clock()

    def spend(self, client: str, kind: Kind) -> None:
        """Spend one of ``client``'s ``kind`` tokens; :class:`TooMany` when none is left."""
        self._use(client, kind, TokenBucket.take, refuse=True)

    def check(self, client: str, kind: Kind) -> None:
        """:class:`TooMany` when ``client`` has no ``kind`` token left; nothing is spent."""
        self._use(client, kind, TokenBucket.wait, refuse=True)

    def charge(self, client: str, kind: Kind) -> None:
        """Spend one of ``client``'s ``kind`` tokens if one is left (what already happened is counted, never
        refused: the next :meth:`check` tells)."""
        self._use(client, kind, TokenBucket.take, refuse=False)

    def _use(self, client: str, kind: Kind, use: Callable[[TokenBucket, float], float], *, refuse: bool) -> None:
        rate = self.limits.rate(kind)
        if not self.limits.enabled or rate is None:
            return
        now = self._clock()
        with self._lock:
            self._sweep(now)
            wait = use(self._bucket(client, kind, rate, now), now)
        if wait and refuse:
            raise TooMany(f"too many {kind.value}s from {client}: at most {rate.burst} at once and "
                          f"{rate.per_minute:g} a minute; try again in {math.ceil(wait)} s", wait)

    def _bucket(self, client: str, kind: Kind, rate: Rate, now: float) -> TokenBucket:
        """``client``'s ``kind`` bucket, the client moved to the end of the line (seen most recently)."""
        buckets = self._buckets.pop(client, None)
        if buckets is None:
            buckets = {}
            while len(self._buckets) >= self.limits.max_clients:
                del self._buckets[next(iter(self._buckets))]
        self._buckets[client] = buckets
        if kind not in buckets:
            buckets[kind] = TokenBucket(rate.burst, rate.per_minute / 60.0, now)
        return buckets[kind]

    def open_stream(self, client: str) -> None:
        """Count a stream ``client`` opens; :class:`TooMany` past :attr:`ClientLimits.streams_open`."""
        if not self.limits.enabled:
            return
        with self._lock:
            if self._streams.get(client, 0) >= self.limits.streams_open:
                raise TooMany(f"too many live streams open from {client}: at most {self.limits.streams_open} at "
                              "once; close a page that follows one", 5.0)
            self._streams[client] = self._streams.get(client, 0) + 1

    def close_stream(self, client: str) -> None:
        if not self.limits.enabled:
            return
        with self._lock:
            left = self._streams.get(client, 0) - 1
            if left > 0:
                self._streams[client] = left
            else:
                self._streams.pop(client, None)

    def check_games(self, client: str, remote: bool = False) -> None:
        """:class:`TooMany` when ``client`` already runs :attr:`ClientLimits.games` games not over or, for a game
        with a connected bot at the table (``remote``), :attr:`ClientLimits.remote_games` such games."""
        if not self.limits.enabled:
            return
        with self._lock:
            running = [game for game in self._games.get(client, []) if not game.over()]
            self._games[client] = running
            if len(running) >= self.limits.games:
                raise TooMany(f"{client} already plays {counted(len(running), 'game')}: at most {self.limits.games} at "
                              "once; finish one first", 30.0)
            with_bots = sum(1 for game in running if game.remote)
            if remote and with_bots >= self.limits.remote_games:
                raise TooMany(f"{client} already plays {counted(with_bots, 'game')} against connected bots: at most "
                              f"{self.limits.remote_games} at once (each holds one of a bot's match slots); finish "
                              "one first", 30.0)

    def games(self, client: str, over: Callable[[], bool], remote: bool = False) -> None:
        """Count a game ``client`` started (``remote``: with a connected bot at the table); ``over()`` says when it
        ended."""
        if not self.limits.enabled:
            return
        with self._lock:
            self._games.setdefault(client, []).append(LiveGame(remote, over))

    def _sweep(self, now: float) -> None:
        if now - self._swept < self.FORGET_AFTER_S:
            return
        self._swept = now
        for client in [c for c, buckets in self._buckets.items() if all(b.full(now) for b in buckets.values())]:
            del self._buckets[client]
        for client in [c for c, games in self._games.items() if all(game.over() for game in games)]:
            del self._games[client]


def client_ledger(request: Request) -> ClientLedger:
    """The app's :class:`ClientLedger` (``app.state.ledger``, set by :func:`arena.web.app.create_app`), made with
    the default limits on first use when the app set none."""
    state = request.app.state
    ledger: ClientLedger | None = getattr(state, "ledger", None)
    if ledger is None:
        ledger = state.ledger = ClientLedger(ClientLimits())
    return ledger


IPV4_PREFIX = 24
IPV6_PREFIX = 64


def prefix_of(address: str) -> str:
    """The network prefix the limits count for ``address``: its IPv4 /24 or its IPv6 /64 (an IPv4-mapped IPv6
    address as IPv4); anything that is no IP address (a Unix socket's peer) as it is."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        parsed = parsed.ipv4_mapped
    bits = IPV4_PREFIX if parsed.version == 4 else IPV6_PREFIX
    return str(ipaddress.ip_network(f"{parsed}/{bits}", strict=False))


def address_of(scope: Scope) -> str:
    """A request's IP address as the server sees it: the connection's peer, or the address a trusted proxy names
    (``uno-arena web --trusted-proxies``; none is trusted by default)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def client_of(scope: Scope) -> str:
    """A request's client for the limits: the network prefix of its address (:func:`prefix_of`)."""
    return prefix_of(address_of(scope))


def private_client(client: str) -> bool:
    """A client on loopback or a private network (a Prometheus beside the web front), not the public."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    return address.is_loopback or address.is_private


def _headers(scope: Scope) -> dict[str, str]:
    return {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}


Refusal = tuple[int, bytes, list[tuple[bytes, bytes]]]
"""An answer the guard gives itself: status, JSON body, headers."""


def _refusal(status: int, error: str, detail: str, retry_after_s: float | None = None) -> Refusal:
    body = json.dumps({"error": error, "detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after_s is not None:
        headers.append((b"retry-after", str(max(1, math.ceil(retry_after_s))).encode()))
    return status, body, headers


class Guard:
    """The ASGI middleware: refuses what :func:`foreign_origin`, :func:`json_body_refused` and the
    :class:`ClientLedger` refuse, counts the live streams a client holds open, and adds :data:`SECURITY_HEADERS`
    to every answer."""

    def __init__(self, app: ASGIApp, ledger: ClientLedger) -> None:
        self.app = app
        self.ledger = ledger

    def _check(self, scope: Scope) -> Refusal | None:
        method, path, headers = scope["method"], scope["path"], _headers(scope)
        if method in STATE_CHANGING:
            foreign = foreign_origin(headers)
            if foreign is not None:
                return _refusal(403, "CrossSiteRequest", f"refused: a {method} from another site ({foreign}); "
                                "use this site's own pages or call the API without a browser")
        if json_body_refused(method, path, headers):
            return _refusal(415, "NotJson", f"{method} {path} takes a JSON body: send Content-Type: "
                            "application/json")
        try:
            self.ledger.spend(client_of(scope), classify(method, path))
        except TooMany as error:
            return _refusal(429, "TooManyRequests", str(error), error.retry_after_s)
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *((n, v) for n, v in SECURITY_HEADERS if n not in names)]
            await send(message)

        refused = self._check(scope)
        if refused is None and classify(scope["method"], scope["path"]) is Kind.STREAM:
            client = client_of(scope)
            try:
                self.ledger.open_stream(client)
            except TooMany as error:
                refused = _refusal(429, "TooManyRequests", str(error), error.retry_after_s)
            else:
                try:
                    await self.app(scope, receive, send_guarded)
                finally:
                    self.ledger.close_stream(client)
                return
        if refused is not None:
            status, body, headers = refused
            await send_guarded({"type": "http.response.start", "status": status, "headers": headers})
            await send_guarded({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send_guarded)
