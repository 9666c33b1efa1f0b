"""Presence: join/leave/state-change events, here-now, where-now and state, through the SDK."""

import time

from pubnub.endpoints.presence.heartbeat import Heartbeat

from conftest import WAIT, uniq


def next_presence(listener, match, what, timeout=WAIT):
    """The first presence event satisfying `match`, skipping others; fails after `timeout`."""
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        try:
            event = listener.presences.get(timeout=max(0.05, deadline - time.monotonic()))
        except Exception:
            break
        if match(event):
            return event
        seen.append((event.event, event.uuid, event.channel))
    raise AssertionError("no %s presence event within %.0f s; saw %r; statuses: %s"
                         % (what, timeout, seen, listener.status_log()))


def wait_until(condition, what, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


def test_join_event_carries_uuid_and_occupancy(node):
    channel = uniq("pres-join")
    watcher = node.client("watcher")
    listener = node.subscribe(watcher, presence=True, channels=[channel])

    own = next_presence(listener, lambda e: e.event == "join" and e.uuid == watcher.uuid, "own join")
    assert own.channel == channel
    assert own.occupancy == 1
    assert isinstance(own.timestamp, int) and own.timestamp > 1_600_000_000
    assert own.timetoken > 0

    joiner = node.client("joiner")
    node.subscribe(joiner, channels=[channel])
    event = next_presence(listener, lambda e: e.event == "join" and e.uuid == joiner.uuid, "join of joiner")
    assert event.channel == channel
    assert event.occupancy == 2


def test_here_now_lists_subscribers_with_state(node):
    channel, other = uniq("pres-here"), uniq("pres-here-b")
    alice = node.client("alice")
    bob = node.client("bob")
    node.subscribe(alice, channels=[channel])
    node.subscribe(bob, channels=[channel, other])
    alice.set_state().channels([channel]).state({"mood": "calm"}).sync()

    single = alice.here_now().channels([channel]).include_uuids(True).include_state(True).sync().result
    assert single.total_occupancy == 2
    assert single.total_channels == 1
    occupants = {o.uuid: o.state for o in single.channels[0].occupants}
    assert occupants == {alice.uuid: {"mood": "calm"}, bob.uuid: None}

    several = alice.here_now().channels([channel, other]).sync().result
    by_name = {c.channel_name: c for c in several.channels}
    assert several.total_channels == 2
    assert several.total_occupancy == 3
    assert by_name[channel].occupancy == 2
    assert sorted(o.uuid for o in by_name[other].occupants) == [bob.uuid]

    counts_only = alice.here_now().channels([channel]).include_uuids(False).sync().result
    assert counts_only.total_occupancy == 2
    assert counts_only.channels[0].occupants == []

    everywhere = alice.here_now().sync().result
    names = {c.channel_name for c in everywhere.channels}
    assert {channel, other} <= names


def test_where_now_lists_the_channels_of_a_uuid(node):
    first, second = uniq("pres-where-a"), uniq("pres-where-b")
    pn = node.client("wanderer")
    node.subscribe(pn, channels=[first, second])

    result = pn.where_now().sync().result
    assert sorted(result.channels) == sorted([first, second])

    stranger = node.client("stranger")
    assert stranger.where_now().uuid(stranger.uuid).sync().result.channels == []


def test_set_and_get_state_and_state_change_event(node):
    channel = uniq("pres-state")
    watcher = node.client("watcher")
    listener = node.subscribe(watcher, presence=True, channels=[channel])
    pn = node.client("stateful")
    node.subscribe(pn, channels=[channel])
    next_presence(listener, lambda e: e.event == "join" and e.uuid == pn.uuid, "join")

    state = {"mood": "happy", "level": 3}
    assert pn.set_state().channels([channel]).state(state).sync().result.state == state
    assert pn.get_state().channels([channel]).sync().result.channels == {channel: state}

    event = next_presence(listener, lambda e: e.event == "state-change" and e.uuid == pn.uuid, "state-change")
    assert event.state == state
    assert event.occupancy == 2

    other = uniq("pres-state-b")
    pn.set_state().channels([other]).state({"x": 1}).sync()
    both = pn.get_state().channels([channel, other]).sync().result.channels
    assert both == {channel: state, other: {"x": 1}}


def test_leave_event_and_here_now_drops_the_uuid(node):
    channel = uniq("pres-leave")
    watcher = node.client("watcher")
    listener = node.subscribe(watcher, presence=True, channels=[channel])
    leaver = node.client("leaver")
    leaver_listener = node.subscribe(leaver, channels=[channel])
    next_presence(listener, lambda e: e.event == "join" and e.uuid == leaver.uuid, "join")
    here = watcher.here_now().channels([channel]).sync().result
    assert leaver.uuid in [o.uuid for o in here.channels[0].occupants]

    # The SDK reports "connected" before its next long-poll leaves the client. A subscribe that
    # reaches the node after the leave would (rightly) join the uuid again, so let it park first.
    time.sleep(0.3)
    leaver.unsubscribe().channels([channel]).execute()
    leaver_listener.next_leave()
    event = next_presence(listener, lambda e: e.event == "leave" and e.uuid == leaver.uuid, "leave")
    assert event.channel == channel
    assert event.occupancy == 1

    after = watcher.here_now().channels([channel]).sync().result
    assert [o.uuid for o in after.channels[0].occupants] == [watcher.uuid]
    assert after.total_occupancy == 1
    assert leaver.where_now().sync().result.channels == []


def test_presence_listener_on_a_channel_group(node):
    group, channel = uniq("pres-grp"), uniq("pres-grp-ch")
    admin = node.client("admin")
    admin.add_channel_to_channel_group().channel_group(group).channels([channel]).sync()
    watcher = node.client("watcher")
    listener = node.subscribe(watcher, presence=True, groups=[group])

    joiner = node.client("joiner")
    node.subscribe(joiner, channels=[channel])
    event = next_presence(listener, lambda e: e.event == "join" and e.uuid == joiner.uuid, "group join")
    assert event.channel == channel
    assert event.subscription == group

    here = admin.here_now().channel_groups([group]).sync().result
    by_name = {c.channel_name: c for c in here.channels}
    assert sorted(o.uuid for o in by_name[channel].occupants) == sorted([watcher.uuid, joiner.uuid])


def test_heartbeat_makes_a_uuid_present_without_subscribing(node):
    channel = uniq("pres-hb")
    watcher = node.client("watcher")
    listener = node.subscribe(watcher, presence=True, channels=[channel])
    beater = node.client("beater")

    envelope = Heartbeat(beater, channels=[channel], state={channel: {"on": True}}).sync()
    assert envelope.status.status_code == 200
    event = next_presence(listener, lambda e: e.event == "join" and e.uuid == beater.uuid, "heartbeat join")
    assert event.state == {"on": True}
    wait_until(lambda: channel in beater.where_now().sync().result.channels, "where-now to list the channel")
