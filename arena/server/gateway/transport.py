"""The kernel's own round trip of each bot stream's TCP connection, the measure lag compensation rests on.

A Ping -> Pong round trip is the bot's to stretch (one that holds its Pongs would be granted more time). gRPC's Python
API shows neither the socket nor its HTTP/2 PINGs, so the gateway asks the kernel: one ``NETLINK_SOCK_DIAG`` dump of
the established TCP sockets on its port (:func:`tcp_round_trips`, ``ss -ti``'s ``minrtt``) gives, per peer, the least
round trip measured from the handshake and ACKs, which no message of the bot moves: the measure errs low, never high.
Linux only: elsewhere, or where the dump is refused, no lag compensation is granted.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import struct
from collections.abc import Collection, Iterable

log = logging.getLogger(__name__)

Peer = tuple[str, int]
"""A connection's remote end: its IP address (an IPv4-mapped IPv6 one as IPv4) and port."""

_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST, _NLM_F_DUMP = 0x1, 0x300
_NLMSG_ERROR, _NLMSG_DONE = 2, 3
_TCP_ESTABLISHED = 1
_INET_DIAG_INFO = 2
_HEADER = struct.Struct("=IHHII")
"""nlmsghdr: length, type, flags, sequence, port id."""
_REQUEST = struct.Struct("=BBBxI")
"""inet_diag_req_v2 up to its socket id: family, protocol, extensions wanted, states."""
_SOCKID = struct.Struct("!HH16s16sI8s")
"""inet_diag_sockid: source and destination port (big endian), addresses, interface, cookie."""
_MESSAGE = struct.Struct("=BBBB48sIIIII")
"""inet_diag_msg: family, state, timer, retransmits, socket id, expires, queues, uid, inode."""
_ATTRIBUTE = struct.Struct("=HH")
_INET_DIAG_REQ_BYTECODE = 1
_BC_OP = struct.Struct("=BBH")
"""inet_diag_bc_op: code, bytes to skip when it holds, when it does not (past the end: the socket is left out)."""
_BC_S_GE, _BC_S_LE = 2, 3
_TCPI_RTT_AT, _TCPI_MIN_RTT_AT = 68, 148
"""Offsets in ``struct tcp_info`` of ``tcpi_rtt`` and ``tcpi_min_rtt`` (microseconds; the latter since Linux 4.6)."""
_NO_SAMPLE = 0xFFFFFFFF


def lag_s(kernel_rtt_s: float | None, pong_rtts: Collection[float]) -> float:
    """The round trip lag compensation grants (before its cap): the kernel's measure of the connection, or the least
    Ping -> Pong time when that is smaller (both bound the network's share from above; only the Pongs are the bot's
    to stretch, and stretching them can only make them larger); 0 while the kernel has no measure."""
    if kernel_rtt_s is None:
        return 0.0
    return min((kernel_rtt_s, *pong_rtts))


def peer_address(peer: str) -> Peer | None:
    """The remote end of a gRPC peer string (``ipv4:10.0.0.5:40000``, ``ipv6:[::1]:40000``); None for another
    transport (``unix:...``) or a form not understood."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return None
    host, _, port = rest.rpartition(":")
    try:
        return _normal(host.strip("[]")), int(port)
    except ValueError:
        return None


def _normal(host: str) -> str:
    address = ipaddress.ip_address(host)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


_warned: list[bool] = []  # the failure to read them is logged once


def tcp_round_trips(local_port: int) -> dict[Peer, float]:
    """The least round trip (seconds) the kernel measured on each established TCP connection to ``local_port``,
    by peer; empty where the kernel's socket diagnostics cannot be read (logged once)."""
    found: dict[Peer, float] = {}
    try:
        with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, _NETLINK_SOCK_DIAG) as diag:
            for family in (socket.AF_INET, socket.AF_INET6):
                found.update(_dump(diag, family, local_port))
    except (OSError, AttributeError, ValueError, struct.error) as error:  # no AF_NETLINK (not Linux), refused
        if not _warned:
            _warned.append(True)
            log.warning("cannot read the kernel's TCP round trips (%s): no lag compensation is granted", error)
    return found


def _dump(diag: socket.socket, family: int, local_port: int) -> Iterable[tuple[Peer, float]]:
    request = _REQUEST.pack(family, socket.IPPROTO_TCP, 1 << (_INET_DIAG_INFO - 1), 1 << _TCP_ESTABLISHED)
    request += bytes(_SOCKID.size) + _port_filter(local_port)
    diag.send(_HEADER.pack(_HEADER.size + len(request), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST | _NLM_F_DUMP, 1, 0)
              + request)
    while True:
        data = diag.recv(1 << 16)
        offset = 0
        while offset + _HEADER.size <= len(data):
            length, kind, _flags, _seq, _pid = _HEADER.unpack_from(data, offset)
            if kind == _NLMSG_DONE:
                return
            if kind == _NLMSG_ERROR:
                (code,) = struct.unpack_from("=i", data, offset + _HEADER.size)
                raise OSError(-code, f"sock_diag refused the dump (errno {-code})")
            found = _parse(data[offset + _HEADER.size:offset + length], family, local_port)
            if found is not None:
                yield found
            offset += (length + 3) & ~3
        if not data:
            return


def _port_filter(local_port: int) -> bytes:
    """A socket filter the kernel runs itself (``sport >= port and sport <= port``, as ``ss`` builds them): a
    dump holds the gateway's own connections only, however many sockets the host has."""
    program = (_BC_OP.pack(_BC_S_GE, 8, 20) + _BC_OP.pack(0, 0, local_port)
               + _BC_OP.pack(_BC_S_LE, 8, 12) + _BC_OP.pack(0, 0, local_port))
    return _ATTRIBUTE.pack(_ATTRIBUTE.size + len(program), _INET_DIAG_REQ_BYTECODE) + program


def _parse(body: bytes, family: int, local_port: int) -> tuple[Peer, float] | None:
    """One socket of the dump: its peer and least round trip, or None if it is not on ``local_port`` or the kernel
    has no round trip for it yet."""
    _fam, _state, _timer, _retrans, sockid, *_rest = _MESSAGE.unpack_from(body)
    sport, dport, _src, dst, _if, _cookie = _SOCKID.unpack(sockid)
    if sport != local_port:
        return None
    size = 4 if family == socket.AF_INET else 16
    host = _normal(socket.inet_ntop(family, dst[:size]))
    offset = _MESSAGE.size
    while offset + _ATTRIBUTE.size <= len(body):
        length, kind = _ATTRIBUTE.unpack_from(body, offset)
        if length < _ATTRIBUTE.size:
            return None
        if kind == _INET_DIAG_INFO:
            info = body[offset + _ATTRIBUTE.size:offset + length]
            at = _TCPI_MIN_RTT_AT if len(info) >= _TCPI_MIN_RTT_AT + 4 else _TCPI_RTT_AT
            (micros,) = struct.unpack_from("=I", info, at)
            return ((host, dport), micros / 1e6) if micros not in (0, _NO_SAMPLE) else None
        offset += (length + 3) & ~3
    return None
