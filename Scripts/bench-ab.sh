#!/usr/bin/env bash
# Two node configurations side by side in one run: closed-loop publish throughput and fan-out
# p99 to parked subscribers, alternating ROUNDS times between side A and side B; prints the
# medians as a Markdown table. Used by bench-metrics.sh (metrics off against on) and to compare
# a build with an earlier one (A_BIN=path/to/old/pubnode).
#
# Usage: Scripts/bench-ab.sh [--no-build]
# Environment (defaults in brackets): SCRATCH [.build]; A_NAME [A], A_BIN [this build], A_ARGS [];
#   B_NAME [B], B_BIN [this build], B_ARGS []; SCRAPE_B [0]: scrape B's /metrics every second;
#   CONNECTIONS [64], DURATION [10], WARMUP [1], PAYLOAD [16], ROUNDS [3], PUBLISH_THREADS [1],
#   FANOUT [2000], MESSAGES [20], PUBNODE_ARGS [] (both sides)
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
[[ "${1:-}" == "--no-build" ]] || for product in pubnode pubnode-load; do
    release_build "$product"
done
A_NAME=${A_NAME:-A} B_NAME=${B_NAME:-B}
A_BIN=${A_BIN:-$SCRATCH/release/pubnode} B_BIN=${B_BIN:-$SCRATCH/release/pubnode}
LOAD=$SCRATCH/release/pubnode-load
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pubnode-bench-ab.XXXXXX")
cleanup() {
    # Nodes are started inside command substitutions (subshells): their ids are kept in a file.
    for pid in $(cat "$WORK/pids" 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
    sleep 0.5
    rm -rf "$WORK"
}
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || true
log() { echo "bench-ab: $*" >&2; }

start() {  # start NAME BIN FLAGS... -> port; the admin token is set when the build knows it
    local name=$1 bin=$2; shift 2
    local port; port=$(free_port)
    local limits=""
    "$bin" --help 2>&1 | grep -q -- "--client-parked-limit" && limits=$PUBNODE_UNLIMITED
    # shellcheck disable=SC2086
    "$bin" --host 127.0.0.1 --port "$port" $limits --data-dir "$WORK/$name" --history-enabled false --log-level error \
        --admin-token "$ADMIN" "$@" ${PUBNODE_ARGS:-} >"$WORK/$name.log" 2>&1 &
    echo $! >>"$WORK/pids"
    for _ in $(seq 1 400); do curl -sf "http://127.0.0.1:$port/time/0" >/dev/null 2>&1 && break; sleep 0.05; done
    echo "$port"
}
# shellcheck disable=SC2086
A_PORT=$(start a "$A_BIN" ${A_ARGS:-})
# shellcheck disable=SC2086
B_PORT=$(start b "$B_BIN" ${B_ARGS:-})

scrape() {  # scrape PORT: every second until killed
    while true; do curl -sf -H "Authorization: Bearer $ADMIN" "http://127.0.0.1:$1/metrics" >/dev/null || true; sleep 1; done
}
publish() {  # publish NAME PORT SCRAPE -> requests per second
    local out=$WORK/$1.json scraper=""
    [[ $3 == 1 ]] && { scrape "$2" & scraper=$!; }
    "$LOAD" publish --host 127.0.0.1 --port "$2" --json --threads "$PUBLISH_THREADS" --connections "$CONNECTIONS" \
        --duration "$DURATION" --warmup "$WARMUP" --payload-size "$PAYLOAD" >"$out" 2>&1
    [[ -n "$scraper" ]] && { kill "$scraper"; wait "$scraper" 2>/dev/null || true; }
    result_field "$out" requests_per_s
}
fanout() {  # fanout NAME PORT -> p99 ms
    local out=$WORK/$1.json
    "$LOAD" fanout --host 127.0.0.1 --port "$2" --json --subscribers "$FANOUT" --messages "$MESSAGES" \
        --channel "fan-$1" >"$out" 2>&1
    [[ $(result_field "$out" complete) == yes ]] || log "$1: not every message was delivered"
    result_field "$out" delivery_p99_ms
}

P_A=() P_B=() F_A=() F_B=()
# Odd rounds run A first, even rounds B first, so neither side always follows the other's load.
for round in $(seq 1 "$ROUNDS"); do
    if (( round % 2 )); then
        P_A+=("$(publish "pa-$round" "$A_PORT" 0)"); P_B+=("$(publish "pb-$round" "$B_PORT" "${SCRAPE_B:-0}")")
        F_A+=("$(fanout "fa-$round" "$A_PORT")"); F_B+=("$(fanout "fb-$round" "$B_PORT")")
    else
        P_B+=("$(publish "pb-$round" "$B_PORT" "${SCRAPE_B:-0}")"); P_A+=("$(publish "pa-$round" "$A_PORT" 0)")
        F_B+=("$(fanout "fb-$round" "$B_PORT")"); F_A+=("$(fanout "fa-$round" "$A_PORT")")
    fi
    log "round $round publish: $A_NAME ${P_A[-1]} req/s, $B_NAME ${P_B[-1]} req/s"
    log "round $round fan-out p99: $A_NAME ${F_A[-1]} ms, $B_NAME ${F_B[-1]} ms"
done
M_PA=$(median "${P_A[@]}"); M_PB=$(median "${P_B[@]}")
M_FA=$(median "${F_A[@]}"); M_FB=$(median "${F_B[@]}")
RATIO=$(python3 -c "print('%.1f' % (100.0 * $M_PB / $M_PA))")
echo "| median of $ROUNDS alternating rounds | $A_NAME | $B_NAME |"
echo "|---|---|---|"
echo "| publish requests/s, $CONNECTIONS connections, ${PAYLOAD}-byte messages | $M_PA | $M_PB ($RATIO %) |"
echo "| fan-out p99 ms, $FANOUT subscribers, $MESSAGES messages | $M_FA | $M_FB |"
echo "| rounds: publish | ${P_A[*]} | ${P_B[*]} |"
echo "| rounds: fan-out p99 | ${F_A[*]} | ${F_B[*]} |"
