"""The protocol reference page, docs/protocol.md, generated from the comments of proto/uno_arena/v1/*.proto.

    python -m tools.proto_reference          # rewrite docs/protocol.md from proto/
    python -m tools.proto_reference --check  # exit 1 when the committed page is stale

Every service, method, message, field, enum and value is listed with the comment protoc's source information gives
it, so the page says what the .proto files say and a test keeps it from drifting.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import descriptor_pb2

from tools.proto_code import PROTO_ROOT, REPO_ROOT, proto_files, run_protoc

PAGE = REPO_ROOT / "docs" / "protocol.md"
COMMAND = "python -m tools.proto_reference"
FILE_ORDER = ("bot.proto", "game.proto", "cards.proto", "arena.proto")
"""Bot authors read the bot protocol first; files not named here follow in name order."""

# Field numbers of descriptor.proto, the path elements of SourceCodeInfo locations.
_FILE_MESSAGE, _FILE_ENUM, _FILE_SERVICE, _FILE_SYNTAX = 4, 5, 6, 12
_MESSAGE_FIELD, _MESSAGE_NESTED, _MESSAGE_ENUM = 2, 3, 4
_ENUM_VALUE, _SERVICE_METHOD = 2, 2

_SCALARS = {value.number: value.name.removeprefix("TYPE_").lower()
            for value in descriptor_pb2.FieldDescriptorProto.Type.DESCRIPTOR.values
            if value.name not in ("TYPE_GROUP", "TYPE_MESSAGE", "TYPE_ENUM")}
_LIST_ITEM = re.compile(r"^(\d+\.|-)\s")
_CODE_SPAN = re.compile(r"(`[^`]*`)")
_MARKDOWN_SPECIAL = str.maketrans({"<": "&lt;", ">": "&gt;", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]",
                                   "|": "\\|", "\\": "\\\\"})


Comments = defaultdict[tuple[int, ...], str]
"""The comments of one .proto file, by SourceCodeInfo path ("" where there is none)."""


def _comments(file: descriptor_pb2.FileDescriptorProto) -> Comments:
    found: Comments = defaultdict(str)
    for location in file.source_code_info.location:
        parts = [*location.leading_detached_comments, location.leading_comments, location.trailing_comments]
        text = "\n\n".join(part.strip("\n") for part in parts if part.strip())
        if text:
            found[tuple(location.path)] = text
    return found


def descriptor_set() -> descriptor_pb2.FileDescriptorSet:
    """The contract compiled by protoc, with source information (comments)."""
    files = proto_files()
    if not files:
        raise RuntimeError(f"no .proto files found under {PROTO_ROOT}")
    with tempfile.TemporaryDirectory(prefix="uno-arena-protoc-") as tmp:
        out = Path(tmp) / "contract.pb"
        run_protoc([f"--descriptor_set_out={out}", "--include_source_info", *(str(f) for f in files)])
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def _ordered(files: Sequence[descriptor_pb2.FileDescriptorProto]) -> list[descriptor_pb2.FileDescriptorProto]:
    def key(file: descriptor_pb2.FileDescriptorProto) -> tuple[int, str]:
        name = Path(file.name).name
        return (FILE_ORDER.index(name) if name in FILE_ORDER else len(FILE_ORDER), name)

    return sorted(files, key=key)


def _escape(text: str) -> str:
    """``text`` as markdown: what would be markup is escaped, `code spans` are kept as they are."""
    return "".join(part if _CODE_SPAN.fullmatch(part) else part.translate(_MARKDOWN_SPECIAL)
                   for part in _CODE_SPAN.split(text))


def _blocks(comment: str) -> Iterator[str]:
    """A comment's paragraphs and list items, each on one line (list items keep their marker)."""
    current: list[str] = []
    for raw in [*comment.splitlines(), ""]:
        line = raw.strip()
        if not line or _LIST_ITEM.match(line):
            if current:
                yield " ".join(current)
            current = [line] if line else []
        else:
            current.append(line)


def prose(comment: str) -> str:
    """A block comment as markdown paragraphs and lists."""
    out: list[str] = []
    for block in _blocks(comment):
        item = _LIST_ITEM.match(block)
        if item:  # a list item keeps its marker
            out.append(f"{item.group(1)} {_escape(block[item.end():])}")
        else:
            if out:
                out.append("")
            out.append(_escape(block))
    return "\n".join(out)


def cell(comment: str) -> str:
    """A comment as one table cell."""
    return " ".join(_escape(block) for block in _blocks(comment)) or "&nbsp;"


def _anchor(heading: str) -> str:
    """The anchor of a heading (GitHub's and the site's: lower case, punctuation dropped, spaces to hyphens)."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


@dataclass(frozen=True)
class Contract:
    """The package's own type names (to link a field's type to its section)."""

    package: str
    own_types: frozenset[str]

    def type_name(self, field: descriptor_pb2.FieldDescriptorProto) -> str:
        if field.type in _SCALARS:
            return f"`{_SCALARS[field.type]}`"
        name = field.type_name.lstrip(".")
        if name in self.own_types:
            short = name.removeprefix(f"{self.package}.")
            return f"[`{short}`](#{_anchor(short)})"
        return f"`{name}`"


def _label(field: descriptor_pb2.FieldDescriptorProto) -> str:
    if field.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED:
        return "repeated "
    if field.proto3_optional:
        return "optional "
    return ""


def _oneof(field: descriptor_pb2.FieldDescriptorProto, message: descriptor_pb2.DescriptorProto) -> str:
    if not field.HasField("oneof_index") or field.proto3_optional:
        return ""
    return f"one of `{message.oneof_decl[field.oneof_index].name}`: "


def _reserved(message: descriptor_pb2.DescriptorProto) -> str:
    numbers = [str(r.start) if r.end - r.start == 1 else f"{r.start}-{r.end - 1}" for r in message.reserved_range]
    names = [f"`{name}`" for name in message.reserved_name]
    parts = ([f"numbers {', '.join(numbers)}"] if numbers else []) + ([f"names {', '.join(names)}"] if names else [])
    return f"Reserved (retired): {'; '.join(parts)}." if parts else ""


def _described(head: list[str], comment: str) -> list[str]:
    """``head`` (a heading), then ``comment`` as paragraphs when there is one."""
    return [*head, "", *([prose(comment), ""] if comment else [])]


def _message(contract: Contract, comments: Comments, message: descriptor_pb2.DescriptorProto,
             path: tuple[int, ...], prefix: str) -> list[str]:
    name = f"{prefix}{message.name}"
    lines = _described([f"### {name}"], comments[path])
    if message.field:
        lines += ["| field | number | type | description |", "| --- | --- | --- | --- |"]
        for index, field in enumerate(message.field):
            text = _oneof(field, message) + cell(comments[(*path, _MESSAGE_FIELD, index)])
            lines.append(f"| `{field.name}` | {field.number} | {_label(field)}{contract.type_name(field)} "
                         f"| {text} |")
        lines.append("")
    else:
        lines += ["No fields.", ""]
    if _reserved(message):
        lines += [_reserved(message), ""]
    for index, enum in enumerate(message.enum_type):
        lines += _enum(comments, enum, (*path, _MESSAGE_ENUM, index), f"{name}.")
    for index, nested in enumerate(message.nested_type):
        lines += _message(contract, comments, nested, (*path, _MESSAGE_NESTED, index), f"{name}.")
    return lines


def _enum(comments: Comments, enum: descriptor_pb2.EnumDescriptorProto, path: tuple[int, ...],
          prefix: str) -> list[str]:
    lines = _described([f"### {prefix}{enum.name}"], comments[path])
    lines += ["| value | number | description |", "| --- | --- | --- |"]
    for index, value in enumerate(enum.value):
        lines.append(f"| `{value.name}` | {value.number} | {cell(comments[(*path, _ENUM_VALUE, index)])} |")
    return [*lines, ""]


def _service(contract: Contract, comments: Comments, service: descriptor_pb2.ServiceDescriptorProto,
             path: tuple[int, ...]) -> list[str]:
    lines = _described([f"### {service.name}"], comments[path])
    lines += ["| method | request | response | description |", "| --- | --- | --- | --- |"]
    for index, method in enumerate(service.method):
        request = _method_type(contract, method.input_type, method.client_streaming)
        response = _method_type(contract, method.output_type, method.server_streaming)
        text = cell(comments[(*path, _SERVICE_METHOD, index)])
        lines.append(f"| `{method.name}` | {request} | {response} | {text} |")
    return [*lines, ""]


def _method_type(contract: Contract, type_name: str, streaming: bool) -> str:
    field = descriptor_pb2.FieldDescriptorProto(type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
                                                type_name=type_name)
    return ("stream " if streaming else "") + contract.type_name(field)


def _file(contract: Contract, file: descriptor_pb2.FileDescriptorProto) -> list[str]:
    comments = _comments(file)
    lines = _described([f"## {Path(file.name).name}", "", f"`proto/{file.name}`"], comments[(_FILE_SYNTAX,)])
    for index, service in enumerate(file.service):
        lines += _service(contract, comments, service, (_FILE_SERVICE, index))
    for index, message in enumerate(file.message_type):
        lines += _message(contract, comments, message, (_FILE_MESSAGE, index), "")
    for index, enum in enumerate(file.enum_type):
        lines += _enum(comments, enum, (_FILE_ENUM, index), "")
    return lines


def _type_names(files: Sequence[descriptor_pb2.FileDescriptorProto]) -> frozenset[str]:
    names: set[str] = set()

    def add(prefix: str, messages: Sequence[descriptor_pb2.DescriptorProto],
            enums: Sequence[descriptor_pb2.EnumDescriptorProto]) -> None:
        names.update(f"{prefix}.{enum.name}" for enum in enums)
        for message in messages:
            names.add(f"{prefix}.{message.name}")
            add(f"{prefix}.{message.name}", message.nested_type, message.enum_type)

    for file in files:
        add(file.package, file.message_type, file.enum_type)
    return frozenset(names)


def render(contract_files: descriptor_pb2.FileDescriptorSet | None = None) -> str:
    """The whole page, as markdown."""
    files = _ordered(list((contract_files or descriptor_set()).file))
    packages = sorted({file.package for file in files})
    contract = Contract(packages[0] if len(packages) == 1 else "", _type_names(files))
    lines = [
        "# Protocol reference",
        "",
        "<!-- Generated from the comments of proto/uno_arena/v1/*.proto by "
        f"`{COMMAND}`: edit the .proto files, then run it. -->",
        "",
        f"Package `{', '.join(packages)}`, every message, field, enum and service of the contract with the comment "
        "the `.proto` files give it. The page is generated from those files (a test fails when it is stale), so it "
        "says what the contract says. Fields are only ever added; a retired number is reserved. A rule id the "
        "comments cite (`V1`, `E4`, from RULES.md, the rules contract) is explained in "
        "[the rules reference](rules.md).",
        "",
        "Files: " + ", ".join(f"[{Path(f.name).name}](#{_anchor(Path(f.name).name)})" for f in files) + ".",
        "",
    ]
    for file in files:
        lines += _file(contract, file)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when docs/protocol.md differs from what proto/ makes")
    args = parser.parse_args(argv)
    page = render()
    current = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else None
    if args.check:
        if current == page:
            print(f"{PAGE.relative_to(REPO_ROOT)} is up to date")
            return 0
        print(f"{PAGE.relative_to(REPO_ROOT)} is stale: regenerate it with `{COMMAND}`", file=sys.stderr)
        return 1
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(REPO_ROOT)}" + (" (unchanged)" if current == page else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
