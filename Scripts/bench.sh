#!/usr/bin/env bash
# Benchmarks PubNode (and optionally Nchan) on this machine with pubnode-load and prints a
# Markdown table that can be pasted into Docs/performance.md.
#
# Scenarios, for each server:
#   park     RSS per parked long-poll subscriber (fresh server, VmRSS before/after)
#   publish  closed-loop publish throughput, latency, and server CPU use
#   fanout   delivery latency to 1,000 and 10,000 parked subscribers; the messages leave on a fixed
#            schedule (pubnode-load's publishers take turns on a loop of their own), so every
#            server is offered the same load (while acknowledgements take under 800 ms; each
#            result says how late any publish left); the server's CPU per delivery over the whole
#            run, over the messages alone, and per subscriber to connect and park and to close
#
# Usage: Scripts/bench.sh [--with-nchan] [--install] [--no-pubnode] [--pubnode-bin PATH]
#                         [--no-build] [--quick] [--help]
#
# With --with-nchan (and no PUBNODE_ARGS), the comparison runs three times: PubNode's defaults (one
# event loop per core) against Nchan's one worker, PubNode on one event loop against the same, then
# like for like, both at their own defaults: PubNode's one loop per core against one Nchan worker
# per core (nginx's `worker_processes auto`, as Debian's package ships it; skipped on one core or
# when NCHAN_WORKERS is set). Each runs 3 rounds (ROUNDS) with fan-out to 1,000, 5,000 and 10,000
# subscribers unless FANOUT_SIZES says otherwise.
#
# Environment overrides (defaults in brackets):
#   SCRATCH        build folder for swift build [.build]
#   PUBNODE_BIN    use this pubnode binary instead of building one
#   NCHAN=1        same as --with-nchan
#   NCHAN_WORKERS  nginx worker_processes for Nchan [1; one per core in the like-for-like run]
#   CONNECTIONS [64]  DURATION [10]  WARMUP [1]  PAYLOAD [16]  CHANNELS [1]
#   FANOUT_SIZES ["1000 10000"]  MESSAGES [20]  INTERVAL_MS [200]
#   PARK_SUBS [10000]  PARK_HOLD [5]
#   PUBLISH_THREADS  client event loops for the publish run [1]: like wrk -t1, this leaves
#                    the other core(s) to the server; 2 client loops on 2 cores measured lower
#   LOAD_THREADS     client event loops for park and fan-out [nproc]
#   ROUNDS         rounds [1]; with more, the servers take turns (PubNode, Nchan, PubNode, ...),
#                  each round on a fresh server, and the table gives medians (deliveries summed),
#                  followed by every round's publish rate and fan-out p99
#   RESULTS_DIR    keep the raw JSON results and server logs here
#   PUBNODE_ARGS   extra flags for pubnode, e.g. "--event-loop-threads 1" (Nchan's run uses 1 worker)
#   PUBNODE_HISTORY  pubnode's --history-enabled [false: like Nchan, messages kept in memory only;
#                    history's own cost is measured by bench-history.sh]
#
# Only loopback addresses are used. Everything started here is stopped on exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARGS=("$@")
# shellcheck source=Scripts/bench-common.sh
source "$ROOT/Scripts/bench-common.sh"
SCRATCH=${SCRATCH:-$ROOT/.build}
PUBNODE_BIN=${PUBNODE_BIN:-}
NCHAN=${NCHAN:-0}
NCHAN_WORKERS_SET=${NCHAN_WORKERS:-}
NCHAN_WORKERS=${NCHAN_WORKERS:-1}
CONNECTIONS=${CONNECTIONS:-64}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-1}
PAYLOAD=${PAYLOAD:-16}
CHANNELS=${CHANNELS:-1}
FANOUT_SET=${FANOUT_SIZES:-}
FANOUT_SIZES=${FANOUT_SIZES:-"1000 10000"}
MESSAGES=${MESSAGES:-20}
INTERVAL_MS=${INTERVAL_MS:-200}
PARK_SUBS=${PARK_SUBS:-10000}
PARK_HOLD=${PARK_HOLD:-5}
LOAD_THREADS=${LOAD_THREADS:-$(nproc)}
PUBLISH_THREADS=${PUBLISH_THREADS:-1}
RESULTS_DIR=${RESULTS_DIR:-}
ROUNDS_SET=${ROUNDS:-}
ROUNDS=${ROUNDS:-1}
PUBNODE_HISTORY=${PUBNODE_HISTORY:-false}
RUN_PUBNODE=1
BUILD=1
INSTALL=0

usage() { sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --with-nchan) NCHAN=1 ;;
        --install) INSTALL=1 ;;
        --no-pubnode) RUN_PUBNODE=0 ;;
        --pubnode-bin) PUBNODE_BIN=$2; shift ;;
        --no-build) BUILD=0 ;;
        --quick) DURATION=3; FANOUT_SIZES="1000"; FANOUT_SET=1; ROUNDS_SET=${ROUNDS_SET:-1}; MESSAGES=5; PARK_SUBS=2000; PARK_HOLD=2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

log() { echo "[bench] $*" >&2; }

if [[ $NCHAN == 1 ]]; then
    ROUNDS=${ROUNDS_SET:-3}
    [[ -n "${FANOUT_SET:-}" ]] || FANOUT_SIZES="1000 5000 10000"
    if [[ -z "${PUBNODE_ARGS:-}" && -z "${PUBNODE_ARGS_SET:-}" && $RUN_PUBNODE == 1 ]]; then
        # The configurations one after the other; the later ones reuse the first one's build.
        export ROUNDS FANOUT_SIZES
        PUBNODE_ARGS="" PUBNODE_ARGS_SET=1 "$0" "${ARGS[@]}"
        PUBNODE_ARGS="--event-loop-threads 1" "$0" "${ARGS[@]}" --no-build
        if [[ -z "${NCHAN_WORKERS_SET:-}" && $(nproc) -gt 1 ]]; then
            PUBNODE_ARGS="" PUBNODE_ARGS_SET=1 NCHAN_WORKERS=$(nproc) "$0" "${ARGS[@]}" --no-build
        fi
        exit
    fi
fi

# ---------------------------------------------------------------- clean-up
WORK=$(mktemp -d /tmp/pubnode-bench.XXXXXX)
chmod 755 "$WORK"   # nginx workers run as an unprivileged user and need to reach their temp dirs
STARTED_PIDS=()

# is_child PID: true while PID is still a child of this script (guards against reused pids).
is_child() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [[ "$(cut -d' ' -f2 <<<"$stat")" == "$$" ]]
}

cleanup() {
    local pid alive=()
    for pid in "${STARTED_PIDS[@]}"; do
        if is_child "$pid"; then
            alive+=("$pid")
            kill "$pid" 2>/dev/null || true
        fi
    done
    for _ in $(seq 1 50); do
        local any=0
        for pid in "${alive[@]}"; do is_child "$pid" && any=1; done
        [[ $any == 0 ]] && break
        sleep 0.1
    done
    for pid in "${alive[@]}"; do
        if is_child "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
    done
    if [[ -n "$RESULTS_DIR" ]]; then
        mkdir -p "$RESULTS_DIR"
        # Nchan's logs live under its prefix: kept even when its run stopped early.
        cp "$WORK/nginx/error.log" "$WORK/nginx-error.log" 2>/dev/null || true
        cp "$WORK/nginx/stdout.log" "$WORK/nginx.log" 2>/dev/null || true
        cp "$WORK"/*.json "$WORK"/*.log "$RESULTS_DIR"/ 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- helpers
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
log "open file limit: $(ulimit -n)"

# A free loopback port below the ephemeral range, so client sockets never take it.
free_port() {
    local port
    for _ in $(seq 1 500); do
        port=$(( (RANDOM % 12000) + 20000 ))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    echo "no free port found" >&2
    return 1
}

# wait_port PORT PID: waits up to 30 s for PORT to accept connections while PID lives.
wait_port() {
    local port=$1 pid=$2
    for _ in $(seq 1 300); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
        kill -0 "$pid" 2>/dev/null || { log "server (pid $pid) exited early"; return 1; }
        sleep 0.1
    done
    log "port $port did not open"
    return 1
}

# Process ids of a server: the given pid and its direct children (nginx workers).
server_pids() { echo "$1" $(pgrep -P "$1" 2>/dev/null || true); }

# Sum of VmRSS (KiB) over a server's processes.
rss_kib() {
    local total=0 pid value
    for pid in $(server_pids "$1"); do
        value=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
        total=$(( total + ${value:-0} ))
    done
    echo "$total"
}

# Sum of utime+stime (clock ticks) over a server's processes.
cpu_ticks() {
    local total=0 pid value
    for pid in $(server_pids "$1"); do
        value=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null || echo 0)
        total=$(( total + ${value:-0} ))
    done
    echo "$total"
}

now_ns() { date +%s%N; }

# jget JSON KEY: value of a flat numeric or string key of a one-line JSON object.
jget() { grep -o "\"$2\":[^,}]*" <<<"$1" | head -1 | cut -d: -f2- | tr -d '"'; }

# Last line of a result file that is a JSON object.
json_line() { grep '^{' "$1" | tail -1; }

declare -A R   # results: R[<server>.<metric>]

# ---------------------------------------------------------------- build
cd "$ROOT"
if [[ $RUN_PUBNODE == 1 && -z "$PUBNODE_BIN" ]]; then
    if [[ $BUILD == 1 ]]; then
        log "building pubnode (release) in $SCRATCH"
        release_build pubnode
    fi
    PUBNODE_BIN=$SCRATCH/release/pubnode
fi
if [[ $BUILD == 1 ]]; then
    log "building pubnode-load (release) in $SCRATCH"
    release_build pubnode-load
fi
LOAD=$SCRATCH/release/pubnode-load
[[ -x "$LOAD" ]] || { echo "missing $LOAD (build it or drop --no-build)" >&2; exit 1; }
if [[ $RUN_PUBNODE == 1 ]]; then
    [[ -x "$PUBNODE_BIN" ]] || { echo "missing pubnode binary: $PUBNODE_BIN" >&2; exit 1; }
fi

if [[ $NCHAN == 1 ]]; then
    if [[ $INSTALL == 1 ]] && ! [[ -f /usr/lib/nginx/modules/ngx_nchan_module.so ]]; then
        log "installing nginx and libnginx-mod-nchan"
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx libnginx-mod-nchan >&2
    fi
    if ! command -v nginx >/dev/null || ! [[ -f /usr/lib/nginx/modules/ngx_nchan_module.so ]]; then
        echo "Nchan requested but nginx/libnginx-mod-nchan is not installed (use --install)" >&2
        exit 1
    fi
fi

# ---------------------------------------------------------------- scenarios
# run_suite NAME TARGET PORT PID: runs every scenario against one running server.
run_suite() {
    local name=$1 target=$2 port=$3 pid=$4
    local common=(--host 127.0.0.1 --port "$port" --target "$target" --json)
    local out line

    # 1. Memory per parked subscriber, on the fresh server.
    out=$WORK/$name-park.json
    local before during
    sleep 1
    before=$(rss_kib "$pid")
    "$LOAD" park "${common[@]}" --threads "$LOAD_THREADS" --subscribers "$PARK_SUBS" --hold "$PARK_HOLD" \
        --channel "park-$RANDOM" >"$out" 2>&1 &
    local park_pid=$!
    STARTED_PIDS+=("$park_pid")
    for _ in $(seq 1 1800); do
        grep -q '^parked' "$out" 2>/dev/null && break
        kill -0 "$park_pid" 2>/dev/null || break
        sleep 0.1
    done
    sleep 1
    during=$(rss_kib "$pid")
    wait "$park_pid" || log "$name park exited with an error"
    line=$(json_line "$out")
    R[$name.rss_idle_kib]=$before
    R[$name.rss_parked_kib]=$during
    R[$name.parked]=$(jget "$line" parked)
    R[$name.park_errors]=$(jget "$line" errors)
    log "$name park: $(head -1 "$out"), VmRSS ${before} -> ${during} KiB"

    # 2. Publish throughput and server CPU.
    out=$WORK/$name-publish.json
    local ticks0 ticks1 t0 t1
    ticks0=$(cpu_ticks "$pid"); t0=$(now_ns)
    "$LOAD" publish "${common[@]}" --threads "$PUBLISH_THREADS" --connections "$CONNECTIONS" --duration "$DURATION" \
        --warmup "$WARMUP" --payload-size "$PAYLOAD" --channels "$CHANNELS" >"$out" 2>&1 \
        || log "$name publish exited with an error"
    ticks1=$(cpu_ticks "$pid"); t1=$(now_ns)
    line=$(json_line "$out")
    R[$name.publish_rps]=$(jget "$line" requests_per_s)
    R[$name.publish_p50]=$(jget "$line" latency_p50_ms)
    R[$name.publish_p99]=$(jget "$line" latency_p99_ms)
    R[$name.publish_errors]=$(jget "$line" errors)
    R[$name.publish_cpu]=$(awk -v d=$((ticks1 - ticks0)) -v hz="$(getconf CLK_TCK)" -v ns=$((t1 - t0)) \
        'BEGIN { printf "%.0f", d / hz / (ns / 1e9) * 100 }')
    log "$name publish: ${R[$name.publish_rps]} req/s, errors ${R[$name.publish_errors]}, CPU ${R[$name.publish_cpu]} %"

    # 3. Fan-out latency.
    local size
    for size in $FANOUT_SIZES; do
        out=$WORK/$name-fanout-$size.json
        ticks0=$(cpu_ticks "$pid")
        # The server's CPU is also read when the load tool says every subscriber is parked and
        # when every message is delivered (its 1 s hold begins), splitting the whole run into the
        # subscribers' setup (connection, handshake, first poll), the messages, and the close.
        "$LOAD" fanout "${common[@]}" --threads "$LOAD_THREADS" --subscribers "$size" --messages "$MESSAGES" \
            --interval-ms "$INTERVAL_MS" --hold 1 --channel "fan$size-$RANDOM" >"$out" 2>&1 &
        local load=$! parked_at="" held_at=""
        while kill -0 "$load" 2>/dev/null; do
            if [[ -z "$parked_at" ]] && grep -q '^fanout: [0-9]* parked' "$out"; then parked_at=$(cpu_ticks "$pid"); fi
            if [[ -z "$held_at" ]] && grep -q '^fanout: holding' "$out"; then held_at=$(cpu_ticks "$pid"); fi
            sleep 0.02
        done
        wait "$load" || log "$name fanout $size exited with an error"
        sleep 0.5   # the server closes the last connections
        ticks1=$(cpu_ticks "$pid")
        line=$(json_line "$out")
        local delivered hz
        delivered=$(jget "$line" delivered) hz=$(getconf CLK_TCK)
        # The server's CPU over the whole run (connecting, parking and closing included) per delivery.
        R[$name.fan$size.cpu_us]=$(awk -v d=$((ticks1 - ticks0)) -v hz="$hz" -v n="$delivered" \
            'BEGIN { if (n > 0) printf "%.1f", d / hz / n * 1e6; else printf "0" }')
        if [[ -n "$parked_at" && -n "$held_at" ]]; then
            R[$name.fan$size.messages_cpu_us]=$(awk -v d=$((held_at - parked_at)) -v hz="$hz" -v n="$delivered" \
                'BEGIN { if (n > 0) printf "%.1f", d / hz / n * 1e6; else printf "0" }')
            R[$name.fan$size.setup_cpu_us]=$(awk -v d=$((parked_at - ticks0)) -v hz="$hz" -v n="$size" 'BEGIN { printf "%.0f", d / hz / n * 1e6 }')
            R[$name.fan$size.close_cpu_us]=$(awk -v d=$((ticks1 - held_at)) -v hz="$hz" -v n="$size" 'BEGIN { printf "%.0f", d / hz / n * 1e6 }')
        fi
        local key
        for key in delivered expected errors delivery_p50_ms delivery_p90_ms delivery_p99_ms delivery_max_ms \
            publish_late_max_ms publish_rtt_p50_ms; do
            R[$name.fan$size.$key]=$(jget "$line" "$key")
        done
        log "$name fanout $size: delivered ${R[$name.fan$size.delivered]}/${R[$name.fan$size.expected]}," \
            "p50 ${R[$name.fan$size.delivery_p50_ms]} ms, p99 ${R[$name.fan$size.delivery_p99_ms]} ms," \
            "publish ack p50 ${R[$name.fan$size.publish_rtt_p50_ms]} ms, sent at most ${R[$name.fan$size.publish_late_max_ms]} ms late"
    done
}

run_pubnode() {
    local port node_pid
    port=$(free_port)
    rm -rf "$WORK/pubnode-data" && mkdir -p "$WORK/pubnode-data"
    log "starting $PUBNODE_BIN on 127.0.0.1:$port"
    # shellcheck disable=SC2086 # PUBNODE_ARGS is a list of flags
    "$PUBNODE_BIN" --port "$port" --host 127.0.0.1 $PUBNODE_UNLIMITED --data-dir "$WORK/pubnode-data" \
        --history-enabled "$PUBNODE_HISTORY" ${PUBNODE_ARGS:-} \
        >"$WORK/pubnode.log" 2>&1 &
    node_pid=$!
    STARTED_PIDS+=("$node_pid")
    wait_port "$port" "$node_pid"
    run_suite pubnode pubnode "$port" "$node_pid"
    kill "$node_pid" 2>/dev/null || true
    wait "$node_pid" 2>/dev/null || true
}

run_nchan() {
    local port nginx_pid
    port=$(free_port)
    log "starting nginx+nchan ($NCHAN_WORKERS worker(s)) on 127.0.0.1:$port"
    nchan_start "$WORK/nginx" "$port" "$NCHAN_WORKERS"
    nginx_pid=$NCHAN_PID
    STARTED_PIDS+=("$nginx_pid")
    wait_port "$port" "$nginx_pid"
    run_suite nchan nchan "$port" "$nginx_pid"
    cp "$WORK/nginx/error.log" "$WORK/nginx-error.log" 2>/dev/null || true
    cp "$WORK/nginx/stdout.log" "$WORK/nginx.log" 2>/dev/null || true
    kill "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
}

# keep_round N: files this round's results under R[<server>@N.<metric>].
keep_round() {
    local key
    for key in "${!R[@]}"; do
        [[ $key == *@* ]] || R[${key%%.*}@$1.${key#*.}]=${R[$key]}
    done
}

# combine_rounds: R[<server>.<metric>] becomes the median over rounds (deliveries, expected
# counts and errors: the sum), so the table below reads the same for one round or many.
combine_rounds() {
    local key base server metric values
    for key in "${!R[@]}"; do
        [[ $key == *@1.* ]] || continue
        server=${key%%@*}; metric=${key#*@1.}; base=$server.$metric
        values=()
        local round
        for round in $(seq 1 "$ROUNDS"); do values+=("${R[$server@$round.$metric]:-}"); done
        case "$metric" in
            *delivered|*expected|*errors) R[$base]=$(printf '%s\n' "${values[@]}" | awk '{ s += $1 } END { print s }') ;;
            *) R[$base]=$(median "${values[@]}") ;;
        esac
    done
}

for round in $(seq 1 "$ROUNDS"); do
    [[ $ROUNDS == 1 ]] || log "round $round of $ROUNDS"
    if [[ $RUN_PUBNODE == 1 ]]; then run_pubnode; fi
    if [[ $NCHAN == 1 ]]; then run_nchan; fi
    keep_round "$round"
done
combine_rounds

# ---------------------------------------------------------------- report
# shellcheck source=Scripts/bench-report.sh
source "$ROOT/Scripts/bench-report.sh"
