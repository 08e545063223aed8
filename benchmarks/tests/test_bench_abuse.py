"""`python -m benchmarks abuse` runs end to end as a user runs it (tiny durations). Its figures are printed, not
asserted: a loaded machine can bring any of them to zero in half a second; what is checked is that every attack ran
and has its row and its figures, and, with --hosted, what the arena did to two of issue 35's attackers (the
keyring counter stopped by the syscall filter, archive bombs sent from a client process stored as nothing)."""

from __future__ import annotations

import json

import pytest

from benchmarks.abuse import TITLES
from benchmarks.tests.cli import run_benchmarks

ATTACKS = {"pong-flood", "reconnect-storm", "garbage", "tcp-garbage", "no-read"}

pytestmark = pytest.mark.integration


@pytest.mark.slow
def test_bench_abuse_runs_and_prints_its_table() -> None:
    code, out, err = run_benchmarks("abuse", "--seconds", "0.5", "--warmup", "0.3", "--matches", "2", "--rounds", "1",
                             "--json", env_extra={"REDIS_URL": ""}, timeout=300)
    assert code == 0, err
    figures = json.loads(out.strip().splitlines()[-1])
    assert set(figures["attacks"]) == ATTACKS
    for attack in figures["attacks"].values():
        for side in ("without", "with"):
            assert isinstance(attack[side]["decisions"], int) and attack[side]["decisions"] >= 0, attack
    lines = out.splitlines()
    for attack in ATTACKS:  # one row per attack, under the table's header
        assert any(line.startswith(TITLES[attack]) for line in lines), (attack, out)
    assert "decisions/s" in out and "target: decisions/s ratio" in out


def test_the_table_says_pass_or_fail_against_the_share_kept_and_what_was_recorded() -> None:
    from benchmarks.abuse import MIN_RATIO, table
    from benchmarks.hosted_abuse import TITLES as HOSTED_TITLES

    def side(per_second: float) -> dict[str, float]:
        return {"decisions": 10, "per_second": per_second, "p50_ms": 1.0, "p99_ms": 2.0, "timeouts": 0,
                "gateway_cpu": 0.1}

    results = {"attacks": {
        "tcp": {"without": side(100), "with": side(100 * MIN_RATIO), "attacker": {"said": "tcp refused"}},
        "spin": {"without": side(100), "with": side(100 * MIN_RATIO - 1), "attacker": {"host": "running"}}}}
    rows = table(results, HOSTED_TITLES, "what the host recorded").splitlines()
    assert rows[1].endswith("what the host recorded")
    assert rows[2].startswith(HOSTED_TITLES["tcp"]) and "PASS  said tcp refused" in rows[2]
    assert rows[3].startswith(HOSTED_TITLES["spin"]) and "FAIL  host running" in rows[3]


def test_bench_abuse_hosted_without_bwrap_says_so_in_one_line() -> None:
    code, out, err = run_benchmarks("abuse", "--hosted", "--attacks", "tcp",
                             env_extra={"UNO_ARENA_BWRAP": "/nowhere/bwrap"}, timeout=60)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "needs the bot host's sandbox: bwrap (bubblewrap) is not installed" in err, err
    code, _, err = run_benchmarks("abuse", "--hosted", "--attacks", "pong-flood", timeout=60)
    assert code == 2 and err.count("\n") == 1 and "unknown pong-flood (known with --hosted: tcp, snoop" in err, err


def test_the_bombs_list_only_folders_and_fit_the_archive_cap() -> None:
    import io
    import tarfile
    import zipfile

    from arena.submissions import SubmissionRejected, read_package
    from benchmarks.bombs import MAX_ARCHIVE_BYTES, ZIP_MAX_ENTRIES, BombFormat, bomb

    small = bomb(BombFormat.TAR_GZ, 3000)
    with tarfile.open(fileobj=io.BytesIO(small.data)) as tar:
        members = tar.getmembers()
    assert len(members) == small.entries == 3000 and all(m.isdir() for m in members)
    tar_bomb, zip_bomb = bomb(BombFormat.TAR, 200_000), bomb(BombFormat.ZIP, 200_000)
    assert len(tar_bomb.data) <= MAX_ARCHIVE_BYTES and len(zip_bomb.data) <= MAX_ARCHIVE_BYTES
    assert zip_bomb.entries == ZIP_MAX_ENTRIES
    assert len(zipfile.ZipFile(io.BytesIO(zip_bomb.data)).infolist()) == ZIP_MAX_ENTRIES
    for built in (small, tar_bomb, zip_bomb):
        with pytest.raises(SubmissionRejected, match="more than 1000 entries"):
            read_package(built.data)


@pytest.mark.slow
def test_bench_abuse_hosted_runs_issue_35s_attacks_from_outside() -> None:
    from arena.hosting.sandbox import sandbox_missing
    from benchmarks.hosted_abuse import TITLES as HOSTED_TITLES

    missing = sandbox_missing()
    if missing:
        pytest.skip(f"the bot host's sandbox (bwrap): {missing}")
    code, out, err = run_benchmarks("abuse", "--hosted", "--attacks", "keyring-counter,bomb-tar.gz", "--seconds",
                             "0.5", "--warmup", "0.5", "--matches", "2", "--json", env_extra={"REDIS_URL": ""},
                             timeout=600)
    assert code == 0, err
    figures = json.loads(out.strip().splitlines()[-1])["attacks"]
    keyring = figures["keyring-counter"]["attacker"]
    assert keyring["host"].startswith("stopped") and "SIGSYS" in keyring["version"], keyring
    bombs = figures["bomb-tar.gz"]["attacker"]
    assert bombs["stored"] == "0 versions" and "OK" not in bombs["answers"], bombs
    assert any(line.startswith(HOSTED_TITLES["bomb-tar.gz"]) for line in err.splitlines()), err
