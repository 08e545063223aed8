"""The web front's reads of the organizer API (:class:`arena.client.Client`), with caches for what cannot change.

Everything a page shows comes from here, through the public client (no token: what the API shows everyone). The
standings, results and replays of an ended tournament never change, so they are kept (bounded LRU caches); those
of a running tournament are read afresh. The admin client, when given, is used only to count a bot's incidents
by kind (:meth:`ArenaReader.incident_counts`) and to read the bots' :data:`PUBLIC_BOT_FIELDS`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import grpc

from arena.client import plain
from arena.protocol import arena_pb2
from arena.web import views
from arena.web.replay_frames import Frames, replay_frames

ENDED_STATES = frozenset({"finished", "cancelled", "failed"})
STATE_FILTERS = ("running", "pending", "finished", "cancelled", "failed")
_STATE_NUMBERS = {name: arena_pb2.TournamentState.Value(f"TOURNAMENT_STATE_{name.upper()}") for name in STATE_FILTERS}
T = TypeVar("T")


class _Lru:
    """A small thread-safe LRU cache."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any, make: Callable[[], T]) -> T:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value


def state_numbers(names: list[str]) -> list[Any]:
    """Tournament state numbers of state names; ValueError naming an unknown one."""
    unknown = [name for name in names if name not in _STATE_NUMBERS]
    if unknown:
        raise ValueError(f"unknown tournament status {', '.join(unknown)!s}: use {', '.join(STATE_FILTERS)}")
    return [_STATE_NUMBERS[name] for name in names]


PUBLIC_BOT_FIELDS = ("bot_id", "name", "description", "created_at", "connected", "bot_version", "deleted")
"""What the pages show of a registered bot. The API shows an anonymous caller only the id, name, creation time and
deletion; with the admin client the web front also reads the description, whether it is connected and its
version (the leaderboard's and the bot page's columns), and nothing else (never whether it is revoked)."""


def public_bot(message: Any) -> dict[str, Any]:
    data = plain(message)
    return {name: data[name] for name in PUBLIC_BOT_FIELDS}


def tournament_data(message: Any) -> dict[str, Any]:
    """A ``Tournament`` message as plain data, with its rating pool (``pool``: key and label)."""
    data = plain(message)
    key, label = views.pool_of(message.spec.rules, message.rating_pool)
    data["pool"] = {"key": key, "label": label}
    return data


class _Fresh:
    """Values refreshed in the background (the leaderboard and the bot list: many viewers, reading them costs the
    organizer most of a second with a thousand bots). A value older than ``ttl_s`` is still answered while one
    background read replaces it; one older than ``max_age_s`` (nobody asked for a while) is read again first."""

    def __init__(self, ttl_s: float, max_age_s: float) -> None:
        self._ttl_s = ttl_s
        self._max_age_s = max_age_s
        self._items: dict[Any, tuple[float, Any]] = {}
        self._refreshing: set[Any] = set()
        self._lock = threading.Lock()

    def get(self, key: Any, make: Callable[[], T]) -> T:
        now = time.monotonic()
        with self._lock:
            kept = self._items.get(key)
            if kept is not None and now - kept[0] < self._max_age_s:
                if now - kept[0] >= self._ttl_s and key not in self._refreshing:
                    self._refreshing.add(key)
                    threading.Thread(target=self._refresh, args=(key, make), name="web-refresh", daemon=True).start()
                return kept[1]
        value = make()
        with self._lock:
            self._items[key] = (now, value)
        return value

    def _refresh(self, key: Any, make: Callable[[], Any]) -> None:
        try:
            started = time.monotonic()
            value = make()
            with self._lock:
                self._items[key] = (started, value)
        except Exception:  # the API is away: the kept value stays, the next request tries again
            pass
        finally:
            with self._lock:
                self._refreshing.discard(key)


FRESH_S = 1.0
"""After this long the leaderboard and the bot list are read again, in the background."""
MAX_AGE_S = 30.0
"""A leaderboard or bot list older than this is never shown: the request reads it afresh."""


class ArenaReader:
    """Reads of the organizer API for the pages (``client`` public, ``admin_client`` optional)."""

    def __init__(self, client: Any, admin_client: Any = None, fresh_s: float = FRESH_S,
                 max_age_s: float = MAX_AGE_S) -> None:
        self.client = client
        self.admin_client = admin_client
        self._standings = _Lru(4096)
        self._results = _Lru(256)
        self._frames = _Lru(64)
        self._replays = _Lru(512)
        self._fresh = _Fresh(fresh_s, max_age_s)

    # -- tournaments ---------------------------------------------------------------------------------------

    def tournaments_page(self, states: list[str], page_size: int, page_token: str) -> dict[str, Any]:
        request = arena_pb2.ListTournamentsRequest(states=state_numbers(states), page_size=page_size,
                                                   page_token=page_token)
        response = self.client.call("ListTournaments", request)
        return {"tournaments": [tournament_data(t) for t in response.tournaments],
                "next_page_token": response.next_page_token}

    def all_tournaments(self) -> Iterator[dict[str, Any]]:
        token = ""
        while True:
            page = self.tournaments_page([], 1000, token)
            yield from page["tournaments"]
            token = page["next_page_token"]
            if not token:
                return

    def tournament(self, tournament_id: str) -> dict[str, Any]:
        """One tournament as it is now (the first message of WatchTournament)."""
        stream = self.client.call("WatchTournament", arena_pb2.WatchTournamentRequest(tournament_id=tournament_id),
                                  timeout=30)
        try:
            first = next(iter(stream))
        finally:
            stream.cancel()
        return tournament_data(first.tournament)

    def standings(self, tournament: dict[str, Any]) -> dict[str, Any]:
        """GetStandings of a tournament (kept once it ended)."""
        tid = tournament["tournament_id"]

        def read() -> dict[str, Any]:
            return plain(self.client.call("GetStandings", arena_pb2.GetStandingsRequest(tournament_id=tid)))

        if tournament["state"] in ENDED_STATES:
            return self._standings.get((tid, tournament["state"], tournament["matches_done"]), read)
        return read()

    def export(self, tournament_id: str, fmt: str) -> tuple[str, str, bytes]:
        """ExportResults: content type, file name, data."""
        number = arena_pb2.EXPORT_FORMAT_JSON if fmt == "json" else arena_pb2.EXPORT_FORMAT_CSV
        response = self.client.call("ExportResults", arena_pb2.ExportResultsRequest(tournament_id=tournament_id,
                                                                                    format=number))
        return response.content_type, response.filename, bytes(response.data)

    def matches(self, tournament: dict[str, Any]) -> list[dict[str, Any]]:
        """The recorded matches of a tournament (the JSON export's), by match id (kept once it ended)."""
        tid = tournament["tournament_id"]

        def read() -> list[dict[str, Any]]:
            document = json.loads(self.export(tid, "json")[2])
            return sorted(document.get("matches", []), key=lambda m: m["match_id"])

        if tournament["state"] in ENDED_STATES:
            return self._results.get((tid, tournament["state"], tournament["matches_done"]), read)
        return read()

    # -- leaderboard ---------------------------------------------------------------------------------------

    def leaderboards(self) -> list[dict[str, Any]]:
        """Every pool's leaderboard (:func:`arena.web.views.leaderboards`), read again in the background once
        :data:`FRESH_S` old. Callers must not change what they get (it is shared)."""
        return self._fresh.get("leaderboards", self._read_leaderboards)

    def _read_leaderboards(self) -> list[dict[str, Any]]:
        played = []
        for tournament in self.all_tournaments():
            if not tournament["matches_done"]:
                continue
            pool = tournament["pool"]
            played.append((tournament, self.standings(tournament), pool["key"], pool["label"]))
        bots = self.bots()
        connected = {bot["name"]: bot["connected"] for bot in bots}
        return views.leaderboards(played, connected, {bot["name"]: bot["bot_version"] for bot in bots})

    # -- bots ----------------------------------------------------------------------------------------------

    def _bot_reader(self) -> Any:
        return self.admin_client if self.admin_client is not None else self.client

    def bots(self) -> list[dict[str, Any]]:
        """The registered bots, with :data:`PUBLIC_BOT_FIELDS` only, read again in the background once
        :data:`FRESH_S` old (shared: do not change them)."""
        return self._fresh.get("bots", self._read_bots)

    def _read_bots(self) -> list[dict[str, Any]]:
        bots: list[dict[str, Any]] = []
        token = ""
        while True:
            page = self._bot_reader().call("ListBots", arena_pb2.ListBotsRequest(page_size=1000, page_token=token))
            bots.extend(public_bot(bot) for bot in page.bots)
            token = page.next_page_token
            if not token:
                return bots

    def bot(self, name: str) -> dict[str, Any]:
        """One registered bot, with :data:`PUBLIC_BOT_FIELDS` only (NOT_FOUND for an unknown name)."""
        return public_bot(self._bot_reader().call("GetBot", arena_pb2.GetBotRequest(name=name)).bot)

    def incident_counts(self, name: str) -> dict[str, int] | None:
        """The bot's incidents (its newest 1000) counted by kind; None without the admin client."""
        if self.admin_client is None:
            return None
        try:
            response = self.admin_client.bot_log(name, limit=1000)
        except grpc.RpcError:  # the log cannot be read (e.g. an older arena): the page says so, it does not fail
            return None
        return dict(Counter(incident.kind for incident in response.incidents))

    def incidents(self, name: str, token: str) -> list[dict[str, Any]]:
        """The bot's incident log read with the token its author gave (GetBotLog refuses any other bot's)."""
        request = arena_pb2.GetBotLogRequest(name=name, limit=200)
        response = self.client.stub.GetBotLog(request, metadata=[("authorization", f"Bearer {token}")], timeout=30)
        return [plain(incident) for incident in response.incidents]

    # -- replays -------------------------------------------------------------------------------------------

    def replay(self, match_id: str) -> Any:
        """The omniscient ``Replay`` of a match (open to everyone once its tournament ended; kept then)."""

        def read() -> Any:
            return self.client.call("GetReplay", arena_pb2.GetReplayRequest(match_id=match_id)).replay

        return self._replays.get(match_id, read)

    def frames(self, match_id: str, seat: int | None) -> Frames:
        """The replay viewer's frames of a match, omniscient (seat None) or as one seat saw it."""

        def read() -> Frames:
            omniscient = self.replay(match_id)
            view = None
            if seat is not None:
                if not 0 <= seat < len(omniscient.seats):
                    raise ValueError(f"seat {seat} is not a seat of match {match_id} "
                                     f"(0 to {len(omniscient.seats) - 1})")
                view = self.client.call("GetReplay", arena_pb2.GetReplayRequest(match_id=match_id,
                                                                                seat=seat)).replay
            return replay_frames(omniscient, view)

        return self._frames.get((match_id, seat), read)
