"""Where the arena is and who calls it: the target (``$UNO_ARENA_TARGET``, else ``localhost:50051``), the tokens (given,
in a file, or in the environment) and the TLS credentials. Shared by the organizer API's client and the Python bot
kit, which imports this without the client's texts."""

from __future__ import annotations

import os

import grpc

TARGET_ENV = "UNO_ARENA_TARGET"
ADMIN_TOKEN_ENV = "UNO_ARENA_ADMIN_TOKEN"
ADMIN_TOKEN_FILE_ENV = "UNO_ARENA_ADMIN_TOKEN_FILE"
DEFAULT_TARGET = "localhost:50051"


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
