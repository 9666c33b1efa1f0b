#!/usr/bin/env python3
"""Soak test: mixed traffic at a steady rate against one node for a long time (not in CI).

Publishers send numbered messages on a set of channels at a fixed total rate; subscribers
long-poll those channels, some through a channel group, and churn (leave and come back with
their cursor); presence heartbeats, state changes, here-now, history fetches and group changes
run beside them. Every SAMPLE seconds the node's resident memory and open descriptors are read
from /proc. At the end it checks that every subscriber received every message of its channels
exactly once and in order (catching up with its cursor after each churn), that history holds
what was published, and prints the samples' first, last and peak values.

Usage: soak.py --port P --pid PID [--duration S] [--rate R] [--channels N] [--subscribers N]
Standard library only.
"""

import argparse
import http.client
import json
import os
import random
import sys
import threading
import time
import urllib.parse

STOP = threading.Event()
READY = []  # set to a Barrier: subscribers hold their cursors before the first publish
ERRORS = []
LOCK = threading.Lock()


def fail(text):
    with LOCK:
        ERRORS.append(text)
        print("soak: " + text, file=sys.stderr, flush=True)


class Client:
    """One keep-alive HTTP connection."""

    def __init__(self, port, timeout=320):
        self.port, self.timeout, self.conn = port, timeout, None

    def get(self, path):
        for attempt in range(3):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
                self.conn.request("GET", path)
                response = self.conn.getresponse()
                return response.status, response.read()
            except (OSError, http.client.HTTPException):
                self.conn = None
                if attempt == 2:
                    raise
                time.sleep(0.2)

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def quote(text):
    return urllib.parse.quote(text, safe="")


def publisher(port, channels, rate, published):
    READY[0].wait()
    client, interval, sequence = Client(port, 10), 1.0 / rate, 0
    next_at = time.monotonic()
    while not STOP.is_set():
        channel = channels[sequence % len(channels)]
        message = json.dumps({"seq": published[channel], "pad": "x" * random.randint(0, 200)})
        status, body = client.get("/publish/demo/demo/0/%s/0/%s?uuid=soak-pub" % (channel, quote(message)))
        if status != 200:
            fail("publish %s answered %s %s" % (channel, status, body[:200]))
        else:
            published[channel] += 1
        sequence += 1
        next_at += interval
        delay = next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def subscriber(port, name, channels, covered, group, received, churn_seconds):
    client = Client(port)
    status, body = client.get("/v2/subscribe/demo/%s/0?tt=0&uuid=%s%s" % (",".join(channels) or ",", name, group))
    cursor = json.loads(body)["t"]["t"]
    expected = {channel: 0 for channel in covered}
    READY[0].wait()
    churn_at = time.monotonic() + random.uniform(churn_seconds / 2, churn_seconds)
    while not STOP.is_set():
        if time.monotonic() > churn_at:
            # Leave, wait a moment, come back with the same cursor: nothing may be missed.
            client.get("/v2/presence/sub-key/demo/channel/%s/leave?uuid=%s" % (",".join(channels) or ",", name))
            client.close()
            time.sleep(random.uniform(0.5, 3))
            churn_at = time.monotonic() + random.uniform(churn_seconds / 2, churn_seconds)
        status, body = client.get("/v2/subscribe/demo/%s/0?tt=%s&uuid=%s&heartbeat=60%s"
                                  % (",".join(channels) or ",", cursor, name, group))
        if status != 200:
            fail("%s subscribe answered %s %s" % (name, status, body[:200]))
            time.sleep(1)
            continue
        answer = json.loads(body)
        for message in answer["m"]:
            channel, seq = message["c"], message["d"]["seq"]
            if seq < 0:
                continue  # the end-of-run wake-up
            if seq != expected.get(channel):
                fail("%s on %s expected %s got %s" % (name, channel, expected.get(channel), seq))
            expected[channel] = seq + 1
        cursor = answer["t"]["t"]
    received[name] = expected
    client.close()


def background(port, channels):
    """Presence, history and group traffic beside the messages."""
    client = Client(port, 10)
    while not STOP.is_set():
        channel = random.choice(channels)
        who = "soak-watcher-%d" % random.randint(0, 20)
        state = quote(json.dumps({"mood": random.choice(["ok", "busy"])}))
        for path in ("/v2/presence/sub-key/demo/channel/%s/heartbeat?uuid=%s&heartbeat=60" % (channel, who),
                     "/v2/presence/sub-key/demo/channel/%s/uuid/%s/data?state=%s" % (channel, who, state),
                     "/v2/presence/sub-key/demo/channel/%s?state=1" % channel,
                     "/v3/history/sub-key/demo/channel/%s?max=25" % channel,
                     "/v1/channel-registration/sub-key/demo/channel-group/soak-tmp-%d?add=%s"
                     % (random.randint(0, 50), channel),
                     "/v1/channel-registration/sub-key/demo/channel-group/soak-tmp-%d/remove" % random.randint(0, 50)):
            status, body = client.get(path)
            if status != 200:
                fail("%s answered %s %s" % (path, status, body[:200]))
        time.sleep(0.2)


def sample(pid):
    with open("/proc/%d/status" % pid) as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return rss, len(os.listdir("/proc/%d/fd" % pid))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--duration", type=float, default=3600)
    parser.add_argument("--rate", type=float, default=200, help="publishes per second, all channels")
    parser.add_argument("--channels", type=int, default=20)
    parser.add_argument("--subscribers", type=int, default=40)
    parser.add_argument("--sample", type=float, default=10)
    args = parser.parse_args()

    channels = ["soak-%d" % index for index in range(args.channels)]
    grouped = channels[: args.channels // 4]
    control = Client(args.port, 10)
    control.get("/v1/channel-registration/sub-key/demo/channel-group/soak-group?add=" + ",".join(grouped))
    published = {channel: 0 for channel in channels}
    READY.append(threading.Barrier(args.subscribers + 1))
    received = {}
    threads = [threading.Thread(target=publisher, args=(args.port, channels, args.rate, published))]
    plans = {}
    for index in range(args.subscribers):
        name = "soak-sub-%d" % index
        if index % 4 == 0:
            plans[name] = ([], grouped, "&channel-group=soak-group")
        else:
            direct = random.sample(channels, 3)
            plans[name] = (direct, direct, "")
        threads.append(threading.Thread(target=subscriber, args=(args.port, name, *plans[name], received, 120)))
    threads.append(threading.Thread(target=background, args=(args.port, channels)))
    for thread in threads:
        thread.daemon = True
        thread.start()
    samples, started = [], time.monotonic()
    while time.monotonic() - started < args.duration:
        samples.append((round(time.monotonic() - started), *sample(args.pid)))
        time.sleep(args.sample)
    STOP.set()
    # Wake every parked subscriber so it reports, then let the last answers land.
    time.sleep(2)
    Client(args.port, 10).get("/publish/demo/demo/0/soak-wake/0/1")
    for channel in channels:
        Client(args.port, 10).get("/publish/demo/demo/0/%s/0/%s" % (channel, quote(json.dumps({"seq": -1}))))
    for thread in threads:
        thread.join(timeout=30)
    for name, (_, covered, _) in plans.items():
        got = received.get(name)
        if got is None:
            fail("%s did not finish" % name)
            continue
        for channel in covered:
            if got.get(channel, 0) != published[channel]:
                fail("%s received %s of %s on %s" % (name, got.get(channel), published[channel], channel))
    total = sum(published.values())
    rss = [s[1] for s in samples]
    fds = [s[2] for s in samples]
    summary = {"seconds": round(time.monotonic() - started), "published": total,
               "rss_kib": {"first": rss[0], "last": rss[-1], "peak": max(rss)},
               "fds": {"first": fds[0], "last": fds[-1], "peak": max(fds)},
               "samples": samples[:: max(1, len(samples) // 12)], "errors": len(ERRORS)}
    print(json.dumps(summary))
    sys.exit(1 if ERRORS else 0)


if __name__ == "__main__":
    main()
