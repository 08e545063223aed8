"""The description of a tournament (:class:`TournamentSpec`) and the rating-pool key: plain data that validates
itself at construction (``ValueError`` naming the field) and converts to and from a JSON-ready dict.
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
"""Attributes stored under another (older) key, so the data on disk and the digests of stored specs stay."""
MAX_ALL_ORDERS_SEATS = 4
DUPLICATE_ORDERS = ("rotate", "all", "across")
"""How duplicate deals are played (:attr:`TournamentSpec.duplicate_orders`): the first two show one bot several hands
of a deal (unsafe with remote bots, which may remember them); ``"across"`` never shows a bot a deal twice."""
SAFE_DUPLICATE_ORDERS = "across"
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_POOL_RE = re.compile(r"^[A-Za-z0-9:_.\-]{1,100}$")


def normalize_rules(variant: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The complete rules dict (variant plus every option, defaults filled); ``ValueError`` for unknown options,
    invalid values, or another variant."""
    opts = dict(options)
    if "variant" in opts and opts.pop("variant") != variant:
        raise ValueError(f"rule options name variant {options['variant']!r} but the variant is {variant!r}")
    return Rules.from_dict({"variant": variant, **opts}).to_dict()


def rating_pool_key(variant: str, options: Mapping[str, Any]) -> str:
    """The key of the rating pool for a variant and rule options, e.g. ``"flip:3f2a9c0d1b7e4a56"``: a SHA-256
    digest of the variant and the options that differ from their defaults (so ``{}`` and ``{"target": 500}``
    share a pool, and an engine option added later with a default moves no pool)."""
    rules = normalize_rules(variant, options)
    defaults = Rules(variant=Variant(variant)).to_dict()
    significant = {k: v for k, v in rules.items() if k == "variant" or defaults.get(k) != v}
    return f"{variant}:{stable_digest(significant)}"


def stored_dict(record: Any, stored_keys: Mapping[str, str]) -> dict[str, Any]:
    """A dataclass's fields by the key each is stored under (its name, unless ``stored_keys`` names another)."""
    return {stored_keys.get(name, name): getattr(record, name) for name in record.__dataclass_fields__}


def stored_attributes(cls: Any, data: Mapping[str, Any], stored_keys: Mapping[str, str], what: str) -> dict[str, Any]:
    """The inverse of :func:`stored_dict`: ``data`` by attribute name; ``ValueError`` naming the unknown keys."""
    names = {stored_keys.get(name, name): name for name in cls.__dataclass_fields__}
    unknown = sorted(set(data) - set(names))
    if unknown:
        raise ValueError(f"unknown {what} field(s): {', '.join(unknown)}")
    return {names[key]: value for key, value in data.items()}


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
    """Everything that determines a tournament's schedule (:mod:`arena.tournament.schedule`).

    Fields beyond the obvious: ``participants`` in any order (the schedule sorts them); ``options``: rule options
    other than the variant; ``deals``: per table; ``duplicate_orders``: ``"rotate"`` (k rotations), ``"all"`` (k!
    orders, up to 4 seats) or ``"across"`` (tables that share no bot, safe with remote bots); ``seed_secret``: 64 hex
    digits kept secret until the end, every deal seed derives from it and the seed (empty in local runs);
    ``time_bank_ms``: per seat and match (0: none); ``pool``: empty for the pool of its rules
    (:func:`rating_pool_key`); ``max_tables``: above this many k-subsets, the balanced design; ``pair_meetings``:
    the tables every pair shares at least there.
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
        """Whether one deal is replayed at one table with the seats changed (duplicate ``"rotate"`` or ``"all"``)."""
        return self.duplicate and self.duplicate_orders != SAFE_DUPLICATE_ORDERS

    @property
    def shared_across_tables(self) -> bool:
        """Whether one deal is played at several tables that share no bot (duplicate ``"across"``)."""
        return self.duplicate and self.duplicate_orders == SAFE_DUPLICATE_ORDERS

    def to_dict(self) -> dict[str, Any]:
        """The fields under their stored keys (:data:`STORED_KEYS`); ``pool`` only when set."""
        data = stored_dict(self, STORED_KEYS) | {"participants": list(self.participants), "options": dict(self.options)}
        if not self.pool:
            del data["pool"]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TournamentSpec:
        """Inverse of :meth:`to_dict`; unknown keys raise ``ValueError``."""
        values = stored_attributes(cls, data, STORED_KEYS, "tournament")
        missing = sorted({"tournament_id", "participants"} - set(data))
        if missing:
            raise ValueError(f"missing tournament field(s): {', '.join(missing)}")
        if isinstance(values.get("participants"), list):
            values["participants"] = tuple(values["participants"])
        return cls(**values)
