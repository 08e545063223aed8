"""Submitted packages (arena.submissions): what is accepted, the one reason for what is not, and the content address."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.submissions import Limits, Runtime, SubmissionRejected, pack_folder, read_package
from tests.support.archives import TarMode, folders_tar

MANIFEST = b'runtime = "python3.11-kit"\ncommand = ["python", "bot.py"]\n'


def tar_gz(members: list[tuple[str, bytes]], *, links: tuple[tuple[str, str], ...] = ()) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, target in links:
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tar.addfile(info)
    return out.getvalue()


def zipped(members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members:
            z.writestr(name, data)
    return out.getvalue()


def test_a_folder_a_tar_gz_and_a_zip_of_the_same_files_are_one_package(tmp_path: Path) -> None:
    (tmp_path / "uno-bot.toml").write_bytes(MANIFEST)
    (tmp_path / "bot.py").write_bytes(b"print('hi')\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "x.py").write_bytes(b"X = 1\n")
    members = [("uno-bot.toml", MANIFEST), ("bot.py", b"print('hi')\n"), ("lib/x.py", b"X = 1\n")]
    from_folder = read_package(pack_folder(tmp_path))
    from_tar = read_package(tar_gz(members))
    from_zip = read_package(zipped(list(reversed(members))))
    assert from_folder.sha256 == from_tar.sha256 == from_zip.sha256
    assert from_tar.manifest.runtime is Runtime.PYTHON_KIT and from_tar.manifest.command == ("python", "bot.py")
    assert [f.path for f in from_tar.files] == ["bot.py", "lib/x.py", "uno-bot.toml"]
    assert read_package(from_tar.archive).sha256 == from_tar.sha256  # the canonical archive is a fixed point


def test_a_json_manifest_and_a_string_command() -> None:
    manifest = json.dumps({"runtime": "static", "command": "./bin/bot --fast"}).encode()
    package = read_package(tar_gz([("uno-bot.json", manifest), ("bin/bot", b"\x7fELF")]))
    assert package.manifest.runtime is Runtime.STATIC and package.manifest.command == ("./bin/bot", "--fast")


@pytest.mark.parametrize(("archive", "reason"), [
    (b"just some bytes", "not an archive"),
    (tar_gz([("/etc/uno-bot.toml", MANIFEST)]), "absolute path"),
    (tar_gz([("uno-bot.toml", MANIFEST), ("../escape.py", b"")]), "climbs out"),
    (tar_gz([("uno-bot.toml", MANIFEST), ("a/../../b", b"")]), "climbs out"),
    (tar_gz([("uno-bot.toml", MANIFEST)], links=(("bot.py", "/etc/passwd"),)), "link"),
    (tar_gz([("bot.py", b"")]), "no manifest"),
    (tar_gz([("uno-bot.toml", b"runtime = ")]), "cannot be read"),
    (tar_gz([("uno-bot.toml", b'runtime = "java"\ncommand = ["java"]')]), "runtime must be one of"),
    (tar_gz([("uno-bot.toml", b'runtime = "python3.11-kit"\ncommand = []')]), "non-empty list"),
    (tar_gz([("uno-bot.toml", b'runtime = "python3.11-kit"\ncommand = ["sh", "x"]')]), "must start with python"),
    (tar_gz([("uno-bot.toml", b'runtime = "static"\ncommand = ["./bot"]')]), "not one of its files"),
    (tar_gz([("uno-bot.toml", b'runtime = "static"\ncommand = ["./bot"]\nextra = 1')]), "unknown field"),
    (zipped([("uno-bot.toml", MANIFEST), ("../x", b"")]), "climbs out"),
    (b"PK\x03\x04broken", "damaged"),
], ids=["bytes", "absolute", "dotdot", "dotdot-inside", "symlink", "no-manifest", "bad-toml", "runtime",
        "empty-command", "python-command", "static-missing", "unknown-field", "zip-dotdot", "bad-zip"])
def test_each_refused_archive_gets_one_reason(archive: bytes, reason: str) -> None:
    with pytest.raises(SubmissionRejected, match=reason):
        read_package(archive)


def test_the_limits_hold() -> None:
    small = Limits(max_archive_bytes=2000, max_unpacked_bytes=5000, max_entries=3)
    with pytest.raises(SubmissionRejected, match="more than the 2000 allowed"):
        read_package(b"x" * 2001, small)
    many = tar_gz([("uno-bot.toml", MANIFEST), *((f"f{i}", b"") for i in range(5))])
    with pytest.raises(SubmissionRejected, match="more than 3 entries"):
        read_package(many, small)
    big = tar_gz([("uno-bot.toml", MANIFEST), ("bot.py", b"\0" * 6000)])
    with pytest.raises(SubmissionRejected, match="unpacks to more than 5000 bytes"):
        read_package(big, small)


def test_a_folder_with_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "uno-bot.toml").write_bytes(MANIFEST)
    (tmp_path / "bot.py").symlink_to("/etc/hostname")
    with pytest.raises(SubmissionRejected, match="symbolic link"):
        pack_folder(tmp_path)


def _device_tar() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        info = tarfile.TarInfo("null")
        info.type = tarfile.CHRTYPE
        tar.addfile(info)
    return out.getvalue()


def test_every_entry_counts_folders_too_and_reading_stops_at_the_limit() -> None:
    with pytest.raises(SubmissionRejected, match="more than 1000 entries"):
        read_package(folders_tar(5000))
    with pytest.raises(SubmissionRejected, match="more than 1000 entries"):
        read_package(folders_tar(5000, "w"))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for i in range(1500):
            z.writestr(zipfile.ZipInfo(f"d{i}/"), b"")
    with pytest.raises(SubmissionRejected, match="more than 1000 entries"):
        read_package(out.getvalue())


def test_the_expansion_ratio_is_capped_while_reading() -> None:
    zeros = tar_gz([("uno-bot.toml", MANIFEST), ("bot.py", b""), ("zeros", b"\0" * (20 * 1024 * 1024))])
    with pytest.raises(SubmissionRejected, match="100 bytes per archive byte"):
        read_package(zeros)
    small = tar_gz([("uno-bot.toml", MANIFEST), ("bot.py", b""), ("zeros", b"\0" * (1024 * 1024))])
    # under the floor: a table of zeros is fine
    assert sum(len(f.data) for f in read_package(small).files) > 1024 * 1024


@pytest.mark.parametrize("mode", ["w:bz2", "w:xz"])
def test_only_the_named_formats_are_read(mode: TarMode) -> None:
    with pytest.raises(SubmissionRejected, match=r"does not read: submit a folder or a \.tar\.gz, \.tgz"):
        read_package(folders_tar(1, mode))


@pytest.mark.parametrize(("members", "reason"), [
    ([("a", b"x"), ("a/b", b"y")], "'a' as a file and as a folder"),
    ([("Bot.py", b"x"), ("bot.py", b"y")], "differ only in case"),
], ids=["file-and-folder", "case"])
def test_path_conflicts_are_refused(members: list[tuple[str, bytes]], reason: str) -> None:
    with pytest.raises(SubmissionRejected, match=reason):
        read_package(tar_gz([("uno-bot.toml", MANIFEST), *members]))


def test_a_folder_entry_beside_a_file_of_its_name_is_refused() -> None:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in (("uno-bot.toml", MANIFEST), ("bot.py", b"")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        folder = tarfile.TarInfo("bot.py")
        folder.type = tarfile.DIRTYPE
        tar.addfile(folder)
    with pytest.raises(SubmissionRejected, match="as a file and as a folder"):
        read_package(out.getvalue())


def test_a_device_file_is_refused() -> None:
    with pytest.raises(SubmissionRejected, match="not a regular file"):
        read_package(_device_tar())


@pytest.mark.parametrize(("name", "manifest", "reason"), [
    ("uno-bot.toml", b"#" * (65 * 1024), "more than the 65536 allowed"),
    ("uno-bot.json", b"[" * 30_000 + b"]" * 30_000, "nests too deep"),
    ("uno-bot.toml", b"a = " + b"[" * 30_000 + b"]" * 30_000, "nests too deep|cannot be read"),
    ("uno-bot.toml", b'runtime = "\xff"', "not UTF-8"),
    ("uno-bot.json", b"1" * 5000, "cannot be read|must be a table"),
], ids=["size", "json-nesting", "toml-nesting", "utf8", "long-number"])
def test_every_manifest_problem_is_one_reason(name: str, manifest: bytes, reason: str) -> None:
    with pytest.raises(SubmissionRejected, match=reason):
        read_package(tar_gz([(name, manifest), ("bot.py", b"")]))
