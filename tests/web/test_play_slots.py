"""Games against people never cost a tournament its bots (issue 22, from outside): anonymous visitors of the web
front start more games against a connected kit bot than it has match slots, and a tournament with that bot still
plays at once and normally. Every part is its own process (Redis, `serve`, one `worker`, `web`, two `bot run` kit
bots that accept games against people); the visitors are HTTP clients on their own loopback addresses.

- ``wide`` offers 4 slots: people get at most 2 of them (half its capacity); a visitor plays at most 2 games
  against connected bots at once (the third is a 429 naming the cap); a game past the bot's share is a 503 naming
  the bot; the tournament takes its free slots, and the people's games go on.
- ``single`` offers 1 slot, which a person holds when the tournament starts: the tournament's match takes it at
  once, the person's game ends with "single was called to a tournament match" (aborted, no strike).

Before the fix the 8 games against ``wide`` were all accepted (4 seated, 4 queued for its slots), the tournament's
match starts queued behind them, and the tournament did not finish."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.processes import Processes, cli_argv, free_port
from arena.service.lifecycle import create_tournament
from arena.store import Store
from arena.tournament import TournamentSpec
from arena.web.guard import prefix_of
from tests.support import wait_until
from tests.support.redis_server import PrivateRedis
from workers.celery_app import make_celery
from workers.enqueue import START_TASK

pytestmark = pytest.mark.integration

VISITORS = ("127.0.1.2", "127.0.2.2", "127.0.3.2")
"""Three visitors, each on a loopback address of its own /24 (the web front counts a client by its network prefix:
an IPv4 /24, an IPv6 /64)."""


def visitor(web: str, address: str) -> httpx.Client:
    return httpx.Client(base_url=web, transport=httpx.HTTPTransport(local_address=address), timeout=30.0)


def start_game(client: httpx.Client, opponent: str) -> httpx.Response:
    return client.post("/api/play", json={"variant": "flip", "opponents": [opponent], "target": 500})


def play_to_the_end(client: httpx.Client, game: dict[str, Any], timeout_s: float = 60.0) -> dict[str, Any]:
    """Answer every decision of the game with its first legal action until its ``end`` message; that message."""
    headers = {"X-Play-Token": game["token"]}
    seen: list[dict[str, Any]] = []

    def ended() -> dict[str, Any] | None:
        got = client.get(f"/api/play/{game['id']}/messages", params={"after": len(seen), "wait": 1.0},
                         headers=headers)
        assert got.status_code == 200, got.text
        for message in got.json()["messages"]:
            seen.append(message)
            if message["type"] == "end":
                return message
        last = seen[-1] if seen else None
        if last is not None and last["type"] == "decide":
            client.post(f"/api/play/{game['id']}/action", headers=headers,
                        json={"index": 0, "decision": last["decision_number"]})
        return None

    found = wait_until(ended, timeout_s, f"game {game['id']} to end", interval=0.05)
    assert found is not None
    return found


def test_games_against_people_never_hold_a_slot_a_tournament_needs(redis_server: PrivateRedis,
                                                                    tmp_path: Path) -> None:
    url = redis_server.url
    grpc_address, web = f"127.0.0.1:{free_port()}", free_port()
    store = Store.from_url(url)
    tokens = {name: store.bots.register(name)[1] for name in ("wide", "single")}
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ARENA_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.update(REDIS_URL=url)
    processes = Processes(tmp_path)
    visitors = {address: visitor(f"http://127.0.0.1:{web}", address) for address in VISITORS}

    def logs() -> str:
        return "\n".join(f"--- {name}.log\n{(tmp_path / f'{name}.log').read_text(errors='replace')[-1500:]}"
                         for name, _ in processes.children)

    try:
        processes.start("gateway", [*cli_argv(), "serve", "--address", grpc_address, "--metrics-port", "-1",
                                    "--gateway-id", "gw1", "--insecure-no-admin-token"], env)
        processes.start("worker", [*cli_argv(), "worker", "--concurrency", "1", "--metrics-port", "-1",
                                   "--hostname", "w1@%h"], env)
        processes.start("web", [*cli_argv(), "web", "--address", "127.0.0.1", "--port", str(web),
                                "--server", grpc_address], env)
        for name, slots in (("wide", 4), ("single", 1)):
            processes.start(f"bot-{name}", [*cli_argv(), "bot", "run", "random", "--target", grpc_address,
                                            "--token", tokens[name], "--max-concurrent", str(slots),
                                            "--human-games"], env)

        def offered() -> bool:
            processes.check_alive()
            answer = httpx.get(f"http://127.0.0.1:{web}/api/play", timeout=5.0)
            ids = {opponent["id"] for opponent in answer.json()["opponents"]}
            return {"remote:wide", "remote:single"} <= ids

        wait_until(offered, 90, "the web front to offer both connected bots", ignore=(httpx.HTTPError,),
                   details=logs)

        # 8 games (twice wide's capacity) against wide from three visitors, then one against single.
        first, second, third = (visitors[address] for address in VISITORS)
        answers = {address: [start_game(client, "remote:wide") for _ in range(3 if client is not third else 2)]
                   for address, client in visitors.items()}
        held = start_game(third, "remote:single")
        assert held.status_code == 201, held.text

        spec = TournamentSpec(tournament_id="rated", participants=("wide", "single"), variant="classic", deals=2,
                              seed=11, options={"target": 50})
        create_tournament(store, spec)
        make_celery(url).send_task(START_TASK, args=[spec.tournament_id])

        def finished() -> bool:
            processes.check_alive()
            return bool(store.results.recorded("rated")) and not store.results.missing("rated")

        wait_until(finished, 120, "the tournament's matches to be played while people hold games", details=logs)
        results = store.results.all("rated").values()
        assert results
        for stored in results:
            assert stored.result.end_reason == "target", stored.detail
            assert not stored.result.forfeits and not any(stored.result.strikes), stored
            assert not any(stored.timeouts) and "not connected" not in stored.detail
        assert store.incidents.recent("wide") == [] and store.incidents.recent("single") == []

        # The person who held single's only slot: the game ended, in plain words, unrated and without a strike.
        end = play_to_the_end(third, held.json())
        assert end["end_reason"] == "aborted"
        assert end["detail"].startswith("single was called to a tournament match: the game ends here"), end

        # Visitor 1 plays 2 games against wide (its share for people); its third is refused by its own cap.
        codes = {address: [answer.status_code for answer in got] for address, got in answers.items()}
        assert codes == {VISITORS[0]: [201, 201, 429], VISITORS[1]: [503, 503, 503], VISITORS[2]: [503, 503]}, codes
        assert answers[VISITORS[0]][2].json()["detail"].startswith(
            f"{prefix_of(VISITORS[0])} already plays 2 games against connected bots: at most 2 at once")
        for refused in (*answers[VISITORS[1]], *answers[VISITORS[2]]):
            assert refused.json()["detail"].startswith("wide has no slot free for a game against people now"), \
                refused.text
        for game in (answer.json() for answer in answers[VISITORS[0]][:2]):  # the tournament left them alone
            state = first.get(f"/api/play/{game['id']}/messages", headers={"X-Play-Token": game["token"]})
            assert state.json()["finished"] is False
        assert second.get("/api/play").status_code == 200
    finally:
        for client in visitors.values():
            client.close()
        processes.stop_all()
        store.close()
