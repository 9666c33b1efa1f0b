"""Subscribe filter expressions (filter-expr) set through PNConfiguration.filter_expression."""

import threading
import uuid

from pubnub.enums import PNOperationType, PNReconnectionPolicy
from pubnub.pnconfiguration import PNConfiguration
from pubnub.pubnub import PubNub

from conftest import WAIT, Listener, origin, uniq


def filtered_client(node, expression):
    """An SDK client whose subscribe loop sends `expression` as its filter."""
    config = PNConfiguration()
    config.publish_key = "demo"
    config.subscribe_key = "demo"
    config.ssl = False
    config.origin = origin()
    config.user_id = "filtered-%s" % uuid.uuid4().hex[:12]
    config.daemon = True
    config.reconnect_policy = PNReconnectionPolicy.NONE
    config.non_subscribe_request_timeout = WAIT
    config.connect_timeout = WAIT
    config.filter_expression = expression
    pn = PubNub(config)
    node._clients.append(pn)
    return pn


def test_meta_filter_delivers_only_matching_messages(node):
    channel = uniq("filter")
    publisher = node.client("pub")
    everything = node.subscribe(node.client("all"), channels=[channel])
    english = node.subscribe(filtered_client(node, "meta.lang == 'en'"), channels=[channel])

    publisher.publish().channel(channel).message("hello").meta({"lang": "en"}).sync()
    publisher.publish().channel(channel).message("bonjour").meta({"lang": "fr"}).sync()
    publisher.publish().channel(channel).message("no meta").sync()
    publisher.publish().channel(channel).message("hi again").meta({"lang": "en"}).sync()

    got = [m.message for m in english.take_messages(2)]
    assert got == ["hello", "hi again"]
    english.assert_no_more_messages(0.5)
    assert [m.message for m in everything.take_messages(4)] == ["hello", "bonjour", "no meta", "hi again"]


def test_bare_identifier_filter_reads_meta_and_compares_bare_words(node):
    channel = uniq("bare")
    publisher = node.client("pub")
    listener = node.subscribe(filtered_client(node, "language!=spanish && score > 5"), channels=[channel])

    publisher.publish().channel(channel).message("a").meta({"language": "spanish", "score": 9}).sync()
    publisher.publish().channel(channel).message("b").meta({"language": "english", "score": 2}).sync()
    publisher.publish().channel(channel).message("c").meta({"language": "english", "score": 7}).sync()

    assert listener.next_message().message == "c"
    listener.assert_no_more_messages(0.5)


class FailureListener(Listener):
    """A listener that signals the first subscribe error."""

    def __init__(self):
        super().__init__()
        self.failed = threading.Event()

    def status(self, pubnub, status):
        super().status(pubnub, status)
        if status.is_error() and status.operation == PNOperationType.PNSubscribeOperation:
            self.failed.set()


def test_malformed_filter_is_refused_with_481(node):
    channel = uniq("bad")
    listener = FailureListener()
    pn = filtered_client(node, "meta.lang = 'en'")
    pn.add_listener(listener)
    pn.subscribe().channels([channel]).execute()
    listener.failed.wait(WAIT)
    failures = [s for s in listener.statuses
                if s.is_error() and s.operation == PNOperationType.PNSubscribeOperation]
    assert failures, "no subscribe error reported; statuses: %s" % listener.status_log()
    assert failures[0].status_code == 481
