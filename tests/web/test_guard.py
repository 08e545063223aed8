"""The web front's guard, its pure rules: which request counts against which limit, which origin is foreign, which
API body is refused, and the token bucket and the client ledger on a clock of the test's own; and the app's
/metrics answered only to a private network (the test client's address set per request)."""

from __future__ import annotations

import re

import pytest

from arena.web.guard import (
    ClientLedger,
    ClientLimits,
    Kind,
    Rate,
    TokenBucket,
    TooMany,
    classify,
    foreign_origin,
    json_body_refused,
    private_client,
)


def test_requests_are_classified_by_the_limit_they_count_against() -> None:
    assert classify("POST", "/play") is classify("POST", "/api/play") is Kind.GAME_START
    assert classify("GET", "/events/leaderboard") is classify("GET", "/api/play/abc/stream") is Kind.STREAM
    assert classify("GET", "/tournaments/t1/results.csv") is Kind.EXPORT
    assert classify("GET", "/play") is classify("POST", "/api/play/abc/action") is Kind.OTHER


def test_foreign_origins_and_referers() -> None:
    host = {"host": "arena.example:8080"}
    assert foreign_origin(host | {"origin": "http://arena.example:8080"}) is None
    assert foreign_origin(host | {"origin": "https://evil.example"}) == "https://evil.example"
    assert foreign_origin(host | {"origin": "null"}) == "null"
    assert foreign_origin(host | {"referer": "http://arena.example:8080/play"}) is None
    assert foreign_origin(host | {"referer": "http://evil.example/x"}) == "http://evil.example/x"
    assert foreign_origin(host) is None  # no browser: nothing a foreign page could forge
    assert json_body_refused("POST", "/api/play", {"content-type": "text/plain"})
    assert not json_body_refused("POST", "/api/play", {"content-type": "application/json; charset=utf-8"})
    assert not json_body_refused("POST", "/play", {"content-type": "application/x-www-form-urlencoded"})


def test_a_bucket_refills_and_the_ledger_names_the_limit() -> None:
    bucket = TokenBucket(burst=2, per_s=1.0, now=0.0)
    assert [bucket.take(0.0), bucket.take(0.0)] == [0.0, 0.0] and bucket.take(0.0) == pytest.approx(1.0)
    assert bucket.take(1.0) == 0.0
    now = [0.0]
    ledger = ClientLedger(ClientLimits(exports=Rate(burst=1, per_minute=6), games=1, streams_open=1),
                          clock=lambda: now[0])
    ledger.spend("10.0.0.1", Kind.EXPORT)
    ledger.spend("10.0.0.2", Kind.EXPORT)  # another client, its own bucket
    told = re.escape("too many exports from 10.0.0.1: at most 1 at once and 6 a minute")
    with pytest.raises(TooMany, match=told) as error:
        ledger.spend("10.0.0.1", Kind.EXPORT)
    assert error.value.retry_after_s == pytest.approx(10.0)
    now[0] = 10.0
    ledger.spend("10.0.0.1", Kind.EXPORT)
    ledger.open_stream("10.0.0.1")
    with pytest.raises(TooMany, match="at most 1 at once"):
        ledger.open_stream("10.0.0.1")
    ledger.close_stream("10.0.0.1")
    ledger.open_stream("10.0.0.1")
    over = [False]
    ledger.games("10.0.0.1", lambda: over[0])
    with pytest.raises(TooMany, match="already plays 1 games"):
        ledger.check_games("10.0.0.1")
    over[0] = True
    ledger.check_games("10.0.0.1")
    with_bots = ClientLedger(ClientLimits(games=3, remote_games=2))
    for _ in range(2):
        with_bots.check_games("10.0.0.3", remote=True)
        with_bots.games("10.0.0.3", lambda: False, remote=True)
    told = re.escape("10.0.0.3 already plays 2 games against connected bots: at most 2 at once")
    with pytest.raises(TooMany, match=told):
        with_bots.check_games("10.0.0.3", remote=True)
    with_bots.check_games("10.0.0.3")  # a game against built-in bots holds no bot's slot: its own cap only
    with_bots.games("10.0.0.3", lambda: False)
    with pytest.raises(TooMany, match="already plays 3 games"):
        with_bots.check_games("10.0.0.3")
    off = ClientLedger(ClientLimits(enabled=False))
    for _ in range(100):
        off.spend("10.0.0.1", Kind.GAME_START)
        off.open_stream("10.0.0.1")


def test_the_web_metrics_answer_only_a_private_network_and_every_answer_has_the_headers() -> None:
    from fastapi.testclient import TestClient

    from arena.client import ArenaClient
    from arena.web.app import create_app
    from bots import make_bot

    client = ArenaClient("127.0.0.1:9", anonymous=True)  # never called: /metrics and /cards read no API
    try:
        app = create_app(client, make_bot=make_bot)
        for address, status in (("127.0.0.1", 200), ("10.1.2.3", 200), ("172.18.0.5", 200), ("93.184.216.34", 404)):
            with TestClient(app, client=(address, 40000)) as http:
                answer = http.get("/metrics")
                assert answer.status_code == status, address
                assert http.get("/cards").headers["x-frame-options"] == "DENY"
    finally:
        client.close()
    assert private_client("::1") and not private_client("8.8.8.8") and not private_client("unknown")
