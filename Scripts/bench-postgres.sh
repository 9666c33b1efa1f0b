#!/usr/bin/env bash
# Benchmarks history in PostgreSQL (--history-url) on this machine and prints Markdown lines for
# Docs/performance.md:
#   publish  closed-loop publish throughput (pubnode-load publish) with history off, then with
#            history in a throwaway PostgreSQL 15 cluster (the ratio of the two), then in strict mode
#   fetch    latency of fetching 100 messages (v3 history, HTTP keep-alive) from a channel of
#            1,000,000 rows filled directly in SQL: the newest 100, and 100 before random points
#   start    a node's start-up on that database (until it accepts connections)
#
# Usage: Scripts/bench-postgres.sh [--no-build]
# Environment (defaults in brackets): SCRATCH [.build-release]  CONNECTIONS [64]  DURATION [10]
#   WARMUP [1]  PAYLOAD [16]  ROWS [1000000]  FETCHES [300]  PUBLISH_THREADS [1]
#
# Only loopback addresses are used. Everything started here is stopped on exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=Scripts/bench-common.sh
source "$ROOT/Scripts/bench-common.sh"
SCRATCH=${SCRATCH:-$ROOT/.build-release}
CONNECTIONS=${CONNECTIONS:-64}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-1}
PAYLOAD=${PAYLOAD:-16}
ROWS=${ROWS:-1000000}
FETCHES=${FETCHES:-300}
PUBLISH_THREADS=${PUBLISH_THREADS:-1}
PG=/usr/lib/postgresql/15/bin
BUILD=1
[[ ${1:-} == --no-build ]] && BUILD=0

log() { echo "[bench-postgres] $*" >&2; }
[[ -x $PG/initdb ]] || { echo "PostgreSQL 15 is not installed (apt-get install postgresql)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/pubnode-bench-pg.XXXXXX)
chmod 755 "$WORK"
NODE_PID=""
PG_PID=""
as_pg() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
    [[ -n $NODE_PID ]] && kill "$NODE_PID" 2>/dev/null && wait "$NODE_PID" 2>/dev/null
    if [[ -f $WORK/pg/data/postmaster.pid ]]; then
        kill -INT "$(head -1 "$WORK/pg/data/postmaster.pid")" 2>/dev/null || true
        [[ -n $PG_PID ]] && wait "$PG_PID" 2>/dev/null
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

if [[ $BUILD == 1 ]]; then
    log "building pubnode and pubnode-load (release) in $SCRATCH"
    release_build pubnode
    release_build pubnode-load
fi
BIN=$SCRATCH/release

# A throwaway cluster with PostgreSQL's default durability (fsync and synchronous commit on).
mkdir -p "$WORK/pg"
[[ $(id -u) == 0 ]] && chown postgres "$WORK/pg"
(cd /tmp && as_pg "$PG/initdb" -D "$WORK/pg/data" -U pubnode -A trust -E UTF8 --no-instructions >/dev/null)
PG_PORT=$(free_port)
(cd /tmp && as_pg "$PG/postgres" -D "$WORK/pg/data" -p "$PG_PORT" -k "$WORK/pg" -c listen_addresses=127.0.0.1 \
    >"$WORK/pg/log" 2>&1) &
PG_PID=$!
for _ in $(seq 200); do "$PG/pg_isready" -h 127.0.0.1 -p "$PG_PORT" -q && break; sleep 0.1; done
psql_() { "$PG/psql" -h 127.0.0.1 -p "$PG_PORT" -U pubnode -d history -v ON_ERROR_STOP=1 -qAt "$@"; }
"$PG/psql" -h 127.0.0.1 -p "$PG_PORT" -U pubnode -d postgres -qc "CREATE DATABASE history"
URL="postgres://pubnode@127.0.0.1:$PG_PORT/history?sslmode=disable"

# start_node FLAGS...: starts a node on a free port with a fresh data directory; sets PORT.
start_node() {
    PORT=$(free_port)
    local data
    data=$(mktemp -d "$WORK/node.XXXX")
    # shellcheck disable=SC2086 # PUBNODE_UNLIMITED is a list of flags
    "$BIN/pubnode" --host 127.0.0.1 --port "$PORT" --data-dir "$data" $PUBNODE_UNLIMITED "$@" >"$data.log" 2>&1 &
    NODE_PID=$!
    for _ in $(seq 300); do
        python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2>/dev/null && return
        kill -0 "$NODE_PID" 2>/dev/null || { cat "$data.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "pubnode did not start" >&2; exit 1
}
stop_node() { kill "$NODE_PID" 2>/dev/null; wait "$NODE_PID" 2>/dev/null || true; NODE_PID=""; }

# publish LABEL: one closed-loop publish run against the node on PORT; prints requests/s.
publish() {
    local out=$WORK/publish-$1.json
    "$BIN/pubnode-load" publish --port "$PORT" --json --threads "$PUBLISH_THREADS" --connections "$CONNECTIONS" \
        --duration "$DURATION" --warmup "$WARMUP" --payload-size "$PAYLOAD" >"$out" 2>&1
    log "$1: $(grep -v '^{' "$out" | tail -1)"
    printf '%s %s %s\n' "$(result_field "$out" requests_per_s)" "$(result_field "$out" latency_p99_ms)" \
        "$(result_field "$out" errors)"
}

log "publish, history off"
start_node --history-enabled false
read -r OFF_RPS OFF_P99 OFF_ERR < <(publish off)
stop_node
log "publish, history in PostgreSQL"
start_node --history-url "$URL"
read -r PG_RPS PG_P99 PG_ERR < <(publish postgres)
STORED=$(psql_ -c "SELECT count(*) FROM pubnode_message")
stop_node
log "publish, history in PostgreSQL, strict mode"
start_node --history-url "$URL" --history-strict true
read -r STRICT_RPS STRICT_P99 STRICT_ERR < <(publish strict)

log "filling channel big with $ROWS rows"
psql_ -c "INSERT INTO pubnode_message (subscribe_key, channel, timetoken, payload, publisher)
    SELECT 'demo', 'big', 17000000000000000 + i * 10, convert_to('\"message ' || i || '\"', 'UTF8'), 'bench'
    FROM generate_series(1, $ROWS) AS i; ANALYZE pubnode_message;"
log "timing $FETCHES fetches of 100, newest first, then as many before random points"
FETCH=$(python3 - "$PORT" "$FETCHES" "$ROWS" <<'EOF'
import http.client, json, random, sys, time
port, count, rows = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
connection = http.client.HTTPConnection("127.0.0.1", port)
def fetch(query):
    started = time.perf_counter()
    connection.request("GET", "/v3/history/sub-key/demo/channel/big?max=100" + query)
    response = connection.getresponse()
    body = response.read()
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status == 200 and len(json.loads(body)["channels"]["big"]) == 100, body[:200]
    return elapsed
def summary(times):
    times = sorted(times)
    return "%.2f %.2f" % (times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))])
for _ in range(20): fetch("")  # warm-up
newest = [fetch("") for _ in range(count)]
points = [fetch("&start=%d" % (17000000000000000 + random.randint(200, rows) * 10)) for _ in range(count)]
print(summary(newest), summary(points))
EOF
)
read -r NEW_P50 NEW_P99 RAND_P50 RAND_P99 <<<"$FETCH"
stop_node
log "timing a node's start on the filled database (migrations checked, rings and clock restored)"
STARTED=$(date +%s%N)
start_node --history-url "$URL"
START_MS=$(( ($(date +%s%N) - STARTED) / 1000000 ))
stop_node

RATIO=$(awk -v a="$PG_RPS" -v b="$OFF_RPS" 'BEGIN { printf "%.0f", a / b * 100 }')
echo "| Publish, history off | $OFF_RPS req/s (p99 $OFF_P99 ms, errors $OFF_ERR) |"
echo "| Publish, history in PostgreSQL | $PG_RPS req/s (p99 $PG_P99 ms, errors $PG_ERR); $RATIO % of history off; $STORED rows stored |"
echo "| Publish, history in PostgreSQL, strict mode | $STRICT_RPS req/s (p99 $STRICT_P99 ms, errors $STRICT_ERR) |"
echo "| Fetch 100 of $ROWS rows, newest | p50 $NEW_P50 ms, p99 $NEW_P99 ms ($FETCHES fetches) |"
echo "| Fetch 100 of $ROWS rows, before a random point | p50 $RAND_P50 ms, p99 $RAND_P99 ms ($FETCHES fetches) |"
echo "| Node start on that database, until it accepts connections | $START_MS ms |"
