"""A person at a seat of a match against bots: the service behind the web page "Play against the bots".

The person is a seat like any other (:class:`HumanSeat`): the same runner, fallback, strikes and forfeit, with a
human deadline per decision. The messages the person is sent (``start``, ``decide``, ``events``, ``answered``,
``end``, ``notice``, ``closed``; docs/web.md) carry the seat's own :class:`arena.engine.Observation` (V1-V6) and
never the match; the web front encodes them (:mod:`arena.web.seat_view`). A connected bot at the table
(:class:`GuestSeat`) plays a casual match: seated now or never, and it leaves the game for a rated match.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine import Action, Match, Observation, Rules
from arena.players import BUILTIN_NAMES, BotFactory
from arena.relay import RelaySeat
from arena.runner import (
    DEFAULT_DECISION_DEADLINE_S,
    DEFAULT_MAX_STRIKES,
    MatchConfig,
    MatchRunner,
    MatchSummary,
    Seat,
    SeatEvicted,
    SeatNotAdmitted,
    SeatRequest,
    SeatStart,
    SeatTimeout,
)
from arena.store import Replay, Store

from .bot_processes import BotProcesses, PooledSeat, pooled_kind
from .replays import stored_record
from .seating import builtin_kind, game_bot_seed, seat_for

HUMAN_DEADLINE_S = 300.0
DEFAULT_MAX_SESSIONS = 64
"""Live sessions at most (with 3 games per network prefix, :class:`arena.web.guard.ClientLimits`: 22 prefixes)."""
DEFAULT_IDLE_S = 300.0
"""A session nobody has read from or answered for this long is dropped (its match cancelled)."""
DEFAULT_RETAIN_S = 900.0
"""How long a finished session stays readable (its last messages, its in-memory replay without a store)."""
MIN_SEATS, MAX_SEATS = 2, 4
MAX_TARGET = 10_000
REMOTE_PREFIX = "remote:"
"""An opponent named ``remote:NAME`` is the connected remote bot NAME (through the relay)."""
GROUP = "human"
"""The match record's group: a game a person played in the browser."""


class PlayError(Exception):
    """A request about a human game that cannot be served; the message names the problem."""


class BadSetup(PlayError, ValueError):
    """The game asked for cannot be set up (variant, seats, opponents, target)."""


class UnknownSession(PlayError, LookupError):
    """No live game has this id (never started, or expired)."""


class WrongToken(PlayError, PermissionError):
    """The token does not belong to this game."""


class BadAnswer(PlayError, ValueError):
    """The answer is not one the waiting decision takes (no decision waiting, another decision, bad index)."""


class TooManyGames(PlayError):
    """As many games are live as the service allows."""


class BotBusy(PlayError):
    """A connected bot picked as an opponent has no slot free for a game against people now."""


# -- the game ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameSetup:
    """What the person asked for; ``opponents`` sit in seats 1, 2, ... (built-in bot names, or ``remote:NAME``)."""

    variant: str = "flip"
    opponents: tuple[str, ...] = ("heuristic",)
    target: int = 500
    uno_penalty: str = "auto"

    @property
    def remote(self) -> bool:
        return any(name.startswith(REMOTE_PREFIX) for name in self.opponents)

    def rules(self) -> Rules:
        try:
            return Rules.from_dict({"variant": self.variant, "target": self.target, "uno_penalty": self.uno_penalty})
        except ValueError as error:
            raise BadSetup(str(error)) from None

    @classmethod
    def from_json(cls, data: Any) -> GameSetup:
        """Read ``{"variant", "opponents", "target", "uno_penalty"}``; BadSetup names what is wrong."""
        if not isinstance(data, dict):
            raise BadSetup(f"expected a JSON object, got {type(data).__name__}")
        unknown = sorted(set(data) - {"variant", "opponents", "target", "uno_penalty"})
        if unknown:
            raise BadSetup(f"unknown field(s): {', '.join(unknown)}")
        opponents = data.get("opponents", ["heuristic"])
        if not isinstance(opponents, list) or not all(isinstance(name, str) for name in opponents):
            raise BadSetup("opponents must be a list of bot names")
        if not MIN_SEATS <= len(opponents) + 1 <= MAX_SEATS:
            raise BadSetup(f"{len(opponents) + 1} seats: a game has {MIN_SEATS} to {MAX_SEATS} seats "
                           f"(1 to {MAX_SEATS - 1} opponents)")
        target = data.get("target", 500)
        if isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= MAX_TARGET:
            raise BadSetup(f"target must be a whole number from 1 to {MAX_TARGET}, got {target!r}")
        variant, penalty = data.get("variant", "flip"), data.get("uno_penalty", "auto")
        if not isinstance(variant, str) or not isinstance(penalty, str):
            raise BadSetup("variant and uno_penalty must be text")
        setup = cls(variant, tuple(opponents), target, penalty)
        setup.rules()
        return setup


@dataclass
class _Waiting:
    number: int
    legal: Sequence[Action]
    answer: asyncio.Future[int]


class HumanSeat(Seat):
    """The person's chair: a request becomes a ``decide`` message and waits for :meth:`HumanSession.answer` up to
    the human deadline (then :class:`SeatTimeout`: the runner plays the fallback and charges a strike)."""

    wants_events = True

    def __init__(self, session: HumanSession, name: str, decision_deadline_s: float) -> None:
        self.session = session
        self.name = name
        self.version = "browser"
        self.decision_deadline_s = decision_deadline_s
        self.match: Match | None = None
        self.told = 0
        """How many of the match's events the seat has been shown (its next observation starts there)."""

    def _mark_told(self) -> None:
        if self.match is not None:
            self.told = len(self.match.events)

    async def start(self, info: SeatStart) -> None:
        self.session.post("start", match_id=info.match_id, seat=info.seat, seats=list(info.seats),
                          rules=info.rules.to_dict(), deadline_s=self.decision_deadline_s)

    async def decide(self, request: SeatRequest) -> int:
        self._mark_told()  # the runner built this observation from every event up to now
        answer: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.session.waiting = _Waiting(request.decision_number, request.legal, answer)
        self.session.post("decide", decision_number=request.decision_number, observation=request.observation,
                          legal=tuple(request.legal), deadline_s=self.decision_deadline_s)
        try:
            # asyncio.wait, not wait_for: wait_for may swallow a cancellation that comes with the answer (3.11).
            await asyncio.wait({answer}, timeout=self.decision_deadline_s)
        finally:
            self.session.waiting = None
        if answer.done():
            return answer.result()
        answer.cancel()
        self.session.post("answered", decision_number=request.decision_number, timeout=True)
        raise SeatTimeout(f"match {request.match_id}, decision {request.decision_number}: no answer from the "
                          f"person in {self.decision_deadline_s:g} s")

    async def events(self, match_id: str, observation: Observation) -> None:
        self._mark_told()
        self.session.post("events", observation=observation)

    def final_observation(self, seat: int) -> Observation | None:
        """The seat's own view once the match is over: the last round's events and every hand revealed (V5)."""
        if self.match is None:
            return None
        return self.match.observation(seat, self.told)


class GuestSeat(RelaySeat):
    """A connected bot at a person's table: a casual relay seat, seated before the game starts (:meth:`seat_now`),
    and whether it left the game for a rated match (:attr:`evicted`)."""

    def __init__(self, store: Store, name: str) -> None:
        super().__init__(store, name, casual=True)
        self.seated = False
        self.refusal: SeatNotAdmitted | None = None
        """Why the gateway did not seat the bot (the runner's start then aborts the match at once)."""
        self.evicted = False

    async def seat_now(self, info: SeatStart) -> None:
        """Ask the gateway to seat the bot, now or never; :class:`SeatNotAdmitted` when it has no slot for people."""
        try:
            await super().start(info)
        except SeatNotAdmitted as error:
            self.refusal = error
            raise
        self.seated = True

    async def start(self, info: SeatStart) -> None:
        if self.refusal is not None:
            raise self.refusal
        if not self.seated:
            await self.seat_now(info)

    async def decide(self, request: SeatRequest) -> int:
        try:
            return await super().decide(request)
        except SeatEvicted:
            self.evicted = True
            raise


@dataclass(frozen=True)
class Opponent:
    """An opponent the person may pick: a built-in bot or a connected remote bot (``remote:NAME``)."""

    id: str
    label: str
    remote: bool


@dataclass
class HumanSession:
    """One person's game: its messages (their ``observation`` and ``legal`` the engine's objects), the decision
    waiting for the person, and the match running."""

    id: str
    token: str
    match_id: str
    setup: GameSetup
    messages: list[dict[str, Any]] = field(default_factory=list)
    waiting: _Waiting | None = None
    task: asyncio.Task[None] | None = None
    finished: bool = False
    replay: Replay | None = None
    """The stored record once the match ended (kept here when there is no store)."""
    last_active: float = field(default_factory=time.monotonic)
    ended_at: float | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def post(self, kind: str, **body: Any) -> None:
        """Add a message for the person and wake every reader."""
        self.messages.append({"n": len(self.messages), "type": kind, **body})
        self._changed.set()
        self._changed = asyncio.Event()

    def token_matches(self, token: str | None) -> bool:
        return token is not None and hmac.compare_digest(token.encode(), self.token.encode())

    async def messages_after(self, after: int, timeout_s: float) -> list[dict[str, Any]]:
        """The messages numbered ``after`` on, waiting up to ``timeout_s`` for one when there is none yet (an empty
        list then, or when the game is over and everything was read)."""
        self.last_active = time.monotonic()
        start = max(0, after)
        if len(self.messages) <= start and not self.finished:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout_s)
        return self.messages[start:]

    def answer(self, index: Any, decision_number: Any = None) -> Action:
        """Answer the waiting decision with the index of a legal action; BadAnswer names what is wrong."""
        self.last_active = time.monotonic()
        waiting = self.waiting
        if waiting is None or waiting.answer.done():
            state = "the match is over" if self.finished else "it is not your turn"
            raise BadAnswer(f"no decision is waiting for you: {state}")
        if decision_number is not None and decision_number != waiting.number:
            raise BadAnswer(f"decision {decision_number!r} is not the one waiting for you (decision "
                            f"{waiting.number})")
        count = len(waiting.legal)
        if isinstance(index, bool) or not isinstance(index, int):
            raise BadAnswer(f"the action index must be a whole number from 0 to {count - 1}, got {index!r}")
        if not 0 <= index < count:
            raise BadAnswer(f"action index {index} is out of range: decision {waiting.number} has {count} legal "
                            f"action{'s' if count != 1 else ''} (0 to {count - 1})")
        waiting.answer.set_result(index)
        self.post("answered", decision_number=waiting.number, index=index)
        return waiting.legal[index]


class HumanPlayService:
    """The live human games of one web process (bounded; idle and finished sessions expire).

    ``store``: where records go and connected remote bots are found (None: built-in bots only, records in memory).
    ``remote_bots``: the remote bots that accept human games (default: every registered bot connected now).
    ``new_seed``: each match's seed (default: 63 secret random bits), never sent to the person. ``bot_processes``:
    where the search bots play (None: in this process).
    """

    def __init__(self, store: Store | None = None, *, make_bot: BotFactory, human_deadline_s: float = HUMAN_DEADLINE_S,
                 bot_deadline_s: float = DEFAULT_DECISION_DEADLINE_S, max_strikes: int = DEFAULT_MAX_STRIKES,
                 max_sessions: int = DEFAULT_MAX_SESSIONS, idle_s: float = DEFAULT_IDLE_S,
                 retain_s: float = DEFAULT_RETAIN_S, remote_bots: Callable[[], Sequence[str]] | None = None,
                 new_seed: Callable[[], int] | None = None, bot_processes: BotProcesses | None = None) -> None:
        if human_deadline_s <= 0 or bot_deadline_s <= 0:
            raise ValueError("deadlines must be positive")
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        self.store = store
        self.make_bot = make_bot
        self.human_deadline_s = human_deadline_s
        self.bot_deadline_s = bot_deadline_s
        self.max_strikes = max_strikes
        self.max_sessions = max_sessions
        self.idle_s = idle_s
        self.retain_s = retain_s
        self._remote_bots = remote_bots
        self.bot_processes = bot_processes
        self._new_seed = new_seed or (lambda: secrets.randbits(63))
        self._sessions: OrderedDict[str, HumanSession] = OrderedDict()

    # -- choices ----------------------------------------------------------------------------------------------------
    def remote_bots(self) -> list[str]:
        """Connected remote bots that accept human games (none without a store)."""
        if self.store is None:
            return []
        if self._remote_bots is not None:
            return sorted(self._remote_bots())
        try:
            return sorted(bot.name for bot in self.store.bots.all()
                          if bot.human_games and not bot.deleted and self.store.sessions.online(bot.name))
        except Exception:  # a store down shows no remote bots rather than no page
            return []

    def opponents(self) -> list[Opponent]:
        builtin = [Opponent(name, f"{name} (built-in)", False) for name in sorted(BUILTIN_NAMES)]
        remote = [Opponent(REMOTE_PREFIX + name, f"{name} (connected bot)", True) for name in self.remote_bots()]
        return builtin + remote

    def _seat_for(self, opponent: str, seat: int, seed: int, remote: set[str] | None, match_id: str,
                  lane: int) -> Seat:
        if opponent.startswith(REMOTE_PREFIX):
            name = opponent[len(REMOTE_PREFIX):]
            if self.store is None:
                raise BadSetup(f"opponent {opponent!r}: remote bots need a store (set $REDIS_URL)")
            if remote is None or name not in remote:
                raise BadSetup(f"opponent {opponent!r}: no connected bot {name!r} accepts human games now")
            return GuestSeat(self.store, name)
        if builtin_kind(opponent) != opponent:
            raise BadSetup(f"opponent {opponent!r}: unknown built-in bot {opponent!r} "
                           f"(known: {', '.join(sorted(BUILTIN_NAMES))})")
        if self.bot_processes is not None and pooled_kind(opponent):
            return PooledSeat(self.bot_processes, lane, self.make_bot, opponent, game_bot_seed(seed, seat),
                              name=opponent, key=f"{match_id}/{seat}")
        return seat_for(opponent, seed=game_bot_seed(seed, seat), make_bot=self.make_bot)

    # -- sessions ---------------------------------------------------------------------------------------------------
    async def start(self, setup: GameSetup) -> HumanSession:
        """Start a game (call on the event loop that will run it); TooManyGames when the service is full, BotBusy
        when a connected bot picked has no slot free for a game against people now."""
        rules = setup.rules()
        self.prune()
        live = sum(1 for session in self._sessions.values() if not session.finished)
        if live >= self.max_sessions:
            raise TooManyGames(f"{live} games are being played, the most this arena allows; try again later")
        seed = self._new_seed()
        remote = set(await asyncio.to_thread(self.remote_bots)) if setup.remote else None
        match_id = f"human-{uuid.uuid4().hex[:16]}"
        lane = self.bot_processes.next_lane() if self.bot_processes is not None else 0
        opponents = [self._seat_for(name, seat, seed, remote, match_id, lane)
                     for seat, name in enumerate(setup.opponents, 1)]
        session = HumanSession(secrets.token_urlsafe(12), secrets.token_urlsafe(24), match_id, setup)
        person = HumanSeat(session, "you", self.human_deadline_s)
        config = MatchConfig(match_id=match_id, seed=seed, rules=rules, decision_deadline_s=self.bot_deadline_s,
                             max_strikes=self.max_strikes, group=GROUP)
        runner = MatchRunner(config, [person, *opponents])
        person.match = runner.match  # the seat reads only its own observation of it
        busy = await self._seat_guests(config, runner.names, opponents)
        if busy is not None:
            await runner.run()  # aborted at its start: the guests seated already are told the match ended
            raise BotBusy(f"{busy} has no slot free for a game against people now: a connected bot plays people "
                          "with at most half of its match slots, and tournaments, ladders and gauntlets come first; "
                          "try again later or pick another opponent")
        session.task = asyncio.get_running_loop().create_task(self._play(session, runner, person))
        self._sessions[session.id] = session
        return session

    @staticmethod
    async def _seat_guests(config: MatchConfig, names: Sequence[str], opponents: Sequence[Seat]) -> str | None:
        """Seat the connected bots of a new game (each now or never); the name of the first one refused, else None
        (the bots after it are not asked: that game is not played)."""
        refused: SeatNotAdmitted | None = None
        name = None
        for index, seat in enumerate(opponents, 1):
            if not isinstance(seat, GuestSeat):
                continue
            if refused is not None:
                seat.refusal = refused
                continue
            info = SeatStart(config.match_id, index, tuple(names), config.rules, config.decision_deadline_s,
                             config.tournament_id, config.attempt)
            try:
                await seat.seat_now(info)
            except SeatNotAdmitted as error:
                refused, name = error, seat.name
        return name

    async def _play(self, session: HumanSession, runner: MatchRunner, person: HumanSeat) -> None:
        try:
            record = await runner.run()
            stored = stored_record(record)
            saved = False
            if self.store is not None:
                try:
                    saved = await asyncio.to_thread(self.store.replays.save, record.match_id, stored)
                except Exception as error:  # the game is over either way; the person is told the replay is lost
                    session.post("notice", text=f"the replay could not be stored: {type(error).__name__}")
            session.replay = stored
            final = person.final_observation(0)  # the person sits in seat 0, the opponents after
            summary: MatchSummary = record.summary()
            left = [seat.name for seat in runner.seats if isinstance(seat, GuestSeat) and seat.evicted]
            detail = (f"{left[0]} was called to a tournament match: the game ends here (games against people give "
                      "way to tournament, ladder and gauntlet matches)") if left else summary.detail
            session.post("end", observation=final, scores=list(summary.scores), winner=summary.winner,
                         rounds=summary.rounds, end_reason=str(summary.end_reason), detail=detail,
                         seats=list(record.seats), replay=record.match_id if saved else None)
        finally:
            session.finished = True
            session.ended_at = time.monotonic()
            session.post("closed")

    def get(self, session_id: str, token: str | None) -> HumanSession:
        """The session, for the browser holding its token; UnknownSession or WrongToken otherwise."""
        session = self._sessions.get(session_id)
        if session is None:
            raise UnknownSession(f"no game {session_id!r}: never started, or expired")
        if not session.token_matches(token):
            raise WrongToken(f"the token does not belong to game {session_id!r}")
        return session

    def prune(self, now: float | None = None) -> int:
        """Drop finished games past :attr:`retain_s` and idle live ones past :attr:`idle_s` (their matches are
        cancelled); returns how many were dropped."""
        now = time.monotonic() if now is None else now
        dropped = 0
        for session_id, session in list(self._sessions.items()):
            expired = (session.ended_at is not None and now - session.ended_at > self.retain_s) or (
                session.ended_at is None and now - session.last_active > self.idle_s)
            if expired:
                if session.task is not None and not session.task.done():
                    session.task.cancel()
                del self._sessions[session_id]
                dropped += 1
        return dropped

    def __len__(self) -> int:
        return len(self._sessions)

    async def close(self) -> None:
        """Cancel every running game (the web app is shutting down)."""
        tasks = [session.task for session in self._sessions.values() if session.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self._sessions.clear()

