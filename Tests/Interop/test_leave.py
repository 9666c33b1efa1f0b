"""Unsubscribing: the leave endpoint and what the subscription sees afterwards."""

from pubnub.endpoints.presence.leave import Leave
from pubnub.enums import PNStatusCategory

from conftest import uniq


def test_unsubscribe_sends_leave_answered_with_200(node):
    channel = uniq("leave")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[channel])

    subscriber.unsubscribe().channels([channel]).execute()

    status = listener.next_leave()
    assert not status.is_error(), "leave failed: code=%s %s" % (
        status.status_code, status.error_data.information if status.error_data else "")
    assert status.status_code == 200
    assert status.category == PNStatusCategory.PNAcknowledgmentCategory
    assert subscriber.get_subscribed_channels() == []


def test_leave_endpoint_directly(node):
    pn = node.client("leaver")
    envelope = Leave(pn).channels([uniq("leave-a"), uniq("leave-b")]).sync()
    assert envelope.status.status_code == 200


def test_leave_channel_group_only(node):
    pn = node.client("leaver")
    envelope = Leave(pn).channel_groups([uniq("leave-grp")]).sync()
    assert envelope.status.status_code == 200


def test_partial_unsubscribe_keeps_remaining_channel(node):
    kept, dropped = uniq("kept"), uniq("dropped")
    publisher = node.client("pub")
    subscriber = node.client("sub")
    listener = node.subscribe(subscriber, channels=[kept, dropped])

    subscriber.unsubscribe().channels([dropped]).execute()
    status = listener.next_leave()
    assert status.status_code == 200
    assert subscriber.get_subscribed_channels() == [kept]

    publisher.publish().channel(dropped).message("should not arrive").sync()
    publisher.publish().channel(kept).message("still here").sync()
    m = listener.next_message()
    assert (m.channel, m.message) == (kept, "still here")
    listener.assert_no_more_messages(0.5)
