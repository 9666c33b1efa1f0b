"""History in PostgreSQL (--history-url), driven with the official PubNub Python SDK."""

import signal
import tempfile

from conftest import free_port, start_node, uniq, WAIT
from pubnub.models.consumer.message_actions import PNMessageAction
from pubnub.pnconfiguration import PNConfiguration
from pubnub.pubnub import PubNub


def _client(port):
    config = PNConfiguration()
    config.publish_key = config.subscribe_key = "demo"
    config.user_id = "postgres-test"
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


def test_published_messages_are_fetched_from_postgres(postgres_url):
    with tempfile.TemporaryDirectory() as data_dir:
        port = free_port()
        process = start_node(data_dir, port, "--history-url", postgres_url)
        try:
            pn = _client(port)
            channel = uniq("pg")
            sent = pn.publish().channel(channel).message({"n": 1}).meta({"m": "x"}).sync()
            pn.publish().channel(channel).message("two").sync()
            pn.publish().channel(channel).message("not stored").should_store(False).sync()
            page = pn.fetch_messages().channels(channel).include_meta(True).sync().result.channels[channel]
            assert [item.message for item in page] == [{"n": 1}, "two"]
            assert int(page[0].timetoken) == int(sent.result.timetoken)
            assert page[0].meta == {"m": "x"}
            history = pn.history().channel(channel).count(10).sync().result
            assert [item.entry for item in history.messages] == [{"n": 1}, "two"]
            counts = pn.message_counts().channel(channel).channel_timetokens([0]).sync().result
            assert counts.channels[channel] == 2
        finally:
            process.terminate()
            process.wait(timeout=10)


def test_strict_acknowledged_publishes_survive_sigkill_in_postgres(postgres_url):
    """Every publish acknowledged in strict mode is fetched through a node started afterwards,
    with a new data directory: history lives in PostgreSQL, not on the node."""
    channel = uniq("pgcrash")
    with tempfile.TemporaryDirectory() as data_dir:
        port = free_port()
        process = start_node(data_dir, port, "--history-url", postgres_url, "--history-strict", "true")
        try:
            pn = _client(port)
            tts = [int(pn.publish().channel(channel).message(i).sync().result.timetoken) for i in range(150)]
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
    with tempfile.TemporaryDirectory() as data_dir:
        port = free_port()
        process = start_node(data_dir, port, "--history-url", postgres_url)
        try:
            pn = _client(port)
            assert _fetch_all(pn, channel) == tts
            assert int(pn.time().sync().result.value_as_int) > tts[-1]
        finally:
            process.terminate()
            process.wait(timeout=10)


def test_message_actions_live_in_postgres_across_nodes(postgres_url):
    """An action added through one node is read with its message through another node."""
    channel = uniq("pgact")
    with tempfile.TemporaryDirectory() as first_dir, tempfile.TemporaryDirectory() as second_dir:
        first_port, second_port = free_port(), free_port()
        first = start_node(first_dir, first_port, "--history-url", postgres_url)
        second = start_node(second_dir, second_port, "--history-url", postgres_url)
        try:
            writer, reader = _client(first_port), _client(second_port)
            message_tt = writer.publish().channel(channel).message("one").sync().result.timetoken
            action = PNMessageAction().create(type="reaction", value="smiley", message_timetoken=str(message_tt))
            added = writer.add_message_action().channel(channel).message_action(action).sync().result
            items = reader.fetch_messages().channels(channel).include_message_actions(True).sync().result.channels[channel]
            assert [item.message for item in items] == ["one"]
            assert items[0].actions == {"reaction": {"smiley": [
                {"uuid": writer.config.user_id, "actionTimetoken": added.action_timetoken}]}}
            listed = reader.get_message_actions().channel(channel).sync().result.actions
            assert [(a.type, a.value) for a in listed] == [("reaction", "smiley")]
        finally:
            for process in (first, second):
                process.terminate()
                process.wait(timeout=10)
