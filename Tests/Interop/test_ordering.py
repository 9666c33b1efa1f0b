"""Ordering within a channel and catch-up from a past timetoken."""

from conftest import uniq

# The node keeps the most recent 100 messages of every channel.
RING = 100


def test_fifty_messages_arrive_complete_and_in_order(node):
    channel = uniq("order")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])

    published = []
    for seq in range(50):
        published.append(publisher.publish().channel(channel).message({"seq": seq}).sync().result.timetoken)

    received = listener.take_messages(50)
    assert [m.message["seq"] for m in received] == list(range(50))
    assert [m.timetoken for m in received] == published
    timetokens = [m.timetoken for m in received]
    assert timetokens == sorted(timetokens), "timetokens go backwards within one channel"
    listener.assert_no_more_messages(0.5)


def test_catch_up_from_timetoken_delivers_latest_ring_in_order(node):
    channel = uniq("catchup")
    publisher = node.client("pub")
    t0 = int(publisher.time().sync().result)

    total = RING + 20
    for seq in range(total):
        publisher.publish().channel(channel).message({"seq": seq}).sync()

    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel], timetoken=t0)

    received = listener.take_messages(RING)
    assert [m.message["seq"] for m in received] == list(range(total - RING, total))
    listener.assert_no_more_messages(1.0)


def test_catch_up_then_live(node):
    """After replaying history the same subscription keeps receiving live messages."""
    channel = uniq("catchup-live")
    publisher = node.client("pub")
    t0 = int(publisher.time().sync().result)
    for seq in range(3):
        publisher.publish().channel(channel).message({"seq": seq}).sync()

    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel], timetoken=t0)
    assert [m.message["seq"] for m in listener.take_messages(3)] == [0, 1, 2]

    publisher.publish().channel(channel).message({"seq": 3}).sync()
    assert listener.next_message().message == {"seq": 3}
    listener.assert_no_more_messages(0.5)
