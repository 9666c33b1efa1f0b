"""Cluster history: two nodes on one Redis (--redis) and one PostgreSQL (--history-url), driven
with the official PubNub Python SDK. What one node stores every node reads: messages, message
actions, and, in strict mode, every acknowledged publish of a node killed with SIGKILL.

Each test has its own PostgreSQL (the `postgres_url` fixture) and its own Redis and nodes
(cluster.py). The nodes log JSON; no node may log an error or worse (the migrations applied by
two nodes starting at once, the sweeps and the shared writes must all be quiet).
"""

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from pubnub.models.consumer.message_actions import PNMessageAction
from pubnub.pubnub import PubNub

from cluster import Cluster, raw_publish
from conftest import uniq


def _start(postgres_url, *per_node_flags):
    """A cluster whose nodes (one per entry of `per_node_flags`) start at the same time (so they
    migrate the empty database at once); its `nodes` are in the order of `per_node_flags`."""
    cluster = Cluster(count=0, flags=("--history-url", postgres_url, "--log-format", "json"))
    try:
        with ThreadPoolExecutor(max_workers=len(per_node_flags)) as pool:
            nodes = list(pool.map(lambda flags: cluster.add_node(*flags), per_node_flags))
        cluster.nodes[:] = nodes
    except BaseException:
        cluster.close()
        raise
    return cluster


def _problems(node):
    """The lines of a node's JSON log at level error or critical."""
    found = []
    with open(os.path.join(node.directory, "node.log"), errors="replace") as log:
        for line in log:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("level") in ("error", "critical"):
                found.append(line.strip())
    return found


@pytest.fixture
def pair(postgres_url):
    """Two nodes in default mode on one Redis and one PostgreSQL, started at once."""
    cluster = _start(postgres_url, (), ())
    try:
        yield cluster
        for node in cluster.nodes:
            assert _problems(node) == [], cluster.logs()
    finally:
        cluster.close()


def _fetch_all(pn, channel):
    """Every message of `channel` (newest pages first, 100 at a time) as (timetoken, message), oldest first."""
    found, start = [], None
    while True:
        builder = pn.fetch_messages().channels(channel).maximum_per_channel(100)
        if start is not None:
            builder = builder.start(start)
        page = builder.sync().result.channels.get(channel, [])
        if not page:
            return sorted(found)
        found += [(int(item.timetoken), item.message) for item in page]
        start = int(page[0].timetoken)


def test_messages_published_through_one_node_are_fetched_through_the_other(pair):
    a, b = pair[0], pair[1]
    channel = uniq("clh")
    publisher, reader = a.client("pub-a"), b.client("reader-b")
    sent = [(int(publisher.publish().channel(channel).message({"n": i}).meta({"i": i}).sync().result.timetoken), {"n": i})
            for i in range(120)]
    publisher.publish().channel(channel).message("live only").should_store(False).sync()

    assert _fetch_all(reader, channel) == sent
    page = reader.fetch_messages().channels(channel).maximum_per_channel(3).include_meta(True).sync().result
    assert [(int(m.timetoken), m.message, m.meta) for m in page.channels[channel]] == \
        [(tt, message, {"i": message["n"]}) for tt, message in sent[-3:]]
    history = reader.history().channel(channel).count(100).include_timetoken(True).sync().result
    assert [(int(m.timetoken), m.entry) for m in history.messages] == sent[-100:]
    oldest = reader.history().channel(channel).count(10).reverse(True).include_timetoken(True).sync().result
    assert [(int(m.timetoken), m.entry) for m in oldest.messages] == sent[:10]
    counts = reader.message_counts().channel(channel).channel_timetokens([sent[99][0]]).sync().result
    assert counts.channels[channel] == 20

    # Both nodes write: what B publishes is read through A too, in timetoken order.
    more = int(reader.publish().channel(channel).message("from b").sync().result.timetoken)
    assert more > sent[-1][0]
    assert _fetch_all(a.client("reader-a"), channel) == sent + [(more, "from b")]


def test_message_actions_added_through_one_node_are_read_through_the_other(pair):
    a, b = pair[0], pair[1]
    channel = uniq("clh-act")
    writer, reader = a.client("writer"), b.client("reader")
    message_tt = writer.publish().channel(channel).message("liked").sync().result.timetoken
    action = PNMessageAction().create(type="reaction", value="smiley", message_timetoken=str(message_tt))
    added = writer.add_message_action().channel(channel).message_action(action).sync().result

    listed = reader.get_message_actions().channel(channel).sync().result.actions
    assert [(x.type, x.value, x.uuid, x.action_timetoken) for x in listed] == \
        [("reaction", "smiley", writer.config.user_id, added.action_timetoken)]
    items = reader.fetch_messages().channels(channel).include_message_actions(True).sync().result.channels[channel]
    assert [item.message for item in items] == ["liked"]
    assert items[0].actions == {"reaction": {"smiley": [
        {"uuid": writer.config.user_id, "actionTimetoken": added.action_timetoken}]}}

    # Its author removes it through B; A no longer lists it.
    config = writer.config.copy()
    config.origin = b.address
    PubNub(config).remove_message_action().channel(channel).message_timetoken(message_tt) \
        .action_timetoken(added.action_timetoken).sync()
    assert writer.get_message_actions().channel(channel).sync().result.actions == []


def test_sigkill_of_a_strict_node_loses_no_acknowledged_message(postgres_url):
    cluster = _start(postgres_url, ("--history-strict", "true"), ())
    try:
        doomed, survivor = cluster[0], cluster[1]
        channel = uniq("clh-kill")
        acknowledged, enough = [], threading.Event()

        def publish(tag):
            for index in range(100_000):
                message = {"t": tag, "n": index}
                try:
                    status, body = raw_publish(doomed, channel, message, timeout=5)
                except OSError:
                    return  # the node is gone
                if status == 200:
                    acknowledged.append((int(body[2]), message))
                if len(acknowledged) >= 60:
                    enough.set()

        publishers = [threading.Thread(target=publish, args=(tag,), daemon=True) for tag in range(3)]
        for thread in publishers:
            thread.start()
        assert enough.wait(30), cluster.logs()
        doomed.kill()  # while publishes are in flight
        for thread in publishers:
            thread.join(timeout=15)
        assert not any(thread.is_alive() for thread in publishers)

        fetched = dict(_fetch_all(survivor.client("after"), channel))
        missing = [(tt, message) for tt, message in acknowledged if fetched.get(tt) != message]
        assert missing == [], "acknowledged but not stored: %s" % missing[:5]
        assert len(acknowledged) >= 60
        assert _problems(survivor) == [], cluster.logs()
    finally:
        cluster.close()
