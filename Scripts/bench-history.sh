#!/usr/bin/env bash
# History benchmarks (results go to Docs/performance.md, "Message history"):
#   publish  closed-loop publish throughput with history off, on (group commit) and strict
#   fetch    latency of fetching 100 messages from a channel holding ROWS stored rows, and the
#            start-up time (open, check, ring rebuild) of a node with that database
#
# Usage: Scripts/bench-history.sh [--no-build]
# Environment (defaults in brackets): SCRATCH [.build], CONNECTIONS [64], DURATION [10],
#   WARMUP [1], PAYLOAD [16], ROWS [1000000], FETCHES [300]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=Scripts/bench-common.sh
source "$ROOT/Scripts/bench-common.sh"
SCRATCH=${SCRATCH:-$ROOT/.build}
CONNECTIONS=${CONNECTIONS:-64}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-1}
PAYLOAD=${PAYLOAD:-16}
ROWS=${ROWS:-1000000}
FETCHES=${FETCHES:-300}
BUILD=1
[[ "${1:-}" == "--no-build" ]] && BUILD=0

log() { echo "bench-history: $*" >&2; }
if [[ $BUILD == 1 ]]; then
    release_build pubnode
    release_build pubnode-load
fi
BIN=$SCRATCH/release/pubnode
LOAD=$SCRATCH/release/pubnode-load
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pubnode-bench-history.XXXXXX")
NODE_PID=""
cleanup() {
    if [[ -n "$NODE_PID" ]]; then kill "$NODE_PID" 2>/dev/null || true; wait "$NODE_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT


# start_node DIR ARGS...: starts the node; sets NODE_PID, PORT and STARTUP (seconds until it answered).
start_node() {
    local dir=$1; shift
    PORT=$(free_port)
    mkdir -p "$dir"
    local t0; t0=$(date +%s.%N)
    "$BIN" --host 127.0.0.1 --port "$PORT" $PUBNODE_UNLIMITED --data-dir "$dir" "$@" >>"$WORK/node.log" 2>&1 &
    NODE_PID=$!
    for _ in $(seq 1 1200); do
        if curl -sf "http://127.0.0.1:$PORT/time/0" >/dev/null 2>&1; then
            STARTUP=$(python3 -c "print(f'{$(date +%s.%N) - $t0:.2f}')")
            return 0
        fi
        sleep 0.05
    done
    log "node did not start"; exit 1
}

stop_node() { kill "$NODE_PID"; wait "$NODE_PID" 2>/dev/null || true; NODE_PID=""; }

publish_run() {
    local name=$1; shift
    start_node "$WORK/$name" "$@"
    local out
    out=$("$LOAD" publish --host 127.0.0.1 --port "$PORT" --target pubnode --json --threads 1 \
        --connections "$CONNECTIONS" --duration "$DURATION" --warmup "$WARMUP" --payload-size "$PAYLOAD" --channels 1 2>&1 | tail -1)
    stop_node
    local stored=0
    [[ -f "$WORK/$name/history.sqlite" ]] && stored=$(sqlite3 "$WORK/$name/history.sqlite" "SELECT count(*) FROM message")
    python3 - "$name" "$out" "$stored" <<'PY'
import json, sys
name, line, stored = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
print(f"| {name} | {line['requests_per_s']:.0f} | {line['latency_p50_ms']} | {line['latency_p99_ms']} | {line['errors']} | {int(stored):,} |")
PY
}

echo "| history | publishes/s | p50 ms | p99 ms | errors | rows stored |"
echo "|---|---|---|---|---|---|"
publish_run off --history-enabled false
publish_run on
publish_run strict --history-strict true

# Fetch from a channel holding ROWS rows (plus as many spread over 1,000 other channels).
DB_DIR=$WORK/fetch
start_node "$DB_DIR"
stop_node
log "seeding $ROWS rows into channel 'big' and $ROWS over 1,000 others"
python3 - "$DB_DIR/history.sqlite" "$ROWS" <<'PY'
import sqlite3, sys, time
path, rows = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(path)
now = int(time.time() * 10_000_000) - 2 * rows
def batch(channel_of, offset):
    for i in range(rows):
        yield ("demo", channel_of(i), now + 2 * i + offset, ('{"n":%d,"text":"a sixteen bytes"}' % i).encode(), None, "bench", 0, None, None)
sql = "INSERT INTO message (subscribe_key, channel, timetoken, payload, meta, publisher, message_type, custom_message_type, expires_at) VALUES (?,?,?,?,?,?,?,?,?)"
db.executemany(sql, batch(lambda i: "big", 0))
db.executemany(sql, batch(lambda i: "c%d" % (i % 1000), 1))
db.execute("INSERT INTO node_state (key, value) VALUES ('newest_timetoken', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (now + 2 * rows,))
db.commit()
print(f"seeded; first timetoken {now}", file=sys.stderr)
PY
start_node "$DB_DIR"
python3 - "$PORT" "$FETCHES" "$ROWS" "$STARTUP" "$(du -h "$DB_DIR/history.sqlite" | cut -f1)" <<'PY'
import http.client, json, sys, time
port, fetches, rows, startup, size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
conn = http.client.HTTPConnection("127.0.0.1", port)
def timed(path):
    samples = []
    for _ in range(fetches):
        t0 = time.perf_counter()
        conn.request("GET", path)
        body = conn.getresponse().read()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return body, samples
def row(label, path, check):
    body, s = timed(path)
    assert check(body), body[:200]
    print(f"| {label} | {s[len(s)//2]:.2f} | {s[int(len(s)*0.99)-1]:.2f} | {s[-1]:.2f} |")
print()
print(f"Database: {2*rows:,} rows ({size}); channel `big` holds {rows:,}. Node start-up with it: {startup} s.")
print()
print("| fetch (over HTTP, keep-alive) | p50 ms | p99 ms | max ms |")
print("|---|---|---|---|")
row("v3 fetch, newest 100 of `big`", "/v3/history/sub-key/demo/channel/big?max=100",
    lambda b: len(json.loads(b)["channels"]["big"]) == 100)
first = json.loads(timed("/v2/history/sub-key/demo/channel/big?count=1&reverse=true")[0])[1]
middle = first + rows  # timetokens step by 2
row("v2 history, 100 before the middle", f"/v2/history/sub-key/demo/channel/big?count=100&start={middle}",
    lambda b: len(json.loads(b)[0]) == 100)
row("message count of `big` after the middle", f"/v3/history/sub-key/demo/message-counts/big?timetoken={middle}",
    lambda b: json.loads(b)["channels"]["big"] == 10000)
PY
stop_node
