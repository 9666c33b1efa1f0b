"""Message history: v3 fetch, v2 history, message counts, delete, store=0, and durability."""

import signal
import tempfile
import time

import pytest

from pubnub.pnconfiguration import PNConfiguration
from pubnub.pubnub import PubNub

from conftest import WAIT, expect_http_error, free_port, start_node, uniq


def publish_all(pn, channel, messages, **options):
    timetokens = []
    for message in messages:
        builder = pn.publish().channel(channel).message(message)
        if "meta" in options:
            builder = builder.meta(options["meta"])
        if "should_store" in options:
            builder = builder.should_store(options["should_store"])
        timetokens.append(int(builder.sync().result.timetoken))
    return timetokens


def test_fetch_returns_stored_messages_with_uuid_and_meta(node):
    channel = uniq("hist")
    pn = node.client("alice")
    tts = publish_all(pn, channel, [{"n": 1}, "two", [3]], meta={"k": "v"})

    result = pn.fetch_messages().channels(channel).include_meta(True).include_uuid(True).sync().result
    items = result.channels[channel]
    assert [item.message for item in items] == [{"n": 1}, "two", [3]]
    assert [int(item.timetoken) for item in items] == tts
    assert all(item.uuid == pn.config.user_id for item in items)
    assert all(item.meta == {"k": "v"} for item in items)


def test_fetch_several_channels_and_boundaries(node):
    a, b = uniq("ha"), uniq("hb")
    pn = node.client()
    tts = publish_all(pn, a, list(range(5)))
    publish_all(pn, b, ["b"])

    both = pn.fetch_messages().channels([a, b]).maximum_per_channel(2).sync().result.channels
    assert [item.message for item in both[a]] == [3, 4]
    assert [item.message for item in both[b]] == ["b"]
    # start is exclusive, end inclusive.
    sliced = pn.fetch_messages().channels(a).start(tts[4]).end(tts[1]).sync().result.channels[a]
    assert [item.message for item in sliced] == [1, 2, 3]


def test_v2_history_with_timetokens_meta_and_reverse(node):
    channel = uniq("h2")
    pn = node.client()
    tts = publish_all(pn, channel, ["a", "b", "c"], meta={"m": 1})

    newest = pn.history().channel(channel).count(2).include_timetoken(True).include_meta(True).sync().result
    assert [m.entry for m in newest.messages] == ["b", "c"]
    assert [m.timetoken for m in newest.messages] == tts[1:]
    assert [m.meta for m in newest.messages] == [{"m": 1}, {"m": 1}]
    assert (newest.start_timetoken, newest.end_timetoken) == (tts[1], tts[2])

    oldest = pn.history().channel(channel).count(2).reverse(True).sync().result
    assert [m.entry for m in oldest.messages] == ["a", "b"]


def test_message_counts(node):
    a, b = uniq("ca"), uniq("cb")
    pn = node.client()
    tts = publish_all(pn, a, [1, 2, 3])
    publish_all(pn, b, [1])

    single = pn.message_counts().channel([a]).channel_timetokens([tts[0]]).sync().result
    assert single.channels == {a: 2}
    several = pn.message_counts().channel([a, b]).channel_timetokens([0, tts[2]]).sync().result
    assert several.channels == {a: 3, b: 1}


def test_delete_range_and_single_message(node):
    channel = uniq("del")
    pn = node.client()
    tts = publish_all(pn, channel, ["x", "y", "z"])

    pn.delete_messages().channel(channel).start(tts[1] + 1).end(tts[1]).sync()
    left = pn.fetch_messages().channels(channel).sync().result.channels[channel]
    assert [item.message for item in left] == ["x", "z"]

    pn.delete_messages().channel(channel).sync()
    assert channel not in pn.fetch_messages().channels(channel).sync().result.channels


def test_should_store_false_and_signals_are_not_stored(node):
    channel = uniq("nostore")
    pn = node.client()
    publish_all(pn, channel, ["kept"])
    publish_all(pn, channel, ["dropped"], should_store=False)
    pn.signal().channel(channel).message("sig").sync()

    items = pn.fetch_messages().channels(channel).sync().result.channels[channel]
    assert [item.message for item in items] == ["kept"]


def test_bad_history_input_is_refused(node):
    pn = node.client()
    status, _ = expect_http_error(lambda: pn.history().channel(uniq()).start(-5).sync())
    assert status == 400
    other = node.client(subscribe_key="no-such-key")
    status, _ = expect_http_error(lambda: other.fetch_messages().channels("c").sync())
    assert status == 400


# --- durability: a node of our own, killed with SIGKILL ---------------------------------------

def _client(port):
    config = PNConfiguration()
    config.publish_key = config.subscribe_key = "demo"
    config.user_id = "crash-test"
    config.origin = "127.0.0.1:%d" % port
    config.ssl = False
    config.daemon = True
    config.non_subscribe_request_timeout = WAIT
    return PubNub(config)


def _fetch_all(pn, channel):
    found, start = [], None
    while True:
        builder = pn.fetch_messages().channels(channel).maximum_per_channel(100)
        if start is not None:
            builder = builder.start(start)
        page = builder.sync().result.channels.get(channel, [])
        if not page:
            return sorted(found)
        found += [int(item.timetoken) for item in page]
        start = int(page[0].timetoken)


@pytest.mark.parametrize("strict", [False, True])
def test_acknowledged_publishes_survive_sigkill(strict):
    """Default mode: acknowledged more than the flush interval (10 ms) ago survives kill -9.
    Strict mode: acknowledged at all survives kill -9."""
    with tempfile.TemporaryDirectory() as data_dir:
        port = free_port()
        extra = ["--history-strict", "true"] if strict else []
        process = start_node(data_dir, port, *extra)
        try:
            pn = _client(port)
            channel = uniq("crash")
            tts = publish_all(pn, channel, list(range(150)))
            if not strict:
                time.sleep(0.2)  # well past the 10 ms flush interval
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
        process = start_node(data_dir, port)
        try:
            pn = _client(port)
            assert _fetch_all(pn, channel) == tts
            assert int(pn.time().sync().result.value_as_int) > tts[-1]
        finally:
            process.terminate()
            process.wait(timeout=10)
