"""Access Manager driven by the official SDK: a backend holding the secret key grants tokens,
clients use them, and a node of the test's own enforces them (notes §1-4)."""

import json
import os
import tempfile
import time
import urllib.error
import urllib.request
import uuid

import pytest

from conftest import Node, WAIT, expect_http_error, free_port, start_node, uniq
from pubnub.enums import PNStatusCategory
from pubnub.models.consumer.v3.channel import Channel
from pubnub.models.consumer.v3.group import Group
from pubnub.models.consumer.v3.uuid import UUID

PUB, SUB, SECRET = "pub-c-am", "sub-c-am", "sec-c-am-0123456789"
ADMIN = "interop-admin-token-0123456789"


@pytest.fixture(scope="module")
def am_node():
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        process = start_node(data, port, "--keyset", "demo:demo", "--keyset", "%s:%s:%s" % (PUB, SUB, SECRET),
                             "--admin-token", ADMIN)
        nodes = []

        def make():
            node = Node("127.0.0.1:%d" % port)
            nodes.append(node)
            return node

        make.port = port
        try:
            yield make
        finally:
            for node in nodes:
                node.close()
            process.terminate()
            process.wait(timeout=10)


def backend(node, secret=SECRET, pub=PUB, sub=SUB):
    pn = node.client("backend", publish_key=pub, subscribe_key=sub)
    pn.config.secret_key = secret
    return pn


def user(node, token, name="user", user_id=None, pub=PUB, sub=SUB):
    pn = node.client(name, publish_key=pub, subscribe_key=sub)
    if user_id:
        pn.config.user_id = user_id
    pn.set_token(token)
    return pn


def grant(pn, ttl=60, channels=(), groups=(), uuids=(), authorized=None):
    builder = pn.grant_token().ttl(ttl).channels(list(channels)).groups(list(groups)).uuids(list(uuids))
    if authorized:
        builder = builder.authorized_uuid(authorized)
    return builder.sync().result.token


def denied(call):
    """call() must be refused with 403, which the SDK files as PNAccessDeniedCategory."""
    code, exc = expect_http_error(call)
    assert code == 403, "expected 403, got %s (%s)" % (code, exc)
    if exc.status is not None:
        assert exc.status.category == PNStatusCategory.PNAccessDeniedCategory
    body = json.loads(exc._errormsg)
    assert body["service"] == "Access Manager" and body["status"] == 403, body
    return body


def test_tokens_grant_exactly_what_they_say(am_node):
    node = am_node()
    room, other, group = uniq("room"), uniq("other"), uniq("g")
    token = grant(backend(node), channels=[Channel.id(room).read().write(), Channel.id(room + "-pnpres").read()],
                  groups=[Group.id(group).read().manage()])
    parsed = node.client("parser").parse_token(token)
    assert parsed["version"] == 2 and parsed["ttl"] == 60
    assert parsed["resources"]["channels"][room]["read"] and parsed["resources"]["channels"][room]["write"]
    assert not parsed["resources"]["channels"][room]["manage"]
    assert parsed["resources"]["groups"][group]["manage"]

    alice = user(node, token, "alice")
    listener = node.subscribe(alice, channels=[room], presence=True)
    alice.publish().channel(room).message({"hi": 1}).sync()
    assert listener.next_message().message == {"hi": 1}
    assert alice.fetch_messages().channels([room]).sync().result.channels[room][0].message == {"hi": 1}
    here = alice.here_now().channels([room]).sync().result
    assert here.total_occupancy >= 1
    alice.add_channel_to_channel_group().channels([room]).channel_group(group).sync()
    assert alice.list_channels_in_channel_group().channel_group(group).sync().result.channels == [room]

    denied(lambda: alice.publish().channel(other).message("no").sync())
    denied(lambda: alice.fetch_messages().channels([other]).sync())
    denied(lambda: alice.here_now().channels([other]).sync())
    denied(lambda: alice.delete_messages().channel(room).sync())
    stranger = node.client("stranger", publish_key=PUB, subscribe_key=SUB)
    denied(lambda: stranger.publish().channel(room).message("no").sync())


def test_a_refused_subscribe_stops_as_against_pubnub(am_node):
    node = am_node()
    allowed, forbidden = uniq("ok"), uniq("no")
    token = grant(backend(node), channels=[Channel.id(allowed).read()])
    pn = user(node, token)
    listener = node.subscribe(pn, channels=[allowed, forbidden], wait=False)
    # On 403 the SDK announces an unsubscribe with PNAccessDeniedCategory and stops, no retry.
    stopped = listener.leaves.get(timeout=WAIT)
    assert stopped.category == PNStatusCategory.PNAccessDeniedCategory, listener.status_log()
    assert not pn.get_subscribed_channels(), "the SDK unsubscribed from everything"


def test_patterns_and_authorized_uuid(am_node):
    node = am_node()
    prefix = "p%s" % uuid.uuid4().hex[:8]
    token = grant(backend(node), channels=[Channel.pattern("^%s-[0-9]+$" % prefix).write()], authorized="bob")
    bob = user(node, token, user_id="bob")
    bob.publish().channel(prefix + "-12").message("ok").sync()
    denied(lambda: bob.publish().channel(prefix + "-x").message("no").sync())
    mallory = user(node, token, user_id="mallory")
    denied(lambda: mallory.publish().channel(prefix + "-12").message("no").sync())


def test_revoked_token_is_refused(am_node):
    node = am_node()
    room = uniq("room")
    admin = backend(node)
    token = grant(admin, channels=[Channel.id(room).write()])
    pn = user(node, token)
    pn.publish().channel(room).message(1).sync()
    assert admin.revoke_token(token).sync().result.status == 200
    denied(lambda: pn.publish().channel(room).message(2).sync())


def test_bad_signatures_are_refused(am_node):
    node = am_node()
    wrong = backend(node, secret="not-the-secret")
    denied(lambda: wrong.grant_token().ttl(5).channels([Channel.id("a").read()]).sync())
    denied(lambda: wrong.publish().channel("a").message(1).sync())
    stale = backend(node)
    stale.timestamp = lambda: int(time.time()) - 120
    denied(lambda: stale.publish().channel("a").message(1).sync())
    good = backend(node)
    good.publish().channel(uniq("signed")).message(1).sync()
    good.publish().channel(uniq("signed")).message({"post": True}).use_post(True).sync()
    assert good.here_now().sync().result.total_channels >= 0, "a signed request may list the whole keyset"


def test_the_open_keyset_is_unchanged(am_node):
    node = am_node()
    pn = node.client("open")
    pn.publish().channel(uniq("open")).message("still open").sync()


def admin_call(port, method, path, body=None):
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + ADMIN})
    with urllib.request.urlopen(request, timeout=WAIT) as answer:
        return json.loads(answer.read())


def test_tenants_are_isolated(am_node):
    node = am_node()
    a = admin_call(am_node.port, "POST", "/v1/admin/keysets")["keyset"]
    b = admin_call(am_node.port, "POST", "/v1/admin/keysets")["keyset"]
    listed = admin_call(am_node.port, "GET", "/v1/admin/keysets")["keysets"]
    assert {a["subscribeKey"], b["subscribeKey"]} <= {k["subscribeKey"] for k in listed}
    assert all("secretKey" not in k for k in listed)
    room = uniq("room")
    token_a = grant(backend(node, a["secretKey"], a["publishKey"], a["subscribeKey"]), channels=[Channel.id(room).read().write()])
    in_a = user(node, token_a, pub=a["publishKey"], sub=a["subscribeKey"])
    in_a.publish().channel(room).message("for a").sync()
    in_b = user(node, token_a, pub=b["publishKey"], sub=b["subscribeKey"])
    denied(lambda: in_b.publish().channel(room).message("into b").sync())
    denied(lambda: in_b.fetch_messages().channels([room]).sync())
    owner_b = backend(node, b["secretKey"], b["publishKey"], b["subscribeKey"])
    assert owner_b.fetch_messages().channels([room]).sync().result.channels == {}
    admin_call(am_node.port, "DELETE", "/v1/admin/keysets/" + a["subscribeKey"])
    code, _ = expect_http_error(lambda: in_a.publish().channel(room).message("gone").sync())
    assert code == 400


def test_rate_limited_tenant_answers_429_and_time_stays_open(am_node):
    node = am_node()
    tenant = admin_call(am_node.port, "POST", "/v1/admin/keysets",
                        {"accessManager": False, "rateLimits": {"publishesPerSecond": 2}})["keyset"]
    pn = node.client("fast", publish_key=tenant["publishKey"], subscribe_key=tenant["subscribeKey"])
    codes = []
    for _ in range(6):
        try:
            pn.publish().channel("limited").message("x").sync()
            codes.append(200)
        except Exception as exc:  # noqa: BLE001 - the SDK raises PubNubException
            codes.append(getattr(exc, "_status_code", 0))
    assert 429 in codes, codes
    assert codes[0] == 200, codes
    assert int(pn.time().sync().result) > 0, "/time/0 is never limited"
    url = "http://127.0.0.1:%d/publish/%s/%s/0/limited/0/1" % (am_node.port, tenant["publishKey"], tenant["subscribeKey"])
    for _ in range(5):
        try:
            urllib.request.urlopen(url, timeout=WAIT).read()
        except urllib.error.HTTPError as error:
            assert error.code == 429
            assert int(error.headers["Retry-After"]) >= 1
            assert json.loads(error.read())["status"] == 429
            return
    raise AssertionError("no 429 after 5 quick publishes at 2/s")
