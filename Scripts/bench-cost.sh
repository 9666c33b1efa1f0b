#!/usr/bin/env bash
# CPU cost of the node's hot paths: the node's own CPU time (utime + stime from /proc, all its
# threads) over a fixed workload, divided by what the node counted (its /metrics, read outside the
# measured window). Less sensitive to other work on a shared machine than throughput or latency.
# (Instruction counts are steadier still: Scripts/bench-instructions.sh counts them under callgrind,
# since the machine exposes no hardware counters.)
#
#   fanout   SUBS long-polls parked on one channel (uuid on each, so every poll refreshes
#            presence), then MESSAGES publishes INTERVAL_MS apart; CPU per delivery (the answer,
#            the next poll, its routing, presence refresh and re-park), timed from every
#            subscriber parked to the load tool's exit, so each subscriber's close at the end
#            counts too (its cost over MESSAGES deliveries: `setup` times it alone, and
#            bench.sh reports the messages without it).
#   publish  CONNECTIONS keep-alive connections publishing PAYLOAD-byte messages for DURATION s;
#            CPU per accepted publish.
#   setup    SUBS subscribers connecting, each with its handshake and first long-poll, until all
#            are parked: CPU per subscriber; then (after one message and a hold) their closing:
#            CPU per subscriber closed. What a fan-out's whole run adds to its deliveries.
#
# With SERVER=nchan the same workloads run against Nchan (nginx with one worker, Deploy/nchan),
# timing the worker's CPU and counting what the load tool counted (deliveries, accepted
# publishes), so both servers' steady-state costs can be set side by side. SERVER=floor runs them
# against `pubnode-load floor`: prebuilt answers on SwiftNIO event loops (FLOOR_THREADS of them,
# each its own hub, so fan-out takes one), the least a server on NIO's channels can spend
# (counted like Nchan).
#
# Usage: Scripts/bench-cost.sh fanout|publish|setup [--no-build]
# Environment (defaults in brackets): SERVER [pubnode; or nchan, floor], SCRATCH [.build],
#   PUBNODE_BIN [release build], SUBS [1000],
#   MESSAGES [20], INTERVAL_MS [200], CONNECTIONS [64], DURATION [10], PAYLOAD [16], CHANNELS [1: publish
#   channels, used round-robin],
#   BY_MESSAGE [unset: set to print each message's p50/p99/max latency in fanout],
#   PUBNODE_ARGS [--event-loop-threads 1], FLOOR_THREADS [1], LOAD_THREADS [1: the load tool's
#   event loops; bench.sh gives fan-out one a core], PERF_DATA [unset: a file for `perf record -g` of the
#   measured window], PERF_EVENT [unset: with PERF_DATA, cycles sampled at 2 kHz; or a probe or
#   tracepoint to record every occurrence of. The release build links the Swift runtime in, so a
#   probe on a runtime function is set on the binary: `perf probe -x BIN swift_retain` gives
#   probe_pubnode:swift_retain].
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=Scripts/bench-common.sh
source "$ROOT/Scripts/bench-common.sh"
MODE=${1:?usage: bench-cost.sh fanout|publish|setup [--no-build]}
SCRATCH=${SCRATCH:-$ROOT/.build}
SUBS=${SUBS:-1000} MESSAGES=${MESSAGES:-20} INTERVAL_MS=${INTERVAL_MS:-200}
CONNECTIONS=${CONNECTIONS:-64} DURATION=${DURATION:-10} PAYLOAD=${PAYLOAD:-16} CHANNELS=${CHANNELS:-1}
[[ "${2:-}" == "--no-build" ]] || for product in pubnode pubnode-load; do
    release_build "$product"
done
BIN=${PUBNODE_BIN:-$SCRATCH/release/pubnode}
LOAD=$SCRATCH/release/pubnode-load
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pubnode-cost.XXXXXX")
chmod 755 "$WORK"   # nginx workers run as an unprivileged user and need to reach their temp dirs
SERVER=${SERVER:-pubnode}
TARGET=$SERVER; [[ "$SERVER" == floor ]] && TARGET=pubnode   # the URL shapes the load tool speaks
SERVER_PID=""   # what is started and stopped (nginx: its master)
NODE_PID=""     # whose CPU is timed (nginx: its one worker)
cleanup() {
    if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || true
log() { echo "bench-cost: $*" >&2; }

PORT=$(free_port) METRICS_PORT=$(free_port)
if [[ "$SERVER" == floor && "$MODE" == fanout && "${FLOOR_THREADS:-1}" != 1 ]]; then
    log "fan-out against the floor needs FLOOR_THREADS=1 (each loop wakes only its own polls)"; exit 2
fi
SERVER_BIN=$BIN
[[ "$SERVER" == floor ]] && SERVER_BIN=$LOAD
server_start "$SERVER" "$SERVER_BIN" 1 300
NODE_PID=$SERVER_PID
if [[ "$SERVER" == nchan ]]; then   # its one worker
    NODE_PID=$(pgrep -P "$SERVER_PID" | head -1) || { log "nginx started no worker"; server_log; exit 1; }
fi

metric() {  # metric NAME: summed value of a series from the metrics port
    curl -sf "http://127.0.0.1:$METRICS_PORT/metrics" | awk -v n="$1" '$1 ~ "^"n"({|$)" { s += $2 } END { printf "%.0f", s }'
}
parked() { fanout_parked "$SERVER" cost-fan; }
counted() {  # counted METRIC: the node's metric for PubNode; for the others, what the load tool counted
    if [[ "$SERVER" != pubnode ]]; then echo 0; else metric "$1"; fi
}
PERF_PID=""
profile() {
    [[ -z "${PERF_DATA:-}" ]] && return
    if [[ -n "${PERF_EVENT:-}" ]]; then  # every event of one kind (a uprobe on swift_retain, say), with its callers
        perf record -q -e "$PERF_EVENT" -g -o "$PERF_DATA" -p "$NODE_PID" 2>/dev/null & PERF_PID=$!
    else
        perf record -q -F 2000 -g -o "$PERF_DATA" -p "$NODE_PID" 2>/dev/null & PERF_PID=$!
    fi
}
unprofile() { [[ -z "$PERF_PID" ]] || { kill -INT "$PERF_PID"; wait "$PERF_PID" 2>/dev/null || true; }; }
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13, $12 }' "/proc/$NODE_PID/stat"; }   # total, then user

case "$MODE" in
fanout)
    "$LOAD" fanout --host 127.0.0.1 --port "$PORT" --target "$TARGET" --json --threads "${LOAD_THREADS:-1}" --subscribers "$SUBS" --messages "$MESSAGES" \
        --interval-ms "$INTERVAL_MS" --settle 2 --channel cost-fan ${BY_MESSAGE:+--by-message} >"$WORK/load.json" 2>&1 &
    load=$!
    until [[ $(parked) -ge $SUBS ]]; do
        kill -0 "$NODE_PID" 2>/dev/null || { server_log; exit 1; }
        sleep 0.2
    done
    before=$(counted pubnode_messages_delivered_total); profile; read -r t0 u0 < <(ticks)
    wait "$load"
    read -r t1 u1 < <(ticks); unprofile; units=$(( $(counted pubnode_messages_delivered_total) - before ))
    [[ "$SERVER" != pubnode ]] && units=$(result_field "$WORK/load.json" delivered)
    unit="delivery"
    [[ $(result_field "$WORK/load.json" complete) == yes ]] || log "not every message was delivered"
    log "p50 $(result_field "$WORK/load.json" delivery_p50_ms) ms, p99 $(result_field "$WORK/load.json" delivery_p99_ms) ms"
    [[ -z "${BY_MESSAGE:-}" ]] || grep -o '"message_[0-9]*_p50_p99_max_ms": *"[^"]*"' "$WORK/load.json" >&2 || true
    ;;
setup)
    read -r t0 u0 < <(ticks); profile
    "$LOAD" fanout --host 127.0.0.1 --port "$PORT" --target "$TARGET" --json --threads "${LOAD_THREADS:-1}" --subscribers "$SUBS" --messages 1 \
        --settle 3 --hold 4 --channel cost-fan >"$WORK/load.json" 2>"$WORK/load.err" &
    load=$!
    # The load tool's word that every first poll left, not the server's count: a scrape of
    # PubNode's metrics lists its open descriptors, which with thousands open costs more than
    # what is measured here.
    until grep -q "fanout: [0-9]* parked" "$WORK/load.err"; do
        kill -0 "$NODE_PID" 2>/dev/null || { server_log; exit 1; }
        kill -0 "$load" 2>/dev/null || { log "the load tool ended before every subscriber parked"; cat "$WORK/load.err" >&2; exit 1; }
        sleep 0.05
    done
    sleep 1   # the last first polls read and parked
    read -r t1 u1 < <(ticks); unprofile
    [[ $(parked) -ge $SUBS ]] || log "not every first poll was parked a second after the last left"

    # The close alone: from when the message is delivered and every subscriber has parked again.
    until grep -q "fanout: holding" "$WORK/load.err" && [[ $(parked) -ge $SUBS ]]; do
        kill -0 "$load" 2>/dev/null || { log "the load tool ended before its hold"; cat "$WORK/load.err" >&2; exit 1; }
        sleep 0.05
    done
    read -r t2 u2 < <(ticks)
    kill -0 "$load" 2>/dev/null || { log "the hold ended before the close was timed"; exit 1; }
    wait "$load"
    sleep 1   # the last closes handled (no scrape meanwhile, as above)
    read -r t3 u3 < <(ticks)
    [[ $(parked) -eq 0 ]] || log "polls were still parked a second after the load tool closed"
    hz=$(getconf CLK_TCK)
    awk -v t=$((t3 - t2)) -v u=$((u3 - u2)) -v hz="$hz" -v n="$SUBS" 'BEGIN {
        printf "closing: %.2f s CPU over %d subscribers: %.2f µs per subscriber, %.2f of it in user space\n", t / hz, n, t / hz / n * 1e6, u / hz / n * 1e6 }'
    units=$SUBS unit="subscriber connected and parked"
    ;;
publish)
    before=$(counted pubnode_messages_published_total); profile; read -r t0 u0 < <(ticks)
    "$LOAD" publish --host 127.0.0.1 --port "$PORT" --target "$TARGET" --json --threads "${LOAD_THREADS:-1}" --connections "$CONNECTIONS" \
        --duration "$DURATION" --warmup 0 --payload-size "$PAYLOAD" --channels "$CHANNELS" >"$WORK/load.json" 2>&1
    read -r t1 u1 < <(ticks); unprofile; units=$(( $(counted pubnode_messages_published_total) - before ))
    [[ "$SERVER" != pubnode ]] && units=$(result_field "$WORK/load.json" requests)
    unit="publish"
    log "$(result_field "$WORK/load.json" requests_per_s) requests/s"
    ;;
*) echo "unknown scenario: $MODE" >&2; exit 2 ;;
esac
client=$(result_field "$WORK/load.json" client_cpu_s)
python3 -c "import sys; t, u, hz, c, us = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4] or 0), int(sys.argv[5]); n = max(u, 1); print(f'$MODE: {t / hz:.2f} s CPU over {u:,} × $unit: {t / hz / n * 1e6:.2f} µs per $unit, {us / hz / n * 1e6:.2f} of it in user space (load tool: {c / n * 1e6:.2f} µs)')" \
    "$((t1 - t0))" "$units" "$(getconf CLK_TCK)" "$client" "$((u1 - u0))"
