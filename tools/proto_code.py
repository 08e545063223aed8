"""Regenerate the Python code of the protobuf contract (proto/uno_arena/v1/*.proto) and of the internal relay
(proto/uno_arena/relay/v1/*.proto).

    python -m tools.proto_code          # rewrite arena/protocol/_gen/ from proto/
    python -m tools.proto_code --check  # exit 1 when the committed code is stale

protoc from grpcio-tools (pinned in pyproject.toml: the generated code depends on its version) writes the modules,
which are flattened into `arena/protocol/_gen/` with their imports rewritten to package imports; descriptors keep
their proto file names (`uno_arena/v1/bot.proto`), so reflection and other languages see the same contract.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import tempfile
from importlib import metadata, resources
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = REPO_ROOT / "arena" / "protocol"
PROTO_ROOT = REPO_ROOT / "proto"
PROTO_PACKAGE_DIR = Path("uno_arena") / "v1"
RELAY_PACKAGE_DIR = Path("uno_arena") / "relay" / "v1"
GEN_DIR = PACKAGE_DIR / "_gen"
GEN_PACKAGE = "arena.protocol._gen"
COMMAND = "python -m tools.proto_code"

_INIT_TEXT = f'''"""Generated Python code of proto/uno_arena/v1 and proto/uno_arena/relay/v1 (do not edit: run
`{COMMAND}`).

Import it through `arena.protocol` (e.g. `from arena.protocol import bot_pb2, bot_pb2_grpc`).
"""
'''

_IMPORT_RE = re.compile(r"^from uno_arena\.v1 import ", re.MULTILINE)
_MODULE_NAME_RE = re.compile(r"'uno_arena\.(?:relay\.)?v1\.(\w+_pb2)'")
_LEFTOVER_RE = re.compile(r"^\s*(from|import) uno_arena\b", re.MULTILINE)


def proto_files(package_dir: Path = PROTO_PACKAGE_DIR) -> list[Path]:
    """The .proto files of one package (the public contract by default), relative to `proto/`, in a stable order."""
    return sorted(p.relative_to(PROTO_ROOT) for p in (PROTO_ROOT / package_dir).glob("*.proto"))


def run_protoc(args: list[str]) -> None:
    """Run protoc (grpcio-tools) on `args` with `proto/` and the well-known types on the include path."""
    from grpc_tools import protoc  # imported late: grpcio-tools is a development dependency

    well_known = resources.files("grpc_tools") / "_proto"
    code = protoc.main(["grpc_tools.protoc", f"-I{PROTO_ROOT}", f"-I{well_known}", *args])
    if code != 0:
        raise RuntimeError(f"protoc failed with exit code {code} (its messages are above)")


def render() -> dict[str, str]:
    """Generate the code in memory: {file name in _gen/: text}."""
    files = proto_files() + proto_files(RELAY_PACKAGE_DIR)
    if not files:
        raise RuntimeError(f"no .proto files found under {PROTO_ROOT / PROTO_PACKAGE_DIR}")
    out: dict[str, str] = {"__init__.py": _INIT_TEXT}
    with tempfile.TemporaryDirectory(prefix="uno-arena-protoc-") as tmp:
        run_protoc([f"--python_out={tmp}", f"--pyi_out={tmp}", f"--grpc_python_out={tmp}",
                    *(str(f) for f in files)])
        produced = [path for package in (PROTO_PACKAGE_DIR, RELAY_PACKAGE_DIR)
                    for path in (Path(tmp) / package).iterdir() if path.is_file()]
        for path in sorted(produced, key=lambda path: path.name):
            text = path.read_text(encoding="utf-8")
            if path.name.endswith("_pb2_grpc.py") and "\nclass " not in text:
                continue  # a .proto without services: its gRPC module would be empty
            text = _IMPORT_RE.sub(f"from {GEN_PACKAGE} import ", text)
            text = _MODULE_NAME_RE.sub(f"'{GEN_PACKAGE}.\\1'", text)
            leftover = _LEFTOVER_RE.search(text)
            if leftover:
                raise RuntimeError(f"{path.name}: import left unrewritten: {leftover.group(0).strip()!r}")
            out[path.name] = text
    return out


def _tools_version() -> str:
    try:
        return metadata.version("grpcio-tools")
    except metadata.PackageNotFoundError:
        return "not installed"


def stale_files(rendered: dict[str, str], gen_dir: Path = GEN_DIR) -> list[str]:
    """Names of files in `gen_dir` that differ from `rendered`, are missing, or should not be there."""
    existing = {p.name for p in gen_dir.glob("*.py*")} if gen_dir.is_dir() else set()
    stale = []
    for name in sorted(set(rendered) | existing):
        path = gen_dir / name
        if name not in rendered or not path.is_file() or path.read_text(encoding="utf-8") != rendered[name]:
            stale.append(name)
    return stale


def write(rendered: dict[str, str], gen_dir: Path = GEN_DIR) -> list[str]:
    """Write `rendered` into `gen_dir`, deleting generated files that are no longer produced."""
    changed = stale_files(rendered, gen_dir)
    gen_dir.mkdir(parents=True, exist_ok=True)
    for name in changed:
        path = gen_dir / name
        if name in rendered:
            path.write_text(rendered[name], encoding="utf-8")
        else:
            path.unlink()
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when arena/protocol/_gen/ differs from what proto/ makes")
    parser.add_argument("--diff", action="store_true",
                        help="with --check: print a unified diff of the stale files")
    args = parser.parse_args(argv)
    rendered = render()
    if args.check:
        stale = stale_files(rendered)
        if not stale:
            print(f"arena/protocol/_gen is up to date ({len(rendered)} files, "
                  f"grpcio-tools {_tools_version()})")
            return 0
        print(f"arena/protocol/_gen is stale: {', '.join(stale)}\n"
              f"regenerate with `{COMMAND}` (grpcio-tools {_tools_version()}; generated code depends on "
              f"the grpcio-tools version pinned in pyproject.toml)", file=sys.stderr)
        if args.diff:
            for name in stale:
                path = GEN_DIR / name
                old = path.read_text(encoding="utf-8").splitlines(keepends=True) if path.is_file() else []
                new = rendered.get(name, "").splitlines(keepends=True)
                diff = difflib.unified_diff(old, new, f"committed/{name}", f"generated/{name}")
                sys.stderr.writelines(diff)
        return 1
    changed = write(rendered)
    print(f"wrote {len(changed)} of {len(rendered)} files in arena/protocol/_gen"
          + (f": {', '.join(changed)}" if changed else " (all up to date)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
