"""Signals and fire (publish that is not delivered to subscribers)."""

import pytest

from pubnub.exceptions import PubNubException

from conftest import expect_http_error, uniq


def test_signal_is_delivered_to_signal_callback(node):
    channel = uniq("sig")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])

    result = publisher.signal().channel(channel).message("hi").sync()
    signal_tt = int(result.result.timetoken)
    assert len(str(signal_tt)) == 17

    received = listener.next_signal()
    assert received.message == "hi"
    assert received.channel == channel
    assert received.publisher == publisher.config.user_id
    assert int(received.timetoken) == signal_tt
    # A signal is not a regular message.
    assert listener.messages.empty()


def test_signal_and_message_interleave(node):
    channel = uniq("sigmsg")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])

    publisher.signal().channel(channel).message({"typing": True}).sync()
    publisher.publish().channel(channel).message({"text": "hello"}).sync()

    assert listener.next_signal().message == {"typing": True}
    assert listener.next_message().message == {"text": "hello"}


def test_oversize_signal_is_rejected(node):
    publisher = node.client("pub")
    code, exc = expect_http_error(lambda: publisher.signal().channel(uniq("sig")).message("x" * 100).sync())
    assert code == 400, "expected 400 for an oversize signal, got %s (%s)" % (code, exc)


def test_fire_returns_timetoken_but_is_not_delivered(node):
    channel = uniq("fire")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])

    fired = publisher.fire().channel(channel).message({"kind": "fire"}).sync()
    assert len(str(int(fired.result.timetoken))) == 17

    publisher.publish().channel(channel).message({"kind": "normal"}).sync()
    first = listener.next_message()
    assert first.message == {"kind": "normal"}, "fire() message was delivered to a subscriber"
    listener.assert_no_more_messages(0.5)
    assert listener.signals.empty()


def test_signal_requires_known_keys(node):
    bad = node.client("bad", publish_key="nope", subscribe_key="nope")
    with pytest.raises(PubNubException):
        bad.signal().channel(uniq("sig")).message("hi").sync()
