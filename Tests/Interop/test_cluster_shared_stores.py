"""Two nodes on one Redis and one PostgreSQL (`--history-url`): App Context, run-time keysets and
token revocations are shared, driven with the official PubNub Python SDK. A node follows the
keysets and revocations another node records within its reconcile interval (2 s)."""

import json
import urllib.request

from pubnub.models.consumer.objects_v2.memberships import PNChannelMembership
from pubnub.models.consumer.v3.channel import Channel

from cluster import Cluster, wait_for
from conftest import WAIT, expect_http_error, uniq

ADMIN = "interop-admin-token-0123456789"


def _admin(node, method, path, body=None):
    request = urllib.request.Request(node.base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + ADMIN})
    with urllib.request.urlopen(request, timeout=WAIT) as answer:
        return json.loads(answer.read())


def _eventually(attempt, what, timeout=10):
    """Calls `attempt` until it returns without raising (another node follows a change on its
    reconcile timer, in another process: there is no event to wait on); fails after `timeout`
    seconds with the last error."""
    outcome = {}

    def succeeded():
        try:
            outcome["value"] = attempt()
            return True
        except Exception as error:  # noqa: BLE001 - the SDK raises PubNubException
            outcome["error"] = error
            return False

    try:
        wait_for(succeeded, what, timeout=timeout, interval=0.1)
    except AssertionError as expired:
        raise AssertionError("%s: %s" % (expired, outcome.get("error"))) from None
    return outcome["value"]


def test_app_context_keysets_and_revocations_are_shared(postgres_url):
    cluster = Cluster(count=2, flags=("--history-url", postgres_url, "--admin-token", ADMIN))
    try:
        a, b = cluster[0], cluster[1]

        # App Context set through A is read through B, memberships too.
        user = uniq("user")
        a.client("ctx").set_uuid_metadata().uuid(user).set_name("Ann").custom({"team": "blue"}).include_custom(True).sync()
        read = b.client("ctx").get_uuid_metadata().uuid(user).include_custom(True).sync().result.data
        assert read["name"] == "Ann" and read["custom"] == {"team": "blue"}, read
        channel = uniq("room")
        b.client("ctx").set_memberships().uuid(user).channel_memberships([PNChannelMembership.channel(channel)]).sync()
        members = a.client("ctx").get_channel_members().channel(channel).sync().result.data
        assert [m["uuid"]["id"] for m in members] == [user], members

        # A keyset created through A's tenants API answers publishes through B within a few seconds.
        tenant = _admin(a, "POST", "/v1/admin/keysets", {"accessManager": True})["keyset"]
        owner = b.client("owner", publish_key=tenant["publishKey"], subscribe_key=tenant["subscribeKey"])
        owner.config.secret_key = tenant["secretKey"]
        room = uniq("room")
        token = _eventually(lambda: owner.grant_token().ttl(60).channels([Channel.id(room).read().write()]).sync().result.token,
                            "B serving the keyset created through A")
        holder = b.client("holder", publish_key=tenant["publishKey"], subscribe_key=tenant["subscribeKey"])
        holder.set_token(token)
        assert holder.publish().channel(room).message("through b").sync().result.timetoken > 0

        # A token revoked through A is refused by B within a few seconds.
        revoker = a.client("owner", publish_key=tenant["publishKey"], subscribe_key=tenant["subscribeKey"])
        revoker.config.secret_key = tenant["secretKey"]
        revoker.revoke_token(token).sync()

        def refused_on_b():
            code, _ = expect_http_error(lambda: holder.publish().channel(room).message("revoked").sync())
            assert code == 403, code
        _eventually(refused_on_b, "B refusing the token revoked through A")
    except BaseException:
        print(cluster.logs())
        raise
    finally:
        cluster.close()

