"""Cluster mode seen by the official SDK: three nodes on one Redis behave as one node.

Each test's cluster is its own (see cluster.py): a redis-server on a free loopback port and nodes
started with `--redis`. Channel names are unique, so tests sharing the module's cluster do not
see each other's messages.
"""

import json
import os
import tempfile
import threading
import time

import pytest
from pubnub.exceptions import PubNubException

from cluster import Cluster, http_get, raw_publish, ready_status, wait_for
from conftest import WAIT, expect_http_error, status_code_of, uniq
from test_hooks import Receiver


@pytest.fixture(scope="module")
def cluster():
    """Three nodes on one Redis, shared by the tests that do not break anything."""
    nodes = Cluster(count=3)
    try:
        yield nodes
    finally:
        nodes.close()


def test_subscribers_on_three_nodes_receive_the_same_messages_in_the_same_order(cluster):
    channel = uniq("cl-order")
    listeners = []
    for index, node in enumerate(cluster.nodes):
        listeners.append(node.subscribe(node.client("sub%d" % index), channels=[channel]))
    publishers = [node.client("pub") for node in cluster.nodes]
    for index in range(50):
        publishers[index % 3].publish().channel(channel).message({"n": index}).sync()

    sequences = []
    for listener in listeners:
        got = listener.take_messages(50)
        timetokens = [m.timetoken for m in got]
        assert all(a < b for a, b in zip(timetokens, timetokens[1:])), "timetokens not strictly increasing"
        sequences.append([(m.message["n"], m.timetoken) for m in got])
    assert [n for n, _ in sequences[0]] == list(range(50))
    assert sequences[0] == sequences[1] == sequences[2]
    for listener in listeners:
        listener.assert_no_more_messages(0.5)


def test_a_subscriber_whose_node_is_killed_catches_up_on_another_node(cluster):
    channel = uniq("cl-catchup")
    doomed = cluster.add_node()
    first = doomed.client("sub")
    before = doomed.subscribe(first, channels=[channel])
    publisher = cluster[2].client("pub")
    for index in range(5):
        publisher.publish().channel(channel).message(index).sync()
    seen = before.take_messages(5)
    assert [m.message for m in seen] == list(range(5))
    cursor = seen[-1].timetoken

    doomed.kill()
    first.stop()
    for index in range(5, 15):
        publisher.publish().channel(channel).message(index).sync()

    resumed = cluster[1].subscribe(cluster[1].client("sub-again"), channels=[channel], timetoken=cursor)
    missed = resumed.take_messages(10)
    assert [m.message for m in missed] == list(range(5, 15))
    timetokens = [m.timetoken for m in missed]
    assert timetokens[0] > cursor and all(a < b for a, b in zip(timetokens, timetokens[1:]))
    resumed.assert_no_more_messages(0.5)
    assert all(node.alive() for node in cluster.nodes if node is not doomed)


def test_groups_are_shared_and_reach_a_subscriber_parked_on_another_node(cluster):
    group, first, later = uniq("cl-group"), uniq("cl-g1"), uniq("cl-g2")
    admin_a = cluster[0].client("admin")
    admin_a.add_channel_to_channel_group().channel_group(group).channels([first]).sync()
    listed = cluster[1].client("reader").list_channels_in_channel_group().channel_group(group).sync().result
    assert listed.channels == [first]

    listener = cluster[2].subscribe(cluster[2].client("sub"), groups=[group])
    admin_a.add_channel_to_channel_group().channel_group(group).channels([later]).sync()
    listed = cluster[1].client("reader").list_channels_in_channel_group().channel_group(group).sync().result
    assert sorted(listed.channels) == sorted([first, later])

    cluster[1].client("pub").publish().channel(later).message("to the later channel").sync()
    message = listener.next_message()
    assert (message.channel, message.message) == (later, "to the later channel")
    assert message.subscription == group


def test_a_wildcard_subscriber_receives_what_other_nodes_accept(cluster):
    prefix = uniq("cl-wild")
    listener = cluster[0].subscribe(cluster[0].client("sub"), channels=[prefix + ".*"])
    cluster[1].client("pub").publish().channel(prefix + ".one").message("from node 1").sync()
    cluster[2].client("pub").publish().channel(prefix + ".two").message("from node 2").sync()
    got = listener.take_messages(2)
    assert [(m.channel, m.message) for m in got] == [(prefix + ".one", "from node 1"),
                                                      (prefix + ".two", "from node 2")]
    assert all(m.subscription == prefix + ".*" for m in got)


def test_presence_is_shared_and_joins_are_announced_once(cluster):
    channel = uniq("cl-pres")
    watcher = cluster[2].subscribe(cluster[2].client("watcher"), channels=[channel + "-pnpres"])
    alice, bob = cluster[0].client("alice"), cluster[1].client("bob")
    cluster[0].subscribe(alice, channels=[channel], presence=True)
    cluster[1].subscribe(bob, channels=[channel], presence=True)

    def both_listed():
        result = cluster[2].client("asker").here_now().channels([channel]).include_uuids(True).sync().result
        return {o.uuid for c in result.channels for o in c.occupants} == {alice.uuid, bob.uuid}

    wait_for(both_listed, "here-now on a third node to list both uuids", timeout=WAIT)
    joins = {}
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            event = watcher.presences.get(timeout=max(0.05, deadline - time.monotonic()))
        except Exception:
            continue
        if event.event == "join":
            joins[event.uuid] = joins.get(event.uuid, 0) + 1
    assert joins.get(alice.uuid) == 1 and joins.get(bob.uuid) == 1, joins


def test_after_publish_hooks_run_once_per_message_in_the_whole_cluster():
    receiver = Receiver()
    with tempfile.TemporaryDirectory() as directory:
        config = os.path.join(directory, "hooks.json")
        with open(config, "w") as f:
            json.dump({"hooks": [{"name": "audit", "event": "after-publish", "subscribeKey": "demo",
                                  "channels": "*", "url": receiver.url + "/after", "secret": "interop-secret"}]}, f)
        nodes = Cluster(count=3, flags=("--config", config))
        try:
            channel = uniq("cl-hooks")
            publishers = [node.client("pub") for node in nodes.nodes]
            for index in range(9):
                publishers[index % 3].publish().channel(channel).message({"n": index}).sync()
            seen = []
            deadline = time.monotonic() + WAIT
            while len(seen) < 9 and time.monotonic() < deadline:
                call = receiver.next("/after", lambda e: e.get("channel") == channel,
                                     timeout=max(0.1, deadline - time.monotonic()))
                seen.append(call["event"]["message"]["n"])
            assert sorted(seen) == list(range(9))
            # Any duplicate would come from another node's outbox at about the same time.
            with pytest.raises(AssertionError):
                receiver.next("/after", lambda e: e.get("channel") == channel, timeout=1.5)
        finally:
            nodes.close()
            receiver.close()


class BackgroundPublisher(threading.Thread):
    """Publishes through `node` every 50 ms and records (status, body) of every answer."""

    def __init__(self, node, channel):
        super().__init__(daemon=True)
        self.node, self.channel = node, channel
        self.answers = []
        self.lock = threading.Lock()
        self.halt = threading.Event()

    def run(self):
        index = 0
        while not self.halt.is_set():
            try:
                answer = raw_publish(self.node, self.channel, {"bg": index}, timeout=5)
            except OSError as error:
                answer = (0, repr(error))
            with self.lock:
                self.answers.append(answer)
            index += 1
            self.halt.wait(0.05)

    def since(self, start):
        with self.lock:
            return list(self.answers[start:])

    def count(self):
        with self.lock:
            return len(self.answers)


def is_publish_503(answer):
    status, body = answer
    return (status == 503 and isinstance(body, list) and len(body) == 3 and body[0] == 0
            and body[1].startswith("Service Unavailable") and body[2].isdigit())


def test_redis_restarted_under_light_load_service_resumes():
    nodes = Cluster(count=3)
    background = None
    try:
        channel = uniq("cl-restart")
        subscriber = nodes[1].client("sub")
        listener = nodes[1].subscribe(subscriber, channels=[channel])
        background = BackgroundPublisher(nodes[0], channel)
        background.start()
        wait_for(lambda: background.count() >= 3, "the first background publishes")
        assert all(status == 200 for status, _ in background.since(0)), background.since(0)

        nodes.redis.stop()
        outage = background.count()
        wait_for(lambda: any(is_publish_503(a) for a in background.since(outage)),
                 "a publish answered 503 while Redis is away")
        assert all(a[0] in (200, 503) for a in background.since(outage)), background.since(outage)
        assert all(is_publish_503(a) for a in background.since(outage) if a[0] == 503)
        wait_for(lambda: ready_status(nodes[0]) == 503, "/ready 503 while Redis is away")
        status, body = http_get(nodes[0].base + "/ready")
        assert status == 503 and "redis" in json.loads(body).get("reasons", []), body

        status, error = expect_http_error(
            lambda: nodes[2].client("sdk-pub").publish().channel(channel).message("lost").sync())
        assert status == 503, error

        nodes.redis.start()
        back = background.count()
        wait_for(lambda: any(a[0] == 200 for a in background.since(back)), "publishes to succeed again",
                 timeout=15)
        for node in nodes.nodes:
            wait_for(lambda: ready_status(node) == 200, "/ready 200 after Redis returned", timeout=15)
        assert all(node.alive() for node in nodes.nodes), nodes.logs()

        envelope = nodes[2].client("pub-after").publish().channel(channel).message("after the restart").sync()
        after = envelope.result.timetoken
        deadline = time.monotonic() + WAIT
        while True:
            message = listener.next_message(timeout=max(0.1, deadline - time.monotonic()))
            if message.message == "after the restart":
                assert message.timetoken == after
                break
        assert not listener.subscribe_failed(), listener.status_log()
        assert all(node.alive() for node in nodes.nodes), nodes.logs()
    except AssertionError:
        print(nodes.logs())
        raise
    finally:
        if background is not None:
            background.halt.set()
            background.join(timeout=10)
        nodes.close()


def test_the_sdk_sees_a_publish_while_redis_is_away_as_a_503():
    nodes = Cluster(count=1)
    try:
        nodes.redis.stop()
        wait_for(lambda: ready_status(nodes[0]) == 503, "/ready 503 while Redis is away")
        client = nodes[0].client("pub")
        try:
            client.publish().channel(uniq("cl-503")).message({"x": 1}).sync()
        except PubNubException as error:
            assert status_code_of(error) == 503
            assert "Service Unavailable" in str(error)
        else:
            raise AssertionError("a publish succeeded while Redis was away")
        assert nodes[0].alive()
    finally:
        nodes.close()


def test_a_cluster_node_drains_and_exits_on_sigterm_after_serving_publishes():
    # Publishes from many connections give each of the node's event loops its own Redis
    # connection; draining must not wait on loops the HTTP front has already shut down.
    nodes = Cluster(count=1)
    try:
        node = nodes[0]
        threads = [threading.Thread(target=lambda i=i: [raw_publish(node, uniq("cl-drain"), {"n": i}) for _ in range(20)])
                   for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        node.process.terminate()
        node.process.wait(timeout=15)
        assert node.process.returncode == 0, node.log_tail()
    finally:
        nodes.close()
