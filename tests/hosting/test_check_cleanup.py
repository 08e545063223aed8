"""The bot host's bookkeeping (real Redis, real files): an archive that cannot be unpacked leaves nothing behind and
its reason names no host path; unpacked versions no process needs any more, and stale spec files, are removed."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from arena.hosting.host import BotHost, HostConfig, unpack
from arena.store import Store
from arena.store.submission_store import SubmissionState
from arena.submissions import pack_folder, read_package
from benchmarks import hostile_bots as hostile


def _tar(entries: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_an_archive_with_a_file_and_a_folder_of_one_name_leaves_nothing_and_no_host_path(tmp_path: Path) -> None:
    archive = _tar({"uno-bot.toml": hostile.MANIFEST.encode(), "bot.py": b"print(1)\n", "a": b"x", "a/b": b"y"})
    packages = tmp_path / "packages"
    packages.mkdir()
    with pytest.raises(ValueError) as refused:
        unpack(archive, packages / ("0" * 64))
    assert str(tmp_path) not in str(refused.value) and "a" in str(refused.value)
    assert list(packages.iterdir()) == []  # no .unpack- folder left


def _version(store: Store, name: str, folder: Path, state: SubmissionState) -> str:
    package = read_package(pack_folder(folder))
    stored = store.submissions.add(name, package.sha256, package.archive, package.manifest.runtime.value,
                                   package.manifest.command)
    if state is not SubmissionState.CHECKING:
        store.submissions.set_verdict(name, stored.version, state, "set by the test")
    return package.sha256


def test_old_unpacked_versions_and_stale_specs_are_removed(store: Store, tmp_path: Path) -> None:
    store.bots.register("keeper")
    shas = {}
    for version, state in enumerate([SubmissionState.ADMITTED, SubmissionState.ADMITTED, SubmissionState.REJECTED,
                                     SubmissionState.CHECKING], start=1):
        folder = hostile.write_package(tmp_path / f"v{version}", f"print({version})\n" + hostile.PLAY)
        shas[version] = _version(store, "keeper", folder, state)
    host = BotHost(store, HostConfig(str(tmp_path / "gw.sock"), str(tmp_path / "work"), cgroups=False))
    try:
        for submission in store.submissions.all("keeper"):
            host.prepare("keeper", submission)
        (tmp_path / "work" / "packages" / ".unpack-stale").mkdir()
        specs = tmp_path / "work" / "specs"
        assert len(list(specs.iterdir())) == 4
        host.clean_work_dir()
        kept = {p.name for p in (tmp_path / "work" / "packages").iterdir()}
        # version 2 is the current one, version 4 waits for its check; 1 (superseded by 2) and 3 (rejected) go
        assert kept == {shas[2], shas[4], ".unpack-stale"}
        assert list(specs.iterdir()) == []  # no process under way
        again = BotHost(store, HostConfig(str(tmp_path / "gw.sock"), str(tmp_path / "work"), cgroups=False))
        assert ".unpack-stale" not in {p.name for p in (tmp_path / "work" / "packages").iterdir()}
        Path(again.socket_dir).rmdir()
    finally:
        Path(host.socket_dir).rmdir()
