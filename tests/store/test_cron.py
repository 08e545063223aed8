"""Cron expressions: parsing, clear errors, previous/next fire times (UTC and CRON_TZ zones across DST)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from arena.tournament.cron import CronError, parse_cron


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


def test_fields() -> None:
    c = parse_cron("*/15 9-17 * jan,jul mon-fri")
    assert c.minutes == {0, 15, 30, 45}
    assert c.hours == set(range(9, 18))
    assert c.months == {1, 7}
    assert c.weekdays == {1, 2, 3, 4, 5}
    assert parse_cron("0 0 * * 7").weekdays == {0}
    assert parse_cron("5/20 * * * *").minutes == {5, 25, 45}
    assert parse_cron("0-10/5,30 * * * *").minutes == {0, 5, 10, 30}
    assert parse_cron("@daily").expr == "@daily"
    assert parse_cron("  0 3 * * *  ").expr == "0 3 * * *"


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("", "empty cron expression"),
        ("* * * *", "has 4 fields; expected 5"),
        ("* * * * * *", "has 6 fields"),
        ("60 * * * *", "minute: 60 is out of range 0-59"),
        ("* 24 * * *", "hour: 24 is out of range 0-23"),
        ("* * 0 * *", "day of month: 0 is out of range 1-31"),
        ("* * * 13 *", "month: 13 is out of range 1-12"),
        ("* * * * 8", "day of week: 8 is out of range 0-7"),
        ("*/0 * * * *", "minute: step '0' must be a positive number"),
        ("5-1 * * * *", "minute: range '5-1' runs backwards"),
        ("x * * * *", "minute: 'x' is not a number"),
        ("* * * foo *", "month: 'foo' is not a number or a name \\(jan"),
        ("1,,2 * * * *", "minute: empty item"),
        ("@sometimes", "unknown cron alias '@sometimes'"),
        ("0 0 30 2 *", "never fires"),
        ("0 0 31 4,6 *", "never fires"),
        ("CRON_TZ=Mars/Olympus 0 3 * * *", "unknown time zone 'Mars/Olympus'"),
        ("TZ=../etc 0 3 * * *", "unknown time zone"),
        ("CRON_TZ=Europe/Helsinki", "a time zone but no fields"),
    ],
)
def test_malformed_expressions_have_clear_errors(expr: str, message: str) -> None:
    with pytest.raises(CronError, match=message) as info:
        parse_cron(expr)
    assert isinstance(info.value, ValueError)


def test_previous_and_next() -> None:
    c = parse_cron("0 3 * * *")
    assert c.previous(utc(2026, 1, 2, 3, 0, 30)) == utc(2026, 1, 2, 3, 0)
    assert c.previous(utc(2026, 1, 2, 2, 59)) == utc(2026, 1, 1, 3, 0)
    assert c.next(utc(2026, 1, 2, 3, 0)) == utc(2026, 1, 3, 3, 0)
    assert c.next(utc(2026, 12, 31, 4, 0)) == utc(2027, 1, 1, 3, 0)


def test_leap_day_and_month_ends() -> None:
    c = parse_cron("30 12 29 2 *")
    assert c.next(utc(2026, 3, 1)) == utc(2028, 2, 29, 12, 30)
    assert c.previous(utc(2027, 1, 1)) == utc(2024, 2, 29, 12, 30)
    assert parse_cron("0 0 31 * *").next(utc(2026, 4, 1)) == utc(2026, 5, 31)


def test_day_fields_or_when_both_restricted() -> None:
    c = parse_cron("0 0 13 * fri")  # the 13th, or any Friday
    assert c.matches(utc(2026, 1, 13))  # a Tuesday
    assert c.matches(utc(2026, 1, 16))  # a Friday
    assert not c.matches(utc(2026, 1, 14))
    only_fridays = parse_cron("0 0 * * fri")
    assert not only_fridays.matches(utc(2026, 1, 13)) and only_fridays.matches(utc(2026, 1, 16))


def test_timezones_and_naive_datetimes() -> None:
    c = parse_cron("0 * * * *")
    plus2 = timezone(timedelta(hours=2))
    assert c.previous(datetime(2026, 6, 1, 14, 30, tzinfo=plus2)) == utc(2026, 6, 1, 12, 0)
    assert c.previous(datetime(2026, 6, 1, 14, 30)) == utc(2026, 6, 1, 14, 0)


def test_previous_next_agree_with_matches() -> None:
    c = parse_cron("*/7 1-3,22 */3 * sun")
    t = utc(2026, 3, 1)
    for _ in range(200):
        n = c.next(t)
        assert c.matches(n) and n > t
        assert c.previous(n) == n
        assert c.previous(n - timedelta(minutes=1)) < n
        t = n


HELSINKI = "CRON_TZ=Europe/Helsinki"


def test_a_zone_reads_the_fields_in_local_time_summer_and_winter() -> None:
    c = parse_cron(f"{HELSINKI} 0 3 * * *")
    assert c.expr == "CRON_TZ=Europe/Helsinki 0 3 * * *"
    assert c.next(utc(2026, 6, 1, 12)) == utc(2026, 6, 2, 0)  # 03:00 EEST = 00:00 UTC
    assert c.next(utc(2026, 12, 1, 12)) == utc(2026, 12, 2, 1)  # 03:00 EET = 01:00 UTC
    assert c.previous(utc(2026, 12, 2, 0, 59)) == utc(2026, 12, 1, 1)
    assert parse_cron("TZ=utc 0 3 * * *").next(utc(2026, 6, 1, 12)) == utc(2026, 6, 2, 3)


def test_a_wall_time_the_clocks_skip_fires_once_an_hour_later() -> None:
    # 2026-03-29: Helsinki clocks jump from 03:00 to 04:00 (01:00 UTC); 03:30 does not exist that day.
    c = parse_cron(f"{HELSINKI} 30 3 * * *")
    fire = c.next(utc(2026, 3, 28, 12))
    assert fire == utc(2026, 3, 29, 1, 30)  # 04:30 EEST: 03:30 with the winter offset
    assert c.next(fire) == utc(2026, 3, 30, 0, 30)  # 03:30 EEST
    assert c.previous(utc(2026, 3, 29, 1, 29)) == utc(2026, 3, 28, 1, 30)
    assert c.previous(fire) == fire and c.matches(fire)


def test_a_wall_time_that_occurs_twice_fires_once() -> None:
    # 2026-10-25: Helsinki clocks go back from 04:00 to 03:00 (01:00 UTC); 03:30 happens twice.
    c = parse_cron(f"{HELSINKI} 30 3 * * *")
    first = c.next(utc(2026, 10, 24, 12))
    assert first == utc(2026, 10, 25, 0, 30)  # the first 03:30 (EEST)
    assert c.next(first) == utc(2026, 10, 26, 1, 30)  # not the second 03:30 (01:30 UTC) that day
    assert c.previous(utc(2026, 10, 25, 1, 45)) == first
    assert not c.matches(utc(2026, 10, 25, 1, 30))


def test_zoned_previous_next_agree_over_a_year() -> None:
    c = parse_cron(f"{HELSINKI} */20 2-4 * * *")
    t = utc(2026, 1, 1)
    while t < utc(2027, 1, 1):
        n = c.next(t)
        assert n > t and c.matches(n) and c.previous(n) == n
        assert c.previous(n - timedelta(minutes=1)) <= t
        t = n
