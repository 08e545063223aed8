"""A client of the organizer API (``uno_arena.v1.ArenaService``) and the texts it shows: :class:`Client`,
:func:`watch` (follow a tournament to its end), :func:`progress_line`, :func:`standings_text` (this tournament's
result first, then the pool rating in its own column), :func:`plain` (a message as JSON-ready data: numbers as
numbers, every field present), :meth:`Client.bot_log` / :func:`follow_bot_log` / :func:`incident_line` (a
bot's incident log). Used by the CLI commands, the demo, the local arena and the load benchmark.

The target is ``$UNO_ARENA_TARGET`` (else ``localhost:50051``); ``authorization: Bearer TOKEN`` is sent with
the token given (the admin token, or a bot's own token for what a bot may read), else ``$UNO_ARENA_ADMIN_TOKEN``,
else the contents of the file ``$UNO_ARENA_ADMIN_TOKEN_FILE`` (e.g. the one ``uno-arena serve
--generate-admin-token FILE`` wrote); with none of them the calls are anonymous.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC
from typing import Any

import grpc

from arena.protocol import arena_pb2, arena_pb2_grpc

TARGET_ENV = "UNO_ARENA_TARGET"
ADMIN_TOKEN_ENV = "UNO_ARENA_ADMIN_TOKEN"
ADMIN_TOKEN_FILE_ENV = "UNO_ARENA_ADMIN_TOKEN_FILE"
DEFAULT_TARGET = "localhost:50051"
RPC_TIMEOUT_S = 30.0


def default_target() -> str:
    return os.environ.get(TARGET_ENV) or DEFAULT_TARGET


def write_secret_file(path: str, text: str) -> None:
    """Write ``text`` to ``path``, created or truncated, readable by its owner only (mode 0600 even when the
    file existed with another mode)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def read_token_file(path: str | os.PathLike[str]) -> str:
    """The token in a file (surrounding whitespace removed); ValueError naming the file when it is empty or
    cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read().strip()
    except OSError as error:
        raise ValueError(f"cannot read the token file {os.fspath(path)!r}: {error.strerror or error}") from None
    if not token or any(c.isspace() for c in token):
        raise ValueError(f"the token file {os.fspath(path)!r} must hold one token")
    return token


def token_from(token: str | None = None, token_file: str | None = None, env: str = ADMIN_TOKEN_ENV,
               file_env: str = ADMIN_TOKEN_FILE_ENV) -> str:
    """A token: ``token``, else the contents of ``token_file``, else ``$env``, else the file ``$file_env``
    names; empty when none is set. ValueError for a token file that cannot be read."""
    if token:
        return token
    if token_file:
        return read_token_file(token_file)
    if os.environ.get(env):
        return os.environ[env].strip()
    if os.environ.get(file_env):
        return read_token_file(os.environ[file_env])
    return ""


def _metadata(token: str | None = None) -> list[tuple[str, str]]:
    token = token or token_from()
    return [("authorization", f"Bearer {token}")] if token else []


TLS_ENV = "UNO_ARENA_TLS"
TLS_CA_ENV = "UNO_ARENA_TLS_CA"


def tls_credentials(tls: bool = False, tls_ca: str | os.PathLike[str] | None = None) -> grpc.ChannelCredentials | None:
    """Channel credentials for an arena served with TLS: the system's roots, or ``tls_ca`` (a PEM file of the CA,
    or of the arena's self-signed certificate; it implies TLS). None (plaintext) unless one is given; ValueError
    for a CA file that cannot be read. Shared by the CLI and the Python kit."""
    if not tls and not tls_ca:
        return None
    root = None
    if tls_ca:
        try:
            with open(os.path.expanduser(tls_ca), "rb") as handle:
                root = handle.read()
        except OSError as error:
            raise ValueError(f"cannot read the TLS CA file {os.fspath(tls_ca)!r}: {error.strerror or error}") from None
    return grpc.ssl_channel_credentials(root_certificates=root)


def channel_credentials(tls: bool = False, tls_ca: str | None = None) -> grpc.ChannelCredentials | None:
    """:func:`tls_credentials`, with ``$UNO_ARENA_TLS`` (1/true) and ``$UNO_ARENA_TLS_CA`` when unset."""
    tls_ca = tls_ca or os.environ.get(TLS_CA_ENV, "").strip() or None
    tls = tls or os.environ.get(TLS_ENV, "").strip().lower() in ("1", "true", "yes")
    return tls_credentials(tls, tls_ca)


class Client:
    """A channel to ArenaService and the caller's metadata (``token``, default the admin token of the
    environment: :func:`token_from`); ``tls``/``tls_ca``: see :func:`channel_credentials`."""

    def __init__(self, target: str, token: str | None = None, *, tls: bool = False, tls_ca: str | None = None) -> None:
        self.target = target
        # Exports of large tournaments exceed gRPC's default 4 MiB receive limit.
        options = [("grpc.max_receive_message_length", 256 * 1024 * 1024)]
        credentials = channel_credentials(tls, tls_ca)
        self.channel = (grpc.insecure_channel(target, options=options) if credentials is None
                        else grpc.secure_channel(target, credentials, options=options))
        self.stub = arena_pb2_grpc.ArenaServiceStub(self.channel)
        self.metadata = _metadata(token)

    def call(self, method: str, request: Any, timeout: float | None = RPC_TIMEOUT_S) -> Any:
        return getattr(self.stub, method)(request, metadata=self.metadata, timeout=timeout)

    def bot_log(self, name: str, *, limit: int = 0, after_seq: int = 0,
                timeout: float | None = RPC_TIMEOUT_S) -> arena_pb2.GetBotLogResponse:
        """The incident log of bot ``name`` (GetBotLog: the bot's own token, or the admin's): the newest ``limit``
        incidents (0: the server's default), or those numbered after ``after_seq``, oldest first."""
        request = arena_pb2.GetBotLogRequest(name=name, limit=max(0, limit), after_seq=max(0, after_seq))
        response: arena_pb2.GetBotLogResponse = self.call("GetBotLog", request, timeout)
        return response

    def close(self) -> None:
        self.channel.close()


def incident_line(incident: Any) -> str:
    """One line of a bot's incident log (a ``BotIncident`` message) for people: number, time, kind, where, what."""
    from arena.store.incidents import incident_line as line

    at = float(incident.at.seconds) if incident.HasField("at") else 0.0
    return line(incident.seq, at, incident.kind, incident.match_id, incident.decision_number, incident.request_id,
                incident.strike, incident.detail)


def follow_bot_log(client: Client, name: str, out: Any, *, limit: int = 0, poll_s: float = 2.0,
                   stop: Any = None) -> int:
    """Print the newest incidents of bot ``name``, then each new one as it comes (polling every ``poll_s``),
    until ``stop`` (a ``threading.Event``-like object) is set or Ctrl-C; returns the last number seen."""
    import time

    response = client.bot_log(name, limit=limit)
    last = 0
    for incident in response.incidents:
        print(incident_line(incident), file=out, flush=True)
        last = incident.seq
    last = max(last, response.last_seq)
    while stop is None or not stop.is_set():
        if stop is not None:
            stop.wait(poll_s)
        else:
            time.sleep(poll_s)
        response = client.bot_log(name, after_seq=last, limit=1000)
        for incident in response.incidents:
            print(incident_line(incident), file=out, flush=True)
            last = incident.seq
    return last


def state_name(value: int) -> str:
    return str(arena_pb2.TournamentState.Name(value)).removeprefix("TOURNAMENT_STATE_").lower()


def progress_line(tournament: Any, width: int = 30) -> str:
    total = max(1, tournament.matches_total)
    done = tournament.matches_done
    filled = min(width, int(width * done / total))
    bar = "#" * filled + "." * (width - filled)
    failed = f", {tournament.matches_failed} aborted" if tournament.matches_failed else ""
    return (
        f"{tournament.tournament_id} [{bar}] {done}/{tournament.matches_total} matches "
        f"({100.0 * done / total:.0f}%{failed}) {state_name(tournament.state)}"
    )


STANDINGS_HEADER = ("rank", "tier", "bot", "matches", "wins", "win%", "win% 95% CI", "points", "mean pts",
                    "forfeits", "timeouts", "refusals", "pool rating", "pool 95% CI")
"""The columns of :func:`standings_text`: this tournament's result first, the pool rating last."""
STANDINGS_NOTE = (
    "rank and tier: this tournament's result (win rate, then mean points, then fewer forfeits; a tier holds the "
    "bots not told apart).\n"
    "pool rating: the OpenSkill rating of these rules' rating pool, carried over from earlier tournaments with this "
    "one's matches applied; it only breaks the ties left in the rank."
)


def _aligned(rows: list[tuple[str, ...]], left: frozenset[int]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
            .rstrip() for row in rows]


def _one_line(text: str) -> str:
    return "".join(c if c.isprintable() else " " for c in text)


def standings_text(response: Any) -> str:
    """The standings table of a GetStandingsResponse: rank, tier, wins, win rate with its 95 % interval, points,
    counters, then the pool rating and its interval; a line naming the bots not told apart, the head-to-head
    table of a 2-seat tournament, what the columns mean, and whether the standings are final."""
    rows: list[tuple[str, ...]] = [STANDINGS_HEADER]
    for row in response.standings:
        has_rate = row.HasField("win_rate")
        rows.append((
            str(row.rank), str(row.tier or "-"), _one_line(row.bot_name), str(row.matches), str(row.wins),
            f"{100.0 * row.win_rate:.1f}" if has_rate else "-",
            f"[{100.0 * row.win_rate_low:.1f}, {100.0 * row.win_rate_high:.1f}]" if row.HasField("win_rate_low")
            else "-",
            str(row.points), f"{row.mean_points:.1f}" if row.HasField("mean_points") else "-",
            str(row.forfeits), str(row.timeouts), str(row.refusals),
            f"{row.rating:.2f}", f"[{row.rating_low:.1f}, {row.rating_high:.1f}]",
        ))
    lines = _aligned(rows, frozenset({2}))
    tiers: dict[int, list[str]] = {}
    for row in response.standings:
        tiers.setdefault(row.tier, []).append(_one_line(row.bot_name))
    shared = [names for tier, names in sorted(tiers.items()) if tier and len(names) > 1]
    if shared:
        lines.append("not yet told apart by this tournament's results (95%): "
                     + "; ".join(" = ".join(names) for names in shared))
    if response.head_to_head:
        lines += ["", "head to head (row's wins-losses against column):"]
        names = [_one_line(row.bot_name) for row in response.standings]
        cells = {(_one_line(c.bot_name), _one_line(c.opponent)): f"{c.wins}-{c.losses}" for c in response.head_to_head}
        grid = [("", *names), *((a, *(cells.get((a, b), "") if a != b else "x" for b in names)) for a in names)]
        lines += _aligned(grid, frozenset({0}))
    lines += ["", STANDINGS_NOTE, _final_line(response)]
    return "\n".join(lines)


def _final_line(response: Any) -> str:
    state = state_name(response.state) if response.state else ""
    if not response.final:
        return "provisional: the tournament is still running"
    if state in ("cancelled", "failed"):
        return f"final: the tournament was {state} (no further match starts)"
    return "final"


def plain(message: Any) -> dict[str, Any]:
    """A protobuf message as JSON-ready data with every field present: numbers as numbers (64-bit ones too),
    an unset optional field or message as ``None``, enums by name (tournament states as ``finished`` etc.),
    timestamps as ISO 8601 UTC strings."""
    out: dict[str, Any] = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        if field.is_repeated:
            out[field.name] = [_plain_value(field, item) for item in value]
        elif field.has_presence and not message.HasField(field.name):
            out[field.name] = None
        else:
            out[field.name] = _plain_value(field, value)
    return out


def _plain_value(field: Any, value: Any) -> Any:
    from google.protobuf.descriptor import FieldDescriptor

    if field.type == FieldDescriptor.TYPE_MESSAGE:
        if field.message_type.full_name == "google.protobuf.Timestamp":
            return value.ToDatetime(tzinfo=UTC).isoformat().replace("+00:00", "Z")
        return plain(value)
    if field.type == FieldDescriptor.TYPE_ENUM:
        if field.enum_type.full_name == "uno_arena.v1.TournamentState":
            return state_name(value)
        name = field.enum_type.values_by_number.get(value)
        return name.name if name is not None else value
    if field.type == FieldDescriptor.TYPE_BYTES:
        return value.hex()
    return value


def _stream(client: Client, tournament_id: str) -> Iterator[Any]:
    request = arena_pb2.WatchTournamentRequest(tournament_id=tournament_id)
    yield from client.call("WatchTournament", request, timeout=None)


def watch(client: Client, tournament_id: str, out: Any, *, quiet: bool = False) -> int:
    """Follow a tournament to its end, then print its standings; 0 if it finished."""
    tty = bool(getattr(out, "isatty", lambda: False)())
    last = None
    final_state = arena_pb2.TOURNAMENT_STATE_UNSPECIFIED
    shown = -1
    previous = ""
    for update in _stream(client, tournament_id):
        t = update.tournament
        final_state = t.state
        last = t
        line = progress_line(t)
        if quiet or line == previous:
            continue
        step = max(1, t.matches_total // 20)  # without a terminal, about 20 lines at most
        if tty:
            print("\r" + line, end="", file=out, flush=True)
        elif t.matches_done - shown >= step or t.state != arena_pb2.TOURNAMENT_STATE_RUNNING or shown < 0:
            print(line, file=out, flush=True)
            shown = t.matches_done
        else:
            continue
        previous = line
    if tty and not quiet:
        print(file=out)
    if last is None:
        return 1
    if final_state == arena_pb2.TOURNAMENT_STATE_FINISHED:
        standings = client.call("GetStandings", arena_pb2.GetStandingsRequest(tournament_id=tournament_id))
        print(standings_text(standings), file=out)
        return 0
    print(f"tournament {tournament_id} ended {state_name(final_state)}: {last.detail}", file=out)
    return 1
