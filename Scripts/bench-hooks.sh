#!/usr/bin/env bash
# Hook benchmarks (results go to Docs/performance.md, "Hooks"):
#   webhook   closed-loop publish throughput with no hook, and with one after-publish webhook
#             bound to every channel (outbox in memory, then in SQLite; one event per POST, then
#             up to 100), POSTing to an nginx that answers 204; the node's own counters give
#             what was delivered and dropped
#   in-process  publish latency (1 connection) and throughput (CONNECTIONS) of the embedding
#             example with no hook and with one in-process before-publish handler
#
# Usage: Scripts/bench-hooks.sh [--no-build]
# Environment (defaults in brackets): SCRATCH [.build], CONNECTIONS [64], DURATION [10],
#   WARMUP [1], PAYLOAD [16]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=Scripts/bench-common.sh
source "$ROOT/Scripts/bench-common.sh"
SCRATCH=${SCRATCH:-$ROOT/.build}
CONNECTIONS=${CONNECTIONS:-64}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-1}
PAYLOAD=${PAYLOAD:-16}
BUILD=1
[[ "${1:-}" == "--no-build" ]] && BUILD=0

log() { echo "bench-hooks: $*" >&2; }
command -v nginx >/dev/null || { log "nginx is needed as the webhook receiver (apt-get install nginx)"; exit 1; }
if [[ $BUILD == 1 ]]; then
    for product in pubnode pubnode-load pubnode-hooks-example; do
        release_build "$product"
    done
fi
BIN=$SCRATCH/release/pubnode
LOAD=$SCRATCH/release/pubnode-load
EXAMPLE=$SCRATCH/release/pubnode-hooks-example
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pubnode-bench-hooks.XXXXXX")
chmod 755 "$WORK"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

wait_up() {
    for _ in $(seq 1 400); do curl -sf "http://127.0.0.1:$1/time/0" >/dev/null 2>&1 && return 0; sleep 0.05; done
    log "nothing answers on port $1"; exit 1
}
wait_port() {
    for _ in $(seq 1 400); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done
    log "nothing listens on port $1"; exit 1
}
stop() { kill "$1"; wait "$1" 2>/dev/null || true; }

# The webhook receiver: nginx answering 204 to everything, one worker, no access log.
SINK_PORT=$(free_port)
mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
cat >"$WORK/nginx/nginx.conf" <<CONF
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/tmp;
    server { listen 127.0.0.1:$SINK_PORT; keepalive_requests 1000000; location / { return 204; } }
}
CONF
nginx -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" \
    -g "daemon off; worker_processes 1; pid $WORK/nginx/nginx.pid;" >"$WORK/nginx.log" 2>&1 &
PIDS+=($!)
wait_port "$SINK_PORT"

TOKEN=bench-admin-token-0001
cat >"$WORK/hook.json" <<JSON
{"adminToken": "$TOKEN",
 "hooks": [{"name": "sink", "event": "after-publish", "subscribeKey": "demo", "channels": "*",
            "url": "http://127.0.0.1:$SINK_PORT/hook", "secret": "bench-secret"}]}
JSON
sed 's/"secret": "bench-secret"}/"secret": "bench-secret", "maxBatch": 100}/' "$WORK/hook.json" >"$WORK/hook-batch.json"

# load PORT CONNECTIONS: one publish run; prints its JSON summary line.
load() {
    "$LOAD" publish --host 127.0.0.1 --port "$1" --target pubnode --json --threads 1 \
        --connections "$2" --duration "$DURATION" --warmup "$WARMUP" --payload-size "$PAYLOAD" --channels 1 2>&1 | tail -1
}

# webhook_run NAME ARGS...: a publish run against pubnode started with ARGS; one table row.
webhook_run() {
    local name=$1; shift
    local port; port=$(free_port)
    mkdir -p "$WORK/$name"
    "$BIN" --host 127.0.0.1 --port "$port" $PUBNODE_UNLIMITED --data-dir "$WORK/$name" "$@" >"$WORK/$name.log" 2>&1 &
    local pid=$!
    PIDS+=($pid)
    wait_up "$port"
    local out; out=$(load "$port" "$CONNECTIONS")
    local stats; stats=$(curl -sf -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$port/v1/admin/hooks" || echo '{"hooks":[]}')
    stop "$pid"
    python3 - "$name" "$out" "$stats" "$DURATION" "$WARMUP" <<'PY'
import json, sys
name, line, stats = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
seconds = float(sys.argv[4]) + float(sys.argv[5])
hook = (stats.get("hooks") or [{}])[0]
delivered = hook.get("delivered")
extra = "| – | – | – |" if delivered is None else \
    f"| {delivered / seconds:,.0f} | {hook['dropped']:,} | {hook['pending']:,} |"
print(f"| {name} | {line['requests_per_s']:,.0f} | {line['latency_p50_ms']} | {line['latency_p99_ms']} | {line['errors']} {extra}")
PY
}

echo "| after-publish webhook | publishes/s | p50 ms | p99 ms | errors | delivered/s | dropped | left queued |"
echo "|---|---|---|---|---|---|---|---|"
webhook_run "none" --history-enabled false
webhook_run "webhook, memory outbox" --history-enabled false --config "$WORK/hook.json"
webhook_run "webhook (maxBatch 100), memory outbox" --history-enabled false --config "$WORK/hook-batch.json"
webhook_run "none, history on"
webhook_run "webhook, SQLite outbox" --config "$WORK/hook.json"
webhook_run "webhook (maxBatch 100), SQLite outbox" --config "$WORK/hook-batch.json"

# example_run NAME CONNECTIONS ARGS...: the embedding example; one table row.
example_run() {
    local name=$1 connections=$2; shift 2
    local port; port=$(free_port)
    "$EXAMPLE" --port "$port" "$@" >"$WORK/example.log" 2>&1 &
    local pid=$!
    PIDS+=($pid)
    wait_up "$port"
    local out; out=$(load "$port" "$connections")
    stop "$pid"
    python3 - "$name" "$connections" "$out" <<'PY'
import json, sys
name, connections, line = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
print(f"| {name} | {connections} | {line['requests_per_s']:,.0f} | {line['latency_p50_ms']} | {line['latency_p99_ms']} | {line['errors']} |")
PY
}

echo
echo "| in-process before-publish handler | connections | publishes/s | p50 ms | p99 ms | errors |"
echo "|---|---|---|---|---|---|"
example_run "none" 1 --no-hooks
example_run "pass-through handler" 1 --before-only
example_run "none" "$CONNECTIONS" --no-hooks
example_run "pass-through handler" "$CONNECTIONS" --before-only
