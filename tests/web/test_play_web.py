"""The HTTP side of "Play against the bots" (arena.web.play_routes): the form, the JSON API, the stream of the seat's
messages, the answers and their errors, played through a real ASGI app with FastAPI's test client."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi.testclient import TestClient

from arena.service.human_play import HumanPlayService
from arena.store import Store
from arena.web import play_routes as play
from arena.web.app import STATIC_DIR, templates
from bots import make_bot
from tests.web.play_checks import check_messages, stored_json


def play_app(service: HumanPlayService) -> FastAPI:
    """The play pages alone, on the web front's templates and static files."""
    app = FastAPI()
    app.state.templates = templates()
    app.state.human_play = service
    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")
    play.install(app)
    return app


@pytest.fixture
def client(store: Store) -> Iterator[TestClient]:
    service = HumanPlayService(store, make_bot=make_bot, new_seed=lambda: 987654321005)
    with TestClient(play_app(service)) as test_client:
        yield test_client


XSS = "<script>alert(1)</script>"


def test_the_form_offers_variants_seats_and_opponents_and_starts_a_game_without_javascript(store: Store) -> None:
    # names are escaped wherever they come from
    service = HumanPlayService(store, make_bot=make_bot, remote_bots=lambda: [XSS])
    with TestClient(play_app(service)) as client:
        _form_and_start(client)


def _form_and_start(client: TestClient) -> None:
    page = client.get("/play")
    assert page.status_code == 200
    html = page.text
    assert 'name="variant" value="flip"' in html and 'name="variant" value="classic"' in html
    assert all(f'<option value="{n}"' in html for n in (2, 3, 4))
    assert 'value="heuristic"' in html and 'value="random"' in html
    assert XSS not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    options = client.get("/api/play").json()
    assert {"id": f"remote:{XSS}", "label": f"{XSS} (connected bot)", "remote": True} in options["opponents"]

    started = client.post("/play", content="variant=classic&seats=3&opponent1=random&opponent2=heuristic&"
                                           "opponent3=random&target=50&uno_penalty=auto",
                          headers={"Content-Type": "application/x-www-form-urlencoded"}, follow_redirects=False)
    assert started.status_code == 303
    game_url = started.headers["location"]
    session_id = game_url.rsplit("/", 1)[1]
    assert client.cookies.get(play.COOKIE_PREFIX + session_id)
    game = client.get(game_url)
    assert game.status_code == 200 and f'data-session="{session_id}"' in game.text
    first = client.get(f"/api/play/{session_id}/messages", params={"wait": 5}).json()["messages"][0]
    assert first["type"] == "start" and first["seats"] == ["you", "random", "heuristic"]
    assert first["rules"]["variant"] == "classic" and first["rules"]["target"] == 50

    refused = client.post("/play", content="seats=9&target=50",
                          headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert refused.status_code == 400 and "9 seats: a game has 2 to 4 seats" in refused.text


def _play_over_http(client: TestClient, session_id: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    after = 0
    received: list[dict[str, Any]] = []
    while True:
        body = client.get(f"/api/play/{session_id}/messages", params={"after": after, "wait": 5},
                          headers=headers).json()
        for message in body["messages"]:
            received.append(message)
            after = message["n"] + 1
            if message["type"] == "decide":
                answer = client.post(f"/api/play/{session_id}/action", headers=headers,
                                     json={"index": 0, "decision": message["decision_number"]})
                assert answer.status_code == 200, answer.text
                assert answer.json()["action"] == message["legal"][0]["text"]
        if received and received[-1]["type"] == "closed":
            return received


def test_a_whole_match_over_the_json_api_with_its_errors(client: TestClient, store: Store) -> None:
    started = client.post("/api/play", json={"variant": "flip", "opponents": ["heuristic"], "target": 100})
    assert started.status_code == 201
    game = started.json()
    session_id, token = game["id"], game["token"]
    assert game["url"] == f"/play/{session_id}" and game["match_id"].startswith("human-")
    client.cookies.clear()  # from here on, the token header only
    headers = {play.TOKEN_HEADER: token}

    assert client.get(f"/api/play/{session_id}/messages").status_code == 403
    wrong = client.get(f"/api/play/{session_id}/messages", headers={play.TOKEN_HEADER: "guess"})
    assert wrong.status_code == 403 and "does not belong" in wrong.json()["detail"]
    unknown = client.post("/api/play/nosuchgame/action", headers=headers, json={"index": 0})
    assert unknown.status_code == 404 and "no game 'nosuchgame'" in unknown.json()["detail"]
    assert client.get("/play/nosuchgame").status_code == 404

    messages = client.get(f"/api/play/{session_id}/messages", params={"wait": 5}, headers=headers).json()["messages"]
    while not any(message["type"] == "decide" for message in messages):
        messages = client.get(f"/api/play/{session_id}/messages", params={"wait": 5},
                              headers=headers).json()["messages"]
    decide = next(message for message in messages if message["type"] == "decide")
    count = len(decide["legal"])
    bad = client.post(f"/api/play/{session_id}/action", headers=headers, json={"index": count})
    assert bad.status_code == 400
    assert bad.json()["detail"] == (f"action index {count} is out of range: decision {decide['decision_number']} "
                                    f"has {count} legal action{'s' if count != 1 else ''} (0 to {count - 1})")
    for body, problem in (({"index": "first"}, "whole number"), ({}, "must name the action"),
                          ({"index": 0, "decision": 999}, "is not the one waiting")):
        refused = client.post(f"/api/play/{session_id}/action", headers=headers, json=body)
        assert refused.status_code == 400 and problem in refused.json()["detail"], refused.text
    garbled = client.post(f"/api/play/{session_id}/action", headers=headers, content=b"{not json")
    assert garbled.status_code == 400 and "must be JSON" in garbled.json()["detail"]

    early = client.get(f"/api/play/{session_id}/record", headers=headers)
    assert early.status_code == 409 and "not over" in early.json()["detail"]
    received = _play_over_http(client, session_id, headers)
    end = received[-2]
    assert end["type"] == "end" and end["replay"] == game["match_id"]
    late = client.post(f"/api/play/{session_id}/action", headers=headers, json={"index": 0})
    assert late.status_code == 400 and "the match is over" in late.json()["detail"]
    stored = stored_json(store.replays.load(game["match_id"]))
    assert stored is not None
    assert client.get(f"/api/play/{session_id}/record", headers=headers).json() == stored
    assert client.get(f"/api/play/{session_id}/record").status_code == 403
    counts = check_messages(received, stored)
    assert counts["end"] == 1 and counts["hidden"] > 0


def test_the_stream_sends_every_message_as_a_server_sent_event_and_resumes(client: TestClient,
                                                                          store: Store) -> None:
    game = client.post("/api/play", json={"opponents": ["random"], "target": 50}).json()
    session_id = game["id"]
    _play_over_http(client, session_id, {})  # the cookie set at the start carries the token
    with client.stream("GET", f"/api/play/{session_id}/stream") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        text = "".join(response.iter_text())
    ids = [int(found) for found in re.findall(r"^id: (\d+)$", text, re.MULTILINE)]
    data = [json.loads(found) for found in re.findall(r"^data: (.*)$", text, re.MULTILINE)]
    assert ids == list(range(len(data))) and data[-1]["type"] == "closed"
    stored = stored_json(store.replays.load(game["match_id"]))
    assert stored is not None
    check_messages(data, stored)
    with client.stream("GET", f"/api/play/{session_id}/stream", headers={"Last-Event-ID": str(len(data) - 3)}) as again:
        resumed = [json.loads(found) for found in re.findall(r"^data: (.*)$", "".join(again.iter_text()),
                                                                re.MULTILINE)]
    assert [message["n"] for message in resumed] == [len(data) - 2, len(data) - 1]
