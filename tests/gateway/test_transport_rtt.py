"""The kernel's round trip of a connection, the one measure lag compensation trusts (issue 23, item 5): gRPC peer
strings read as addresses, the rule that combines it with the Pongs, and a real loopback connection read through
the kernel's socket diagnostics."""

from __future__ import annotations

import socket

import pytest

from arena.server.gateway.transport import lag_s, peer_address, tcp_round_trips


def test_peer_strings_read_as_addresses() -> None:
    assert peer_address("ipv4:10.0.0.5:40000") == ("10.0.0.5", 40000)
    assert peer_address("ipv6:[::1]:40001") == ("::1", 40001)
    assert peer_address("ipv6:[::ffff:127.0.0.1]:40002") == ("127.0.0.1", 40002)  # IPv4 on a dual-stack socket
    for other in ("unix:/tmp/arena.sock", "ipv4:not-an-address:1", "ipv4:10.0.0.5:port", ""):
        assert peer_address(other) is None


def test_pongs_never_raise_the_lag_granted() -> None:
    assert lag_s(None, [0.2, 0.3]) == 0.0  # no kernel measure: no lag compensation, whatever the Pongs say
    assert lag_s(0.002, []) == 0.002
    assert lag_s(0.002, [0.242, 0.25]) == 0.002  # Pongs held 240 ms: the kernel's loopback round trip stands
    assert lag_s(0.08, [0.05]) == 0.05  # the Pongs only ever lower it


def test_no_connection_no_round_trip() -> None:
    assert tcp_round_trips(1) == {}  # tcpmux: no server here


@pytest.mark.integration
def test_the_kernel_reports_a_loopback_connections_round_trip() -> None:
    for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::")):
        with socket.socket(family) as server:
            server.bind((host, 0))
            server.listen()
            port = server.getsockname()[1]
            with socket.create_connection(("127.0.0.1", port)) as client:
                accepted, _ = server.accept()
                with accepted:
                    for _ in range(3):
                        client.sendall(b"?")
                        accepted.recv(1)
                        accepted.sendall(b"!")
                        client.recv(1)
                    found = tcp_round_trips(port)
                    peer = client.getsockname()[:2]
                    assert set(found) == {peer}, found  # a dual-stack socket's IPv4 peer reads as IPv4
                    assert 0 < found[peer] < 1.0
