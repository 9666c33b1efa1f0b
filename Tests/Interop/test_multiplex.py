"""Several channels in one subscription, and wildcard subscriptions."""

import uuid

from conftest import uniq


def test_multiplexed_subscription_receives_every_channel(node):
    channels = [uniq("mx%d" % i) for i in range(3)]
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=channels)

    for channel in channels:
        publisher.publish().channel(channel).message({"to": channel}).sync()

    received = listener.take_messages(3)
    assert sorted(m.channel for m in received) == sorted(channels)
    for m in received:
        assert m.message == {"to": m.channel}, "message for %s delivered on %s" % (m.message, m.channel)
        assert m.subscription is None
    listener.assert_no_more_messages(0.5)


def test_wildcard_subscription(node):
    base = "a" + uuid.uuid4().hex
    pattern = base + ".*"
    direct = base + ".b"
    deeper = base + ".b.c"
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[pattern])

    # Neither of these matches the pattern.
    publisher.publish().channel(base + "x.b").message({"to": "sibling"}).sync()
    publisher.publish().channel(base).message({"to": "parent"}).sync()
    # These do.
    publisher.publish().channel(direct).message({"to": direct}).sync()
    publisher.publish().channel(deeper).message({"to": deeper}).sync()

    received = listener.take_messages(2)
    assert sorted(m.channel for m in received) == sorted([direct, deeper])
    for m in received:
        assert m.message == {"to": m.channel}
        assert m.subscription == pattern
    listener.assert_no_more_messages(0.5)
