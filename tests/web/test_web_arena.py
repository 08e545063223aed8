"""The web front against a real arena (embedded Redis, gateway with the organizer API, a worker): its JSON and
pages over HTTP, and a headless Chromium clicking through the leaderboard, a running tournament, the replay
viewer (omniscient and as one seat saw it) and a bot page with a hostile description. One arena for the module."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.web.views import PublicBot
from tests.support.waiting import wait_until
from tests.web.support import XSS, WebArena, all_frames, browser, create, finished_spec, screenshot, web_arena

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebArena]:
    with web_arena(tmp_path_factory.mktemp("web-arena")) as running:
        yield running


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    with browser() as chromium:
        yield chromium


def first_match(web: WebArena) -> str:
    return str(next(iter(web.arena.client.list_matches(web.finished))).match_id)


def omniscient(web: WebArena, match_id: str) -> Any:
    return web.arena.client.get_replay(match_id)


def hands_of(events: Any, detail: str) -> dict[int, list[str]]:
    return {e.seat: [c.text for c in e.cards] for e in events if e.type == "hand" and e.detail.startswith(detail)}


def at_step_zero(events: Any) -> dict[int, list[str]]:
    """Each seat's hand before the first decision: as dealt, then any cards the start card made it draw (S4; the deal
    depends on the tournament's secret, so some runs have such a draw)."""
    hands = hands_of(events, "dealt")
    for event in events:
        if event.type == "draw" and event.seat in hands:
            hands[event.seat] += [c.text for c in event.cards]
    return hands


def shown_cards(driver: Any, seat: int) -> list[str]:
    from selenium.webdriver.common.by import By

    hand = driver.find_element(By.CSS_SELECTOR, f'.seat[data-seat="{seat}"] .hand')
    return [card.get_attribute("data-card") for card in hand.find_elements(By.CSS_SELECTOR, ".card")]


def shown_step(driver: Any) -> int:
    """The step the viewer shows (read in one script: the frame is replaced while stepping)."""
    return int(driver.execute_script("return document.querySelector('.frame').getAttribute('data-step')"))


def wait_step(driver: Any, step: int) -> None:
    wait_until(lambda: shown_step(driver) == step, 20, f"the viewer to show step {step}")


# -- over HTTP --------------------------------------------------------------------------------------------------


def test_the_api_answers_bad_input_with_a_clear_error(web: WebArena) -> None:
    bad = httpx.get(f"{web.url}/api/tournaments", params={"status": "bogus"})
    assert bad.status_code == 400 and "bogus" in bad.json()["detail"]
    missing = httpx.get(f"{web.url}/api/tournaments/no-such-tournament")
    assert missing.status_code == 404 and missing.json()["error"] == "NOT_FOUND"
    step = httpx.get(f"{web.url}/matches/{first_match(web)}", params={"step": 100000})
    assert step.status_code == 400 and "step 100000 is not a step" in step.text
    seat = httpx.get(f"{web.url}/api/matches/{first_match(web)}/replay", params={"seat": 7})
    assert seat.status_code == 400 and "seat 7 is not a seat" in seat.json()["detail"]


def test_a_finished_tournament_reads_in_full_with_its_seed_revealed(web: WebArena) -> None:
    data = httpx.get(f"{web.url}/api/tournaments/{web.finished}").json()
    assert data["tournament"]["state"] == "finished" and data["ended"]
    assert data["progress"]["done"] == data["progress"]["total"] == 6
    assert data["tournament"]["revealed_seed"] == 7 and data["tournament"]["seed_commitment"]
    assert data["standings"]["standings"][0]["bot_name"] == "heuristic"
    assert data["matches_count"] == 6 and len(data["standings"]["head_to_head"]) == 6
    listed = [m.match_id for m in web.arena.client.list_matches(web.finished)]
    assert [m["match_id"] for m in data["matches"]] == listed  # ListMatches, in match id order
    assert all(len(m["seats"]) == 2 and m["end_reason"] == "completed" for m in data["matches"])
    pool = web.arena.client.get_leaderboard(web.arena.client.get_tournament(web.finished).rating_pool).pool
    assert data["tournament"]["pool"] == {"key": pool.pool_id, "label": pool.label,
                                          "competition": None}  # the API's label, no competition's block
    assert data["tables_count"] == 3 and all(t["deals"] == 2 and t["matches"] == 2 for t in data["tables"])
    csv = httpx.get(f"{web.url}/tournaments/{web.finished}/results.csv")
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    assert len(csv.text.strip().splitlines()) == 1 + 6 * 2  # a header, one line per match and seat
    page = httpx.get(f"{web.url}/tournaments/{web.finished}")
    assert "data-live=" not in page.text  # an ended tournament is not followed live


def test_the_live_stream_of_an_ended_tournament_sends_its_state_then_ends(web: WebArena) -> None:
    with httpx.stream("GET", f"{web.url}/events/tournaments/{web.finished}", timeout=30) as response:
        text = "".join(response.iter_text())
    assert text.startswith("event: update\n")
    update = json.loads(text.split("\n")[1].removeprefix("data: "))
    assert update["state"] == "finished" and "heuristic" in update["html"]["standings"]
    assert text.rstrip().endswith("event: end\ndata: {}")


def test_a_bot_page_reads_its_history_from_the_results_and_replays(web: WebArena) -> None:
    bot = httpx.get(f"{web.url}/api/bots/heuristic").json()
    assert bot["builtin"] and bot["versions"][0]["version"] == "builtin" and bot["versions"][0]["matches"] == 4
    assert [p["tournament_id"] for line in bot["history"] for p in line["points"]][:1] == [web.finished]
    replayed = [step.latency_ms for m in bot["recent"] for step in omniscient(web, m["match_id"]).steps
                if step.seat == m["seat"] and not step.fallback]
    assert bot["latency"]["decisions"] == len(replayed) and bot["latency"]["p50_ms"] <= bot["latency"]["p99_ms"]
    assert httpx.get(f"{web.url}/api/bots/nobody_at_all").status_code == 404


def test_the_author_sees_the_incident_log_with_the_bots_token_and_everyone_else_counts(web: WebArena) -> None:
    page = httpx.get(f"{web.url}/bots/xss_bot")
    assert "No incident recorded." in page.text and 'type="password" name="token"' in page.text
    assert httpx.get(f"{web.url}/api/bots/xss_bot").json()["incident_counts"] == {}
    author = httpx.post(f"{web.url}/bots/xss_bot/incidents", data={"token": web.xss_bot_token})
    assert author.status_code == 200 and "Incident log" in author.text
    stranger = httpx.post(f"{web.url}/bots/xss_bot/incidents", data={"token": "not-the-token"})
    assert stranger.status_code in (401, 403) and "Incident log" not in stranger.text
    empty = httpx.post(f"{web.url}/bots/xss_bot/incidents", data={"token": " "})
    assert empty.status_code == 400 and "token to see its incident details" in empty.text


def test_every_page_renders_from_the_api(web: WebArena) -> None:
    """The pages the browser tests click through, read over HTTP (they run without a browser too)."""
    match_id = first_match(web)
    for path, text in (("/tournaments", "webfinal"), ("/tournaments?status=finished", "webfinal"),
                       ("/status", "bots connected"), ("/bots", "xss_bot"), ("/bots/heuristic", "Rating history"),
                       ("/bots/xss_bot", "Versions seen"), (f"/matches/{match_id}", match_id),
                       (f"/matches/{match_id}?seat=1", match_id), ("/leaderboard", "heuristic")):
        page = httpx.get(f"{web.url}{path}")
        assert page.status_code == 200 and text in page.text, path
    assert "builtin" in httpx.get(f"{web.url}/bots/heuristic").text  # the one version of a built-in bot
    bots = httpx.get(f"{web.url}/api/bots").json()["bots"]
    assert [bot["name"] for bot in bots] == ["xss_bot"] and set(bots[0]) == {f.name for f in fields(PublicBot)}


def test_metrics_count_requests_by_route(web: WebArena) -> None:
    httpx.get(f"{web.url}/leaderboard")
    metrics = httpx.get(f"{web.url}/metrics").text
    assert 'uno_arena_web_requests_total{method="GET",route="/leaderboard",status="200"}' in metrics
    assert "uno_arena_web_request_duration_seconds_bucket" in metrics


# -- in a browser -----------------------------------------------------------------------------------------------


def test_the_leaderboard_lists_the_bots_of_a_finished_tournament_by_pool_rating(web: WebArena, driver: Any,
                                                                                   shots: Path) -> None:
    from selenium.webdriver.common.by import By

    board = web.arena.client.get_leaderboard(web.arena.client.get_tournament(web.finished).rating_pool)
    expected = [entry.bot_name for entry in board.entries]  # ranked by the arena
    key, label = board.pool.pool_id, board.pool.label
    driver.get(f"{web.url}/leaderboard")
    section = driver.find_element(By.CSS_SELECTOR, f'section[data-pool="{key}"]')
    assert label in section.text
    rows = section.find_elements(By.CSS_SELECTOR, "tr[data-bot]")
    assert [row.get_attribute("data-bot") for row in rows] == expected
    assert rows[0].find_element(By.CSS_SELECTOR, "td").text == "1"
    assert "tier" in driver.find_element(By.CSS_SELECTOR, "p.note").text
    screenshot(driver, shots, "leaderboard")
    driver.set_window_size(390, 800)  # a phone's width: the table scrolls inside its box, the page does not
    try:
        driver.get(f"{web.url}/leaderboard")
        width = driver.execute_script("return document.documentElement.scrollWidth")
        assert width <= 400
        screenshot(driver, shots, "leaderboard-phone")
    finally:
        driver.set_window_size(1200, 900)


def test_a_running_tournament_moves_without_a_reload(web: WebArena, driver: Any, shots: Path) -> None:
    from selenium.webdriver.common.by import By

    running = create(web.arena, finished_spec("weblive", ["random", "heuristic", "random#2"], deals=60, target=500,
                                              seed=11))
    try:
        wait_until(lambda: httpx.get(f"{web.url}/api/tournaments/{running}").json()["progress"]["done"] >= 1, 60,
                   "the running tournament's first match")
        public = httpx.get(f"{web.url}/api/tournaments", params={"status": "running"}).json()["tournaments"]
        shown = next(t for t in public if t["tournament_id"] == running)
        assert shown["spec"]["seed"] == 0 and shown["revealed_seed"] == 0  # no secret of a running tournament
        match_id = httpx.get(f"{web.url}/api/tournaments/{running}").json()["matches"][0]["match_id"]
        assert httpx.get(f"{web.url}/api/matches/{match_id}/replay").status_code in (401, 403)  # not before the end
        driver.get(f"{web.url}/tournaments/{running}")
        driver.execute_script("window.__sameDocument = true;")

        def done() -> int:  # read in one script: the live region is replaced while we look
            text = driver.execute_script("return document.querySelector('[data-progress-done]').textContent")
            return int(text.split("/")[0])

        before = done()
        wait_until(lambda: done() > before, 60, "the progress to move on the page")
        assert driver.execute_script("return window.__sameDocument === true;")  # moved without a reload
        assert driver.find_element(By.ID, "live-tournament").get_attribute("data-updated")
        screenshot(driver, shots, "tournament-running")
    finally:
        web.arena.client.cancel_tournament(running)


def test_the_replay_viewer_steps_through_the_record(web: WebArena, driver: Any, shots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    match_id = first_match(web)
    replay = omniscient(web, match_id)
    opening = at_step_zero(replay.opening)
    driver.get(f"{web.url}/matches/{match_id}")
    for seat, cards in opening.items():
        assert shown_cards(driver, seat) == cards  # step 0: exactly the hands the record dealt (and S4 drew)
    body = driver.find_element(By.TAG_NAME, "body")
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    wait_step(driver, 3)
    assert driver.current_url.endswith("?step=3")
    step = replay.steps[2]
    assert f"Decision {step.decision_number}" in driver.find_element(By.CSS_SELECTOR, ".step-info").text
    assert step.action.text in driver.find_element(By.CSS_SELECTOR, ".step-info").text
    body.send_keys(Keys.ARROW_LEFT)
    wait_step(driver, 2)
    # The first round's end: the record's hands as shown at its end, seat by seat.
    end = next(i for i, s in enumerate(replay.steps, 1) if any(e.type == "round_over" for e in s.events))
    shown = hands_of(replay.steps[end - 1].events, "shown")
    driver.get(f"{web.url}/matches/{match_id}?step={end}")
    wait_step(driver, end)
    for seat, cards in shown.items():
        assert sorted(shown_cards(driver, seat)) == sorted(cards)
    assert "round won by seat" in driver.find_element(By.CSS_SELECTOR, ".center-pile").text
    screenshot(driver, shots, "replay-round-end")
    driver.find_element(By.CSS_SELECTOR, '[data-go="first"]').click()
    wait_step(driver, 0)
    driver.find_element(By.CSS_SELECTOR, '[data-go="play"]').click()
    wait_until(lambda: shown_step(driver) >= 2, 30, "autoplay to move on")
    driver.find_element(By.CSS_SELECTOR, '[data-go="play"]').click()  # pause
    driver.get(f"{web.url}/matches/{match_id}?step=5")
    screenshot(driver, shots, "replay")


def test_the_per_seat_view_shows_no_hidden_card(web: WebArena, driver: Any, shots: Path) -> None:
    from selenium.webdriver.common.by import By

    match_id = first_match(web)
    replay = omniscient(web, match_id)
    dealt = {seat: [c for e in replay.opening if e.type in ("hand", "draw") and e.seat == seat for c in e.cards]
             for seat in (0, 1)}  # as dealt, then any start-card draw (S4)
    driver.get(f"{web.url}/matches/{match_id}?seat=1")
    assert shown_cards(driver, 1) == [c.text for c in dealt[1]]  # its own hand
    opponent = driver.find_element(By.CSS_SELECTOR, '.seat[data-seat="0"] .hand')
    assert opponent.get_attribute("data-hand") == "faces"
    assert shown_cards(driver, 0) == [c.dark.text for c in dealt[0]]  # only the faces showing to the table (V6)
    # the deck holds one card twice (blue-1/purple-skip-all): its other copy may be seat 1's own or the start card
    shown_to_seat = {c.text for e in replay.opening for c in e.cards
                     if not (e.type in ("hand", "draw") and e.seat == 0)}
    for card in dealt[0]:
        if card.text not in shown_to_seat:
            assert card.text not in driver.page_source  # no whole card of the opponent anywhere on the page
    screenshot(driver, shots, "replay-seat-view")
    frames = all_frames(web.url, match_id, seat=1)
    for frame in frames:
        other = frame["table"]["seats"][0]
        assert other["hand"] is None
        # shown once the round is over, unless the opponent went out (no card left to show): the deals come from a
        # secret seed, so which seat goes out differs from run to run
        ended = frame["table"]["decision"] in ("round_over", "match_over")
        assert bool(other["revealed"]) == (ended and other["count"] > 0), frame["table"]
        own_view = frame["decision"] is None or frame["decision"]["seat"] == 1
        assert own_view or frame["decision"]["legal"] == []  # the opponent's options are not the seat's to see
    cards_seen = Counter(len(f["table"]["seats"][1]["hand"]) == f["table"]["seats"][1]["count"] for f in frames)
    assert cards_seen == Counter({True: len(frames)})


def test_a_hostile_description_renders_as_text(web: WebArena, driver: Any, shots: Path) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    driver.get(f"{web.url}/bots/xss_bot")
    assert XSS in driver.find_element(By.CSS_SELECTOR, "main").text
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018 - no script of the description ran
    assert not driver.find_elements(By.CSS_SELECTOR, "main img[src=x]")
    driver.get(f"{web.url}/bots/heuristic")
    assert "Rating history" in driver.page_source and driver.find_elements(By.CSS_SELECTOR, "svg.chart circle")
    screenshot(driver, shots, "bot")


def test_the_status_page_and_the_api_docs(web: WebArena, driver: Any, shots: Path) -> None:
    from selenium.webdriver.common.by import By

    status = httpx.get(f"{web.url}/api/status").json()
    assert status["registered_bots"] == 1 and status["connected_bots"] == []
    driver.get(f"{web.url}/status")
    assert "bots connected" in driver.find_element(By.CSS_SELECTOR, ".facts").text
    screenshot(driver, shots, "status")
    schema = httpx.get(f"{web.url}/openapi.json").json()
    assert {"/api/leaderboard", "/api/tournaments", "/api/tournaments/{tournament_id}",
            "/api/matches/{match_id}/replay", "/api/bots/{name}", "/api/status"} <= set(schema["paths"])


# -- submitted code (issue 24: the form on the bot's page) -----------------------------------------------------


def _example_archive() -> bytes:
    from arena.demo import hosted_example_folder
    from arena.submissions import pack_folder

    return pack_folder(hosted_example_folder())


def _upload(web: WebArena, bot: str, token: str, archive: bytes | None, **headers: str) -> httpx.Response:
    # No file chosen: a browser still sends the part, with no file name and no bytes.
    files = {"archive": ("bot.tar.gz", archive, "application/gzip") if archive is not None
             else ("", b"", "application/octet-stream")}
    return httpx.post(f"{web.url}/bots/{bot}/submissions", data={"token": token}, files=files, headers=headers,
                      timeout=60)


def test_the_author_submits_code_on_the_bots_page_and_sees_each_verdict(web: WebArena) -> None:
    from arena.store import Store
    from arena.store.submission_store import SubmissionState

    token = web.arena.client.register_bot("coder").token
    page = httpx.get(f"{web.url}/bots/coder")
    assert 'enctype="multipart/form-data"' in page.text and 'type="file" name="archive"' in page.text
    sent = _upload(web, "coder", token, _example_archive())
    assert sent.status_code == 200, sent.text
    assert "Version 1 submitted (bot.tar.gz): python3.11-kit" in sent.text and ">checking<" in sent.text
    refused = _upload(web, "coder", token, b"not an archive at all")
    assert refused.status_code == 200 and "Refused (bot.tar.gz): submission refused: not an archive" in refused.text
    with Store.from_url(web.arena.redis_url) as store:  # what the bot host records (tests/hosting runs it for real)
        store.submissions.set_verdict("coder", 1, SubmissionState.REJECTED, "bot check in the sandbox failed:\n"
                                      "FAIL connects: <never connected>")
        store.submissions.set_output("coder", b"hosted example bot starting\n<b>bold</b>\n")
    listed = _upload(web, "coder", token, None)
    assert listed.status_code == 200 and ">rejected<" in listed.text
    assert "FAIL connects: &lt;never connected&gt;" in listed.text and "&lt;b&gt;bold&lt;/b&gt;" in listed.text
    for answer in (page, sent, refused, listed):
        assert token not in answer.text and token.split(".", 1)[1] not in answer.text


def test_the_upload_form_refuses_strangers_other_sites_and_bad_forms_in_one_line(web: WebArena) -> None:
    token = web.arena.client.register_bot("coder2").token
    stranger = _upload(web, "coder2", "coder2.not-the-token", _example_archive())
    assert stranger.status_code in (401, 403) and "not-the-token" not in stranger.text
    other_bot = _upload(web, "coder2", web.xss_bot_token, _example_archive())
    assert other_bot.status_code == 403 and "submitted" not in other_bot.text
    foreign = _upload(web, "coder2", token, _example_archive(), origin="https://evil.example")
    assert foreign.status_code == 403 and "another site" in foreign.text
    empty = _upload(web, "coder2", " ", None)
    assert empty.status_code == 400 and "token to submit code or see its submissions" in empty.text
    plain_form = httpx.post(f"{web.url}/bots/coder2/submissions", data={"token": token})
    assert plain_form.status_code == 400 and "multipart/form-data" in plain_form.text
    assert web.arena.client.list_submissions("coder2").submissions == []


def test_an_upload_too_large_is_refused_before_its_body_is_read(web: WebArena) -> None:
    import socket
    from urllib.parse import urlsplit

    from arena.web.submission_routes import MAX_UPLOAD_BYTES

    where = urlsplit(web.url)
    with socket.create_connection((where.hostname, where.port), timeout=30) as raw:  # headers only: no body sent
        raw.sendall(f"POST /bots/xss_bot/submissions HTTP/1.1\r\nHost: {where.netloc}\r\nContent-Type: "
                    f"multipart/form-data; boundary=x\r\nContent-Length: {10**9}\r\n\r\n".encode())
        answer = ""
        while "</html>" not in answer and (chunk := raw.recv(65536)):
            answer += chunk.decode("utf-8", "replace")
    assert answer.startswith("HTTP/1.1 413") and "the upload is too large (1000000000 bytes)" in answer

    def chunks() -> Iterator[bytes]:  # no Content-Length (chunked): counted while it streams
        for _ in range(MAX_UPLOAD_BYTES // 65536 + 2):
            yield b"\0" * 65536

    streamed = httpx.post(f"{web.url}/bots/xss_bot/submissions", content=chunks(), timeout=60,
                          headers={"content-type": "multipart/form-data; boundary=x"})
    assert streamed.status_code == 413 and "at most 8388608 bytes" in streamed.text


def test_the_upload_form_works_in_a_browser(web: WebArena, driver: Any, shots: Path, tmp_path: Path) -> None:
    import time

    from selenium.webdriver.common.by import By

    from arena.store import Store
    from arena.store.submission_store import HostedState, SubmissionState

    token = web.arena.client.register_bot("browser_coder").token
    archive = tmp_path / "bot.tar.gz"
    archive.write_bytes(_example_archive())
    driver.get(f"{web.url}/bots/browser_coder")
    driver.find_element(By.CSS_SELECTOR, 'form[enctype] input[name="token"]').send_keys(token)
    driver.find_element(By.CSS_SELECTOR, 'input[name="archive"]').send_keys(str(archive))
    driver.find_element(By.CSS_SELECTOR, "form[enctype] button").click()
    wait_until(lambda: "Version 1 submitted" in driver.page_source, 30, "the verdict of the upload")
    assert token not in driver.page_source
    assert driver.find_element(By.CSS_SELECTOR, 'form[enctype] input[name="token"]').get_attribute("value") == ""
    screenshot(driver, shots, "bot-submitted")
    with Store.from_url(web.arena.redis_url) as store:  # the bot host's verdict and its process's output
        store.submissions.set_verdict("browser_coder", 1, SubmissionState.ADMITTED,
                                      "bot check in the sandbox: 7 of 7 checks passed")
        store.submissions.set_hosted("browser_coder", HostedState("running", 1, 0, "", time.time()))
        store.submissions.set_output("browser_coder", b"starting version 1\nhosted example bot starting\n")
    driver.find_element(By.CSS_SELECTOR, 'form[enctype] input[name="token"]').send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "form[enctype] button").click()  # no file: the list only
    wait_until(lambda: "7 of 7 checks passed" in driver.page_source, 30, "the verdict listed")
    assert "hosted example bot starting" in driver.find_element(By.CSS_SELECTOR, "pre.output").text
    screenshot(driver, shots, "bot-submissions")
