#!/usr/bin/env bash
# CPU cost of the node's hot paths: the node's own CPU time (utime + stime from /proc, all its
# threads) over a fixed workload, divided by what the node counted (its /metrics, read outside the
# measured window). Less sensitive to other work on a shared machine than throughput or latency.
# (Instruction counts would be steadier still, but valgrind 3.19 cannot run this binary and the
# machine exposes no hardware counters.)
#
#   fanout   SUBS long-polls parked on one channel (uuid on each, so every poll refreshes
#            presence), then MESSAGES publishes INTERVAL_MS apart; CPU per delivery (the answer,
#            the next poll, its routing, presence refresh and re-park).
#   publish  CONNECTIONS keep-alive connections publishing PAYLOAD-byte messages for DURATION s;
#            CPU per accepted publish.
#
# Usage: Scripts/bench-cost.sh fanout|publish [--no-build]
# Environment (defaults in brackets): SCRATCH [.build], PUBNODE_BIN [release build], SUBS [1000],
#   MESSAGES [20], INTERVAL_MS [200], CONNECTIONS [64], DURATION [10], PAYLOAD [16],
#   PUBNODE_ARGS [--event-loop-threads 1], PERF_DATA [unset: a file for `perf record -g` of the
#   measured window].
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=Scripts/bench-common.sh
source "$ROOT/Scripts/bench-common.sh"
MODE=${1:?usage: bench-cost.sh fanout|publish [--no-build]}
SCRATCH=${SCRATCH:-$ROOT/.build}
SUBS=${SUBS:-1000} MESSAGES=${MESSAGES:-20} INTERVAL_MS=${INTERVAL_MS:-200}
CONNECTIONS=${CONNECTIONS:-64} DURATION=${DURATION:-10} PAYLOAD=${PAYLOAD:-16}
[[ "${2:-}" == "--no-build" ]] || for product in pubnode pubnode-load; do
    swift build -c release --product "$product" --scratch-path "$SCRATCH" >&2
done
BIN=${PUBNODE_BIN:-$SCRATCH/release/pubnode}
LOAD=$SCRATCH/release/pubnode-load
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pubnode-cost.XXXXXX")
NODE_PID=""
cleanup() {
    if [[ -n "$NODE_PID" ]]; then kill "$NODE_PID" 2>/dev/null || true; wait "$NODE_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || true
log() { echo "bench-cost: $*" >&2; }

PORT=$(free_port) METRICS_PORT=$(free_port)
# shellcheck disable=SC2086
"$BIN" --host 127.0.0.1 --port "$PORT" --metrics-port "$METRICS_PORT" $PUBNODE_UNLIMITED --data-dir "$WORK/data" \
    --history-enabled false --log-level error ${PUBNODE_ARGS:---event-loop-threads 1} >"$WORK/node.log" 2>&1 &
NODE_PID=$!
for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$PORT/time/0" >/dev/null 2>&1 && break; sleep 0.1; done

metric() {  # metric NAME: summed value of a series from the metrics port
    curl -sf "http://127.0.0.1:$METRICS_PORT/metrics" | awk -v n="$1" '$1 ~ "^"n"({|$)" { s += $2 } END { printf "%.0f", s }'
}
PERF_PID=""
profile() { [[ -z "${PERF_DATA:-}" ]] || { perf record -q -F 2000 -g -o "$PERF_DATA" -p "$NODE_PID" 2>/dev/null & PERF_PID=$!; }; }
unprofile() { [[ -z "$PERF_PID" ]] || { kill -INT "$PERF_PID"; wait "$PERF_PID" 2>/dev/null || true; }; }
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$NODE_PID/stat"; }

case "$MODE" in
fanout)
    "$LOAD" fanout --host 127.0.0.1 --port "$PORT" --json --threads 1 --subscribers "$SUBS" --messages "$MESSAGES" \
        --interval-ms "$INTERVAL_MS" --settle 2 --channel cost-fan >"$WORK/load.json" 2>&1 &
    load=$!
    until [[ $(metric pubnode_parked_polls) -ge $SUBS ]]; do
        kill -0 "$NODE_PID" 2>/dev/null || { cat "$WORK/node.log" >&2; exit 1; }
        sleep 0.2
    done
    before=$(metric pubnode_messages_delivered_total); profile; t0=$(ticks)
    wait "$load"
    t1=$(ticks); unprofile; units=$(( $(metric pubnode_messages_delivered_total) - before ))
    unit="delivery"
    [[ $(result_field "$WORK/load.json" complete) == yes ]] || log "not every message was delivered"
    log "p50 $(result_field "$WORK/load.json" delivery_p50_ms) ms, p99 $(result_field "$WORK/load.json" delivery_p99_ms) ms"
    ;;
publish)
    before=$(metric pubnode_messages_published_total); profile; t0=$(ticks)
    "$LOAD" publish --host 127.0.0.1 --port "$PORT" --json --threads 1 --connections "$CONNECTIONS" \
        --duration "$DURATION" --warmup 0 --payload-size "$PAYLOAD" >"$WORK/load.json" 2>&1
    t1=$(ticks); unprofile; units=$(( $(metric pubnode_messages_published_total) - before ))
    unit="publish"
    log "$(result_field "$WORK/load.json" requests_per_s) requests/s"
    ;;
*) echo "unknown scenario: $MODE" >&2; exit 2 ;;
esac
python3 -c "import sys; t, u, hz = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]); print(f'$MODE: {t / hz:.2f} s CPU over {u:,} × $unit: {t / hz / max(u, 1) * 1e6:.2f} µs per $unit')" \
    "$((t1 - t0))" "$units" "$(getconf CLK_TCK)"
