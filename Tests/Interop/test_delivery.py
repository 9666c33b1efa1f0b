"""Live delivery: waking parked long-polls and fanning out to several subscribers."""

import time

from conftest import uniq


def test_parked_long_poll_is_woken_promptly(node):
    channel = uniq("wake")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])
    # Let the first long-poll reach the node and park there.
    time.sleep(1.0)

    start = time.monotonic()
    publisher.publish().channel(channel).message("wake up").sync()
    received = listener.next_message()
    elapsed = time.monotonic() - start
    assert received.message == "wake up"
    assert elapsed < 2.0, "parked long-poll answered only after %.2f s" % elapsed


def test_fan_out_to_several_subscribers(node):
    channel = uniq("fanout")
    publisher = node.client("pub")
    listeners = [node.subscribe(node.client("sub%d" % i), channels=[channel]) for i in range(3)]

    result = publisher.publish().channel(channel).message({"hello": "all"}).sync()

    for listener in listeners:
        m = listener.next_message()
        assert m.message == {"hello": "all"}
        assert m.timetoken == result.result.timetoken
        listener.assert_no_more_messages(0.2)


def test_publisher_receives_its_own_message(node):
    channel = uniq("self")
    client = node.client("both")
    listener = node.subscribe(client, channels=[channel])

    client.publish().channel(channel).message("echo").sync()

    m = listener.next_message()
    assert m.message == "echo"
    assert m.publisher == client.config.user_id
