"""The web front's reads of the organizer API (:class:`arena.client.ArenaClient`, its typed methods only, no token:
what the API shows everyone), with caches: what an ended tournament's standings, matches and replays are never
changes, so it is kept (LRU caches bounded by count or bytes); what is read by many viewers (leaderboards, bots,
competitions, gauntlets) is refreshed in the background. The admin client, when given, only counts a bot's
incidents by kind and reads the bots' :class:`arena.web.views.PublicBot` fields.
"""

from __future__ import annotations

import copy
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

import grpc

from arena.client import ArenaClient
from arena.protocol import arena_pb2
from arena.protocol.statuses import TOURNAMENT_STATE_OF
from arena.tournament.status import TournamentStatus
from arena.web import views
from arena.web.gauntlet_views import GauntletPage, GauntletRow, gauntlet_page, gauntlet_row
from arena.web.replay_frames import PAGE_FRAMES, FramePage, Frames, frame_page, replay_index, sized
from arena.web.views import (
    CompetitionBoard,
    CompetitionRow,
    HostedRow,
    IncidentRow,
    MatchRow,
    PoolBoard,
    PublicBot,
    SubmissionRow,
)

T = TypeVar("T")


class _Lru:
    """A thread-safe LRU cache: ``size_of(value)`` of each kept value (1 by default: a count) adds up to at most
    ``budget`` (the least recently used go first; a value bigger than the whole budget is answered, not kept)."""

    def __init__(self, budget: int, size_of: Callable[[Any], int] = lambda value: 1) -> None:
        self._budget = budget
        self._size_of = size_of
        self._items: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        return self._total

    def get(self, key: Any, make: Callable[[], T]) -> T:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                kept: T = self._items[key][0]
                return kept
        value = make()
        self.put(key, value)
        return value

    def take(self, key: Any) -> Any:
        """The value kept under ``key``, no longer kept (None when there is none): one user at a time."""
        with self._lock:
            found = self._items.pop(key, None)
            if found is None:
                return None
            self._total -= found[1]
            return found[0]

    def put(self, key: Any, value: Any) -> None:
        size = self._size_of(value)
        if size > self._budget:
            return
        with self._lock:
            if key in self._items:
                self._total -= self._items.pop(key)[1]
            self._items[key] = (value, size)
            self._total += size
            while self._total > self._budget:
                self._total -= self._items.popitem(last=False)[1][1]


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
"""After this long the leaderboards and the bot list are read again, in the background."""
MAX_AGE_S = 30.0
"""A leaderboard or bot list older than this is never shown: the request reads it afresh."""
REPLAY_CACHE_BYTES = 48 * 2**20
"""The organizer's replay records kept (by their protobuf size), for the viewer's pages."""
FRAME_CACHE_BYTES = 64 * 2**20
"""The viewer's built frames kept (by their size as JSON)."""
WALK_CACHE_BYTES = 32 * 2**20
"""The walks part-way through a match kept to build a view's next page from, :data:`WALK_EVENT_BYTES` per event."""
WALK_EVENT_BYTES = 400
MATCHES_PAGE = 1000
GAUNTLETS_LISTED = 100
"""The gauntlets the list and the status page read (ListGauntlets, newest first)."""
OUTPUT_TAIL_LINES = 200
"""The lines of a hosted process's output the bot page shows its author (`uno-arena bot output`: all 64 KiB)."""


class ArenaReader:
    """Reads of the organizer API for the pages (``client`` public, ``admin_client`` optional)."""

    def __init__(self, client: ArenaClient, admin_client: ArenaClient | None = None) -> None:
        self.client = client
        self.admin_client = admin_client
        self._bots_client = admin_client or client
        self._standings = _Lru(4096)
        self._matches = _Lru(256)
        self._replays = _Lru(REPLAY_CACHE_BYTES, lambda replay: replay.ByteSize())
        self._indexes = _Lru(REPLAY_CACHE_BYTES, lambda frames: frames.omniscient.ByteSize() + (
            frames.view.ByteSize() if frames.view is not None else 0))
        self._pages = _Lru(FRAME_CACHE_BYTES, lambda page: sum(page.sizes))
        self._walks = _Lru(WALK_CACHE_BYTES, lambda walker: WALK_EVENT_BYTES * len(walker.match.events))
        self._fresh = _Fresh(FRESH_S, MAX_AGE_S)

    # -- tournaments ---------------------------------------------------------------------------------------

    def tournaments_page(self, states: list[TournamentStatus], page_size: int,
                         page_token: str) -> arena_pb2.ListTournamentsResponse:
        return self.client.tournaments_page([TOURNAMENT_STATE_OF[status] for status in states], page_size=page_size,
                                            page_token=page_token)

    def _kept(self, cache: _Lru, tournament: arena_pb2.Tournament, extra: str, read: Callable[[], T]) -> T:
        """``read()``, kept once the tournament ended (by its id, state and matches recorded)."""
        if views.ended(tournament):
            key = (tournament.tournament_id, tournament.state, tournament.matches_done, extra)
            return cache.get(key, read)
        return read()

    def standings(self, tournament: arena_pb2.Tournament) -> arena_pb2.GetStandingsResponse:
        return self._kept(self._standings, tournament, "",
                          lambda: self.client.get_standings(tournament.tournament_id))

    def matches(self, tournament: arena_pb2.Tournament, bot: str = "") -> list[MatchRow]:
        """The recorded matches of a tournament (every page), optionally only one bot's, by match id."""

        def read() -> list[MatchRow]:
            summaries = self.client.list_matches(tournament.tournament_id, bot=bot, page_size=MATCHES_PAGE)
            return [views.match_row(summary) for summary in summaries]

        return self._kept(self._matches, tournament, bot, read)

    # -- rating pools and leaderboards -----------------------------------------------------------------------

    def pools(self) -> list[arena_pb2.RatingPool]:
        return self._fresh.get("pools", self.client.list_rating_pools)

    def pool_label(self, tournament: arena_pb2.Tournament) -> str:
        """The label the API gives a tournament's rating pool; while the pool is not listed yet (nothing rated in
        it), the same words from the tournament's rules (:func:`arena.web.views.rules_label`)."""
        listed = next((pool.label for pool in self.pools() if pool.pool_id == tournament.rating_pool), "")
        return listed or views.rules_label(tournament)

    def leaderboards(self) -> list[PoolBoard]:
        """Every pool's leaderboard with somebody in it, the pool with the most matches first (shared: do not change
        them)."""
        return self._fresh.get("leaderboards", self._read_leaderboards)

    def _read_leaderboards(self) -> list[PoolBoard]:
        bots = {bot.name: bot for bot in self.bots()}
        boards = []
        for pool in self.client.list_rating_pools():
            try:
                board = views.pool_board(self.client.get_leaderboard(pool.pool_id), bots)
            except grpc.RpcError as error:
                if not isinstance(error, grpc.Call) or error.code() != grpc.StatusCode.NOT_FOUND:
                    raise  # a pool gone between the two reads is left out; anything else is the page's error
                continue
            if board.rows:  # a competition's pool before its first match has nobody to rank yet
                boards.append(board)
        return sorted(boards, key=lambda board: (-board.matches, board.label))

    # -- competitions --------------------------------------------------------------------------------------

    def competitions(self) -> list[CompetitionRow]:
        return self._fresh.get("competitions", lambda: [views.competition_row(c)
                                                        for c in self.client.list_competitions()])

    def competition(self, competition_id: str) -> CompetitionBoard:
        return views.competition_board(self.client.get_competition_standings(competition_id))

    # -- gauntlets -----------------------------------------------------------------------------------------

    def gauntlets(self) -> list[GauntletRow]:
        """The newest :data:`GAUNTLETS_LISTED` gauntlets, newest first."""
        return self._fresh.get("gauntlets", lambda: [gauntlet_row(g)
                                                     for g in self.client.list_gauntlets(GAUNTLETS_LISTED)])

    def gauntlet(self, gauntlet_id: str) -> GauntletPage:
        return gauntlet_page(self.client.get_gauntlet(gauntlet_id))

    # -- bots ----------------------------------------------------------------------------------------------

    def bots(self) -> list[PublicBot]:
        return self._fresh.get("bots", self._read_bots)

    def _read_bots(self) -> list[PublicBot]:
        return [views.from_message(PublicBot, bot) for bot in self._bots_client.list_bots(page_size=1000)]

    def bot(self, name: str) -> PublicBot:
        return views.from_message(PublicBot, self._bots_client.get_bot(name))

    def bot_versions(self, name: str) -> list[arena_pb2.BotVersion]:
        """The versions a registered bot's Hellos named (empty without the admin client, who alone may see them)."""
        if self.admin_client is None:
            return []
        return list(self.admin_client.get_bot(name).versions)

    def incident_counts(self, name: str) -> dict[str, int] | None:
        """The bot's incidents (its newest 1000) counted by kind; None without the admin client."""
        if self.admin_client is None:
            return None
        try:
            response = self.admin_client.get_bot_log(name, limit=1000)
        except grpc.RpcError:  # the log cannot be read (e.g. an older arena): the page says so, it does not fail
            return None
        return dict(Counter(incident.kind for incident in response.incidents))

    def _as_author(self, token: str) -> ArenaClient:
        """The public client's channel, with the token the bot's author gave (the API refuses any other bot's)."""
        author = copy.copy(self.client)
        author.metadata = [("authorization", f"Bearer {token}")]
        return author

    def incidents(self, name: str, token: str) -> list[IncidentRow]:
        log = self._as_author(token).get_bot_log(name, limit=200)
        return [views.from_message(IncidentRow, incident) for incident in log.incidents]

    def submit(self, name: str, token: str, archive: bytes) -> SubmissionRow:
        return views.submission_row(self._as_author(token).submit_bot(name, archive))

    def submissions(self, name: str, token: str) -> tuple[list[SubmissionRow], HostedRow | None, str]:
        """The bot's versions with their verdicts, its hosted process and its last :data:`OUTPUT_TAIL_LINES` lines."""
        author = self._as_author(token)
        listed = author.list_submissions(name)
        output = author.get_bot_output(name).decode("utf-8", "replace")
        return ([views.submission_row(s) for s in listed.submissions], views.hosted_row(listed.hosted),
                "\n".join(output.splitlines()[-OUTPUT_TAIL_LINES:]))

    # -- replays -------------------------------------------------------------------------------------------

    def replay(self, match_id: str) -> arena_pb2.Replay:
        """The omniscient ``Replay`` of a match (open to everyone once its tournament ended)."""
        return self._replays.get(match_id, lambda: self.client.get_replay(match_id))

    def frames(self, match_id: str, seat: int | None) -> Frames:
        """The replay viewer's index of a match (no frame built), omniscient (seat None) or as one seat saw it."""

        def read() -> Frames:
            omniscient = self.replay(match_id)
            view = None
            if seat is not None:
                if not 0 <= seat < len(omniscient.seats):
                    raise ValueError(f"seat {seat} is not a seat of match {match_id} "
                                     f"(0 to {len(omniscient.seats) - 1})")
                view = self.client.get_replay(match_id, seat)
            return replay_index(omniscient, view)

        return self._indexes.get((match_id, seat), read)

    def frame_page(self, frames: Frames, page: int) -> FramePage:
        """Page ``page`` of a match's frames, built on from the walk that built the view's last page when it stands
        before this one (a viewer stepping forward, a client paging on)."""
        view = (frames.match_id, frames.viewer)

        def build() -> FramePage:
            built, walker = frame_page(frames, page, self._walks.take(view))
            if not walker.done:
                self._walks.put(view, walker)
            return sized(page * PAGE_FRAMES, built)

        return self._pages.get((*view, page), build)

    def frame(self, frames: Frames, step: int) -> dict[str, Any]:
        frames.check_step(step)
        return self.frame_page(frames, step // PAGE_FRAMES).frame(step)
