"""Channel groups: registry endpoints and subscribing through a group."""

import time

from conftest import uniq

# After a delivery the SDK immediately re-polls; give that long-poll time to park on the
# node so the membership changes below happen while a request is open.
SETTLE = 1.0


def listed(pn, group):
    envelope = pn.list_channels_in_channel_group().channel_group(group).sync()
    assert envelope.status.status_code == 200
    return sorted(envelope.result.channels)


def test_channel_group_lifecycle(node):
    group = uniq("grp")
    c1, c2, c3 = uniq("g1"), uniq("g2"), uniq("g3")
    admin = node.client("admin")
    publisher = node.client("pub")
    subscriber = node.client("sub")

    envelope = admin.add_channel_to_channel_group().channels([c1, c2]).channel_group(group).sync()
    assert envelope.status.status_code == 200
    assert listed(admin, group) == sorted([c1, c2])

    listener = node.subscribe(subscriber, groups=[group])

    publisher.publish().channel(c1).message({"to": c1}).sync()
    m = listener.next_message()
    assert m.message == {"to": c1}
    assert m.channel == c1
    assert m.subscription == group

    # Live membership change while the subscription is open.
    time.sleep(SETTLE)
    admin.add_channel_to_channel_group().channels([c3]).channel_group(group).sync()
    assert listed(admin, group) == sorted([c1, c2, c3])
    publisher.publish().channel(c3).message({"to": c3}).sync()
    m = listener.next_message()
    assert m.message == {"to": c3}, "message on a channel added to the group was not delivered"
    assert m.channel == c3
    assert m.subscription == group

    # Removing a channel stops its delivery through the group.
    time.sleep(SETTLE)
    admin.remove_channel_from_channel_group().channels([c1]).channel_group(group).sync()
    assert listed(admin, group) == sorted([c2, c3])
    publisher.publish().channel(c1).message({"to": c1, "after": "removal"}).sync()
    publisher.publish().channel(c2).message({"to": c2}).sync()
    m = listener.next_message()
    assert m.message == {"to": c2}, "got %r from %s after it left the group" % (m.message, m.channel)
    assert m.subscription == group
    listener.assert_no_more_messages(0.5)

    envelope = admin.remove_channel_group().channel_group(group).sync()
    assert envelope.status.status_code == 200
    assert listed(admin, group) == []


def test_list_unknown_group_is_empty(node):
    admin = node.client("admin")
    assert listed(admin, uniq("nogroup")) == []


def test_group_and_channel_in_one_subscription(node):
    group = uniq("grp")
    in_group, plain = uniq("ing"), uniq("plain")
    admin = node.client("admin")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    admin.add_channel_to_channel_group().channels([in_group]).channel_group(group).sync()

    listener = node.subscribe(subscriber, channels=[plain], groups=[group])
    publisher.publish().channel(in_group).message("via group").sync()
    publisher.publish().channel(plain).message("direct").sync()

    received = listener.take_messages(2)
    by_channel = {m.channel: m for m in received}
    assert set(by_channel) == {in_group, plain}
    assert by_channel[in_group].message == "via group"
    assert by_channel[in_group].subscription == group
    assert by_channel[plain].message == "direct"
    assert by_channel[plain].subscription is None
