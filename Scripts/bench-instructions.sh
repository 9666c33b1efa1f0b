#!/usr/bin/env bash
# Instructions a server executes in user space per delivery (fan-out) or per accepted publish,
# counted by valgrind's callgrind. CPU time on this shared 2-core host moves by 5-10 % from run to
# run (Docs/performance.md); an instruction count moves by about 1 %, so a change to the hot path
# is compared by this first and by time second. It counts instructions, not their cost: a cache
# miss or a system call weighs one instruction here, so it complements `bench-cost.sh`.
#
# The server runs under callgrind with instrumentation off while the subscribers park (or the
# publishers connect); `callgrind_control` turns it on for the measured window only. Valgrind 3.19
# cannot read the DWARF 5 debug information of a Swift release build, so it runs a copy of the
# binary without it (`objcopy --strip-debug`; the symbols stay, so functions are still named).
#
#   fanout   SUBS long-polls on one channel (uuid on each), then messages INTERVAL_MS apart;
#            instructions per delivery in steady state: two runs, of FIRST_MESSAGES and of
#            MESSAGES messages, and the difference divided by the deliveries in between. That
#            leaves out the first message (each subscriber still holds its own handshake cursor,
#            so each answer is its own); the connections' close is left out of both (the load
#            tool holds them open after the last delivery, and counting stops there).
#   publish  CONNECTIONS keep-alive connections publishing PAYLOAD-byte messages for DURATION s;
#            instructions per accepted publish.
#   setup    SUBS subscribers connecting, each with its handshake and first long-poll, until the
#            load tool has sent every first poll and SETTLE_S more seconds pass (nothing scrapes
#            the server meanwhile); instructions per subscriber connected and parked. Then, after
#            one message, their connections' close: instructions per connection closed
#            (CALLGRIND_OUT.close keeps that run's file).
#
# Valgrind runs a server some 50 times slower, so answers whose batching depends on time (a loop
# turn's reads, a chunk of woken polls) may group differently than at full speed; INTERVAL_MS
# leaves each burst time to finish before the next message.
#
# Usage: Scripts/bench-instructions.sh fanout|publish|setup [--no-build]
# Environment (defaults in brackets): SERVER [pubnode; or floor, nchan], SCRATCH [.build],
#   PUBNODE_BIN [release build], PUBNODE_ARGS [--event-loop-threads 1], SUBS [1000],
#   CHANNEL [instructions-fan: the fan-out channel; 16 bytes, one past what a Swift string holds
#   without an allocation of its own, where bench.sh's names (fan10000-NNNNN) fit],
#   FIRST_MESSAGES [2], MESSAGES [7], INTERVAL_MS [1000], HOLD [30: seconds the subscribers stay
#   connected after the last delivery, within which they must all park again], CONNECTIONS [16], DURATION [10],
#   PAYLOAD [16], SETTLE_S [5: setup's wait after the last first poll left], TOP [0: also print the functions with the most instructions of their own, this
#   many, from the longer run], CALLGRIND_OUT [unset: keep that run's callgrind file here, for
#   callgrind_annotate], CACHE_SIM [unset: set to also simulate the caches (`--cache-sim=yes`,
#   the host's cache sizes) and print data reads and writes (Dr, Dw) and misses per unit: I1mr, D1mr, D1mw first-level instruction,
#   data-read and data-write misses, ILmr, DLmr, DLmw last-level ones; several times slower],
#   CACHE_LL [unset: with CACHE_SIM, the simulated last-level cache as SIZE,WAYS,LINE, e.g.
#   1048576,16,64 for one core's second-level cache, so that 1,000 subscribers' objects overflow it
#   as 10,000 overflow the host's larger caches].
set -euo pipefail
shopt -s inherit_errexit   # $(fanout N) stops at its first failure too

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=Scripts/bench-common.sh
source "$ROOT/Scripts/bench-common.sh"
MODE=${1:?usage: bench-instructions.sh fanout|publish|setup [--no-build]}
SCRATCH=${SCRATCH:-$ROOT/.build}
CHANNEL=${CHANNEL:-instructions-fan} SUBS=${SUBS:-1000} FIRST_MESSAGES=${FIRST_MESSAGES:-2} MESSAGES=${MESSAGES:-7} INTERVAL_MS=${INTERVAL_MS:-1000}
HOLD=${HOLD:-30} CONNECTIONS=${CONNECTIONS:-16} DURATION=${DURATION:-10} PAYLOAD=${PAYLOAD:-16} TOP=${TOP:-0}
SERVER=${SERVER:-pubnode}
if ! command -v valgrind >/dev/null || ! command -v objcopy >/dev/null; then   # valgrind; objcopy is binutils'
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "bench-instructions: installing valgrind and binutils" >&2
        apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind binutils >&2
    else
        echo "bench-instructions: needs valgrind and binutils (apt-get install valgrind binutils)" >&2; exit 2
    fi
fi
[[ "${2:-}" == "--no-build" ]] || for product in pubnode pubnode-load; do
    release_build "$product"
done
LOAD=$SCRATCH/release/pubnode-load
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pubnode-instructions.XXXXXX")
chmod 755 "$WORK"   # nginx runs as an unprivileged user and needs to reach its temp dirs
SERVER_PID=""
stop() {
    if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    SERVER_PID=""
}
trap 'stop; rm -rf "$WORK"' EXIT
log() { echo "bench-instructions: $*" >&2; }
TARGET=$SERVER; [[ "$SERVER" == floor ]] && TARGET=pubnode   # the URL shapes the load tool speaks
case "$SERVER" in
    floor) objcopy --strip-debug "$LOAD" "$WORK/server" ;;
    pubnode) objcopy --strip-debug "${PUBNODE_BIN:-$SCRATCH/release/pubnode}" "$WORK/server" ;;
    nchan) ;;
    *) echo "unknown server: $SERVER" >&2; exit 2 ;;
esac

start() {  # starts the server under callgrind, instrumentation off, and waits until it answers
    PORT=$(free_port) METRICS_PORT=$(free_port)
    rm -f "$WORK"/callgrind.out*
    local grind=(valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$WORK/callgrind.out")
    [[ -z "${CACHE_SIM:-}" ]] || grind+=(--cache-sim=yes)
    [[ -z "${CACHE_LL:-}" ]] || grind+=(--LL="$CACHE_LL")
    # Nchan as one process (no master): the process valgrind runs is the one serving.
    FLOOR_THREADS=1 server_start "$SERVER" "$WORK/server" single 600 "${grind[@]}"
}
grind() { callgrind_control "$@" "$SERVER_PID" >/dev/null 2>&1; }   # -i on, -i off, -z (zero), -d (dump)
parked() { fanout_parked "$SERVER" "$CHANNEL"; }
finish() { dump; stop; awk '/^totals:/ { $1 = ""; print }' "$WORK/last.out"; }   # every event's total (Ir first)
dump() {  # dumps the counts so far into $WORK/last.out
    grind -d
    local out
    for _ in $(seq 1 100); do   # the server's own thread writes the dump, between two of its blocks
        out=$(ls -t "$WORK"/callgrind.out.* 2>/dev/null | head -1) || out=""
        [[ -n "$out" ]] && grep -q '^totals:' "$out" && break
        sleep 0.2
    done
    [[ -n "$out" ]] && grep -q '^totals:' "$out" || { log "callgrind wrote no complete counts"; exit 1; }
    mv "$out" "$WORK/last.out"
}

fanout() {  # fanout MESSAGES: instructions over that many messages' deliveries
    # Run as $(fanout N), a subshell the script's own trap does not reach.
    load=""
    trap 'stop; [[ -z "$load" ]] || kill "$load" 2>/dev/null || true' EXIT
    start
    "$LOAD" fanout --host 127.0.0.1 --port "$PORT" --target "$TARGET" --json --threads 1 --subscribers "$SUBS" \
        --messages "$1" --interval-ms "$INTERVAL_MS" --settle 5 --hold "$HOLD" --park-timeout 600 \
        --channel "$CHANNEL" >"$WORK/load.json" 2>&1 &
    load=$!
    until [[ $(parked) -ge $SUBS ]]; do
        kill -0 "$load" 2>/dev/null || { cat "$WORK/load.json" >&2; exit 1; }
        sleep 0.5
    done
    grind -z; grind -i on   # well within --settle: the first message leaves after this
    # Off once every message is delivered and every subscriber has parked again (its next poll
    # read), before the subscribers' connections close: each run then counts whole deliveries.
    until grep -q '^fanout: holding' "$WORK/load.json" && [[ $(parked) -ge $SUBS ]]; do
        kill -0 "$load" 2>/dev/null || { cat "$WORK/load.json" >&2; exit 1; }
        sleep 0.1
    done
    grind -i off
    wait "$load"
    [[ $(result_field "$WORK/load.json" complete) == yes ]] || { log "not every message was delivered"; exit 1; }
    finish
}

case "$MODE" in
fanout)
    (( MESSAGES > FIRST_MESSAGES )) || { echo "MESSAGES must exceed FIRST_MESSAGES" >&2; exit 2; }
    short=$(fanout "$FIRST_MESSAGES")
    long=$(fanout "$MESSAGES")
    units=$(( (MESSAGES - FIRST_MESSAGES) * SUBS )) unit=delivery
    total=$(python3 -c 'import sys; print(" ".join(str(int(b) - int(a)) for a, b in zip(sys.argv[1].split(), sys.argv[2].split())))' "$short" "$long")
    ;;
setup)
    start
    grind -z; grind -i on
    "$LOAD" fanout --host 127.0.0.1 --port "$PORT" --target "$TARGET" --json --threads 1 --subscribers "$SUBS" \
        --messages 1 --settle "$(( ${SETTLE_S:-5} + 5 ))" --hold 20 --park-timeout 600 --channel "$CHANNEL" >"$WORK/load.json" 2>&1 &
    load=$!
    until grep -q '^fanout: [0-9]* parked' "$WORK/load.json"; do
        kill -0 "$load" 2>/dev/null || { cat "$WORK/load.json" >&2; exit 1; }
        sleep 0.1
    done
    sleep "${SETTLE_S:-5}"
    grind -i off
    [[ $(parked) -ge $SUBS ]] || { log "the server had not parked every first poll: raise SETTLE_S"; kill "$load"; exit 1; }
    dump; mv "$WORK/last.out" "$WORK/setup.out"
    # Then the connections' close, on its own: counted from a second before the load tool's
    # 20 s hold ends (every message delivered, every subscriber parked again) until the server
    # holds no poll and a second more, so neither the re-parks nor much idle time count.
    until grep -q '^fanout: holding' "$WORK/load.json"; do
        kill -0 "$load" 2>/dev/null || { cat "$WORK/load.json" >&2; exit 1; }
        sleep 0.1
    done
    held=$SECONDS
    until [[ $(parked) -ge $SUBS ]]; do sleep 0.1; done
    (( SECONDS - held < 19 )) || { log "the subscribers parked again too late in the hold"; exit 1; }
    sleep $(( 19 - (SECONDS - held) ))
    grind -z; grind -i on
    wait "$load"
    until [[ $(parked) -eq 0 ]]; do sleep 0.2; done
    sleep 1
    grind -i off
    [[ $(parked) -eq 0 ]] || log "the server still held parked polls after the close"
    closing=$(finish)
    [[ -z "${CALLGRIND_OUT:-}" ]] || cp "$WORK/last.out" "$CALLGRIND_OUT.close"
    python3 -c 'import sys; n, s = int(sys.argv[2]), int(sys.argv[1].split()[0]); print(f"{sys.argv[3]} close: {s:,} instructions over {n:,} × connection closed: {s / n:,.0f} per connection closed")' \
        "$closing" "$SUBS" "$SERVER"
    mv "$WORK/setup.out" "$WORK/last.out"
    total=$(awk '/^totals:/ { $1 = ""; print }' "$WORK/last.out")
    units=$SUBS unit="subscriber connected and parked"
    ;;
publish)
    start
    grind -z; grind -i on
    "$LOAD" publish --host 127.0.0.1 --port "$PORT" --target "$TARGET" --json --threads 1 --connections "$CONNECTIONS" \
        --duration "$DURATION" --warmup 0 --payload-size "$PAYLOAD" >"$WORK/load.json" 2>&1
    grind -i off
    total=$(finish)
    units=$(result_field "$WORK/load.json" requests) unit=publish
    ;;
*) echo "unknown scenario: $MODE" >&2; exit 2 ;;
esac
[[ -z "${CALLGRIND_OUT:-}" ]] || cp "$WORK/last.out" "$CALLGRIND_OUT"
events=$(awk '/^events:/ { $1 = ""; print; exit }' "$WORK/last.out")
python3 - "$total" "$units" "$events" "$SERVER $MODE" "$unit" <<'REPORT'
import sys
totals, n, names = [int(v) for v in sys.argv[1].split()], int(sys.argv[2]), sys.argv[3].split()
label, unit = sys.argv[4], sys.argv[5]
print(f"{label}: {totals[0]:,} instructions over {n:,} × {unit}: {totals[0] / max(n, 1):,.0f} per {unit}")
if len(names) > 1:   # CACHE_SIM: callgrind's simulated cache misses (D1: first level, LL: last level)
    print("  per " + unit + ": " + ", ".join(f"{name} {value / max(n, 1):,.1f}" for name, value in zip(names[1:], totals[1:])))
REPORT
if (( TOP > 0 )); then
    # Each function's own instructions (over the whole of the longer run) and its name.
    callgrind_annotate "$WORK/last.out" 2>/dev/null | awk '/^-+$/ { d++ } d >= 6 && /^ *[0-9,]+ / { print }' |
        head -n "$TOP" | sed -E 's/ \[[^]]*\]$//'
fi
