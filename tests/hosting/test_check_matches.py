"""What a bot under check sees of its matches (arena.conformance.checks.CheckMatches): a tournament's ids, fresh
random deals each check, built-in opponents under their own names; and the check's verdict names no host path."""

from __future__ import annotations

import re

from arena.conformance.checks import CheckMatches, _others
from arena.hosting.check import reason_of
from arena.store.tournament_store import new_tournament_id
from arena.tournament.schedule import match_id
from bots import BUILTIN_BOTS, make_bot

TOURNAMENT_MATCH = re.compile(r"t-[0-9a-f]{12}:d\d{4}:t\d{6}:r\d{2}")


def test_check_matches_are_shaped_as_a_tournament_s_and_dealt_afresh() -> None:
    assert TOURNAMENT_MATCH.fullmatch(match_id(new_tournament_id(), 3, 1, 0))
    first, second = CheckMatches(), CheckMatches()
    ids = [*first.next(), *first.next(tables=4), *first.next()]
    assert all(TOURNAMENT_MATCH.fullmatch(m) and m.startswith(first.tournament_id + ":") for m, _seed in ids)
    assert len({m for m, _ in ids}) == len(ids) == 6
    assert first.tournament_id != second.tournament_id
    assert [seed for _, seed in first.next()] != [seed for _, seed in second.next()]  # random deals each check


def test_the_opponents_are_built_in_bots_under_their_own_names() -> None:
    names = [seat.name for seat in _others(3, 5, make_bot)]
    assert names == ["heuristic", "weakened", "random"] and set(names) <= set(BUILTIN_BOTS)


def test_a_verdict_names_no_host_path_and_says_sigsys() -> None:
    output = ("started: /usr/bin/python -m arena.hosting.launch /srv/host/specs/b-1-check.json --socket "
              "/tmp/uno-host-x/gw-1.sock (pid 7)\nPASS connects: session open\nFAIL answers-in-time: the bot exited "
              "with code 159 during this check\nsome checks failed\n")
    reason = reason_of(output, False, 12.0, 90.0, ("/srv/host/specs/b-1-check.json", "/tmp/uno-host-x"))
    assert "/srv/host" not in reason and "uno-host" not in reason and "started:" not in reason
    assert "killed by SIGSYS: it made a system call the sandbox forbids" in reason
    assert reason.startswith("bot check in the sandbox failed (in 12 s; a check may take 90 s):")
