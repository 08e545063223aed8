"""The per-bot incident log: the store (capped list, sequence numbers), the incidents a played match leaves
(refusals with their reasons, timeouts, fallbacks, errors, forfeits: arena.service.incidents), the gateway's
disconnect incidents and the metric they are counted in."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import pytest
from prometheus_client import CollectorRegistry

from arena import metrics as am
from arena.engine import Action, Observation, Rules
from arena.runner import LocalSeat, MatchConfig, MatchRecord, Seat, SeatGone, SeatRequest, SeatTimeout, run_match
from arena.service.incidents import (
    MAX_ERROR_TEXT,
    MAX_PER_MATCH,
    MAX_TRACEBACK,
    MAX_TRACEBACK_LINES,
    code_error,
    log_match_incidents,
    match_incidents,
)
from arena.store import INCIDENT_KINDS, Incident, InvalidName, Store
from arena.store.incident_store import MAX_DETAIL, IncidentStore
from bots import Bot, make_bot
from tests.support import wait_until
from tests.support.bots import ThreadBot
from tests.support.gateway import GatewayHarness


def test_the_store_numbers_caps_and_reads_a_bot_s_log(store: Store) -> None:
    log = IncidentStore(store.redis, store.keys, cap=5)
    assert log.recent("alpha") == [] and log.last_seq("alpha") == 0
    assert log.add("alpha", []) == 0
    last = log.add("alpha", [Incident("timeout", "m-1", 4, strike=1, at=100.0),
                             Incident("refusal", "m-1", 5, detail="F1: not playable", at=100.0)])
    assert last == 2
    first, second = log.recent("alpha")
    assert (first.seq, first.kind, first.match_id, first.decision, first.strike, first.at) == (1, "timeout", "m-1",
                                                                                                 4, 1, 100.0)
    assert (second.seq, second.detail) == (2, "F1: not playable")
    log.add("ALPHA", [Incident("disconnect", detail=f"stream {i}") for i in range(6)])  # names without case
    kept = log.recent("alpha", 100)
    assert [i.seq for i in kept] == [4, 5, 6, 7, 8]  # the newest `cap` only
    assert all(i.at > 0 for i in kept)  # stamped when added without a time
    assert [i.seq for i in log.since("alpha", 6)] == [7, 8]
    assert [i.seq for i in log.since("alpha", 0, limit=2)] == [4, 5]
    assert log.last_seq("alpha") == 8 and log.recent("beta") == []
    log.add("alpha", [Incident("refusal", detail="x" * 1000)])
    assert len(log.recent("alpha", 1)[0].detail) == MAX_DETAIL
    assert "refusal (match m-1, decision 5): F1: not playable" in second.line()


def test_bad_incidents_and_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown incident kind 'oops'"):
        Incident("oops")
    with pytest.raises(ValueError, match="cap must be at least 1"):
        IncidentStore(None, None, cap=0)  # type: ignore[arg-type]


def test_a_malformed_bot_name_is_refused_by_the_store(store: Store) -> None:
    with pytest.raises(InvalidName):
        store.incidents.add("no spaces", [Incident("timeout")])


def test_the_metric_kinds_are_the_store_kinds() -> None:
    assert am.INCIDENT_KINDS == INCIDENT_KINDS
    metrics = am.create_metrics(CollectorRegistry())
    metrics.record_incidents("alpha", "timeout", 2)
    assert metrics.bot_incidents.labels("alpha", "timeout")._value.get() == 2
    with pytest.raises(ValueError, match="unknown incident kind"):
        metrics.record_incidents("alpha", "mystery")


class _Scripted(Seat):
    """A remote-like seat with a script: refused answers, timeouts and absences at given decisions of its own."""

    name = "scripted"

    def __init__(self, refuse: Sequence[int] = (), timeout: Sequence[int] = (), gone: Sequence[int] = ()) -> None:
        self.refuse, self.timeout, self.gone = set(refuse), set(timeout), set(gone)
        self.asked = 0

    async def decide(self, request: SeatRequest) -> int:
        self.asked += 1
        if self.asked in self.refuse:
            request.refusals = 1
            request.refusal_reasons = ["F1: that card does not match the top card"]
        if self.asked in self.timeout:
            raise SeatTimeout("no answer")
        if self.asked in self.gone:
            raise SeatGone("not connected")
        return 0


class _Raises(Bot):
    name = "raises"

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        raise KeyError("oops")


def _record(seats: list[Seat], max_strikes: int = 3) -> MatchRecord:
    config = MatchConfig("t-inc:m-1", 5, Rules(), decision_deadline_s=1.0, max_strikes=max_strikes)
    return asyncio.run(run_match(config, seats))


def test_a_match_leaves_each_registered_bot_its_refusals_timeouts_fallbacks_and_forfeit() -> None:
    record = _record([_Scripted(refuse=[2], timeout=[3, 5], gone=[4]), LocalSeat(make_bot("random", 1))])
    names = ["scripted", "random"]
    found = match_incidents(record, names, at=50.0)
    assert list(found) == ["scripted"]  # a built-in bot keeps no log
    incidents = found["scripted"]
    assert [(i.kind, i.strike) for i in incidents] == [("refusal", 0), ("timeout", 1), ("fallback", 2),
                                                      ("timeout", 3), ("forfeit", 0)]
    refusal = incidents[0]
    assert refusal.match_id == "t-inc:m-1" and refusal.detail == "F1: that card does not match the top card"
    decisions = [d.decision_number for d in record.decisions if d.seat == 0]
    assert refusal.decision == decisions[1] and incidents[1].decision == decisions[2]
    assert incidents[-1].detail.startswith("seat 0 (scripted) forfeited: 3 strikes")
    assert all(i.at == 50.0 for i in incidents)


def test_an_in_process_error_is_one_error_incident_with_its_reason() -> None:
    record = _record([LocalSeat(_Raises(1)), LocalSeat(make_bot("random", 1))], max_strikes=1)
    incidents = match_incidents(record, ["raiser", "random"])["raiser"]
    assert [i.kind for i in incidents] == ["error", "forfeit"]
    assert "oops" in incidents[0].detail and incidents[0].strike == 1


def test_a_bot_that_fails_every_decision_gets_a_readable_log() -> None:
    record = _record([_Scripted(refuse=range(1, 10_000)), LocalSeat(make_bot("random", 1))])
    incidents = match_incidents(record, ["scripted", "random"])["scripted"]
    assert len(incidents) == MAX_PER_MATCH and {i.kind for i in incidents} == {"refusal"}


def test_log_match_incidents_writes_the_log_and_counts_them(store: Store) -> None:
    record = _record([_Scripted(timeout=[1]), LocalSeat(make_bot("random", 1))])
    metrics = am.create_metrics(CollectorRegistry())
    log_match_incidents(store, record, ["scripted", "random"], metrics)
    (incident,) = store.incidents.recent("scripted")
    assert (incident.kind, incident.match_id, incident.strike) == ("timeout", "t-inc:m-1", 1)
    assert metrics.bot_incidents.labels("scripted", "timeout")._value.get() == 1
    assert store.incidents.recent("random") == []


class _Lines(logging.Handler):
    """The messages logged to the logger it is attached to."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_a_failed_write_is_logged_not_raised(store: Store) -> None:
    # A handler on the module's own logger: what earlier tests in this process did to the root logger (a Celery
    # worker's or a CLI's logging set-up) cannot hide the line.
    logger, lines = logging.getLogger("uno_arena.incidents"), _Lines()
    level = logger.level
    logger.addHandler(lines)
    logger.setLevel(logging.WARNING)
    try:
        record = _record([_Scripted(timeout=[1]), LocalSeat(make_bot("random", 1))])
        log_match_incidents(store, record, ["bad name!", "random"])
    finally:
        logger.removeHandler(lines)
        logger.setLevel(level)
    assert any("could not write 1 incidents of bot bad name!" in line for line in lines.lines), lines.lines


def test_the_gateway_logs_why_a_stream_ended(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("leaver")
    with ThreadBot(gateway.address, token):
        gateway.wait_for_bot("leaver")
        gateway.run(_drop(gateway, "leaver"))
        wait_until(lambda: len(gateway.store.incidents.recent("leaver")) >= 1, 10, "the disconnect incident")
        wait_until(lambda: gateway.is_connected("leaver"), 10, "the bot back")
    wait_until(lambda: len(gateway.store.incidents.recent("leaver")) >= 2, 10, "the second disconnect incident")
    first, second = gateway.store.incidents.recent("leaver")[:2]
    assert first.kind == "disconnect" and first.detail.startswith("UNAVAILABLE: checked by the test")
    assert "0 decisions pending" in first.detail
    assert second.kind == "disconnect" and "the stream ended from the bot's side" in second.detail
    assert token not in first.detail + second.detail


async def _drop(gateway: GatewayHarness, bot: str) -> None:
    assert gateway.server.gateway.registry.drop_session(bot, details="checked by the test")


def test_a_reported_code_error_is_made_printable_and_bounded() -> None:
    """A bot's own report (``Decision.bot_error``) is free text from the bot: no control characters or terminal
    escapes reach a log or a terminal, and every field is bounded (the traceback keeps its end)."""
    frames = "".join(f'  File "bot.py", line {n}, in f{n}\n    step()\n' for n in range(200))
    error = code_error("m-1", 7, "r-9", "Key\x1bError\n", "bad\r\x1b[31m key " + "x" * 1000,
                       "Traceback (most recent call last):\n" + frames + "KeyError: 'k'\r\n")
    assert error.kind == "Key Error" and error.message.startswith("bad  [31m key xxx")
    assert len(error.message) == MAX_ERROR_TEXT and error.message.endswith("...")
    assert error.traceback.endswith("KeyError: 'k'") and "\r" not in error.traceback and "\x1b" not in error.traceback
    assert len(error.traceback) <= MAX_TRACEBACK and len(error.traceback.splitlines()) <= MAX_TRACEBACK_LINES
    incident = error.incident()
    assert (incident.kind, incident.match_id, incident.decision, incident.request_id, incident.strike) == (
        "error", "m-1", 7, "r-9", 0)
    assert incident.detail.startswith("the bot's code raised Key Error: bad")
    assert error.summary().startswith("match m-1, decision 7: Key Error: bad")
