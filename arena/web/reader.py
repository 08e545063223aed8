"""The web front's reads of the organizer API (:class:`arena.client.ArenaClient`, its typed methods only), with
caches for what cannot change.

Everything a page shows comes from here, through the public client (no token: what the API shows everyone). The
leaderboards are the API's (``ListRatingPools`` and ``GetLeaderboard``: ranks, tiers, ratings and intervals computed
once, by the arena); a tournament is ``GetTournament``, its matches ``ListMatches``. The standings, matches and
replays of an ended tournament never change, so they are kept (bounded LRU caches); those of a running tournament
are read afresh. Competitions are ``ListCompetitions`` and ``GetCompetitionStandings``; gauntlets ``ListGauntlets``
and ``GetGauntlet``. The admin client, when
given, is used only to count a bot's incidents by kind
(:meth:`ArenaReader.incident_counts`) and to read the bots' :data:`PUBLIC_BOT_FIELDS`.
"""

from __future__ import annotations

import copy
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import fields
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


class _ByteLru:
    """A thread-safe LRU cache bounded by bytes: ``size_of(value)`` of each kept value adds up to at most
    ``budget`` (the least recently used go first; a value bigger than the whole budget is answered, not kept)."""

    def __init__(self, budget: int, size_of: Callable[[Any], int]) -> None:
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


PUBLIC_BOT_FIELDS = tuple(f.name for f in fields(PublicBot))
"""What the pages show of a registered bot (:class:`arena.web.views.PublicBot`). The API shows an anonymous caller
only the id, name, creation time and deletion; with the admin client the web front also reads the description,
whether it is connected and its version (the leaderboard's and the bot page's columns), and nothing else (never
whether it is revoked)."""


FRESH_S = 1.0
"""After this long the leaderboards and the bot list are read again, in the background."""
MAX_AGE_S = 30.0
"""A leaderboard or bot list older than this is never shown: the request reads it afresh."""
REPLAY_CACHE_BYTES = 48 * 2**20
"""The organizer's replay records the web front keeps (by their protobuf size), for the viewer's pages."""
FRAME_CACHE_BYTES = 64 * 2**20
"""The viewer's built frames the web front keeps (by their size as JSON): pages of :data:`PAGE_FRAMES` frames."""
WALK_CACHE_BYTES = 32 * 2**20
"""The walks part-way through a match the web front keeps to build a view's next page from (one per view), by an
estimate of their size: :data:`WALK_EVENT_BYTES` per event of the rebuilt match."""
WALK_EVENT_BYTES = 400
MATCHES_PAGE = 1000
"""Matches asked for per ``ListMatches`` page."""
GAUNTLETS_LISTED = 100
"""The gauntlets the list and the status page read (ListGauntlets, newest first)."""
OUTPUT_TAIL_LINES = 200
"""The lines of a hosted process's output the bot page shows its author (`uno-arena bot output`: all 64 KiB)."""


class ArenaReader:
    """Reads of the organizer API for the pages (``client`` public, ``admin_client`` optional)."""

    def __init__(self, client: ArenaClient, admin_client: ArenaClient | None = None, fresh_s: float = FRESH_S,
                 max_age_s: float = MAX_AGE_S) -> None:
        self.client = client
        self.admin_client = admin_client
        self._standings = _Lru(4096)
        self._matches = _Lru(256)
        self._replays = _ByteLru(REPLAY_CACHE_BYTES, lambda replay: replay.ByteSize())
        self._indexes = _ByteLru(REPLAY_CACHE_BYTES, lambda frames: frames.omniscient.ByteSize() + (
            frames.view.ByteSize() if frames.view is not None else 0))
        self._pages = _ByteLru(FRAME_CACHE_BYTES, lambda page: page.bytes)
        self._walks = _ByteLru(WALK_CACHE_BYTES, lambda walker: WALK_EVENT_BYTES * len(walker.match.events))
        self._fresh = _Fresh(fresh_s, max_age_s)

    # -- tournaments ---------------------------------------------------------------------------------------

    def tournaments_page(self, states: list[TournamentStatus], page_size: int,
                         page_token: str) -> arena_pb2.ListTournamentsResponse:
        return self.client.tournaments_page([TOURNAMENT_STATE_OF[status] for status in states], page_size=page_size,
                                            page_token=page_token)

    def all_tournaments(self) -> Iterator[arena_pb2.Tournament]:
        return self.client.list_tournaments(page_size=1000)

    def tournament(self, tournament_id: str) -> arena_pb2.Tournament:
        """One tournament as it is now (GetTournament)."""
        return self.client.get_tournament(tournament_id)

    def _kept(self, cache: _Lru, tournament: arena_pb2.Tournament, extra: str, read: Callable[[], T]) -> T:
        """``read()``, kept once the tournament ended (by its id, state and matches recorded)."""
        if views.ended(tournament):
            key = (tournament.tournament_id, tournament.state, tournament.matches_done, extra)
            return cache.get(key, read)
        return read()

    def standings(self, tournament: arena_pb2.Tournament) -> arena_pb2.GetStandingsResponse:
        """GetStandings of a tournament (kept once it ended)."""
        return self._kept(self._standings, tournament, "",
                          lambda: self.client.get_standings(tournament.tournament_id))

    def export(self, tournament_id: str, fmt: str) -> tuple[str, str, bytes]:
        """ExportResults (the download links): content type, file name, data."""
        number = arena_pb2.EXPORT_FORMAT_JSON if fmt == "json" else arena_pb2.EXPORT_FORMAT_CSV
        response = self.client.export_results(tournament_id, number)
        return response.content_type, response.filename, bytes(response.data)

    def matches(self, tournament: arena_pb2.Tournament, bot: str = "") -> list[MatchRow]:
        """The recorded matches of a tournament (ListMatches, every page), optionally only one bot's, by match id
        (kept once it ended)."""

        def read() -> list[MatchRow]:
            summaries = self.client.list_matches(tournament.tournament_id, bot=bot, page_size=MATCHES_PAGE)
            return [views.match_row(summary) for summary in summaries]

        return self._kept(self._matches, tournament, bot, read)

    # -- rating pools and leaderboards -----------------------------------------------------------------------

    def pools(self) -> list[arena_pb2.RatingPool]:
        """The rating pools (ListRatingPools), read again in the background once :data:`FRESH_S` old."""
        return self._fresh.get("pools", self.client.list_rating_pools)

    def pool_label(self, tournament: arena_pb2.Tournament) -> str:
        """The label the API gives a tournament's rating pool; while the pool is not listed yet (nothing rated in
        it), the same words from the tournament's rules (:func:`arena.web.views.rules_label`)."""
        listed = next((pool.label for pool in self.pools() if pool.pool_id == tournament.rating_pool), "")
        return listed or views.rules_label(tournament)

    def leaderboards(self) -> list[PoolBoard]:
        """Every pool's leaderboard with somebody in it (GetLeaderboard of each pool ListRatingPools names), the pool
        with the most matches first, read again in the background once :data:`FRESH_S` old (shared: do not change
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
        """The competitions (ListCompetitions), oldest first, read again in the background once :data:`FRESH_S`
        old."""
        return self._fresh.get("competitions", lambda: [views.competition_row(c)
                                                        for c in self.client.list_competitions()])

    def competition(self, competition_id: str) -> CompetitionBoard:
        """A competition (GetCompetitionStandings): the competition, its ladder's current entries ranked, its
        retired versions newest first (NOT_FOUND for an unknown one)."""
        return views.competition_board(self.client.get_competition_standings(competition_id))

    # -- gauntlets -----------------------------------------------------------------------------------------

    def gauntlets(self, limit: int = GAUNTLETS_LISTED) -> list[GauntletRow]:
        """The newest ``limit`` gauntlets (ListGauntlets), newest first, read again in the background once
        :data:`FRESH_S` old."""
        return self._fresh.get(("gauntlets", limit), lambda: [gauntlet_row(g)
                                                             for g in self.client.list_gauntlets(limit)])

    def gauntlet(self, gauntlet_id: str) -> GauntletPage:
        """One gauntlet and every block it played (GetGauntlet; NOT_FOUND for an unknown id)."""
        return gauntlet_page(self.client.get_gauntlet(gauntlet_id))

    # -- bots ----------------------------------------------------------------------------------------------

    def _bot_reader(self) -> ArenaClient:
        return self.admin_client if self.admin_client is not None else self.client

    def bots(self) -> list[PublicBot]:
        """The registered bots, with :data:`PUBLIC_BOT_FIELDS` only, read again in the background once
        :data:`FRESH_S` old."""
        return self._fresh.get("bots", self._read_bots)

    def _read_bots(self) -> list[PublicBot]:
        return [views.public_bot(bot) for bot in self._bot_reader().list_bots(page_size=1000)]

    def bot(self, name: str) -> PublicBot:
        """One registered bot, with :data:`PUBLIC_BOT_FIELDS` only (NOT_FOUND for an unknown name)."""
        return views.public_bot(self._bot_reader().get_bot(name))

    def bot_versions(self, name: str) -> list[arena_pb2.BotVersion]:
        """The versions a registered bot's Hellos named, first seen first, with when (GetBot as the admin sees it;
        empty without the admin client: the API shows versions only to whoever may see bot_version)."""
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
        """The bot's incident log read with the token its author gave (GetBotLog)."""
        log = self._as_author(token).get_bot_log(name, limit=200)
        return [views.incident_row(incident) for incident in log.incidents]

    def submit(self, name: str, token: str, archive: bytes) -> SubmissionRow:
        """Submit ``archive`` as the bot's next version with its author's token (SubmitBot): the stored version."""
        return views.submission_row(self._as_author(token).submit_bot(name, archive))

    def submissions(self, name: str, token: str) -> tuple[list[SubmissionRow], HostedRow | None, str]:
        """With its author's token: the bot's versions with their verdicts (ListSubmissions), its hosted process,
        and the last :data:`OUTPUT_TAIL_LINES` lines its hosted process wrote (GetBotOutput)."""
        author = self._as_author(token)
        listed = author.list_submissions(name)
        output = author.get_bot_output(name).decode("utf-8", "replace")
        return ([views.submission_row(s) for s in listed.submissions], views.hosted_row(listed.hosted),
                "\n".join(output.splitlines()[-OUTPUT_TAIL_LINES:]))

    # -- replays -------------------------------------------------------------------------------------------

    def replay(self, match_id: str) -> arena_pb2.Replay:
        """The omniscient ``Replay`` of a match (open to everyone once its tournament ended; kept then, within
        :data:`REPLAY_CACHE_BYTES`)."""
        return self._replays.get(match_id, lambda: self.client.get_replay(match_id))

    def frames(self, match_id: str, seat: int | None) -> Frames:
        """The replay viewer's index of a match (its header and how many frames, no frame built), omniscient (seat
        None) or as one seat saw it; the records it is built from are kept (:data:`REPLAY_CACHE_BYTES`)."""

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
        """Page ``page`` of a match's frames (:func:`arena.web.replay_frames.frame_page`), kept
        (:data:`FRAME_CACHE_BYTES`); built on from the walk that built the view's last page when it stands before
        this one (a viewer stepping forward, a client paging on), kept too (:data:`WALK_CACHE_BYTES`)."""
        view = (frames.match_id, frames.viewer)

        def build() -> FramePage:
            built, walker = frame_page(frames, page, self._walks.take(view))
            if not walker.done:
                self._walks.put(view, walker)
            return sized(page * PAGE_FRAMES, built)

        return self._pages.get((*view, page), build)

    def frame(self, frames: Frames, step: int) -> dict[str, Any]:
        """Frame ``step`` (ValueError naming the range for one that is no step of the match)."""
        frames.check_step(step)
        return self.frame_page(frames, step // PAGE_FRAMES).frame(step)
