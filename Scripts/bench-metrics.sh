#!/usr/bin/env bash
# The cost of metrics: closed-loop publish throughput and fan-out p99 to parked subscribers on a
# node with metrics on (scraped every second, as a busy Prometheus would) and on one started with
# `--metrics false`, side by side in one run, alternating ROUNDS times; prints the medians
# (results go to Docs/performance.md, "Metrics").
#
# Usage: Scripts/bench-metrics.sh [--no-build]
# Environment (defaults in brackets): SCRATCH [.build], CONNECTIONS [64], DURATION [10],
#   WARMUP [1], PAYLOAD [16], ROUNDS [3], PUBLISH_THREADS [1], FANOUT [2000], MESSAGES [20],
#   PUBNODE_ARGS []
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=Scripts/bench-common.sh
source "$ROOT/Scripts/bench-common.sh"
SCRATCH=${SCRATCH:-$ROOT/.build}
CONNECTIONS=${CONNECTIONS:-64}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-1}
PAYLOAD=${PAYLOAD:-16}
ROUNDS=${ROUNDS:-3}
PUBLISH_THREADS=${PUBLISH_THREADS:-1}
FANOUT=${FANOUT:-2000}
MESSAGES=${MESSAGES:-20}
ADMIN="bench-admin-token-0123456789"
BUILD=1
[[ "${1:-}" == "--no-build" ]] && BUILD=0

log() { echo "bench-metrics: $*" >&2; }
if [[ $BUILD == 1 ]]; then
    for product in pubnode pubnode-load; do swift build -c release --product "$product" --scratch-path "$SCRATCH" >&2; done
fi
BIN=$SCRATCH/release/pubnode
LOAD=$SCRATCH/release/pubnode-load
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pubnode-bench-metrics.XXXXXX")
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || true

start() {  # start NAME FLAGS... -> port
    local name=$1; shift
    local port; port=$(free_port)
    # shellcheck disable=SC2086
    "$BIN" --host 127.0.0.1 --port "$port" $PUBNODE_UNLIMITED --data-dir "$WORK/$name" --history-enabled false --log-level error \
        --admin-token "$ADMIN" "$@" ${PUBNODE_ARGS:-} >"$WORK/$name.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 1 400); do curl -sf "http://127.0.0.1:$port/time/0" >/dev/null 2>&1 && break; sleep 0.05; done
    echo "$port"
}
ON=$(start on)
OFF=$(start off --metrics false)
curl -sf -H "Authorization: Bearer $ADMIN" "http://127.0.0.1:$ON/metrics" >/dev/null || { log "metrics are not on"; exit 1; }
[[ $(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ADMIN" "http://127.0.0.1:$OFF/metrics") == 404 ]] \
    || { log "metrics are not off"; exit 1; }

scrape() {  # scrape PORT: every second until killed
    while true; do curl -sf -H "Authorization: Bearer $ADMIN" "http://127.0.0.1:$1/metrics" >/dev/null || true; sleep 1; done
}
publish() {  # publish NAME PORT -> requests per second
    local out=$WORK/$1.json scraper=""
    [[ $2 == "$ON" ]] && { scrape "$2" & scraper=$!; }
    "$LOAD" publish --host 127.0.0.1 --port "$2" --json --threads "$PUBLISH_THREADS" --connections "$CONNECTIONS" \
        --duration "$DURATION" --warmup "$WARMUP" --payload-size "$PAYLOAD" >"$out" 2>&1
    [[ -n "$scraper" ]] && { kill "$scraper"; wait "$scraper" 2>/dev/null || true; }
    result_field "$out" requests_per_s
}
fanout() {  # fanout NAME PORT -> p99 ms
    local out=$WORK/$1.json
    "$LOAD" fanout --host 127.0.0.1 --port "$2" --json --subscribers "$FANOUT" --messages "$MESSAGES" \
        --channel "fan-$1" >"$out" 2>&1
    result_field "$out" delivery_p99_ms
}

P_ON=() P_OFF=() F_ON=() F_OFF=()
for round in $(seq 1 "$ROUNDS"); do
    P_ON+=("$(publish "on-$round" "$ON")")
    P_OFF+=("$(publish "off-$round" "$OFF")")
    log "round $round publish: on ${P_ON[-1]} req/s, off ${P_OFF[-1]} req/s"
    F_OFF+=("$(fanout "foff-$round" "$OFF")")
    F_ON+=("$(fanout "fon-$round" "$ON")")
    log "round $round fan-out p99: on ${F_ON[-1]} ms, off ${F_OFF[-1]} ms"
done
M_PON=$(median "${P_ON[@]}"); M_POFF=$(median "${P_OFF[@]}")
M_FON=$(median "${F_ON[@]}"); M_FOFF=$(median "${F_OFF[@]}")
RATIO=$(python3 -c "print('%.1f' % (100.0 * $M_PON / $M_POFF))")
echo "| median of $ROUNDS alternating rounds | metrics off | metrics on (scraped every second) |"
echo "|---|---|---|"
echo "| publish requests/s, $CONNECTIONS connections, ${PAYLOAD}-byte messages | $M_POFF | $M_PON ($RATIO %) |"
echo "| fan-out p99 ms, $FANOUT subscribers, $MESSAGES messages | $M_FOFF | $M_FON |"
echo "| rounds: publish | ${P_OFF[*]} | ${P_ON[*]} |"
echo "| rounds: fan-out p99 | ${F_OFF[*]} | ${F_ON[*]} |"
