"""The gap signal: an answer to a subscriber whose cursor the buffer overran carries a
`missed` field, which the official SDK ignores while it delivers the buffered messages."""

import json
import urllib.request

from conftest import now_tt, origin, uniq


def test_sdk_catching_up_past_the_buffer_receives_the_buffered_messages(node):
    channel = uniq("gap")
    publisher = node.client("pub")
    cursor = now_tt()
    for index in range(130):
        publisher.publish().channel(channel).message(index).sync()
    raw = json.loads(urllib.request.urlopen(
        "http://%s/v2/subscribe/demo/%s/0?tt=%d" % (origin(), channel, cursor), timeout=10).read())
    assert raw["missed"][0]["channel"] == channel
    assert [m["d"] for m in raw["m"]] == list(range(30, 130))

    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel], timetoken=cursor)
    received = [m.message for m in listener.take_messages(100)]
    assert received == list(range(30, 130))
    assert not listener.subscribe_failed()
