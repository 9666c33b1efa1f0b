"""Hooks seen by the official SDK: a node of the test's own with webhooks to a receiver in this process."""

import hashlib
import hmac
import json
import os
import queue
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import WAIT, Node, expect_http_error, free_port, start_node, uniq

SECRET = "interop-secret"


class Receiver:
    """Webhook receiver: records every call per path; /before decides, /after fails twice per delivery."""

    def __init__(self):
        self.calls = {"/before": queue.Queue(), "/after": queue.Queue(), "/presence": queue.Queue()}
        self.failures = {}
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                signature = self.headers.get("X-PubNode-Signature", "")
                expected = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
                call = {"event": json.loads(body), "signed": hmac.compare_digest(signature, expected),
                        "delivery": self.headers.get("X-PubNode-Delivery"),
                        "attempt": self.headers.get("X-PubNode-Attempt")}
                receiver.calls[self.path].put(call)
                status, reply = receiver.answer(self.path, call)
                data = json.dumps(reply).encode() if reply is not None else b""
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def answer(self, path, call):
        event = call["event"]
        if path == "/before":
            text = json.dumps(event.get("message"))
            if "spam" in text:
                return 200, {"action": "abort", "status": 403, "text": "No spam here"}
            if "shout" in text:
                return 200, {"action": "modify", "message": {"text": "SHOUT"}, "meta": {"moderated": True}}
            return 204, None
        if path == "/after" and "retry-me" in json.dumps(event.get("message")):
            with self.lock:
                seen = self.failures.get(call["delivery"], 0)
                self.failures[call["delivery"]] = seen + 1
            if seen < 2:
                return 500, {"error": "try again"}
        return 200, {}

    def next(self, path, match, timeout=WAIT):
        """The next call on `path` whose event satisfies `match`."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("no matching webhook call on %s within %.0f s" % (path, timeout))
            try:
                call = self.calls[path].get(timeout=remaining)
            except queue.Empty:
                continue
            if match(call["event"]):
                return call

    def close(self):
        self.server.shutdown()


@pytest.fixture(scope="module")
def hooked():
    """A node with before-publish, after-publish and after-presence webhooks, and SDK clients for it."""
    receiver = Receiver()
    with tempfile.TemporaryDirectory() as data_dir:
        config = os.path.join(data_dir, "hooks.json")
        with open(config, "w") as f:
            json.dump({"hooks": [
                {"name": "guard", "event": "before-publish", "subscribeKey": "demo", "channels": ["guarded.*"],
                 "url": receiver.url + "/before", "secret": SECRET},
                {"name": "audit", "event": "after-publish", "subscribeKey": "demo", "channels": "*",
                 "url": receiver.url + "/after", "secret": SECRET, "retryBaseMs": 50, "retryMaxMs": 200},
                {"name": "presence", "event": "after-presence", "subscribeKey": "demo", "channels": "*",
                 "url": receiver.url + "/presence", "secret": SECRET},
            ]}, f)
        port = free_port()
        process = start_node(data_dir, port, "--config", config)
        node = Node("127.0.0.1:%d" % port)
        try:
            yield node, receiver
        finally:
            node.close()
            process.terminate()
            process.wait(timeout=10)
            receiver.close()


def test_before_hook_abort_reaches_the_sdk_as_an_error(hooked):
    node, receiver = hooked
    publisher = node.client("pub")
    code, exc = expect_http_error(lambda: publisher.publish().channel(uniq("guarded.room")).message("spam spam").sync())
    assert code == 403, "expected the hook's 403, got %s (%s)" % (code, exc)
    assert "No spam here" in str(exc)
    call = receiver.next("/before", lambda e: e.get("message") == "spam spam")
    assert call["signed"], "the webhook call carries a valid HMAC-SHA256 signature"
    assert call["event"]["event"] == "before-publish"


def test_before_hook_modification_is_what_subscribers_receive(hooked):
    node, receiver = hooked
    channel = uniq("guarded.room")
    publisher = node.client("pub")
    listener = node.subscribe(node.client("sub"), channels=[channel])
    publisher.publish().channel(channel).message({"text": "shout"}).sync()
    received = listener.next_message()
    assert received.message == {"text": "SHOUT"}
    assert received.user_metadata == {"moderated": True}


def test_fire_reaches_after_hooks_but_not_subscribers(hooked):
    node, receiver = hooked
    channel = uniq("ops")
    publisher = node.client("pub")
    listener = node.subscribe(node.client("sub"), channels=[channel])
    fired = publisher.fire().channel(channel).message({"cmd": "reindex"}).meta({"by": "ops"}).sync()
    call = receiver.next("/after", lambda e: e.get("channel") == channel)
    event = call["event"]
    assert call["signed"]
    assert event["action"] == "fire"
    assert event["message"] == {"cmd": "reindex"}
    assert event["meta"] == {"by": "ops"}
    assert event["publisher"] == publisher.config.user_id
    assert int(event["timetoken"]) == int(fired.result.timetoken)
    listener.assert_no_more_messages(0.5)


def test_after_hook_is_retried_until_the_receiver_accepts(hooked):
    node, receiver = hooked
    channel = uniq("orders")
    node.client("pub").publish().channel(channel).message({"retry-me": 1}).sync()
    calls = [receiver.next("/after", lambda e: e.get("channel") == channel) for _ in range(3)]
    assert [c["attempt"] for c in calls] == ["1", "2", "3"]
    assert len({c["delivery"] for c in calls}) == 1, "one delivery id across retries"


def test_presence_changes_reach_after_presence_hooks(hooked):
    node, receiver = hooked
    channel = uniq("lobby")
    subscriber = node.client("sub")
    node.subscribe(subscriber, channels=[channel])
    call = receiver.next("/presence", lambda e: e.get("channel") == channel)
    assert call["signed"]
    assert call["event"]["action"] == "join"
    assert call["event"]["uuid"] == subscriber.config.user_id
    assert call["event"]["occupancy"] == 1
