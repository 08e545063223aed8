"""The replay viewer's frames built a page at a time (pure: a match played here, its organizer ``Replay`` messages):
a walk resumed page after page, pages built afresh in any order and one walk over the whole match give the same
frames; the index (how many frames, which decision each shows) needs no walk; and the web front's caches are
bounded by bytes."""

from __future__ import annotations

import asyncio

import pytest

from arena.engine import Rules
from arena.runner import LocalSeat, MatchConfig, MatchRunner
from arena.server.api_messages import replay_message
from arena.service.replays import stored_record
from arena.web.reader import _Lru
from arena.web.replay_frames import PAGE_FRAMES, FrameWalk, frame_page, replay_index
from bots import make_bot


@pytest.fixture(scope="module")
def stored() -> object:
    config = MatchConfig(match_id="t.m1", seed=11, rules=Rules(target=200))
    runner = MatchRunner(config, [LocalSeat(make_bot("random", 1), name="a"),
                                  LocalSeat(make_bot("heuristic", 2), name="b")])
    return stored_record(asyncio.run(runner.run()))


@pytest.mark.parametrize("viewer", [None, 1])
def test_pages_resumed_or_afresh_give_the_frames_of_one_walk(stored: object, viewer: int | None) -> None:
    omniscient = replay_message(stored, None, None)  # type: ignore[arg-type]
    view = None if viewer is None else replay_message(stored, None, viewer)  # type: ignore[arg-type]
    frames = replay_index(omniscient, view)
    assert frames.count == 1 + len(omniscient.steps) > 2 * PAGE_FRAMES, "the match should span several pages"
    whole = FrameWalk(frames).build(0, frames.count)
    assert [frame["number"] for frame in whole] == list(range(frames.count))
    pages = range((frames.count + PAGE_FRAMES - 1) // PAGE_FRAMES)
    resumed, walker = [], None
    for page in pages:
        built, walker = frame_page(frames, page, walker)
        resumed += built
    assert walker is not None and walker.done and resumed == whole
    for page in reversed(pages):  # afresh, backwards: a walk that stands past the page is not used
        built, _ = frame_page(frames, page, walker)
        assert built == whole[page * PAGE_FRAMES:(page + 1) * PAGE_FRAMES]
    decision = omniscient.steps[10].decision_number
    assert frames.step_of(decision) == 11 and whole[11]["decision"]["number"] == decision
    past = (frames.count // PAGE_FRAMES + 1) * PAGE_FRAMES
    with pytest.raises(ValueError, match=rf"step {past} is not a step of match t\.m1 \(0 to {frames.count - 1}\)"):
        frame_page(frames, past // PAGE_FRAMES)


def test_the_caches_are_bounded_by_bytes() -> None:
    cache = _Lru(100, len)
    for key in "abcd":
        cache.put(key, key * 30)  # 30 bytes each: the fourth pushes the first out
    assert cache.total == 90 and cache.take("a") is None and cache.get("b", lambda: "?") == "b" * 30
    assert cache.get("huge", lambda: "x" * 500) == "x" * 500 and cache.take("huge") is None  # answered, not kept
    assert cache.take("c") == "c" * 30 and cache.take("c") is None and cache.total == 60
