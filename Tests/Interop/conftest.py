"""Shared helpers for the PubNode interoperability suite.

Every test talks to a running pubnode through the official PubNub Python SDK.
The node's address comes from PUBNODE_ORIGIN (host:port), set by run.sh.
"""

import contextlib
import os
import queue
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
import uuid

import pytest

from pubnub.callbacks import SubscribeCallback
from pubnub.enums import PNOperationType, PNReconnectionPolicy, PNStatusCategory
from pubnub.exceptions import PubNubException
from pubnub.pnconfiguration import PNConfiguration
from pubnub.pubnub import PubNub

# Longest we ever wait for a single event. The server holds long-polls for 280 s,
# so no test may depend on a long-poll timing out.
WAIT = 10


def pytest_configure(config):
    if not os.environ.get("PUBNODE_ORIGIN"):
        raise pytest.UsageError(
            "PUBNODE_ORIGIN is not set; run the suite through Tests/Interop/run.sh "
            "or export PUBNODE_ORIGIN=host:port of a running pubnode")


def origin():
    return os.environ["PUBNODE_ORIGIN"]


def uniq(prefix="ch"):
    """A channel / group name no other test uses."""
    return "%s-%s" % (prefix, uuid.uuid4().hex)


def status_code_of(exc):
    """HTTP status code carried by a PubNubException raised from .sync()."""
    code = exc.get_status_code() if hasattr(exc, "get_status_code") else 0
    if not code and getattr(exc, "status", None) is not None:
        code = exc.status.status_code or 0
    return int(code or 0)


def expect_http_error(call):
    """Run call(); it must raise PubNubException. Returns (status_code, exception)."""
    try:
        envelope = call()
    except PubNubException as exc:
        return status_code_of(exc), exc
    status = getattr(envelope, "status", None)
    raise AssertionError(
        "request succeeded but an error was expected: status=%s result=%r"
        % (getattr(status, "status_code", None), getattr(envelope, "result", None)))


def now_tt():
    return int(time.time() * 10_000_000)


def describe_status(status):
    err = None
    if status.error_data is not None:
        err = status.error_data.information
    return "%s/%s code=%s error=%s" % (
        getattr(status.category, "name", status.category),
        getattr(status.operation, "name", status.operation),
        status.status_code, err)


class Listener(SubscribeCallback):
    """Collects everything the SDK's subscribe loop delivers."""

    def __init__(self):
        self.messages = queue.Queue()
        self.signals = queue.Queue()
        self.presences = queue.Queue()
        self.leaves = queue.Queue()
        self.statuses = []
        self.connected = threading.Event()
        self._lock = threading.Lock()

    # SubscribeCallback interface -------------------------------------------------
    def status(self, pubnub, status):
        with self._lock:
            self.statuses.append(status)
        if status.category == PNStatusCategory.PNConnectedCategory:
            self.connected.set()
        if status.operation == PNOperationType.PNUnsubscribeOperation:
            self.leaves.put(status)

    def message(self, pubnub, message):
        self.messages.put(message)

    def signal(self, pubnub, signal):
        self.signals.put(signal)

    def presence(self, pubnub, presence):
        self.presences.put(presence)

    # helpers ---------------------------------------------------------------------
    def status_log(self):
        with self._lock:
            return "; ".join(describe_status(s) for s in self.statuses) or "(none)"

    def subscribe_failed(self):
        with self._lock:
            return any(s.is_error() and s.operation == PNOperationType.PNSubscribeOperation
                       for s in self.statuses)

    def wait_connected(self, timeout=WAIT):
        deadline = time.monotonic() + timeout
        while not self.connected.wait(0.05):
            if self.subscribe_failed() or time.monotonic() >= deadline:
                break
        if not self.connected.is_set():
            raise AssertionError(
                "subscription not established (waited up to %.0f s); statuses: %s"
                % (timeout, self.status_log()))

    def _get(self, q, what, timeout):
        try:
            return q.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                "no %s received within %.0f s; statuses: %s"
                % (what, timeout, self.status_log())) from None

    def next_message(self, timeout=WAIT):
        return self._get(self.messages, "message", timeout)

    def next_signal(self, timeout=WAIT):
        return self._get(self.signals, "signal", timeout)

    def next_leave(self, timeout=WAIT):
        return self._get(self.leaves, "leave status", timeout)

    def take_messages(self, count, timeout=WAIT):
        """Exactly `count` messages, waiting at most `timeout` seconds in total."""
        got = []
        deadline = time.monotonic() + timeout
        while len(got) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                got.append(self.messages.get(timeout=remaining))
            except queue.Empty:
                break
        if len(got) < count:
            preview = [m.message for m in got[:5]]
            raise AssertionError(
                "expected %d messages within %.0f s, got %d (first: %r); statuses: %s"
                % (count, timeout, len(got), preview, self.status_log()))
        return got

    def assert_no_more_messages(self, seconds=1.0):
        try:
            extra = self.messages.get(timeout=seconds)
        except queue.Empty:
            return
        raise AssertionError(
            "unexpected extra message on %s: %r" % (extra.channel, extra.message))


def pubnode_binary():
    """The pubnode binary under test, for tests that start a node of their own."""
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    path = os.environ.get("PUBNODE_BIN") or os.path.join(repo, ".build", "debug", "pubnode")
    if not os.access(path, os.X_OK):
        pytest.skip("pubnode binary not found at %s (set PUBNODE_BIN)" % path)
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]



def start_until_logged(command, marker, log=None, timeout=20, **popen_args):
    """Starts `command` and waits until its output shows `marker` (the server says it is ready);
    the output goes on being read (into the file `log` when given) so the server never blocks on
    it. Fails when the process exits first or `timeout` seconds pass."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **popen_args)
    ready = threading.Event()

    def read():
        with open(log or os.devnull, "ab") as sink:
            for line in process.stdout:
                sink.write(line)
                sink.flush()
                if marker in line:
                    ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(timeout) or process.poll() is not None:
        process.kill()
        process.wait(timeout=10)
        raise AssertionError("%s did not start" % os.path.basename(command[0]))
    return process


def start_node(data_dir, port, *extra, log=None):
    """Starts a node of the test's own on `port` and waits until it answers; its output goes to
    the file `log` when given, otherwise nowhere."""
    output = open(log, "ab") if log else subprocess.DEVNULL
    try:
        process = subprocess.Popen([pubnode_binary(), "--host", "127.0.0.1", "--port", str(port), "--data-dir",
                                    data_dir, *extra], stdout=output, stderr=subprocess.STDOUT)
    finally:
        if log:
            output.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError("pubnode exited with %s" % process.returncode)
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/time/0" % port, timeout=1):
                return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise AssertionError("pubnode did not start")


@contextlib.contextmanager
def own_node(*flags):
    """A node of the test's own, started with `flags` in a temporary data directory; yields a
    `Node` for it (with its `port`) and stops it afterwards."""
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        process = start_node(data, port, *flags)
        node = Node("127.0.0.1:%d" % port)
        node.port = port
        try:
            yield node
        finally:
            node.close()
            process.terminate()
            process.wait(timeout=10)


class Node:
    """Creates SDK clients pointed at the node under test (or at `address`) and cleans them up."""

    def __init__(self, address=None):
        self._clients = []
        self.address = address

    def client(self, name="client", publish_key="demo", subscribe_key="demo"):
        config = PNConfiguration()
        config.publish_key = publish_key
        config.subscribe_key = subscribe_key
        config.ssl = False
        config.origin = self.address or origin()
        config.user_id = "%s-%s" % (name, uuid.uuid4().hex[:12])
        # Worker threads must not keep the interpreter alive: a long-poll that is
        # still parked on the server would otherwise block exit for 280 s.
        config.daemon = True
        # Fail fast and visibly instead of retrying against a broken server.
        config.reconnect_policy = PNReconnectionPolicy.NONE
        config.non_subscribe_request_timeout = WAIT
        config.connect_timeout = WAIT
        pn = PubNub(config)
        self._clients.append(pn)
        return pn

    def subscribe(self, pn, channels=(), groups=(), timetoken=None, wait=True, presence=False):
        """Subscribe `pn` (with presence channels if asked) and return a Listener once live."""
        listener = Listener()
        pn.add_listener(listener)
        builder = pn.subscribe()
        if channels:
            builder = builder.channels(list(channels))
        if groups:
            builder = builder.channel_groups(list(groups))
        if timetoken is not None:
            builder = builder.with_timetoken(timetoken)
        if presence:
            builder = builder.with_presence()
        builder.execute()
        if wait:
            listener.wait_connected()
        return listener

    def close(self):
        for pn in self._clients:
            try:
                if pn.get_subscribed_channels() or pn.get_subscribed_channel_groups():
                    pn.unsubscribe_all()
            except Exception:
                pass
            try:
                pn.stop()
            except Exception:
                pass
        self._clients = []


@pytest.fixture
def node():
    n = Node()
    try:
        yield n
    finally:
        n.close()


# --- PostgreSQL: a throwaway cluster for tests of --history-url ---------------------------------

POSTGRES_BIN = "/usr/lib/postgresql/15/bin"


def _as_server_user(argv):
    """PostgreSQL refuses to run as root: as root, run it as the `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.getuid() == 0 else list(argv)


@pytest.fixture
def postgres_url():
    """A throwaway PostgreSQL 15 cluster (initdb in a temporary directory, trust authentication,
    no fsync) on a free loopback port; yields its URL with a fresh database and deletes it after.
    Skipped without PostgreSQL, unless PUBNODE_REQUIRE_POSTGRES=1 makes that a failure."""
    if not os.access(os.path.join(POSTGRES_BIN, "initdb"), os.X_OK):
        if os.environ.get("PUBNODE_REQUIRE_POSTGRES") == "1":
            pytest.fail("PostgreSQL 15 is not installed and PUBNODE_REQUIRE_POSTGRES=1")
        pytest.skip("PostgreSQL 15 is not installed (apt-get install postgresql)")
    directory = tempfile.mkdtemp(prefix="pubnode-pg-")
    if os.getuid() == 0:
        subprocess.run(["chown", "postgres", directory], check=True)
    data = os.path.join(directory, "data")
    subprocess.run(_as_server_user([os.path.join(POSTGRES_BIN, "initdb"), "-D", data, "-U", "pubnode", "-A", "trust",
                                    "-E", "UTF8", "--no-sync", "--no-instructions"]),
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/tmp")
    port = free_port()
    server = start_until_logged(_as_server_user([os.path.join(POSTGRES_BIN, "postgres"), "-D", data, "-p", str(port),
                                                 "-k", directory, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]),
                                b"ready to accept connections", cwd="/tmp")
    try:
        subprocess.run([os.path.join(POSTGRES_BIN, "psql"), "-h", "127.0.0.1", "-p", str(port), "-U", "pubnode",
                        "-d", "postgres", "-qc", "CREATE DATABASE history"], check=True)
        yield "postgres://pubnode@127.0.0.1:%d/history?sslmode=disable" % port
    finally:
        with open(os.path.join(data, "postmaster.pid")) as pid_file:
            os.kill(int(pid_file.readline()), signal.SIGINT)
        server.wait(timeout=30)
        shutil.rmtree(directory, ignore_errors=True)
