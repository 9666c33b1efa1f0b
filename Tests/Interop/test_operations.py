"""Operations seen from the official SDK's traffic: the metrics and statistics of a node of the
test's own count exactly what the SDK sent and received; the probes answer."""

import json
import urllib.error
import urllib.request

import pytest

from conftest import free_port, own_node, uniq

ADMIN = "interop-admin-token-0123456789"


@pytest.fixture(scope="module")
def ops_node():
    metrics_port = free_port()
    with own_node("--admin-token", ADMIN, "--metrics-port", str(metrics_port)) as node:
        node.metrics_port = metrics_port
        yield node


def get(port, path, token=None):
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path))
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def samples(text):
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


def test_counters_match_the_sdk_traffic(ops_node):
    channel = uniq("ops")
    before = samples(get(ops_node.metrics_port, "/metrics")[1])
    publisher = ops_node.client("publisher")
    listener = ops_node.subscribe(ops_node.client("listener"), channels=[channel])
    for index in range(5):
        publisher.publish().channel(channel).message({"n": index}).sync()
    publisher.signal().channel(channel).message("s").sync()
    publisher.fire().channel(channel).message("f").sync()
    received = listener.take_messages(5)
    assert [m.message["n"] for m in received] == list(range(5))
    listener.next_signal()

    after = samples(get(ops_node.metrics_port, "/metrics")[1])

    def grew(name):
        return after.get(name, 0) - before.get(name, 0)

    assert grew('pubnode_messages_published_total{keyset="demo",kind="message"}') == 5
    assert grew('pubnode_messages_published_total{keyset="demo",kind="signal"}') == 1
    assert grew('pubnode_messages_published_total{keyset="demo",kind="fire"}') == 1
    assert grew('pubnode_messages_delivered_total{keyset="demo"}') == 6
    assert grew('pubnode_http_requests_total{family="publish",status="200"}') == 6
    assert grew('pubnode_http_requests_total{family="signal",status="200"}') == 1

    status, body = get(ops_node.port, "/v1/admin/stats?channels=200", ADMIN)
    assert status == 200
    stats = json.loads(body)
    mine = [c for c in stats["channels"] if c["name"] == channel]
    assert mine and mine[0]["publishes"] == 6, stats["channels"]


def test_probes_and_the_token_on_the_main_port(ops_node):
    assert get(ops_node.port, "/health") == (200, '{"status":"ok"}')
    assert get(ops_node.port, "/ready") == (200, '{"status":"ready"}')
    status, body = get(ops_node.port, "/metrics")
    assert status == 401 and json.loads(body)["error"] is True
    assert get(ops_node.port, "/metrics", ADMIN)[0] == 200
    assert get(ops_node.metrics_port, "/v1/admin/stats", ADMIN)[0] == 404
