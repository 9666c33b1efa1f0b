#!/usr/bin/env bash
# Soak test (not in CI): an hour of mixed traffic against a release build of the node — publishes
# at a steady rate, subscribers that churn and catch up with their cursors, channel groups,
# presence, history — checking that resident memory and descriptors stay flat and that no
# message is lost or repeated (Scripts/soak.py). Prints one JSON summary; exits 1 on any loss.
#
# Usage: Scripts/soak.sh [--no-build]
# Environment (defaults in brackets): SCRATCH [.build], DURATION [3600] seconds, RATE [200]
#   publishes/s, CHANNELS [20], SUBSCRIBERS [40], PUBNODE_ARGS []
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=Scripts/bench-common.sh
source "$ROOT/Scripts/bench-common.sh"
SCRATCH=${SCRATCH:-$ROOT/.build}
DURATION=${DURATION:-3600}
RATE=${RATE:-200}
CHANNELS=${CHANNELS:-20}
SUBSCRIBERS=${SUBSCRIBERS:-40}
[[ "${1:-}" == "--no-build" ]] || release_build pubnode
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pubnode-soak.XXXXXX")
PID=""
cleanup() {
    [[ -n "$PID" ]] && { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(free_port)
# shellcheck disable=SC2086
"$SCRATCH/release/pubnode" --host 127.0.0.1 --port "$PORT" --data-dir "$WORK/data" --log-level warning \
    ${PUBNODE_ARGS:-} >"$WORK/node.log" 2>&1 &
PID=$!
for _ in $(seq 1 400); do curl -sf "http://127.0.0.1:$PORT/time/0" >/dev/null 2>&1 && break; sleep 0.05; done
python3 "$ROOT/Scripts/soak.py" --port "$PORT" --pid "$PID" --duration "$DURATION" --rate "$RATE" \
    --channels "$CHANNELS" --subscribers "$SUBSCRIBERS"
