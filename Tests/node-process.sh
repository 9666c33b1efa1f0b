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

# node_start PORT PATH ARGS...: starts the node binary with ARGS (logging to LOG) and waits up to
# 30 s until http://127.0.0.1:PORT/PATH answers 200; exits 1 if it dies or never does.
node_start() {
    local port=$1 path=$2
    shift 2
    "$BIN" "$@" >"$LOG" 2>&1 &
    NODE_PID=$!
    "$VENV/bin/python" - "$port" "$NODE_PID" "$path" "$NAME" <<'PY' || exit 1
import os, sys, time, urllib.request
port, pid, path, name = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
deadline = time.monotonic() + 30


def alive():
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False


while time.monotonic() < deadline:
    if not alive():
        sys.exit("%s: pubnode exited before becoming ready" % name)
    try:
        with urllib.request.urlopen("http://127.0.0.1:%s%s" % (port, path), timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except Exception:
        pass
    time.sleep(0.1)
sys.exit("%s: pubnode did not answer GET %s with 200 within 30 s" % (name, path))
PY
}
