#!/usr/bin/env bash
# Benchmarks a cluster of three local nodes on one redis-server against one node without Redis
# (and, to tell the cost of cluster mode from the crowding of three nodes on the same cores, one
# node on Redis), with the load tool; prints a Markdown table and writes the figures as JSON.
#
# Scenarios, on each setup in turn:
#   publish  closed-loop publish throughput; the cluster's connections are spread over its three
#            nodes (pubnode-load --extra-port); server CPU per accepted message, from utime+stime
#            in /proc/PID/stat of the node processes (and of redis-server, shown apart) divided
#            by the messages the nodes counted (pubnode_messages_published_total)
#   fanout   delivery latency to FANOUT_SUBS parked subscribers, spread over the three nodes
#            (3,334 / 3,333 / 3,333 for 10,000), the publisher on the first node
#
# Usage: Scripts/bench-cluster.sh [--no-build] [--quick] [--help]
#
# Environment overrides (defaults in brackets):
#   SCRATCH [.build-release]  CONNECTIONS [64]  DURATION [10]  WARMUP [1]  PAYLOAD [16]
#   FANOUT_SUBS [10000]  MESSAGES [20]  INTERVAL_MS [200]
#   PUBLISH_THREADS [1]  LOAD_THREADS [nproc]
#   PUBNODE_ARGS ["--history-enabled false"]  extra flags for every node
#   OUT [bench-cluster.json]  where the JSON figures go
#
# Only loopback addresses are used. Everything started here is stopped on exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=Scripts/bench-common.sh
source "$ROOT/Scripts/bench-common.sh"
SCRATCH=${SCRATCH:-.build-release}
CONNECTIONS=${CONNECTIONS:-64}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-1}
PAYLOAD=${PAYLOAD:-16}
FANOUT_SUBS=${FANOUT_SUBS:-10000}
MESSAGES=${MESSAGES:-20}
INTERVAL_MS=${INTERVAL_MS:-200}
PUBLISH_THREADS=${PUBLISH_THREADS:-1}
LOAD_THREADS=${LOAD_THREADS:-$(nproc)}
PUBNODE_ARGS=${PUBNODE_ARGS---history-enabled false}
OUT=${OUT:-bench-cluster.json}
BUILD=1

while [[ $# -gt 0 ]]; do
    case "$1" in
        --no-build) BUILD=0 ;;
        --quick) DURATION=3; FANOUT_SUBS=999; MESSAGES=5 ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done

log() { echo "[bench-cluster] $*" >&2; }
cd "$ROOT"
command -v redis-server >/dev/null || { echo "redis-server is not installed (Scripts/setup.sh)" >&2; exit 1; }
if [[ $BUILD == 1 ]]; then
    log "building pubnode and pubnode-load (release) in $SCRATCH"
    release_build pubnode
    release_build pubnode-load
fi
BIN=$SCRATCH/release
for binary in pubnode pubnode-load; do
    [[ -x "$BIN/$binary" ]] || { echo "missing $BIN/$binary (build it or drop --no-build)" >&2; exit 1; }
done

WORK=$(mktemp -d /tmp/pubnode-bench-cluster.XXXXXX)
PIDS=()
stop_all() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    PIDS=()
}
trap 'stop_all; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# wait_http URL PID: waits up to 30 s for URL to answer 200 while PID lives.
wait_http() {
    for _ in $(seq 1 300); do
        if python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' "$1" 2>/dev/null; then
            return 0
        fi
        kill -0 "$2" 2>/dev/null || { log "process $2 exited early"; return 1; }
        sleep 0.1
    done
    log "$1 did not answer 200"; return 1
}

# Sum of utime+stime (clock ticks) of the given processes.
cpu_ticks() {
    local total=0 pid value
    for pid in "$@"; do
        value=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null || echo 0)
        total=$((total + ${value:-0}))
    done
    echo "$total"
}

# Messages the nodes behind the given metrics ports accepted, summed.
published() {
    local total=0 port value
    for port in "$@"; do
        value=$(python3 - "$port" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
print(int(sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
              if line.startswith("pubnode_messages_published_total{"))))
PY
)
        total=$((total + value))
    done
    echo "$total"
}

NODE_PIDS=() NODE_PORTS=() METRIC_PORTS=() REDIS_PID=""
# start_node NAME [--redis URL]: one node with its own data directory and a metrics port.
start_node() {
    local name=$1 port metrics
    shift
    port=$(free_port); metrics=$(free_port)
    mkdir -p "$WORK/$name"
    # shellcheck disable=SC2086 # PUBNODE_ARGS and PUBNODE_UNLIMITED are lists of flags
    "$BIN/pubnode" --host 127.0.0.1 --port "$port" --metrics-port "$metrics" --data-dir "$WORK/$name" \
        $PUBNODE_UNLIMITED $PUBNODE_ARGS "$@" >"$WORK/$name.log" 2>&1 &
    PIDS+=("$!"); NODE_PIDS+=("$!"); NODE_PORTS+=("$port"); METRIC_PORTS+=("$metrics")
    wait_http "http://127.0.0.1:$port/ready" "$!"
}

declare -A R
# run_scenarios SETUP: publish and fan-out against the nodes started, results under R[SETUP.*].
run_scenarios() {
    local setup=$1 extra=() port out ticks0 ticks1 redis0=0 redis1=0 messages0 messages1 hz
    for port in "${NODE_PORTS[@]:1}"; do extra+=(--extra-port "$port"); done
    local target=(--port "${NODE_PORTS[0]}" "${extra[@]}" --json)

    out=$WORK/$setup-publish.json
    messages0=$(published "${METRIC_PORTS[@]}")
    ticks0=$(cpu_ticks "${NODE_PIDS[@]}")
    [[ -n "$REDIS_PID" ]] && redis0=$(cpu_ticks "$REDIS_PID")
    "$BIN/pubnode-load" publish "${target[@]}" --threads "$PUBLISH_THREADS" --connections "$CONNECTIONS" \
        --duration "$DURATION" --warmup "$WARMUP" --payload-size "$PAYLOAD" >"$out" 2>&1 \
        || log "$setup publish exited with an error"
    ticks1=$(cpu_ticks "${NODE_PIDS[@]}")
    [[ -n "$REDIS_PID" ]] && redis1=$(cpu_ticks "$REDIS_PID")
    messages1=$(published "${METRIC_PORTS[@]}")
    hz=$(getconf CLK_TCK)
    R[$setup.publish_rps]=$(result_field "$out" requests_per_s)
    R[$setup.publish_p99_ms]=$(result_field "$out" latency_p99_ms)
    R[$setup.publish_errors]=$(result_field "$out" errors)
    R[$setup.messages]=$((messages1 - messages0))
    R[$setup.node_cpu_us_per_msg]=$(awk -v t=$((ticks1 - ticks0)) -v hz="$hz" -v n=$((messages1 - messages0)) \
        'BEGIN { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }')
    R[$setup.redis_cpu_us_per_msg]=$(awk -v t=$((redis1 - redis0)) -v hz="$hz" -v n=$((messages1 - messages0)) \
        'BEGIN { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }')
    log "$setup publish: ${R[$setup.publish_rps]} req/s, ${R[$setup.node_cpu_us_per_msg]} µs node CPU per message"

    out=$WORK/$setup-fanout.json
    "$BIN/pubnode-load" fanout "${target[@]}" --threads "$LOAD_THREADS" --subscribers "$FANOUT_SUBS" \
        --messages "$MESSAGES" --interval-ms "$INTERVAL_MS" --channel "fan-$setup-$RANDOM" >"$out" 2>&1 \
        || log "$setup fanout exited with an error"
    local key
    for key in delivered expected errors delivery_p50_ms delivery_p99_ms delivery_max_ms; do
        R[$setup.$key]=$(result_field "$out" "$key")
    done
    log "$setup fanout: ${R[$setup.delivered]}/${R[$setup.expected]}, p99 ${R[$setup.delivery_p99_ms]} ms"
}

# ---- the cluster: one redis-server, three nodes; then one node on Redis (the cost of cluster mode
# without the crowding of three nodes on these cores); then one node without Redis
start_redis() {
    redis_port=$(free_port)
    redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" \
        >"$WORK/redis-$1.log" 2>&1 &
    REDIS_PID=$!; PIDS+=("$REDIS_PID")
    for _ in $(seq 1 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
}
start_redis cluster
for index in 1 2 3; do start_node "node$index" --redis "redis://127.0.0.1:$redis_port"; done
log "cluster: redis on $redis_port, nodes on ${NODE_PORTS[*]}"
run_scenarios cluster
stop_all

NODE_PIDS=() NODE_PORTS=() METRIC_PORTS=() REDIS_PID=""
start_redis member
start_node member --redis "redis://127.0.0.1:$redis_port"
log "one node on redis $redis_port: ${NODE_PORTS[0]}"
run_scenarios member
stop_all

NODE_PIDS=() NODE_PORTS=() METRIC_PORTS=() REDIS_PID=""
start_node single
log "single node on ${NODE_PORTS[0]}"
run_scenarios single
stop_all

# ---- report
SETUPS=(cluster member single)
# ratio SETUP: its node CPU per message over the single node's.
ratio() {
    awk -v c="${R[$1.node_cpu_us_per_msg]}" -v s="${R[single.node_cpu_us_per_msg]}" \
        'BEGIN { printf "%.2f", (s > 0 ? c / s : 0) }'
}
for setup in "${SETUPS[@]}"; do
    R[$setup.cpu_ratio_to_single]=$(ratio "$setup")
    R[$setup.total_cpu_us_per_msg]=$(awk -v a="${R[$setup.node_cpu_us_per_msg]}" \
        -v b="${R[$setup.redis_cpu_us_per_msg]}" 'BEGIN { printf "%.1f", a + b }')
done
for key in "${!R[@]}"; do printf '%s\t%s\n' "$key" "${R[$key]}"; done >"$WORK/figures.tsv"
CONNECTIONS=$CONNECTIONS DURATION=$DURATION PAYLOAD=$PAYLOAD FANOUT_SUBS=$FANOUT_SUBS MESSAGES=$MESSAGES \
INTERVAL_MS=$INTERVAL_MS PUBNODE_ARGS=$PUBNODE_ARGS python3 - "$WORK/figures.tsv" "$OUT" <<'PY'
import json, os, sys
figures = {}
for line in open(sys.argv[1]):
    key, value = line.rstrip("\n").split("\t")
    setup, name = key.split(".", 1)
    try:
        figures.setdefault(setup, {})[name] = float(value) if "." in value else int(value)
    except ValueError:
        figures.setdefault(setup, {})[name] = value
figures["settings"] = {name.lower(): os.environ[name] for name in
                       ("CONNECTIONS", "DURATION", "PAYLOAD", "FANOUT_SUBS", "MESSAGES", "INTERVAL_MS", "PUBNODE_ARGS")}
figures["settings"]["cores"] = os.cpu_count()
with open(sys.argv[2], "w") as f:
    json.dump(figures, f, indent=2, sort_keys=True)
PY

# row TITLE FORMAT: one table row; FORMAT is printf'd with each setup's name (%s used as $S).
row() {
    local title=$1 template=$2 line setup S
    line="| $title |"
    for setup in "${SETUPS[@]}"; do
        S=$setup
        line+=" $(eval "echo \"$template\"") |"
    done
    echo "$line"
}
echo
echo "### Cluster benchmark $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, redis-server $(redis-server --version | grep -o 'v=[0-9.]*' | cut -c3-)"
echo
echo "| Scenario | 3 nodes on one Redis | 1 node on Redis | 1 node, no Redis |"
echo "| --- | ---: | ---: | ---: |"
row "Publish throughput ($CONNECTIONS conns, $PAYLOAD B, ${DURATION} s)" '${R[$S.publish_rps]} req/s'
row "Publish latency p99" '${R[$S.publish_p99_ms]} ms'
row "Publish errors" '${R[$S.publish_errors]}'
row "Node CPU per accepted message" '${R[$S.node_cpu_us_per_msg]} µs'
row "redis-server CPU per message" '${R[$S.redis_cpu_us_per_msg]} µs'
row "Nodes + redis-server CPU per message" '${R[$S.total_cpu_us_per_msg]} µs'
row "Node CPU per message against one node without Redis" '${R[$S.cpu_ratio_to_single]} ×'
row "Fan-out $FANOUT_SUBS subs × $MESSAGES msgs: delivered" '${R[$S.delivered]} / ${R[$S.expected]} (errors ${R[$S.errors]})'
row "Fan-out latency p50 / p99 / max" '${R[$S.delivery_p50_ms]} / ${R[$S.delivery_p99_ms]} / ${R[$S.delivery_max_ms]} ms'
echo
echo "JSON: $OUT"
