# Shared by Tests/Interop/run.sh and Tests/Browser/run.sh (sourced, not run): a Python virtual
# environment, one node process started in a temporary directory, waiting for it to serve, and
# stopping it (printing its log's tail when the suite failed). The caller sets NAME (for
# messages), VENV and REQUIREMENTS, and calls `node_start PATH ARGS...` after `node_prepare`.

# Creates the virtual environment if needed and installs REQUIREMENTS into it.
node_prepare_venv() {
    [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
}

# A free loopback port.
node_free_port() {
    "$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Makes WORK_DIR, DATA_DIR and LOG, and stops the node (and cleans up) when the shell exits.
node_prepare() {
    WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/pubnode-$NAME.XXXXXX")"
    DATA_DIR="$WORK_DIR/data"
    LOG="$WORK_DIR/pubnode.log"
    mkdir -p "$DATA_DIR"
    NODE_PID=""
    trap node_cleanup EXIT
}

node_cleanup() {
    local rc=$?
    if [[ -n "$NODE_PID" ]] && kill -0 "$NODE_PID" 2>/dev/null; then
        kill "$NODE_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$NODE_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$NODE_PID" 2>/dev/null || true
        wait "$NODE_PID" 2>/dev/null || true
    fi
    if [[ $rc -ne 0 && -f "$LOG" ]]; then
        echo "---- pubnode log (last 60 lines) ----" >&2
        tail -n 60 "$LOG" >&2 || true
        echo "-------------------------------------" >&2
    fi
    rm -rf "$WORK_DIR"
    exit $rc
}

# node_start PORT PATH ARGS...: starts the node binary with ARGS (logging to LOG), waits for
# its "listening" log line (up to 30 s), then checks that http://127.0.0.1:PORT/PATH answers 200;
# exits 1 if it dies or never does.
node_start() {
    local port=$1 path=$2
    shift 2
    "$BIN" "$@" >"$LOG" 2>&1 &
    NODE_PID=$!
    # tail follows the log as it is written (no polling of ours); grep stops at the line.
    if ! grep -q -m1 "listening" < <(timeout 30 tail -n +1 -F "$LOG" 2>/dev/null); then
        echo "$NAME: pubnode did not start listening within 30 s" >&2
        exit 1
    fi
    if ! "$VENV/bin/python" -c 'import sys, urllib.request; sys.exit(urllib.request.urlopen(sys.argv[1], timeout=5).status != 200)' \
        "http://127.0.0.1:$port$path"; then
        echo "$NAME: pubnode did not answer GET $path with 200" >&2
        exit 1
    fi
}
