"""The public front attacked from outside, as a visitor would: a real arena (embedded Redis, the gateway with the
organizer API, a worker) holding a long finished match, and a real ``uno-arena web`` process in front of it.

- a long match's replay comes in pages, each answer bounded in bytes, and the viewer does not grow the web process
  by the match's size (its resident memory read from /proc);
- ``/healthz`` answers while a visitor plays three search bots (they play in a low-priority process of their own);
- the per-client caps count network prefixes (IPv4 /24), and ``X-Forwarded-For`` is ignored without
  ``--trusted-proxies``;
- live streams on unknown ids are refused before they start (the web's and the organizer API's);
- malformed request bytes answer INVALID_ARGUMENT naming the method, on every kind of RPC;
- a busy port is one line naming the fix, exit 2, and no URL printed.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from arena.local_arena import LocalArena, local_arena
from arena.processes import Processes, cli_argv, free_port
from arena.protocol import arena_pb2, arena_pb2_grpc
from arena.web.pages import MAX_REPLAY_BYTES
from benchmarks.procfs import child_pids
from tests.support.waiting import wait_until
from tests.web.support import browser, create, finished_spec, screenshot, wait_ended

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

RSS_GROWTH_BOUND = 200 * 2**20
"""What viewing a long match may add to the web process's resident memory: generous (the frame cache alone may
keep 64 MiB; before pages, one such viewing added 575 MB)."""


@dataclass
class Front:
    arena: LocalArena
    web: subprocess.Popen[bytes]
    url: str
    long_match: str
    log: Path


def web_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ARENA_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.pop("REDIS_URL", None)
    return env


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Front]:
    tmp = tmp_path_factory.mktemp("public-front")
    with local_arena(worker_concurrency=1, work_dir=tmp / "arena") as arena:
        long = create(arena, finished_spec("long", ["random", "random#2"], deals=1, target=500))
        wait_ended(arena, long, timeout=300)
        match_id = next(iter(arena.client.list_matches(long))).match_id
        port = free_port()
        processes = Processes(tmp)
        web = processes.start("web", [*cli_argv(), "web", "--address", "127.0.0.1", "--port", str(port),
                                      "--server", arena.address], web_env())
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until(lambda: answers(url, processes), 60, "the web front to answer", ignore=(httpx.HTTPError,))
            yield Front(arena, web, url, match_id, tmp / "web.log")
        finally:
            processes.stop_all()


def answers(url: str, processes: Processes) -> bool:
    processes.check_alive()
    return httpx.get(f"{url}/healthz", timeout=5).status_code == 200


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def stat_fields(pid: int) -> list[str]:
    """/proc/PID/stat after the command's name: fields 3 onwards (state, ppid, ...)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


# -- replays -------------------------------------------------------------------------------------------------------


def test_a_long_replay_comes_in_pages_each_bounded_in_bytes(front: Front) -> None:
    record = front.arena.client.get_replay(front.long_match)
    total = 1 + len(record.steps)
    assert total > 2000, "the match should be long"

    def pages_from(start: int | None, answers: int) -> tuple[list[int], int | None, int]:
        """Follow ``next`` from ``start`` for at most ``answers`` answers: the frame numbers, the next start, the
        biggest answer in bytes."""
        numbers: list[int] = []
        biggest = 0
        for _ in range(answers):
            if start is None:
                break
            answer = httpx.get(f"{front.url}/api/matches/{front.long_match}/replay",
                               params={"start": start, "count": 100}, timeout=120)
            assert answer.status_code == 200, answer.text
            biggest = max(biggest, len(answer.content))
            page = answer.json()
            assert page["frames_total"] == total and page["start"] == start
            assert 1 <= len(page["frames"]) <= 100
            numbers += [frame["number"] for frame in page["frames"]]
            start = page["next"]
        return numbers, start, biggest

    opening, following, biggest = pages_from(0, 4)
    assert opening == list(range(len(opening))) and following == len(opening)
    closing, after_last, biggest_last = pages_from(total - 250, 10)
    assert closing == list(range(total - 250, total)) and after_last is None  # every frame once, in order, to the end
    assert max(biggest, biggest_last) <= MAX_REPLAY_BYTES + 64 * 1024  # the frames' bound plus the header
    too_many = httpx.get(f"{front.url}/api/matches/{front.long_match}/replay", params={"count": 5000}, timeout=60)
    assert too_many.status_code == 422 and "100" in too_many.text
    past = httpx.get(f"{front.url}/api/matches/{front.long_match}/replay", params={"start": 10**6}, timeout=60)
    assert past.status_code == 400 and "is not a step of match" in past.json()["detail"]


def test_viewing_a_long_match_does_not_balloon_the_web_process(front: Front) -> None:
    last = len(front.arena.client.get_replay(front.long_match).steps)
    before = rss_bytes(front.web.pid)
    for seat in (None, 0, 1):
        where = {} if seat is None else {"seat": seat}
        page = httpx.get(f"{front.url}/matches/{front.long_match}", params={"step": last, **where}, timeout=120)
        assert page.status_code == 200 and f"step {last} of {last}" in page.text
        for step in range(0, last, max(1, last // 6)):  # the viewer's script: one frame at a time
            frame = httpx.get(f"{front.url}/matches/{front.long_match}/frame", params={"step": step, **where},
                              timeout=120)
            assert frame.status_code == 200 and f'data-step="{step}"' in frame.text
    grown = rss_bytes(front.web.pid) - before
    assert grown < RSS_GROWTH_BOUND, f"the web process grew by {grown / 2**20:.0f} MiB"


def test_a_browser_steps_through_a_long_match(front: Front, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    last = len(front.arena.client.get_replay(front.long_match).steps)

    def shown() -> int:
        return int(driver.execute_script("return document.querySelector('.frame').getAttribute('data-step')"))

    with browser() as driver:
        driver.get(f"{front.url}/matches/{front.long_match}?step={last}")
        assert shown() == last
        driver.find_element(By.CSS_SELECTOR, '[data-go="prev"]').click()
        wait_until(lambda: shown() == last - 1, 60, "the viewer to step back")
        assert driver.current_url.endswith(f"?step={last - 1}")
        driver.find_element(By.CSS_SELECTOR, '[data-go="first"]').click()
        wait_until(lambda: shown() == 0, 60, "the viewer to jump to the deal")
        driver.find_element(By.CSS_SELECTOR, '[data-go="next"]').click()
        wait_until(lambda: shown() == 1, 60, "the viewer to step forward")
        assert f"step 1 of {last}" in driver.find_element(By.CSS_SELECTOR, "[data-position]").text
        screenshot(driver, tmp_path, "long-replay")


# -- search bots -----------------------------------------------------------------------------------------------------


def play(url: str, game: dict[str, Any], decisions: int, stop: threading.Event) -> int:
    """Answer up to ``decisions`` of the game's decisions with the first legal action; how many were answered."""
    headers = {"X-Play-Token": game["token"]}
    seen = answered = 0
    with httpx.Client(base_url=url, timeout=60) as client:
        while answered < decisions and not stop.is_set():
            got = client.get(f"/api/play/{game['id']}/messages", params={"after": seen, "wait": 5.0},
                             headers=headers).json()
            messages = got["messages"]
            seen += len(messages)
            if any(message["type"] == "end" for message in messages) or got["finished"]:
                break
            waiting = [m for m in messages if m["type"] == "decide"]
            if waiting:
                client.post(f"/api/play/{game['id']}/action", headers=headers,
                            json={"index": 0, "decision": waiting[-1]["decision_number"]})
                answered += 1
    return answered


def test_healthz_answers_while_a_visitor_plays_search_bots(front: Front) -> None:
    started = httpx.post(f"{front.url}/api/play", timeout=60,
                         json={"variant": "flip", "opponents": ["ismctsstrong"] * 3, "target": 500})
    assert started.status_code == 201, started.text
    stop = threading.Event()
    answered: list[int] = []
    player = threading.Thread(target=lambda: answered.append(play(front.url, started.json(), 12, stop)))
    player.start()
    try:
        for _ in range(30):  # another visitor: every probe answers (a generous timeout; no latency is asserted)
            assert httpx.get(f"{front.url}/healthz", timeout=20).status_code == 200
    finally:
        player.join(timeout=300)
        stop.set()
    assert answered and answered[0] >= 3, answered
    lanes = [pid for pid in child_pids(front.web.pid) if int(stat_fields(pid)[16]) == 19]  # field 19: nice
    assert lanes, "the search bots' process (nice 19) is not a child of the web process"
    thought = sum(int(stat_fields(pid)[11]) + int(stat_fields(pid)[12]) for pid in lanes)  # utime + stime
    assert thought > 0, "the search bots did not think in their own process"


# -- caps per network prefix ---------------------------------------------------------------------------------------


def visitor(url: str, address: str) -> httpx.Client:
    return httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address=address), timeout=60)


def test_caps_count_network_prefixes_and_ignore_forwarded_for(front: Front) -> None:
    game = {"variant": "flip", "opponents": ["random"], "target": 500}
    with visitor(front.url, "127.0.5.1") as first, visitor(front.url, "127.0.5.2") as neighbour, \
            visitor(front.url, "127.0.5.3") as disguised, visitor(front.url, "127.0.6.1") as other:
        assert [first.post("/api/play", json=game).status_code for _ in range(3)] == [201, 201, 201]
        refused = neighbour.post("/api/play", json=game)  # another address of the same /24: the same client
        assert refused.status_code == 429 and "127.0.5.0/24" in refused.json()["detail"], refused.text
        forwarded = disguised.post("/api/play", json=game, headers={"X-Forwarded-For": "203.0.113.50"})
        assert forwarded.status_code == 429 and "127.0.5.0/24" in forwarded.json()["detail"], forwarded.text
        assert other.post("/api/play", json=game).status_code == 201  # another /24: a client of its own


def test_a_named_proxy_is_trusted_to_name_the_client(front: Front, tmp_path: Path) -> None:
    port = free_port()
    processes = Processes(tmp_path)
    processes.start("web", [*cli_argv(), "web", "--address", "127.0.0.1", "--port", str(port), "--server",
                            front.arena.address, "--trusted-proxies", "127.0.0.1"], web_env())
    url = f"http://127.0.0.1:{port}"
    game = {"variant": "flip", "opponents": ["random"], "target": 500}
    try:
        wait_until(lambda: answers(url, processes), 60, "the web front to answer", ignore=(httpx.HTTPError,))
        with visitor(url, "127.0.0.1") as proxy:
            behind = {"X-Forwarded-For": "203.0.113.50"}
            assert [proxy.post("/api/play", json=game, headers=behind).status_code for _ in range(3)] == [201] * 3
            refused = proxy.post("/api/play", json=game, headers=behind)
            assert refused.status_code == 429 and "203.0.113.0/24" in refused.json()["detail"], refused.text
            other = proxy.post("/api/play", json=game, headers={"X-Forwarded-For": "198.51.100.50"})
            assert other.status_code == 201, other.text  # another client behind the same proxy
    finally:
        processes.stop_all()


# -- live streams and the organizer API --------------------------------------------------------------------------


def test_unknown_ids_are_refused_before_any_stream_starts(front: Front) -> None:
    for path in ("/events/tournaments/no-such-tournament", "/events/leaderboard?pool=no-such-pool"):
        with httpx.stream("GET", f"{front.url}{path}", timeout=30) as answer:
            assert answer.status_code == 404, path
            assert not answer.headers["content-type"].startswith("text/event-stream")
    with grpc.insecure_channel(front.arena.address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        for tournament_id, code in (("no-such-tournament", grpc.StatusCode.NOT_FOUND),
                                    ("", grpc.StatusCode.INVALID_ARGUMENT)):
            call = stub.WatchTournament(arena_pb2.WatchTournamentRequest(tournament_id=tournament_id), timeout=30)
            with pytest.raises(grpc.RpcError) as refused:
                next(iter(call))  # no message comes before the status
            assert refused.value.code() == code


MALFORMED = b"\x0a\x7fab"
"""Field 1, length-delimited, 127 bytes long, with 2 bytes there: no protobuf parser takes it."""


def test_malformed_request_bytes_answer_invalid_argument_naming_the_method(front: Front) -> None:
    def identity(data: bytes) -> bytes:
        return data

    with grpc.insecure_channel(front.arena.address) as channel:
        unary = ["/uno_arena.v1.ArenaService/GetTournament", "/uno_arena.v1.ArenaService/ListBots",
                 "/uno_arena.v1.ArenaService/CreateTournament", "/grpc.health.v1.Health/Check"]
        for method in unary:
            with pytest.raises(grpc.RpcError) as refused:
                channel.unary_unary(method, request_serializer=identity, response_deserializer=identity)(
                    MALFORMED, timeout=30)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (method, refused.value)
            assert method in refused.value.details()
        watch = "/uno_arena.v1.ArenaService/WatchTournament"
        with pytest.raises(grpc.RpcError) as refused:
            next(iter(channel.unary_stream(watch, request_serializer=identity, response_deserializer=identity)(
                MALFORMED, timeout=30)))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and watch in refused.value.details()
        submit = "/uno_arena.v1.ArenaService/SubmitBot"  # a request stream: its role is checked before it is read
        with pytest.raises(grpc.RpcError) as refused:
            channel.stream_unary(submit, request_serializer=identity, response_deserializer=identity)(
                iter([MALFORMED]), timeout=30, metadata=front.arena.client.metadata)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and submit in refused.value.details()
        # A well-formed request still reaches the servicer (and its role check).
        listed = front.arena.client.list_bots()
        assert listed is not None


# -- the command -------------------------------------------------------------------------------------------------


def test_a_busy_port_is_one_line_naming_the_fix_and_no_url(tmp_path: Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        done = subprocess.run([*cli_argv(), "web", "--address", "127.0.0.1", "--port", str(port), "--server",
                               "127.0.0.1:9"], env=web_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done
    assert "http://" not in done.stdout, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and re.match(rf"error: --port {port} is in use on 127\.0\.0\.1 .*give a free port",
                                        lines[0]), done.stderr
    assert "Traceback" not in done.stderr and "Errno" not in done.stderr


def test_trusted_proxies_are_checked_words() -> None:
    done = subprocess.run([*cli_argv(), "web", "--trusted-proxies", "10.0.0.1,*", "--server", "127.0.0.1:9"],
                          env=web_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done
    assert done.stderr.strip().splitlines() == [
        "error: --trusted-proxies: '*' is not an IP address or network (give e.g. 10.0.0.5 or 10.0.0.0/8, "
        "comma-separated)"]
