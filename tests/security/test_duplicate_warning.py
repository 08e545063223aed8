"""Duplicate deals and remote bots (issue 23, item 6): unset, the arena plays them "across" (no bot sees a deal twice)
when a remote bot takes part; `tournament create` and `tournament schedule` warn only when rotations are asked for
explicitly with remote bots (a later seat order deals a bot's opponents the hands it was dealt before)."""

from __future__ import annotations

import pytest

from arena.cli import main
from arena.commands.tournaments import duplicate_warning
from arena.service.tournaments import duplicate_orders_for


def test_the_warning_names_the_remote_bots_of_a_rotated_duplicate_tournament_only() -> None:
    assert duplicate_warning(["random", "heuristic#2"], True, "rotate") == ""
    assert duplicate_warning(["mybot", "heuristic"], False, "rotate") == ""
    assert duplicate_warning(["mybot", "heuristic"], True, "") == ""  # the arena chooses "across"
    assert duplicate_warning(["mybot", "heuristic"], True, "across") == ""
    warning = duplicate_warning(["mybot", "heuristic", "other"], True, "rotate")
    assert warning.startswith("warning: --duplicate-orders rotate with remote bots (mybot, other)")
    assert "\n" not in warning and "--duplicate-orders across" in warning


def test_the_arena_plays_duplicates_across_tables_when_a_remote_bot_takes_part() -> None:
    assert duplicate_orders_for(["mybot", "heuristic"]) == "across"
    assert duplicate_orders_for(["random", "heuristic#2", "weakened"]) == "rotate"


def test_create_prints_it_before_calling_the_arena(capsys: pytest.CaptureFixture[str]) -> None:
    # No arena listens on this port: the warning is printed first, then the call fails with its own one line.
    args = ["tournament", "create", "--bots", "mybot,heuristic", "--duplicate", "--duplicate-orders", "rotate",
            "--target", "127.0.0.1:9"]
    assert main(args) != 0
    err = capsys.readouterr().err
    assert err.startswith("warning: --duplicate-orders rotate with remote bots (mybot)")


def test_a_bad_duplicate_orders_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["tournament", "create", "--bots", "mybot,heuristic", "--duplicate", "--duplicate-orders", "spin"])
    assert exit_info.value.code == 2
    assert "--duplicate-orders" in capsys.readouterr().err


def test_the_choice_travels_with_the_spec_so_verify_re_derives_the_same_schedule() -> None:
    from arena.protocol import arena_pb2
    from arena.protocol.specs import tournament_spec_from_proto, tournament_spec_to_proto

    msg = arena_pb2.TournamentSpec(participants=["mybot", "heuristic", "random"], duplicate_deals=True,
                                   deals_per_table=2)
    spec = tournament_spec_from_proto(msg, "t", duplicate_orders_for(msg.participants))
    assert spec.duplicate_orders == "across" and spec.shared_across_tables
    answered = tournament_spec_to_proto(spec)
    assert answered.duplicate_orders == "across"
    assert tournament_spec_from_proto(answered, "t") == spec  # what `tournament verify` reads back
    msg.duplicate_orders = "rotate"  # asked for explicitly: kept
    assert tournament_spec_from_proto(msg, "t", duplicate_orders_for(msg.participants)).duplicate_orders == "rotate"
