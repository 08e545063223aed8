"""The engine's identity guarantee that the fast encoder memoises on (Match.observation), and the encoder's
field positions derived from the engine's NamedTuples."""

from __future__ import annotations

from arena.engine import Match, Rules
from arena.engine.events import EVENT_FIELDS, Event, draw_event, pass_event, play_event
from arena.engine.observation import SCALAR_HEAD, SCALAR_TAIL, Observation
from arena.protocol.convert import observation_to_proto
from arena.protocol.encoding import observation_bytes


def test_unchanged_views_and_piles_are_the_same_objects() -> None:
    match = Match(players=4, seed=11, rules=Rules())
    first = match.observation(0)
    again = match.observation(0)
    assert first.opponents[0] is again.opponents[0] and first.discard is again.discard
    seat = match.current
    assert seat is not None
    match.apply(seat, match.legal_actions()[-1])  # draw (or pass): the pile is unchanged
    after = match.observation(0)
    assert after.discard is first.discard
    untouched = [view for view in after.opponents if view.seat != seat]
    assert all(any(view is old for old in first.opponents) for view in untouched)
    assert after == match.observation(0)  # equal values either way


def test_a_reduced_draw_event_is_one_object_for_every_seat() -> None:
    match = Match(players=3, seed=5, rules=Rules())
    seat = match.current
    assert seat is not None
    start = len(match.events)
    match.apply(seat, next(a for a in match.legal_actions() if a.kind == "draw"))
    others = [s for s in range(3) if s != seat]
    seen = [[e for e in match.observation(s, start).events if e.type == "draw"] for s in others]
    assert seen[0] and seen[0][0] is seen[1][0] and seen[0][0].cards == ()


def test_event_constructors_fill_the_fields_by_name() -> None:
    assert Event._fields == EVENT_FIELDS
    match = Match(players=2, seed=1, rules=Rules())
    card = match.observation(0).hand[0]
    assert play_event(1, card, "red", "uno") == Event("play", seat=1, card=card, color="red", detail="uno")
    assert pass_event(0) == Event("pass", seat=0)
    assert draw_event(0, (card,), (card.light,), "A1") == Event("draw", seat=0, count=1, cards=(card,),
                                                                faces=(card.light,), detail="A1")


def test_the_encoders_slices_are_the_scalar_runs_of_the_message() -> None:
    assert Observation._fields[SCALAR_HEAD] == ("seat", "players", "variant", "side", "direction", "decision",
                                                "current", "color", "top")
    assert Observation._fields[SCALAR_TAIL] == ("draw_size", "draw_top", "scores", "round", "dealer")
    match = Match(players=3, seed=9, rules=Rules(variant="classic"))
    obs = match.observation(1)
    assert observation_bytes(obs) == observation_to_proto(obs).SerializeToString()
