"""`uno-arena doctor` from outside, in a process of its own: a line per part, what failed named, the exit status
telling whether every part checked is usable; a real Redis and a real `uno-arena serve` where one is checked. And
`uno-arena bench`, which names where the benchmarks went."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.support.cli import one_line_error, run_cli
from tests.support.redis_server import PrivateRedis
from tests.support.serve_process import serve_process

pytestmark = pytest.mark.integration

MARKS = ("ok   ", "FAIL ", "--   ")


def lines_of(out: str) -> list[str]:
    lines = out.splitlines()
    assert lines and all(line.startswith(MARKS) for line in lines), out
    return lines


def test_doctor_without_redis_url_names_the_embedded_redis_the_sandbox_and_the_engine() -> None:
    code, out, err = run_cli("doctor", "--seconds", "0.2")
    assert "Traceback" not in err, err
    lines = lines_of(out)
    assert lines[0].startswith("ok   no $REDIS_URL: the embedded Redis runs "), out
    assert "rounds/s" in lines[2] and "decisions/s" in lines[2], out
    assert lines[3] == "--   gateway: not checked (give --target HOST:PORT)"
    assert code == (0 if lines[1].startswith("ok") else 1), out


def test_doctor_reaches_the_redis_of_redis_url(redis_server: PrivateRedis) -> None:
    _code, out, err = run_cli("doctor", "--seconds", "0.2", env_extra={"REDIS_URL": redis_server.url})
    assert lines_of(out)[0] == "ok   $REDIS_URL answers", out + err


def test_a_redis_url_nobody_answers_and_a_target_nobody_serves_fail_by_name() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    code, out, err = run_cli("doctor", "--seconds", "0.1", "--target", f"127.0.0.1:{port}",
                             env_extra={"REDIS_URL": f"redis://127.0.0.1:{port}/0"})
    lines = lines_of(out)
    assert code == 1 and "Traceback" not in err, out + err
    assert lines[0].startswith("FAIL ") and f"127.0.0.1:{port}" in lines[0], out
    assert lines[-1].startswith(f"FAIL no gateway answers at 127.0.0.1:{port}"), out


def test_doctor_finds_a_serving_gateway(tmp_path: Path) -> None:
    with serve_process(tmp_path) as served:
        _code, out, err = run_cli("doctor", "--seconds", "0.1", "--target", served.address,
                                  env_extra={"REDIS_URL": served.env["REDIS_URL"]})
    lines = lines_of(out)
    assert lines[0] == "ok   $REDIS_URL answers" and lines[-1] == f"ok   gateway at {served.address}: SERVING", (
        out + err)


def test_a_bad_option_is_one_line() -> None:
    code, out, err = run_cli("doctor", "--seconds", "0")
    assert code == 2 and not out and "Traceback" not in err and "--seconds" in err, err


def test_the_benchmarks_command_names_where_the_benchmarks_went() -> None:
    """`uno-arena bench ...` (the benchmarks left the installed package): one line naming the fix, exit 2."""
    code, out, err = run_cli("bench", "engine", "--seconds", "1")
    assert not out and "python -m benchmarks NAME" in one_line_error(code, err) and code == 2, err
