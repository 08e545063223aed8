"""The web front as a public site, on a real arena (embedded Redis, gateway with the organizer API, a worker) and a
real server (uvicorn): CSRF refusals, per-client rate limits and caps, security headers, the offline API page; what
people read: pools named by their rules, the competitions page and the blocks grouped under their competition,
replay events in plain words, an incident's link to its decision in the replay; and, in a headless Chromium, card
labels never cut at 1,000 and 1,400 px, standings that never scroll sideways, and the screenshots of the docs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.client.legends import BATCH_NOTE, OPENSKILL_NOTE
from arena.protocol import arena_pb2, game_pb2
from arena.store import Store
from arena.web.app import create_app
from arena.web.guard import CSP, ClientLimits, Rate
from arena.web.views import IncidentRow
from bots import make_bot
from tests.support.waiting import wait_until
from tests.web.support import WebArena, all_frames, browser, screenshot, serve, web_arena

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

COMPETITION = "weekly"


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebArena]:
    """The arena with a finished tournament and a competition that played a few blocks."""
    from arena.service.competitions import ladder_tick
    from workers.celery_app import make_celery
    from workers.enqueue import CeleryEnqueuer

    with web_arena(tmp_path_factory.mktemp("public-site")) as running:
        running.arena.client.create_competition(arena_pb2.CreateCompetitionRequest(
            competition_id=COMPETITION, rules=game_pb2.Rules(target=60), seats_per_table=2,
            entrants=["random", "heuristic"], matches_per_minute=6000, max_blocks=2, seed=5))
        store = Store.from_url(running.arena.redis_url)
        try:
            ladder_tick(store, CeleryEnqueuer(make_celery(running.arena.redis_url)))
        finally:
            store.close()

        def blocks_ended() -> bool:
            blocks = [t for t in running.arena.client.list_tournaments()
                      if t.rating_pool == f"competition:{COMPETITION}"]
            return bool(blocks) and all(t.state == arena_pb2.TOURNAMENT_STATE_FINISHED for t in blocks)

        wait_until(blocks_ended, 180, "the competition's first blocks to end")
        yield running


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("public-site-screenshots")


def first_match(web: WebArena) -> str:
    return str(next(iter(web.arena.client.list_matches(web.finished))).match_id)


# -- hardened --------------------------------------------------------------------------------------------------


def test_state_changing_requests_from_another_site_are_refused(web: WebArena) -> None:
    foreign = {"Origin": "https://evil.example", "Content-Type": "text/plain"}
    for path in ("/play", "/api/play", "/bots/xss_bot/incidents"):
        refused = httpx.post(f"{web.url}{path}", content='{"variant": "flip"}', headers=foreign)
        assert refused.status_code == 403 and "another site" in refused.json()["detail"], path
    referer = httpx.post(f"{web.url}/play", data={"seats": "2"}, headers={"Referer": "https://evil.example/x"})
    assert referer.status_code == 403
    sandboxed = httpx.post(f"{web.url}/play", data={"seats": "2"}, headers={"Origin": "null"})
    assert sandboxed.status_code == 403
    # The site's own origin passes the check; a JSON API still wants JSON.
    own = {"Origin": web.url, "Content-Type": "text/plain"}
    not_json = httpx.post(f"{web.url}/api/play", content='{"variant": "flip"}', headers=own)
    assert not_json.status_code == 415 and "application/json" in not_json.json()["detail"]
    author = httpx.post(f"{web.url}/bots/xss_bot/incidents", data={"token": web.xss_bot_token},
                        headers={"Origin": web.url})
    assert author.status_code == 200 and "Incident log" in author.text


def test_every_answer_carries_the_security_headers(web: WebArena) -> None:
    for path in ("/leaderboard", "/api/status", "/static/style.css", "/nothing-here"):
        headers = httpx.get(f"{web.url}{path}").headers
        assert headers["content-security-policy"] == CSP and "frame-ancestors 'none'" in CSP, path
        assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
        assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"
    for page in ("/leaderboard", f"/tournaments/{web.finished}", f"/matches/{first_match(web)}", "/play"):
        html = httpx.get(f"{web.url}{page}").text
        assert not re.search(r"<script(?![^>]*(src=|application/json))", html), page  # no inline script
        assert " style=" not in html, page  # no inline style: the CSP would drop it


def test_the_api_page_works_offline_and_swagger_is_off(web: WebArena) -> None:
    docs = httpx.get(f"{web.url}/docs")
    assert docs.status_code == 200 and "/api/leaderboard" in docs.text and "/openapi.json" in docs.text
    assert "cdn" not in docs.text.lower() and "swagger" not in docs.text.lower()
    assert httpx.get(f"{web.url}/redoc").status_code == 404
    assert "/api/competitions" in httpx.get(f"{web.url}/openapi.json").json()["paths"]


@pytest.fixture(scope="module")
def limited(web: WebArena) -> Iterator[str]:
    """A second web front on the same arena with small per-client limits."""
    from arena.commands.web import public_client

    limits = ClientLimits(game_starts=Rate(burst=2, per_minute=1), streams=Rate(burst=50, per_minute=60),
                          exports=Rate(burst=3, per_minute=1), refused_tokens=Rate(burst=2, per_minute=1), games=1,
                          streams_open=2)
    client = public_client(web.arena.address)
    try:
        with serve(create_app(client, make_bot=make_bot, limits=limits, poll_s=0.2)) as url:
            yield url
    finally:
        client.close()


def test_a_client_past_its_limits_is_told_429(web: WebArena, limited: str) -> None:
    game = {"variant": "flip", "opponents": ["random"], "target": 500}
    first = httpx.post(f"{limited}/api/play", json=game)
    assert first.status_code == 201
    capped = httpx.post(f"{limited}/api/play", json=game)
    assert capped.status_code == 429 and "at most 1 at once" in capped.json()["detail"]
    rated = httpx.post(f"{limited}/api/play", json=game)
    assert rated.status_code == 429 and "too many game starts" in rated.json()["detail"]
    assert int(rated.headers["retry-after"]) >= 1
    exports = [httpx.get(f"{limited}/tournaments/{web.finished}/results.csv").status_code for _ in range(4)]
    assert exports == [200, 200, 200, 429]
    with httpx.Client(timeout=30) as browser_like, \
            browser_like.stream("GET", f"{limited}/events/leaderboard"), \
            browser_like.stream("GET", f"{limited}/events/leaderboard"):
        third = browser_like.get(f"{limited}/events/leaderboard")
        assert third.status_code == 429 and "live streams open" in third.json()["detail"]


def test_tokens_the_api_refuses_are_throttled_like_a_login(web: WebArena, limited: str) -> None:
    def incidents(token: str, **headers: str) -> httpx.Response:
        return httpx.post(f"{limited}/bots/xss_bot/incidents", data={"token": token}, headers=headers)

    wrong = [incidents("xss_bot.not-the-token").status_code for _ in range(2)]
    assert all(status in (401, 403) for status in wrong), wrong
    locked = incidents(web.xss_bot_token)  # even the right token waits: the API is not asked
    assert locked.status_code == 429 and int(locked.headers["retry-after"]) >= 1
    assert "too many refused tokens from 127.0.0.0/24: at most 2 at once and 1 a minute; try again in" in locked.text
    other = incidents(web.xss_bot_token, **{"X-Forwarded-For": "203.0.113.9"})  # another client: not locked
    assert other.status_code == 200 and "Incident log" in other.text


# -- what people read ------------------------------------------------------------------------------------------


def test_pools_are_named_by_their_rules_never_by_their_hash(web: WebArena) -> None:
    pool = web.arena.client.get_tournament(web.finished).rating_pool
    label = next(p.label for p in web.arena.client.list_rating_pools() if p.pool_id == pool)
    assert label.startswith("UNO Flip · target 100")
    for path in ("/leaderboard", "/tournaments", f"/tournaments/{web.finished}", "/bots/heuristic"):
        html = httpx.get(f"{web.url}{path}").text
        assert label in html, path
        shown = re.sub(r'(title|href|data-pool)="[^"]*"', "", html)  # the id may stay in an attribute
        assert pool not in shown, path


def test_the_competitions_pages_and_the_blocks_grouped_under_their_competition(web: WebArena) -> None:
    listed = httpx.get(f"{web.url}/api/competitions").json()["competitions"]
    assert [c["competition_id"] for c in listed] == [COMPETITION] and listed[0]["blocks"] >= 1
    assert listed[0]["rules"].startswith("UNO Flip · target 60 · 2 seats")
    one = httpx.get(f"{web.url}/api/competitions/{COMPETITION}").json()
    ladder = web.arena.client.get_competition_standings(COMPETITION)
    assert [(e["rank"], e["bot"], e["version"]) for e in one["entries"]] == [
        (e.rank, e.bot, e.version) for e in ladder.entries]
    page = httpx.get(f"{web.url}/competitions/{COMPETITION}").text
    assert "Ladder" in page and "Retired versions" in page and "heuristic" in page and "builtin" in page
    # Ranked as the pool's leaderboard, by the PL rating; its interval shown as the API gives it, OpenSkill's not.
    assert ladder.ranked_by == arena_pb2.LEADERBOARD_RANKING_BATCH and one["ranked_by"] == "PL"
    assert "ranked by PL</span>" in page and BATCH_NOTE in page and OPENSKILL_NOTE in page
    for e in ladder.entries:
        assert e.HasField("batch") and f"[{e.batch.low:.2f}, {e.batch.high:.2f}]" in page
        assert f'data-rank="{e.rank}" data-tier="{e.tier}"' in page
        assert f"[{e.rating_low:.1f}, {e.rating_high:.1f}]" not in page
    assert 'href="/competitions"' in httpx.get(f"{web.url}/leaderboard").text  # in the navigation
    assert httpx.get(f"{web.url}/competitions/nope").status_code == 404
    # The tournaments list hides the blocks and says how many, linking to them.
    blocks = [t.tournament_id for t in web.arena.client.list_tournaments()
              if t.rating_pool == f"competition:{COMPETITION}"]
    grouped = httpx.get(f"{web.url}/tournaments").text
    assert f"{len(blocks)} block{'s' if len(blocks) != 1 else ''} of competition {COMPETITION}" in grouped
    assert not any(f'data-tournament="{block}"' in grouped for block in blocks)
    assert f'data-tournament="{web.finished}"' in grouped
    only = httpx.get(f"{web.url}/tournaments", params={"competition": COMPETITION}).text
    assert all(f'data-tournament="{block}"' in only for block in blocks)
    assert f'data-tournament="{web.finished}"' not in only
    every = httpx.get(f"{web.url}/tournaments", params={"blocks": "all"}).text
    assert all(f'data-tournament="{t}"' in every for t in [*blocks, web.finished])
    assert httpx.get(f"{web.url}/tournaments", params={"blocks": "some"}).status_code == 400
    assert "Bots without memory" not in page
    web.arena.client.create_competition(arena_pb2.CreateCompetitionRequest(competition_id="amnesia",
                                                                          bots_without_memory=True))
    assert httpx.get(f"{web.url}/api/competitions/amnesia").json()["competition"]["bots_without_memory"] is True
    assert "Bots without memory" in httpx.get(f"{web.url}/competitions/amnesia").text


def test_replay_events_are_told_in_plain_words(web: WebArena) -> None:
    match_id = first_match(web)
    frames = all_frames(web.url, match_id)
    names = [seat.bot_name for seat in web.arena.client.get_replay(match_id).seats]
    told = [line for frame in frames for line in frame["events"]]
    logged = [line for frame in frames for line in frame["log"]]
    assert any(line.startswith("round_over seat=") for line in logged)  # the arena's log line ...
    assert not any("seat=" in line for line in told)  # ... never shown as such
    assert any(re.match(rf"({'|'.join(map(re.escape, names))}) plays [A-Z]", line) for line in told)
    assert any(line.startswith("round over: ") and " wins the round by " in line for line in told)
    html = httpx.get(f"{web.url}/matches/{match_id}", params={"step": 1}).text
    assert frames[1]["events"][0] in html.replace("&#39;", "'")


def test_an_incident_links_to_its_decision_in_the_replay(web: WebArena) -> None:
    match_id = first_match(web)
    step = 3
    decision = httpx.get(f"{web.url}/api/matches/{match_id}/replay").json()["frames"][step]["decision"]["number"]
    html = web.app.state.templates.get_template("bot.html").render(
        name="xss_bot", bot=None, builtin=False, history=[], charts=[], latency=None, versions=[], recent=[],
        incident_counts={"timeout": 1},
        incidents=[IncidentRow(seq=1, at=None, kind="timeout", match_id=match_id, decision_number=decision,
                               detail="no answer")])
    link = re.search(r'href="(/matches/[^"]+\?decision=\d+)"', html)
    assert link is not None
    landed = httpx.get(f"{web.url}{link.group(1).replace('&amp;', '&')}", follow_redirects=False)
    assert landed.status_code == 303 and landed.headers["location"].endswith(f"?step={step}")
    assert httpx.get(f"{web.url}/matches/{match_id}", params={"decision": 99999}).status_code == 400


# -- in a browser ----------------------------------------------------------------------------------------------


_CUT_LABELS = """
return Array.from(document.querySelectorAll('.card:not(.small) .card-label')).filter(function (label) {
  var card = label.closest('.card').getBoundingClientRect(), box = label.getBoundingClientRect();
  return label.scrollWidth > label.clientWidth || label.scrollHeight > label.clientHeight
      || box.left < card.left - 0.5 || box.right > card.right + 0.5 || box.bottom > card.bottom + 0.5;
}).map(function (label) { return label.textContent; });
"""


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    with browser(1280, 900) as chromium:
        yield chromium


def test_no_card_label_is_cut_at_1000_or_1400_px(web: WebArena, driver: Any) -> None:
    match_id = first_match(web)
    try:
        for width in (1000, 1400):
            driver.set_window_size(width, 900)
            for path in ("/cards", f"/matches/{match_id}?step=4"):
                driver.get(f"{web.url}{path}")
                labels = driver.execute_script("return document.querySelectorAll('.card-label').length")
                assert labels > 0, path
                assert driver.execute_script(_CUT_LABELS) == [], f"{path} at {width} px"
        driver.get(f"{web.url}/cards")
        shown = driver.execute_script(
            "return Array.from(document.querySelectorAll('.card-sheet:not(.small-sheet) .card-label'))"
            ".map(function (l) { return l.textContent; })")
        assert {"purple flip", "wild draw colour", "wild draw 2", "wild draw 4", "pink skip all"} <= set(shown)
    finally:
        driver.set_window_size(1280, 900)


def test_standings_and_leaderboards_never_scroll_sideways_at_1400_px(web: WebArena, driver: Any) -> None:
    try:
        driver.set_window_size(1400, 900)
        for path in ("/leaderboard", f"/tournaments/{web.finished}", f"/competitions/{COMPETITION}"):
            driver.get(f"{web.url}{path}")
            wide = driver.execute_script(
                "return Array.from(document.querySelectorAll('.scroll')).filter(function (box) {"
                " return box.scrollWidth > box.clientWidth; }).length")
            assert wide == 0, path
            assert driver.execute_script("return document.documentElement.scrollWidth") <= 1400, path
        driver.get(f"{web.url}/leaderboard")
        assert "win rate is raw" in driver.find_element("css selector", ".order-note").text
    finally:
        driver.set_window_size(1280, 900)


def test_the_pages_work_under_the_csp_and_the_screenshots_of_the_docs(web: WebArena, driver: Any,
                                                                      shots: Path) -> None:
    """Every page people read, at 1280 px, with its script running under the policy (no CSP violation logged);
    the PNGs of docs/web.md (copied into docs/screenshots/ with UNO_ARENA_WEB_SCREENSHOTS=docs/screenshots)."""
    from selenium.webdriver.common.by import By

    match_id = first_match(web)
    driver.set_window_size(1280, 900)
    pages = (("leaderboard", "/leaderboard"), ("tournament", f"/tournaments/{web.finished}"),
             ("replay", f"/matches/{match_id}?step=6"), ("competitions", f"/competitions/{COMPETITION}"),
             ("bot", "/bots/heuristic"))
    for name, path in pages:
        driver.get(f"{web.url}{path}")
        violations = [entry for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
        assert violations == [], (path, violations)
        screenshot(driver, shots, name)
    for path in ("/play", "/cards", "/docs", "/tournaments", "/competitions", "/status"):
        driver.get(f"{web.url}{path}")
        assert [e for e in driver.get_log("browser") if "Content Security Policy" in e["message"]] == [], path
    driver.get(f"{web.url}/matches/{match_id}")
    driver.find_element(By.CSS_SELECTOR, '[data-go="next"]').click()  # the viewer's script runs under the CSP
    wait_until(lambda: driver.execute_script(
        "return document.querySelector('.frame').getAttribute('data-step')") == "1", 20, "the viewer to step")
