"""Cron expressions for scheduled tournaments: parse, validate, and find due times (pure).

Five fields, ``minute hour day-of-month month day-of-week``, each ``*``, a number, a range
``a-b``, a step ``*/n``, ``a-b/n`` or ``a/n``, or a comma list of those. Months take ``jan``..``dec``
and weekdays ``sun``..``sat`` (``0`` and ``7`` are both Sunday). Aliases: ``@yearly``
(``@annually``), ``@monthly``, ``@weekly``, ``@daily`` (``@midnight``), ``@hourly``. As in Vixie
cron, when both day fields are restricted a day matches if *either* matches.

The fields are read in UTC, or in the IANA time zone named by a leading ``CRON_TZ=Area/City`` (or
``TZ=Area/City``), as in cronie and Kubernetes: ``CRON_TZ=Europe/Helsinki 0 3 * * *`` fires at 03:00
Helsinki time, summer and winter. Across daylight-saving changes a wall time fires once: a time
the clocks skip fires at the instant it has with the offset before the change (when 03:00 jumps to
04:00, 03:30 fires at 04:30), and a time that occurs twice fires at its first occurrence. Due times
are always returned as aware UTC datetimes; naive datetimes passed in are taken as UTC.

:func:`parse_cron` raises :class:`CronError` (a ``ValueError``) naming the field and the problem,
including expressions that can never fire (``0 0 30 2 *``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_ALIASES = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_FIELDS = (  # name, lowest, highest
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 7),
)
_MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MAX_STEPS = 200_000
_MINUTE = timedelta(minutes=1)


class CronError(ValueError):
    """A malformed cron expression, or one that never fires."""


@dataclass(frozen=True)
class Cron:
    """A parsed cron expression. ``weekdays`` use 0 = Sunday .. 6 = Saturday."""

    expr: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    days_restricted: bool
    weekdays_restricted: bool
    zone: tzinfo = UTC
    """Where the fields are read (``CRON_TZ=``); UTC by default."""

    @property
    def zone_name(self) -> str:
        """The IANA name of :attr:`zone` (``UTC`` by default)."""
        return str(getattr(self.zone, "key", "UTC"))

    def _local(self, when: datetime) -> datetime:
        """The wall-clock minute of ``when`` in the schedule's zone, naive."""
        return _utc_minute(when).astimezone(self.zone).replace(tzinfo=None, fold=0)

    def _instant(self, local: datetime) -> datetime:
        """The UTC instant of a wall-clock time (``fold=0``: the first of a repeated time, and the offset
        before the change for a skipped one)."""
        return local.replace(tzinfo=self.zone, fold=0).astimezone(UTC)

    def _day_ok(self, t: datetime) -> bool:
        dom = t.day in self.days
        dow = (t.isoweekday() % 7) in self.weekdays
        if self.days_restricted and self.weekdays_restricted:
            return dom or dow
        return dom and dow

    def matches(self, when: datetime) -> bool:
        """Whether the minute of ``when`` is a fire time."""
        instant = _utc_minute(when)
        return self.previous(instant) == instant

    def previous(self, at: datetime) -> datetime:
        """The latest fire time at or before ``at`` (UTC, aware, whole minute)."""
        limit = _utc_minute(at)
        local = self._local(limit)
        while True:  # a skipped wall time maps to a later instant: then look further back
            instant = self._instant(local := self._previous_local(local))
            if instant <= limit:
                return instant
            local -= _MINUTE

    def next(self, after: datetime) -> datetime:
        """The earliest fire time strictly after ``after`` (UTC, aware, whole minute)."""
        limit = _utc_minute(after)
        local = self._local(limit)
        while True:  # a repeated wall time maps to an earlier instant: then look further on
            instant = self._instant(local := self._next_local(local))
            if instant > limit:
                return instant

    def _previous_local(self, at: datetime) -> datetime:
        """The latest wall-clock minute at or before ``at`` whose fields match (naive)."""
        t = at
        for _ in range(_MAX_STEPS):
            if t.month not in self.months:
                t = t.replace(day=1, hour=0, minute=0) - _MINUTE
            elif not self._day_ok(t):
                t = t.replace(hour=0, minute=0) - _MINUTE
            elif t.hour not in self.hours:
                t = t.replace(minute=0) - _MINUTE
            else:
                earlier = [m for m in self.minutes if m <= t.minute]
                if earlier:
                    return t.replace(minute=max(earlier))
                t = t.replace(minute=0) - _MINUTE
        raise CronError(f"cron {self.expr!r}: no fire time found before {at.isoformat()}")

    def _next_local(self, after: datetime) -> datetime:
        """The earliest wall-clock minute strictly after ``after`` whose fields match (naive)."""
        t = after + _MINUTE
        for _ in range(_MAX_STEPS):
            if t.month not in self.months:
                t = _first_of_next_month(t)
            elif not self._day_ok(t):
                t = t.replace(hour=0, minute=0) + timedelta(days=1)
            elif t.hour not in self.hours:
                t = t.replace(minute=0) + timedelta(hours=1)
            else:
                later = [m for m in self.minutes if m >= t.minute]
                if later:
                    return t.replace(minute=min(later))
                t = t.replace(minute=0) + timedelta(hours=1)
        raise CronError(f"cron {self.expr!r}: no fire time found after {after.isoformat()}")


def _utc_minute(when: datetime) -> datetime:
    t = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return t.replace(second=0, microsecond=0)


def _first_of_next_month(t: datetime) -> datetime:
    if t.month == 12:
        return t.replace(year=t.year + 1, month=1, day=1, hour=0, minute=0)
    return t.replace(month=t.month + 1, day=1, hour=0, minute=0)


def _value(token: str, field: str, low: int, high: int, names: tuple[str, ...], offset: int) -> int:
    word = token.lower()
    if names and word in names:
        return names.index(word) + offset
    if not token.isdigit():
        hint = f" or a name ({', '.join(names)})" if names else ""
        raise CronError(f"{field}: {token!r} is not a number{hint}")
    value = int(token)
    if not low <= value <= high:
        raise CronError(f"{field}: {value} is out of range {low}-{high}")
    return value


def _field(text: str, field: str, low: int, high: int) -> tuple[frozenset[int], bool]:
    names: tuple[str, ...] = ()
    offset = 0
    if field == "month":
        names, offset = _MONTHS, 1
    elif field == "day of week":
        names = _DAYS
    values: set[int] = set()
    restricted = not text.startswith("*")
    for part in text.split(","):
        if not part:
            raise CronError(f"{field}: empty item in {text!r}")
        base, slash, step_text = part.partition("/")
        step = 1
        if slash:
            if not step_text.isdigit() or int(step_text) == 0:
                raise CronError(f"{field}: step {step_text!r} must be a positive number")
            step = int(step_text)
        if base == "*":
            start, end = low, high
        elif "-" in base:
            a, _, b = base.partition("-")
            start = _value(a, field, low, high, names, offset)
            end = _value(b, field, low, high, names, offset)
            if start > end:
                raise CronError(f"{field}: range {base!r} runs backwards")
        else:
            start = _value(base, field, low, high, names, offset)
            end = high if slash else start
        values.update(range(start, end + 1, step))
    if field == "day of week" and 7 in values:
        values.discard(7)
        values.add(0)
    return frozenset(values), restricted


def parse_cron(expr: str) -> Cron:
    """Parse and validate a cron expression; raises :class:`CronError` with the reason."""
    if not isinstance(expr, str) or not expr.strip():
        raise CronError("empty cron expression: expected 5 fields 'minute hour day month weekday'")
    text = expr.strip()
    zone: tzinfo = UTC
    first, _, rest = text.partition(" ")
    if _names_zone(first):
        zone = _zone(first.partition("=")[2])
        if not rest.strip():
            raise CronError(f"cron expression {text!r} has a time zone but no fields")
        body = rest.strip()
    else:
        body = text
    fields = _ALIASES.get(body.lower(), body).split()
    if body.startswith("@") and body.lower() not in _ALIASES:
        raise CronError(f"unknown cron alias {body!r}; known: {', '.join(sorted(_ALIASES))}")
    if len(fields) != 5:
        raise CronError(
            f"cron expression {text!r} has {len(fields)} fields; "
            "expected 5: minute hour day-of-month month day-of-week"
        )
    parsed = [_field(f, name, low, high) for f, (name, low, high) in zip(fields, _FIELDS, strict=True)]
    (minutes, _), (hours, _), (days, dom_r), (months, _), (weekdays, dow_r) = parsed
    cron = Cron(text, minutes, hours, days, months, weekdays, dom_r, dow_r, zone)
    if not (dom_r and dow_r) and min(days) > max(_MONTH_DAYS[m - 1] for m in months):
        raise CronError(f"cron expression {text!r} never fires: no chosen month has day {min(days)}")
    return cron


def _names_zone(word: str) -> bool:
    return word.upper().startswith(("CRON_TZ=", "TZ="))


def with_time_zone(expr: str, zone: str) -> str:
    """``expr`` read in ``zone``: the ``CRON_TZ=`` form that :func:`parse_cron` takes (checked there)."""
    text = expr.strip()
    if _names_zone(text.partition(" ")[0]):
        raise CronError("give the time zone once: as a separate time zone or as a CRON_TZ= prefix, not both")
    return f"CRON_TZ={zone} {text}"


def time_zone(name: str) -> tzinfo:
    """The IANA time zone ``name`` (``UTC`` in any case too); :class:`CronError` naming it when there is none."""
    if name.upper() == "UTC":
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise CronError(f"unknown time zone {name!r}: expected an IANA name such as 'Europe/Helsinki' or 'UTC'") \
            from None


def _zone(name: str) -> tzinfo:
    try:
        return time_zone(name)
    except CronError as error:
        raise CronError(f"{error} (in CRON_TZ)") from None
