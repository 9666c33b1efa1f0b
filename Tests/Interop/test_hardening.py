"""Hardening seen from the official SDK and plain sockets: count limits refused in PubNub's shape
the SDK reads, a head of too many fields refused before it is parsed, and a request that drips
in too slowly cut off (on a node of the test's own with a short deadline)."""

import socket
import time

import pytest

from conftest import expect_http_error, own_node, uniq


@pytest.fixture(scope="module")
def tight_node():
    with own_node("--max-groups-per-keyset", "2", "--max-states-per-uuid", "2", "--request-timeout", "2") as node:
        yield node


def raw(port, data, timeout=10):
    """Sends bytes on a fresh connection and returns everything the node answers until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(data)
        chunks = []
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def test_groups_per_keyset_are_bounded_and_the_sdk_reads_the_refusal(tight_node):
    admin = tight_node.client("admin")
    first, second, third = uniq("g"), uniq("g"), uniq("g")
    for group in (first, second):
        admin.add_channel_to_channel_group().channels([uniq()]).channel_group(group).sync()
    status, error = expect_http_error(
        lambda: admin.add_channel_to_channel_group().channels([uniq()]).channel_group(third).sync())
    assert status == 400
    assert "Maximum channel groups per keyset" in str(error)
    admin.remove_channel_group().channel_group(first).sync()
    admin.add_channel_to_channel_group().channels([uniq()]).channel_group(third).sync()


def test_presence_state_is_held_on_a_bounded_number_of_channels(tight_node):
    alice = tight_node.client("alice")
    alice.set_state().channels([uniq(), uniq()]).state({"mood": "calm"}).sync()
    status, error = expect_http_error(lambda: alice.set_state().channels([uniq()]).state({"mood": "x"}).sync())
    assert status == 400
    assert "too many channels" in str(error)


def test_a_head_of_too_many_fields_is_refused(tight_node):
    fields = "".join("X-%d: v\r\n" % index for index in range(150))
    answer = raw(tight_node.port, ("GET /time/0 HTTP/1.1\r\nHost: x\r\n%s\r\n" % fields).encode())
    assert answer.startswith(b"HTTP/1.1 431 ")
    huge = b"GET /time/0 HTTP/1.1\r\nHost: x\r\n" + b"a:\r\n" * 65000
    assert raw(tight_node.port, huge).startswith(b"HTTP/1.1 431 ")


def test_a_request_dripping_in_is_cut_off_at_its_deadline(tight_node):
    with socket.create_connection(("127.0.0.1", tight_node.port), timeout=10) as connection:
        connection.sendall(b"GET /time/0 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        started = time.monotonic()
        answer = b""
        while not answer:
            try:
                connection.sendall(b"a")
            except OSError:
                break
            connection.settimeout(0.5)
            try:
                answer = connection.recv(65536)
            except socket.timeout:
                continue
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert time.monotonic() - started < 8
