"""docs/protocol.md is generated from the .proto files' comments and kept up to date (`python -m
tools.proto_reference` writes it, `--check` says whether it is stale), and it lists the whole contract."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from arena.protocol import arena_pb2, bot_pb2, cards_pb2, game_pb2
from tools import proto_reference as reference

PAGE_TEXT = reference.PAGE.read_text(encoding="utf-8")


def test_the_committed_page_is_what_the_proto_files_make() -> None:
    assert reference.render() == PAGE_TEXT, (
        "docs/protocol.md is stale: regenerate it with `python -m tools.proto_reference`")


@pytest.mark.integration
def test_the_check_command_says_up_to_date() -> None:
    done = subprocess.run([sys.executable, "-m", "tools.proto_reference", "--check"], capture_output=True,
                          text=True, timeout=120, cwd=reference.REPO_ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "docs/protocol.md is up to date"


@pytest.mark.parametrize("module", [bot_pb2, game_pb2, cards_pb2, arena_pb2], ids=lambda m: m.__name__)
def test_every_service_message_field_and_enum_value_is_on_the_page(module: object) -> None:
    descriptor = module.DESCRIPTOR  # type: ignore[attr-defined]
    sections = dict(re.findall(r"^### (\S+)\n(.*?)(?=^##|\Z)", PAGE_TEXT, flags=re.MULTILINE | re.DOTALL))
    assert descriptor.message_types_by_name and f"## {descriptor.name.rsplit('/', 1)[-1]}" in PAGE_TEXT
    for service in descriptor.services_by_name.values():
        assert all(f"| `{method.name}` |" in sections[service.name] for method in service.methods), service.name
    for message in descriptor.message_types_by_name.values():
        missing = [f.name for f in message.fields if f"| `{f.name}` | {f.number} |" not in sections[message.name]]
        assert not missing, f"{message.name}: fields not on the page: {missing}"
    for enum in descriptor.enum_types_by_name.values():
        missing = [v.name for v in enum.values if f"| `{v.name}` | {v.number} |" not in sections[enum.name]]
        assert not missing, f"{enum.name}: values not on the page: {missing}"


def test_comments_become_markdown_with_markup_escaped_outside_code() -> None:
    comment = ("The steps:\n  1. bot -> Hello (a *star*);\n     still the first step\n  2. done\n\n"
               "A `code_span<x>` stays.")
    assert reference.prose(comment) == (
        "The steps:\n1. bot -&gt; Hello (a \\*star\\*); still the first step\n2. done\n\nA `code_span<x>` stays.")
    assert reference.cell("one | two\n\nthree_four") == "one \\| two three\\_four"
    assert reference.cell("") == "&nbsp;"


def test_a_field_links_to_its_type_within_the_page() -> None:
    assert "| `hello` | 1 | [`Hello`](#hello) |" in PAGE_TEXT
    assert "`google.rpc.Status`" in PAGE_TEXT
    assert "repeated [`BotMessage`](#botmessage)" in PAGE_TEXT
