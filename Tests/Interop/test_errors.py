"""Requests the node must refuse, with PubNub's status codes."""

from conftest import expect_http_error, uniq

OVER_32_KIB = "x" * (33 * 1024)


def test_publish_with_unknown_keys_is_rejected(node):
    bad = node.client("bad", publish_key="nope", subscribe_key="nope")
    code, exc = expect_http_error(lambda: bad.publish().channel(uniq("err")).message("hi").sync())
    assert code in (400, 403), "expected 400 or 403 for unknown keys, got %s (%s)" % (code, exc)


def test_subscribe_key_mismatch_is_rejected(node):
    """Valid publish key but unknown subscribe key."""
    bad = node.client("bad", publish_key="demo", subscribe_key="nope")
    code, exc = expect_http_error(lambda: bad.publish().channel(uniq("err")).message("hi").sync())
    assert code in (400, 403), "expected 400 or 403, got %s (%s)" % (code, exc)


def test_oversize_message_post_is_rejected(node):
    pn = node.client("pub")
    code, exc = expect_http_error(
        lambda: pn.publish().channel(uniq("big")).message(OVER_32_KIB).use_post(True).sync())
    assert code == 400, "expected 400 for a message over 32 KiB, got %s (%s)" % (code, exc)


def test_oversize_message_get_is_rejected(node):
    pn = node.client("pub")
    code, exc = expect_http_error(lambda: pn.publish().channel(uniq("big")).message(OVER_32_KIB).sync())
    # PubNub answers "Message Too Large" with 400; a URI-length refusal (414) is also acceptable.
    assert code in (400, 414), "expected 400 for a message over 32 KiB, got %s (%s)" % (code, exc)


def test_publish_to_wildcard_channel_is_rejected(node):
    pn = node.client("pub")
    code, exc = expect_http_error(
        lambda: pn.publish().channel("x%s.*" % uniq("w").replace("-", "")).message("hi").sync())
    assert code == 400, "expected 400 for publishing to a wildcard channel, got %s (%s)" % (code, exc)


def test_rejected_publish_is_not_delivered(node):
    channel = uniq("rejected")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])

    expect_http_error(lambda: publisher.publish().channel(channel).message(OVER_32_KIB).use_post(True).sync())
    publisher.publish().channel(channel).message("ok").sync()
    assert listener.next_message().message == "ok"
    listener.assert_no_more_messages(0.5)


def test_a_number_the_sdk_cannot_read_is_refused_and_subscribers_keep_receiving(node):
    """Python cannot turn an integer of more than 4,300 digits into an int: such a message, once
    relayed, would fail every long-poll answer carrying it. The node refuses it at publish."""
    import urllib.error
    import urllib.request

    from conftest import origin

    channel = uniq("digits")
    pn = node.client("sub")
    listener = node.subscribe(pn, channels=[channel])
    try:
        urllib.request.urlopen("http://%s/publish/demo/demo/0/%s/0/1%s" % (origin(), channel, "0" * 5000), timeout=10)
        raise AssertionError("a 5,001-digit number was accepted")
    except urllib.error.HTTPError as error:
        assert error.code == 400
    node.client("pub").publish().channel(channel).message({"after": 1}).sync()
    assert listener.next_message().message == {"after": 1}
