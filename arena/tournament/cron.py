"""Cron expressions for scheduled tournaments: parse, validate, and find due times (pure).

Five fields (``minute hour day-of-month month day-of-week``), each ``*``, a number, a range, a step (``*/n``,
``a-b/n``, ``a/n``) or a comma list; month and weekday names; ``0`` and ``7`` are Sunday; the ``@daily``-style
aliases. As in Vixie cron, when both day fields are restricted a day matches if either does. The fields are read in
UTC or in the IANA zone of a leading ``CRON_TZ=Area/City`` (or ``TZ=``); across daylight-saving changes a wall time
fires once (a skipped time at its instant with the offset before the change, a repeated one at its first
occurrence). Due times are aware UTC datetimes; naive ones passed in are UTC. :func:`parse_cron` raises
:class:`CronError` naming the field and the problem, also for expressions that never fire (``0 0 30 2 *``).
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
_FIELDS = (  # name, lowest, highest, the names it takes, the first name's number
    ("minute", 0, 59, (), 0),
    ("hour", 0, 23, (), 0),
    ("day of month", 1, 31, (), 0),
    ("month", 1, 12, _MONTHS, 1),
    ("day of week", 0, 7, _DAYS, 0),
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
        """The UTC instant of a wall-clock time (``fold=0``: a repeated time's first, a skipped one's offset before)."""
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
            instant = self._instant(local := self._seek(local, forward=False))
            if instant <= limit:
                return instant
            local -= _MINUTE

    def next(self, after: datetime) -> datetime:
        """The earliest fire time strictly after ``after`` (UTC, aware, whole minute)."""
        limit = _utc_minute(after)
        local = self._local(limit)
        while True:  # a repeated wall time maps to an earlier instant: then look further on
            instant = self._instant(local := self._seek(local, forward=True))
            if instant > limit:
                return instant

    def _seek(self, at: datetime, forward: bool) -> datetime:
        """The wall-clock minute (naive) whose fields match nearest ``at``: the earliest strictly after it
        (``forward``), else the latest at or before it; a month, day or hour that does not match is skipped whole."""
        t = at + _MINUTE if forward else at
        for _ in range(_MAX_STEPS):
            if t.month not in self.months:
                first = t.replace(day=1, hour=0, minute=0)
                t = first.replace(year=t.year + t.month // 12, month=t.month % 12 + 1) if forward else first - _MINUTE
            elif not self._day_ok(t):
                t = t.replace(hour=0, minute=0) + (timedelta(days=1) if forward else -_MINUTE)
            else:
                fitting = [m for m in self.minutes if (m >= t.minute if forward else m <= t.minute)]
                if t.hour in self.hours and fitting:
                    return t.replace(minute=min(fitting) if forward else max(fitting))
                t = t.replace(minute=0) + (timedelta(hours=1) if forward else -_MINUTE)
        raise CronError(f"cron {self.expr!r}: no fire time found {'after' if forward else 'before'} {at.isoformat()}")


def _utc_minute(when: datetime) -> datetime:
    t = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return t.replace(second=0, microsecond=0)


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


def _field(text: str, field: str, low: int, high: int, names: tuple[str, ...],
           offset: int) -> tuple[frozenset[int], bool]:
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
    text = body = expr.strip()
    zone: tzinfo = UTC
    first, _, rest = text.partition(" ")
    if _names_zone(first):
        try:
            zone = time_zone(first.partition("=")[2])
        except CronError as error:
            raise CronError(f"{error} (in CRON_TZ)") from None
        if not rest.strip():
            raise CronError(f"cron expression {text!r} has a time zone but no fields")
        body = rest.strip()
    fields = _ALIASES.get(body.lower(), body).split()
    if body.startswith("@") and body.lower() not in _ALIASES:
        raise CronError(f"unknown cron alias {body!r}; known: {', '.join(sorted(_ALIASES))}")
    if len(fields) != 5:
        raise CronError(
            f"cron expression {text!r} has {len(fields)} fields; "
            "expected 5: minute hour day-of-month month day-of-week"
        )
    parsed = [_field(part, *spec) for part, spec in zip(fields, _FIELDS, strict=True)]
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
