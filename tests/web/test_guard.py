"""The web front's guard, its pure rules: which request counts against which limit, which origin is foreign, which
API body is refused, and the token bucket and the client ledger on a clock of the test's own (the limits of a bot's
forms among them, and the cap on the clients tracked); the app's /metrics answered only to a private network (the
test client's address set per request); and the upload form's limit through a real server (uvicorn), a flood of
large bodies refused before a byte of them is read, and the incident details' form capped at a few KiB."""

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
    prefix_of,
    private_client,
)


def test_requests_are_classified_by_the_limit_they_count_against() -> None:
    assert classify("POST", "/play") is classify("POST", "/api/play") is Kind.GAME_START
    assert classify("GET", "/events/leaderboard") is classify("GET", "/api/play/abc/stream") is Kind.STREAM
    assert classify("GET", "/tournaments/t1/results.csv") is Kind.EXPORT
    assert classify("GET", "/play") is classify("POST", "/api/play/abc/action") is Kind.OTHER
    assert classify("GET", "/matches/m1") is classify("GET", "/matches/m1/frame") is Kind.REPLAY
    assert classify("GET", "/api/matches/m1/replay") is Kind.REPLAY


def test_a_client_is_its_network_prefix() -> None:
    assert prefix_of("203.0.113.7") == prefix_of("203.0.113.200") == "203.0.113.0/24"
    assert prefix_of("203.0.114.7") == "203.0.114.0/24"
    assert prefix_of("2001:db8:1:2:aaaa::1") == prefix_of("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert prefix_of("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert prefix_of("::ffff:198.51.100.9") == "198.51.100.0/24"  # an IPv4-mapped address counts as IPv4
    assert prefix_of("unknown") == "unknown"


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
    with pytest.raises(TooMany, match="already plays 1 game:"):
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


def test_a_bots_forms_have_a_bucket_and_refused_tokens_a_stricter_one() -> None:
    now = [0.0]
    ledger = ClientLedger(ClientLimits(author_forms=Rate(burst=2, per_minute=6),
                                       refused_tokens=Rate(burst=2, per_minute=1)), clock=lambda: now[0])
    ledger.spend("10.0.0.1", Kind.AUTHOR_FORM)
    ledger.spend("10.0.0.1", Kind.AUTHOR_FORM)
    told = re.escape("too many bot form posts from 10.0.0.1: at most 2 at once and 6 a minute; try again in 10 s")
    with pytest.raises(TooMany, match=told) as error:
        ledger.spend("10.0.0.1", Kind.AUTHOR_FORM)
    assert error.value.retry_after == "10"
    ledger.spend("10.0.0.2", Kind.AUTHOR_FORM)  # another client, its own bucket
    for _ in range(2):
        ledger.check("10.0.0.1", Kind.REFUSED_TOKEN)  # only looks: nothing spent
        ledger.charge("10.0.0.1", Kind.REFUSED_TOKEN)
    ledger.charge("10.0.0.1", Kind.REFUSED_TOKEN)  # what happened is counted, never refused
    told = re.escape("too many refused tokens from 10.0.0.1: at most 2 at once and 1 a minute; try again in 60 s")
    with pytest.raises(TooMany, match=told):
        ledger.check("10.0.0.1", Kind.REFUSED_TOKEN)
    ledger.check("10.0.0.2", Kind.REFUSED_TOKEN)
    now[0] = 60.0
    ledger.check("10.0.0.1", Kind.REFUSED_TOKEN)
    bucket = TokenBucket(burst=1, per_s=1.0, now=0.0)
    assert bucket.wait(0.0) == bucket.wait(0.0) == 0.0 and bucket.take(0.0) == 0.0 and bucket.wait(0.0) == 1.0


def test_the_clients_tracked_are_capped_and_the_one_seen_least_recently_is_forgotten() -> None:
    now = [0.0]
    ledger = ClientLedger(ClientLimits(author_forms=Rate(burst=1, per_minute=1), max_clients=2), clock=lambda: now[0])
    ledger.spend("10.0.0.1", Kind.AUTHOR_FORM)
    ledger.spend("10.0.0.2", Kind.AUTHOR_FORM)
    ledger.check("10.0.0.1", Kind.REFUSED_TOKEN)  # 10.0.0.1 seen again: 10.0.0.2 is now the least recent
    ledger.spend("10.0.0.3", Kind.AUTHOR_FORM)
    assert len(ledger._buckets) == 2
    with pytest.raises(TooMany):
        ledger.spend("10.0.0.1", Kind.AUTHOR_FORM)  # kept: still spent
    ledger.spend("10.0.0.2", Kind.AUTHOR_FORM)  # forgotten: a fresh bucket
    now[0] = ClientLedger.FORGET_AFTER_S + 120.0  # every bucket full again: idle clients are swept
    ledger.check("10.0.0.4", Kind.REFUSED_TOKEN)
    assert len(ledger._buckets) == 1
    with pytest.raises(ValueError, match="max_clients"):
        ClientLimits(max_clients=0)


@pytest.mark.integration
def test_the_upload_form_past_its_limit_is_told_429_before_its_body_is_read() -> None:
    import socket
    from urllib.parse import urlsplit

    import httpx

    from arena.client import ArenaClient
    from arena.web.app import create_app
    from bots import make_bot
    from tests.web.support import serve

    limits = ClientLimits(author_forms=Rate(burst=2, per_minute=1))
    client = ArenaClient("127.0.0.1:9", anonymous=True)  # never called: a form without a token is refused first

    def post(url: str, **headers: str) -> httpx.Response:  # the form with no token and no file chosen
        return httpx.post(f"{url}/bots/b/submissions", data={"token": ""}, headers=headers,
                          files={"archive": ("", b"", "application/octet-stream")})

    try:
        with serve(create_app(client, make_bot=make_bot, limits=limits)) as url:
            answers = [post(url) for _ in range(3)]
            assert [a.status_code for a in answers] == [400, 400, 429]
            assert int(answers[2].headers["retry-after"]) >= 1
            line = re.search(r'<p class="error">([^<]*)</p>', answers[2].text)
            assert line and line[1].startswith("too many bot form posts from 127.0.0.0/24: at most 2 at once and 1 a "
                                               "minute; try again in ")
            # Another client (this test's server trusts a proxy on loopback, as `uno-arena web --trusted-proxies
            # 127.0.0.1` does): its own bucket.
            other = post(url, **{"X-Forwarded-For": "203.0.113.7"})
            assert other.status_code == 400 and "token to submit code" in other.text
            oversized = httpx.post(f"{url}/bots/b/incidents", data={"token": "x" * 5000},
                                   headers={"X-Forwarded-For": "198.51.100.8"})  # the incidents form: 4 KiB at most
            assert oversized.status_code == 413 and "the form is too large (5006 bytes)" in oversized.text
            where = urlsplit(url)
            with socket.create_connection((where.hostname, where.port), timeout=30) as raw:  # headers only
                raw.sendall(f"POST /bots/b/submissions HTTP/1.1\r\nHost: {where.netloc}\r\nContent-Type: "
                            f"multipart/form-data; boundary=x\r\nContent-Length: {8 * 2**20}\r\n\r\n".encode())
                answer = b""
                while b"</html>" not in answer and (chunk := raw.recv(65536)):
                    answer += chunk
            assert answer.startswith(b"HTTP/1.1 429") and b"retry-after: " in answer.lower()
    finally:
        client.close()
