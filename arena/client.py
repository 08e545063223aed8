"""A client of the organizer API (``uno_arena.v1.ArenaService``) and the texts it shows: :class:`Client`,
:func:`watch` (follow a tournament to its end), :func:`progress_line`, :func:`standings_text`. Used by the CLI
commands, the demo, the local arena and the load benchmark.

The target is ``$UNO_ARENA_TARGET`` (else ``localhost:50051``); ``authorization: Bearer TOKEN`` is sent with
the token given (the admin token, or a bot's own token for what a bot may read), else ``$UNO_ARENA_ADMIN_TOKEN``,
else the contents of the file ``$UNO_ARENA_ADMIN_TOKEN_FILE`` (e.g. the one ``uno-arena serve
--generate-admin-token FILE`` wrote); with none of them the calls are anonymous.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
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

    def close(self) -> None:
        self.channel.close()


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


def standings_text(response: Any) -> str:
    header = (
        f"{'rank':>4}  {'bot':<20} {'matches':>7} {'wins':>5} {'win%':>6} {'points':>8} "
        f"{'rating':>7} {'95% CI':>17} {'forfeits':>8} {'timeouts':>8} {'refusals':>8}"
    )
    lines = [header]
    for row in response.standings:
        rate = f"{100.0 * row.wins / row.matches:.1f}" if row.matches else "-"
        ci = f"[{row.rating_low:.1f}, {row.rating_high:.1f}]"
        lines.append(
            f"{row.rank:>4}  {row.bot_name:<20} {row.matches:>7} {row.wins:>5} {rate:>6} {row.points:>8} "
            f"{row.rating:>7.2f} {ci:>17} {row.forfeits:>8} {row.timeouts:>8} {row.refusals:>8}"
        )
    lines.append("final" if response.final else "provisional: the tournament is still running")
    return "\n".join(lines)


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
