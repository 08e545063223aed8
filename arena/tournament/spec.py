"""The description of a tournament (:class:`TournamentSpec`) and the rating-pool key.

A spec is plain data: it validates itself at construction (``ValueError`` with a message that
names the field) and converts to and from a JSON-ready dict.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.engine.rules import Rules, Variant

from ._rng import stable_digest
from .commitment import check_secret

MIN_SEATS = 2
MAX_SEATS = 10
DEFAULT_MAX_TABLES = 2000
DEFAULT_DECISION_DEADLINE_MS = 1000
"""A decision's time limit when none is given, in milliseconds."""
DEFAULT_LAG_COMPENSATION_CAP_MS = 250
"""The most lag compensation per decision by default, in milliseconds (``arena.runner`` derives its seconds)."""
MAX_LAG_COMPENSATION_CAP_MS = 10_000
DEFAULT_MATCHES_PER_PROCESS = 32
"""Matches a worker process plays at once unless its operator says otherwise (``Settings.matches_per_process``)."""
MAX_TIME_BANK_MS = 3_600_000
STORED_KEYS = {"decision_deadline_ms": "deadline_ms", "lag_compensation_cap_ms": "lag_cap_ms"}
"""The attributes whose key in the stored JSON (:meth:`TournamentSpec.to_dict`) is another (older) name: the data
on disk, and the digests of stored specs, stay as they were."""
_ATTRIBUTES = {key: name for name, key in STORED_KEYS.items()}
MAX_ALL_ORDERS_SEATS = 4
DUPLICATE_ORDERS = ("rotate", "all", "across")
"""How duplicate deals are played (:attr:`TournamentSpec.duplicate_orders`): the first two show one bot several hands
of a deal (unsafe with remote bots, which may remember them); ``"across"`` never shows a bot a deal twice."""
SAFE_DUPLICATE_ORDERS = "across"
"""The duplicate orders safe with remote bots: no bot plays a deal twice, so no memory links two matches."""
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_POOL_RE = re.compile(r"^[A-Za-z0-9:_.\-]{1,100}$")


def normalize_rules(variant: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The complete rules dict (``Rules.to_dict()``: variant plus every option with defaults filled).

    Raises ``ValueError`` for unknown options or invalid values, or when ``options`` names a
    different variant.
    """
    opts = dict(options)
    if "variant" in opts and opts.pop("variant") != variant:
        raise ValueError(f"rule options name variant {options['variant']!r} but the variant is {variant!r}")
    return Rules.from_dict({"variant": variant, **opts}).to_dict()


def rating_pool_key(variant: str, options: Mapping[str, Any]) -> str:
    """The key of the rating pool for a variant and rule options, e.g. ``"flip:3f2a9c0d1b7e4a56"``.

    Options are normalised first: validated through ``Rules``, then every option equal to its
    default is dropped. So ``{}`` and ``{"target": 500}`` share a pool, and a rule option added
    to the engine later (with a default) does not move existing pools. The suffix is a SHA-256
    digest of the canonical JSON of the variant plus the non-default options: the same in every
    process and on every machine.
    """
    rules = normalize_rules(variant, options)
    defaults = Rules(variant=Variant(variant)).to_dict()
    significant = {k: v for k, v in rules.items() if k == "variant" or defaults.get(k) != v}
    return f"{variant}:{stable_digest(significant)}"


def _check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ValueError(f"{name} must be {bound}, got {value}")


def _check_id(tournament_id: str) -> None:
    if not isinstance(tournament_id, str) or not _ID_RE.match(tournament_id):
        raise ValueError(
            f"tournament_id must be letters, digits, '_', '.' or '-' (starting with a letter or "
            f"digit), got {tournament_id!r}"
        )


def _checked_participants(participants: object) -> tuple[str, ...]:
    """The participants as a tuple: at least 2 names, non-empty, without outer spaces, distinct without case."""
    if isinstance(participants, str) or not isinstance(participants, (list, tuple)):
        raise ValueError("participants must be a list of bot names")
    names = tuple(participants)
    for name in names:
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            raise ValueError(
                f"participant names must be non-empty strings without outer spaces, got {name!r}"
            )
    if len(names) < 2:
        raise ValueError(f"a tournament needs at least 2 participants, got {len(names)}")
    # Bot names are compared without case (alpha and ALPHA are one bot).
    counts = Counter(name.casefold() for name in names)
    dups = sorted(name for name in names if counts[name.casefold()] > 1)
    if dups:
        raise ValueError(f"duplicate participant name(s), compared without case: {', '.join(dups)}")
    return names


def _check_rules(variant: str, options: Mapping[str, Any]) -> None:
    """The variant and its rule options (a JSON-ready mapping the engine's ``Rules`` accepts)."""
    if not isinstance(options, Mapping):
        raise ValueError("options must be a mapping of rule options")
    try:
        json.dumps(dict(options))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"rule options must be JSON-serialisable: {exc}") from None
    if variant not in ("flip", "classic"):
        raise ValueError(f"variant must be 'flip' or 'classic', got {variant!r}")
    normalize_rules(variant, options)  # raises ValueError on bad options


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that determines a tournament's schedule.

    Fields:
      tournament_id: letters, digits, ``_ . -`` (starts with a letter or digit); it prefixes match ids.
      participants: bot names (at least 2, distinct, non-empty). Their order does not matter:
        the schedule sorts them first.
      variant: ``"flip"`` or ``"classic"``.
      options: rule options other than the variant (``arena.engine.Rules`` fields).
      seats: players per table, 2..10, at most the number of participants.
      deals: deals per table (>= 1). Each deal is one match, or one match per seat order with
        ``duplicate``.
      duplicate: replay each deal with the seat order changed so that every bot of the table
        holds every hand of that deal.
      duplicate_orders: ``"rotate"`` (k cyclic rotations, the default) or ``"all"`` (all k!
        seat orders; only for tables of at most 4 seats): every bot of a table holds every hand of the deal, which a
        remote bot that remembers can use; or ``"across"``: each deal is played once per table at tables that share
        no bot, each seat's hand held by a different bot at each table, so no bot ever sees a deal twice (safe with
        remote bots, :mod:`arena.tournament.schedule`).
      seed: the tournament seed (an integer >= 0); every deal and table is derived from it.
      seed_secret: 64 hex digits the arena draws at creation and keeps secret until the tournament ends; every
        deal seed derives from the seed and it (:mod:`arena.tournament.commitment`). Empty: deals from the seed
        alone (local runs).
      decision_deadline_ms: decision deadline for bots, in milliseconds (>= 1).
      time_bank_ms: each seat's time bank per match (time over the deadline comes out of it), ms (0: none).
      lag_compensation_cap_ms: the most lag compensation per decision (a remote bot's TCP round trip as the gateway's
        kernel measured it, capped), ms.
      pool: the rating pool its results go to; empty: the pool of its rules (:func:`rating_pool_key`). A
        competition's ladder blocks name the competition's own pool.
      max_tables: with more than 2 seats, every k-subset of the field is a table when there
        are at most this many k-subsets; otherwise a balanced design is used.
      pair_meetings: balanced design only: how many tables every pair of bots should share
        (at least; see :mod:`arena.tournament.design`).
    """

    tournament_id: str
    participants: tuple[str, ...]
    variant: str = "flip"
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    seats: int = 2
    deals: int = 1
    duplicate: bool = False
    duplicate_orders: str = "rotate"
    seed: int = 0
    seed_secret: str = ""
    decision_deadline_ms: int = DEFAULT_DECISION_DEADLINE_MS
    time_bank_ms: int = 0
    lag_compensation_cap_ms: int = DEFAULT_LAG_COMPENSATION_CAP_MS
    pool: str = ""
    max_tables: int = DEFAULT_MAX_TABLES
    pair_meetings: int = 1

    def __post_init__(self) -> None:
        # One field after the other, in this order: a spec with several faults names the first.
        _check_id(self.tournament_id)
        object.__setattr__(self, "participants", _checked_participants(self.participants))
        self._check_tables()
        _check_int("seed", self.seed, 0)
        check_secret(self.seed_secret)
        _check_int("decision_deadline_ms", self.decision_deadline_ms, 1)
        _check_int("time_bank_ms", self.time_bank_ms, 0, MAX_TIME_BANK_MS)
        _check_int("lag_compensation_cap_ms", self.lag_compensation_cap_ms, 0, MAX_LAG_COMPENSATION_CAP_MS)
        if not isinstance(self.pool, str) or (self.pool and not _POOL_RE.match(self.pool)):
            raise ValueError(f"pool must be 1-100 letters, digits, ':', '_', '.' or '-', got {self.pool!r}")
        _check_int("max_tables", self.max_tables, 1)
        _check_int("pair_meetings", self.pair_meetings, 1)
        _check_rules(self.variant, self.options)
        object.__setattr__(self, "options", dict(self.options))

    def _check_tables(self) -> None:
        """The table size, the deals and the duplicate seat orders."""
        _check_int("seats", self.seats, MIN_SEATS, MAX_SEATS)
        if self.seats > len(self.participants):
            raise ValueError(
                f"table size {self.seats} is larger than the field of {len(self.participants)} participants"
            )
        _check_int("deals", self.deals, 1)
        if not isinstance(self.duplicate, bool):
            raise ValueError(f"duplicate must be true or false, got {self.duplicate!r}")
        if self.duplicate_orders not in DUPLICATE_ORDERS:
            raise ValueError(f"duplicate_orders must be 'rotate', 'all' or 'across', got {self.duplicate_orders!r}")
        if self.duplicate and self.duplicate_orders == "all" and self.seats > MAX_ALL_ORDERS_SEATS:
            raise ValueError(
                f"duplicate_orders='all' plays all k! seat orders; allowed up to {MAX_ALL_ORDERS_SEATS} "
                f"seats, got {self.seats} ({math.factorial(self.seats)} orders); use 'rotate'"
            )

    @property
    def rules(self) -> Rules:
        """The rules of every match (variant and options)."""
        return Rules.from_dict(normalize_rules(self.variant, self.options))

    @property
    def rating_pool(self) -> str:
        """The rating-pool key of this tournament: ``pool`` if set, else :func:`rating_pool_key` of its rules."""
        return self.pool or rating_pool_key(self.variant, self.options)

    @property
    def matches_per_deal(self) -> int:
        """Matches played from one deal of one table: 1 (no duplicates, or across), k (rotate) or k! (all)."""
        if not self.rotated:
            return 1
        return math.factorial(self.seats) if self.duplicate_orders == "all" else self.seats

    @property
    def rotated(self) -> bool:
        """Whether one deal is replayed at one table with the seats changed (duplicate ``"rotate"`` or ``"all"``):
        then every bot of the table holds every hand of the deal."""
        return self.duplicate and self.duplicate_orders != SAFE_DUPLICATE_ORDERS

    @property
    def shared_across_tables(self) -> bool:
        """Whether one deal is played at several tables that share no bot (duplicate ``"across"``)."""
        return self.duplicate and self.duplicate_orders == SAFE_DUPLICATE_ORDERS

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_dict` gives back an equal spec."""
        return {
            "tournament_id": self.tournament_id,
            "participants": list(self.participants),
            "variant": self.variant,
            "options": dict(self.options),
            "seats": self.seats,
            "deals": self.deals,
            "duplicate": self.duplicate,
            "duplicate_orders": self.duplicate_orders,
            "seed": self.seed,
            "seed_secret": self.seed_secret,
            "deadline_ms": self.decision_deadline_ms,
            "max_tables": self.max_tables,
            "pair_meetings": self.pair_meetings,
            "time_bank_ms": self.time_bank_ms,
            "lag_cap_ms": self.lag_compensation_cap_ms,
            **({"pool": self.pool} if self.pool else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TournamentSpec:
        """Build a spec from :meth:`to_dict` output (its stored keys, :data:`STORED_KEYS`); unknown keys raise
        ``ValueError``."""
        known = {STORED_KEYS.get(name, name) for name in cls.__dataclass_fields__}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown tournament field(s): {', '.join(unknown)}")
        missing = sorted({"tournament_id", "participants"} - set(data))
        if missing:
            raise ValueError(f"missing tournament field(s): {', '.join(missing)}")
        values = {_ATTRIBUTES.get(key, key): value for key, value in data.items()}
        if isinstance(values.get("participants"), list):
            values["participants"] = tuple(values["participants"])
        return cls(**values)
