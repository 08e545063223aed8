"""A person plays a whole match against the bots in a real browser (headless Chromium through Selenium), by
clicking, on the web front of a real arena (embedded Redis, gateway with the organizer API, a worker); then every
message the page received (``window.__received``) is checked against the engine: no card the seat may not see.
Screenshots of the form, the table, a round's end, the match's end and the replay are saved as artifacts."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.service.human_play import HumanPlayService
from arena.store import Store
from bots import make_bot
from tests.support import wait_until
from tests.web.play_checks import check_messages, stored_json
from tests.web.support import browser, screenshot, serve

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

SEED = 987654322015
"""A 3-seat flip match to 100 of two rounds or more when the person plays the first playable card."""

_NEXT_CLICK = """
const visible = (el) => el && !el.hidden && el.offsetParent !== null;
const overlay = document.getElementById('overlay');
if (!overlay.hidden) {
  const again = document.getElementById('again-link');
  if (!again.hidden) return ['end', null];
  return ['round', document.getElementById('continue')];
}
const chooser = document.querySelector('#chooser:not([hidden]) [data-action-index]');
if (visible(chooser)) return ['choice', chooser];
const card = document.querySelector('#hand .hand-card.playable');
if (visible(card)) return ['card', card];
const button = document.querySelector('#actions [data-action-index]');
if (visible(button)) return ['button', button];
return ['wait', null];
"""


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("play-screenshots")


@dataclass
class ArenaWeb:
    """A running local arena, its web front's URL, and the arena's store."""

    arena: Any
    url: str
    store: Store


@pytest.fixture(scope="module")
def arena_web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArenaWeb]:
    """A real local arena and its web front, with human games on the arena's store."""
    from arena.commands.web import public_client
    from arena.local_arena import local_arena
    from arena.web.app import create_app

    with local_arena(worker_concurrency=1, work_dir=tmp_path_factory.mktemp("play-arena")) as arena:
        client = public_client(arena.address)
        store = Store.from_url(arena.redis_url)
        app = create_app(client, make_bot=make_bot, admin_client=arena.client, poll_s=0.2)
        # A remote bot's deadline of 5 s rather than 1 s: this machine is shared, and a strike is not the point.
        app.state.human_play = HumanPlayService(store, make_bot=make_bot, new_seed=lambda: SEED, bot_deadline_s=5.0)
        try:
            with serve(app) as url:
                yield ArenaWeb(arena, url, store)
        finally:
            client.close()
            store.close()


def test_a_person_plays_a_whole_match_by_clicking_and_the_page_never_gets_a_hidden_card(
        arena_web: ArenaWeb, shots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url, store = arena_web.url, arena_web.store
    with browser(1200, 1000) as driver:
        driver.get(f"{url}/play")
        Select(driver.find_element(By.ID, "seats")).select_by_value("3")
        Select(driver.find_element(By.ID, "opponent1")).select_by_value("heuristic")
        Select(driver.find_element(By.ID, "opponent2")).select_by_value("random")
        Select(driver.find_element(By.ID, "target")).select_by_value("100")
        assert not driver.find_element(By.ID, "opponent2").get_attribute("disabled")
        assert driver.find_element(By.ID, "opponent3").get_attribute("disabled"), "a 3-seat game has 2 opponents"
        screenshot(driver, shots, "play-form")
        driver.find_element(By.ID, "start").click()
        wait_until(lambda: "/play/" in driver.current_url and driver.find_elements(By.ID, "game"), 30, "the game page")
        driver.get(driver.current_url + "?step=20")  # the opponents' moves one by one, 20 ms apart
        match_id = driver.find_element(By.ID, "game").get_attribute("data-match")

        clicks = play_by_clicking(driver, shots)
        wait_until(lambda: driver.execute_script("return window.__closed === true"), 30, "the stream to close")
        screenshot(driver, shots, "play-match-end")
        received: list[dict[str, Any]] = driver.execute_script("return window.__received")
        replay_link = driver.find_element(By.ID, "replay-link")
        assert replay_link.is_displayed() and replay_link.get_attribute("href") == f"{url}/matches/{match_id}"
        title = driver.find_element(By.ID, "overlay-title").text
        assert "wins the match" in title or "You win the match" in title
        log_lines = len(driver.find_elements(By.CSS_SELECTOR, "#log li"))

        stored = stored_json(store.replays.load(match_id))
        assert stored is not None, "the match was not recorded"
        counts = check_messages(received, stored)
        decided = counts["decide"]
        assert decided == sum(1 for message in received if message["type"] == "decide") >= 5
        assert clicks.get("card", 0) + clicks.get("button", 0) + clicks.get("choice", 0) >= decided
        assert counts["hidden"] > 0 and counts["end"] == 1
        assert received[-1]["type"] == "closed" and received[-2]["end_reason"] == "target"
        assert stored["seats"] == ["you", "heuristic", "random"] and stored["scores"] == received[-2]["scores"]
        assert log_lines >= sum(len(m["observation"]["events"]) for m in received
                                if m["type"] in ("decide", "events")), "an event was not shown"
        if stored["rounds"] > 1:
            assert clicks.get("round", 0) == stored["rounds"] - 1

        replay_link.click()
        wait_until(lambda: "/matches/" in driver.current_url, 30, "the replay page")
        wait_until(lambda: match_id in driver.page_source, 30, "the replay page to show the match")
        screenshot(driver, shots, "play-replay")


def play_by_clicking(driver: Any, shots: Path | None = None, *, stop_after: int | None = None) -> dict[str, int]:
    """Click the person's way through the match until its end (or ``stop_after`` clicks): the first choice of a
    card being played, else the first playable card, else the first button; "Next round" at a round's end.
    Returns the clicks by kind; with ``shots``, screenshots of the table and of the first round's end."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    clicks: dict[str, int] = {}
    shot_table = shot_round = shots is None
    deadline = time.monotonic() + 400
    while stop_after is None or sum(clicks.values()) < stop_after:
        assert time.monotonic() < deadline, f"the match did not end by clicking ({clicks})"
        try:
            what, element = driver.execute_script(_NEXT_CLICK)
            if what == "end":
                break
            if element is None:
                time.sleep(0.05)
                continue
            if what in ("card", "button") and not shot_table and shots is not None:
                screenshot(driver, shots, "play-table")
                shot_table = True
            if what == "round" and not shot_round and shots is not None:
                screenshot(driver, shots, "play-round-end")
                shot_round = True
            element.click()
            clicks[what] = clicks.get(what, 0) + 1
        except (StaleElementReferenceException, WebDriverException) as error:
            text = str(error).lower()
            if not any(why in text for why in ("stale", "not interactable", "click intercepted")):
                raise
            time.sleep(0.05)
    return clicks


def test_a_reload_in_the_middle_of_a_match_shows_it_again_and_play_goes_on(arena_web: ArenaWeb) -> None:
    from selenium.webdriver.support.ui import Select

    url, store = arena_web.url, arena_web.store
    with browser() as driver:
        driver.get(f"{url}/play")
        Select(driver.find_element("id", "target")).select_by_value("50")
        driver.find_element("id", "start").click()
        wait_until(lambda: "/play/" in driver.current_url and driver.find_elements("id", "game"), 30, "the game page")
        game_url = driver.current_url + "?step=0"
        driver.get(game_url)
        match_id = driver.find_element("id", "game").get_attribute("data-match")
        play_by_clicking(driver, stop_after=6)
        before: list[dict[str, Any]] = driver.execute_script("return window.__received")
        driver.get(game_url)  # the page is opened again: what came before is shown at once, then the stream
        wait_until(lambda: len(driver.execute_script("return window.__received")) >= len(before), 30, "the catch-up")
        again: list[dict[str, Any]] = driver.execute_script("return window.__received")
        assert again[:len(before)] == before, "the reloaded page did not get the same messages from the start"
        assert driver.execute_script("return document.getElementById('overlay').hidden"), "a past round's dialog"
        play_by_clicking(driver)
        wait_until(lambda: driver.execute_script("return window.__closed === true"), 30, "the stream to close")
        received: list[dict[str, Any]] = driver.execute_script("return window.__received")
    stored = stored_json(store.replays.load(match_id))
    assert stored is not None
    assert check_messages(received, stored)["end"] == 1


def test_the_table_fits_a_phone(arena_web: ArenaWeb, shots: Path) -> None:
    from selenium.webdriver.common.by import By

    url = arena_web.url
    with browser() as driver:
        # Headless Chromium keeps its window at least 500 px wide: a phone's viewport is emulated instead.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        driver.get(f"{url}/play")
        driver.find_element(By.ID, "start").click()
        wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#hand .hand-card"), 30, "the hand to be dealt")
        wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#actions [data-action-index], #hand .playable"), 30,
                   "a decision")
        width = driver.execute_script("return document.documentElement.scrollWidth")
        assert width <= 390, f"the table is {width} px wide on a 390 px phone"
        screenshot(driver, shots, "play-phone")


def test_a_connected_bot_plays_against_a_person_through_the_relay(arena_web: ArenaWeb) -> None:
    """The remote path without a browser: a kit bot connected to the arena's gateway is offered as an opponent and
    plays its seat through the relay, like in a tournament; the person plays over the JSON API."""
    import httpx

    from bots import HeuristicBot
    from tests.support.bots import ThreadBot

    arena, url = arena_web.arena, arena_web.url
    token = arena.register("relaybot")
    # Its Hello accepts human games: the web front offers it as an opponent.
    with ThreadBot(arena.address, token, HeuristicBot, human_games=True), \
            httpx.Client(base_url=url, timeout=30) as http:
        wait_until(lambda: "relaybot" in arena.connected(), 30, "the bot to connect")
        offered = [o["id"] for o in http.get("/api/play").json()["opponents"]]
        assert "remote:relaybot" in offered
        game = http.post("/api/play", json={"opponents": ["remote:relaybot", "random"], "target": 100}).json()
        headers = {"X-Play-Token": game["token"]}
        received: list[dict[str, Any]] = []
        while not received or received[-1]["type"] != "closed":
            body = http.get(f"/api/play/{game['id']}/messages", headers=headers,
                            params={"after": len(received), "wait": 10}).json()
            for message in body["messages"]:
                received.append(message)
                if message["type"] == "decide":
                    answered = http.post(f"/api/play/{game['id']}/action", headers=headers,
                                         json={"index": 0, "decision": message["decision_number"]})
                    assert answered.status_code == 200, answered.text
    end = received[-2]
    assert end["type"] == "end" and end["end_reason"] == "target", end
    stored = stored_json(arena_web.store.replays.load(game["match_id"]))
    assert stored is not None and stored["seats"] == ["you", "relaybot", "random"]
    assert stored["strikes"][1] == 0 and stored["timeouts"][1] == 0, "the remote bot did not answer in time"
    assert set(stored["outcomes"]) <= {"a"}, "every decision was answered, none played by the arena"
    check_messages(received, stored)
