"""App Context (objects v2) with the official SDK: uuid and channel metadata, memberships and
members, paging, If-Match, the listener's uuid/channel/membership events on a node that enables
them, and a default node (events off) on which an SDK subscriber is never broken by them."""

import queue

import pytest

from pubnub.endpoints.objects_v2.objects_endpoint import ObjectsEndpoint
from pubnub.models.consumer.objects_v2.channel_members import PNUUID
from pubnub.models.consumer.objects_v2.memberships import PNChannelMembership
from pubnub.models.consumer.objects_v2.page import Next, Previous
from pubnub.models.subscription import PNEventEmitter

from conftest import WAIT, Listener, expect_http_error, own_node, uniq


class ObjectsListener(Listener):
    """A listener that also collects App Context events."""

    def __init__(self):
        super().__init__()
        self.uuids = queue.Queue()
        self.channels = queue.Queue()
        self.memberships = queue.Queue()

    def uuid(self, pubnub, uuid):
        self.uuids.put(uuid)

    def channel(self, pubnub, channel):
        self.channels.put(channel)

    def membership(self, pubnub, membership):
        self.memberships.put(membership)


def subscribe_objects(pn, channels):
    listener = ObjectsListener()
    pn.add_listener(listener)
    pn.subscribe().channels(list(channels)).execute()
    listener.wait_connected()
    return listener


def test_uuid_metadata_set_get_remove(node):
    pn = node.client("objects")
    user = uniq("user")
    result = pn.set_uuid_metadata().uuid(user).set_name("Ann").email("ann@example.com") \
        .custom({"age": 30, "vip": True, "city": "Paris"}).include_custom(True).sync().result
    assert result.status == 200
    assert result.data["id"] == user
    assert result.data["name"] == "Ann"
    assert result.data["email"] == "ann@example.com"
    assert result.data["custom"] == {"age": 30, "vip": True, "city": "Paris"}
    assert result.data["updated"].endswith("Z") and result.data["eTag"]

    fetched = pn.get_uuid_metadata().uuid(user).include_custom(True).sync().result
    assert fetched.data["custom"]["city"] == "Paris"
    plain = pn.get_uuid_metadata().uuid(user).sync().result
    assert "custom" not in plain.data

    removed = pn.remove_uuid_metadata().uuid(user).sync().result
    assert removed.status == 200
    code, _ = expect_http_error(lambda: pn.get_uuid_metadata().uuid(user).sync())
    assert code == 404


def test_get_all_uuid_metadata_pages(node):
    pn = node.client("objects")
    prefix = uniq("pg")
    ids = ["%s-%d" % (prefix, index) for index in range(5)]
    for index, user in enumerate(ids):
        pn.set_uuid_metadata().uuid(user).set_name("n%d" % index).custom({"i": index}).sync()
    seen = []
    page = None
    while True:
        request = pn.get_all_uuid_metadata().include_custom(True).limit(2).include_total_count(True)
        if page is not None:
            request = request.page(page)
        result = request.sync().result
        assert result.total_count is not None and result.total_count >= 5
        seen += [item["id"] for item in result.data]
        for item in result.data:
            assert "custom" in item
        if result.next is None:
            break
        page = result.next
    mine = [user for user in seen if user.startswith(prefix)]
    assert mine == ids, "every uuid exactly once, in id order"
    assert len(seen) == len(set(seen))
    assert isinstance(page, Next)
    # A previous page from the last one leads back.
    last = pn.get_all_uuid_metadata().limit(2).page(page).sync().result
    assert isinstance(last.prev, Previous)
    back = pn.get_all_uuid_metadata().limit(2).page(last.prev).sync().result
    assert len(back.data) == 2


def test_channel_metadata_and_if_match(node):
    pn = node.client("objects")
    channel = uniq("room")
    first = pn.set_channel_metadata().channel(channel).set_name("Room").description("d") \
        .custom({"topic": "x"}).include_custom(True).sync().result
    assert first.data["name"] == "Room" and first.data["custom"] == {"topic": "x"}
    etag = first.data["eTag"]
    try:
        changed = pn.set_channel_metadata().channel(channel).set_name("Hall").if_matches_etag(etag).sync().result
        assert changed.data["name"] == "Hall"
        code, _ = expect_http_error(
            lambda: pn.set_channel_metadata().channel(channel).set_name("Stale").if_matches_etag(etag).sync())
        assert code == 412
    finally:
        # The SDK keeps If-Match in a dict shared by every objects request: clear it.
        ObjectsEndpoint._custom_headers.clear()
    got = pn.get_channel_metadata().channel(channel).sync().result
    assert got.data["name"] == "Hall"
    listed = pn.get_all_channel_metadata().include_custom(True).limit(100).sync().result
    assert channel in [item["id"] for item in listed.data] or listed.next is not None
    assert pn.remove_channel_metadata().channel(channel).sync().result.status == 200


def test_memberships_and_members(node):
    pn = node.client("objects")
    user = uniq("member")
    one, two = uniq("ch"), uniq("ch")
    pn.set_channel_metadata().channel(one).set_name("One").sync()
    result = pn.set_memberships().uuid(user).channel_memberships(
        [PNChannelMembership.channel_with_custom(one, {"role": "admin"}), PNChannelMembership.channel(two)]) \
        .include_custom(True).include_channel(2).sync().result
    by_channel = {item["channel"]["id"]: item for item in result.data}
    assert set(by_channel) == {one, two}
    assert by_channel[one]["custom"] == {"role": "admin"}
    assert by_channel[one]["channel"]["name"] == "One"

    fetched = pn.get_memberships().uuid(user).include_custom(True).sync().result
    assert {item["channel"]["id"] for item in fetched.data} == {one, two}

    members = pn.get_channel_members().channel(one).include_custom(True).sync().result
    assert [item["uuid"]["id"] for item in members.data] == [user]
    assert members.data[0]["custom"] == {"role": "admin"}

    other = uniq("member")
    managed = pn.manage_channel_members().channel(one).set([PNUUID.uuid(other)]).remove([PNUUID.uuid(user)]) \
        .sync().result
    assert [item["uuid"]["id"] for item in managed.data] == [other]
    left = pn.get_memberships().uuid(user).sync().result
    assert [item["channel"]["id"] for item in left.data] == [two]


@pytest.fixture(scope="module")
def events_node():
    """A node that announces App Context changes (`e: 2`), as a PubNub keyset with the
    User/Channel Metadata and Membership Events enabled does."""
    with own_node("--app-context-events", "true") as node:
        yield node


def test_listener_receives_uuid_channel_and_membership_events(events_node, monkeypatch):
    node = events_node
    # SDK 10.8.0 routes even the legacy subscribe through subscription objects whose event emitter
    # has no uuid/channel/membership methods: the first App Context event (from PubNub as from
    # this node) raises AttributeError in its message worker, which then stops, before the
    # listeners added with add_listener are called. Give the emitter no-op methods.
    for name in ("uuid", "channel", "membership"):
        if not hasattr(PNEventEmitter, name):
            monkeypatch.setattr(PNEventEmitter, name, lambda self, event: None, raising=False)

    writer = node.client("writer")
    subscriber = node.client("listener")
    user, channel = uniq("evuser"), uniq("evch")
    listener = subscribe_objects(subscriber, [user, channel])

    writer.set_uuid_metadata().uuid(user).set_name("Ann").sync()
    event = listener.uuids.get(timeout=WAIT)
    assert event.event == "set"
    assert event.data["id"] == user and event.data["name"] == "Ann"

    writer.set_channel_metadata().channel(channel).set_name("Room").sync()
    event = listener.channels.get(timeout=WAIT)
    assert event.event == "set" and event.data["id"] == channel

    writer.set_memberships().uuid(user).channel_memberships([PNChannelMembership.channel(channel)]).sync()
    first = listener.memberships.get(timeout=WAIT)
    second = listener.memberships.get(timeout=WAIT)
    for membership in (first, second):
        assert membership.event == "set"
        assert membership.data["channel"]["id"] == channel and membership.data["uuid"]["id"] == user

    writer.remove_channel_metadata().channel(channel).sync()
    event = listener.channels.get(timeout=WAIT)
    assert event.event == "delete" and event.data == {"id": channel}


def test_a_default_node_never_breaks_an_sdk_subscriber_with_app_context_events(node):
    # No monkeypatching: with App Context events off (the default, as on PubNub), another
    # client's metadata and membership changes reach no subscriber, so the SDK's message worker
    # (which dies on an App Context event) keeps delivering what is published afterwards.
    writer = node.client("writer")
    subscriber = node.client("subscriber")
    channel = uniq("quietch")
    listener = node.subscribe(subscriber, [channel, subscriber.config.user_id])

    writer.set_channel_metadata().channel(channel).set_name("Room").sync()
    writer.set_uuid_metadata().uuid(subscriber.config.user_id).set_name("Sub").sync()
    writer.set_memberships().uuid(subscriber.config.user_id).channel_memberships([PNChannelMembership.channel(channel)]).sync()
    writer.remove_channel_metadata().channel(channel).sync()
    for n in range(3):
        writer.publish().channel(channel).message({"n": n}).sync()

    received = listener.take_messages(3)
    assert [m.message for m in received] == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert all(m.channel == channel for m in received)
