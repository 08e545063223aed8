"""The Redis key scheme of uno-arena: every key the store writes, under one prefix.

All keys start with the prefix (``uno:`` by default; :class:`Keys` takes another one, which must
end with ``:``). ``{bot}`` is the *casefolded* bot name (names are unique regardless of case; the
record keeps the spelling given at registration). ``{tid}`` is a tournament id, ``{mid}`` a match
id (deterministic, and globally unique because it embeds the tournament id), ``{sid}`` a schedule
id, ``{gid}`` a gauntlet id, ``{due}`` a due time in whole epoch seconds, ``{pool}`` a rating-pool key such as
``flip:3f2a9c0d1b7e4a56``.

=====================================  ===========  =====================================================
key                                    type         contents
=====================================  ===========  =====================================================
``uno:bots``                           set          every registered ``{bot}``
``uno:bot:{bot}``                      hash         ``name owner version salt token_hash created_at
                                                    updated_at`` and, once set, ``revoked_at deleted_at``;
                                                    the token itself is never stored, only
                                                    ``HMAC-SHA256(key=salt, msg=token)`` (salt: 16 random
                                                    bytes per bot, hex; ``token_hash`` empty: revoked)
``uno:bot:{bot}:sessions``             set          session ids of the bot's live streams (an index;
                                                    members whose session key expired are pruned)
``uno:bot:{bot}:versions``             hash         ``{version}`` -> ``"{first seen}:{last seen}"``: every
                                                    ``bot_version`` its Hellos named (at most 100, the one
                                                    seen longest ago dropped first)
``uno:bot:{bot}:lost``                 string, TTL  when the arena last lost the bot's stream (a session that
                                                    expired with its dead gateway, or a drain it did not
                                                    move out of in time), for ``LOST_TTL_S``; deleted when
                                                    the bot opens a new session: while it is set, a bot
                                                    without a session is the arena's fault (no strike)
``uno:bot:{bot}:slots``                 zset         match id -> lease expiry (ms, Redis' clock): the matches
                                                    workers reserved the bot for (:mod:`arena.store.slots`)
``uno:bot:{bot}:incidents``            list         the bot's incident log (:mod:`arena.store.incident_store`):
                                                    ``"{seq} {json}"`` per incident, oldest first,
                                                    capped (``RPUSH`` + ``LTRIM``) at ``MAX_INCIDENTS``
``uno:bot:{bot}:incidents:seq``        string       counter: the number of the bot's newest incident
``uno:bot:{bot}:submissions``         list         the bot's submitted versions, oldest first: one JSON
                                                    object each (:mod:`arena.store.submission_store`)
``uno:bot:{bot}:hosted``               hash         the bot host's state of the bot's process (``state
                                                    version restarts detail since uid``)
``uno:bot:{bot}:output``               string       the last bytes (64 KiB at most) its hosted process wrote
                                                    to stdout and stderr
``uno:bot:{bot}:submit-attempts``      string, TTL  counter: the bot's submissions (accepted or refused) in
                                                    the current rate window
``uno:submission:{sha}``               string       an archive stored by an earlier version of the arena
                                                    (now they are files: :mod:`arena.store.archive_store`)
``uno:archives``                       hash         ``{sha}`` -> how many kept versions refer to that
                                                    archive file (removed at 0)
``uno:hosted``                         set          every ``{bot}`` with a submission
``uno:identity:range``                 string       the first uid of the arena's range of sandbox uids, set
                                                    once (:mod:`arena.store.identities`)
``uno:identity:next``                  string       counter: sandbox uids handed out in that range
``uno:identity:bots``                  hash         ``{bot}`` -> the uid of the bot's sandboxes (a bot with
                                                    memory: one uid; fresh sandboxes take a new one each)
``uno:session:{session}``              string, TTL  JSON ``{bot, gateway, capacity, started_at}``; the
                                                    gateway's heartbeat refreshes the TTL, so a dead
                                                    gateway's sessions vanish by themselves
``uno:tournaments``                    zset         tournament ids scored by creation time
``uno:tournament:{tid}``               hash         ``id spec spec_digest status idempotency_key
                                                    created_at updated_at attempt seed_salt
                                                    seed_commitment matches_total`` (``spec`` is JSON,
                                                    with the seed; ``attempt`` tells a redis-py retry
                                                    its own write; ``seed_salt``: 32 random bytes, hex)
``uno:idem:tournament:{key}``          string       the tournament id created under an idempotency key
                                                    (set once, with ``SET NX`` semantics, in the same
                                                    Lua script that creates the tournament); a user's
                                                    key has no ``:``, the scheduler's keys
                                                    (``schedule:{sid}:{due}``) always have one
``uno:tournament:{tid}:matches``       set          the scheduled match ids
``uno:tournament:{tid}:results``       hash         ``{mid}`` -> JSON ``{result, attempt, recorded_at}``,
                                                    written once (``HSETNX``)
``uno:tournament:{tid}:progress``      hash         counters: ``scheduled`` and ``done`` (kept by the
                                                    store) plus free-form ones (``timeouts`` ...)
``uno:tournament:{tid}:standings``     hash         standings cache: ``as_of`` (results counted; never
                                                    goes backwards) and ``standings`` (JSON)
``uno:replay:{mid}``                   string       zlib-compressed canonical JSON of the replay,
                                                    written once (``SET NX``)
``uno:ratings:{pool}``                 string       JSON ratings of one rating pool (optimistic
                                                    ``WATCH``/``MULTI`` updates)
``uno:schedules``                      set          schedule ids
``uno:schedule:{sid}``                 hash         ``id cron spec enabled created_at last_due``
``uno:schedule:{sid}:fired:{due}``     string, TTL  fire-once lock of one due time (``SET NX EX``);
                                                    value: who fired it and when
``uno:canary``                         hash         ``ts worker``: last run of the canary task
``uno:gauntlets``                      zset         gauntlet ids scored by creation time
``uno:gauntlet:{gid}``                 hash         ``id spec state status detail created_at updated_at
                                                    seed idempotency_key``
                                                    (:mod:`arena.store.gauntlet_store`; ``spec`` and ``state``,
                                                    the sequential test's, are JSON; ``seed``
                                                    is secret: only the runner and the API read it)
``uno:gauntlet:{gid}:blocks``          list         one JSON object per duplicate block, in order
                                                    (``block score llr matches``), appended with the state
``uno:competitions``                   zset         competition ids scored by creation time
``uno:competition:{cid}``              hash         a competition's spec, status, counters and rate bucket;
                                                    ``:entries`` (hash), ``:retired`` (list), ``:blocks``
                                                    (set), ``:lock`` (string): :mod:`arena.store.competition_store`
=====================================  ===========  =====================================================

The workers' run bookkeeping of a tournament (advisory: losing it never loses or double-counts a result;
see :mod:`arena.store.runstate` for what each field means) and the relay between workers and gateways
(:mod:`arena.relay`):

=====================================  ===========  =====================================================
key                                    type         contents
=====================================  ===========  =====================================================
``uno:tournament:{tid}:run``           hash         run fields: ``started_at finished_at batch_size
                                                    enqueued prior check_token ...``
``uno:tournament:{tid}:batches``       hash         ``{bid}`` -> JSON list of the batch's match ids
``uno:tournament:{tid}:batch_state``   hash         ``{bid}`` -> ``"{state}:{ts}"`` (queued, running,
                                                    done, stopped; ``ts`` the last heartbeat)
``uno:tournament:{tid}:attempts``      hash         ``{mid}`` -> times a worker started the match
``uno:tournament:{tid}:feed``          list         match ids in the order their results were written
``uno:tournament:{tid}:check_lock``    string, TTL  lock of one completeness check (``SET NX EX``)
``uno:tournament:{tid}:claim:{mid}``   string, TTL  the attempt of match ``{mid}`` in flight (``SET NX PX``,
                                                    renewed by its batch's heartbeat): one at a time
``uno:relay:{gateway}``                list         messages for gateway ``{gateway}`` (RPUSH / BLPOP)
``uno:relay:reply:{id}``               list, TTL    the answer to one message a gateway hands over to
                                                    another (60 s)
``uno:relay:replies:{hub}``            list, TTL    the answers to one worker process's relayed messages
                                                    (its event loop's hub), ``"{id} {answer}"`` each; 60 s
                                                    after the latest answer
=====================================  ===========  =====================================================

Celery's own keys (the broker queues such as ``celery``, ``unacked``, ``unacked_index``,
``_kombu.binding.*`` and the result backend's ``celery-task-meta-*``) are Celery's: they are not
under the prefix and the store never touches them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.tournament.limits import quoted

DEFAULT_PREFIX = "uno:"
RUN_PARTS = ("run", "batches", "batch_state", "attempts", "feed", "check_lock")

BOT_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
"""Bot names: 1-32 characters, letters, digits, ``_`` and ``-``, starting with a letter or digit."""

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$")
"""Ids the arena builds (match ids, session ids, rating-pool keys, the scheduler's idempotency keys): 1-200
characters, letters, digits, ``_ . : -``, starting with a letter or digit."""

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
"""Tournament and schedule ids, and the ids a user chooses (tournament names, schedule ids, idempotency keys):
letters, digits, ``_ . -``, starting with a letter or digit, at most 200 characters (the organizer API allows
100 for a user's choice: a scheduled run's id adds 15). No ``:``, the key separator: a user id is one key part, so no
input can name another key (a schedule ``NAME:fired:DUE`` would be the fire-once lock of ``NAME``; an
idempotency key ``schedule:NAME:DUE`` the one the scheduler uses for a run of ``NAME``)."""


class InvalidName(ValueError):
    """A bot name or an id does not follow the allowed charset or length."""


def bot_key(name: str) -> str:
    """The key form of a bot name (casefolded) after validating it; raises :class:`InvalidName`."""
    if not isinstance(name, str) or not BOT_NAME_RE.match(name):
        raise InvalidName(
            f"invalid bot name {quoted(name)}: use 1-32 letters, digits, '_' or '-', "
            "starting with a letter or digit"
        )
    return name.casefold()


def check_id(value: str, what: str = "id") -> str:
    """Return ``value`` if it is a valid id (see :data:`ID_RE`); raises :class:`InvalidName`."""
    if not isinstance(value, str) or not ID_RE.match(value):
        raise InvalidName(
            f"invalid {what} {quoted(value)}: use 1-200 letters, digits, '_', '.', ':' or '-', "
            "starting with a letter or digit"
        )
    return value


def check_name(value: str, what: str = "name", max_length: int = 200) -> str:
    """Return ``value`` if it is a valid key part (see :data:`NAME_RE`: no ``:``) of at most ``max_length``
    characters; raises :class:`InvalidName`."""
    if not isinstance(value, str) or len(value) > max_length or not NAME_RE.match(value):
        raise InvalidName(
            f"invalid {what} {quoted(value)}: use 1-{max_length} letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return value


@dataclass(frozen=True)
class Keys:
    """Builds every key of the scheme (see the module docstring) under one prefix."""

    prefix: str = DEFAULT_PREFIX

    def __post_init__(self) -> None:
        if not self.prefix.endswith(":") or not re.match(r"^[A-Za-z0-9_.:-]+$", self.prefix):
            raise ValueError(
                f"key prefix must be letters, digits, '_', '.', '-' and end with ':', got {self.prefix!r}"
            )

    # bots and sessions
    def bots(self) -> str:
        return f"{self.prefix}bots"

    def bot(self, name: str) -> str:
        return f"{self.prefix}bot:{bot_key(name)}"

    def bot_sessions(self, name: str) -> str:
        return f"{self.prefix}bot:{bot_key(name)}:sessions"

    def bot_versions(self, name: str) -> str:
        return f"{self.prefix}bot:{bot_key(name)}:versions"

    def bot_version_matches(self, name: str) -> str:
        """A hash: version -> matches recorded with the bot in a seat under it (:meth:`ResultStore.record`)."""
        return f"{self.prefix}bot:{bot_key(name)}:version-matches"

    def bot_lost(self, name: str) -> str:
        return f"{self.prefix}bot:{bot_key(name)}:lost"

    def bot_ended(self, name: str) -> str:
        """Ends of matches that ended while the bot was away (:meth:`arena.store.SessionStore.take_ended`)."""
        return f"{self.prefix}bot:{bot_key(name)}:ended"

    def bot_slots(self, name: str) -> str:
        """The bot's match slots held by workers (:class:`arena.store.slots.SlotStore`)."""
        return f"{self.prefix}bot:{bot_key(name)}:slots"

    def bot_incidents(self, name: str) -> str:
        return f"{self.prefix}bot:{bot_key(name)}:incidents"

    def bot_incident_seq(self, name: str) -> str:
        return f"{self.prefix}bot:{bot_key(name)}:incidents:seq"

    def bot_submissions(self, name: str) -> str:
        """The bot's submitted versions (:mod:`arena.store.submission_store`)."""
        return f"{self.prefix}bot:{bot_key(name)}:submissions"

    def bot_hosted(self, name: str) -> str:
        return f"{self.prefix}bot:{bot_key(name)}:hosted"

    def bot_output(self, name: str) -> str:
        return f"{self.prefix}bot:{bot_key(name)}:output"

    def submission(self, sha256: str) -> str:
        if not re.fullmatch(r"[0-9a-f]{64}", sha256):
            raise InvalidName(f"invalid submission digest {quoted(sha256)}: expected 64 hex digits")
        return f"{self.prefix}submission:{sha256}"

    def bot_submit_attempts(self, name: str) -> str:
        """Counter of the bot's submissions in the current rate window (:meth:`SubmissionStore.count_attempt`)."""
        return f"{self.prefix}bot:{bot_key(name)}:submit-attempts"

    def archive_refs(self) -> str:
        """Kept versions per archive digest (:mod:`arena.store.submission_store`)."""
        return f"{self.prefix}archives"

    def hosted(self) -> str:
        return f"{self.prefix}hosted"

    def uid_range(self) -> str:
        """The first uid of the arena's sandbox uids (:mod:`arena.store.identities`)."""
        return f"{self.prefix}identity:range"

    def uid_counter(self) -> str:
        return f"{self.prefix}identity:next"

    def bot_uids(self) -> str:
        return f"{self.prefix}identity:bots"

    def check_queue(self) -> str:
        """The bot host's queue of checks: ``bot:version`` -> its place (1: next)."""
        return f"{self.prefix}hosted:queue"

    def session(self, session_id: str) -> str:
        return f"{self.prefix}session:{check_id(session_id, 'session id')}"

    # tournaments, matches, results, progress, standings
    def tournaments(self) -> str:
        return f"{self.prefix}tournaments"

    def tournament(self, tid: str) -> str:
        return f"{self.prefix}tournament:{check_name(tid, 'tournament id')}"

    def idempotency(self, key: str) -> str:
        return f"{self.prefix}idem:tournament:{check_id(key, 'idempotency key')}"

    def matches(self, tid: str) -> str:
        return f"{self.tournament(tid)}:matches"

    def results(self, tid: str) -> str:
        return f"{self.tournament(tid)}:results"

    def progress(self, tid: str) -> str:
        return f"{self.tournament(tid)}:progress"

    def standings(self, tid: str) -> str:
        return f"{self.tournament(tid)}:standings"

    # replays and ratings
    def replay(self, match_id: str) -> str:
        return f"{self.prefix}replay:{check_id(match_id, 'match id')}"

    def ratings(self, pool: str) -> str:
        return f"{self.prefix}ratings:{check_id(pool, 'rating pool')}"

    def batch_ratings(self, pool: str) -> str:
        return f"{self.prefix}batch-ratings:{check_id(pool, 'rating pool')}"

    # schedules
    def schedules(self) -> str:
        return f"{self.prefix}schedules"

    def schedule(self, sid: str) -> str:
        return f"{self.prefix}schedule:{check_name(sid, 'schedule id')}"

    def schedule_fired(self, sid: str, due: int) -> str:
        return f"{self.schedule(sid)}:fired:{int(due)}"

    # health
    def canary(self) -> str:
        return f"{self.prefix}canary"

    # gauntlets (``{gid}`` as a tournament id: a user's name, no ``:``)
    def gauntlets(self) -> str:
        return f"{self.prefix}gauntlets"

    def gauntlet(self, gid: str) -> str:
        return f"{self.prefix}gauntlet:{check_name(gid, 'gauntlet id')}"

    def gauntlet_blocks(self, gid: str) -> str:
        return f"{self.gauntlet(gid)}:blocks"

    # the workers' run bookkeeping of a tournament
    def tournament_run(self, tid: str, part: str) -> str:
        """``part``: one of :data:`RUN_PARTS`."""
        if part not in RUN_PARTS:
            raise ValueError(f"unknown run key part {part!r} (one of {', '.join(RUN_PARTS)})")
        return f"{self.tournament(tid)}:{part}"

    def match_claim(self, tid: str, match_id: str) -> str:
        """The lock of the attempt of one match in flight (see :meth:`arena.store.runstate.RunState.claim`)."""
        return f"{self.tournament(tid)}:claim:{match_id}"

    # the relay between workers and gateways
    def relay_queue(self, gateway_id: str) -> str:
        return f"{self.prefix}relay:{gateway_id}"

    def relay_reply(self, reply_id: str) -> str:
        return f"{self.prefix}relay:reply:{reply_id}"

    def relay_replies(self, hub_id: str) -> str:
        """The answers to the relayed messages of one worker process's hub (:class:`arena.store.RelayHub`)."""
        return f"{self.prefix}relay:replies:{hub_id}"

    def relay_live(self, gateway_id: str) -> str:
        """The gateway's Pub/Sub channel (decisions and events: nothing of it reaches the append-only file)."""
        return f"{self.prefix}relay:live:{gateway_id}"
