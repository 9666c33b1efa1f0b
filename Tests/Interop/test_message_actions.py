"""Message actions through the official SDK: add, get, remove, duplicates, the listener's
message_action callback, and history with actions."""

import queue

from pubnub.models.consumer.message_actions import PNMessageAction

from conftest import WAIT, Listener, expect_http_error, uniq


class ActionListener(Listener):
    """A Listener that also collects message action events."""

    def __init__(self):
        super().__init__()
        self.actions = queue.Queue()

    def message_action(self, pubnub, message_action):
        self.actions.put(message_action)

    def next_action(self, timeout=WAIT):
        return self._get(self.actions, "message action", timeout)


def action(message_tt, type_="reaction", value="smiley"):
    return PNMessageAction().create(type=type_, value=value, message_timetoken=str(message_tt))


def test_add_get_remove_round_trip(node):
    channel = uniq("act")
    pn = node.client("actor")
    message_tt = pn.publish().channel(channel).message("hello").sync().result.timetoken

    added = pn.add_message_action().channel(channel).message_action(action(message_tt)).sync().result
    assert added.type == "reaction" and added.value == "smiley"
    assert added.uuid == pn.config.user_id
    assert int(added.message_timetoken) == int(message_tt)
    assert int(added.action_timetoken) > int(message_tt)

    listed = pn.get_message_actions().channel(channel).sync().result.actions
    assert [(a.type, a.value, a.uuid, a.action_timetoken) for a in listed] == [
        ("reaction", "smiley", pn.config.user_id, added.action_timetoken)]

    pn.remove_message_action().channel(channel).message_timetoken(message_tt) \
        .action_timetoken(added.action_timetoken).sync()
    assert pn.get_message_actions().channel(channel).sync().result.actions == []


def test_get_pages_with_start_and_limit(node):
    channel = uniq("actpage")
    pn = node.client()
    message_tt = pn.publish().channel(channel).message("m").sync().result.timetoken
    tts = [pn.add_message_action().channel(channel).message_action(action(message_tt, value="v%d" % i))
           .sync().result.action_timetoken for i in range(5)]
    page = pn.get_message_actions().channel(channel).limit("2").sync().result.actions
    assert [a.action_timetoken for a in page] == tts[3:]
    older = pn.get_message_actions().channel(channel).start(tts[3]).limit("2").sync().result.actions
    assert [a.action_timetoken for a in older] == tts[1:3]


def test_duplicate_is_409(node):
    channel = uniq("actdup")
    pn = node.client()
    message_tt = pn.publish().channel(channel).message("m").sync().result.timetoken
    pn.add_message_action().channel(channel).message_action(action(message_tt)).sync()
    code, exc = expect_http_error(
        lambda: pn.add_message_action().channel(channel).message_action(action(message_tt)).sync())
    assert code == 409, "expected 409 for a duplicate action, got %s (%s)" % (code, exc)


def test_listener_receives_an_action_added_by_another_client(node):
    channel = uniq("actlive")
    author = node.client("author")
    watcher = node.client("watcher")
    listener = ActionListener()
    watcher.add_listener(listener)
    watcher.subscribe().channels([channel]).execute()
    listener.wait_connected()

    message_tt = author.publish().channel(channel).message("m").sync().result.timetoken
    added = author.add_message_action().channel(channel).message_action(action(message_tt)).sync().result

    received = listener.next_action()
    assert received.type == "reaction" and received.value == "smiley"
    assert received.uuid == author.config.user_id
    assert received.message_timetoken == str(message_tt)
    assert received.action_timetoken == added.action_timetoken

    author.remove_message_action().channel(channel).message_timetoken(message_tt) \
        .action_timetoken(added.action_timetoken).sync()
    removed = listener.next_action()
    assert removed.action_timetoken == added.action_timetoken


def test_fetch_messages_includes_actions(node):
    channel = uniq("acthist")
    pn = node.client("reader")
    other = node.client("other")
    first = pn.publish().channel(channel).message("one").sync().result.timetoken
    second = pn.publish().channel(channel).message("two").sync().result.timetoken
    a = pn.add_message_action().channel(channel).message_action(action(first)).sync().result
    b = other.add_message_action().channel(channel).message_action(action(first)).sync().result

    result = pn.fetch_messages().channels(channel).include_message_actions(True).sync().result
    items = result.channels[channel]
    assert [item.message for item in items] == ["one", "two"]
    assert items[0].actions == {"reaction": {"smiley": [
        {"uuid": pn.config.user_id, "actionTimetoken": a.action_timetoken},
        {"uuid": other.config.user_id, "actionTimetoken": b.action_timetoken},
    ]}}
    assert items[1].actions == {}
    assert int(items[1].timetoken) == int(second)
