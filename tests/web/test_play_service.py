"""The service behind "Play against the bots" (arena.service.human_play): a person plays whole matches through the
session API, every message is checked against the engine (no card the seat may not see), the record is stored as
a replay, and bad answers, unknown games, wrong tokens, timeouts and a full service fail as they should."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from arena.engine import Match, Rules
from arena.service.human_play import (
    GROUP,
    BadAnswer,
    BadSetup,
    GameSetup,
    HumanPlayService,
    HumanSession,
    TooManyGames,
    UnknownSession,
    WrongToken,
)
from arena.service.replays import replay_steps
from arena.store import Replay, Store
from arena.web.play_routes import message_data
from bots import BUILTIN_BOTS, make_bot
from tests.web.play_checks import check_messages, rebuild, stored_json


async def play_through(session: HumanSession, choose: Any = None) -> list[dict[str, Any]]:
    """A scripted person: reads every message (as the page gets it) and answers each decision (the first legal
    action unless ``choose(message)`` says otherwise) until the game is closed."""
    after = 0
    while True:
        for message in await session.messages_after(after, 10.0):
            after = message["n"] + 1
            if message["type"] == "decide":
                index = 0 if choose is None else choose(message_data(message))
                session.answer(index, message["decision_number"])
            if message["type"] == "closed":
                return [message_data(m) for m in session.messages]
        assert session.task is not None
        if session.task.done() and after >= len(session.messages):
            return [message_data(m) for m in session.messages]


def play_game(service: HumanPlayService, setup: GameSetup, choose: Any = None) -> tuple[HumanSession, list[Any]]:
    async def main() -> tuple[HumanSession, list[Any]]:
        session = await service.start(setup)
        messages = await play_through(session, choose)
        assert session.task is not None
        await session.task
        return session, messages

    return asyncio.run(main())


def by_decision_number(message: dict[str, Any]) -> int:
    """A person who varies: the legal action numbered by the decision (so accepts, challenges, catches, passes and
    declined catches all happen)."""
    return int(message["decision_number"]) % len(message["legal"])


@pytest.mark.parametrize(("seed", "what"), [(987654321014, "challenges"), (987654321072, "catch offers")])
def test_a_whole_flip_match_shows_the_person_only_what_the_seat_may_see(store: Store, seed: int, what: str) -> None:
    service = HumanPlayService(store, make_bot=make_bot, new_seed=lambda: seed)
    setup = GameSetup("flip", ("heuristic", "random", "heuristic"), 200, "catch")
    session, messages = play_game(service, setup, by_decision_number)
    kinds = [message["type"] for message in messages]
    assert kinds[0] == "start" and kinds[-2:] == ["end", "closed"]
    end = messages[-2]
    assert end["end_reason"] == "target" and end["winner"] is not None
    assert end["replay"] == session.match_id

    stored = stored_json(store.replays.load(session.match_id))
    assert stored is not None, "the match record was not stored as a replay"
    assert stored["seats"] == ["you", "heuristic", "random", "heuristic"] and stored["group"] == GROUP
    assert stored["scores"] == end["scores"] and stored["seed"] == seed
    walk = replay_steps(Replay.from_dict(stored), 0)  # the replay viewers can walk it, as the person's seat saw it too
    assert len(walk.steps) >= kinds.count("decide") - len(stored["declined"])

    counts = check_messages(messages, stored)
    assert counts["decide"] == kinds.count("decide") > 20
    assert counts["events"] == stored["rounds"] - 1 >= 1 and counts["end"] == 1
    assert counts["hidden"] > 0, "no card was ever hidden from the person: the check proved nothing"
    decisions = [message["observation"]["decision"] for message in messages if message["type"] == "decide"]
    events = {event["type"] for message in messages if message.get("observation")
              for event in message["observation"]["events"]}
    if what == "challenges":
        assert "respond" in decisions and "reveal" in events, "the person never challenged and saw a hand (X1)"
    else:
        assert "catch" in decisions and stored["declined"], "the person was never offered a catch, or never declined"
    final = Match.from_replay(stored["replay"])
    assert final.decision == "match_over" and list(final.scores) == end["scores"]


def test_the_check_catches_a_card_the_seat_may_not_see(store: Store) -> None:
    service = HumanPlayService(store, make_bot=make_bot, new_seed=lambda: 987654321014)
    session, messages = play_game(service, GameSetup("flip", ("heuristic",), 100))
    stored = stored_json(store.replays.load(session.match_id))
    assert stored is not None
    decide = next(message for message in messages if message["type"] == "decide")
    match = rebuild(stored).at_decision[decide["decision_number"]]
    secret = str(match.hand(1)[0])
    leaky = copy.deepcopy(messages)
    leaky[decide["n"]]["observation"]["events"].append(
        {"type": "draw", "seat": 1, "card": None, "color": "", "count": 1, "cards": [{"text": secret}], "faces": [],
         "target": None, "detail": "", "text": ""})
    with pytest.raises(AssertionError, match="V4"):
        check_messages(leaky, stored)
    leaky = copy.deepcopy(messages)
    opponent = leaky[decide["n"]]["observation"]["opponents"][0]
    opponent["visible"] = [{"text": str(card.light)} for card in match.hand(1)]  # faces the seat must not see
    with pytest.raises(AssertionError, match="shows more than its backs"):
        check_messages(leaky, stored)
    leaky = copy.deepcopy(messages)
    leaky[decide["n"]]["seed"] = stored["seed"]
    with pytest.raises(AssertionError, match="unexpected fields"):
        check_messages(leaky, stored)


def test_a_classic_match_with_a_person_who_plays_whenever_possible(store: Store) -> None:
    def prefer_plays(message: dict[str, Any]) -> int:
        plays = [action["index"] for action in message["legal"] if action["kind"] == "play"]
        return plays[-1] if plays else 0

    service = HumanPlayService(store, make_bot=make_bot, new_seed=lambda: 987654321099)
    session, messages = play_game(service, GameSetup("classic", ("random", "heuristic"), 150), prefer_plays)
    stored = stored_json(store.replays.load(session.match_id))
    assert stored is not None and stored["rules"]["variant"] == "classic"
    counts = check_messages(messages, stored)
    assert counts["end"] == 1 and counts["hidden"] > 0
    for message in messages:
        if message["type"] == "decide":  # V6: classic opponents show only their counts
            assert all(opponent["visible"] == [] for opponent in message["observation"]["opponents"])


def test_without_a_store_the_record_stays_in_memory() -> None:
    service = HumanPlayService(make_bot=make_bot)
    session, messages = play_game(service, GameSetup("flip", ("random",), 50))
    record = stored_json(session.replay)
    assert record is not None and record["match_id"] == session.match_id
    assert messages[-2]["replay"] is None, "no replay page can show a record the arena's store does not hold"
    check_messages(messages, record)


def test_bad_answers_unknown_games_and_wrong_tokens_are_refused() -> None:
    async def main() -> None:
        service = HumanPlayService(make_bot=make_bot)
        session = await service.start(GameSetup("flip", ("heuristic",), 50))
        with pytest.raises(UnknownSession, match="no game 'nope'"):
            service.get("nope", session.token)
        with pytest.raises(WrongToken, match="does not belong"):
            service.get(session.id, "not-the-token")
        with pytest.raises(WrongToken):
            service.get(session.id, None)
        assert service.get(session.id, session.token) is session
        decide = next(m for m in await _wait_for(session, "decide") if m["type"] == "decide")
        count = len(decide["legal"])
        with pytest.raises(BadAnswer, match=rf"action index {count} is out of range: decision "
                                            rf"{decide['decision_number']} has {count} legal"):
            session.answer(count, decide["decision_number"])
        with pytest.raises(BadAnswer, match="out of range"):
            session.answer(-1)
        with pytest.raises(BadAnswer, match="whole number"):
            session.answer("0")
        with pytest.raises(BadAnswer, match="whole number"):
            session.answer(True)
        with pytest.raises(BadAnswer, match="is not the one waiting"):
            session.answer(0, decide["decision_number"] + 5)
        chosen = session.answer(0, decide["decision_number"])
        assert chosen == decide["legal"][0]
        with pytest.raises(BadAnswer, match=r"no decision is waiting|is not the one waiting"):
            session.answer(0, decide["decision_number"])
        await service.close()

    asyncio.run(main())


async def _wait_for(session: HumanSession, kind: str) -> list[dict[str, Any]]:
    while not any(message["type"] == kind for message in session.messages):
        await session.messages_after(len(session.messages), 5.0)
    return session.messages


def test_a_person_who_never_answers_gets_the_fallback_and_strikes_and_forfeits() -> None:
    service = HumanPlayService(make_bot=make_bot, human_deadline_s=0.01, max_strikes=2)

    async def main() -> HumanSession:
        session = await service.start(GameSetup("flip", ("random",), 50))
        assert session.task is not None
        await session.task
        return session

    session = asyncio.run(main())
    kinds = [message["type"] for message in session.messages]
    timeouts = [m for m in session.messages if m["type"] == "answered" and m.get("timeout")]
    assert len(timeouts) == 2 and kinds.count("decide") == 2, "after 2 strikes the person is not asked any more"
    end = session.messages[-2]
    assert end["end_reason"] == "forfeit" and "seat 0 (you) forfeited: 2 strikes (2 timeouts)" in end["detail"]
    record = stored_json(session.replay)
    assert record is not None and record["forfeits"] == [0] and record["outcomes"].count("t") == 2
    check_messages([message_data(m) for m in session.messages], record)


def test_setups_are_checked_and_the_service_is_bounded() -> None:
    with pytest.raises(BadSetup, match="1 seats: a game has 2 to 4 seats"):
        GameSetup.from_json({"opponents": []})
    with pytest.raises(BadSetup, match="5 seats"):
        GameSetup.from_json({"opponents": ["random"] * 4})
    with pytest.raises(BadSetup, match="unknown field"):
        GameSetup.from_json({"seed": 3})
    with pytest.raises(BadSetup, match="target must be a whole number"):
        GameSetup.from_json({"target": 0})
    with pytest.raises(BadSetup, match="rule option variant='poker'"):
        GameSetup.from_json({"variant": "poker"})
    assert GameSetup.from_json({"opponents": ["random", "heuristic"]}).opponents == ("random", "heuristic")
    assert GameSetup.from_json({"target": 100}).target == 100
    assert GameSetup.from_json({}).rules() == Rules(target=500)

    async def main() -> None:
        service = HumanPlayService(make_bot=make_bot, max_sessions=1, retain_s=60.0, idle_s=600.0)
        with pytest.raises(BadSetup, match="unknown built-in bot 'nobody'"):
            await service.start(GameSetup("flip", ("nobody",)))
        with pytest.raises(BadSetup, match="remote bots need a store"):
            await service.start(GameSetup("flip", ("remote:somebot",)))
        first = await service.start(GameSetup("flip", ("random",), 50))
        with pytest.raises(TooManyGames, match="1 games are being played"):
            await service.start(GameSetup("flip", ("random",), 50))
        await play_through(first)
        assert first.task is not None
        await first.task
        second = await service.start(GameSetup("flip", ("random",), 50))  # a finished game leaves room
        assert len(service) == 2
        assert first.ended_at is not None
        assert service.prune(now=first.ended_at + 61.0) == 1  # the finished one is kept 60 s, then dropped
        with pytest.raises(UnknownSession):
            service.get(first.id, first.token)
        assert service.prune(now=second.last_active + 601.0) == 1  # an idle live game is dropped, its match ended
        assert second.task is not None
        with pytest.raises(asyncio.CancelledError):
            await second.task
        assert len(service) == 0
        await service.close()

    asyncio.run(main())


def test_remote_opponents_are_the_connected_bots_that_accept_human_games(store: Store) -> None:
    store.bots.register("relaybot")
    store.bots.register("sleepy")
    store.bots.register("ratedonly")
    store.sessions.open("relaybot", "gateway-1")
    store.sessions.open("ratedonly", "gateway-1")
    store.bots.set_human_games("relaybot", True)  # its Hello accepted human games; ratedonly's did not
    store.bots.set_human_games("sleepy", True)  # but it is not connected
    service = HumanPlayService(store, make_bot=make_bot)
    ids = [opponent.id for opponent in service.opponents()]
    assert ids == [*sorted(BUILTIN_BOTS), "remote:relaybot"], "only connected bots that accept human games"
    only_listed = HumanPlayService(store, make_bot=make_bot, remote_bots=lambda: ["sleepy"])
    assert [o.id for o in only_listed.opponents() if o.remote] == ["remote:sleepy"]

    async def main() -> None:
        with pytest.raises(BadSetup, match="no connected bot 'sleepy' accepts human games"):
            await service.start(GameSetup("flip", ("remote:sleepy",)))

    asyncio.run(main())
