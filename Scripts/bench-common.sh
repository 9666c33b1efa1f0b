# Helpers shared by the benchmark scripts (sourced, not run).

# Builds PRODUCT for release in $SCRATCH as it is deployed (Scripts/build-release.sh: the Swift
# standard library and runtime linked in, the dynamic exclusivity checks compiled out). Linked
# dynamically, every runtime call (retain, release) goes through the dynamic linker's tables:
# about 1.3 % of a publish's profile (Docs/performance.md, fifteenth series); the exclusivity
# checks were 18 % of a delivery's instructions (twenty-first series). Every script builds the
# same way, so one scratch folder is never rebuilt from scratch by switching between them.
# (Run from anywhere: each script sets ROOT to the package.)
release_build() {
    bash "$ROOT/Scripts/build-release.sh" "$1" --scratch-path "$SCRATCH" >&2
}

# A free loopback TCP port.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The median of the numbers given as arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# A field of the last JSON line pubnode-load wrote to FILE: result_field FILE NAME.
result_field() {
    python3 -c 'import json,sys; print(json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][-1])[sys.argv[2]])' "$1" "$2"
}

# Flags that lift the per-address connection and parked-poll limits: a load generator opens
# thousands of connections from one address. Left unquoted where used.
PUBNODE_UNLIMITED="--client-connection-limit 0 --client-parked-limit 0"

# Starts Nchan (nginx with Deploy/nchan/nginx.conf) in the background on loopback PORT, its prefix
# DIR made afresh: nchan_start DIR PORT WORKERS [WRAPPER...]. WORKERS is nginx's worker_processes,
# or `single` for one process without a master (the process a profiler can wrap). Its output goes
# to DIR/stdout.log; NCHAN_PID is the process started (the master, or the single process).
nchan_start() {
    local dir=$1 port=$2 workers=$3 processes
    shift 3
    rm -rf "$dir" && mkdir -p "$dir/tmp" "$dir/logs"
    sed "s/127\.0\.0\.1:9080/127.0.0.1:$port/" "$ROOT/Deploy/nchan/nginx.conf" >"$dir/nginx.conf"
    processes="worker_processes $workers;"
    [[ "$workers" == single ]] && processes="master_process off;"
    "$@" nginx -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" \
        -g "daemon off; $processes worker_rlimit_nofile $(ulimit -n); pid $dir/nginx.pid;" >"$dir/stdout.log" 2>&1 &
    NCHAN_PID=$!
}

# Starts PubNode in the background as the cost scripts measure it: on loopback PORT with metrics
# on METRICS_PORT, history off, no per-client limits, PUBNODE_ARGS (one event loop unless given):
# pubnode_start BIN DIR [WRAPPER...], its data in DIR/data and its output in DIR/node.log.
# PUBNODE_PID is the process started.
pubnode_start() {
    local bin=$1 dir=$2
    shift 2
    rm -rf "$dir/data"
    # shellcheck disable=SC2086 # PUBNODE_UNLIMITED and PUBNODE_ARGS are lists of flags
    "$@" "$bin" --host 127.0.0.1 --port "$PORT" --metrics-port "$METRICS_PORT" $PUBNODE_UNLIMITED \
        --data-dir "$dir/data" --history-enabled false --log-level error ${PUBNODE_ARGS:---event-loop-threads 1} \
        >"$dir/node.log" 2>&1 &
    PUBNODE_PID=$!
}

# Waits until URL answers anything, an HTTP error included, while PID lives; at most TRIES tries
# 0.2 s apart: wait_answer URL PID [TRIES, 300]. Fails if PID ends or the time runs out.
wait_answer() {
    local url=$1 pid=$2 tries=${3:-300}
    for _ in $(seq 1 "$tries"); do
        curl -s -o /dev/null "$url" && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.2
    done
    return 1
}

# Long-polls a server holds on one fan-out channel, with PORT (and for PubNode METRICS_PORT) set:
# fanout_parked SERVER CHANNEL, SERVER being pubnode, floor (`pubnode-load floor`) or nchan.
fanout_parked() {
    case "$1" in
    nchan) curl -s "http://127.0.0.1:$PORT/pub?id=$2" | awk '/^active subscribers:/ { n = $3 } END { print n + 0 }' ;;
    floor) curl -sf "http://127.0.0.1:$PORT/parked" || echo 0 ;;
    *) curl -sf "http://127.0.0.1:$METRICS_PORT/metrics" | awk '$1 ~ /^pubnode_parked_polls({|$)/ { s += $2 } END { print s + 0 }' ;;
    esac
}

# Prints to standard error what a server started by server_start wrote (its log; Nchan's logs).
server_log() { cat "$WORK/node.log" "$WORK/nginx/stdout.log" "$WORK/nginx/error.log" 2>/dev/null >&2 || true; }

# Starts the server under test in the background and waits until it answers, with WORK, PORT and
# METRICS_PORT set: server_start SERVER BIN NGINX_WORKERS TRIES [WRAPPER...]. SERVER is pubnode
# (BIN the node, started by pubnode_start), floor (BIN the load tool, on FLOOR_THREADS loops, one
# unless set) or nchan (NGINX_WORKERS as nchan_start takes it); TRIES as wait_answer takes it; a
# WRAPPER (valgrind, say) runs the server's process. Sets SERVER_PID, the process started; if the
# server does not answer, prints its log and exits.
server_start() {
    local server=$1 bin=$2 workers=$3 tries=$4 probe
    shift 4
    case "$server" in
    nchan)
        nchan_start "$WORK/nginx" "$PORT" "$workers" "$@"
        SERVER_PID=$NCHAN_PID probe="http://127.0.0.1:$PORT/pub?id=probe" ;;
    floor)
        "$@" "$bin" floor --port "$PORT" --threads "${FLOOR_THREADS:-1}" --seconds 3600 >"$WORK/node.log" 2>&1 &
        SERVER_PID=$! probe="http://127.0.0.1:$PORT/parked" ;;
    pubnode)
        pubnode_start "$bin" "$WORK" "$@"
        SERVER_PID=$PUBNODE_PID probe="http://127.0.0.1:$PORT/time/0" ;;
    *) echo "unknown server: $server" >&2; exit 2 ;;
    esac
    wait_answer "$probe" "$SERVER_PID" "$tries" || { server_log; exit 1; }
}
