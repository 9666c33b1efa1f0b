"""Message payloads survive publish -> subscribe unchanged."""

import urllib.parse
import urllib.request

import pytest

from conftest import now_tt, origin, uniq

PAYLOADS = {
    "string": "hello world",
    "string_escapes": 'quote" back\\slash /slash\nnewline\ttab \u0001ctl',
    "dict": {"text": "hi", "n": 1, "ok": True, "none": None, "nested": {"a": [1, 2, {"b": "c"}]}},
    "list": [1, "two", 3.5, False, None, {"k": "v"}, [7]],
    "empty_dict": {},
    "empty_list": [],
    "int": 42,
    "negative_int": -17,
    "bool": True,
    "float": 3.14159,
    "float_exponents": {"small": -2.5e-08, "huge": 1.5e300},
    "unicode": "h\u00e9llo w\u00f6rld \u2013 \u4f60\u597d \u043c\u0438\u0440 \u3053\u3093\u306b\u3061\u306f "
               "\u0645\u0631\u062d\u0628\u0627 \U0001F600\U0001F680",
    "unicode_dict": {"\u043a\u043b\u044e\u0447": "\u5024 \U0001F44D", "emoji": "\U0001F1EB\U0001F1F7"},
    "big_int_in_dict": {"big": 12345678901234567890123, "neg": -98765432109876543210,
                        "edge": 2 ** 53 + 1},
    "big_int_top_level": 18446744073709551617,
}


@pytest.mark.parametrize("payload", list(PAYLOADS.values()), ids=list(PAYLOADS.keys()))
def test_payload_round_trip(node, payload):
    channel = uniq("payload")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])

    publisher.publish().channel(channel).message(payload).sync()

    received = listener.next_message()
    assert received.channel == channel
    assert received.message == payload
    # Exact types too: 42 must not come back as 42.0, 3.14159 must stay a float.
    assert type(received.message) is type(payload)
    if isinstance(payload, dict):
        for key, value in payload.items():
            assert type(received.message[key]) is type(value), key


def test_meta_publisher_and_timetoken(node):
    channel = uniq("meta")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])

    meta = {"kind": "chat", "n": 7, "nested": {"a": [1, 2]}, "u": "\u00fc\U0001F600"}
    before = now_tt()
    result = publisher.publish().channel(channel).message({"text": "with meta"}).meta(meta).sync()
    published_tt = result.result.timetoken
    assert len(str(published_tt)) == 17
    assert abs(published_tt - before) < 5 * 10_000_000

    received = listener.next_message()
    assert received.message == {"text": "with meta"}
    assert received.user_metadata == meta
    assert received.publisher == publisher.config.user_id
    assert received.timetoken == published_tt
    assert received.channel == channel
    assert received.subscription is None


def test_post_publish_round_trip(node):
    channel = uniq("post")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])

    payload = {"via": "POST", "text": "\u00e7a marche \U0001F600", "big": 12345678901234567890123}
    meta = {"m": 1}
    result = publisher.publish().channel(channel).message(payload).meta(meta).use_post(True).sync()

    received = listener.next_message()
    assert received.message == payload
    assert received.user_metadata == meta
    assert received.publisher == publisher.config.user_id
    assert received.timetoken == result.result.timetoken


def test_large_message_round_trip(node):
    """A 16 KiB message is well inside the 32 KiB limit and must arrive intact."""
    channel = uniq("large")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])

    payload = {"blob": "0123456789abcdef" * 1024}
    publisher.publish().channel(channel).message(payload).use_post(True).sync()

    assert listener.next_message().message == payload


def test_raw_utf8_get_publish_is_delivered(node):
    """Other SDKs send raw (percent-encoded) UTF-8 rather than \\u escapes."""
    channel = uniq("utf8")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])

    text = "gr\u00fc\u00df \u4f60\u597d \U0001F600"
    body = '{"text":"%s"}' % text
    url = "http://%s/publish/demo/demo/0/%s/0/%s?uuid=raw-utf8" % (
        origin(), urllib.parse.quote(channel, safe=""), urllib.parse.quote(body.encode("utf-8"), safe=""))
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200

    received = listener.next_message()
    assert received.message == {"text": text}
    assert received.publisher == "raw-utf8"
