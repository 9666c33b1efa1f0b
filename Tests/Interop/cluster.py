"""Helpers for the cluster suites: a throwaway redis-server and nodes that share it.

Every cluster here is the test's own: one `redis-server` on a free loopback port in a temporary
directory (no persistence) and nodes started with `--redis`, each with its own data directory
and port. Without `redis-server` the tests are skipped, unless PUBNODE_REQUIRE_REDIS=1 (as in
CI), which turns a missing server into a failure.
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import Node, free_port, start_node, start_until_logged


def redis_binary():
    """The redis-server binary, or a skip (a failure when PUBNODE_REQUIRE_REDIS=1)."""
    path = shutil.which("redis-server") or next(
        (p for p in ("/usr/bin/redis-server", "/usr/local/bin/redis-server") if os.access(p, os.X_OK)), None)
    if path is None:
        if os.environ.get("PUBNODE_REQUIRE_REDIS") == "1":
            pytest.fail("redis-server is not installed and PUBNODE_REQUIRE_REDIS=1")
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    return path


class RedisServer:
    """A redis-server of the test's own; `stop()` and `start()` again keep its port."""

    def __init__(self, directory):
        self.binary = redis_binary()
        self.directory = directory
        self.port = free_port()
        self.process = None
        self.start()

    @property
    def url(self):
        return "redis://127.0.0.1:%d" % self.port

    def start(self):
        self.process = start_until_logged(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.directory], b"Ready to accept connections", log=os.path.join(self.directory, "redis.log"))

    def stop(self):
        """SIGTERM, then wait for the process to exit."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=10)


class ClusterNode(Node):
    """A node of the cluster: SDK clients for it (`client()`, `subscribe()`), its process and port."""

    def __init__(self, process, port, directory):
        super().__init__("127.0.0.1:%d" % port)
        self.process = process
        self.port = port
        self.directory = directory

    @property
    def base(self):
        return "http://127.0.0.1:%d" % self.port

    def alive(self):
        return self.process.poll() is None

    def kill(self):
        """SIGKILL: the node gets no chance to drain."""
        self.process.kill()
        self.process.wait(timeout=10)

    def log_tail(self, lines=30):
        try:
            with open(os.path.join(self.directory, "node.log"), errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return "(no log)"


class Cluster:
    """`count` nodes on one Redis (a fresh one unless `redis` is given), started with `flags`."""

    def __init__(self, count=3, flags=(), redis=None):
        self._directory = tempfile.TemporaryDirectory()
        self.redis = redis or RedisServer(self._directory.name)
        self._own_redis = redis is None
        self.flags = tuple(flags)
        self.nodes = []
        try:
            for _ in range(count):
                self.add_node()
        except BaseException:
            self.close()
            raise

    def add_node(self, *flags):
        """Starts one more node on the cluster's Redis and waits until it is ready."""
        directory = tempfile.mkdtemp(dir=self._directory.name, prefix="node-")
        port = free_port()
        process = start_node(directory, port, "--redis", self.redis.url, *self.flags, *flags,
                             log=os.path.join(directory, "node.log"))
        node = ClusterNode(process, port, directory)
        self.nodes.append(node)
        wait_for(lambda: ready_status(node) == 200, "node on port %d ready" % port, timeout=20)
        return node

    def __getitem__(self, index):
        return self.nodes[index]

    def logs(self):
        return "\n".join("---- node %d (port %d) ----\n%s" % (i, n.port, n.log_tail())
                         for i, n in enumerate(self.nodes))

    def close(self):
        for node in self.nodes:
            node.close()
            if node.alive():
                node.process.terminate()
                try:
                    node.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    node.process.kill()
                    node.process.wait(timeout=10)
        if self._own_redis:
            self.redis.stop()
        self._directory.cleanup()


def wait_for(condition, what, timeout=10, interval=0.05):
    """Polls `condition` until it holds; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return
        if time.monotonic() >= deadline:
            raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, what))
        time.sleep(interval)


def http_get(url, timeout=10):
    """(status, body bytes) of a GET; HTTP errors are answers, not exceptions."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def ready_status(node):
    try:
        return http_get(node.base + "/ready", timeout=2)[0]
    except OSError:
        return 0


def raw_publish(node, channel, message, timeout=5):
    """Publishes `message` (JSON-encoded) with the plain HTTP GET form; returns (status, parsed body)."""
    path = "/publish/demo/demo/0/%s/0/%s?uuid=raw-publisher" % (
        urllib.parse.quote(channel, safe=""), urllib.parse.quote(json.dumps(message), safe=""))
    status, body = http_get(node.base + path, timeout=timeout)
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body
